// `topsim check`: the CI gate. An unchanged tree passes (exit 0) and rewrites a byte-identical
// baseline; a worse scheduler measured against the baseline fails (exit 1) naming the metric;
// every kind of bad input is exit 2 with one line; JUnit and Markdown outputs; seed noise.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <string>

#include <catch2/catch.hpp>

#include "gate/quality_gate.h"
#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::TempDir;

namespace {

namespace fs = std::filesystem;

// A suite in `dir` watching the benchmark; `metrics` is the JSON object of watched metrics.
std::string write_suite(const TempDir& dir, const std::string& metrics, const std::string& extra = "") {
  const std::string scenario = (fs::path(TOPSIM_SOURCE_DIR) / "scenarios" / "ack-v100-benchmark.json").string();
  const std::string path = dir.file("suite.json");
  std::ofstream(path) << R"({"baseline": "base.json", "scenarios": [{"scenario": ")" << scenario << R"(", "metrics": )" << metrics
                      << "}]" << extra << "}";
  return path;
}

constexpr const char* kWatched = R"({"topology-aware/images_per_sec.mean": {"better": "higher", "tolerance": "1%"},
                                     "topology-aware/wait_s.p95": {"better": "lower", "tolerance": "5s"},
                                     "default/jct_s.mean": {"tolerance": "2%"}})";

}  // namespace

TEST_CASE("cli::check passes on an unchanged tree, fails naming the metric when the scheduler gets worse", "[cli][check]") {
  TempDir dir;
  const std::string suite = write_suite(dir, kWatched);
  const CliResult update = run_cli("check '" + suite + "' --update");
  INFO(update.err);
  REQUIRE(update.exit_code == 0);
  CHECK(update.out == "baseline: " + dir.file("base.json") + " (3 metrics of 1 scenarios)\n");
  const std::string baseline = read_text(dir.file("base.json"));

  SECTION("unchanged: exit 0, one line per metric; --update again writes the same bytes") {
    const CliResult r = run_cli("check '" + suite + "' --threads 1");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("topology-aware/images_per_sec.mean") && Catch::Contains("no regression in 3 metrics"));
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1 + 3 + 1);
    REQUIRE(run_cli("check '" + suite + "' --update --threads 2").exit_code == 0);
    CHECK(read_text(dir.file("base.json")) == baseline);
  }
  SECTION("default measured against topology-aware's baseline: exit 1, the regression named, JUnit and Markdown written") {
    const CliResult r = run_cli("check '" + suite + "' --candidate topology-aware=default --junit '" + dir.file("junit.xml") +
                                "' --markdown '" + dir.file("check.md") + "'");
    CHECK(r.exit_code == 1);
    // Expected: every row names the candidate, so the verdict does not read as topology-aware regressing.
    CHECK_THAT(r.err, Catch::StartsWith("topsim: check failed: 1 regression: ack-v100-benchmark default as "
                                        "topology-aware/images_per_sec.mean"));
    CHECK_THAT(r.out, Catch::Contains("REGRESSED (tolerance 1%, higher is better)"));
    CHECK_THAT(r.out, Catch::Contains("candidate default judged against topology-aware's baseline"));
    pugi::xml_document junit;
    REQUIRE(junit.load_file(dir.file("junit.xml").c_str()));
    const pugi::xml_node suite_node = junit.child("testsuites").child("testsuite");
    CHECK(suite_node.attribute("tests").as_int() == 3);
    CHECK(suite_node.attribute("failures").as_int() == 1);
    const pugi::xml_node failed =
        suite_node.find_child_by_attribute("testcase", "name", "default as topology-aware/images_per_sec.mean");
    REQUIRE(failed);
    CHECK_THAT(std::string(failed.child("failure").child_value()), Catch::Contains("baseline 1,071.5, now "));
    // Markdown: the regression first, the ok rows folded under a summary line.
    const std::string md = read_text(dir.file("check.md"));
    CHECK_THAT(md, Catch::Contains("**regressed**") && Catch::Contains("candidate default judged against topology-aware's"));
    const size_t regressed = md.find("| default as topology-aware/images\\_per\\_sec.mean |");
    const size_t folded = md.find("<details><summary>2 metrics ok</summary>");
    REQUIRE(regressed != std::string::npos);
    REQUIRE(folded != std::string::npos);
    CHECK(regressed < folded);
    CHECK(md.find("| default/jct\\_s.mean |") > folded);
  }
  SECTION("an improvement is reported with a hint to --update; $GITHUB_STEP_SUMMARY gets the table") {
    // A baseline worse than the tree: the tree improves on it.
    std::string worse = baseline;
    const size_t at = worse.find("\"mean\": 1071.");
    REQUIRE(at != std::string::npos);
    worse.replace(at, 13, "\"mean\": 900.");
    std::ofstream(dir.file("base.json")) << worse;
    const CliResult r = run_cli("check '" + suite + "'");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("improved") && Catch::Contains("run topsim check --update to raise the baseline"));
    const CliResult summary = topsim::test::run_shell("GITHUB_STEP_SUMMARY='" + dir.file("summary.md") + "' " + TOPSIM_CLI_PATH +
                                                      " check '" + suite + "'");
    CHECK(summary.exit_code == 0);
    CHECK_THAT(read_text(dir.file("summary.md")), Catch::StartsWith("## topsim check: suite"));
  }
}

