// Nodes that fail while jobs run (docs/failures.md): each node fails by its model's rate per
// component, stays down for a repair time, then returns; or a trace of real incidents is
// replayed. Every node draws from a stream of its own, seeded by the run seed and its index, so a
// run's failures are the same whatever the scheduler does with the jobs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "core/hardware.h"
#include "util/enum_names.h"

namespace topsim {

// What failed. The components of Meta's Llama 3 report (Table 5), grouped: `gpu` (faulty GPU,
// SRAM, system processor, thermal, silent data corruption), `hbm`, `network` (switch, cable,
// NIC), `host` (host maintenance, SSD, power supply, chassis, IO board, CPU, memory),
// `software` (software bug, dependency, NCCL watchdog); `replayed`: a failure trace's line
// naming none.
enum class FailureCause : uint8_t { Gpu, Hbm, Network, Host, Software, Replayed };
inline constexpr size_t kFailureCauses = 6;
template <>
struct EnumNames<FailureCause> {
  static constexpr std::array<EnumName<FailureCause>, kFailureCauses> table{{{FailureCause::Gpu, "gpu"},
                                                                             {FailureCause::Hbm, "hbm"},
                                                                             {FailureCause::Network, "network"},
                                                                             {FailureCause::Host, "host"},
                                                                             {FailureCause::Software, "software"},
                                                                             {FailureCause::Replayed, "replayed"}}};
};

// How long a failed node stays down: lognormal with this median and log-space sigma (0: always
// the median). Repair times of large systems are lognormal (Schroeder and Gibson, "A large-scale
// study of failures in high-performance computing systems", DSN 2006).
struct RepairTime {
  double median_h = 0;
  double sigma = 0;
};

// One cause's rate on a node: per GPU-hour (scales with the node's GPUs) plus per node-hour.
struct CauseRate {
  double per_gpu_hour = 0;
  double per_node_hour = 0;
  RepairTime repair;
};

// A node model's failure rates by cause (FailureCause index; `replayed` has none).
struct FailureRates {
  std::array<CauseRate, kFailureCauses> causes{};
  std::string source;  // where the figures come from, in words

