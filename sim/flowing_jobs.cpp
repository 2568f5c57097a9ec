#include "sim/flowing_jobs.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/nccl_algo.h"
#include "sim/fabric_view.h"

namespace topsim {
namespace {

LinkShares shares_of(const ClusterState& cluster, const NetworkModel& network) {
  const Fabric& fabric = cluster.fabric();
  std::vector<double> capacity = fabric.link_capacities(node_network_capacity_gbps(cluster, network));
  for (double& c : capacity) c = std::max(c, 1e-9);  // a group of NIC-less nodes: no job crosses it
  std::vector<int> levels;
  for (int l = 0; l < fabric.link_count(); ++l) levels.push_back(fabric.link_level(l));
  return LinkShares(std::move(capacity), std::move(levels));
}

}  // namespace

bool FlowingJobs::needed(const ClusterState& cluster) { return !cluster.fabric().empty() && cluster.fabric().link_count() > 0; }

FlowingJobs::FlowingJobs(const ClusterState& cluster, const NetworkModel& network, JobBook& book, RateAt rate_at)
    : cluster_(cluster), network_(network), book_(book), rate_at_(std::move(rate_at)), links_(shares_of(cluster, network)) {}

// What its algorithm sends per direction through a host's NICs (core/nccl_algo.h
// host_network_demand_gbps), at most what each node's NICs carry of it.
double FlowingJobs::demand(uint32_t id, std::vector<int>& crossed) const {
  const JobRecord& r = book_[id];
  if (r.comm.hosts < 2 || !(r.comm.bus_bandwidth_gbps > 0)) return 0;
  const auto by_node = gpus_by_node(r.pods);
  if (by_node.size() < 2) return 0;
  std::vector<int> nodes;
  double demand = host_network_demand_gbps(r.comm.algorithm, r.comm.bus_bandwidth_gbps, r.comm.ranks, r.comm.hosts);
  std::vector<int> first_nics;
  bool aligned = true;
  for (const auto& [node, gpus] : by_node) {
    nodes.push_back(node);
    const NodeType& type = cluster_.type_of(node);
    if (!type.topology) continue;
    const std::vector<int> nics = network_nics(*type.topology, gpus);
    if (nodes.size() == 1) first_nics = nics;
    aligned = aligned && nics == first_nics;
    demand = std::min(demand, node_network_gbps(*type.topology, gpus, network_));
  }
  cluster_.fabric().links_crossed(nodes, aligned, crossed);
  return crossed.empty() ? 0 : demand;
}

void FlowingJobs::rerate(uint32_t id, Flowing& f, double factor, int64_t now_ms, std::vector<Finish>& out) {
  JobRecord& r = book_[id];
  const double elapsed_s = static_cast<double>(now_ms - f.since_ms) / 1e3;
  f.work_left = std::max(0.0, f.work_left - f.rate * elapsed_s);
  if (f.factor < 1) r.contended_ms += now_ms - f.since_ms;
  f.since_ms = now_ms;
  f.factor = factor;
  r.least_network_share = std::min(r.least_network_share, factor);
  const double rate = factor < 1 ? rate_at_(id, factor) : r.samples_per_sec;
  if (!(rate > 0)) return;  // no model at this share: it keeps its finish
  f.rate = rate;
  const int64_t finish = now_ms + static_cast<int64_t>(std::ceil(f.work_left / rate * 1e3));
  out.push_back({finish, id, ++f.version, finish - f.finish_ms});
  f.finish_ms = finish;
}

void FlowingJobs::rerate_changed(const std::vector<uint32_t>& changed, uint32_t except, int64_t now_ms,
                                 std::vector<Finish>& out) {
  for (uint32_t job : changed)
    if (job != except) rerate(job, flowing_.at(job), links_.factor(job), now_ms, out);
}

std::optional<std::vector<FlowingJobs::Finish>> FlowingJobs::enter(uint32_t id, int64_t now_ms, int64_t run_ms) {
  std::vector<int> crossed;
  const double offered = demand(id, crossed);
  const double rate = book_[id].samples_per_sec;
  if (!(offered > 0) || !(rate > 0)) return std::nullopt;
  Flowing& f = flowing_[id];
  f.rate = rate;
  f.work_left = rate * static_cast<double>(run_ms) / 1e3;
  f.since_ms = now_ms;
  f.finish_ms = now_ms + run_ms;
  std::vector<Finish> out;
  rerate_changed(links_.add(id, crossed, offered), id, now_ms, out);
  const double factor = links_.factor(id);
  if (factor < 1) rerate(id, f, factor, now_ms, out);
  if (f.version == 0) out.push_back({f.finish_ms, id, 0, 0});  // unslowed, or no model at its share
  return out;
}

std::vector<FlowingJobs::Finish> FlowingJobs::leave(uint32_t id, int64_t now_ms) {
  std::vector<Finish> out;
  const auto it = flowing_.find(id);
  if (it == flowing_.end()) return out;
  if (it->second.factor < 1) book_[id].contended_ms += now_ms - it->second.since_ms;
  flowing_.erase(it);
  rerate_changed(links_.remove(id), id, now_ms, out);
  return out;
}

bool FlowingJobs::current(uint32_t id, uint32_t version) const {
  const auto it = flowing_.find(id);
  return it == flowing_.end() || it->second.version == version;
}

std::optional<int64_t> FlowingJobs::finish_of(uint32_t id) const {
  const auto it = flowing_.find(id);
  if (it == flowing_.end()) return std::nullopt;
  return it->second.finish_ms;
}

}  // namespace topsim
