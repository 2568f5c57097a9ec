// Kueue's quota accounting: ClusterQueues and Cohorts as one tree of nodes, each holding per
// (flavor, resource) pair ("FR") its nominal quota, borrowing and lending limits and usage.
//
// The rules are Kueue's (pkg/cache/scheduler/resource_node.go, v0.19.2; documented in
// site/content/en/docs/concepts/cluster_queue.md and cohort.md):
// - a node's subtree quota is its own nominal quota plus, for a cohort, what each child puts in
//   (the child's subtree quota less its local quota);
// - a node with a lending limit keeps `subtree quota - lending limit` to itself (its local quota),
//   which its parent never sees;
// - usage of a ClusterQueue is what its admitted workloads hold; a cohort's usage is what its
//   children use beyond their local quota (usage bubbles up past the local part);
// - what a node can still take is its unused local quota plus what its parent can give, capped
//   by the borrowing limit when one is set; a root can give its subtree quota less its usage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/tenancy/queue_config.h"
#include "util/expected.h"

namespace topsim {

class QuotaTree {
 public:
  // The tree of `config`'s ClusterQueues and Cohorts (cohorts named but not declared exist with
  // no quota). Errors: a cohort cycle, a queue or cohort naming an unknown flavor.
  static Expected<QuotaTree> build(const QueueConfig& config);

  // Nodes 0..cluster_queues()-1 are the ClusterQueues in the config's order; cohorts follow.
  int cluster_queues() const { return cluster_queues_; }
  int nodes() const { return static_cast<int>(nodes_.size()); }
  const std::string& name(int node) const { return nodes_[static_cast<size_t>(node)].name; }
  int parent(int node) const { return nodes_[static_cast<size_t>(node)].parent; }
  int root(int node) const;
  // The lowest common ancestor of two nodes, or -1 when they are in different trees.
  int common_ancestor(int a, int b) const;
  int cluster_queue(const std::string& name) const;  // -1 when absent
  // Fair Sharing's weight of a ClusterQueue or Cohort (spec.fairSharing.weight, default 1).
  double fair_weight(int node) const { return nodes_[static_cast<size_t>(node)].weight; }

  // Flavors and resources by name; FR ids are dense: flavor * resources() + resource.
  int flavor(const std::string& name) const;
  int resource(const std::string& name) const;  // -1 when no queue names it
  int resources() const { return static_cast<int>(resource_names_.size()); }
  int flavors() const { return static_cast<int>(flavor_names_.size()); }
  const std::string& flavor_name(int f) const { return flavor_names_[static_cast<size_t>(f)]; }
  const std::string& resource_name(int r) const { return resource_names_[static_cast<size_t>(r)]; }
  int fr(int flavor, int resource) const { return flavor * resources() + resource; }
  int fr_count() const { return static_cast<int>(flavor_names_.size() * resource_names_.size()); }

  int64_t nominal(int node, int fr) const { return at(node, fr).nominal; }
  int64_t subtree_quota(int node, int fr) const { return at(node, fr).subtree; }
  int64_t usage(int node, int fr) const { return at(node, fr).usage; }
  // Usage above the subtree quota (a ClusterQueue: above its nominal quota).
  bool borrowing(int node, int fr) const { return at(node, fr).usage > at(node, fr).subtree; }
  // What the node can still take of the FR now, and with nothing in use anywhere.
  int64_t available(int node, int fr) const;
  int64_t potential_available(int node, int fr) const;
  // potential_available summed over the flavors of `resource`: what the node could lend of it,
  // Fair Sharing's denominator (fair_sharing.h). Quotas do not change once built: kept, not summed
  // on every call.
  int64_t potential_all_flavors(int node, int resource) const {
    return potential_[static_cast<size_t>(node) * resource_names_.size() + static_cast<size_t>(resource)];
  }
  // How far up a request of `amount` at ClusterQueue `cq` must reach: 0 inside the queue's own
  // quota, else the height of the lowest ancestor whose subtree holds it (Kueue's borrowing
  // level, resource_node.go: a node's height is one more than its highest child's).
  int borrowing_level(int cq, int fr, int64_t amount) const;

  // A resource's nominal quota and usage at `node`, summed over every flavor.
  int64_t nominal_all_flavors(int node, int resource) const;
  int64_t usage_all_flavors(int node, int resource) const;

  // Adds (or with a negative amount, returns) usage at ClusterQueue `cq`.
  void add_usage(int cq, int fr, int64_t amount);

 private:
  struct Quota {
    int64_t nominal = 0;
    int64_t borrowing_limit = -1;  // -1: unlimited
    int64_t lending_limit = -1;    // -1: none
    int64_t subtree = 0;
    int64_t local = 0;  // kept from the parent (lending limit)
    int64_t usage = 0;
  };
  struct Node {
    std::string name;
    int parent = -1;
    std::vector<Quota> quota;  // by FR
    int height = 0;
    double weight = 1;
  };
  const Quota& at(int node, int fr) const { return nodes_[static_cast<size_t>(node)].quota[static_cast<size_t>(fr)]; }
  int64_t available_from(int node, int fr, bool with_usage) const;

  int cluster_queues_ = 0;
  std::vector<Node> nodes_;
  std::vector<std::string> flavor_names_, resource_names_;
  std::vector<int64_t> potential_;  // by node x resource: potential_all_flavors
};

}  // namespace topsim
