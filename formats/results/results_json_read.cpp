#include "formats/results/results_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/hardware.h"
#include "core/throughput.h"
#include "formats/hardware/node_source.h"
#include "formats/results/jobs_jsonl_read.h"
#include "formats/results/read_numbers.h"
#include "formats/results/set_record.h"
#include "formats/support/json_reader.h"
#include "util/digest.h"
#include "util/input_file.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace results_read;

// Typed access with errors naming the file and the pointer; the first error wins.
class Reader {
 public:
  explicit Reader(std::string source) : errors_(source) {}

  const Json& at(const Json& object, const std::string& key, const std::string& pointer) {
    static const Json kNull;
    if (!object.is_object() || !object.contains(key)) {
      errors_.fail(pointer + "/" + key, "missing");
      return kNull;
    }
    return object.at(key);
  }
  // A number (0 when null, as a NaN is written) within [lo, hi]: a value an integer field takes,
  // or seconds turned to milliseconds, must fit the field.
  double number(const Json& object, const std::string& key, const std::string& pointer, double lo = -kAnyNumber,
                double hi = kAnyNumber) {
    return checked(at(object, key, pointer), pointer + "/" + key, lo, hi);
  }
  double checked(const Json& v, const std::string& pointer, double lo, double hi) {
    if (v.is_null()) return 0;
    if (const auto value = number_within(v, lo, hi)) return *value;
    errors_.fail(pointer, "must be " + (v.is_number() ? range_text(lo, hi) : "a number") + ", got " + describe_json(v));
    return 0;
  }
  // A seed: a whole number written as one (64 bits, beyond a double's 53).
  uint64_t seed(const Json& object, const std::string& key, const std::string& pointer) {
    const Json& v = at(object, key, pointer);
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (!v.is_null()) errors_.fail(pointer + "/" + key, "must be a whole number 0 or more, got " + describe_json(v));
    return 0;
  }
  std::string text(const Json& object, const std::string& key, const std::string& pointer) {
    const Json& v = at(object, key, pointer);
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_null()) errors_.fail(pointer + "/" + key, "must be a string, got " + describe_json(v));
    return "";
  }
  const Json& array(const Json& object, const std::string& key, const std::string& pointer) {
    const Json& v = at(object, key, pointer);
    if (!v.is_null() && !v.is_array()) errors_.fail(pointer + "/" + key, "must be an array, got " + describe_json(v));
    return v;
  }
  JsonErrors& errors() { return errors_; }

 private:
  JsonErrors errors_;
};

FabricView read_fabric_view(Reader& r, const Json& v, const std::string& p) {
  FabricView view;
  view.rails = static_cast<int>(r.number(v, "rails", p, 0, kInt));
  view.least_node_gbps = r.number(v, "least_node_gbps", p);
  view.most_node_gbps = r.number(v, "most_node_gbps", p);
  view.measured_pairs = static_cast<int>(r.number(v, "measured_pairs", p, 0, kInt));
  view.least_measured_gbps = r.number(v, "least_measured_gbps", p);
  view.most_measured_latency_us = r.number(v, "most_measured_latency_us", p);
  const Json& levels = r.array(v, "levels", p);
  for (size_t i = 0; levels.is_array() && i < levels.size(); ++i) {
    const std::string lp = p + "/levels/" + std::to_string(i);
    const Json& l = levels[i];
    FabricLevelView level{r.text(l, "name", lp),
                          r.text(l, "label", lp),
                          static_cast<int>(r.number(l, "fanout", lp, 0, kInt)),
                          r.number(l, "oversubscription", lp),
                          r.at(l, "nvlink", lp).is_boolean() && r.at(l, "nvlink", lp).get<bool>(),
                          {}};
    const Json& groups = r.array(l, "groups", lp);
    for (size_t j = 0; groups.is_array() && j < groups.size(); ++j) {
      const std::string gp = lp + "/groups/" + std::to_string(j);
      const Json& g = groups[j];
      auto whole = [&](const char* key, double lo) { return static_cast<int>(r.number(g, key, gp, lo, kInt)); };
      level.groups.push_back({r.text(g, "name", gp), whole("parent", -1), whole("first_node", 0), whole("last_node", 0),
                              whole("nodes", 0), whole("gpus", 0), r.number(g, "uplink_gbps", gp)});
    }
    view.levels.push_back(std::move(level));
  }
  return view;
}