namespace {

// Two ClusterQueues a and b (4 GPUs each) on one DGX-1; `cohort` puts them in one cohort, so
// that b may borrow a's idle quota.
void write_queues(const TempDir& dir, bool cohort) {
  std::ofstream out(dir.file("queues.yaml"));
  out << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: gpu\n";
  for (const char* name : {"a", "b"}) {
    out << "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: " << name << "\nspec:\n"
        << (cohort ? "  cohortName: lab\n" : "")
        << "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: gpu\n      resources:\n"
           "      - name: nvidia.com/gpu\n        nominalQuota: 4\n";
  }
}

}  // namespace

TEST_CASE("cli::check gates a tenant's metric: team b waiting longer than its baseline fails naming wait_s.max@b",
          "[cli][check]") {
  TempDir dir;
  write_queues(dir, true);
  std::ofstream(dir.file("s.json")) << R"({"name": "teams", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 1}]},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "b1", "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 1000, "queue": "b"},
      {"name": "b2", "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 1000, "queue": "b"}]},
    "tenancy": {"queues": "queues.yaml"}, "schedulers": ["topology-aware"]})";
  std::ofstream(dir.file("suite.json")) << R"({"baseline": "base.json", "scenarios": [{"scenario": "s.json", "metrics": {
    "topology-aware/wait_s.max@b": {"better": "lower", "tolerance": "5s"},
    "topology-aware/evictions": {"better": "lower", "tolerance": "0"}}}]})";
  const std::string suite = dir.file("suite.json");
  REQUIRE(run_cli("check '" + suite + "' --update").exit_code == 0);
  // Expected: with the cohort b2 borrows a's idle quota and starts at once.
  const std::string with_cohort = read_text(dir.file("base.json"));
  CHECK_THAT(with_cohort, Catch::Contains("\"topology-aware/wait_s.max@b\"") && Catch::Contains("\"mean\": 0"));
  CHECK(run_cli("check '" + suite + "'").exit_code == 0);

  // The cohort removed: b holds only its own 4 GPUs. That is a change of the inputs, not of the
  // scheduler, so the baseline no longer applies.
  write_queues(dir, false);
  const CliResult changed = run_cli("check '" + suite + "'");
  CHECK(changed.exit_code == 2);
  CHECK_THAT(changed.err, Catch::Contains("/inputs/teams: measured on other inputs"));

  // Measured on the queues without a cohort, b2 waits for b1 (1000 s). A baseline in which b
  // never waited (as a scheduler that lent b the idle quota would have measured) is now missed.
  REQUIRE(run_cli("check '" + suite + "' --update").exit_code == 0);
  std::string never_waited = read_text(dir.file("base.json"));
  const std::string key = "\"topology-aware/wait_s.max@b\"";
  const size_t metric = never_waited.find(key);
  REQUIRE(metric != std::string::npos);
  const size_t mean = never_waited.find("\"mean\": 1000", metric);
  REQUIRE(mean != std::string::npos);
  never_waited.replace(mean, std::string("\"mean\": 1000").size(), "\"mean\": 0");
  std::ofstream(dir.file("base.json")) << never_waited;
  const CliResult r = run_cli("check '" + suite + "'");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("topology-aware/wait_s.max@b"));
  // Expected: the change against a baseline of 0 has no percentage.
  CHECK_THAT(r.out, Catch::Contains("+1,000 (n/a: baseline 0)  REGRESSED"));
}

