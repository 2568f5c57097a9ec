// Scenarios (`scenarios/*.json`, format in docs/scenarios.md): a cluster, a workload, the
// schedulers to compare, seeds, and how the experiment runs: a replay over time (the default)
// or a fill experiment (FGD's protocol: arrivals without departures until a target load).
//
// One loader for every mode. It validates everything up front (the workload is built for the
// scenario's seed and checked against the cluster); every error is one line naming the file
// and the JSON pointer, e.g.
//   "scenarios/x.json: /cluster/nodes/0/count: must be an integer in 1..100000, got -2".
// Unknown keys are errors with a "did you mean", at every level; so are duplicate keys.
// Relative paths inside a scenario (node files, traces, node lists) resolve against the
// scenario file's folder, whatever the working directory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "core/expected.h"
#include "core/network_model.h"
#include "core/throughput.h"
#include "sim/cluster.h"
#include "sim/job.h"

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
};

[[nodiscard]] Expected<Scenario> load_scenario(const std::string& path);
// The same from text; `base_dir` resolves relative paths ("" = the working directory).
[[nodiscard]] Expected<Scenario> parse_scenario(std::string_view text, std::string_view source, const std::string& base_dir);

// The built-in default scenario that `bash bootstrap.sh run` replays: the brief's experiment.
// Its file is scenarios/ack-v100-benchmark.json.
std::string default_scenario_path(const std::string& repository_root);

}  // namespace topsim
