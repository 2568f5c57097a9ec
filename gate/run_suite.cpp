// Running a suite: each scenario as the check runs it (candidates in place of what they replace),
// then the watched values of its results.
#include <algorithm>
#include <chrono>

#include "gate/quality_gate.h"
#include "util/number_format.h"
#include "util/suggest.h"

namespace topsim {

Expected<Scenario> scenario_to_run(const SuiteScenario& entry, const std::vector<Substitution>& substitutions) {
  Scenario scenario = entry.scenario;
  for (const Substitution& s : substitutions) {
    auto at = std::find(scenario.schedulers.begin(), scenario.schedulers.end(), s.scheduler);
    if (at == scenario.schedulers.end()) continue;
    if (std::find(scenario.schedulers.begin(), scenario.schedulers.end(), s.candidate) != scenario.schedulers.end())
      scenario.schedulers.erase(at);  // the scenario runs the candidate already: its results serve both names
    else
      *at = s.candidate;
  }
  return scenario;
}

Expected<std::map<std::string, MeasuredValue>> measure(const SuiteScenario& entry, const ResultSet& results,
                                                       const std::vector<Substitution>& substitutions) {
  std::map<std::string, MeasuredValue> values;
  std::vector<std::string> available;
  for (const SchedulerResult& s : results.schedulers)
    for (const MetricSummary& m : s.metrics) available.push_back(s.name + "/" + m.name);
  for (const WatchedMetric& w : entry.metrics) {
    std::string ran = w.scheduler;
    for (const Substitution& s : substitutions)
      if (s.scheduler == w.scheduler) ran = s.candidate;
    const SchedulerResult* s = results.scheduler(ran);
    const MetricSummary* m = s ? s->metric(w.metric) : nullptr;
    if (!m && s) {  // a metric over jobs none of which finished (or started): judged, not an error
      values[w.name] = {0, 0, static_cast<int>(s->runs.size()), false};
      continue;
    }
    if (!m)
      return Error{entry.key + ": " + unknown_name("metric", ran + "/" + w.metric, available) + " in the results of " +
                   entry.path};
    values[w.name] = {rounded_micro(m->over_seeds.mean), rounded_micro(m->over_seeds.sd), static_cast<int>(s->runs.size())};
  }
  return values;
}

Expected<SuiteValues> run_suite(const Suite& suite, const std::vector<Substitution>& substitutions,
                                const std::function<ExperimentOptions(const SuiteScenario&)>& options_for,
                                const std::function<void(const SuiteScenario&, double wall_s)>& done) {
  SuiteValues values;
  for (const SuiteScenario& entry : suite.scenarios) {
    const auto start = std::chrono::steady_clock::now();
    auto scenario = scenario_to_run(entry, substitutions);
    if (!scenario) return scenario.error();
    auto results = run_experiment(*scenario, options_for(entry));
    if (!results) return results.error();
    auto measured = measure(entry, *results, substitutions);
    if (!measured) return measured.error();
    values[entry.key] = std::move(measured).value();
    if (done) done(entry, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return values;
}

}  // namespace topsim
