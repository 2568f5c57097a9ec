#include "sim/results.h"

#include <map>

namespace topsim {

const MetricSummary* SchedulerResult::metric(std::string_view name) const {
  for (const MetricSummary& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

const SchedulerResult* ResultSet::scheduler(std::string_view name) const {
  for (const SchedulerResult& s : schedulers)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> tenant_names(const RunResult& run) {
  std::vector<std::string> names;
  for (const Metric& m : run.metrics.all())
    if (m.name.starts_with("jobs@")) names.push_back(m.name.substr(5));
  return names;
}

bool has_job_records(const RunResult& run) {
  return run.workload && (run.job_store ? run.job_store->size() > 0 : !run.jobs.empty());
}

Status for_each_job(const RunResult& run, const std::function<void(const JobSpec&, const JobRecord&)>& each) {
  if (!run.workload) return Status::success();
  JobCursor cursor(*run.workload);
  const JobSpec* job = cursor.next();
  const auto with_job = [&](uint32_t id, const JobRecord& record) {
    while (job && job->id < id) job = cursor.next();
    if (job && job->id == id) each(*job, record);
  };
  if (run.job_store) return run.job_store->for_each(with_job);
  for (uint32_t id = 0; id < run.jobs.size(); ++id) with_job(id, run.jobs[id]);
  return Status::success();
}

void summarize_over_seeds(SchedulerResult& result) {
  result.metrics.clear();
  if (result.runs.empty()) return;
  for (const Metric& metric : result.runs.front().metrics.all()) {
    std::vector<double> values;
    for (const RunResult& run : result.runs)
      if (auto v = run.metrics.get(metric.name)) values.push_back(*v);
    if (values.size() == result.runs.size()) result.metrics.push_back({metric.name, seed_stats(values)});
  }
}

}  // namespace topsim
