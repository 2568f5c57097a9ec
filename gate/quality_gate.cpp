#include "gate/quality_gate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "formats/hardware/node_source.h"
#include "formats/support/json_reader.h"
#include "scenario/other_inputs.h"
#include "scenario/scenario_loader.h"
#include "scenario/scenario_sections.h"
#include "sim/run_summary.h"
#include "util/input_file.h"
#include "util/number_format.h"
#include "util/suggest.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;

// "1%", "5s", "0.5", "2 GPUs" -> a tolerance; the unit, when given, must be the metric's.
std::optional<Tolerance> parse_tolerance(const std::string& text, std::string_view unit, std::string& why) {
  size_t end = 0;
  double amount = 0;
  try {
    amount = std::stod(text, &end);
  } catch (const std::exception&) {
    why = "'" + text + "' is not a number with an optional unit (\"1%\", \"5" + std::string(unit) + "\")";
    return std::nullopt;
  }
  std::string suffix = text.substr(end);
  suffix.erase(0, suffix.find_first_not_of(' '));
  if (!std::isfinite(amount) || amount < 0) {
    why = "'" + text + "' must be a finite amount >= 0";
    return std::nullopt;
  }
  if (!suffix.empty() && suffix != "%" && suffix != unit) {
    why = "'" + text + "': the unit must be % or the metric's unit (" + std::string(unit) + ")";
    return std::nullopt;
  }
  return Tolerance{amount, suffix == "%", text};
}

// Every "<scheduler>/<metric>" a watched name could be, for did-you-mean.
std::vector<std::string> candidate_names(const Scenario& scenario) {
  std::vector<std::string> names;
  for (const std::string& scheduler : scenario.schedulers)
    for (const MetricInfo& info : metric_catalog())
      for (const std::string& metric : full_metric_names(info)) names.push_back(scheduler + "/" + metric);
  return names;
}

// What an entry's watched metrics are checked against, read from its scenario at the first
// metric that needs each: its run kinds, and its tenants.
struct EntryFacts {
  std::optional<RunKinds> kinds;
  std::optional<Expected<std::vector<std::string>>> tenants;
};

void read_watched(JsonErrors& errors, const JsonAt& at, const std::string& name, SuiteScenario& entry, EntryFacts& facts) {
  const size_t slash = name.find('/');
  WatchedMetric w{name,
                  name.substr(0, slash == std::string::npos ? 0 : slash),
                  slash == std::string::npos ? name : name.substr(slash + 1),
                  Better::Lower,
                  {}};
  const MetricInfo* info = find_metric(w.metric);
  const auto& schedulers = entry.scenario.schedulers;
  if (slash == std::string::npos || !info || std::find(schedulers.begin(), schedulers.end(), w.scheduler) == schedulers.end())
    return errors.fail(at.pointer, unknown_name("metric", name, candidate_names(entry.scenario)) +
                                       "; names are <scheduler>/<metric>, `topsim check --list-metrics` lists them");
  std::optional<RunKinds>& kinds = facts.kinds;
  if (info->needs != MetricNeeds::Nothing && !kinds) kinds = run_kinds(entry.scenario);
  if (const std::string why = kinds ? never_measured(*info, *kinds) : ""; !why.empty())
    return errors.fail(at.pointer, "no run of this scenario measures '" + w.metric + "': " + why);
  if (const size_t tenant_at = w.metric.find('@'); tenant_at != std::string::npos) {
    if (!facts.tenants) facts.tenants = scenario_tenants(entry.scenario);
    if (!*facts.tenants) return errors.fail(at.pointer, facts.tenants->error().message);
    const std::vector<std::string>& tenants = facts.tenants->value();
    const std::string tenant = w.metric.substr(tenant_at + 1);
    if (std::find(tenants.begin(), tenants.end(), tenant) == tenants.end())
      return errors.fail(at.pointer, unknown_name("tenant", tenant, tenants) + (entry.scenario.tenancy
                                                                                    ? " (the queues of the scenario's tenancy)"
                                                                                    : " (the queues the scenario's jobs name)"));
  }
  JsonObject o(errors, at, {"better", "tolerance"});
  if (!o.is_object()) return;
  w.better = info->better;
  if (auto better = o.string("better")) {
    if (*better == "higher" || *better == "lower")
      w.better = *better == "higher" ? Better::Higher : Better::Lower;
    else
      return o.fail("better", "'" + *better + "' is not one of higher, lower");
  } else if (w.better == Better::Neither) {
    return o.fail("better", "missing: " + w.metric + " has no better direction of its own (higher or lower)");
  }
  if (auto tolerance = o.member("tolerance")) {
    std::string why;
    const std::string text = tolerance->value->is_number()   ? tolerance->value->dump()
                             : tolerance->value->is_string() ? tolerance->value->get<std::string>()
                                                             : "";
    auto parsed = parse_tolerance(text, info->unit, why);
    if (!parsed)
      return errors.fail(tolerance->pointer, text.empty() ? "must be a string like \"1%\" or \"5s\", or a number" : why);
    w.tolerance = *parsed;
  } else {
    w.tolerance = Tolerance{0, false, "0"};
  }
  entry.metrics.push_back(w);
}

