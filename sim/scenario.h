// Scenarios (`scenarios/*.json`, format in docs/scenarios.md): a cluster, a workload, the
// schedulers to compare and a seed. Loading validates everything up front; every error is one
// line naming the file and the JSON pointer, e.g.
//   "scenarios/x.json: /cluster/nodes/0/count: must be an integer in 1..100000, got -2".
//
// Relative paths inside a scenario (node files, traces) resolve against the scenario file's
// folder.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"
#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/simulation.h"

namespace topsim {

struct Scenario {
  std::string name;               // default: the file's stem
  std::string description;
  std::string source;             // the file it was loaded from
  uint64_t seed = 1;              // default 1
  ClusterSpec cluster;
  Workload workload;
  std::vector<SchedulerKind> schedulers{SchedulerKind::TopologyAware, SchedulerKind::Default};
  SimOptions options;             // per-run options shared by every scheduler (scheduler and
                                  // seed are set per run)
};

// The `mode` of a scenario file: "replay" (default, this loader) or "fill" (the FGD
// fragmentation protocol, sim/fill_experiment.h). Errors: unreadable file, bad JSON.
Expected<std::string> scenario_mode(const std::string& path);

Expected<Scenario> load_scenario(const std::string& path);
// The same from text; `base_dir` resolves relative paths.
Expected<Scenario> parse_scenario(std::string_view text, std::string_view source, const std::string& base_dir);

// The built-in default scenario that `bash bootstrap.sh run` replays: the brief's experiment.
// Its file is scenarios/ack-v100-benchmark.json.
std::string default_scenario_path(const std::string& repository_root);

}  // namespace topsim
