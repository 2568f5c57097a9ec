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
//
// KAI's SchedulingShard (kai.scheduler/v1; pkg/apis/kai/v1/schedulingshard_types.go, usagedb/api/
// interface.go and defaults.go): spec.kValue, spec.minRuntime and spec.usageDBConfig are modelled,
// and the proportion and minruntime plugins' arguments in spec.plugins, which replace what those set.
// Accepted and not modelled: args, placementStrategy, partitionLabelValue, queueDepthPerAction,
// actions, the other plugins, the database's connection and its staleness settings.
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

// A min runtime (a Queue's spec.preemptMinRuntime or spec.reclaimMinRuntime, a SchedulingShard's
// spec.minRuntime or minruntime plugin argument: Go's duration text) in ms; nullopt when absent.
std::optional<int64_t> read_min_runtime(const Site& site, const YAML::Node& node, const std::string& path) {
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

constexpr double kMaxWindowMs = 100000.0 * 3600e3;  // 100,000 h: beyond any trace

// A duration of the shard's usage database (a metav1.Duration) in ms.
int64_t shard_duration(const Site& site, const YAML::Node& node, const std::string& path) {
  return duration_ms(site, node, path, kMaxWindowMs, "100000h");
}

// The proportion plugin's kValue: a number (spec.kValue) or, `argument`, a plugin argument's text
// (map[string]string, read with strconv.ParseFloat).
double k_value(const Site& site, const YAML::Node& node, const std::string& path, bool argument = false) {
  double k = 0;
  if (argument) {
    const std::string value = text(site, node, path);
    char* end = nullptr;
    k = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size()) site.fail(node, path, "must be a number, got '" + value + "'");
  } else {
    k = number(site, node, path);
  }
  if (!(k >= 0) || !std::isfinite(k)) site.fail(node, path, "must be a number, not negative, got " + node.Scalar());
  return k;
}

