// What one pod of a Kubernetes workload asks of GPUs, read the ways users declare it
// (docs/importers.md, "GPU shares"). Internal to formats/jobs:
//   whole cards   nvidia.com/gpu, aliyun.com/gpu (container limits, else requests)
//   ACK gpushare  aliyun.com/gpu-mem (GiB unless a suffix says otherwise; noted), aliyun.com/gpu-core.percentage
//   HAMi          nvidia.com/gpu (cards) with nvidia.com/gpumem (MiB), nvidia.com/gpumem-percentage, nvidia.com/gpucores (%)
//   KAI           pod annotations gpu-fraction ("0.5") and gpu-memory (MiB)
//   FGD, open-simulator  pod annotations alibabacloud.com/gpu-milli (thousandths of a card),
//                 alibabacloud.com/gpu-mem (a Kubernetes quantity, bytes) and alibabacloud.com/gpu-count (cards)
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace topsim {

struct PodGpuAsk {
  int64_t gpus = 0;  // whole cards
  // A share of a card (any of these set): memory in MiB, compute in percent, or a fraction of the
  // card in thousandths; `share_cards` cards each holding that share; `share_source` says who
  // declared it ("KAI gpu-fraction 0.5").
  int64_t share_mib = 0;
  int64_t share_core_percent = 0;
  int64_t share_milli = 0;
  int64_t share_cards = 1;
  std::string share_source;
  // Accelerator resources the pod asks that topsim does not model (MIG slices such as
  // nvidia.com/mig-1g.5gb, time-sliced nvidia.com/gpu.shared, other vendors' devices), as named.
  std::vector<std::string> unmodelled;

  bool is_share() const { return share_mib > 0 || share_core_percent > 0 || share_milli > 0; }
};

// The ask of a pod whose spec is `spec` (read at `field`) and whose annotations are those of
// `annotations` (the pod template's) or else `object_annotations` (the workload's: open-simulator
// and the FGD simulator annotate the Deployment or ReplicaSet). Summed over containers, limits
// first (what the device plugin allocates), else requests. Units assumed where a quantity has no
// suffix are appended to `notes` (once each). Throws ManifestFault naming the field on values
// that are not quantities.
PodGpuAsk read_pod_gpu_ask(const YAML::Node& spec, const YAML::Node& annotations, const YAML::Node& object_annotations,
                           const std::string& field, std::vector<std::string>& notes);

}  // namespace topsim
