// The plan file (docs/planning.md): the scenario keys a plan shares with scenarios (workload,
// schedulers, queue, seeds, ...) are read by the scenario loader; node types, mixes, growth,
// SLOs and bounds here. Every error is one line naming the file and the JSON pointer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <optional>

#include "core/builtin_models.h"
#include "formats/hardware/node_source.h"
#include "formats/support/json_reader.h"
#include "plan/plan.h"
#include "scenario/other_inputs.h"
#include "scenario/scenario_loader.h"
#include "scenario/scenario_sections.h"
#include "sim/run_summary.h"
#include "sim/tenancy/gpu_quota.h"
#include "util/digest.h"
#include "util/input_file.h"
#include "util/number_format.h"
#include "util/suggest.h"
#include "util/text.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kMaxNodesBound = 100000;
constexpr int kMaxGridPart = 8;
constexpr size_t kMaxCandidates = 256;

// Keys a plan shares with scenarios, handed to the scenario loader as they are.
const std::vector<std::string> kScenarioKeys = {
    "name",           "description",       "seed",    "seeds",       "workload", "schedulers", "share_policy", "queue", "overlap",
    "sample_every_s", "workload_coverage", "tenancy", "checkpoints", "failures"};
const std::vector<std::string> kPlanKeys = {"growth", "network", "node_types", "mixes",   "mix_grid",
                                            "slo",    "bounds",  "mode",       "cluster", "quota_search"};
// A size plan's keys that a quota plan, which keeps the scenario's cluster, has no use for.
const std::vector<std::string> kSizeOnlyKeys = {"node_types", "mixes", "mix_grid", "bounds", "network"};

std::vector<std::string> all_top_keys() {
  std::vector<std::string> keys = kScenarioKeys;
  keys.insert(keys.end(), kPlanKeys.begin(), kPlanKeys.end());
  return keys;
}

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// Every metric name an SLO may bound: the replay statistics of the catalog.
void read_growth(JsonErrors& errors, const JsonObject& top, PlanSpec& plan) {
  const auto at = top.member("growth");
  if (!at) return;
  if (!at->value->is_array() || at->value->empty())
    return errors.fail(at->pointer, "must be a non-empty array of load multipliers, e.g. [1, 1.5, 2]");
  plan.growth.clear();
  for (size_t i = 0; i < at->value->size(); ++i) {
    const auto g = json_number(errors, at->element(i), 0.01, 1000);
    if (!g) return;
    if (std::find(plan.growth.begin(), plan.growth.end(), *g) != plan.growth.end())
      return errors.fail(at->element(i).pointer, "growth step " + describe_json((*at->value)[i]) + " is listed twice");
    plan.growth.push_back(*g);
  }
}

// The nodes of one group of the network's lowest level placed by order, the step a plan grows a
// cluster by (18 for GB200 trays in NVL72 racks; 16 for racks of 16, whatever the levels above,
// whose last group may be partly filled: FabricSpec::last_groups_partly); 1 without such levels.
int64_t fabric_fill_nodes(const FabricSpec& fabric) {
  return fabric.empty() || fabric.levels.front().fanout <= 0 ? 1 : fabric.levels.front().fanout;
}

