// results.json and jobs.jsonl (docs/results-format.md): the ResultSet as JSON, keys in a fixed
// order, numbers rounded to 1e-6, nothing that depends on where or when it ran.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "formats/results/job_line.h"
#include "formats/results/results_json.h"
#include "util/digest.h"
#include "util/number_format.h"

namespace topsim {
namespace {

using Json = nlohmann::ordered_json;

// A value on one line, as nlohmann writes it (invalid UTF-8 replaced).
std::string scalar(const Json& v) { return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// Lines of results.json are at most this wide where values can be filled into them.
constexpr size_t kWidth = 100;

// `v` on one line ("{"a": 1, "b": [2, 3]}"), or nullopt when that is longer than `limit`
// (given up as soon as it is).
std::optional<std::string> one_line(const Json& v, size_t limit) {
  if (!v.is_structured()) {
    std::string text = scalar(v);
    return text.size() <= limit ? std::optional(std::move(text)) : std::nullopt;
  }
  std::string out = v.is_object() ? "{" : "[";
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    out += first ? "" : ", ";
    first = false;
    if (v.is_object()) out += scalar(Json(it.key())) + ": ";
    if (out.size() > limit) return std::nullopt;
    const std::optional<std::string> inner = one_line(*it, limit - out.size());
    if (!inner) return std::nullopt;
    out += *inner;
  }
  out += v.is_object() ? "}" : "]";
  return out.size() <= limit ? std::optional(std::move(out)) : std::nullopt;
}

// `v` indented by two spaces a level, as nlohmann's dump(2), but shorter: an object or array
// that fits on the rest of its line (up to 100 columns) stays on it, and the values of a longer
// array of scalars (the columns: samples, failures, preemptions) are filled into lines of up to
// 100 columns. A column of 21,000 evictions' times then takes some 3,000 lines, not 21,000.
void pretty(const Json& v, std::string& out, size_t depth) {
  const size_t column = out.size() - std::min(out.size(), out.rfind('\n') + 1);
  if (v.empty() || !v.is_structured()) {
    out += scalar(v);
    return;
  }
  if (const auto line = one_line(v, kWidth - std::min(kWidth, column + 1))) {  // + 1: a comma after it
    out += *line;
    return;
  }
  const std::string inner(2 * (depth + 1), ' ');
  if (v.is_object() || std::any_of(v.begin(), v.end(), [](const Json& e) { return e.is_structured(); })) {
    out += v.is_object() ? "{\n" : "[\n";
    for (auto it = v.begin(); it != v.end(); ++it) {
      out += inner + (v.is_object() ? scalar(Json(it.key())) + ": " : "");
      pretty(*it, out, depth + 1);
      out += std::next(it) != v.end() ? ",\n" : "\n";
    }
    out += std::string(2 * depth, ' ') + (v.is_object() ? "}" : "]");
    return;
  }
  out += "[\n" + inner;
  size_t at = inner.size();
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string text = scalar(*it);
    if (it != v.begin() && at + 2 + text.size() + 1 > kWidth) {
      out += ",\n" + inner;
      at = inner.size();
    } else if (it != v.begin()) {
      out += ", ";
      at += 2;
    }
    out += text;
    at += text.size();
  }
  out += "\n" + std::string(2 * depth, ' ') + "]";
}

std::string dump(const Json& root) {
  std::string out;
  pretty(root, out, 0);
  return out;
}

double seconds(int64_t ms) { return rounded_micro(static_cast<double>(ms) / 1000.0); }

// The fabric to draw (sim/fabric_view.h): levels lowest first, each with every group.
Json fabric_view_json(const FabricView& v) {
  Json levels = Json::array();
  for (const FabricLevelView& l : v.levels) {
    Json groups = Json::array();
    for (const FabricGroupView& g : l.groups)
      groups.push_back({{"name", g.name},
                        {"parent", g.parent},
                        {"first_node", g.first_node},
                        {"last_node", g.last_node},
                        {"nodes", g.nodes},
                        {"gpus", g.gpus},
                        {"uplink_gbps", rounded_micro(g.uplink_gbps)}});
    levels.push_back({{"name", l.name},
                      {"label", l.label},
                      {"fanout", l.fanout},
                      {"oversubscription", rounded_micro(l.oversubscription)},
                      {"nvlink", l.nvlink},
                      {"groups", std::move(groups)}});
  }
  return {{"levels", std::move(levels)},
          {"rails", v.rails},
          {"least_node_gbps", rounded_micro(v.least_node_gbps)},
          {"most_node_gbps", rounded_micro(v.most_node_gbps)},
          {"measured_pairs", v.measured_pairs},
          {"least_measured_gbps", rounded_micro(v.least_measured_gbps)},
          {"most_measured_latency_us", rounded_micro(v.most_measured_latency_us)}};
}

Json scenario_json(const ScenarioInfo& s) {
  Json groups = Json::array();
  for (const NodeGroupInfo& g : s.node_groups) {
    Json group = {{"model", g.model}, {"count", g.count}, {"gpus_per_node", g.gpus_per_node}};
    if (!g.label.empty()) group["label"] = g.label;
    groups.push_back(std::move(group));
  }
  Json out = {{"name", s.name},
              {"description", s.description},
              {"mode", s.mode},
              {"seed", s.seed},
              {"seeds", s.seeds},
              {"workload", s.workload},
              {"jobs", s.jobs},
              {"nodes", s.nodes},
              {"gpus", s.gpus},
              {"node_groups", groups},
              {"network", s.network},
              {"share_policy", s.share_scheduler},
              {"workload_coverage", rounded_micro(s.fragmentation_coverage)}};
  if (s.mode == "fill") out["target_load"] = rounded_micro(s.target_load);
  if (!s.fabric_levels.empty()) out["fabric_levels"] = s.fabric_levels;
  if (!s.fabric.empty()) out["fabric"] = s.fabric;
  if (!s.failures.empty()) out["failures"] = s.failures;
  if (!s.model_mix.empty()) out["model_mix"] = s.model_mix;
  for (const SkippedEntries& skipped : s.skipped) out["skipped"].push_back({{"why", skipped.why}, {"names", skipped.names}});
  if (!s.fabric_view.empty()) out["fabric_view"] = fabric_view_json(s.fabric_view);
  if (!s.node_names.empty()) out["node_names"] = s.node_names;
  if (!s.protocol.empty()) out["protocol"] = s.protocol;
  return out;
}

// The catalog entries of the metrics present, by full name.
Json units_json(const ResultSet& results) {
  Json units = Json::object();
  for (const SchedulerResult& s : results.schedulers)
    for (const MetricSummary& m : s.metrics)
      if (const MetricInfo* info = find_metric(m.name); info && !units.contains(m.name))
        units[m.name] = {{"unit", info->unit}, {"better", enum_name(info->better)}};
  return units;
}

Json metrics_json(const Metrics& metrics) {
  Json out = Json::object();
  for (const Metric& m : metrics.all()) out[m.name] = rounded_micro(m.value);
  return out;
}

Json over_seeds_json(const SchedulerResult& s) {
  Json out = Json::object();
  for (const MetricSummary& m : s.metrics)
    out[m.name] = {{"mean", rounded_micro(m.over_seeds.mean)},
                   {"sd", rounded_micro(m.over_seeds.sd)},
                   {"min", rounded_micro(m.over_seeds.min)},
                   {"max", rounded_micro(m.over_seeds.max)}};
  return out;
}

// Rows as columns of equal length: {"<name>": [value of row 0, row 1, ...], ...}.
template <class Row>
struct Column {
  const char* name;
  std::function<Json(const Row&)> value;
};

template <class Row>
Json columns_json(const std::vector<Row>& rows, std::initializer_list<Column<Row>> columns) {
  Json out = Json::object();
  for (const Column<Row>& column : columns) {
    Json values = Json::array();
    for (const Row& row : rows) values.push_back(column.value(row));
    out[column.name] = std::move(values);
  }
  return out;
}

Json samples_json(const std::vector<ClusterSample>& samples) {
  Json out = columns_json<ClusterSample>(
      samples, {{"time_s", [](const ClusterSample& x) { return Json(seconds(x.time_ms)); }},
                {"running_jobs", [](const ClusterSample& x) { return Json(x.running); }},
                {"pending_jobs", [](const ClusterSample& x) { return Json(x.pending); }},
                {"allocated_gpus", [](const ClusterSample& x) { return Json(rounded_micro(x.allocated_gpus)); }},
                {"fragmentation_gpus", [](const ClusterSample& x) { return Json(rounded_micro(x.fragmentation_gpus)); }},
                {"fragmentation_rate", [](const ClusterSample& x) { return Json(rounded_micro(x.fragmentation_rate)); }},
                {"unusable_gpus", [](const ClusterSample& x) { return Json(rounded_micro(x.unusable_gpus)); }},
                {"idle_cards", [](const ClusterSample& x) { return Json(x.idle_cards); }}});
  // GPUs of failed nodes: only when some node was down at a sample (sim/failures.h).
  if (std::any_of(samples.begin(), samples.end(), [](const ClusterSample& x) { return x.gpus_down > 0; })) {
    Json down = Json::array();
    for (const ClusterSample& x : samples) down.push_back(x.gpus_down);
    out["gpus_down"] = std::move(down);
  }
  // Per fabric level (lowest first), and per tenant (in the run's tenant order; each only when the
  // run has it).
  for (auto [name, values] :
       {std::pair{"uplink_utilisation", &ClusterSample::link_utilisation}, std::pair{"tenant_gpus", &ClusterSample::tenant_gpus},
        std::pair{"tenant_fair_share_gpus", &ClusterSample::tenant_fair_share_gpus},
        std::pair{"tenant_usage_share", &ClusterSample::tenant_usage_share}}) {
    if (samples.empty() || (samples.front().*values).empty()) continue;
    Json rows = Json::array();
    for (const ClusterSample& x : samples) {
      Json row = Json::array();
      for (double u : x.*values) row.push_back(rounded_micro(u));
      rows.push_back(std::move(row));
    }
    out[name] = std::move(rows);
  }
  return out;
}

Json load_curve_json(const std::vector<LoadPoint>& curve) {
  return columns_json<LoadPoint>(curve,
                                 {{"load_percent", [](const LoadPoint& p) { return Json(p.load_percent); }},
                                  {"gpu_alloc_ratio", [](const LoadPoint& p) { return Json(rounded_micro(p.gpu_alloc_ratio)); }},
                                  {"fragmentation_gpus", [](const LoadPoint& p) { return Json(rounded_micro(p.frag_gpus)); }},
                                  {"fragmentation_rate", [](const LoadPoint& p) { return Json(rounded_micro(p.frag_rate)); }},
                                  {"unusable_gpus", [](const LoadPoint& p) { return Json(rounded_micro(p.unusable_gpus)); }},
                                  {"idle_cards", [](const LoadPoint& p) { return Json(p.idle_cards); }},
                                  {"failed", [](const LoadPoint& p) { return Json(p.failed); }}});
}

// "tensor-parallel" -> "tensor_parallel_s": a step part's key in llm_step_by_model.
std::string llm_part_key(const char* part) {
  std::string key = part;
  for (char& c : key)
    if (c == '-' || c == ' ') c = '_';
  return key + "_s";
}

Json run_json(const RunResult& run) {
  Json by_model = Json::array();
  for (const ModelThroughput& t : run.by_model)
    by_model.push_back({{"model", t.model},
                        {"framework", t.framework},
                        {"unit", t.unit + "/s"},
                        {"jobs", t.jobs},
                        {"mean_samples_per_sec", rounded_micro(t.mean_samples_per_sec)},
                        {"mean_ideal_samples_per_sec", rounded_micro(t.mean_ideal_samples_per_sec)}});
  Json out = {{"seed", run.seed},
              {"metrics", metrics_json(run.metrics)},
              {"throughput_by_model", by_model},
              {"target_workload_specs", run.target_specs}};
  if (!run.llm_steps.empty()) {
    Json steps = Json::array();
    for (const LlmModelStep& m : run.llm_steps) {
      Json step = {{"model", m.model},
                   {"jobs", m.jobs},
                   {"tokens_per_s_per_gpu", rounded_micro(m.tokens_per_sec_per_gpu)},
                   {"mfu", rounded_micro(m.mfu)},
                   {"step_s", rounded_micro(m.step_s)}};
      for (const auto& [part, seconds] : m.parts()) step[llm_part_key(part)] = rounded_micro(seconds);
      steps.push_back(std::move(step));
    }
    out["llm_step_by_model"] = steps;
  }
  if (run.by_node_type.size() > 1) {  // a cluster of one node type: the run's own totals say it
    Json by_type = Json::array();
    const bool llm =
        std::any_of(run.by_node_type.begin(), run.by_node_type.end(), [](const NodeTypeUsage& u) { return u.llm_jobs > 0; });
    for (const NodeTypeUsage& u : run.by_node_type) {
      Json type = {{"node_type", u.node_type},
                   {"jobs", u.jobs},
                   {"gpu_hours", rounded_micro(u.gpu_hours)},
                   {"mean_samples_per_sec", rounded_micro(u.mean_samples_per_sec)}};
      if (llm) {  // tokens/s apart from samples/s
        type["llm_jobs"] = u.llm_jobs;
        type["mean_tokens_per_sec"] =
            u.llm_jobs > 0 ? Json(rounded_micro(u.mean_tokens_per_sec)) : Json(nullptr);  // no mean of none
      }
      by_type.push_back(std::move(type));
    }
    out["usage_by_node_type"] = by_type;
  }
  if (!run.samples.empty()) {
    out["sample_every_s"] = seconds(run.sample_every_ms);
    out["samples"] = samples_json(run.samples);
  }
  if (!run.load_curve.empty()) out["load_curve"] = load_curve_json(run.load_curve);
  if (!run.failures.empty())  // node failures (sim/failures.h), columns in time order
    out["node_failures"] = columns_json<NodeEvent>(
        run.failures, {{"time_s", [](const NodeEvent& e) { return Json(seconds(e.at_ms)); }},
                       {"node", [](const NodeEvent& e) { return Json(e.node); }},
                       {"cause", [](const NodeEvent& e) { return Json(std::string(enum_name(e.cause))); }},
                       {"down_s", [](const NodeEvent& e) { return Json(seconds(e.down_ms)); }},
                       {"spare", [](const NodeEvent& e) { return e.spare >= 0 ? Json(e.spare) : Json(nullptr); }},
                       {"jobs", [](const NodeEvent& e) {
                          Json hit = Json::array();
                          for (const FailureHit& h : e.hit)
                            hit.push_back({{"id", h.job}, {"then", std::string(enum_name(h.then))}});
                          return hit;
                        }}});
  // Evictions by the queues (sim/tenancy/preemption.h), columns in the order made; tenants by name.
  const std::vector<std::string> tenants = run.preemptions.empty() ? std::vector<std::string>{} : tenant_names(run);
  const auto tenant_json = [&](int16_t t) {
    return t >= 0 && static_cast<size_t>(t) < tenants.size() ? Json(tenants[static_cast<size_t>(t)]) : Json(nullptr);
  };
  if (!run.preemptions.empty())
    out["preemptions"] = columns_json<Preemption>(
        run.preemptions,
        {{"time_s", [](const Preemption& p) { return Json(seconds(p.at_ms)); }},
         {"job", [](const Preemption& p) { return Json(p.victim); }},
         {"by", [](const Preemption& p) { return Json(p.preemptor); }},
         {"reason", [](const Preemption& p) { return Json(std::string(enum_name(p.reason))); }},
         {"tenant", [&](const Preemption& p) { return tenant_json(p.tenant); }},
         {"by_tenant", [&](const Preemption& p) { return tenant_json(p.by_tenant); }},
         {"lost_gpu_s", [](const Preemption& p) { return p.lost_gpu_ms >= 0 ? Json(seconds(p.lost_gpu_ms)) : Json(nullptr); }}});
  out["rejections"] = run.rejections;
  return out;
}

}  // namespace