TEST_CASE("cli::check bad input: exit 2, one line", "[cli][check]") {
  TempDir dir;
  SECTION("an unknown metric, with did-you-mean") {
    const std::string suite = write_suite(dir, R"({"topology-aware/images_per_sec.maen": {}})");
    check_bad_input(
        run_cli("check '" + suite + "' --update"),
        "/scenarios/0/metrics/topology-aware/images_per_sec.maen: unknown metric 'topology-aware/images_per_sec.maen' "
        "(did you mean 'topology-aware/images_per_sec.mean'?)");
    check_bad_input(run_cli("check '" + write_suite(dir, R"({"kube/wait_s.p95": {}})") + "'"),
                    "unknown metric 'kube/wait_s.p95'");
  }
  SECTION("a missing baseline") {
    check_bad_input(run_cli("check '" + write_suite(dir, kWatched) + "'"),
                    "base.json': No such file or directory (write it with topsim check --update)");
  }
  SECTION("with --junit, exit 2 still writes the JUnit file, holding the error") {
    const CliResult r = run_cli("check '" + write_suite(dir, kWatched) + "' --junit '" + dir.file("junit.xml") + "'");
    CHECK(r.exit_code == 2);
    pugi::xml_document junit;
    REQUIRE(junit.load_file(dir.file("junit.xml").c_str()));
    const pugi::xml_node suite_node = junit.child("testsuites").child("testsuite");
    CHECK(suite_node.attribute("name").as_string() == std::string("suite"));
    CHECK(suite_node.attribute("errors").as_int() == 1);
    CHECK_THAT(std::string(suite_node.child("testcase").child("error").attribute("message").as_string()),
               Catch::Contains("No such file or directory (write it with topsim check --update)"));
  }
  SECTION("a baseline from another suite") {
    const std::string suite = write_suite(dir, kWatched);
    REQUIRE(run_cli("check '" + suite + "' --update").exit_code == 0);
    std::ofstream(dir.file("other.json")) << read_text(dir.file("suite.json")).replace(1, 0, "\"name\": \"other\", ");
    check_bad_input(run_cli("check '" + dir.file("other.json") + "'"), "written for suite 'suite', not 'other'");
  }
  SECTION("malformed files and values") {
    std::ofstream(dir.file("bad.json")) << "{\"scenarios\": [}";
    check_bad_input(run_cli("check '" + dir.file("bad.json") + "'"), "bad.json:1:");
    check_bad_input(run_cli("check '" + write_suite(dir, R"({"topology-aware/wait_s.p95": {"tolerance": "5 GPUs"}})") + "'"),
                    "tolerance: '5 GPUs': the unit must be % or the metric's unit (s)");
    check_bad_input(run_cli("check '" + write_suite(dir, R"({"topology-aware/wait_s.p95": {"better": "up"}})") + "'"),
                    "/better: 'up' is not one of higher, lower");
    check_bad_input(run_cli("check '" + write_suite(dir, R"({"topology-aware/events": {}})") + "'"),
                    "/better: missing: events has no better direction of its own");
    const std::string suite = write_suite(dir, kWatched);
    std::ofstream(dir.file("base.json"))
        << "{\"schema\": \"topsim.quality-baseline/1\", \"suite\": \"suite\", \"scenarios\": {}}";
    check_bad_input(run_cli("check '" + suite + "'"), "no baseline for ack-v100-benchmark");
    check_bad_input(run_cli("check '" + suite + "' --candidate topology-aware"),
                    "--candidate 'topology-aware': expected SCHEDULER=OTHER");
    check_bad_input(run_cli("check"), "give a suite file");
  }
}