ScenarioInfo read_scenario(Reader& r, const Json& s) {
  ScenarioInfo info;
  const std::string p = "/scenario";
  info.name = r.text(s, "name", p);
  info.description = r.text(s, "description", p);
  info.mode = r.text(s, "mode", p);
  info.seed = r.seed(s, "seed", p);
  info.seeds = static_cast<int>(r.number(s, "seeds", p, 0, kInt));
  info.workload = r.text(s, "workload", p);
  info.jobs = static_cast<size_t>(r.number(s, "jobs", p, 0, kExact));
  info.nodes = static_cast<int>(r.number(s, "nodes", p, 0, kInt));
  info.gpus = static_cast<int>(r.number(s, "gpus", p, 0, kInt));
  info.network = r.text(s, "network", p);
  info.share_scheduler = r.text(s, "share_policy", p);
  info.fragmentation_coverage = r.number(s, "workload_coverage", p);
  if (s.contains("target_load")) info.target_load = r.number(s, "target_load", p);
  if (s.contains("protocol")) info.protocol = r.text(s, "protocol", p);
  if (s.contains("fabric")) info.fabric = r.text(s, "fabric", p);
  if (s.contains("failures")) info.failures = r.text(s, "failures", p);
  if (s.contains("model_mix")) info.model_mix = r.text(s, "model_mix", p);
  if (s.contains("fabric_view")) info.fabric_view = read_fabric_view(r, s.at("fabric_view"), p + "/fabric_view");
  if (s.contains("node_names")) {
    const Json& names = r.array(s, "node_names", p);
    for (size_t i = 0; names.is_array() && i < names.size(); ++i)
      info.node_names.push_back(names[i].is_string() ? names[i].get<std::string>() : "?");
  }
  if (s.contains("skipped")) {
    const Json& skipped = r.array(s, "skipped", p);
    for (size_t i = 0; skipped.is_array() && i < skipped.size(); ++i) {
      const std::string sp = p + "/skipped/" + std::to_string(i);
      SkippedEntries entries{r.text(skipped[i], "why", sp), {}};
      const Json& names = r.array(skipped[i], "names", sp);
      for (size_t n = 0; names.is_array() && n < names.size(); ++n) {
        if (names[n].is_string())
          entries.names.push_back(names[n].get<std::string>());
        else
          r.errors().fail(sp + "/names/" + std::to_string(n), "must be a string, got " + describe_json(names[n]));
      }
      info.skipped.push_back(std::move(entries));
    }
  }
  if (s.contains("fabric_levels")) {
    const Json& levels = r.array(s, "fabric_levels", p);
    for (size_t i = 0; levels.is_array() && i < levels.size(); ++i)
      info.fabric_levels.push_back(levels[i].is_string() ? levels[i].get<std::string>() : "?");
  }
  const Json& groups = r.array(s, "node_groups", p);
  for (size_t i = 0; groups.is_array() && i < groups.size(); ++i) {
    const std::string gp = p + "/node_groups/" + std::to_string(i);
    const Json& g = groups[i];
    info.node_groups.push_back({r.text(g, "model", gp), static_cast<int>(r.number(g, "count", gp, 0, kInt)),
                                static_cast<int>(r.number(g, "gpus_per_node", gp, 0, kInt)),
                                g.contains("label") ? r.text(g, "label", gp) : ""});
  }
  return info;
}

Metrics read_metrics(Reader& r, const Json& object, const std::string& pointer) {
  Metrics metrics;
  if (!object.is_object()) return r.errors().fail(pointer, "must be an object"), metrics;
  for (const auto& [name, value] : object.items()) {
    if (!find_metric(name))
      r.errors().fail(pointer + "/" + name, "is not a metric of topsim.results/1");
    else if (!value.is_number())
      r.errors().fail(pointer + "/" + name, "must be a number");
    else
      metrics.set(name, value.get<double>());
  }
  return metrics;
}

// Column `name` of columns {"name": [...]}, or nullptr when it is absent or no array.
const Json* array_column(const Json& columns, const char* name) {
  return columns.is_object() && columns.contains(name) && columns[name].is_array() ? &columns[name] : nullptr;
}

// Row `i` of column `name`, or nullptr when the column or the row is missing.
const Json* cell(const Json& columns, const char* name, size_t i) {
  const Json* c = array_column(columns, name);
  return c && i < c->size() ? &(*c)[i] : nullptr;
}