std::string write_results_json(const ResultSet& results, std::ostream& out, const JobsDigest* jobs) {
  Json root;
  root["schema"] = kResultsSchema;
  root["scenario"] = scenario_json(results.scenario);
  root["metric_units"] = units_json(results);
  Json schedulers = Json::array();
  for (const SchedulerResult& s : results.schedulers) {
    Json runs = Json::array();
    for (const RunResult& run : s.runs) runs.push_back(run_json(run));
    schedulers.push_back(
        {{"name", s.name}, {"share_policy", s.share_scheduler}, {"metrics", over_seeds_json(s)}, {"runs", runs}});
  }
  root["schedulers"] = std::move(schedulers);
  if (jobs) {
    Json digest = nullptr;
    if (jobs->lines > 0) digest = {{"lines", jobs->lines}, {"digest", hex64(jobs->digest)}};
    const uint64_t id = digest64(dump(root) + hex64(jobs->digest) + std::to_string(jobs->lines));
    root["run"] = {{"id", hex64(id)}, {"jobs_jsonl", std::move(digest)}};
  }
  out << dump(root) << "\n";
  return jobs ? root["run"]["id"].get<std::string>() : "";
}

Status stream_jobs_jsonl(const ResultSet& results, std::ostream& out, JobsDigest* digest) {
  constexpr size_t kFlushBytes = 1 << 20;
  std::string lines;
  JobsDigest written;
  Digest64 bytes;
  const auto emit = [&] {
    bytes.add(lines);
    written.lines += static_cast<uint64_t>(std::count(lines.begin(), lines.end(), '\n'));
    out.write(lines.data(), static_cast<std::streamsize>(lines.size()));
    lines.clear();
  };
  for (const SchedulerResult& s : results.schedulers)
    for (const RunResult& run : s.runs) {
      const Status read = for_each_job(run, [&](const JobSpec& job, const JobRecord& record) {
        append_job_line(lines, s.name, run.seed, *run.workload, job, record, run.flavors);
        if (lines.size() >= kFlushBytes) emit();
      });
      if (!read) {
        out.setstate(std::ios::badbit);
        return read;
      }
    }
  emit();
  written.digest = bytes.value();
  if (digest) *digest = written;
  return Status::success();
}

void write_jobs_jsonl(const ResultSet& results, std::ostream& out) { static_cast<void>(stream_jobs_jsonl(results, out)); }

}  // namespace topsim
