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