// Columns {"name": [...]} at `pointer` -> values of column `name` (empty when absent), each a
// number in [lo, hi] (null: 0).
std::vector<double> column(Reader& r, const Json& columns, const char* name, const std::string& pointer, double lo = -kAnyNumber,
                           double hi = kAnyNumber) {
  std::vector<double> values;
  if (const Json* c = array_column(columns, name))
    for (size_t i = 0; i < c->size(); ++i)
      values.push_back(r.checked((*c)[i], pointer + "/" + name + "/" + std::to_string(i), lo, hi));
  return values;
}

std::vector<ClusterSample> read_samples(Reader& r, const Json& columns, const std::string& p) {
  const std::vector<double> time = column(r, columns, "time_s", p, 0, kSeconds),
                            running = column(r, columns, "running_jobs", p, 0, kExact),
                            pending = column(r, columns, "pending_jobs", p, 0, kExact),
                            allocated = column(r, columns, "allocated_gpus", p),
                            frag = column(r, columns, "fragmentation_gpus", p),
                            rate = column(r, columns, "fragmentation_rate", p), unusable = column(r, columns, "unusable_gpus", p),
                            idle = column(r, columns, "idle_cards", p, 0, kInt),
                            down = column(r, columns, "gpus_down", p, 0, kInt);
  std::vector<ClusterSample> samples(time.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    auto at = [&](const std::vector<double>& c) { return i < c.size() ? c[i] : 0.0; };
    samples[i] = {std::llround(time[i] * 1000),
                  static_cast<int64_t>(at(running)),
                  static_cast<int64_t>(at(pending)),
                  at(allocated),
                  at(frag),
                  at(rate),
                  at(unusable),
                  static_cast<int>(at(idle)),
                  static_cast<int>(at(down)),
                  {},
                  {},
                  {},
                  {}};
    for (auto [name, into] :
         {std::pair{"uplink_utilisation", &samples[i].link_utilisation}, std::pair{"tenant_gpus", &samples[i].tenant_gpus},
          std::pair{"tenant_fair_share_gpus", &samples[i].tenant_fair_share_gpus},
          std::pair{"tenant_usage_share", &samples[i].tenant_usage_share}})
      if (const Json* row = cell(columns, name, i); row && row->is_array())
        for (const Json& u : *row) into->push_back(u.is_number() ? u.get<double>() : 0);
  }
  return samples;
}

std::vector<NodeEvent> read_failures(Reader& r, const Json& columns, const std::string& p) {
  const std::vector<double> time = column(r, columns, "time_s", p, 0, kSeconds), node = column(r, columns, "node", p, 0, kInt),
                            down = column(r, columns, "down_s", p, 0, kSeconds);
  std::vector<NodeEvent> out(time.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].at_ms = std::llround(time[i] * 1000);
    out[i].node = static_cast<int>(i < node.size() ? node[i] : 0);
    out[i].down_ms = std::llround((i < down.size() ? down[i] : 0) * 1000);
    if (const Json* spare = cell(columns, "spare", i); spare && spare->is_number_integer()) out[i].spare = spare->get<int>();
    if (const Json* cause = cell(columns, "cause", i); cause && cause->is_string())
      out[i].cause = parse_enum<FailureCause>(cause->get<std::string>()).value_or(FailureCause::Replayed);
    if (const Json* jobs = cell(columns, "jobs", i); jobs && jobs->is_array())
      for (const Json& h : *jobs) {
        if (!h.is_object() || !h.contains("id") || !h["id"].is_number_unsigned() || h["id"].get<uint64_t>() > UINT32_MAX ||
            !h.contains("then") || !h["then"].is_string())
          continue;
        if (const auto then = parse_enum<FailureOutcome>(h["then"].get<std::string>()))
          out[i].hit.push_back({static_cast<uint32_t>(h["id"].get<uint64_t>()), *then});
      }
  }
  return out;
}