void read_node_types(JsonErrors& errors, const JsonObject& top, const std::string& base_dir, PlanSpec& plan) {
  if (!top.require("node_types")) return;
  const JsonAt at = *top.member("node_types");
  if (!at.value->is_array() || at.value->empty())
    return errors.fail(at.pointer, "must be a non-empty array of node types, each with a \"model\" and a \"cost_per_node_hour\"");
  for (size_t i = 0; i < at.value->size(); ++i) {
    const JsonAt item = at.element(i);
    ClusterSpec one;
    read_node_group(errors, item, base_dir, one, {"name", "cost_per_node_hour", "watts", "alone", "spares"});
    if (errors.failed()) return;
    const JsonObject o(
        errors, item,
        {"model", "count", "label", "gpu_model", "host_memory_gib", "name", "cost_per_node_hour", "watts", "alone", "spares"});
    if (o.has("count")) return o.fail("count", "is what the plan searches: a node type gives no count");
    PlanNodeType type;
    type.group = std::move(one.groups.front());
    type.name = o.string("name").value_or(o.string("model").value_or(""));
    // A built-in model brings its price and power (core/builtin_models.h builtin_economics, with
    // their sources); the plan file's figures override them.
    const auto economics = builtin_economics(type.group.model.name);
    if (economics) {
      type.cost_per_node_hour = economics->cost_per_hour;
      type.watts = economics->watts;
    }
    if (!o.has("cost_per_node_hour") && !(economics && economics->cost_per_hour > 0))
      return o.fail("model", "'" + type.group.model.name + "' has no built-in price: give \"cost_per_node_hour\"" +
                                 (economics ? " (" + std::string(economics->source) + ")" : std::string()));
    if (auto cost = o.number("cost_per_node_hour", 0, 1e9)) type.cost_per_node_hour = *cost;
    if (auto watts = o.number("watts", 0, 1e9)) type.watts = *watts;
    if (auto alone = o.member("alone")) {
      if (!alone->value->is_boolean()) return o.fail("alone", "must be true or false, got " + describe_json(*alone->value));
      type.alone = alone->value->get<bool>();
    }
    if (auto spares = o.integer("spares", 1, 100000)) {
      if (!plan.base.failures)
        return o.fail("spares", "hot spares stand in for failed nodes: give the plan \"failures\" (docs/failures.md)");
      if (!type.alone) return o.fail("spares", "apply to a node type planned alone (\"alone\": false puts it only in mixes)");
      type.spares = static_cast<int>(*spares);
      const FabricSpec& fabric = plan.base.cluster.network.fabric;
      if (const int64_t fill = fabric_fill_nodes(fabric); type.spares % fill != 0) {
        const std::string& group = fabric.levels.front().name;
        return o.fail("spares", "the network's " + group + "s hold " + std::to_string(fill) + " nodes: spares come in whole " +
                                    group + "s, a multiple of " + std::to_string(fill) + ", got " + std::to_string(type.spares));
      }
    }
    if (errors.failed()) return;
    if (plan.base.failures) {
      const GpuModel* gpu = type.group.model.gpus.empty() ? nullptr : find_gpu_model(type.group.model.gpus.front().model);
      if (const std::string missing = missing_failure_rates(*plan.base.failures, gpu, type.group.model.name); !missing.empty())
        return o.fail("model", missing);
    }
    type.cannot_run = jobs_unrunnable_on(*plan.base.workload, {type.group});
    for (const PlanNodeType& other : plan.node_types)
      if (other.name == type.name)
        return o.fail(o.has("name") ? "name" : "model",
                      "node type '" + type.name + "' is listed twice (give the second a different \"name\")");
    plan.node_types.push_back(std::move(type));
  }
}

std::vector<std::string> type_names(const PlanSpec& plan) {
  std::vector<std::string> names;
  for (const PlanNodeType& t : plan.node_types) names.push_back(t.name);
  return names;
}

std::optional<size_t> type_index(const PlanSpec& plan, const std::string& name) {
  for (size_t t = 0; t < plan.node_types.size(); ++t)
    if (plan.node_types[t].name == name) return t;
  return std::nullopt;
}

// Fills the unit's size, cost and power, and a name when none is given; false when the same
// composition (after dividing by the common factor) is already a candidate. On a network whose
// lowest level fills groups of F nodes a unit is the smallest multiple of the composition that
// fills whole groups (a single node type: F nodes, e.g. one NVL72 rack of 18 trays).
bool add_candidate(PlanSpec& plan, PlanCandidate c) {
  int common = 0;
  for (int p : c.parts) common = std::gcd(common, p);
  int64_t composition = 0;
  for (int p : c.parts) composition += p / common;
  const int64_t fill = fabric_fill_nodes(plan.base.cluster.network.fabric);
  const int64_t scale = std::min<int64_t>(fill / std::gcd(composition, fill), kMaxNodesBound + 1);
  std::string name;
  bool power_known = true;  // a unit's power only when every node type in it gives watts
  for (size_t i = 0; i < c.types.size(); ++i) {
    c.parts[i] = static_cast<int>(c.parts[i] / common * scale);
    const PlanNodeType& t = plan.node_types[c.types[i]];
    c.nodes_per_unit += c.parts[i];
    c.cost_per_unit_hour += c.parts[i] * t.cost_per_node_hour;
    c.watts_per_unit += c.parts[i] * t.watts;
    power_known = power_known && t.watts > 0;
    name += (name.empty() ? "" : " + ") + std::to_string(c.parts[i]) + " " + t.name;
  }
  if (!power_known) c.watts_per_unit = 0;
  if (c.types.size() == 1 && c.parts[0] == 1) name = plan.node_types[c.types[0]].name;
  if (c.name.empty()) c.name = name;
  for (const PlanCandidate& other : plan.candidates)
    if (other.types == c.types && other.parts == c.parts) return false;
  if (c.types.size() == 1) {
    c.cannot_run = plan.node_types[c.types[0]].cannot_run;
  } else if (std::any_of(c.types.begin(), c.types.end(), [&](size_t t) { return !plan.node_types[t].cannot_run.empty(); })) {
    std::vector<NodeGroupSpec> groups;  // a job one type cannot run may run on another
    for (size_t t : c.types) groups.push_back(plan.node_types[t].group);
    c.cannot_run = jobs_unrunnable_on(*plan.base.workload, groups);
  }
  plan.candidates.push_back(std::move(c));
  return true;
}

