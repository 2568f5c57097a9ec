#include "sim/schedulers/tier_support.h"

#include <algorithm>
#include <utility>

#include "core/gang.h"
#include "core/network_model.h"
#include "sim/schedulers/support.h"
#include "util/text.h"

namespace topsim {

std::optional<int> fabric_level_named(const ClusterState& cluster, const std::string& name) {
  const Fabric& fabric = cluster.fabric();
  for (int l = 0; l < fabric.level_count(); ++l)
    if (fabric.level(l).name == name || (!fabric.level(l).label.empty() && fabric.level(l).label == name)) return l;
  return std::nullopt;
}

std::string fabric_level_list(const ClusterState& cluster) {
  std::vector<std::string> names;
  for (int l = 0; l < cluster.fabric().level_count(); ++l) names.push_back(cluster.fabric().level(l).name);
  return names.empty() ? "(the cluster has no fabric levels)" : join(names, ", ");
}

std::string no_domain_holds(const SchedulingView& view, uint32_t job, int level, const std::string& key) {
  return "no " + view.cluster().fabric().level(level).name + " has room for all " + std::to_string(view.job(job).workers) +
         " pods (" + key + ")";
}

Expected<int> fabric_level_of(const ClusterState& cluster, const std::string& field, const std::string& name) {
  if (const auto level = fabric_level_named(cluster, name)) return *level;
  return Error{field + ": '" + name + "' is not a level of the cluster's fabric (" + fabric_level_list(cluster) + ")"};
}

int pod_slots(const SchedulingView& view, uint32_t job, int node, NodeMode serving) {
  const ClusterState& cluster = view.cluster();
  const SimNode& n = cluster.node(node);
  if (n.label != serving || !type_fits_job(view, n.type, view.job(job))) return 0;
  return static_cast<int>(n.free.count()) / std::max(1, int{view.job(job).gpus_per_worker});
}

std::vector<int> group_slots(const SchedulingView& view, uint32_t job, int level, NodeMode serving) {
  const ClusterState& cluster = view.cluster();
  std::vector<int> slots(static_cast<size_t>(cluster.fabric().group_count(level)), 0);
  for (int node = 0; node < cluster.node_count(); ++node)
    slots[static_cast<size_t>(cluster.fabric().group(level, node))] += pod_slots(view, job, node, serving);
  return slots;
}

int layer_size_at(const TierAsk& ask, int level) {
  if (level == ask.slice_level) return ask.slice_size;
  int above = ask.slice_level;
  for (const TierAsk::Layer& layer : ask.inner) {
    if (level >= layer.level && level < above) return layer.size;
    above = layer.level;
  }
  return 1;
}

std::vector<std::vector<int>> layer_rooms(const SchedulingView& view, uint32_t job, const TierAsk& ask, NodeMode serving) {
  const Fabric& fabric = view.cluster().fabric();
  std::vector<std::vector<int>> rooms;
  for (int level = 0; level <= ask.slice_level; ++level) {
    std::vector<int> room =
        level == 0 ? group_slots(view, job, 0, serving) : std::vector<int>(static_cast<size_t>(fabric.group_count(level)), 0);
    if (level > 0) {
      std::vector<char> counted(rooms.back().size(), 0);
      for (int n = 0; n < view.cluster().node_count(); ++n) {
        const size_t child = static_cast<size_t>(fabric.group(level - 1, n));
        if (!std::exchange(counted[child], 1)) room[static_cast<size_t>(fabric.group(level, n))] += rooms.back()[child];
      }
    }
    if (const int size = layer_size_at(ask, level); size > 1)
      for (int& pods : room) pods = pods / size * size;
    rooms.push_back(std::move(room));
  }
  return rooms;
}

std::vector<int> group_units(const SchedulingView& view, uint32_t job, const TierAsk& ask, int level, NodeMode serving) {
  if (ask.slice_level < 0 || level < ask.slice_level) return group_slots(view, job, level, serving);
  const std::vector<std::vector<int>> rooms = layer_rooms(view, job, ask, serving);
  const Fabric& fabric = view.cluster().fabric();
  const std::vector<int>& slice_pods = rooms.back();
  std::vector<int> units(static_cast<size_t>(fabric.group_count(level)), 0);
  std::vector<char> counted(slice_pods.size(), 0);
  for (int n = 0; n < view.cluster().node_count(); ++n) {
    const size_t slice_group = static_cast<size_t>(fabric.group(ask.slice_level, n));
    if (!std::exchange(counted[slice_group], 1))
      units[static_cast<size_t>(fabric.group(level, n))] += slice_pods[slice_group] / ask.slice_size;
  }
  return units;
}

std::vector<int> slice_caps(const SchedulingView& view, uint32_t job, const TierAsk& ask, const std::vector<int>& nodes,
                            NodeMode serving) {
  if (ask.slice_level < 0) return {};
  const Fabric& fabric = view.cluster().fabric();
  std::vector<int> left = group_slots(view, job, ask.slice_level, serving);
  for (int& pods : left) pods = pods / ask.slice_size * ask.slice_size;
  std::vector<int> caps;
  caps.reserve(nodes.size());
  for (int node : nodes) {
    int& room = left[static_cast<size_t>(fabric.group(ask.slice_level, node))];
    caps.push_back(std::min(room, pod_slots(view, job, node, serving)));
    room -= caps.back();
  }
  return caps;
}

Expected<int> slice_size_of(const char* key, const std::string& text, int workers, const char* whose) {
  const bool digits = !text.empty() && text.size() < 7 && std::all_of(text.begin(), text.end(), ::isdigit);
  const int pods = digits ? std::stoi(text) : 0;
  if (pods < 1) return Error{std::string(key) + ": '" + text + "' is not a whole number of pods of at least 1"};
  if (workers % pods != 0)
    return Error{std::string(key) + ": " + text + " does not divide " + whose + " " + std::to_string(workers) + " pods"};
  return pods;
}

SliceRoom slice_room(const SchedulingView& view, uint32_t job, const TierAsk& ask, NodeMode serving) {
  SliceRoom room;
  const std::vector<std::vector<int>> rooms = layer_rooms(view, job, ask, serving);
  for (int pods : rooms.back()) room.slices += pods / ask.slice_size;
  for (int pods : group_slots(view, job, 0, serving)) room.pods += pods;
  return room;
}

CommPath host_network_path(const ClusterState& cluster, const std::vector<PodBinding>& pods, const NetworkModel& net) {
  std::vector<GangNode> nodes;
  std::vector<std::vector<int>> gpus;
  std::vector<int> ids;
  for (auto& [node, node_gpus] : gpus_by_node(pods)) {
    nodes.push_back({cluster.type_of(node).allocator.get(), cluster.node(node).free, cluster.node_name(node),
                     cluster.fabric().nvlink_domain(node)});
    gpus.push_back(std::move(node_gpus));
    ids.push_back(node);
  }
  std::vector<WorkerPlacement> workers;
  for (const PodBinding& pod : pods)
    workers.push_back({static_cast<int>(std::find(ids.begin(), ids.end(), pod.node) - ids.begin()), pod.gpus});
  return gang_comm_path(gang_placement_of(nodes, gpus, std::move(workers), net), nodes);
}

bool bind_gang_in_order(const SchedulingView& view, uint32_t job, const std::vector<int>& nodes, NodeMode serving,
                        const NetworkModel& network, Binder& binder, const std::vector<int>& caps,
                        const std::string& placement_note) {
  const ClusterState& cluster = view.cluster();
  const JobSpec& spec = view.job(job);
  std::vector<PodBinding> pods;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int node = nodes[i];
    std::vector<int> free = to_ids(cluster.node(node).free);  // ascending: the device plugin's lowest ids
    const size_t per_pod = spec.gpus_per_worker;
    const int slots = caps.empty() ? pod_slots(view, job, node, serving) : std::min(caps[i], pod_slots(view, job, node, serving));
    for (int k = 0; k < slots && pods.size() < spec.workers; ++k) {
      const auto first = free.begin() + static_cast<long>(static_cast<size_t>(k) * per_pod);
      pods.push_back({node, std::vector<int>(first, first + static_cast<long>(per_pod))});
    }
    if (pods.size() == spec.workers) break;
  }
  if (pods.size() < spec.workers) return false;
  const CommPath path = host_network_path(cluster, pods, network);
  for (const PodBinding& pod : pods) binder.bind(job, pod);
  binder.start(job, {path, {}, {}, true, placement_note});
  return true;
}

std::string TierGangScheduler::admission_problem(const SchedulingView& view, uint32_t job) const {
  std::string problem = training_admission_problem(view, job, {kServing, true, true, false});
  if (!problem.empty()) return problem;
  auto ask = tier_ask(view, job);
  return ask ? "" : ask.error().message;
}

ShapeKey TierGangScheduler::shape(const SchedulingView& view, uint32_t job) const { return training_shape(view, job); }

std::string TierGangScheduler::wait_reason(const SchedulingView& view, uint32_t job) const {
  const auto ask = tier_ask(view, job);
  if (ask && (ask->required || (ask->slice_level >= 0 && ask->slices_required)))
    if (std::string reason = tier_wait(view, job, *ask); !reason.empty()) return reason;
  return training_wait_reason(view, job, kServing);
}

bool TierGangScheduler::try_place(const SchedulingView& view, uint32_t job, Binder& binder) {
  const auto ask = tier_ask(view, job);
  if (!ask) return false;
  const TierOrder order = node_order(view, job, *ask);
  return bind_gang_in_order(view, job, order.nodes, kServing, context_.network, binder, order.caps, ask->note);
}

}  // namespace topsim
