// `topsim run` writes the report next to the results; `topsim report` makes it from saved
// results or compares runs; report.html draws every chart in headless Chromium without a
// script error; metrics.prom passes `promtool check metrics`.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <utility>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/browser_support.h"
#include "tests/test_support.h"

using topsim::test::check_in_browser;
using topsim::test::CliResult;
using topsim::test::program;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::TempDir;

namespace {

namespace fs = std::filesystem;

const char* const kReportFiles[] = {
    "report.html",           "summary.md",      "summary.csv", "jobs.csv", "timeseries.csv", "tenant_timeseries.csv",
    "uplink_timeseries.csv", "fill_curves.csv", "metrics.prom"};

std::string scenario_path(const std::string& name) {
  return (fs::path(TOPSIM_SOURCE_DIR) / "scenarios" / (name + ".json")).string();
}

void run_to(const std::string& scenario, const std::string& dir) {
  const CliResult r = run_cli("run '" + scenario + "' -o '" + dir + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::EndsWith("report: " + (std::filesystem::path(dir) / "report.html").string() + "\n"));
}

// A copy of the scenario file `scenario` at `copy` that runs its first seed only (its cluster and
// workload files named by absolute path); returns `copy`.
[[maybe_unused]] std::string one_seed_copy(const std::string& scenario, const std::string& copy) {
  nlohmann::json s = nlohmann::json::parse(read_text(scenario));
  s["seeds"] = 1;
  const fs::path from = fs::path(scenario).parent_path();
  for (auto [section, key] : {std::pair{"cluster", "node_list"}, std::pair{"workload", "path"}})
    if (s.at(section).contains(key)) s[section][key] = (from / s[section][key].get<std::string>()).string();
  std::ofstream(copy) << s.dump(2);
  return copy;
}

}  // namespace

TEST_CASE("cli::run writes the report beside the results", "[cli][report]") {
  TempDir dir;
  run_to(scenario_path("ack-v100-benchmark"), dir.file("out"));
  for (const char* name : kReportFiles) CHECK(fs::is_regular_file(dir.path / "out" / name));
  const std::string html = read_text(dir.path / "out/report.html");
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>") && Catch::Contains("Chart.js v3") &&
                       Catch::Contains("Released under the MIT License"));
  CHECK(html.find("http://") == std::string::npos);  // nothing to fetch: Chart.js and the data are inline
  CHECK(html.find("src=\"") == std::string::npos);
  CHECK(html.size() < 2'000'000);
  SECTION("--no-report leaves it out") {
    const CliResult r = run_cli("run '" + scenario_path("ack-v100-benchmark") + "' -o '" + dir.file("plain") + "' --no-report");
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(fs::exists(dir.path / "plain/report.html"));
    CHECK(r.out.find("report: ") == std::string::npos);
  }
}

TEST_CASE("cli::report makes the report of saved results, and compares runs", "[cli][report]") {
  TempDir dir;
  run_to(scenario_path("ack-v100-benchmark"), dir.file("a"));
  SECTION("from one saved folder: the same report as topsim run wrote") {
    const std::string written = read_text(dir.path / "a/report.html");
    const CliResult r = run_cli("report '" + dir.file("a") + "' -o '" + dir.file("again") + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "report: " + dir.file("again") + "/report.html\n");
    CHECK(read_text(dir.path / "again/report.html") == written);
    CHECK(read_text(dir.path / "again/metrics.prom") == read_text(dir.path / "a/metrics.prom"));
  }
  SECTION("two runs with labels: overlays and a delta table") {
    std::string one_node = read_text(scenario_path("ack-v100-benchmark"));
    one_node.replace(one_node.find("\"count\": 2"), 10, "\"count\": 1");
    std::ofstream(dir.file("one.json")) << one_node;
    run_to(dir.file("one.json"), dir.file("b"));
    const CliResult r =
        run_cli("report '" + dir.file("a") + "' '" + dir.file("b") + "' --label two,one -o '" + dir.file("cmp") + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string md = read_text(dir.path / "cmp/summary.md");
    CHECK_THAT(md, Catch::StartsWith("## topsim: two vs one"));
    CHECK_THAT(md, Catch::Contains("| one vs two |"));
    CHECK_THAT(read_text(dir.path / "cmp/report.html"),
               Catch::Contains("one: topology-aware") && Catch::Contains("Comparison of runs"));
  }
  SECTION("bad input: exit 2, one line") {
    topsim::test::check_bad_input(run_cli("report '" + dir.file("missing") + "'"), "missing/results.json");
    topsim::test::check_bad_input(run_cli("report '" + dir.file("a") + "' '" + dir.file("a") + "' --label x"),
                                  "--label names 1 runs, 2 results");
    topsim::test::check_bad_input(run_cli("report"), "give at least one results folder");
    std::ofstream(dir.file("a/results.json")) << R"({"schema": "other"})";
    topsim::test::check_bad_input(run_cli("report '" + dir.file("a") + "'"), "/schema: not a topsim results file");
  }
}

TEST_CASE("browser: report.html draws every chart in headless Chromium, without an error", "[cli][report][browser]") {
  const std::string chromium = program("chromium");
  if (chromium.empty()) {
    WARN("skipped: chromium is not installed (bash bootstrap.sh test installs it)");
    return;
  }
  TempDir dir;
  SECTION("the benchmark") {
    run_to(scenario_path("ack-v100-benchmark"), dir.file("ack"));
    check_in_browser(chromium, dir.file("ack"));
  }
  SECTION("a job and a scenario named to break out of the page") {
    std::ofstream(dir.file("nasty.json")) << R"({"name": "</script><img src=x onerror=alert(1)>|\"a,b\"\n",
      "cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}]},
      "workload": {"kind": "jobs", "jobs": [{"name": "</script><img src=x onerror=alert(1)>|\"a,b\"\n", "workers": 2, "model": "vgg16", "iterations": 10}]}})";
    run_to(dir.file("nasty.json"), dir.file("nasty"));
    check_in_browser(chromium, dir.file("nasty"));
  }
  SECTION("Philly and the FGD experiment") {
    if (topsim::test::shared_file("traces").empty()) return;
    for (const char* name : {"philly-552-nodes", "fgd-openb-default"}) {
      std::string scenario = scenario_path(name);
#ifdef TOPSIM_SANITIZED
      // 10-20x slower under ASan + UBSan: the FGD experiment's first seed of ten draws the same charts.
      if (std::string(name) == "fgd-openb-default") scenario = one_seed_copy(scenario, dir.file("fgd-one-seed.json"));
#endif
      run_to(scenario, dir.file(name));
      check_in_browser(chromium, dir.file(name));
    }
  }
}

TEST_CASE("promtool: metrics.prom is valid Prometheus text exposition", "[cli][report][promtool]") {
  const std::string promtool = program("promtool");
  if (promtool.empty()) {
    WARN("skipped: promtool is not installed (Debian prometheus; bash bootstrap.sh test installs it)");
    return;
  }
  TempDir dir;
  std::vector<std::string> scenarios = {"ack-v100-benchmark"};
  if (!topsim::test::shared_file("traces").empty()) scenarios.push_back("alibaba-2023-shared-topology");
  for (const std::string& name : scenarios) {
    run_to(scenario_path(name), dir.file(name));
    const CliResult r = topsim::test::run_shell("'" + promtool + "' check metrics < '" + dir.file(name + "/metrics.prom") + "'");
    INFO(name << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
  }
}