// {"name"?, "parts": {"<type>": n, ...}}: types in plan order.
void read_mixes(JsonErrors& errors, const JsonObject& top, PlanSpec& plan) {
  const auto at = top.member("mixes");
  if (!at) return;
  if (!at->value->is_array())
    return errors.fail(at->pointer, "must be an array of mixes, e.g. [{\"parts\": {\"dgx-a100\": 2, \"hgx-h100\": 1}}]");
  for (size_t i = 0; i < at->value->size(); ++i) {
    const JsonObject o(errors, at->element(i), {"name", "parts"});
    if (!o.is_object() || !o.require("parts")) return;
    const JsonAt parts = *o.member("parts");
    if (!parts.value->is_object() || parts.value->empty())
      return errors.fail(parts.pointer, "must be an object of node type names and node counts, e.g. {\"dgx-a100\": 2}");
    std::vector<std::pair<size_t, int>> by_type;
    for (const auto& [name, value] : parts.value->items()) {
      const auto t = type_index(plan, name);
      if (!t) return errors.fail(parts.member(name).pointer, unknown_name("node type", name, type_names(plan)));
      const auto count = json_integer(errors, parts.member(name), 1, kMaxNodesBound);
      if (!count) return;
      by_type.emplace_back(*t, static_cast<int>(*count));
    }
    std::sort(by_type.begin(), by_type.end());
    PlanCandidate c;
    c.name = o.string("name").value_or("");
    for (const auto& [t, n] : by_type) c.types.push_back(t), c.parts.push_back(n);
    if (!add_candidate(plan, std::move(c)))
      return o.fail("parts", "this mix is already a candidate (the same node types in the same proportions)");
  }
}

// {"types": [a, b, ...], "max_part": k}: every mix of at least two of the types with parts in
// 0..k, proportions counted once.
void read_mix_grid(JsonErrors& errors, const JsonObject& top, PlanSpec& plan) {
  const auto at = top.member("mix_grid");
  if (!at) return;
  const JsonObject o(errors, *at, {"types", "max_part"});
  if (!o.is_object() || !o.require("types") || !o.require("max_part")) return;
  const JsonAt types = *o.member("types");
  if (!types.value->is_array() || types.value->size() < 2 || types.value->size() > 4)
    return errors.fail(types.pointer, "must be an array of 2 to 4 node type names");
  std::vector<size_t> chosen;
  for (size_t i = 0; i < types.value->size(); ++i) {
    const auto name = json_string(errors, types.element(i));
    if (!name) return;
    const auto t = type_index(plan, *name);
    if (!t) return errors.fail(types.element(i).pointer, unknown_name("node type", *name, type_names(plan)));
    if (std::find(chosen.begin(), chosen.end(), *t) != chosen.end())
      return errors.fail(types.element(i).pointer, "node type '" + *name + "' is listed twice");
    chosen.push_back(*t);
  }
  std::sort(chosen.begin(), chosen.end());
  const auto max_part = o.integer("max_part", 1, kMaxGridPart);
  if (!max_part) return;
  std::vector<int> parts(chosen.size(), 0);
  while (true) {  // odometer over 0..max_part per type
    size_t i = 0;
    while (i < parts.size() && parts[i] == *max_part) parts[i++] = 0;
    if (i == parts.size()) break;
    ++parts[i];
    PlanCandidate c;
    for (size_t k = 0; k < parts.size(); ++k)
      if (parts[k] > 0) c.types.push_back(chosen[k]), c.parts.push_back(parts[k]);
    if (c.types.size() >= 2) add_candidate(plan, std::move(c));
  }
}

