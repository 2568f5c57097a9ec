#include "sim/tenancy/quota_tree.h"

#include <algorithm>
#include <limits>
#include <map>

namespace topsim {
namespace {

int index_of(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

int add_name(std::vector<std::string>& names, const std::string& name) {
  const int at = index_of(names, name);
  if (at >= 0) return at;
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

int64_t saturating_add(int64_t a, int64_t b) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return b > 0 && a > kMax - b ? kMax : a + b;
}

}  // namespace

Expected<QuotaTree> QuotaTree::build(const QueueConfig& config) {
  QuotaTree tree;
  for (const ResourceFlavorSpec& flavor : config.flavors) add_name(tree.flavor_names_, flavor.name);
  auto scan = [&](const std::vector<ResourceGroup>& groups, const std::string& where) -> Status {
    for (const ResourceGroup& group : groups)
      for (const FlavorQuotas& flavor : group.flavors) {
        if (index_of(tree.flavor_names_, flavor.flavor) < 0)
          return Error(where + ": flavor \"" + flavor.flavor + "\" is not a ResourceFlavor of " + config.source);
        for (const ResourceQuota& quota : flavor.resources) add_name(tree.resource_names_, quota.resource);
      }
    return Status::success();
  };
  for (const ClusterQueueSpec& cq : config.cluster_queues)
    if (Status s = scan(cq.groups, cq.where + ": ClusterQueue " + cq.name); !s) return s.error();
  for (const CohortSpec& cohort : config.cohorts)
    if (Status s = scan(cohort.groups, cohort.where + ": Cohort " + cohort.name); !s) return s.error();

  // Nodes: the ClusterQueues, then every cohort declared or named.
  std::map<std::string, int> cohort_node;
  auto cohort = [&](const std::string& name) {
    const auto [it, added] = cohort_node.emplace(name, static_cast<int>(tree.nodes_.size()));
    if (added) tree.nodes_.push_back({name, -1, {}});
    return it->second;
  };
  for (const ClusterQueueSpec& cq : config.cluster_queues) tree.nodes_.push_back({cq.name, -1, {}});
  tree.cluster_queues_ = static_cast<int>(config.cluster_queues.size());
  for (size_t q = 0; q < config.cluster_queues.size(); ++q)
    if (!config.cluster_queues[q].cohort.empty()) {
      const int parent = cohort(config.cluster_queues[q].cohort);
      tree.nodes_[q].parent = parent;
    }
  for (size_t q = 0; q < config.cluster_queues.size(); ++q) tree.nodes_[q].weight = config.cluster_queues[q].fair_weight;
  for (const CohortSpec& spec : config.cohorts) {
    const int node = cohort(spec.name);
    tree.nodes_[static_cast<size_t>(node)].weight = spec.fair_weight;
    if (!spec.parent.empty()) {
      const int parent = cohort(spec.parent);
      tree.nodes_[static_cast<size_t>(node)].parent = parent;
    }
  }
  for (int n = 0; n < tree.nodes(); ++n) {  // a walk longer than the tree is a cycle
    int at = n;
    for (int steps = 0; at >= 0; ++steps, at = tree.parent(at))
      if (steps > tree.nodes()) {
        const CohortSpec* spec = nullptr;
        for (const CohortSpec& c : config.cohorts)
          if (c.name == tree.name(n)) spec = &c;
        return Error((spec ? spec->where + ": Cohort " + spec->name : config.source + ": cohort " + tree.name(n)) +
                     ": spec.parentName: the cohorts' parents form a cycle");
      }
  }

  const size_t frs = static_cast<size_t>(tree.fr_count());
  for (Node& node : tree.nodes_) node.quota.assign(frs, Quota{});
  auto fill = [&](Node& node, const std::vector<ResourceGroup>& groups) {
    for (const ResourceGroup& group : groups)
      for (const FlavorQuotas& flavor : group.flavors)
        for (const ResourceQuota& q : flavor.resources) {
          Quota& quota = node.quota[static_cast<size_t>(
              tree.fr(index_of(tree.flavor_names_, flavor.flavor), index_of(tree.resource_names_, q.resource)))];
          quota.nominal = q.nominal;
          quota.borrowing_limit = q.borrowing_limit.value_or(-1);
          quota.lending_limit = q.lending_limit.value_or(-1);
        }
  };
  for (size_t q = 0; q < config.cluster_queues.size(); ++q) fill(tree.nodes_[q], config.cluster_queues[q].groups);
  for (const CohortSpec& spec : config.cohorts) fill(tree.nodes_[static_cast<size_t>(cohort_node.at(spec.name))], spec.groups);

  // Subtree and local quotas, children before parents (deepest first).
  std::vector<int> order(static_cast<size_t>(tree.nodes()));
  std::vector<int> depth(order.size(), 0);
  for (int n = 0; n < tree.nodes(); ++n) {
    order[static_cast<size_t>(n)] = n;
    for (int at = tree.parent(n); at >= 0; at = tree.parent(at)) ++depth[static_cast<size_t>(n)];
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return depth[static_cast<size_t>(a)] > depth[static_cast<size_t>(b)]; });
  for (Node& node : tree.nodes_)
    for (Quota& q : node.quota) q.subtree = q.nominal;
  for (int n : order) {
    Node& node = tree.nodes_[static_cast<size_t>(n)];
    if (node.parent >= 0) {
      int& up = tree.nodes_[static_cast<size_t>(node.parent)].height;
      up = std::max(up, node.height + 1);
    }
    for (size_t f = 0; f < frs; ++f) {
      Quota& q = node.quota[f];
      q.local = q.lending_limit >= 0 ? std::max<int64_t>(0, q.subtree - q.lending_limit) : 0;
      if (node.parent >= 0) {
        Quota& up = tree.nodes_[static_cast<size_t>(node.parent)].quota[f];
        up.subtree = saturating_add(up.subtree, q.subtree - q.local);
      }
    }
  }
  for (int n = 0; n < tree.nodes(); ++n)  // node-major, as potential_all_flavors reads it
    for (int r = 0; r < tree.resources(); ++r) {
      int64_t sum = 0;
      for (int f = 0; f < tree.flavors(); ++f) sum = saturating_add(sum, tree.potential_available(n, tree.fr(f, r)));
      tree.potential_.push_back(sum);
    }
  return tree;
}

int QuotaTree::root(int node) const {
  while (parent(node) >= 0) node = parent(node);
  return node;
}

int QuotaTree::common_ancestor(int a, int b) const {
  for (int x = a; x >= 0; x = parent(x))
    for (int y = b; y >= 0; y = parent(y))
      if (x == y) return x;
  return -1;
}

int QuotaTree::cluster_queue(const std::string& name) const {
  for (int q = 0; q < cluster_queues_; ++q)
    if (nodes_[static_cast<size_t>(q)].name == name) return q;
  return -1;
}

int QuotaTree::flavor(const std::string& name) const { return index_of(flavor_names_, name); }
int QuotaTree::resource(const std::string& name) const { return index_of(resource_names_, name); }

int64_t QuotaTree::available_from(int node, int fr, bool with_usage) const {
  const Quota& q = at(node, fr);
  const int64_t usage = with_usage ? q.usage : 0;
  if (parent(node) < 0) return std::max<int64_t>(0, q.subtree - usage);
  const int64_t local_available = std::max<int64_t>(0, q.local - usage);
  int64_t from_parent = available_from(parent(node), fr, with_usage);
  if (q.borrowing_limit >= 0) {
    const int64_t used_in_parent = std::max<int64_t>(0, usage - q.local);
    from_parent = std::min(from_parent, std::max<int64_t>(0, q.subtree - q.local - used_in_parent + q.borrowing_limit));
  }
  return saturating_add(local_available, from_parent);
}

int64_t QuotaTree::available(int node, int fr) const { return available_from(node, fr, true); }
int64_t QuotaTree::potential_available(int node, int fr) const { return available_from(node, fr, false); }

int QuotaTree::borrowing_level(int cq, int fr, int64_t amount) const {
  for (int node = cq;; node = parent(node)) {
    const Quota& q = at(node, fr);
    if (q.usage + amount <= q.subtree || parent(node) < 0) return nodes_[static_cast<size_t>(node)].height;
    amount = std::max<int64_t>(0, q.usage + amount - q.local) - std::max<int64_t>(0, q.usage - q.local);
  }
}

int64_t QuotaTree::nominal_all_flavors(int node, int resource) const {
  int64_t sum = 0;
  for (size_t f = 0; f < flavor_names_.size(); ++f) sum += nominal(node, fr(static_cast<int>(f), resource));
  return sum;
}

int64_t QuotaTree::usage_all_flavors(int node, int resource) const {
  int64_t sum = 0;
  for (size_t f = 0; f < flavor_names_.size(); ++f) sum += usage(node, fr(static_cast<int>(f), resource));
  return sum;
}

void QuotaTree::add_usage(int cq, int fr, int64_t amount) {
  for (int node = cq; node >= 0 && amount != 0; node = parent(node)) {
    Quota& q = nodes_[static_cast<size_t>(node)].quota[static_cast<size_t>(fr)];
    const int64_t before = std::max<int64_t>(0, q.usage - q.local);
    q.usage += amount;
    amount = std::max<int64_t>(0, q.usage - q.local) - before;
  }
}

}  // namespace topsim
