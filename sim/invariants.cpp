#include "sim/invariants.h"

#include <algorithm>
#include <cstdlib>

namespace topsim {

bool invariants_on_by_default() {
#ifndef NDEBUG
  return true;
#else
  const char* env = std::getenv("TOPSIM_CHECK_INVARIANTS");
  return env && std::string(env) == "1";
#endif
}

InvariantChecker::InvariantChecker(const ClusterState& cluster)
    : holders_(static_cast<size_t>(cluster.node_count())), is_touched_(static_cast<size_t>(cluster.node_count()), false) {}

void InvariantChecker::fail(std::string what) {
  if (!violation_) violation_ = std::move(what);
}

void InvariantChecker::bound(int node, uint32_t job, const std::vector<int>& cards) {
  auto& h = holders_[static_cast<size_t>(node)];
  if (cards.empty()) h.push_back({job, -1});  // a pod without cards (CPU only)
  for (int card : cards) h.push_back({job, card});
  if (!is_touched_[static_cast<size_t>(node)]) is_touched_[static_cast<size_t>(node)] = true, touched_.push_back(node);
}

void InvariantChecker::released(int node, uint32_t job, const std::vector<int>& cards) {
  auto& h = holders_[static_cast<size_t>(node)];
  auto drop = [&](int card) {
    const auto it = std::find_if(h.begin(), h.end(), [&](const Holder& x) { return x.job == job && x.card == card; });
    if (it == h.end())
      return fail("job " + std::to_string(job) + " released card " + std::to_string(card) + " of node " + std::to_string(node) +
                  " it did not hold");
    h.erase(it);
  };
  if (cards.empty()) drop(-1);
  for (int card : cards) drop(card);
  if (!is_touched_[static_cast<size_t>(node)]) is_touched_[static_cast<size_t>(node)] = true, touched_.push_back(node);
}

void InvariantChecker::started(uint32_t job, size_t pods, size_t workers) {
  if (pods != workers)
    fail("job " + std::to_string(job) + " started with " + std::to_string(pods) + " of its " + std::to_string(workers) +
         " pods (gangs are all-or-nothing)");
}

void InvariantChecker::waiting(uint32_t job, size_t pods, size_t workers) {
  if (pods >= workers)
    fail("job " + std::to_string(job) + " waits with all " + std::to_string(workers) + " pods bound (it should have started)");
}

void InvariantChecker::check_node(const ClusterState& cluster, int node) {
  const ShareNode& n = cluster.shares().nodes[static_cast<size_t>(node)];
  const std::string where = "node " + std::to_string(node) + " (" + n.name + ")";
  std::vector<int> tasks(n.cards.size(), 0);
  for (const Holder& h : holders_[static_cast<size_t>(node)]) {
    if (h.card < 0) continue;
    if (static_cast<size_t>(h.card) >= n.cards.size())
      return fail(where + ": job " + std::to_string(h.job) + " holds card " + std::to_string(h.card) + " of " +
                  std::to_string(n.cards.size()));
    ++tasks[static_cast<size_t>(h.card)];
  }
  const SimNode& sim = cluster.node(node);
  for (size_t c = 0; c < n.cards.size(); ++c) {
    const CardState& card = n.cards[c];
    const std::string at = where + " card " + std::to_string(c);
    if (card.tasks != tasks[c])
      return fail(at + ": " + std::to_string(card.tasks) + " pods counted, " + std::to_string(tasks[c]) + " bound");
    if (card.milli_used < 0 || card.milli_used > 1000)
      return fail(at + ": " + std::to_string(card.milli_used) + " thousandths allocated (0..1000)");
    if (card.mem_total_gib > 0 && (card.mem_used_gib < 0 || card.mem_used_gib > card.mem_total_gib))
      return fail(at + ": " + std::to_string(card.mem_used_gib) + " GiB allocated of " + std::to_string(card.mem_total_gib));
    if (card.core_used_percent < 0 || card.core_used_percent > 100)
      return fail(at + ": " + std::to_string(card.core_used_percent) + "% compute allocated");
    if (c < sim.free.size() && sim.free.test(c) != (tasks[c] == 0))
      return fail(at + (tasks[c] == 0 ? ": idle but not in the free set" : ": in the free set while used"));
  }
  if (n.cpu_used_milli < 0 || (n.cpu_milli > 0 && n.cpu_used_milli > n.cpu_milli))
    return fail(where + ": " + std::to_string(n.cpu_used_milli) + " CPU milli allocated of " + std::to_string(n.cpu_milli));
  if (n.memory_used_mib < 0 || (n.memory_mib > 0 && n.memory_used_mib > n.memory_mib))
    return fail(where + ": " + std::to_string(n.memory_used_mib) + " MiB allocated of " + std::to_string(n.memory_mib));
}

std::optional<std::string> InvariantChecker::after_instant(int64_t now_ms, const ClusterState& cluster, const Counts& counts) {
  if (now_ms < last_ms_) fail("time went back from " + std::to_string(last_ms_) + " ms to " + std::to_string(now_ms) + " ms");
  last_ms_ = now_ms;
  for (int node : touched_) {
    check_node(cluster, node);
    is_touched_[static_cast<size_t>(node)] = false;
  }
  touched_.clear();
  if (counts.arrived != counts.waiting + counts.running + counts.closed)
    fail(std::to_string(counts.arrived) + " jobs arrived but " + std::to_string(counts.waiting) + " wait, " +
         std::to_string(counts.running) + " run and " + std::to_string(counts.closed) + " are done");
  if (violation_) return "invariant violated at t = " + std::to_string(now_ms) + " ms: " + *violation_;
  return std::nullopt;
}

}  // namespace topsim
