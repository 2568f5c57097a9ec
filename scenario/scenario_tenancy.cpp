// "tenancy": the scenario's teams and quotas (sim/tenancy/): a folder of Kueue or KAI objects, how
// the queues the jobs name map onto them, and what a preemption costs.
#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/hardware.h"
#include "formats/queues/queue_yaml.h"
#include "scenario/scenario_sections.h"
#include "sim/cluster.h"
#include "sim/job.h"
#include "util/text.h"

namespace topsim {
namespace {

constexpr double kMaxSeconds = 1e9;

void read_queue_of(JsonErrors& errors, const JsonObject& tenancy, TenancySpec& spec) {
  const auto at = tenancy.member("queue_of");
  if (!at) return;
  if (!at->value->is_object()) return tenancy.fail("queue_of", "must map queue names of the jobs to LocalQueues");
  for (const auto& [name, target] : at->value->items()) {
    if (!target.is_string() || target.get<std::string>().empty())
      return errors.fail(at->pointer + "/" + name, "must be a LocalQueue or ClusterQueue name");
    spec.queue_of[name] = target.get<std::string>();
  }
}

// Whether some node group of GPU model `gpu` (a catalog index) is pinned to serve GPU shares.
bool serves_shares(const ClusterSpec& cluster, int gpu) {
  return std::any_of(cluster.groups.begin(), cluster.groups.end(), [&](const NodeGroupSpec& group) {
    const GpuModel* pace = pace_gpu(group.model);
    return pace && pace->catalog_index == gpu && group.label_pinned &&
           (group.label == NodeMode::Share || group.label == NodeMode::CoreMem);
  });
}

// The nominal quota `quotas` gives `resource`; 0 when it names none.
int64_t nominal_of(const FlavorQuotas& quotas, const std::string& resource) {
  for (const ResourceQuota& quota : quotas.resources)
    if (quota.resource == resource) return quota.nominal;
  return 0;
}

// Empty, or why a ClusterQueue's flavor names a GPU model (nodeLabels nvidia.com/gpu.product) the
// cluster has no node of, or gives GPU shares (aliyun.com/gpu-mem) quota on a model no share node
// has: the jobs admitted on it could never be placed, and would hold its quota.
std::string absent_flavor_gpu(const QueueConfig& queues, const ClusterSpec& cluster) {
  if (cluster.groups.empty()) return "";  // a trace's node list: its pods take GPU types of their own
  std::vector<const GpuModel*> models;    // the cluster's, each once
  for (const NodeGroupSpec& group : cluster.groups)
    if (const GpuModel* pace = pace_gpu(group.model); pace && std::find(models.begin(), models.end(), pace) == models.end())
      models.push_back(pace);
  for (const ClusterQueueSpec& cq : queues.cluster_queues)
    for (const ResourceGroup& group : cq.groups)
      for (const FlavorQuotas& quotas : group.flavors)
        for (const ResourceFlavorSpec& flavor : queues.flavors) {
          if (flavor.name != quotas.flavor || flavor.gpu < 0) continue;
          const std::string names = flavor.where + ": ResourceFlavor " + flavor.name + ": spec.nodeLabels." + kGpuProductLabel +
                                    " " + flavor.node_labels.at(kGpuProductLabel) + " is GPU model " + gpu_at(flavor.gpu)->name;
          if (std::none_of(models.begin(), models.end(), [&](const GpuModel* m) { return m->catalog_index == flavor.gpu; }))
            return names +
                   ", and the cluster has none (its GPUs: " + join(models, ", ", [](const GpuModel* m) { return m->name; }) +
                   "); ClusterQueue " + cq.name + " admits jobs on it that could never be placed";
          if (const int64_t gib = nominal_of(quotas, kResourceGpuMem); gib > 0 && !serves_shares(cluster, flavor.gpu))
            return names + ", and no node of that model is labelled share or core_mem; ClusterQueue " + cq.name + " gives " +
                   std::to_string(gib) + " " + kResourceGpuMem +
                   " on it to GPU shares that could never be placed there (label a group of " + gpu_at(flavor.gpu)->name +
                   " nodes \"share\", or drop the flavor's " + kResourceGpuMem + " quota)";
        }
  return "";
}

}  // namespace

void read_tenancy(JsonErrors& errors, std::optional<Error>& verbatim, const JsonObject& top, const std::string& base_dir,
                  Scenario& s) {
  const auto at = top.member("tenancy");
  if (!at) return;
  if (s.mode == ExperimentMode::Fill) return top.fail("tenancy", "does not apply to a fill experiment (nothing waits)");
  const JsonObject tenancy(errors, *at, {"queues", "queue_of", "default_queue", "checkpoint_every_s", "restart_overhead_s"});
  if (!tenancy.is_object() || !tenancy.require("queues")) return;
  const auto folder = tenancy.string("queues");
  if (!folder) return;
  auto spec = std::make_shared<TenancySpec>();
  auto config = read_queue_config(resolve_path(base_dir, *folder));
  if (!config) return verbatim.emplace(config.error()), void();
  spec->queues = std::move(config).value();
  if (spec->queues.kueue() && spec->queues.kai())
    return tenancy.fail("queues", "'" + *folder +
                                      "' holds both Kueue ClusterQueues and KAI Queues: a cluster admits by one of them; keep "
                                      "one in the folder");
  read_queue_of(errors, tenancy, *spec);
  if (auto name = tenancy.string("default_queue")) spec->default_queue = *name;
  // The run's checkpoint policy (also "checkpoints", scenario_failures.cpp), kept here as tenancy first had it.
  if (auto every = tenancy.number("checkpoint_every_s", 0, kMaxSeconds)) s.checkpoint.every_ms = std::llround(*every * 1000);
  if (auto overhead = tenancy.number("restart_overhead_s", 0, kMaxSeconds))
    s.checkpoint.restart_overhead_ms = std::llround(*overhead * 1000);
  if (errors.failed()) return;
  auto binding = bind_tenancy(*spec, *s.workload);
  if (!binding) return verbatim.emplace(binding.error()), void();
  if (std::string absent = absent_flavor_gpu(spec->queues, s.cluster); !absent.empty())
    return verbatim.emplace(Error(std::move(absent))), void();
  s.tenancy = std::move(spec);
}

}  // namespace topsim