TEST_CASE("cli::check --list-metrics prints every name a suite can watch", "[cli][check]") {
  const CliResult r =
      run_cli("check --list-metrics '" + (fs::path(TOPSIM_SOURCE_DIR) / "scenarios" / "ack-v100-benchmark.json").string() + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("topology-aware/images_per_sec.mean") && Catch::Contains("default/wait_s.p95"));
  CHECK_THAT(r.out, Catch::Contains("topology-aware/topology_success_rate"));
  CHECK(r.out.find("default/topology_success_rate") == std::string::npos);
}

TEST_CASE("cli::check: a candidate that finishes no job regresses its wait, and no baseline records what was not measured",
          "[cli][check]") {
  // Nodes only the topology-aware scheduler serves: default rejects both jobs, so its runs have no
  // wait and no JCT at all (not 0 s, which would pass as an improvement).
  TempDir dir;
  std::ofstream(dir.file("tiny.json")) << R"({"name": "tiny", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 2,
      "label": "topology"}]}, "workload": {"kind": "jobs", "jobs": [
      {"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100},
      {"name": "b", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}]}})";
  const auto suite = [&](const std::string& metric) {
    std::ofstream(dir.file("suite.json")) << R"({"baseline": "base.json", "scenarios": [{"scenario": "tiny.json", "metrics": {")"
                                          << metric << R"(": {"better": "lower"}}}]})";
    return dir.file("suite.json");
  };
  REQUIRE(run_cli("check '" + suite("topology-aware/wait_s.mean") + "' --update").exit_code == 0);
  const CliResult r = run_cli("check '" + dir.file("suite.json") + "' --candidate topology-aware=default --junit '" +
                              dir.file("junit.xml") + "'");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("not measured") && Catch::Contains("REGRESSED (no run measured it: queueing delay"));
  CHECK_THAT(r.out, Catch::Contains("1 of 1 metrics regressed"));
  CHECK_THAT(read_text(dir.file("junit.xml")), Catch::Contains("now not measured, delta n/a"));

  const CliResult update = run_cli("check '" + suite("default/wait_s.mean") + "' --update");
  CHECK(update.exit_code == 2);
  CHECK_THAT(update.err, Catch::Contains("tiny default/wait_s.mean: no run measured it (none of its jobs finished or started)"));
}

TEST_CASE("sim::quality gate: seed noise decides between a regression and a wobble", "[sim][check]") {
  using namespace topsim;
  Suite suite;
  suite.name = "s";
  SuiteScenario entry;
  entry.key = "x";
  WatchedMetric w{"fgd/gpu_alloc_ratio.final", "fgd", "gpu_alloc_ratio.final", Better::Higher, Tolerance{1, true, "1%"}};
  entry.metrics = {w};
  suite.scenarios.push_back(entry);
  Baseline baseline{"s", {{"x", {{w.name, MeasuredValue{0.94, 0.01, 3}}}}}, {}};
  auto verdict = [&](double now_mean, double now_sd, int runs) {
    const auto result = compare_to_baseline(suite, baseline, {{"x", {{w.name, MeasuredValue{now_mean, now_sd, runs}}}}});
    REQUIRE(result.ok());
    return result->checks.front().verdict;
  };
  // 0.94 - 0.925 = 0.015 worse: beyond the 1% tolerance (0.0094) ...
  CHECK(verdict(0.925, 0.01, 3) == Verdict::WithinNoise);  // ... but within 2 x sqrt(2 x 0.01^2 / 3) = 0.0163
  CHECK(verdict(0.90, 0.01, 3) == Verdict::Regressed);     // 0.04 is beyond both
  baseline.scenarios["x"][w.name] = MeasuredValue{0.94, 0, 1};
  CHECK(verdict(0.925, 0, 1) == Verdict::Regressed);  // one seed: no noise, the tolerance alone
  CHECK(verdict(0.935, 0, 1) == Verdict::Ok);         // within tolerance
  CHECK(verdict(0.96, 0, 1) == Verdict::Improved);
}