void read_entry(JsonErrors& errors, std::optional<Error>& verbatim, const JsonAt& at, const fs::path& dir, Suite& suite) {
  JsonObject o(errors, at, {"scenario", "name", "seeds", "metrics"});
  if (!o.is_object() || !o.require("scenario") || !o.require("metrics")) return;
  SuiteScenario entry;
  entry.path = resolve_path(dir.string(), o.string("scenario").value_or(""));
  // A scenario that cannot be opened is the suite's mistake; one that does not load names itself.
  if (Status s = check_input_file(entry.path); !s) return o.fail("scenario", s.error().message);
  const InputRecorder inputs;
  auto scenario = load_scenario(entry.path);
  if (!scenario) return verbatim.emplace(scenario.error()), void();
  entry.inputs = inputs.digest();
  entry.scenario = std::move(scenario).value();
  if (auto seeds = o.integer("seeds", 1, 100000)) entry.scenario.seeds = static_cast<int>(*seeds);
  entry.key = o.string("name").value_or(entry.scenario.name);
  for (const SuiteScenario& other : suite.scenarios)
    if (other.key == entry.key)
      return o.fail("name", "'" + entry.key + "' names two scenarios of the suite (give each a \"name\")");
  const JsonAt metrics = *o.member("metrics");
  if (!metrics.value->is_object() || metrics.value->empty())
    return errors.fail(metrics.pointer, "must be a non-empty object of watched metrics");
  EntryFacts facts;
  for (const auto& [name, value] : metrics.value->items()) read_watched(errors, metrics.member(name), name, entry, facts);
  suite.scenarios.push_back(std::move(entry));
}

}  // namespace

Expected<Suite> load_suite(const std::string& path) {
  auto text = read_text_file(path);
  Expected<Suite> suite = text ? parse_suite(*text, path) : text.error();
  if (!suite)
    if (std::optional<std::string> other = other_input(path, Wanted::QualitySuite)) return Error{*other};
  return suite;
}

Expected<Suite> parse_suite(std::string_view text, const std::string& path) {
  auto json = parse_json_text(text, path);
  if (!json) return json.error();
  JsonErrors errors(path);
  JsonObject top(errors, JsonAt{&*json, ""}, {"name", "baseline", "scenarios"});
  if (!top.is_object() || !top.require("scenarios")) return errors.error();
  const fs::path file(path), dir = file.parent_path();
  Suite suite;
  suite.name = top.string("name").value_or(file.stem().string());
  suite.baseline_path = resolve_path(dir.string(), top.string("baseline").value_or(file.stem().string() + "-baseline.json"));
  const JsonAt scenarios = *top.member("scenarios");
  if (!scenarios.value->is_array() || scenarios.value->empty()) return Error{path + ": /scenarios: must be a non-empty array"};
  std::optional<Error> verbatim;
  for (size_t i = 0; i < scenarios.value->size() && !errors.failed() && !verbatim; ++i)
    read_entry(errors, verbatim, scenarios.element(i), dir, suite);
  if (verbatim) return *verbatim;
  if (errors.failed()) return errors.error();
  return suite;
}

namespace {

Verdict judge(const WatchedMetric& w, double delta, double allowed, double noise) {
  const double worse_by = w.better == Better::Higher ? -delta : delta;
  if (worse_by > allowed && worse_by > noise) return Verdict::Regressed;
  if (worse_by > allowed) return Verdict::WithinNoise;
  if (-worse_by > allowed && -worse_by > noise) return Verdict::Improved;
  return Verdict::Ok;
}

MetricCheck check_one(const std::string& scenario, const WatchedMetric& w, const MeasuredValue& base, const MeasuredValue& now) {
  MetricCheck c{scenario, w, base, now, now.mean - base.mean, std::nullopt, w.tolerance.allowed(base.mean), 0, Verdict::Ok};
  if (!now.measured) {  // the baseline's jobs finished (or started) and now none did: worse than any figure
    c.delta = 0;
    c.verdict = Verdict::Regressed;
    return c;
  }
  if (base.mean != 0) c.delta_percent = c.delta / std::abs(base.mean) * 100;
  c.noise = 2 * std::sqrt(base.sd * base.sd / base.runs + now.sd * now.sd / now.runs);
  c.verdict = judge(w, rounded_micro(c.delta), rounded_micro(c.allowed), rounded_micro(c.noise));
  return c;
}

}  // namespace

Expected<CheckResult> compare_to_baseline(const Suite& suite, const Baseline& baseline, const SuiteValues& now) {
  if (baseline.suite != suite.name)
    return Error{suite.baseline_path + ": written for suite '" + baseline.suite + "', not '" + suite.name +
                 "' (another suite's baseline; write this one's with topsim check --update)"};
  if (Status s = check_baseline_inputs(suite, baseline); !s) return s.error();
  CheckResult result;
  result.suite = suite.name;
  for (const SuiteScenario& entry : suite.scenarios) {
    const auto base = baseline.scenarios.find(entry.key);
    for (const WatchedMetric& w : entry.metrics) {
      if (base == baseline.scenarios.end() || !base->second.count(w.name))
        return Error{suite.baseline_path + ": no baseline for " + entry.key + " " + w.name + " (run topsim check --update)"};
      result.checks.push_back(check_one(entry.key, w, base->second.at(w.name), now.at(entry.key).at(w.name)));
      result.regressions += result.checks.back().verdict == Verdict::Regressed;
      result.improvements += result.checks.back().verdict == Verdict::Improved;
    }
  }
  return result;
}

}  // namespace topsim
