// The one loader of scenario files (`scenarios/*.json`, format in docs/scenarios.md), for every
// mode. It validates everything up front (the workload is built for the scenario's seed and
// checked against the cluster); every error is one line naming the file and the JSON pointer,
// e.g.
//   "scenarios/x.json: /cluster/nodes/0/count: must be an integer in 1..100000, got -2".
// Unknown keys are errors with a "did you mean", at every level; so are duplicate keys.
// Relative paths inside a scenario (node files, traces, node lists) resolve against the
// scenario file's folder, whatever the working directory.
#pragma once

#include <string>
#include <string_view>

#include "sim/scenario.h"
#include "util/expected.h"

namespace topsim {

// A file (or folder) that is not a scenario but another input topsim reads fails with what it is
// and where it goes (scenario/other_inputs.h), not with the JSON error it makes.
[[nodiscard]] Expected<Scenario> load_scenario(const std::string& path);
// The same from text; `base_dir` resolves relative paths ("" = the working directory).
[[nodiscard]] Expected<Scenario> parse_scenario(std::string_view text, std::string_view source, const std::string& base_dir);

// A scenario of just a cluster and a workload (docs/importers.md), each a file or folder as a
// scenario's "cluster" and "workload" take (`kubectl get nodes -o json` output, manifests, sacct
// output...); named after the workload, errors prefixed "--cluster/--workload".
// `options.topology_labels`: node labels naming fabric levels beyond the known ones (a kubectl
// cluster); `options.network`: its transport between nodes (the scenario's "transport").
struct OwnClusterOptions {
  std::vector<std::string> topology_labels;  // default none
  std::string network;                       // "ib", "roce", "tcp"; default "" (read from the nodes)
  int share_card_gib = 0;                    // manifests: the card fractional shares are read against; default 0
};
// A cluster or workload file that is another input (manifests as --cluster, a node list as
// --workload, a trace, a scenario) fails with what it is and where it goes (scenario/other_inputs.h).
[[nodiscard]] Expected<Scenario> scenario_from_files(const std::string& cluster_path, const std::string& workload_path,
                                                     const OwnClusterOptions& options = {});

// A scenario holding only the cluster of a file (as scenario_from_files reads it) and no
// workload (`workload` null): what `topsim topo show --cluster` draws.
[[nodiscard]] Expected<Scenario> load_cluster_only(const std::string& cluster_path, const OwnClusterOptions& options = {});

// Why some training job of `workload` can run on none of `groups` (sim/job.h job_node_problem: its
// weights, gradients and Adam state above each GPU's memory; its LLM configuration on each GPU;
// its offload above each node's host memory), or is given by a duration measured on a GPU that
// cannot run it: the first such job in submission order; "" when every job can run on some group.
// A job some groups cannot run is kept off them by the schedulers. A scenario's loader checks its
// own cluster so (an error at /workload); a plan each candidate's node types.
std::string jobs_unrunnable_on(const Workload& workload, const std::vector<NodeGroupSpec>& groups);

// The built-in default scenario that `bash bootstrap.sh run` replays: the brief's experiment.
// Its file is scenarios/ack-v100-benchmark.json.
std::string default_scenario_path(const std::string& repository_root);

}  // namespace topsim
