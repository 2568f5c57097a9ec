#include "sim/tenancy/kai_division.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace topsim {
namespace {

constexpr double kEpsilon = 1e-9;

// Divides `total` among the queues `members` (siblings, creation order); returns what is left.
double divide(const std::vector<KaiShareQueue>& queues, const std::vector<double>& request, const std::vector<size_t>& members,
              double total, std::optional<double> k_value, std::vector<double>& share) {
  std::map<size_t, double> requestable, fraction;
  double remaining = total;
  for (size_t q : members) {
    const KaiShareQueue& queue = queues[q];
    requestable[q] = queue.limit >= 0 ? std::min(request[q], queue.limit) : request[q];
    const double deserved = queue.deserved < 0 ? total : queue.deserved;
    share[q] = std::min(deserved, requestable[q]);
    remaining -= share[q];
  }
  remaining = std::max(0.0, remaining);
  std::map<int, std::vector<size_t>, std::greater<>> by_priority;
  for (size_t q : members) by_priority[queues[q].priority].push_back(q);
  for (const auto& entry : by_priority) {
    const std::vector<size_t>& level = entry.second;  // one priority, highest first
    auto unsatisfied = [&] {
      std::vector<size_t> out;
      for (size_t q : level)
        if (share[q] + kEpsilon < requestable[q] && queues[q].over_quota_weight > 0) out.push_back(q);
      return out;
    };
    for (std::vector<size_t> open = unsatisfied(); remaining > kEpsilon && !open.empty(); open = unsatisfied()) {
      double weights = 0;
      for (size_t q : open) weights += queues[q].over_quota_weight;
      // Each open queue's part of the round: its weight, or with time-aware fairness
      // (calcShareWeights) max(0, w + k(w - usage)), w its weight over the open queues' weights.
      const auto part = [&](size_t q) {
        if (!k_value) return queues[q].over_quota_weight;
        const double w = queues[q].over_quota_weight / weights;
        return std::max(0.0, w + *k_value * (w - queues[q].usage));
      };
      double parts = 0;
      for (size_t q : open) parts += part(q);
      if (parts <= 0) break;  // every open queue used more than its weight allows: the remainder pass
      const double round = remaining;
      bool took_less = false;
      for (size_t q : open) {
        const double slice = round * part(q) / parts;
        const double need = requestable[q] - share[q];
        if (need <= slice + kEpsilon) {
          share[q] += need;
          remaining -= need;
          took_less = true;
        } else {
          const double whole = std::floor(slice + kEpsilon);
          share[q] += whole;
          remaining -= whole;
          fraction[q] = slice - whole;
        }
      }
      if (!took_less) break;
    }
    while (remaining > kEpsilon) {  // the remainder, to the largest fractions left over
      const std::vector<size_t> open = unsatisfied();
      if (open.empty()) break;
      size_t best = open.front();
      for (size_t q : open)
        if (fraction[q] > fraction[best] + kEpsilon) best = q;
      const double unit = std::min({1.0, remaining, requestable[best] - share[best]});
      share[best] += unit;
      remaining -= unit;
      fraction[best] = -1;  // served: the others first
    }
  }
  return remaining;
}

void divide_below(const std::vector<KaiShareQueue>& queues, const std::vector<double>& request, int parent, double total,
                  std::optional<double> k_value, std::vector<double>& share) {
  std::vector<size_t> members;
  for (size_t q = 0; q < queues.size(); ++q)
    if (queues[q].parent == parent) members.push_back(q);
  if (members.empty()) return;
  divide(queues, request, members, total, k_value, share);
  for (size_t q : members) divide_below(queues, request, static_cast<int>(q), share[q], k_value, share);
}

}  // namespace

std::vector<double> kai_fair_shares(const std::vector<KaiShareQueue>& queues, double total, std::optional<double> k_value) {
  std::vector<double> request(queues.size(), 0);
  for (size_t q = 0; q < queues.size(); ++q) {  // a parent asks what its subtree asks
    bool leaf = true;
    for (const KaiShareQueue& other : queues) leaf = leaf && other.parent != static_cast<int>(q);
    if (!leaf) continue;
    for (int at = static_cast<int>(q); at >= 0; at = queues[static_cast<size_t>(at)].parent)
      request[static_cast<size_t>(at)] += queues[q].request;
  }
  std::vector<double> share(queues.size(), 0);
  divide_below(queues, request, -1, total, k_value, share);
  return share;
}

}  // namespace topsim
