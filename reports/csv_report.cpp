// The CSV files of a report (RFC 4180: a header row, CRLF line breaks, fields quoted when they
// hold a comma, a quote or a line break). Column names carry units (`wait_s`, `ring_gbps`).
// Numbers are rounded to 1e-6, as in results.json.
#include <fmt/format.h>
#include <ostream>

#include "core/model_catalog.h"
#include "formats/results/job_line.h"
#include "reports/escape.h"
#include "reports/report_files.h"

namespace topsim {
namespace {

std::string number(double value) { return format_data(value); }

// One row appended to `out`.
void append_row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += "\r\n";
}

void row(std::ostream& out, const std::vector<std::string>& fields) {
  std::string text;
  append_row(text, fields);
  out << text;
}

// Every metric name some series has, in catalog order.
std::vector<std::string> metric_columns(const ReportModel& m) {
  std::vector<std::string> names;
  for (const MetricInfo& info : metric_catalog())
    for (const std::string& name : full_metric_names(info)) {
      const bool present = std::any_of(m.series.begin(), m.series.end(), [&](const Series& s) { return s.result->metric(name); });
      if (present && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  return names;
}

std::string seconds(int64_t ms) { return ms < 0 ? "" : number(static_cast<double>(ms) / 1000.0); }

std::vector<std::string> job_fields(const Series& s, const RunResult& run, const JobSpec& job, const JobRecord& r) {
  const uint32_t id = job.id;
  const DnnModel* model = model_at(job.model);
  const LlmJob* llm = run.workload->llm_of(job);  // an LLM job: its catalog model, trained with Megatron
  const std::string model_name = model ? model->name : llm ? llm->model->name : "";
  const std::string framework = model ? std::string(enum_name(job.framework)) : llm ? "megatron" : "";
  const std::string parallelism = llm ? parallelism_text(llm->config_ran(job.total_gpus(), r.llm.get())) : "";
  std::string nodes;
  for (const PodPlacement& pod : r.pods) nodes += (nodes.empty() ? "" : " ") + std::to_string(pod.node);
  const bool trained = job.is_training() && r.start_ms >= 0;
  return {s.label,
          s.scheduler,
          std::to_string(run.seed),
          std::to_string(id),
          run.workload->job_name(id),
          std::string(enum_name(job.kind)),
          std::string(enum_name(r.state)),
          std::to_string(job.workers),
          std::to_string(job.gpus_per_worker),
          job.is_share() ? std::to_string(job.gpu_mem_gib) : "",
          job.gpu_core_percent ? std::to_string(job.gpu_core_percent) : "",
          job.kind == JobKind::TracePod ? std::to_string(job.gpu_milli) : "",
          model_name,
          framework,
          parallelism,
          r.llm ? std::to_string(r.llm->micro_batch) : "",
          seconds(r.submit_ms),
          seconds(r.start_ms),
          seconds(r.finish_ms),
          r.start_ms >= 0 ? seconds(r.start_ms - r.submit_ms) : "",
          r.finish_ms >= 0 ? seconds(r.finish_ms - r.submit_ms) : "",
          trained ? std::string(enum_name(r.comm.transport)) : "",
          trained ? number(r.comm.bus_bandwidth_gbps) : "",
          trained ? number(r.samples_per_sec) : "",
          trained ? number(r.ideal_samples_per_sec) : "",
          trained ? throughput_unit(job, r) : "",
          trained && r.work_samples > 0 ? number(r.work_samples) : "",
          nodes,
          r.reason};
}

}  // namespace

void write_summary_csv(const ReportModel& m, std::ostream& out) {
  const std::vector<std::string> metrics = metric_columns(m);
  std::vector<std::string> header{"run", "scenario", "mode", "scheduler", "share_policy", "seeds"};
  header.insert(header.end(), metrics.begin(), metrics.end());
  row(out, header);
  for (const Series& s : m.series) {
    const ScenarioInfo& sc = m.runs[s.label_index]->results->scenario;
    std::vector<std::string> fields{
        s.label, sc.name, sc.mode, s.scheduler, s.result->share_scheduler, std::to_string(s.result->runs.size())};
    for (const std::string& name : metrics) {
      const MetricSummary* metric = s.result->metric(name);
      fields.push_back(metric ? number(metric->over_seeds.mean) : "");
    }
    row(out, fields);
  }
}

Status write_jobs_csv(const ReportModel& m, std::ostream& out) {
  row(out, {"run",
            "scheduler",
            "seed",
            "id",
            "name",
            "kind",
            "state",
            "workers",
            "gpus_per_worker",
            "gpu_mem_gib",
            "gpu_core_percent",
            "gpu_milli",
            "model",
            "framework",
            "parallelism",
            "micro_batch",
            "submit_s",
            "start_s",
            "finish_s",
            "wait_s",
            "jct_s",
            "transport",
            "ring_gbps",
            "samples_per_sec",
            "ideal_samples_per_sec",
            "unit",
            "work_samples",
            "nodes",
            "reason"});
  constexpr size_t kFlushBytes = 1 << 20;
  std::string rows;
  for (const Series& s : m.series)
    for (const RunResult& run : s.result->runs) {
      const Status read = for_each_job(run, [&](const JobSpec& job, const JobRecord& r) {
        append_row(rows, job_fields(s, run, job, r));
        if (rows.size() < kFlushBytes) return;
        out << rows;
        rows.clear();
      });
      if (!read) {
        out.setstate(std::ios::badbit);
        return read;
      }
    }
  out << rows;
  return Status::success();
}

void write_timeseries_csv(const ReportModel& m, std::ostream& out) {
  row(out, {"run", "scheduler", "seed", "time_s", "running_jobs", "pending_jobs", "allocated_gpus", "fragmentation_gpus",
            "fragmentation_rate", "unusable_gpus", "idle_cards", "gpus_down"});
  for (const Series& s : m.series)
    for (const RunResult& run : s.result->runs)
      for (const ClusterSample& x : run.samples)
        row(out, {s.label, s.scheduler, std::to_string(run.seed), seconds(x.time_ms), std::to_string(x.running),
                  std::to_string(x.pending), number(x.allocated_gpus), number(x.fragmentation_gpus), number(x.fragmentation_rate),
                  number(x.unusable_gpus), std::to_string(x.idle_cards), std::to_string(x.gpus_down)});
}

void write_tenant_timeseries_csv(const ReportModel& m, std::ostream& out) {
  row(out, {"run", "scheduler", "seed", "time_s", "tenant", "gpus", "fair_share_gpus", "usage_share"});
  // A sample's value for tenant `t`, empty where the run has no such figure.
  auto value = [](const std::vector<double>& values, size_t t) { return t < values.size() ? number(values[t]) : ""; };
  std::string rows;
  for (const Series& s : m.series)
    for (const RunResult& run : s.result->runs) {
      const std::vector<std::string> tenants = tenant_names(run);
      for (const ClusterSample& x : run.samples)
        for (size_t t = 0; t < tenants.size(); ++t)
          append_row(rows, {s.label, s.scheduler, std::to_string(run.seed), seconds(x.time_ms), tenants[t],
                            value(x.tenant_gpus, t), value(x.tenant_fair_share_gpus, t), value(x.tenant_usage_share, t)});
      out << rows;
      rows.clear();
    }
}

void write_uplink_timeseries_csv(const ReportModel& m, std::ostream& out) {
  row(out, {"run", "scheduler", "seed", "time_s", "level", "utilisation"});
  std::string rows;
  for (const Series& s : m.series) {
    const std::vector<std::string>& levels = m.runs[s.label_index]->results->scenario.fabric_levels;
    for (const RunResult& run : s.result->runs) {
      for (const ClusterSample& x : run.samples)
        for (size_t level = 0; level < levels.size() && level < x.link_utilisation.size(); ++level)
          append_row(rows, {s.label, s.scheduler, std::to_string(run.seed), seconds(x.time_ms), levels[level],
                            number(x.link_utilisation[level])});
      out << rows;
      rows.clear();
    }
  }
}

void write_fill_curves_csv(const ReportModel& m, std::ostream& out) {
  row(out, {"run", "scheduler", "seed", "load_percent", "gpu_alloc_ratio", "fragmentation_gpus", "fragmentation_rate",
            "unusable_gpus", "idle_cards", "failed"});
  for (const Series& s : m.series)
    for (const RunResult& run : s.result->runs)
      for (const LoadPoint& p : run.load_curve)
        row(out, {s.label, s.scheduler, std::to_string(run.seed), std::to_string(p.load_percent), number(p.gpu_alloc_ratio),
                  number(p.frag_gpus), number(p.frag_rate), number(p.unusable_gpus), std::to_string(p.idle_cards),
                  std::to_string(p.failed)});
}

}  // namespace topsim