// A bound written as a number, or for a metric in seconds as a duration ("10m" is 600).
std::optional<double> slo_bound(JsonErrors& errors, const JsonAt& item, const MetricInfo& info) {
  if (item.value->is_number()) return json_number(errors, item, -1e18, 1e18);
  const std::string text = item.value->get<std::string>();
  if (info.unit == std::string_view("s"))
    if (const auto seconds = parse_duration_s(text)) return seconds;
  errors.fail(item.pointer,
              info.unit == std::string_view("s")
                  ? describe_json(*item.value) + " is not a duration: write seconds as a number (600) or " + kDurationForms
                  : "must be a number (in " + std::string(info.unit) + "), got " + describe_json(*item.value));
  return std::nullopt;
}

// A per-team SLO ("wait_s.p95@team-a"), on a metric kept per tenant: in a quota plan for a tenant
// whose quota the search moves; in a size plan for a queue the workload's jobs name (its jobs'
// waits and completion times, e.g. one large job's). False (with the error) otherwise.
bool check_tenant_slo(JsonErrors& errors, const JsonAt& item, const std::string& name, const PlanSpec& plan) {
  const size_t at = name.find('@');
  const std::string tenant = name.substr(at + 1);
  if (tenant.empty()) {
    errors.fail(item.pointer, "no tenant after '@': name the queue, e.g. '" + name + "team-a'");
    return false;
  }
  if (!find_metric(name)) {
    errors.fail(item.pointer, "'" + name.substr(0, at) +
                                  "' is not kept per tenant (per-tenant metrics: jobs, finished, wait_s.*, jct_s.*, gpu_hours" +
                                  (plan.quota ? ", evictions, preempted_gpu_hours, borrowed_gpu_hours)" : ")"));
    return false;
  }
  if (!plan.quota) {
    const std::vector<std::string> none;
    const std::vector<std::string>& queues = plan.base.workload ? plan.base.workload->queue_names : none;
    if (std::find(queues.begin(), queues.end(), tenant) != queues.end()) return true;
    errors.fail(item.pointer, queues.empty() ? "'" + tenant + "': no job of the workload names a queue (a job's \"queue\")"
                                             : unknown_name("queue", tenant, queues) + " (the queues the workload's jobs name)");
    return false;
  }
  const auto& tenants = plan.quota->tenants;
  if (std::find(tenants.begin(), tenants.end(), tenant) == tenants.end()) {
    errors.fail(item.pointer, unknown_name("tenant", tenant, tenants) + " (the queues whose quota the search moves)");
    return false;
  }
  return true;
}

void read_slos(JsonErrors& errors, const JsonObject& top, PlanSpec& plan) {
  if (!top.require("slo")) return;
  const JsonAt at = *top.member("slo");
  if (!at.value->is_object() || at.value->empty())
    return errors.fail(at.pointer, "must be an object of metric bounds, e.g. {\"wait_s.p95\": 600, \"rejected\": 0}");
  const std::vector<std::string> names = slo_metric_names();
  std::optional<RunKinds> kinds;  // read from the workload at the first SLO that needs them
  for (const auto& [name, value] : at.value->items()) {
    const JsonAt item = at.member(name);
    if (name.find('@') != std::string::npos) {
      if (!check_tenant_slo(errors, item, name, plan)) return;
    } else if (std::find(names.begin(), names.end(), name) == names.end()) {
      return errors.fail(item.pointer, unknown_name("SLO metric", name, names) + "; `topsim plan --list-slos` lists them");
    }
    const MetricInfo& info = *find_metric(name.substr(0, name.find('@')));
    if (info.needs != MetricNeeds::Nothing && !kinds) kinds = run_kinds(plan.base);
    if (const std::string why = kinds ? never_measured(info, *kinds) : ""; !why.empty())
      return errors.fail(item.pointer, "no replay of this plan measures '" + name + "': " + why);
    Slo slo{name, std::nullopt, std::nullopt};
    if (value.is_number() || value.is_string()) {
      const auto bound = slo_bound(errors, item, info);
      if (!bound) return;
      if (info.better == Better::Neither)
        return errors.fail(item.pointer, "'" + name + "' is neither better high nor low: give {\"min\": ...} or {\"max\": ...}");
      (info.better == Better::Lower ? slo.max : slo.min) = *bound;
    } else {
      const JsonObject o(errors, item, {"min", "max"});
      if (!o.is_object()) return;
      if (!o.has("min") && !o.has("max")) return errors.fail(item.pointer, "give \"min\", \"max\" or both");
      slo.min = o.number("min", -1e18, 1e18);
      slo.max = o.number("max", -1e18, 1e18);
      if (errors.failed()) return;
      if (slo.min && slo.max && *slo.min > *slo.max)
        return errors.fail(item.pointer, "contradictory: min " + describe_json(item.value->at("min")) + " is above max " +
                                             describe_json(item.value->at("max")));
    }
    plan.slos.push_back(std::move(slo));
  }
}