// Evictions by the queues: a row whose job or preemptor is not a job id, or whose reason is not
// one topsim writes, is skipped (as a malformed failure's jobs are); `tenants` are the run's.
std::vector<Preemption> read_preemptions(Reader& r, const Json& columns, const std::string& p,
                                         const std::vector<std::string>& tenants) {
  const std::vector<double> time = column(r, columns, "time_s", p, 0, kSeconds);
  std::vector<Preemption> out;
  out.reserve(time.size());
  auto id = [](const Json* cell) -> std::optional<uint32_t> {
    if (!cell || !cell->is_number_unsigned() || cell->get<uint64_t>() > UINT32_MAX) return std::nullopt;
    return static_cast<uint32_t>(cell->get<uint64_t>());
  };
  for (size_t i = 0; i < time.size(); ++i) {
    const std::optional<uint32_t> victim = id(cell(columns, "job", i)), by = id(cell(columns, "by", i));
    const Json* reason = cell(columns, "reason", i);
    const std::optional<PreemptionReason> why =
        reason && reason->is_string() ? parse_enum<PreemptionReason>(reason->get<std::string>()) : std::nullopt;
    if (!victim || !by || !why) continue;
    Preemption& row = out.emplace_back(Preemption{std::llround(time[i] * 1000), *victim, *by, *why});
    // The tenants by name, indexes into the run's (`tenants`); -1: none, or one it does not have.
    auto tenant = [&](const char* name) -> int16_t {
      const Json* value = cell(columns, name, i);
      if (!value || !value->is_string()) return -1;
      const auto it = std::find(tenants.begin(), tenants.end(), value->get<std::string>());
      return it == tenants.end() ? int16_t{-1} : static_cast<int16_t>(it - tenants.begin());
    };
    row.tenant = tenant("tenant");
    row.by_tenant = tenant("by_tenant");
    // The GPU time it cost; a file without the column (or a malformed cell, or one beyond 9e12 s,
    // whose milliseconds would not fit in 64 bits) does not say: -1.
    const Json* lost = cell(columns, "lost_gpu_s", i);
    row.lost_gpu_ms = lost && lost->is_number() && lost->get<double>() >= 0 && lost->get<double>() < 9e12
                          ? std::llround(lost->get<double>() * 1000)
                          : -1;
  }
  return out;
}

std::vector<LoadPoint> read_load_curve(Reader& r, const Json& columns, const std::string& p) {
  const std::vector<double> load = column(r, columns, "load_percent", p, 0, kInt),
                            alloc = column(r, columns, "gpu_alloc_ratio", p), frag = column(r, columns, "fragmentation_gpus", p),
                            rate = column(r, columns, "fragmentation_rate", p), unusable = column(r, columns, "unusable_gpus", p),
                            idle = column(r, columns, "idle_cards", p, 0, kInt),
                            failed = column(r, columns, "failed", p, 0, kExact);
  std::vector<LoadPoint> curve(load.size());
  for (size_t i = 0; i < curve.size(); ++i) {
    auto at = [&](const std::vector<double>& c) { return i < c.size() ? c[i] : 0.0; };
    curve[i] = {static_cast<int>(load[i]),       at(alloc), at(frag), at(rate), at(unusable), static_cast<int>(at(idle)),
                static_cast<int64_t>(at(failed))};
  }
  return curve;
}

