// What a file handed to topsim as a scenario is when it is one of the other files topsim reads, and
// where it goes instead: `topsim run jobs.yaml` says "Kubernetes manifests (Job), not a scenario:
// run them with `topsim run --cluster NODES --workload jobs.yaml` ..." rather than a JSON syntax
// error at line 1. Recognised: Kubernetes manifests, kubectl node lists, Kueue / KAI queue objects,
// job lists, the Philly, Alibaba 2023 and Helios traces, sacct output, failure traces, node models
// (topsim's JSON, `nvidia-smi topo -m`, NCCL topology XML), plans, quality suites, saved results,
// and folders of them. Asked only after the file failed to load as a scenario, so a scenario is
// never taken for something else.
#pragma once

#include <optional>
#include <string>

namespace topsim {

// The error line for `path` (a file or a folder): "<path>: <what it is>, not a scenario (...);
// <how to use it>", or nothing when it is none of the files above.
[[nodiscard]] std::optional<std::string> not_a_scenario(const std::string& path);

}  // namespace topsim