void read_bounds(JsonErrors& errors, const JsonObject& top, PlanSpec& plan) {
  const auto at = top.member("bounds");
  if (!at) return;
  const JsonObject o(errors, *at, {"max_nodes", "max_cost_per_hour", "max_cost_per_month"});
  if (!o.is_object()) return;
  if (auto n = o.integer("max_nodes", 1, kMaxNodesBound)) plan.max_nodes = static_cast<int>(*n);
  if (o.has("max_cost_per_hour") && o.has("max_cost_per_month"))
    return o.fail("max_cost_per_month", "cannot be combined with \"max_cost_per_hour\" (give one)");
  if (auto c = o.positive_number("max_cost_per_hour")) plan.max_cost_per_hour = *c;
  if (auto c = o.positive_number("max_cost_per_month")) plan.max_cost_per_hour = *c / kHoursPerMonth;
}

// One unit of some candidate must fit the bounds, or nothing can be evaluated.
void check_bounds(JsonErrors& errors, const PlanSpec& plan) {
  for (const PlanCandidate& c : plan.candidates)
    if (c.nodes_per_unit <= plan.max_nodes && (!plan.max_cost_per_hour || c.cost_per_unit_hour <= *plan.max_cost_per_hour))
      return;
  const PlanCandidate& first = plan.candidates.front();
  char cost[32];
  std::snprintf(cost, sizeof cost, "$%.2f", first.cost_per_unit_hour);
  errors.fail("/bounds", "below one unit of every candidate (one unit of '" + first.name + "' is " +
                             counted(first.nodes_per_unit, "node") + " at " + cost + " an hour)");
}

// The shared keys as a scenario document. A size plan gets a one-node stand-in cluster (the loader
// requires a cluster, and each evaluation brings its own); a quota plan keeps its own.
json scenario_document(const json& plan) {
  json scenario = json::object();
  for (const std::string& key : kScenarioKeys)
    if (plan.contains(key)) scenario[key] = plan.at(key);
  scenario["cluster"] = plan.contains("quota_search") && plan.contains("cluster")
                            ? plan.at("cluster")
                            : json{{"nodes", json::array({{{"model", "dgx-a100"}, {"count", 1}}})}};
  scenario["record_transitions"] = false;
  return scenario;
}

// Each tenant's largest job in GPUs: the floor a quota search leaves it (below it such a job
// could never be admitted within its own quota).
std::vector<int64_t> largest_jobs(const Scenario& base, const std::vector<std::string>& tenants) {
  std::vector<int64_t> out(tenants.size(), 0);
  const QueueConfig& config = base.tenancy->queues;
  auto binding = bind_tenancy(*base.tenancy, *base.workload);
  if (!binding) return out;  // the scenario loader has refused such a workload already
  JobCursor cursor(*base.workload);
  while (const JobSpec* job = cursor.next()) {
    const int q = binding->queue(*job);
    if (q < 0) continue;
    const std::string& name =
        config.kueue() ? config.cluster_queues[static_cast<size_t>(q)].name : config.kai_queues[static_cast<size_t>(q)].name;
    const auto t = std::find(tenants.begin(), tenants.end(), name);
    if (t != tenants.end()) {
      int64_t& most = out[static_cast<size_t>(t - tenants.begin())];
      most = std::max<int64_t>(most, job->total_gpus());
    }
  }
  return out;
}