RunResult read_run(Reader& r, const Json& run, const std::string& p) {
  RunResult result;
  result.seed = r.seed(run, "seed", p);
  result.metrics = read_metrics(r, r.at(run, "metrics", p), p + "/metrics");
  result.target_specs = static_cast<size_t>(r.number(run, "target_workload_specs", p, 0, kExact));
  const Json& models = r.array(run, "throughput_by_model", p);
  for (size_t i = 0; models.is_array() && i < models.size(); ++i) {
    const std::string mp = p + "/throughput_by_model/" + std::to_string(i);
    std::string unit = r.text(models[i], "unit", mp);
    if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s") unit.resize(unit.size() - 2);
    result.by_model.push_back({r.text(models[i], "model", mp), r.text(models[i], "framework", mp), unit,
                               static_cast<uint64_t>(r.number(models[i], "jobs", mp, 0, kExact)),
                               r.number(models[i], "mean_samples_per_sec", mp),
                               r.number(models[i], "mean_ideal_samples_per_sec", mp)});
  }
  if (run.contains("llm_step_by_model")) {
    const Json& steps = r.array(run, "llm_step_by_model", p);
    for (size_t i = 0; steps.is_array() && i < steps.size(); ++i) {
      const std::string sp = p + "/llm_step_by_model/" + std::to_string(i);
      const Json& j = steps[i];
      LlmModelStep m;
      m.model = r.text(j, "model", sp);
      m.jobs = static_cast<uint64_t>(r.number(j, "jobs", sp, 0, kExact));
      m.tokens_per_sec_per_gpu = r.number(j, "tokens_per_s_per_gpu", sp);
      m.mfu = r.number(j, "mfu", sp);
      m.step_s = r.number(j, "step_s", sp);
      double* parts[] = {&m.compute_s, &m.tp_s, &m.ep_s, &m.cp_s, &m.pp_bubble_s, &m.pp_p2p_s, &m.dp_exposed_s, &m.optimizer_s};
      const std::string keys[] = {"compute_s",         "tensor_parallel_s", "expert_all_to_all_s",     "context_exchange_s",
                                  "pipeline_bubble_s", "pipeline_sends_s",  "data_parallel_exposed_s", "optimizer_s"};
      for (size_t k = 0; k < std::size(keys); ++k) *parts[k] = r.number(j, keys[k].c_str(), sp);
      // Result sets written before activation offloading was modelled lack its part: none exposed.
      if (j.contains("host_offload_exposed_s")) m.offload_s = r.number(j, "host_offload_exposed_s", sp);
      result.llm_steps.push_back(std::move(m));
    }
  }
  if (run.contains("usage_by_node_type")) {
    const Json& types = r.array(run, "usage_by_node_type", p);
    for (size_t i = 0; types.is_array() && i < types.size(); ++i) {
      const std::string tp = p + "/usage_by_node_type/" + std::to_string(i);
      NodeTypeUsage u;
      u.node_type = r.text(types[i], "node_type", tp);
      u.jobs = static_cast<uint64_t>(r.number(types[i], "jobs", tp, 0, kExact));
      u.gpu_hours = r.number(types[i], "gpu_hours", tp);
      u.mean_samples_per_sec = r.number(types[i], "mean_samples_per_sec", tp);
      if (types[i].is_object() && types[i].contains("llm_jobs")) {  // written when LLM jobs ran on the cluster
        u.llm_jobs = static_cast<uint64_t>(r.number(types[i], "llm_jobs", tp, 0, kExact));
        u.mean_tokens_per_sec = r.number(types[i], "mean_tokens_per_sec", tp);
      }
      result.by_node_type.push_back(std::move(u));
    }
  }
  if (run.contains("samples")) {
    result.sample_every_ms = std::llround(r.number(run, "sample_every_s", p, 0, kSeconds) * 1000);
    result.samples = read_samples(r, run["samples"], p + "/samples");
  }
  if (run.contains("load_curve")) result.load_curve = read_load_curve(r, run["load_curve"], p + "/load_curve");
  if (run.contains("node_failures")) result.failures = read_failures(r, run["node_failures"], p + "/node_failures");
  if (run.contains("preemptions"))
    result.preemptions = read_preemptions(r, run["preemptions"], p + "/preemptions", tenant_names(result));
  if (run.contains("rejections") && run["rejections"].is_array())
    for (const Json& reason : run["rejections"])
      if (reason.is_string()) result.rejections.push_back(reason.get<std::string>());
  return result;
}

void read_schedulers(Reader& r, const Json& root, ResultSet& results) {
  const Json& schedulers = r.array(root, "schedulers", "");
  for (size_t i = 0; schedulers.is_array() && i < schedulers.size(); ++i) {
    const std::string p = "/schedulers/" + std::to_string(i);
    SchedulerResult s;
    s.name = r.text(schedulers[i], "name", p);
    s.share_scheduler = r.text(schedulers[i], "share_policy", p);
    const Json& runs = r.array(schedulers[i], "runs", p);
    for (size_t k = 0; runs.is_array() && k < runs.size(); ++k)
      s.runs.push_back(read_run(r, runs[k], p + "/runs/" + std::to_string(k)));
    summarize_over_seeds(s);
    results.schedulers.push_back(std::move(s));
  }
}

// What results.json says of jobs.jsonl: nothing (written before runs had an identity), or its
// run's id and the digest of the jobs.jsonl written with it (none: no jobs.jsonl, or empty).
struct RunIdentity {
  bool stamped = false;
  std::string id;
  std::optional<JobsDigest> jobs;
};

Expected<RunIdentity> read_run_identity(const Json& root, const std::string& path) {
  RunIdentity identity;
  if (!root.contains("run")) return identity;
  const Json& run = root["run"];
  const auto hex = [](const Json& v) { return v.is_string() && v.get<std::string>().size() == 16; };
  if (!run.is_object() || !hex(run.value("id", Json())) || !run.contains("jobs_jsonl"))
    return Error{path + ": /run: not a run identity ({\"id\", \"jobs_jsonl\"})"};
  identity.stamped = true;
  identity.id = run["id"].get<std::string>();
  const Json& jobs = run["jobs_jsonl"];
  if (jobs.is_null()) return identity;
  if (!jobs.is_object() || !jobs.value("lines", Json()).is_number_unsigned() || !hex(jobs.value("digest", Json())))
    return Error{path + ": /run/jobs_jsonl: expected {\"lines\", \"digest\"} or null"};
  const std::string digest = jobs["digest"].get<std::string>();
  if (digest.find_first_not_of("0123456789abcdef") != std::string::npos)
    return Error{path + ": /run/jobs_jsonl/digest: expected 16 hexadecimal digits"};
  identity.jobs = JobsDigest{jobs["lines"].get<uint64_t>(), std::stoull(digest, nullptr, 16)};
  return identity;
}

