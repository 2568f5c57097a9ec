#include "reports/queue_config_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/hardware.h"
#include "sim/job.h"

namespace topsim {
namespace {

// "1.5" from 1500 thousandths; "0.001", "12".
std::string thousandths(int64_t milli) {
  std::string out = std::to_string(milli / 1000);
  if (const int64_t rest = milli % 1000; rest != 0) {
    std::string digits = fmt::format("{:03d}", rest);
    digits.erase(digits.find_last_not_of('0') + 1);
    out += "." + digits;
  }
  return out;
}

std::string trimmed(double value, int decimals) {
  std::string out = fmt::format("{:.{}f}", value, decimals);
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

bool is_gpu(const std::string& resource) { return resource.size() >= 4 && resource.compare(resource.size() - 4, 4, "/gpu") == 0; }

// A Kueue quantity (Kueue's units: cpu thousandths, other resources plain units) for people.
std::string amount(const std::string& resource, int64_t value) {
  if (resource == kResourceCpu) return thousandths(value) + (value == 1000 ? " core" : " cores");
  if (resource == kResourceMemory) return trimmed(static_cast<double>(value) / (1LL << 30), 3) + "Gi";
  if (is_gpu(resource)) return std::to_string(value) + (value == 1 ? " GPU" : " GPUs");
  return std::to_string(value);
}

std::string limit(const std::string& resource, const std::optional<int64_t>& value) {
  return value ? amount(resource, *value) : "no limit";
}

void groups_table(std::string& out, const std::vector<ResourceGroup>& groups, const std::string& indent) {
  size_t flavor_width = 6, resource_width = 8;
  for (const ResourceGroup& g : groups)
    for (const FlavorQuotas& f : g.flavors) {
      flavor_width = std::max(flavor_width, f.flavor.size());
      for (const ResourceQuota& q : f.resources) resource_width = std::max(resource_width, q.resource.size());
    }
  out += fmt::format("{}{:<{}}  {:<{}}  {:>14}  {:>14}  {:>14}\n", indent, "FLAVOR", flavor_width, "RESOURCE", resource_width,
                     "NOMINAL", "BORROWING", "LENDING");
  for (const ResourceGroup& g : groups)
    for (const FlavorQuotas& f : g.flavors)
      for (const ResourceQuota& q : f.resources)
        out +=
            fmt::format("{}{:<{}}  {:<{}}  {:>14}  {:>14}  {:>14}\n", indent, f.flavor, flavor_width, q.resource, resource_width,
                        amount(q.resource, q.nominal), limit(q.resource, q.borrowing_limit), limit(q.resource, q.lending_limit));
}

std::string queue_settings(const ClusterQueueSpec& cq) {
  std::string out =
      fmt::format("{}; preemption: withinClusterQueue {}, reclaimWithinCohort {}, borrowWithinCohort {}", enum_name(cq.queueing),
                  enum_name(cq.within_queue), enum_name(cq.reclaim), enum_name(cq.borrow_within_cohort));
  if (cq.borrow_max_priority) out += fmt::format(" (priority <= {})", *cq.borrow_max_priority);
  out += fmt::format("; flavorFungibility: whenCanBorrow {}, whenCanPreempt {}", enum_name(cq.when_can_borrow),
                     enum_name(cq.when_can_preempt));
  if (cq.when_can_borrow == FungibilityChoice::TryNextFlavor && cq.when_can_preempt == FungibilityChoice::TryNextFlavor)
    out += fmt::format(", {}", enum_name(cq.preference));
  out += "; fairSharing.weight " + trimmed(cq.fair_weight, 6);
  return cq.admission_fair_sharing ? out + "; admissionScope UsageBasedAdmissionFairSharing" : out;
}

void cluster_queue(std::string& out, const ClusterQueueSpec& cq, const std::string& indent) {
  out += fmt::format("{}ClusterQueue {}: {}\n", indent, cq.name, queue_settings(cq));
  if (cq.groups.empty())
    out += indent + "  no quota (no resourceGroups)\n";
  else
    groups_table(out, cq.groups, indent + "  ");
}

struct CohortTree {
  std::map<std::string, const CohortSpec*> declared;
  std::map<std::string, std::set<std::string>> child_cohorts;
  std::map<std::string, std::vector<const ClusterQueueSpec*>> queues;  // by cohort, in name order
};

void cohort(std::string& out, const CohortTree& tree, const std::string& name, const std::string& indent) {
  const auto declared = tree.declared.find(name);
  if (declared == tree.declared.end()) {
    out += fmt::format("{}cohort {} (no Cohort object: no quota of its own)\n", indent, name);
  } else {
    out += fmt::format("{}cohort {}: fairSharing.weight {}{}\n", indent, name, trimmed(declared->second->fair_weight, 6),
                       declared->second->groups.empty() ? "" : "; its own quota, shared by its subtree:");
    if (!declared->second->groups.empty()) groups_table(out, declared->second->groups, indent + "  ");
  }
  if (const auto children = tree.child_cohorts.find(name); children != tree.child_cohorts.end())
    for (const std::string& child : children->second) cohort(out, tree, child, indent + "  ");
  if (const auto queues = tree.queues.find(name); queues != tree.queues.end())
    for (const ClusterQueueSpec* cq : queues->second) cluster_queue(out, *cq, indent + "  ");
}

void flavors_section(std::string& out, const QueueConfig& config) {
  std::vector<std::string> flavors;
  for (const ResourceFlavorSpec& f : config.flavors) {
    std::string labels;
    for (const auto& [key, value] : f.node_labels) labels += (labels.empty() ? " (nodes labelled " : ", ") + key + "=" + value;
    std::string line = f.name + (labels.empty() ? "" : labels + ")");
    // What the labels do in a replay (sim/tenancy/kueue_admission.h): the GPU model's restricts
    // placement and admission, no other label does.
    if (f.gpu >= 0) line += ": training jobs admitted here run on " + gpu_at(f.gpu)->name + " nodes only";
    if (f.node_labels.size() > (f.gpu >= 0 ? 1u : 0u))
      line += std::string(f.gpu >= 0 ? "; its other" : ": its") + " labels do not restrict placement (topsim reads only " +
              kGpuProductLabel + ")";
    flavors.push_back(std::move(line));
  }
  std::sort(flavors.begin(), flavors.end());
  out += "\nResourceFlavors:\n";
  for (const std::string& f : flavors) out += "  " + f + "\n";
}

// Roots first: cohorts without a parent (declared or only named), each with its subtree.
void cohorts_section(std::string& out, const QueueConfig& config) {
  CohortTree tree;
  std::vector<const ClusterQueueSpec*> queues;
  for (const ClusterQueueSpec& cq : config.cluster_queues) queues.push_back(&cq);
  std::sort(queues.begin(), queues.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::set<std::string> names;
  for (const CohortSpec& c : config.cohorts) {
    tree.declared[c.name] = &c, names.insert(c.name);
    if (!c.parent.empty()) tree.child_cohorts[c.parent].insert(c.name), names.insert(c.parent);
  }
  for (const ClusterQueueSpec* cq : queues) tree.queues[cq->cohort].push_back(cq), names.insert(cq->cohort);
  out += "\nCohorts and ClusterQueues (quota per flavor and resource):\n";
  for (const std::string& name : names)
    if (!name.empty() && (!tree.declared.count(name) || tree.declared.at(name)->parent.empty())) cohort(out, tree, name, "  ");
  if (tree.queues.count("")) {
    out += "  no cohort (neither borrows nor lends):\n";
    for (const ClusterQueueSpec* cq : tree.queues.at("")) cluster_queue(out, *cq, "    ");
  }
}

void local_queues_section(std::string& out, const QueueConfig& config) {
  std::vector<std::string> local;
  for (const LocalQueueSpec& lq : config.local_queues) {
    std::string line = lq.namespace_name + "/" + lq.name + " -> ClusterQueue " + lq.cluster_queue +
                       (lq.fair_weight != 1 ? "; fairSharing.weight " + trimmed(lq.fair_weight, 6) : "");
    // A live queue's Admission Fair Sharing usage (decayed, in Kueue's units): where the replay starts.
    const char* separator = "; consumed ";
    for (const auto& [resource, value] : lq.consumed) {
      line += separator + resource + " ";
      if (resource == kResourceCpu)
        line += trimmed(value, 3) + " cores";
      else if (resource == kResourceMemory)
        line += trimmed(value / (1LL << 30), 3) + "Gi";
      else
        line += trimmed(value, 3) + (is_gpu(resource) ? " GPUs" : "");
      separator = ", ";
    }
    local.push_back(std::move(line));
  }
  std::sort(local.begin(), local.end());
  out += "\nLocalQueues (namespace/name -> ClusterQueue):\n";
  if (local.empty()) out += "  none\n";
  for (const std::string& l : local) out += "  " + l + "\n";
}

void priority_section(std::string& out, const QueueConfig& config) {
  std::vector<const PriorityClassSpec*> classes;
  for (const PriorityClassSpec& p : config.priority_classes) classes.push_back(&p);
  std::sort(classes.begin(), classes.end(),
            [](auto* a, auto* b) { return a->value != b->value ? a->value > b->value : a->name < b->name; });
  out += "\nPriority classes (highest first):\n";
  if (classes.empty()) out += "  none\n";
  for (const PriorityClassSpec* p : classes)
    out +=
        fmt::format("  {:>11}  {} ({}{}{})\n", p->value, p->name, p->workload_class ? "WorkloadPriorityClass" : "PriorityClass",
                    p->global_default ? ", global default" : "", p->preempts ? "" : ", preemptionPolicy Never");
}

std::string kai_figure(double value, double scale) { return value == -1 ? "-1" : trimmed(value * scale, 3); }

std::string kai_resource(const char* name, const KaiResource& r, double scale) {
  return fmt::format("{} quota {}, overQuotaWeight {}, limit {}", name, r.quota == -1 ? "unlimited" : kai_figure(r.quota, scale),
                     trimmed(r.over_quota_weight, 6), r.limit == -1 ? "none" : kai_figure(r.limit, scale));
}

// A duration as read (ms), in seconds ("90 s").
std::string seconds(int64_t ms) { return trimmed(static_cast<double>(ms) / 1000, 3) + " s"; }

// A min runtime as read (ms), in seconds; "" when the queue leaves it to its parent.
std::string kai_min_runtime(const char* field, const std::optional<int64_t>& ms) {
  return ms ? fmt::format(", {} {}", field, seconds(*ms)) : "";
}

void kai_queue(std::string& out, const std::map<std::string, std::vector<const KaiQueueSpec*>>& children, const KaiQueueSpec& q,
               const std::string& indent) {
  out += fmt::format("{}{}{}: priority {}{}{}\n", indent, q.name, q.display_name.empty() ? "" : " (" + q.display_name + ")",
                     q.priority, kai_min_runtime("preemptMinRuntime", q.preempt_min_runtime_ms),
                     kai_min_runtime("reclaimMinRuntime", q.reclaim_min_runtime_ms));
  out += indent + "  " + kai_resource("gpu", q.gpu, 1) + "\n";
  out += indent + "  " + kai_resource("cpu (cores)", q.cpu, 0.001) + "\n";
  out += indent + "  " + kai_resource("memory (MB)", q.memory, 1) + "\n";
  if (const auto it = children.find(q.name); it != children.end())
    for (const KaiQueueSpec* child : it->second) kai_queue(out, children, *child, indent + "  ");
}

// The SchedulingShard's settings, or KAI's defaults without one.
void kai_scheduler_section(std::string& out, const QueueConfig& config) {
  const KaiSchedulerSpec shard = config.kai_scheduler.value_or(KaiSchedulerSpec{});
  out += config.kai_scheduler ? fmt::format("\nKAI scheduler (SchedulingShard {}):\n", shard.name)
                              : "\nKAI scheduler (no SchedulingShard: KAI's defaults):\n";
  if (const auto& t = shard.time_aware)
    out += fmt::format("  time-aware fairness: on, kValue {}; usage over a {} window of {}{}, {}, fetched every {}\n",
                       trimmed(shard.k_value, 6), t->window == KaiUsageWindow::Sliding ? "sliding" : "tumbling",
                       seconds(t->window_ms), t->window == KaiUsageWindow::Tumbling ? " (from the run's start)" : "",
                       t->half_life_ms > 0 ? "half-life " + seconds(t->half_life_ms) : "no decay", seconds(t->fetch_ms));
  else
    out += "  time-aware fairness: off (no usageDBConfig): over-quota shares by weight alone\n";
  out += fmt::format("  min runtime of a queue tree that sets none: preempt {}, reclaim {}\n",
                     seconds(shard.default_preempt_min_runtime_ms), seconds(shard.default_reclaim_min_runtime_ms));
}

void kai_section(std::string& out, const QueueConfig& config) {
  std::map<std::string, std::vector<const KaiQueueSpec*>> children;  // by parent ("" for the top)
  for (const KaiQueueSpec& q : config.kai_queues) children[q.parent].push_back(&q);
  for (auto& [parent, list] : children) std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->name < b->name; });
  out += "\nKAI queues (GPUs in devices, cpu in cores, memory in MB of 10^6 bytes; limit 0 admits nothing):\n";
  for (const KaiQueueSpec* top : children[""]) kai_queue(out, children, *top, "  ");
  kai_scheduler_section(out, config);
}

}  // namespace

std::string render_queue_config(const QueueConfig& config) {
  std::string out = "Queue configuration: " + config.source + "\n";
  if (config.kueue() && config.fair_sharing) {
    out += "Fair Sharing: on (the Kueue Configuration's fairSharing); preemption strategies";
    for (FairStrategy s : config.fair_strategies) (out += " ") += enum_name(s);
    out += "\n";
  } else if (config.kueue()) {
    out += "Fair Sharing: off (no Kueue Configuration turns it on)\n";
  }
  if (config.kueue() && config.admission_fair_sharing) {
    const AdmissionFairSharingSpec& afs = *config.admission_fair_sharing;
    out += fmt::format(
        "Admission Fair Sharing: on (the Kueue Configuration's admissionFairSharing): usage half-life {}, sampled every {}",
        seconds(afs.half_life_ms), seconds(afs.sampling_ms));
    for (const auto& [resource, weight] : afs.resource_weights)
      out += fmt::format(", {} weight {}", resource, trimmed(weight, 6));
    int queues = 0;
    for (const ClusterQueueSpec& cq : config.cluster_queues) queues += cq.admission_fair_sharing;
    out += fmt::format("; {} ClusterQueue{} in\n", queues, queues == 1 ? " opts" : "s opt");
  }
  if (config.kueue()) {
    flavors_section(out, config);
    cohorts_section(out, config);
    local_queues_section(out, config);
  }
  priority_section(out, config);
  if (config.kai()) kai_section(out, config);
  out += "\nSkipped (not modelled):";
  if (config.skipped_kinds.empty()) out += " nothing";
  for (const auto& [kind, count] : config.skipped_kinds)
    out += fmt::format(" {} x {}{}", count, kind, kind == config.skipped_kinds.rbegin()->first ? "" : ",");
  return out + "\n";
}

}  // namespace topsim