// "quota_search": {"step_gpus"?, "max_evaluations"?, "tenants"?}, with the scenario's cluster and
// tenancy: the tenants' GPU quotas as the folder has them, and their floors.
void read_quota_search(JsonErrors& errors, const JsonObject& top, PlanSpec& plan) {
  for (const std::string& key : kSizeOnlyKeys)
    if (top.has(key))
      return top.fail(key, "a quota plan keeps the scenario's cluster (\"cluster\"" +
                               std::string(key == "network" ? ", whose \"network\" this belongs in" : "") + "): it has no " +
                               key);
  if (!top.require("cluster")) return;
  if (!plan.base.tenancy) return top.fail("quota_search", "moves quota between the queues of \"tenancy\": give it");
  const JsonObject o(errors, *top.member("quota_search"), {"step_gpus", "max_evaluations", "tenants"});
  if (!o.is_object()) return;
  QuotaSearch q;
  if (auto step = o.integer("step_gpus", 1, 1'000'000)) q.step_gpus = *step;
  if (auto most = o.integer("max_evaluations", 1, 1000)) q.max_evaluations = static_cast<int>(*most);
  const QueueConfig& config = plan.base.tenancy->queues;
  q.tenants = gpu_quota_tenants(config);
  if (const auto named = o.member("tenants")) {
    if (!named->value->is_array() || named->value->size() < 2)
      return errors.fail(named->pointer, "must list at least two queues whose GPU quota the search moves");
    q.tenants.clear();
    for (size_t i = 0; i < named->value->size(); ++i) {
      const auto name = json_string(errors, named->element(i));
      if (!name) return;
      if (std::find(q.tenants.begin(), q.tenants.end(), *name) != q.tenants.end())
        return errors.fail(named->element(i).pointer, "queue '" + *name + "' is listed twice");
      q.tenants.push_back(*name);
    }
  }
  if (errors.failed()) return;
  if (q.tenants.size() < 2)
    return o.fail("tenants",
                  "a quota search needs two queues with GPU quota, the folder has " + std::to_string(q.tenants.size()));
  for (size_t i = 0; i < q.tenants.size(); ++i) {
    auto quota = gpu_quota(config, q.tenants[i]);
    if (!quota) return o.fail(o.has("tenants") ? "tenants/" + std::to_string(i) : "quota_search", quota.error().message);
    q.start.push_back(*quota);
  }
  q.floor = largest_jobs(plan.base, q.tenants);
  for (size_t i = 0; i < q.floor.size(); ++i) q.floor[i] = std::min(q.floor[i], q.start[i]);
  plan.quota = std::move(q);
}

// A quota plan's one candidate: the scenario's cluster as one unit, each node group a node type.
// It has no price or power: nothing is bought, so plan.json gives 0 and the reports leave them out.
void add_cluster_candidate(PlanSpec& plan) {
  PlanCandidate c;
  for (const NodeGroupSpec& group : plan.base.cluster.groups) {
    PlanNodeType type;
    type.group = group;
    type.name = group.model.name;
    for (int n = 2; type_index(plan, type.name); ++n) type.name = group.model.name + "#" + std::to_string(n);
    c.types.push_back(plan.node_types.size());
    c.parts.push_back(group.count);
    c.nodes_per_unit += group.count;
    c.name += (c.name.empty() ? "" : " + ") + std::to_string(group.count) + " " + type.name;
    plan.node_types.push_back(std::move(type));
  }
  plan.max_nodes = c.nodes_per_unit;
  plan.candidates.push_back(std::move(c));
}

}  // namespace

std::vector<std::string> slo_metric_names() {
  std::vector<std::string> names;
  for (const MetricInfo& info : metric_catalog())
    for (const std::string& full : full_metric_names(info))
      if (info.shape != MetricShape::Final && info.shape != MetricShape::AtLoad && full != "failed" && full != "arrived_load")
        names.push_back(full);
  return names;
}

