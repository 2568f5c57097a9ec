// A scenario: what one experiment runs — a cluster, a workload, the schedulers to compare, seeds,
// and how it runs: a replay over time (the default) or a fill experiment (FGD's protocol:
// arrivals without departures until a target load). scenario/scenario_loader.h reads one from
// its file (format in docs/scenarios.md); sim/experiment.h runs it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/network_model.h"
#include "core/throughput.h"
#include "sim/checkpoint.h"
#include "sim/cluster.h"
#include "sim/failures.h"
#include "sim/job.h"
#include "sim/tenancy/tenancy.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

enum class ExperimentMode : uint8_t { Replay, Fill };
template <>
struct EnumNames<ExperimentMode> {
  static constexpr std::array<EnumName<ExperimentMode>, 2> table{
      {{ExperimentMode::Replay, "replay"}, {ExperimentMode::Fill, "fill"}}};
};

// How a fill experiment draws arrivals and which versions of the share policies it runs
// (docs/fill-scenarios.md): topsim's own protocol, or the FGD artifact's (its arrivals, integer
// scores with seeded tie-breaks, and its load curve).
enum class FillProtocol : uint8_t { Topsim, FgdArtifact };
template <>
struct EnumNames<FillProtocol> {
  static constexpr std::array<EnumName<FillProtocol>, 2> table{
      {{FillProtocol::Topsim, "topsim"}, {FillProtocol::FgdArtifact, "fgd-artifact"}}};
};

struct Scenario {
  std::string name;         // default: the file's stem
  std::string description;  // default ""
  ExperimentMode mode = ExperimentMode::Replay;
  uint64_t seed = 1;  // default 1; run i uses seed + i (sim/seeds.h)
  int seeds = 1;      // runs per scheduler; default 1
  ClusterSpec cluster;
  std::string cluster_source;  // a trace node list's file name ("" for node groups)
  // The workload of the scenario's seed, and how to build it for another run seed (empty when
  // every run uses the same workload).
  std::shared_ptr<const Workload> workload;
  std::function<Workload(uint64_t run_seed)> workload_for_seed;
  std::vector<std::string> schedulers;           // registry names; default topology-aware, default
  std::string share_scheduler = "binpack";       // places GPU shares for schedulers that do not; default binpack
  bool backfill = true;                          // "queue": {"backfill"}; default true
  NetworkModel network;                          // NIC efficiencies ("cluster": {"network": ...})
  OverlapModel overlap;                          // all-reduce / backward overlap per framework
  bool record_transitions = true;                // default true
  int64_t sample_every_ms = 0;                   // "sample_every_s"; default 0 = automatic
  double fragmentation_coverage = 0.95;          // FGD's target workload coverage; default 0.95
  double target_load = 1.3;                      // fill: arrived GPU request / capacity to stop at; default 1.3
  FillProtocol protocol = FillProtocol::Topsim;  // fill: "protocol"; default topsim
  // "tenancy": teams, quotas and preemption (sim/tenancy/); null: one queue, no quota.
  std::shared_ptr<const TenancySpec> tenancy;
  // "checkpoints" (or tenancy's checkpoint_every_s / restart_overhead_s): what a job stopped
  // before its end keeps and what restarting costs (sim/checkpoint.h).
  CheckpointPolicy checkpoint;
  // "failures": nodes that fail while jobs run (sim/failures.h); null: none.
  std::shared_ptr<const FailureSpec> failures;
  // What the loader read from the files that a user should know, one line each (the network
  // read from kubectl's nodes and why); `topsim run` prints them.
  std::vector<std::string> notes;
};

}  // namespace topsim
