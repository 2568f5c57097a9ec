// Progress on stderr (run, check): a live line only on a terminal (simulated time, jobs done,
// events/s, ETA, cleared at the end), nothing in pipes and logs, --quiet silences it, and
// --timing prints one line per run in every mode (replay, fill, trace-pod replay).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <catch2/catch.hpp>

#include "tests/test_support.h"

using topsim::test::CliResult;
using topsim::test::run_cli;
using topsim::test::run_shell;
using topsim::test::TempDir;

namespace {

namespace fs = std::filesystem;

// Enough jobs that the run reports to the live counters, on two small nodes.
const char* kReplay = R"({"name": "progress", "seed": 3,
  "cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}], "network": {"transport": "ib"}},
  "workload": {"kind": "synthetic", "jobs": 3000, "arrival_rate_per_hour": 20},
  "schedulers": ["topology-aware", "default"], "seeds": 2})";

std::string write_scenario(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// Lines "[i/n] <scheduler> seed <s>: <jobs> jobs, <events> events in <t> s (<rate> events/s)".
size_t timing_lines(const std::string& err) {
  static const std::regex line(R"(\[\d+/\d+\] [a-z-]+ seed \d+: [0-9,]+ jobs, [0-9,]+ events in [0-9.]+ s \([0-9,]+ events/s\))");
  return static_cast<size_t>(std::distance(std::sregex_iterator(err.begin(), err.end(), line), std::sregex_iterator()));
}

}  // namespace

TEST_CASE("progress: nothing on stderr when it is not a terminal", "[cli][progress]") {
  TempDir dir;
  const CliResult r = run_cli("run '" + write_scenario(dir, "s.json", kReplay) + "' -o '" + dir.file("out") + "' --no-report");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
}

TEST_CASE("progress: a live line on a terminal, cleared at the end, --quiet silences it", "[cli][progress]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, "s.json", kReplay);
  const std::string run = "run '" + scenario + "' -o '" + dir.file("out") + "' --no-report";
  SECTION("forced (TOPSIM_PROGRESS=always)") {
    const CliResult r = run_shell("TOPSIM_PROGRESS=always " + std::string(TOPSIM_CLI_PATH) + " " + run);
    REQUIRE(r.exit_code == 0);
    INFO("stderr: " << r.err);
    CHECK_THAT(r.err, Catch::Contains("progress: run 1/4, simulated ") && Catch::Contains("/12,000 jobs done, ") &&
                          Catch::Contains(" events/s, ETA "));
    CHECK(r.err.size() >= 4);
    CHECK(r.err.substr(r.err.size() - 4) == "\r\033[K");  // the line is gone when the runs end
    CHECK(r.err.find('\n') == std::string::npos);         // rewritten in place, never scrolled
    const CliResult quiet = run_shell("TOPSIM_PROGRESS=always " + std::string(TOPSIM_CLI_PATH) + " " + run + " --quiet");
    REQUIRE(quiet.exit_code == 0);
    CHECK(quiet.err.empty());
  }
  SECTION("a real terminal (script(1) gives the command a pty)") {
    if (std::system("script --version >/dev/null 2>&1") != 0) {
      WARN("skipped: script(1) is not installed");
      return;
    }
    const CliResult r = run_shell("script -qfec \"" + std::string(TOPSIM_CLI_PATH) + " " + run + " >/dev/null\" /dev/null");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("jobs done") && Catch::Contains("ETA"));
    const CliResult quiet =
        run_shell("script -qfec \"" + std::string(TOPSIM_CLI_PATH) + " " + run + " --quiet >/dev/null\" /dev/null");
    REQUIRE(quiet.exit_code == 0);
    CHECK(quiet.out.find("jobs done") == std::string::npos);
  }
}

TEST_CASE("progress: --timing prints one line per run, in every mode", "[cli][progress]") {
  TempDir dir;
  SECTION("replay") {
    const CliResult r =
        run_cli("run '" + write_scenario(dir, "s.json", kReplay) + "' -o '" + dir.file("out") + "' --no-report --timing");
    REQUIRE(r.exit_code == 0);
    INFO("stderr: " << r.err);
    CHECK(timing_lines(r.err) == 4);  // 2 schedulers x 2 seeds
    CHECK(count(r.err, "\n") == 4);
  }
  const std::string traces = topsim::test::shared_file("traces/alibaba-gpu-v2023");
  if (traces.empty()) return;
  SECTION("fill") {
    const std::string fill = R"({"mode": "fill", "name": "fill", "seed": 1, "seeds": 2, "target_load": 0.5,
      "cluster": {"node_list": ")" +
                             traces + R"(/openb_node_list_gpu_node.csv", "node_fraction": 0.05},
      "workload": {"kind": "alibaba-pods", "path": ")" +
                             traces + R"(/openb_pod_list_default.csv"},
      "schedulers": ["fgd", "best-fit"]})";
    const CliResult r =
        run_cli("run '" + write_scenario(dir, "f.json", fill) + "' -o '" + dir.file("out") + "' --no-report --timing");
    REQUIRE(r.exit_code == 0);
    INFO("stderr: " << r.err);
    CHECK(timing_lines(r.err) == 4);
  }
  SECTION("trace pods over time (share replay)") {
    const std::string replay = R"({"name": "pods", "seed": 1,
      "cluster": {"node_list": ")" +
                               traces + R"(/openb_node_list_gpu_node.csv", "node_fraction": 0.02},
      "workload": {"kind": "alibaba-pods", "path": ")" +
                               traces + R"(/openb_pod_list_default.csv", "max_pods": 500},
      "schedulers": ["fgd", "spread", "random"]})";
    const CliResult r =
        run_cli("run '" + write_scenario(dir, "p.json", replay) + "' -o '" + dir.file("out") + "' --no-report --timing");
    REQUIRE(r.exit_code == 0);
    INFO("stderr: " << r.err);
    CHECK(timing_lines(r.err) == 3);
  }
}

TEST_CASE("progress: check honours --timing and --quiet", "[cli][progress]") {
  TempDir dir;
  const std::string scenario = write_scenario(dir, "s.json", kReplay);
  const std::string suite = write_scenario(dir, "suite.json", R"({"name": "p", "baseline": "base.json",
    "scenarios": [{"scenario": "s.json", "metrics": {"topology-aware/jct_s.mean": {"better": "lower", "tolerance": "1%"}}}]})");
  REQUIRE(run_cli("check '" + suite + "' --update --quiet").exit_code == 0);
  const CliResult timed = run_cli("check '" + suite + "' --timing");
  INFO("stderr: " << timed.err);
  REQUIRE(timed.exit_code == 0);
  CHECK(timing_lines(timed.err) == 4);
  const CliResult forced = run_shell("TOPSIM_PROGRESS=always " + std::string(TOPSIM_CLI_PATH) + " check '" + suite + "'");
  REQUIRE(forced.exit_code == 0);
  CHECK_THAT(forced.err, Catch::Contains("progress: run 1/4, simulated ") && Catch::Contains("ETA"));
  const CliResult quiet = run_shell("TOPSIM_PROGRESS=always " + std::string(TOPSIM_CLI_PATH) + " check '" + suite + "' --quiet");
  REQUIRE(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
}
