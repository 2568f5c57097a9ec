#include "sim/elastic.h"

#include <algorithm>

#include "core/fabric.h"

namespace topsim {

bool keeps_enough_workers(const std::vector<PodPlacement>& pods, int failed, int min_workers) {
  if (min_workers <= 0) return false;
  const auto kept = std::count_if(pods.begin(), pods.end(), [&](const PodPlacement& p) { return p.node != failed; });
  return kept >= min_workers;
}

std::vector<PodBinding> pods_on_spare(const std::vector<PodPlacement>& pods, int failed, int spare) {
  std::vector<PodBinding> out;
  out.reserve(pods.size());
  for (const PodPlacement& pod : pods) out.push_back({pod.node == failed ? spare : pod.node, pod.gpus});
  return out;
}

bool same_nvlink_domains(const std::vector<PodPlacement>& before, const std::vector<PodBinding>& after, const Fabric& fabric) {
  for (size_t i = 0; i < before.size(); ++i)
    if (fabric.nvlink_domain(before[i].node) != fabric.nvlink_domain(after[i].node)) return false;
  return true;
}

std::vector<PodBinding> pods_off_node(const std::vector<PodPlacement>& pods, int failed) {
  std::vector<PodBinding> out;
  for (const PodPlacement& pod : pods)
    if (pod.node != failed) out.push_back({pod.node, pod.gpus});
  return out;
}

std::vector<PodBinding> pods_grown(const std::vector<PodPlacement>& pods, int node, const std::vector<int>& free_cards,
                                   size_t missing, int gpus_per_worker) {
  const size_t per_pod = static_cast<size_t>(gpus_per_worker);
  const size_t fit = std::min(missing, free_cards.size() / per_pod);
  std::vector<PodBinding> out;
  out.reserve(pods.size() + fit);
  for (const PodPlacement& pod : pods) out.push_back({pod.node, pod.gpus});
  for (size_t p = 0; p < fit; ++p) {
    const auto first = free_cards.begin() + static_cast<std::ptrdiff_t>(p * per_pod);
    out.push_back({node, std::vector<int>(first, first + static_cast<std::ptrdiff_t>(per_pod))});
  }
  return out;
}

}  // namespace topsim
