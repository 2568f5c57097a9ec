// The scheduler registry: every scheduler's name, what it places, which nodes its whole-GPU
// training jobs use, and its factory. One line per scheduler in registry.cpp; `topsim
// schedulers` lists them, scenarios name them in "schedulers".
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/share_policies.h"
#include "sim/scheduler.h"
#include "util/enum_names.h"

namespace topsim {

// What a scheduler places (bits).
enum SchedulerHandles : unsigned {
  kHandlesGangs = 1,      // multi-pod training jobs, all pods or none
  kHandlesPods = 2,       // training jobs pod by pod (a job may be partially placed)
  kHandlesShares = 4,     // GPU shares: aliyun.com/gpu-mem GiB (+ gpu-core.percentage)
  kHandlesTracePods = 8,  // trace pods: gpu_milli shares with CPU and memory on a trace's nodes
};
// One name per bit, in listing order.
template <>
struct EnumNames<SchedulerHandles> {
  static constexpr std::array<EnumName<SchedulerHandles>, 4> table{{{kHandlesGangs, "whole-GPU gangs"},
                                                                    {kHandlesPods, "whole-GPU pods"},
                                                                    {kHandlesShares, "GPU shares"},
                                                                    {kHandlesTracePods, "trace pods"}}};
};
// "whole-GPU gangs, GPU shares, trace pods" style text of a handles set.
std::string handles_text(unsigned handles);
// The names of the bits set in `handles`, in table order.
std::vector<std::string> handles_names(unsigned handles);

struct SchedulerInfo {
  std::string_view name;
  std::string_view summary;             // one line
  unsigned handles = 0;                 // SchedulerHandles bits
  NodeMode serves = NodeMode::Default;  // label of the nodes its training jobs use
  std::string_view source;              // the file implementing it
  std::unique_ptr<Scheduler> (*make)(const SchedulerContext& context) = nullptr;
  std::optional<SharePolicyKind> share_policy;  // the core share policy placing its shares, if any
};

// Every scheduler, in listing order.
const std::vector<SchedulerInfo>& scheduler_registry();
// The scheduler named exactly `name`, or nullptr.
const SchedulerInfo* find_scheduler(std::string_view name);
std::vector<std::string> scheduler_names();

// The factories (one file each under sim/schedulers/).
std::unique_ptr<Scheduler> make_topology_aware_scheduler(const SchedulerContext& context);
std::unique_ptr<Scheduler> make_kube_default_scheduler(const SchedulerContext& context);
std::unique_ptr<Scheduler> make_binpack_scheduler(const SchedulerContext& context);
std::unique_ptr<Scheduler> make_kueue_tas_scheduler(const SchedulerContext& context);
std::unique_ptr<Scheduler> make_volcano_topology_scheduler(const SchedulerContext& context);
std::unique_ptr<Scheduler> make_kube_tas_scheduler(const SchedulerContext& context);
std::unique_ptr<Scheduler> make_kai_topology_scheduler(const SchedulerContext& context);

}  // namespace topsim
