#include "formats/hardware/topo_m_models.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "util/text.h"

namespace topsim {
namespace {

// {catalog name, reason} from the NVLink counts, per NVLink ports per GPU (hardware.cpp catalog):
// NV18 -> h100, NV12 -> a100, NV6 over an NVSwitch -> v100-sxm3, NV1/NV2 only -> v100; else {"", ""}.
// REQUIRES: !nv.counts.empty()
std::pair<std::string, std::string> infer_gpu_model(const NvLinkCounts& nv, int gpus) {
  if (nv.counts.count(18)) return {"h100", "NV18 (18 NVLinks per GPU: H100 SXM5)"};
  if (nv.counts.count(12)) return {"a100", "NV12 (12 NVLinks per GPU: A100 SXM4)"};
  // NV6 between every pair of 5 or more GPUs needs an NVSwitch (a GPU has at most 18 ports:
  // 4 peers x 6 = 24): the DGX-2's V100 SXM3. Up to 4 GPUs it is as well 4 x H100 SXM5 bonded
  // directly (3 peers x 6 = 18 ports): ambiguous, one_gpu_model asks for --gpu-model.
  if (nv.uniform_mesh && *nv.counts.begin() == 6 && gpus > 4)
    return {"v100-sxm3", "NV6 between every GPU pair (NVSwitch, 6 links per GPU: DGX-2 V100 SXM3)"};
  if (*nv.counts.rbegin() <= 2) return {"v100", "NV1/NV2 direct links (DGX-1-style hybrid cube-mesh of V100 SXM2)"};
  return {"", ""};
}

Expected<const GpuModel*> one_gpu_model(const std::string& option, int gpus, const NvLinkCounts& nv,
                                        std::vector<std::string>& notes) {
  const std::string valid = join(gpu_model_names(), ", ");
  if (!option.empty()) {
    if (const GpuModel* model = find_gpu_model(option)) return model;
    return Error{"unknown GPU model '" + option + "' (valid: " + valid + ")"};
  }
  if (nv.counts.empty())
    return Error{"cannot infer the GPU model from a matrix without NVLink; pass --gpu-model (one of " + valid + ")"};
  const auto [name, why] = infer_gpu_model(nv, gpus);
  std::vector<std::string> seen;
  for (int c : nv.counts) seen.push_back("NV" + std::to_string(c));
  if (nv.uniform_mesh && *nv.counts.begin() == 6 && gpus > 2 && gpus <= 4)
    return Error{"NV6 between every pair of " + std::to_string(gpus) +
                 " GPUs fits the DGX-2's V100 SXM3 (NVSwitch, 6 links per GPU) and H100 SXM5 bonded directly (6 links "
                 "per pair) alike: pass --gpu-model (v100-sxm3, h100, ...)"};
  if (name.empty())
    return Error{"cannot infer the GPU model from NVLink counts " + join(seen, ", ") + "; pass --gpu-model (one of " + valid +
                 ")"};
  notes.push_back("inferred GPU model " + name + " from " + why + " (use --gpu-model to override)");
  return find_gpu_model(name);
}

}  // namespace

// The model of each GPU: one --gpu-model (or the inferred one) for all, or per GPU ranges where a
// box mixes cards: "0-1=rtx5090,2-4=rtx4090" must name every GPU once.
Expected<std::vector<const GpuModel*>> topo_m_gpu_models(const std::string& option, int gpus, const NvLinkCounts& nv,
                                                         std::vector<std::string>& notes) {
  if (option.find('=') == std::string::npos) {
    auto one = one_gpu_model(option, gpus, nv, notes);
    if (!one) return one.error();
    return std::vector<const GpuModel*>(static_cast<size_t>(gpus), *one);
  }
  std::vector<const GpuModel*> models(static_cast<size_t>(gpus), nullptr);
  for (const std::string& item : split_list(option)) {
    const size_t eq = item.find('=');
    const std::string range = item.substr(0, eq), name = eq == std::string::npos ? "" : item.substr(eq + 1);
    int first = -1, last = -1, used = 0;
    if (std::sscanf(range.c_str(), "%d-%d%n", &first, &last, &used) != 2 || used != static_cast<int>(range.size())) {
      used = 0;
      if (std::sscanf(range.c_str(), "%d%n", &first, &used) != 1 || used != static_cast<int>(range.size()))
        return Error{"--gpu-model '" + item + "': expected GPUS=MODEL, GPUS a GPU index or a range such as 0-3"};
      last = first;
    }
    const GpuModel* model = find_gpu_model(name);
    if (!model)
      return Error{"--gpu-model '" + item + "': unknown GPU model '" + name + "' (valid: " + join(gpu_model_names(), ", ") + ")"};
    if (first < 0 || last < first || last >= gpus)
      return Error{"--gpu-model '" + item + "': GPUs " + range + " are not among the matrix's GPU0..GPU" +
                   std::to_string(gpus - 1)};
    for (int g = first; g <= last; ++g) {
      if (models[g]) return Error{"--gpu-model: GPU" + std::to_string(g) + " is named twice"};
      models[g] = model;
    }
  }
  for (int g = 0; g < gpus; ++g)
    if (!models[g])
      return Error{"--gpu-model names no model for GPU" + std::to_string(g) + " (every GPU of the matrix needs one)"};
  return models;
}

std::string gpu_summary(const std::vector<const GpuModel*>& models) {
  std::vector<std::pair<const GpuModel*, int>> runs;
  for (const GpuModel* g : models) {
    auto it = std::find_if(runs.begin(), runs.end(), [&](const auto& r) { return r.first == g; });
    if (it == runs.end())
      runs.emplace_back(g, 1);
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [g, n] : runs) out += (out.empty() ? "" : " + ") + std::to_string(n) + " x " + g->product;
  return out;
}

}  // namespace topsim
