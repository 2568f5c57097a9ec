#include "sim/node_outages.h"

#include <algorithm>
#include <limits>

namespace topsim {
namespace {

NodeFailures draw_failures(const FailureSpec& spec, const ClusterState& cluster, uint64_t seed, int64_t start_ms) {
  std::vector<FailureRates> rates;
  for (int t = 0; t < cluster.type_count(); ++t) rates.push_back(resolve_failure_rates(spec, cluster.type(t).gpu));
  std::vector<int> types, gpus;
  for (int n = 0; n < cluster.node_count(); ++n) {
    types.push_back(cluster.node(n).type);
    gpus.push_back(cluster.gpus_per_node(n));
  }
  return NodeFailures(spec, std::move(rates), std::move(types), std::move(gpus), seed, start_ms);
}

}  // namespace

NodeOutages::NodeOutages(const FailureSpec& spec, ClusterState& cluster, InvariantChecker* invariants, uint64_t seed,
                         int64_t start_ms)
    : cluster_(cluster),
      invariants_(invariants),
      failures_(draw_failures(spec, cluster, seed, start_ms)),
      jobs_on_node_(static_cast<size_t>(cluster.node_count())) {
  if (!spec.spares) return;
  // The last `nodes` nodes of every group are held idle from the start.
  const SpareSpec& wanted = *spec.spares;
  const Fabric& fabric = cluster_.fabric();
  std::vector<int> group, type;
  for (int n = 0; n < cluster_.node_count(); ++n) {
    group.push_back(wanted.level < 0 ? 0 : fabric.group(wanted.level, n));
    type.push_back(cluster_.node(n).type);
  }
  spares_.emplace(wanted.nodes, std::move(group), std::move(type), wanted.level < 0 ? 1 : fabric.group_count(wanted.level),
                  &fabric);
  for (int node : spares_->initial()) {
    set_in_service(node, false, true);
    spares_->hold(node);
  }
}

int64_t NodeOutages::next_ms() const { return failures_.empty() ? std::numeric_limits<int64_t>::max() : failures_.next_ms(); }

void NodeOutages::bound(int node, uint32_t job) { jobs_on_node_[static_cast<size_t>(node)].push_back(job); }

void NodeOutages::released(int node, uint32_t job) {
  auto& on_node = jobs_on_node_[static_cast<size_t>(node)];
  on_node.erase(std::find(on_node.begin(), on_node.end(), job));
}

NodeEvent NodeOutages::next(std::vector<uint32_t>& hit, const std::function<bool(uint32_t)>& running) {
  NodeEvent e = failures_.pop();
  hit.clear();
  if (!e.fails) return e;
  if (spares_ && spares_->release(e.node)) set_in_service(e.node, true, true);
  hit = jobs_on_node_[static_cast<size_t>(e.node)];
  std::sort(hit.begin(), hit.end());
  hit.erase(std::unique(hit.begin(), hit.end()), hit.end());
  if (spares_ && e.down_ms > 0 && std::any_of(hit.begin(), hit.end(), running)) {
    e.spare = spares_->take(e.node);
    if (e.spare >= 0) set_in_service(e.spare, true, true);
  }
  return e;
}

bool NodeOutages::repaired(int node) {
  set_in_service(node, true);
  if (!spares_ || !spares_->short_of(node)) return true;
  set_in_service(node, false, true);
  spares_->hold(node);
  return false;
}

void NodeOutages::set_in_service(int node, bool in_service, bool spare) {
  cluster_.set_out_of_service(node, !in_service, spare);
  if (invariants_) {
    std::vector<int> cards(static_cast<size_t>(cluster_.gpus_per_node(node)));
    for (size_t g = 0; g < cards.size(); ++g) cards[g] = static_cast<int>(g);
    in_service ? invariants_->released(node, kOutage, cards) : invariants_->bound(node, kOutage, cards);
  }
  if (in_service) ++returns_;
}

}  // namespace topsim