Expected<PlanSpec> parse_plan(std::string_view text, std::string_view source, const std::string& base_dir) {
  auto document = parse_json_text(text, source);
  if (!document) return document.error();
  JsonErrors errors(source);
  const JsonObject top(errors, JsonAt{&*document, ""}, all_top_keys());
  if (!top.is_object()) return errors.error();
  if (top.has("mode")) {
    top.fail("mode", "a plan replays its workload over time (fill experiments have no queueing to plan for)");
    return errors.error();
  }
  PlanSpec plan;
  plan.source = fs::path(std::string(source)).filename().string();
  plan.fingerprint = fnv1a(document->dump());
  // A size plan builds its clusters: spares are held per node type, beside each size, and no
  // incident trace names their nodes.
  if (const auto failures = top.member("failures"); failures && !top.has("quota_search") && failures->value->is_object()) {
    if (failures->value->contains("spares")) {
      errors.fail(failures->member("spares").pointer,
                  "a plan sizes its clusters: give the spares per node type (node_types[].spares), held beside each size");
      return errors.error();
    }
    if (failures->value->contains("trace")) {
      errors.fail(failures->member("trace").pointer,
                  "a plan sizes its clusters, whose nodes a trace of incidents cannot name: draw failures from the rates "
                  "(a quota plan, on the scenario's cluster, may replay one)");
      return errors.error();
    }
  }
  auto base = read_scenario(scenario_document(*document), source, base_dir, false);
  if (!base) return base.error();
  plan.base = std::move(base).value();
  if (!top.has("seeds")) plan.base.seeds = kPlanSeeds;  // an answer from one draw is one draw
  plan.name = plan.base.name;
  plan.description = plan.base.description;
  if (!plan.base.cluster.trace_nodes.empty()) return Error{std::string(source) + ": a plan sizes modelled node types"};
  if (top.has("quota_search")) {
    read_quota_search(errors, top, plan);
    if (errors.failed()) return errors.error();
    add_cluster_candidate(plan);
    if (const std::string problem = jobs_unrunnable_on(*plan.base.workload, plan.base.cluster.groups); !problem.empty()) {
      top.fail("workload", problem);
      return errors.error();
    }
    read_growth(errors, top, plan);
    read_slos(errors, top, plan);
    if (errors.failed()) return errors.error();
    return plan;
  }
  for (const char* key : {"cluster", "tenancy"})
    if (top.has(key)) {
      top.fail(key, std::string("a size plan builds each cluster from \"node_types\" and cannot scale a queue folder's "
                                "quotas with it; for a given cluster and queues, search a quota split (\"quota_search\")"));
      return errors.error();
    }
  if (auto net = top.member("network")) read_network(errors, *net, plan.base.cluster.network, plan.base.network);
  plan.base.cluster.network.fabric.last_groups_partly = true;  // sizes step by the lowest level's groups
  read_growth(errors, top, plan);
  read_node_types(errors, top, base_dir, plan);
  if (errors.failed()) return errors.error();
  for (size_t t = 0; t < plan.node_types.size(); ++t)
    if (plan.node_types[t].alone) add_candidate(plan, PlanCandidate{"", {t}, {1}, 0, 0, 0, ""});
  read_mixes(errors, top, plan);
  read_mix_grid(errors, top, plan);
  if (!errors.failed() && !plan.candidates.empty() &&
      std::all_of(plan.candidates.begin(), plan.candidates.end(),
                  [&](const PlanCandidate& c) { return !c.cannot_run.empty(); })) {
    top.fail("node_types", "no candidate can run the workload: " + plan.candidates.front().cannot_run);
    return errors.error();
  }
  if (errors.failed()) return errors.error();
  for (const PlanCandidate& c : plan.candidates)
    for (size_t t : c.types)
      if (c.types.size() > 1 && plan.node_types[t].spares > 0) {
        errors.fail("/node_types/" + std::to_string(t) + "/spares",
                    "node type '" + plan.node_types[t].name + "' holds spares and is in the mix '" + c.name +
                        "': spares apply to a node type planned alone (list it twice, once with \"name\" and spares)");
        return errors.error();
      }
  if (plan.candidates.empty()) {
    errors.fail("/node_types", "no candidates: every node type has \"alone\": false and there are no \"mixes\"");
    return errors.error();
  }
  if (plan.candidates.size() > kMaxCandidates) {
    errors.fail("/mix_grid", std::to_string(plan.candidates.size()) + " candidates; at most " + std::to_string(kMaxCandidates));
    return errors.error();
  }
  read_slos(errors, top, plan);
  read_bounds(errors, top, plan);
  if (!errors.failed()) check_bounds(errors, plan);
  if (errors.failed()) return errors.error();
  return plan;
}

Expected<PlanSpec> load_plan(const std::string& path) {
  const InputRecorder inputs;  // the plan file and every file it reads (traces, node files)
  auto text = read_text_file(path);
  Expected<PlanSpec> plan = text ? parse_plan(*text, path, fs::path(path).parent_path().string()) : text.error();
  if (!plan)
    if (std::optional<std::string> other = other_input(path, Wanted::Plan)) return Error{*other};
  if (plan) plan->fingerprint = digest64(hex64(plan->fingerprint) + hex64(inputs.digest()));
  return plan;
}

}  // namespace topsim
