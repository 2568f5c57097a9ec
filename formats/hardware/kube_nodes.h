// `kubectl get nodes -o json` as a topsim cluster (docs/importers.md): GPU nodes grouped by GPU
// product (the GPU feature discovery label `nvidia.com/gpu.product`), GPU count (`allocatable`
// `nvidia.com/gpu`, or `aliyun.com/gpu-count` on GPU-sharing nodes) and scheduling label
// (`ack.node.gpu.schedule`), each group mapped to a built-in node model.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace topsim {

struct KubeNodeGroup {
  std::string product;             // the GPU product label, as written
  int gpus = 0;                    // per node
  std::string label;               // ack.node.gpu.schedule value ("" when absent)
  std::string model;               // built-in model name, or what --map gave
  int count = 0;                   // nodes
  std::vector<std::string> nodes;  // their names, in file order
};

struct KubeNodeImport {
  std::vector<KubeNodeGroup> groups;  // in order of first appearance
  std::vector<std::string> skipped;   // nodes without GPUs, by name
};

// `mapping`: product label -> model (built-in name or node file), consulted first. Errors name
// the source and the node ("nodes.json: /items/3 (gpu-7): ..."); products no model matches are
// listed together, with how to map them.
[[nodiscard]] Expected<KubeNodeImport> parse_kube_nodes(std::string_view text, std::string_view source,
                                                        const std::map<std::string, std::string>& mapping = {});

// The import as a scenario `cluster` section: {"nodes": [{"model", "count", "label"?}, ...]}.
std::string kube_cluster_json(const KubeNodeImport& import);

}  // namespace topsim
