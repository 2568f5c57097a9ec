// KAI-Scheduler's Queue (scheduling.run.ai/v2; NVIDIA/KAI-Scheduler commit 72de64fc,
// pkg/apis/scheduling/v2/queue_types.go and resources.go). spec.preemptMinRuntime and
// spec.reclaimMinRuntime are metav1.Duration: Go's duration text ("90s", "15m", "1h30m"; a
// negative one is refused here, where KAI would take it as no protection). Accepted and not
// modelled: status.
//
// Defaults: the CRD (deployments/kai-scheduler/crds/scheduling.run.ai_queues.yaml) declares none,
// so a field left out is Go's zero value: quota 0, overQuotaWeight 0 and limit 0, and the
// scheduler takes a limit of 0 as "nothing may be allocated" (pkg/scheduler/plugins/proportion/
// capacity_policy/max_allowed_check.go: only -1 means no limit), as the table of docs/queues/README.md
// says ("0 or unset: no additional resources allowed"); the "Unlimited Queue - default value is -1"
// example there sets -1 explicitly, as the chart's default queues do (values.yaml). A Queue without
// spec.resources is refused by KAI's webhook (queue_webhook.go, "resources must be specified").
// Priority: 100 when absent (pkg/common/constants/constants.go DefaultQueuePriority).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "formats/queues/queue_objects.h"

namespace topsim::queue_yaml {
namespace {

constexpr int32_t kKaiDefaultPriority = 100;           // KAI pkg/common/constants/constants.go DefaultQueuePriority
constexpr double kMaxMinRuntimeMs = 10000.0 * 3600e3;  // 10,000 h (over a year): beyond any trace

// -1 (unlimited) or at least 0: KAI reads other negative values as amounts below zero.
double amount(const Site& site, const YAML::Node& node, const std::string& path) {
  if (!present(node)) return 0;
  const double value = number(site, node, path);
  if (value < 0 && value != -1) site.fail(node, path, "must be -1 (unlimited) or at least 0, got " + node.Scalar());
  return value;
}

// A min runtime (spec.preemptMinRuntime or spec.reclaimMinRuntime) in ms; nullopt when absent.
std::optional<int64_t> min_runtime(const Site& site, const YAML::Node& node, const std::string& path) {
  if (!present(node)) return std::nullopt;
  return duration_ms(site, node, path, kMaxMinRuntimeMs, "10000h");
}

KaiResource read_resource(const Site& site, const YAML::Node& node, const std::string& path) {
  check_map(site, node, path, {"quota", "overQuotaWeight", "limit"});
  KaiResource resource;
  resource.quota = amount(site, member(node, "quota"), path + ".quota");
  resource.limit = amount(site, member(node, "limit"), path + ".limit");
  const YAML::Node weight = member(node, "overQuotaWeight");
  resource.over_quota_weight = present(weight) ? number(site, weight, path + ".overQuotaWeight") : 0;
  if (resource.over_quota_weight < 0) site.fail(weight, path + ".overQuotaWeight", "must not be negative");
  return resource;
}

}  // namespace

void read_kai_queue(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  const YAML::Node spec = member(object.node, "spec");
  check_map(site, spec, "spec",
            {"displayName", "parentQueue", "resources", "priority", "preemptMinRuntime", "reclaimMinRuntime"});
  KaiQueueSpec queue;
  queue.name = text(site, member(member(object.node, "metadata"), "name"), "metadata.name");
  queue.where = site.where(object.node);
  queue.parent = text(site, member(spec, "parentQueue"), "spec.parentQueue");
  queue.display_name = text(site, member(spec, "displayName"), "spec.displayName");
  queue.preempt_min_runtime_ms = min_runtime(site, member(spec, "preemptMinRuntime"), "spec.preemptMinRuntime");
  queue.reclaim_min_runtime_ms = min_runtime(site, member(spec, "reclaimMinRuntime"), "spec.reclaimMinRuntime");
  const YAML::Node priority = member(spec, "priority");
  queue.priority = present(priority) ? static_cast<int32_t>(integer(site, priority, "spec.priority", -2147483648LL, 2147483647LL))
                                     : kKaiDefaultPriority;
  const YAML::Node resources = member(spec, "resources");
  if (!present(resources)) site.fail(present(spec) ? spec : object.node, "spec.resources", "missing (KAI requires it)");
  check_map(site, resources, "spec.resources", {"gpu", "cpu", "memory"});
  queue.gpu = read_resource(site, member(resources, "gpu"), "spec.resources.gpu");
  queue.cpu = read_resource(site, member(resources, "cpu"), "spec.resources.cpu");
  queue.memory = read_resource(site, member(resources, "memory"), "spec.resources.memory");
  config.kai_queues.push_back(std::move(queue));
}

}  // namespace topsim::queue_yaml
