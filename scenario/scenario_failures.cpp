// "checkpoints" and "failures": how often jobs save their state and what restarting costs, and
// nodes that fail while jobs run (sim/failures.h, docs/failures.md).
#include <cmath>

#include <nlohmann/json.hpp>

#include "formats/traces/failure_trace.h"
#include "scenario/scenario_sections.h"

namespace topsim {
namespace {

constexpr double kMaxSeconds = 1e9;
constexpr double kMaxRate = 1e3;  // failures per node- or GPU-day: far above any fleet

// {"per_gpu_day"?, "per_node_day"?, "repair_h"?, "repair_sigma"?}
std::optional<CauseOverride> read_cause(JsonErrors& errors, const JsonAt& at) {
  const JsonObject o(errors, at, {"per_gpu_day", "per_node_day", "repair_h", "repair_sigma"});
  if (!o.is_object()) return std::nullopt;
  CauseOverride out;
  if (auto r = o.number("per_gpu_day", 0, kMaxRate)) out.per_gpu_hour = *r / 24;
  if (auto r = o.number("per_node_day", 0, kMaxRate)) out.per_node_hour = *r / 24;
  const auto median = o.number("repair_h", 0, 1e5);
  const auto sigma = o.number("repair_sigma", 0, 5);
  if (errors.failed()) return std::nullopt;
  if (median || sigma) {
    if (!median) return o.fail("repair_sigma", "needs \"repair_h\", the median repair time it spreads"), std::nullopt;
    out.repair = RepairTime{*median, sigma.value_or(0)};
  }
  if (!out.per_gpu_hour && !out.per_node_hour && !out.repair)
    return errors.fail(at.pointer, "give \"per_gpu_day\", \"per_node_day\" or \"repair_h\""), std::nullopt;
  return out;
}

void read_causes(JsonErrors& errors, const JsonObject& failures, FailureSpec& spec) {
  const auto at = failures.member("causes");
  if (!at) return;
  if (!at->value->is_object() || at->value->empty())
    return failures.fail("causes", "must map causes (gpu, hbm, network, host, software) to their rates");
  for (const auto& [name, value] : at->value->items()) {
    const auto cause = parse_enum<FailureCause>(name);
    if (!cause || *cause == FailureCause::Replayed)
      return errors.fail(at->member(name).pointer, "'" + name + "' is not one of gpu, hbm, network, host, software");
    auto o = read_cause(errors, at->member(name));
    if (!o) return;
    spec.overrides[static_cast<size_t>(*cause)] = std::move(o);
  }
}

// The cluster's node names by index: a group's kubectl names, else node-<index>.
std::vector<std::string> node_names(const ClusterSpec& cluster) {
  std::vector<std::string> out;
  for (const NodeGroupSpec& group : cluster.groups)
    for (int i = 0; i < group.count; ++i)
      out.push_back(static_cast<size_t>(i) < group.names.size() ? group.names[static_cast<size_t>(i)]
                                                                : "node-" + std::to_string(out.size()));
  return out;
}

// {"nodes", "per"?}: hot spares per group of a fabric level, or of the whole cluster.
std::optional<SpareSpec> read_spares(JsonErrors& errors, const JsonAt& at, const FabricSpec& fabric) {
  const JsonObject o(errors, at, {"nodes", "per"});
  if (!o.is_object() || !o.require("nodes")) return std::nullopt;
  SpareSpec out;
  if (auto n = o.integer("nodes", 1, 100000)) out.nodes = static_cast<int>(*n);
  if (auto per = o.string("per")) {
    out.per = *per;
    std::string names;
    for (size_t l = 0; l < fabric.levels.size(); ++l) {
      if (fabric.levels[l].name == *per) out.level = static_cast<int>(l);
      names += (names.empty() ? "" : ", ") + fabric.levels[l].name;
    }
    if (out.level < 0)
      return o.fail("per", fabric.levels.empty() ? "'" + *per +
                                                       "': the cluster has no fabric levels (cluster.network.levels); leave "
                                                       "\"per\" out for spares of the whole cluster"
                                                 : "'" + *per + "' is not a level of the cluster's fabric (" + names + ")"),
             std::nullopt;
  }
  if (errors.failed()) return std::nullopt;
  return out;
}

}  // namespace

std::string check_spares(const SpareSpec& spares, const ClusterState& cluster) {
  const int groups = spares.level < 0 ? 1 : cluster.fabric().group_count(spares.level);
  std::vector<int> size(static_cast<size_t>(groups), 0);
  for (int n = 0; n < cluster.node_count(); ++n)
    ++size[static_cast<size_t>(spares.level < 0 ? 0 : cluster.fabric().group(spares.level, n))];
  for (int g = 0; g < groups; ++g)
    if (size[static_cast<size_t>(g)] <= spares.nodes)
      return std::to_string(spares.nodes) + " spare nodes per " + (spares.level < 0 ? "cluster" : spares.per) + ", but " +
             (spares.level < 0 ? "the cluster" : spares.per + " " + std::to_string(g)) + " has " +
             std::to_string(size[static_cast<size_t>(g)]) + " node" + (size[static_cast<size_t>(g)] == 1 ? "" : "s") +
             " (spares leave at least one node to run jobs)";
  return "";
}

void read_checkpoints(JsonErrors& errors, const JsonObject& top, Scenario& s) {
  const auto at = top.member("checkpoints");
  if (!at) return;
  const JsonObject o(errors, *at, {"every_s", "write_s", "restart_s"});
  if (!o.is_object()) return;
  if (const auto tenancy = top.member("tenancy");
      tenancy && tenancy->value->is_object() &&
      (tenancy->value->contains("checkpoint_every_s") || tenancy->value->contains("restart_overhead_s")))
    return top.fail("checkpoints", "and tenancy's checkpoint_every_s / restart_overhead_s say the same: give them once, here");
  if (auto every = o.number("every_s", 0, kMaxSeconds)) s.checkpoint.every_ms = std::llround(*every * 1000);
  if (auto write = o.number("write_s", 0, kMaxSeconds)) s.checkpoint.write_ms = std::llround(*write * 1000);
  if (auto restart = o.number("restart_s", 0, kMaxSeconds)) s.checkpoint.restart_overhead_ms = std::llround(*restart * 1000);
  if (errors.failed()) return;
  if (s.checkpoint.write_ms > 0 && s.checkpoint.every_ms == 0)
    return o.fail("write_s", "a checkpoint's write time needs \"every_s\", how often one is written");
}

void read_failures(JsonErrors& errors, std::optional<Error>& verbatim, const JsonObject& top, const std::string& base_dir,
                   Scenario& s) {
  const auto at = top.member("failures");
  if (!at) return;
  if (s.mode == ExperimentMode::Fill) return top.fail("failures", "does not apply to a fill experiment (no job runs over time)");
  if (!s.cluster.trace_nodes.empty())
    return top.fail("failures", "needs modelled node types (a trace's node list has no GPU models to take rates from)");
  const JsonObject o(errors, *at, {"rates", "scale", "causes", "trace", "spares"});
  if (!o.is_object()) return;
  auto spec = std::make_shared<FailureSpec>();
  if (auto rates = o.string("rates")) {
    if (*rates != "default" && *rates != "none") return o.fail("rates", "'" + *rates + "' is not one of default, none");
    spec->draw = *rates == "default";
  }
  if (auto scale = o.number("scale", 0, 1e6)) spec->scale = *scale;
  read_causes(errors, o, *spec);
  if (errors.failed()) return;
  if (auto trace = o.string("trace")) {
    const std::string path = resolve_path(base_dir, *trace);
    auto rows = load_failure_trace(path, node_names(s.cluster));
    if (!rows) return verbatim.emplace(rows.error()), void();
    spec->trace = std::move(rows).value();
    spec->trace_source = *trace;
  }
  if (auto spares = o.member("spares")) {
    spec->spares = read_spares(errors, *spares, s.cluster.network.fabric);
    if (errors.failed()) return;
  }
  if (!spec->draw && spec->trace.empty()) return o.fail("rates", "\"none\" without a \"trace\": no node would ever fail");
  for (const NodeGroupSpec& group : s.cluster.groups) {
    const GpuModel* gpu = group.model.gpus.empty() ? nullptr : find_gpu_model(group.model.gpus.front().model);
    if (const std::string missing = missing_failure_rates(*spec, gpu, group.model.name); !missing.empty())
      return errors.fail(at->pointer, missing);
  }
  s.failures = std::move(spec);
}

}  // namespace topsim
