#include "sim/tenancy/kai_division.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace topsim {
namespace {

constexpr double kEpsilon = 1e-9;

// The division's inputs that do not change while it runs, and its working space: one entry per
// queue, indexed as `queues` is, so a division allocates nothing per level or round.
struct Division {
  const std::vector<KaiShareQueue>& queues;
  std::vector<double> request;                // a parent asks what its subtree asks
  std::vector<double> requestable;            // min(request, limit)
  std::vector<double> fraction;               // what a queue's last round slice left below a whole unit
  std::vector<std::vector<size_t>> children;  // per queue, then the top level last; creation order
  std::vector<size_t> open;                   // a round's unsatisfied queues
  std::optional<double> k_value;
  std::vector<double>& share;
};

// The unsatisfied queues of one priority level (share below requestable, weight above 0).
void find_open(Division& d, const std::vector<size_t>& level) {
  d.open.clear();
  for (size_t q : level)
    if (d.share[q] + kEpsilon < d.requestable[q] && d.queues[q].over_quota_weight > 0) d.open.push_back(q);
}

// Divides `total` among the queues `members` (siblings, creation order); returns what is left.
double divide(Division& d, const std::vector<size_t>& members, double total) {
  const std::vector<KaiShareQueue>& queues = d.queues;
  std::vector<double>& share = d.share;
  double remaining = total;
  for (size_t q : members) {
    const KaiShareQueue& queue = queues[q];
    d.requestable[q] = queue.limit >= 0 ? std::min(d.request[q], queue.limit) : d.request[q];
    d.fraction[q] = 0;
    const double deserved = queue.deserved < 0 ? total : queue.deserved;
    share[q] = std::min(deserved, d.requestable[q]);
    remaining -= share[q];
  }
  remaining = std::max(0.0, remaining);
  // Priority levels, highest first, each in creation order.
  std::vector<size_t> by_priority = members;
  std::stable_sort(by_priority.begin(), by_priority.end(),
                   [&](size_t a, size_t b) { return queues[a].priority > queues[b].priority; });
  std::vector<size_t> level;
  for (size_t from = 0; from < by_priority.size();) {
    size_t to = from;
    while (to < by_priority.size() && queues[by_priority[to]].priority == queues[by_priority[from]].priority) ++to;
    level.assign(by_priority.begin() + static_cast<std::ptrdiff_t>(from), by_priority.begin() + static_cast<std::ptrdiff_t>(to));
    from = to;
    for (find_open(d, level); remaining > kEpsilon && !d.open.empty(); find_open(d, level)) {
      double weights = 0;
      for (size_t q : d.open) weights += queues[q].over_quota_weight;
      // Each open queue's part of the round: its weight, or with time-aware fairness
      // (calcShareWeights) max(0, w + k(w - usage)), w its weight over the open queues' weights.
      const auto part = [&](size_t q) {
        if (!d.k_value) return queues[q].over_quota_weight;
        const double w = queues[q].over_quota_weight / weights;
        return std::max(0.0, w + *d.k_value * (w - queues[q].usage));
      };
      double parts = 0;
      for (size_t q : d.open) parts += part(q);
      if (parts <= 0) break;  // every open queue used more than its weight allows: the remainder pass
      const double round = remaining;
      bool took_less = false;
      for (size_t q : d.open) {
        const double slice = round * part(q) / parts;
        const double need = d.requestable[q] - share[q];
        if (need <= slice + kEpsilon) {
          share[q] += need;
          remaining -= need;
          took_less = true;
        } else {
          const double whole = std::floor(slice + kEpsilon);
          share[q] += whole;
          remaining -= whole;
          d.fraction[q] = slice - whole;
        }
      }
      if (!took_less) break;
    }
    while (remaining > kEpsilon) {  // the remainder, to the largest fractions left over
      find_open(d, level);
      if (d.open.empty()) break;
      size_t best = d.open.front();
      for (size_t q : d.open)
        if (d.fraction[q] > d.fraction[best] + kEpsilon) best = q;
      const double unit = std::min({1.0, remaining, d.requestable[best] - share[best]});
      share[best] += unit;
      remaining -= unit;
      d.fraction[best] = -1;  // served: the others first
    }
  }
  return remaining;
}

// Divides `total` among the children of `parent` (-1: the top level), then each child's share
// among its own, depth first.
void divide_below(Division& d, int parent, double total) {
  const std::vector<size_t>& members = d.children[parent < 0 ? d.queues.size() : static_cast<size_t>(parent)];
  if (members.empty()) return;
  divide(d, members, total);
  for (size_t q : members) divide_below(d, static_cast<int>(q), d.share[q]);
}

}  // namespace

std::vector<double> kai_fair_shares(const std::vector<KaiShareQueue>& queues, double total, std::optional<double> k_value) {
  std::vector<double> share(queues.size(), 0);
  Division d{queues,
             std::vector<double>(queues.size(), 0),
             std::vector<double>(queues.size(), 0),
             std::vector<double>(queues.size(), 0),
             std::vector<std::vector<size_t>>(queues.size() + 1),
             {},
             k_value,
             share};
  for (size_t q = 0; q < queues.size(); ++q)
    d.children[queues[q].parent < 0 ? queues.size() : static_cast<size_t>(queues[q].parent)].push_back(q);
  for (size_t q = 0; q < queues.size(); ++q) {  // a parent asks what its subtree asks
    if (!d.children[q].empty()) continue;
    for (int at = static_cast<int>(q); at >= 0; at = queues[static_cast<size_t>(at)].parent)
      d.request[static_cast<size_t>(at)] += queues[q].request;
  }
  divide_below(d, -1, total);
  return share;
}

}  // namespace topsim
