// The rules of a queue configuration that span objects (formats/queues/queue_objects.h).
#include <algorithm>
#include <map>
#include <set>

#include "formats/queues/queue_objects.h"

namespace topsim::queue_yaml {
namespace {

std::string listed(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < names.size() && i < 8; ++i) out += (i ? ", " : "") + names[i];
  return names.size() > 8 ? out + ", ..." : out;
}

// A second object of one kind under one name. `key` of each object, `label` for messages.
template <class T, class Key, class Label>
Status unique(const std::vector<T>& objects, const char* kind, Key key, Label label) {
  std::map<std::string, const T*> seen;
  for (const T& o : objects)
    if (const auto [it, fresh] = seen.emplace(key(o), &o); !fresh)
      return Error{o.where + ": " + kind + " " + label(o) + ": defined twice (also at " + it->second->where + ")"};
  return Status::success();
}

template <class T>
Status unique_names(const std::vector<T>& objects, const char* kind) {
  const auto name = [](const T& o) { return o.name; };
  return unique(objects, kind, name, name);
}

// The first parent cycle among `nodes` (name -> parent, "" for a root), as "a -> b -> a"; "" when
// none. Each name is walked once (a long chain of parents costs no more than its length).
std::string parent_cycle(const std::vector<std::pair<std::string, std::string>>& nodes) {
  const std::map<std::string, std::string> parent(nodes.begin(), nodes.end());
  std::map<std::string, size_t> on_path;  // name -> position on the walk from the current start
  std::set<std::string> done;
  for (const auto& [start, unused] : nodes) {
    std::vector<std::string> path;
    on_path.clear();
    for (std::string n = start; parent.count(n) && !done.count(n); n = parent.at(n)) {
      if (const auto seen = on_path.find(n); seen != on_path.end()) {
        std::string cycle;
        for (size_t i = seen->second; i < path.size(); ++i) cycle += path[i] + " -> ";
        return cycle + n;
      }
      on_path.emplace(n, path.size());
      path.push_back(n);
    }
    done.insert(path.begin(), path.end());
  }
  return "";
}

Status check_flavors(const std::vector<ResourceGroup>& groups, const std::string& where, const std::string& label,
                     const std::set<std::string>& flavors, const std::vector<std::string>& flavor_names) {
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t f = 0; f < groups[g].flavors.size(); ++f)
      if (!flavors.count(groups[g].flavors[f].flavor))
        return Error{where + ": " + label + ": spec.resourceGroups[" + std::to_string(g) + "].flavors[" + std::to_string(f) +
                     "].name: no ResourceFlavor '" + groups[g].flavors[f].flavor + "' (ResourceFlavors: " + listed(flavor_names) +
                     ")"};
  return Status::success();
}

Status check_duplicates(const QueueConfig& config) {
  for (Status s : {unique_names(config.cluster_queues, "ClusterQueue"), unique_names(config.cohorts, "Cohort"),
                   unique_names(config.flavors, "ResourceFlavor"), unique_names(config.kai_queues, "Queue")})
    if (!s) return s;
  const auto local = [](const LocalQueueSpec& q) { return q.namespace_name + "/" + q.name; };
  if (Status s = unique(config.local_queues, "LocalQueue", local, local); !s) return s;
  const auto priority_key = [](const PriorityClassSpec& p) { return (p.workload_class ? "w/" : "p/") + p.name; };
  const auto priority_label = [](const PriorityClassSpec& p) { return p.name; };
  std::vector<PriorityClassSpec> workload, pod;
  for (const PriorityClassSpec& p : config.priority_classes) (p.workload_class ? workload : pod).push_back(p);
  if (Status s = unique(workload, "WorkloadPriorityClass", priority_key, priority_label); !s) return s;
  if (Status s = unique(pod, "PriorityClass", priority_key, priority_label); !s) return s;
  const PriorityClassSpec* global = nullptr;
  for (const PriorityClassSpec& p : pod)
    if (p.global_default && global)
      return Error{p.where + ": PriorityClass " + p.name + ": globalDefault: a second global default (also " + global->name +
                   " at " + global->where + "); Kubernetes allows one"};
    else if (p.global_default)
      global = &p;
  return Status::success();
}

Status check_kueue_references(const QueueConfig& config) {
  std::set<std::string> flavors;
  std::vector<std::string> flavor_names;
  for (const ResourceFlavorSpec& f : config.flavors) flavors.insert(f.name), flavor_names.push_back(f.name);
  for (const ClusterQueueSpec& cq : config.cluster_queues)
    if (Status s = check_flavors(cq.groups, cq.where, "ClusterQueue " + cq.name, flavors, flavor_names); !s) return s;
  for (const CohortSpec& c : config.cohorts)
    if (Status s = check_flavors(c.groups, c.where, "Cohort " + c.name, flavors, flavor_names); !s) return s;
  std::vector<std::string> queue_names;
  for (const ClusterQueueSpec& cq : config.cluster_queues) queue_names.push_back(cq.name);
  for (const LocalQueueSpec& lq : config.local_queues)
    if (std::find(queue_names.begin(), queue_names.end(), lq.cluster_queue) == queue_names.end())
      return Error{lq.where + ": LocalQueue " + lq.namespace_name + "/" + lq.name + ": spec.clusterQueue: no ClusterQueue '" +
                   lq.cluster_queue + "' (ClusterQueues: " + listed(queue_names) + ")"};
  std::vector<std::pair<std::string, std::string>> cohorts;
  for (const CohortSpec& c : config.cohorts) cohorts.emplace_back(c.name, c.parent);
  if (const std::string cycle = parent_cycle(cohorts); !cycle.empty()) {
    const auto first = std::find_if(config.cohorts.begin(), config.cohorts.end(),
                                    [&](const CohortSpec& c) { return cycle.rfind(c.name + " -> ", 0) == 0; });
    return Error{first->where + ": Cohort " + first->name + ": spec.parentName: the cohorts' parents form a cycle: " + cycle};
  }
  return Status::success();
}

Status check_kai_references(const QueueConfig& config) {
  if (config.kai_scheduler && !config.kai())
    return Error{config.kai_scheduler->where + ": SchedulingShard " + config.kai_scheduler->name +
                 ": configures KAI-Scheduler, but the folder has no KAI Queue (scheduling.run.ai/v2)"};
  std::vector<std::string> names;
  std::vector<std::pair<std::string, std::string>> parents;
  for (const KaiQueueSpec& q : config.kai_queues) names.push_back(q.name), parents.emplace_back(q.name, q.parent);
  for (const KaiQueueSpec& q : config.kai_queues)
    if (!q.parent.empty() && std::find(names.begin(), names.end(), q.parent) == names.end())
      return Error{q.where + ": Queue " + q.name + ": spec.parentQueue: no Queue '" + q.parent + "' (Queues: " + listed(names) +
                   ")"};
  if (const std::string cycle = parent_cycle(parents); !cycle.empty()) {
    const auto first = std::find_if(config.kai_queues.begin(), config.kai_queues.end(),
                                    [&](const KaiQueueSpec& q) { return cycle.rfind(q.name + " -> ", 0) == 0; });
    return Error{first->where + ": Queue " + first->name + ": spec.parentQueue: the queues' parents form a cycle: " + cycle};
  }
  return Status::success();
}

}  // namespace

Status check_queue_config(const QueueConfig& config) {
  if (Status s = check_duplicates(config); !s) return s;
  if (Status s = check_kueue_references(config); !s) return s;
  return check_kai_references(config);
}

}  // namespace topsim::queue_yaml
