// A queue folder's YAML of two ResourceFlavors of one GPU model each (a100, then h100) and a
// ClusterQueue `team` trying them in that order: 8 H100 GPUs and `a100_quota` A100 GPUs. For the
// tests of flavors that hold jobs to their GPU model's nodes.
#pragma once

#include <string>

namespace topsim::test {

inline std::string a100_then_h100_queues_yaml(int a100_quota = 8) {
  return R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a100}
spec:
  nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: h100}
spec:
  nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team}
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: )" +
         std::to_string(a100_quota) + R"(}]
    - name: h100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
)";
}

}  // namespace topsim::test