KaiTimeAwareSpec read_usage_params(const Site& site, const YAML::Node& node) {
  const std::string path = "spec.usageDBConfig.usageParams";
  check_map(site, node, path,
            {"halfLifePeriod", "windowSize", "windowType", "tumblingWindowStartTime", "cronString", "fetchInterval",
             "stalenessPeriod", "waitTimeout", "extraParams"});
  KaiTimeAwareSpec spec;
  if (const YAML::Node half = member(node, "halfLifePeriod"); present(half))
    spec.half_life_ms = shard_duration(site, half, path + ".halfLifePeriod");  // 0: no decay (defaults.go)
  if (const YAML::Node size = member(node, "windowSize"); present(size)) {
    spec.window_ms = shard_duration(site, size, path + ".windowSize");
    if (spec.window_ms <= 0) site.fail(size, path + ".windowSize", "must be greater than 0");
  }
  const std::string type = one_of(site, member(node, "windowType"), path + ".windowType", {"sliding", "tumbling", "cron"});
  if (type == "cron")
    site.fail(member(node, "windowType"), path + ".windowType",
              "cron windows are not modelled (use sliding, or tumbling: windows of windowSize from the run's start)");
  if (type == "tumbling") spec.window = KaiUsageWindow::Tumbling;
  if (const YAML::Node fetch = member(node, "fetchInterval"); present(fetch)) {
    spec.fetch_ms = shard_duration(site, fetch, path + ".fetchInterval");
    if (spec.fetch_ms <= 0) site.fail(fetch, path + ".fetchInterval", "must be greater than 0");
  }
  for (const char* unused : {"stalenessPeriod", "waitTimeout"})  // Go durations, checked though unused
    if (const YAML::Node d = member(node, unused); present(d)) shard_duration(site, d, path + "." + unused);
  text(site, member(node, "tumblingWindowStartTime"), path + ".tumblingWindowStartTime");
  text(site, member(node, "cronString"), path + ".cronString");
  return spec;
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
  queue.preempt_min_runtime_ms = read_min_runtime(site, member(spec, "preemptMinRuntime"), "spec.preemptMinRuntime");
  queue.reclaim_min_runtime_ms = read_min_runtime(site, member(spec, "reclaimMinRuntime"), "spec.reclaimMinRuntime");
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

void read_kai_scheduling_shard(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  const YAML::Node spec = member(object.node, "spec");
  check_map(site, spec, "spec",
            {"args", "placementStrategy", "partitionLabelValue", "queueDepthPerAction", "minRuntime", "kValue", "usageDBConfig",
             "plugins", "actions"});
  if (config.kai_scheduler)
    site.fail(object.node, "", "a second SchedulingShard (the first is at " + config.kai_scheduler->where + "): topsim runs one");
  KaiSchedulerSpec shard;
  shard.name = text(site, member(member(object.node, "metadata"), "name"), "metadata.name");
  shard.where = site.where(object.node);
  if (const YAML::Node k = member(spec, "kValue"); present(k)) shard.k_value = k_value(site, k, "spec.kValue");
  const YAML::Node min_runtime = member(spec, "minRuntime");
  check_map(site, min_runtime, "spec.minRuntime", {"preemptMinRuntime", "reclaimMinRuntime"});
  shard.default_preempt_min_runtime_ms =
      read_min_runtime(site, member(min_runtime, "preemptMinRuntime"), "spec.minRuntime.preemptMinRuntime").value_or(0);
  shard.default_reclaim_min_runtime_ms =
      read_min_runtime(site, member(min_runtime, "reclaimMinRuntime"), "spec.minRuntime.reclaimMinRuntime").value_or(0);
  // spec.plugins.<name>.arguments replace the plugin's arguments, those spec.kValue and
  // spec.minRuntime set among them (schedulingshard_types.go setDefaultPlugins).
  const YAML::Node plugins = member(spec, "plugins");
  if (present(plugins) && !plugins.IsMap()) site.fail(plugins, "spec.plugins", "must be a map of plugin names to settings");
  if (present(plugins))
    for (const auto& entry : plugins) {
      const std::string name = text(site, entry.first, "spec.plugins");
      const std::string path = "spec.plugins." + name;
      check_map(site, entry.second, path, {"enabled", "priority", "arguments"});
      if (const YAML::Node priority = member(entry.second, "priority"); present(priority))
        integer(site, priority, path + ".priority", -2147483648LL, 2147483647LL);
      const YAML::Node enabled = member(entry.second, "enabled");
      const bool on = !present(enabled) || boolean(site, enabled, path + ".enabled");
      if ((name == "proportion" || name == "minruntime") && !on)
        site.fail(enabled, path + ".enabled", "a scheduler without its " + name + " plugin is not modelled");
      const YAML::Node arguments = member(entry.second, "arguments");
      if (!present(arguments) || (name != "proportion" && name != "minruntime")) continue;
      if (!arguments.IsMap()) site.fail(arguments, path + ".arguments", "must be a map of argument names to strings");
      if (name == "proportion") {
        const YAML::Node k = member(arguments, "kValue");
        shard.k_value = present(k) ? k_value(site, k, path + ".arguments.kValue", true) : 1.0;
        continue;
      }
      const YAML::Node p = member(arguments, "defaultPreemptMinRuntime"), r = member(arguments, "defaultReclaimMinRuntime");
      shard.default_preempt_min_runtime_ms = read_min_runtime(site, p, path + ".arguments.defaultPreemptMinRuntime").value_or(0);
      shard.default_reclaim_min_runtime_ms = read_min_runtime(site, r, path + ".arguments.defaultReclaimMinRuntime").value_or(0);
      if (const YAML::Node method = member(arguments, "reclaimResolveMethod");
          present(method) && one_of(site, method, path + ".arguments.reclaimResolveMethod", {"lca", "queue"}) == "queue")
        site.fail(method, path + ".arguments.reclaimResolveMethod", "the queue method is not modelled (topsim resolves by lca)");
    }
  const YAML::Node usage = member(spec, "usageDBConfig");
  check_map(site, usage, "spec.usageDBConfig", {"clientType", "connectionString", "connectionStringEnvVar", "usageParams"});
  if (present(usage)) {
    // usagedb/hub.go: a usage database needs a client type; fake ones are KAI's tests'.
    if (!present(member(usage, "clientType")))
      site.fail(usage, "spec.usageDBConfig.clientType", "missing (KAI needs one: prometheus)");
    one_of(site, member(usage, "clientType"), "spec.usageDBConfig.clientType", {"prometheus"});
    text(site, member(usage, "connectionString"), "spec.usageDBConfig.connectionString");
    text(site, member(usage, "connectionStringEnvVar"), "spec.usageDBConfig.connectionStringEnvVar");
    shard.time_aware = read_usage_params(site, member(usage, "usageParams"));
  }
  config.kai_scheduler = std::move(shard);
}

}  // namespace topsim::queue_yaml
