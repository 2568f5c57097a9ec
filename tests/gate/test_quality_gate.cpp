// The quality gate (gate/quality_gate.h) without running scenarios: suites as text, baselines
// written and read back, and the verdicts of a comparison.
#include <fstream>

#include <catch2/catch.hpp>

#include "gate/quality_gate.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

// A suite over the shipped default scenario, written next to it so its relative path resolves.
std::string suite_text(const std::string& metrics) {
  return R"({"name": "s", "baseline": "b.json", "scenarios": [{"scenario": ")" + std::string(TOPSIM_SOURCE_DIR) +
         R"(/scenarios/ack-v100-benchmark.json", "metrics": {)" + metrics + "}}]}";
}

Suite suite(const std::string& metrics) {
  auto s = parse_suite(suite_text(metrics), "/tmp/suite.json");
  INFO((s.ok() ? "" : s.error().message));
  REQUIRE(s.ok());
  return std::move(s).value();
}

std::string suite_error(const std::string& metrics) {
  auto s = parse_suite(suite_text(metrics), "/tmp/suite.json");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find('\n') == std::string::npos);
  return s.error().message;
}

}  // namespace

TEST_CASE("gate::suites: watched metrics, tolerances and their errors", "[gate]") {
  SECTION("a metric with its direction and tolerance; the baseline path resolves against the suite") {
    const Suite s = suite(R"("topology-aware/jct_s.mean": {"better": "lower", "tolerance": "1%"})");
    REQUIRE(s.scenarios.size() == 1);
    const WatchedMetric& w = s.scenarios[0].metrics.at(0);
    CHECK(w.scheduler == "topology-aware");
    CHECK(w.metric == "jct_s.mean");
    CHECK(w.better == Better::Lower);
    CHECK(w.tolerance.allowed(200) == Approx(2));
    CHECK(s.baseline_path == "/tmp/b.json");
  }
  SECTION("an absolute tolerance in the metric's unit") {
    const Suite s = suite(R"("topology-aware/wait_s.p95": {"better": "lower", "tolerance": "5s"})");
    CHECK(s.scenarios[0].metrics[0].tolerance.allowed(1000) == Approx(5));
  }
  SECTION("unknown metrics, wrong units and unknown keys are one line each") {
    CHECK_THAT(suite_error(R"("topology-aware/jct_z.mean": {"better": "lower", "tolerance": "1%"})"),
               Catch::Contains("jct_z.mean"));
    CHECK_THAT(suite_error(R"("topology-aware/jct_s.mean": {"better": "lower", "tolerance": "5 GPUs"})"),
               Catch::Contains("tolerance"));
    CHECK_THAT(suite_error(R"("topology-aware/jct_s.mean": {"better": "lower", "tolerence": "1%"})"),
               Catch::Contains("tolerence"));
  }
}

TEST_CASE("gate::baselines: written sorted and rounded, read back as written", "[gate]") {
  const Suite s = suite(R"("topology-aware/jct_s.mean": {"better": "lower", "tolerance": "1%"})");
  const SuiteValues values = {{"ack-v100-benchmark", {{"topology-aware/jct_s.mean", {123.4567891, 0.5, 3}}}}};
  test::TempDir dir;
  const std::string path = dir.file("b.json");
  std::ofstream(path) << render_baseline(s, values);
  auto back = load_baseline(path);
  REQUIRE(back.ok());
  CHECK(back->suite == "s");
  const MeasuredValue& v = back->scenarios.at("ack-v100-benchmark").at("topology-aware/jct_s.mean");
  CHECK(v.mean == 123.456789);
  CHECK(v.sd == 0.5);
  CHECK(v.runs == 3);
  SECTION("the same values give the same bytes") { CHECK(render_baseline(s, values) == render_baseline(s, values)); }
  SECTION("a file of another kind is refused with the expected schema") {
    std::ofstream(path) << R"({"schema": "x"})";
    CHECK_THAT(load_baseline(path).error().message, Catch::Contains("not a topsim quality baseline"));
  }
}

TEST_CASE("gate::compare_to_baseline: regressions beyond tolerance and seed noise", "[gate]") {
  const Suite s = suite(R"("topology-aware/jct_s.mean": {"better": "lower", "tolerance": "1%"})");
  Baseline base;
  base.suite = "s";
  base.scenarios["ack-v100-benchmark"]["topology-aware/jct_s.mean"] = {100, 0, 1};
  auto verdict = [&](double now_mean, double sd = 0, int runs = 1) {
    if (sd > 0) base.scenarios["ack-v100-benchmark"]["topology-aware/jct_s.mean"] = {100, sd, runs};
    const SuiteValues now = {{"ack-v100-benchmark", {{"topology-aware/jct_s.mean", {now_mean, sd, runs}}}}};
    auto r = compare_to_baseline(s, base, now);
    REQUIRE(r.ok());
    return r->checks.at(0).verdict;
  };
  CHECK(verdict(100.5) == Verdict::Ok);               // within 1%
  CHECK(verdict(102) == Verdict::Regressed);          // 2% worse
  CHECK(verdict(97) == Verdict::Improved);            // 3% better
  CHECK(verdict(102, 5, 3) == Verdict::WithinNoise);  // 2% worse, but the seeds spread by 5
  SECTION("a baseline without the watched metric is bad input") {
    Baseline empty;
    empty.suite = "s";
    const SuiteValues now = {{"ack-v100-benchmark", {{"topology-aware/jct_s.mean", {100, 0, 1}}}}};
    CHECK_FALSE(compare_to_baseline(s, empty, now).ok());
  }
}