// jobs.jsonl against the identity of results.json: "" when they belong together.
std::string jobs_mismatch(const RunIdentity& identity, bool present, const JobsDigest& read) {
  if (!identity.stamped) return "";
  const bool expected = identity.jobs.has_value();
  if (!present && expected) return "missing, but results.json (run " + identity.id + ") was written with it";
  if (present && !expected && read.lines > 0) return "results.json (run " + identity.id + ") was written without it";
  const std::string other = "not the one written with results.json (run " + identity.id + "): ";
  if (expected && read.lines != identity.jobs->lines)
    return other + std::to_string(read.lines) + " lines, " + std::to_string(identity.jobs->lines) + " expected";
  if (expected && read.digest != identity.jobs->digest) return other + "its bytes differ";
  return "";
}

// jobs.jsonl against the identity of results.json, when it carries one: the digest read (by
// name, for the set's record), or the mismatch.
Expected<std::map<std::string, FileDigest>> check_jobs_file(const std::string& dir, const RunIdentity& identity) {
  const std::string path = (fs::path(dir) / "jobs.jsonl").string();
  std::error_code ec;
  const bool present = fs::exists(fs::symlink_status(path, ec));
  std::map<std::string, FileDigest> read;
  JobsDigest digest;
  if (present && identity.stamped) {
    auto file = digest_file(path);
    if (!file) return file.error();
    read["jobs.jsonl"] = *file;
    digest = {file->lines, file->digest};
  }
  if (const std::string mismatch = jobs_mismatch(identity, present, digest); !mismatch.empty())
    return Error{path + ": " + mismatch};
  return read;
}

// The run a results.json names: its stamped id, or for one written before runs had an
// identity, the digest of its bytes.
std::string run_id_of(const RunIdentity& identity, const std::string& text) {
  return identity.stamped ? identity.id : hex64(digest64(text));
}

// When `dir` holds a set's record (formats/results/set_record.h): every file it names is intact
// (the digests in `known` already read), and results.json is of the run it names.
Status verify_record(const std::string& dir, const RunIdentity& identity, const std::string& text,
                     const std::map<std::string, FileDigest>& known) {
  auto record = load_set_record(dir);
  if (!record) return record.error();
  if (!*record) return Status::success();
  const std::string run = run_id_of(identity, text);
  if ((*record)->run != run)
    return Error{(fs::path(dir) / "results.json").string() + ": run " + run + ", but the set in its folder is of run " +
                 (*record)->run + " (" + std::string(kSetRecordName) + ")"};
  auto verified = verify_set(dir, **record, known);
  if (!verified) return verified.error();
  return Status::success();
}

}  // namespace

Expected<ResultSet> load_results(const std::string& dir, std::string* run_id) {
  const std::string path = (fs::path(dir) / "results.json").string();
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto root = parse_json_text(*text, path);
  if (!root) return root.error();
  Reader r(path);
  if (!root->is_object() || !root->contains("schema") || (*root)["schema"] != std::string(kResultsSchema))
    return Error{path + ": /schema: not a topsim results file (expected \"" + std::string(kResultsSchema) + "\")"};
  auto identity = read_run_identity(*root, path);
  if (!identity) return identity.error();
  auto jobs_read = check_jobs_file(dir, *identity);
  if (!jobs_read) return jobs_read.error();
  if (Status whole = verify_record(dir, *identity, *text, *jobs_read); !whole) return whole.error();
  if (run_id) *run_id = run_id_of(*identity, *text);
  ResultSet results;
  results.scenario = read_scenario(r, r.at(*root, "scenario", ""));
  read_schedulers(r, *root, results);
  if (r.errors().failed()) return r.errors().error();
  if (Status jobs = read_jobs_jsonl(dir, results); !jobs) return jobs.error();
  return results;
}

}  // namespace topsim