  double per_node_hour(int gpus) const;  // all causes
};

// The built-in rates for nodes of this GPU, with their source; none for a GPU no published fleet
// study covers (a scenario must then give the rates).
std::optional<FailureRates> default_failure_rates(const GpuModel& gpu);

// One incident of a failure trace: `node` (index) down from `at_ms` for `down_ms`.
struct ReplayedFailure {
  int node = 0;
  int64_t at_ms = 0;  // from the first submission
  int64_t down_ms = 0;
  FailureCause cause = FailureCause::Replayed;
};

// A scenario's change to one cause, for every node type: its rate (replacing the default rate
// of that cause when either is given) and its repair time.
struct CauseOverride {
  std::optional<double> per_gpu_hour, per_node_hour;
  std::optional<RepairTime> repair;
};

// Hot spares: in every group of a fabric level (or the whole cluster), the last `nodes` nodes by
// index are kept idle. When a node fails under running jobs, a spare of its group and model takes
// its place: the jobs restart at once on the same nodes with the spare for the failed one,
// instead of waiting to be placed again. A repaired node refills its group's spares first.
// Practice: BLOOM-176B kept 4 spare nodes beside 48 (bigscience tr11-176B-ml README); OPT-175B a
// pool of 12 beside 124 (metaseq logbook).
struct SpareSpec {
  int nodes = 0;    // per group
  std::string per;  // the fabric level's name; empty: the whole cluster
  int level = -1;   // its index in the fabric (-1: the whole cluster)
};

// A scenario's "failures" (docs/failures.md).
struct FailureSpec {
  bool draw = true;  // draw failures from the rates; false: only the trace
  double scale = 1;  // every rate times this (a what-if: a fleet twice as reliable is 0.5); default 1
  std::array<std::optional<CauseOverride>, kFailureCauses> overrides;
  std::vector<ReplayedFailure> trace;  // by start time
  std::string trace_source;            // the trace file, for messages
  std::optional<SpareSpec> spares;
};

// A node type's rates: the built-in ones of its GPU (none: every cause 0) with the scenario's
// overrides, times its scale.
FailureRates resolve_failure_rates(const FailureSpec& spec, const GpuModel* gpu);
// Whether drawing needs rates a node of this GPU lacks: no built-in rates and no override giving
// any rate. Empty, or the sentence saying so (the scenario loader refuses such a scenario).
std::string missing_failure_rates(const FailureSpec& spec, const GpuModel* gpu, const std::string& node_model);

// What became of a running job a node failure hit (sim/engine_stops.cpp): it restarted at once
// on its nodes with a hot spare for the failed one; an elastic job went on with the workers it
// had off that node; or it stopped and waited to be placed again.
enum class FailureOutcome : uint8_t { Spare, Shrunk, Stopped };
template <>
struct EnumNames<FailureOutcome> {
  static constexpr std::array<EnumName<FailureOutcome>, 3> table{
      {{FailureOutcome::Spare, "spare"}, {FailureOutcome::Shrunk, "shrunk"}, {FailureOutcome::Stopped, "stopped"}}};
};

// A job a node failure hit (its id) and what became of it.
struct FailureHit {
  uint32_t job = 0;
  FailureOutcome then = FailureOutcome::Stopped;
  bool operator==(const FailureHit&) const = default;
};

// A node going down or coming back.
struct NodeEvent {
  int64_t at_ms = 0;
  int node = 0;
  bool fails = true;                            // false: repaired
  FailureCause cause = FailureCause::Replayed;  // of a failure
  int64_t down_ms = 0;                          // of a failure: how long it stays down
  int spare = -1;                               // of a failure: the spare that took its jobs; -1: none
  std::vector<FailureHit> hit = {};             // of a logged failure: the jobs on the node, by id
};

// The node events of one run in time order: `spec`'s trace, and with `spec.draw` failures drawn
// from `rates_by_type` (by node type index; `node_types` and `node_gpus` by node). `spec` outlives
// it (it is read as events are drawn).
class NodeFailures {
 public:
  NodeFailures(const FailureSpec& spec, std::vector<FailureRates> rates_by_type, std::vector<int> node_types,
               std::vector<int> node_gpus, uint64_t run_seed, int64_t start_ms);

  bool empty() const { return events_.empty(); }
  int64_t next_ms() const { return events_.top().event.at_ms; }
  // The next event; a failure schedules its node's repair, a repair its next drawn failure.
  NodeEvent pop();
  bool down(int node) const { return down_until_[static_cast<size_t>(node)] >= 0; }
  int down_nodes() const { return down_count_; }

 private:
  struct Pending {
    NodeEvent event;
    bool drawn = false;  // a failure drawn from the rates (not a trace line)
    uint64_t seq = 0;
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const {
      return a.event.at_ms != b.event.at_ms ? a.event.at_ms > b.event.at_ms : a.seq > b.seq;
    }
  };
  void push(const NodeEvent& event, bool drawn);
  NodeEvent take();   // the next event that is not stale
  void drop_stale();  // keeps the top of the queue a live event
  void draw_next_failure(int node, int64_t from_ms);
  int64_t draw_repair_ms(int node, FailureCause cause);
  bool stale(const Pending& p) const;

  const FailureSpec& spec_;
  std::vector<FailureRates> rates_;  // by node type
  std::vector<int> type_of_, gpus_of_;
  std::vector<std::mt19937_64> streams_;  // one per node
  std::vector<int64_t> down_until_;       // -1: up
  std::vector<int64_t> next_drawn_ms_;    // the node's pending drawn failure; -1: none
  std::priority_queue<Pending, std::vector<Pending>, Later> events_;
  uint64_t seq_ = 0;
  int down_count_ = 0;
};

}  // namespace topsim
