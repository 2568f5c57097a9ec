// `topsim plan` and `topsim merge`: the files a plan writes, byte-identical results whatever the
// thread count and however it is sharded (--shard, a Slurm job array, a Kubernetes Indexed
// Job), merge's checks on its parts, exit 1 when a growth step has no configuration, one-line
// errors with exit 2, and the frontier chart drawn in a browser.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "tests/cli/browser_support.h"
#include "tests/plan/plan_fixture.h"
#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::run_shell;
using topsim::test::TempDir;

namespace {

namespace fs = std::filesystem;

const char* const kPlan = topsim::test::kSmallPlan;

const std::vector<std::string> kFiles = {"plan.json", "summary.txt", "plan.csv", "summary.md", "report.html"};

std::string write_plan(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

std::string cli() { return TOPSIM_CLI_PATH; }

void check_same_files(const std::string& a, const std::string& b) {
  for (const std::string& name : kFiles) {
    INFO(name);
    REQUIRE(fs::exists(fs::path(a) / name));
    REQUIRE(fs::exists(fs::path(b) / name));
    CHECK(read_text(fs::path(a) / name) == read_text(fs::path(b) / name));
  }
}

}  // namespace

TEST_CASE("cli::plan writes the plan's files and a headline", "[cli][plan]") {
  TempDir dir;
  const std::string plan = write_plan(dir, "small.json", kPlan);
  const CliResult r = run_cli("plan '" + plan + "' -o '" + dir.file("out") + "' --threads 1");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // The A100 runs the V100-measured jobs 1.7x faster: 5 of them beat 7 DGX-1s.
  CHECK_THAT(r.out,
             Catch::Contains("At x1 load, topology-aware meets the SLOs with 5 dgx-a100 ($119,611/month, $5,482/month less "
                             "than 7 dgx1-v100, its next best; margin: at 4 nodes, fails wait_s.p95 <= 900 (decided at 9.717 h, "
                             "152 of 300 jobs)); default needs 5 dgx-a100: the same."));
  CHECK_THAT(r.out, Catch::Contains("growth x2:"));
  // The first line counts what the plan searches, each count with its noun (one seed, singular).
  CHECK_THAT(r.out.substr(0, r.out.find('\n')),
             Catch::EndsWith("(300 jobs at x1), 2 schedulers x 3 candidates x 2 growth steps, 1 seed from 4"));
  for (const std::string& name : kFiles) CHECK(fs::exists(fs::path(dir.file("out")) / name));
  const std::string json = read_text(fs::path(dir.file("out")) / "plan.json");
  CHECK_THAT(json, Catch::Contains("\"schema\": \"topsim.plan/1\"") && Catch::Contains("\"feasible\": true"));
  const CliResult threads = run_cli("plan '" + plan + "' -o '" + dir.file("two") + "' --threads 2");
  REQUIRE(threads.exit_code == 0);
  check_same_files(dir.file("out"), dir.file("two"));
}

TEST_CASE("cli::plan shards merge into the unsharded results, byte for byte", "[cli][plan]") {
  TempDir dir;
  const std::string plan = write_plan(dir, "small.json", kPlan);
  REQUIRE(run_cli("plan '" + plan + "' -o '" + dir.file("whole") + "'").exit_code == 0);
  SECTION("--shard I/N, merged from the folder") {
    for (int i = 0; i < 3; ++i) {
      const CliResult r = run_cli("plan '" + plan + "' -o '" + dir.file("parts") + "' --shard " + std::to_string(i) + "/3");
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK_THAT(r.out, Catch::Contains("shard " + std::to_string(i) + " of 3 (--shard): 4 of 12 searches"));
    }
    const CliResult merged = run_cli("merge '" + dir.file("parts") + "' -o '" + dir.file("merged") + "'");
    INFO(merged.err);
    REQUIRE(merged.exit_code == 0);
    check_same_files(dir.file("whole"), dir.file("merged"));
  }
  SECTION("more shards than groups of searches: the extra shards write empty parts") {
    // 12 searches in 6 groups (2 growth steps x 3 candidates, each with its 2 schedulers).
    for (int i = 0; i < 7; ++i) {
      const CliResult r = run_cli("plan '" + plan + "' -o '" + dir.file("many") + "' --shard " + std::to_string(i) + "/7");
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK_THAT(r.out, Catch::Contains(i < 6 ? "2 of 12 searches" : "0 of 12 searches"));
      if (i == 6)
        CHECK_THAT(r.err, Catch::Contains("shard 6 of 7 has no search to run (the plan's 12 searches make 6 groups, and a "
                                          "group runs in one shard)"));
    }
    const CliResult merged = run_cli("merge '" + dir.file("many") + "' -o '" + dir.file("merged") + "'");
    INFO(merged.err);
    REQUIRE(merged.exit_code == 0);
    check_same_files(dir.file("whole"), dir.file("merged"));
  }
  SECTION("a Slurm job array (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT)") {
    for (int id : {7, 8}) {
      const CliResult r = run_shell("SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
                                    " SLURM_ARRAY_TASK_MIN=7 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_JOB_ID=99 " + cli() +
                                    " plan '" + plan + "' -o '" + dir.file("slurm") + "'");
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK_THAT(r.out, Catch::Contains("shard " + std::to_string(id - 7) + " of 2 (Slurm): 6 of 12 searches"));
    }
    CHECK(fs::exists(fs::path(dir.file("slurm")) / "plan-part-0-of-2.json"));
    CHECK(fs::exists(fs::path(dir.file("slurm")) / "plan-part-1-of-2.json"));
    const CliResult merged = run_cli("merge '" + dir.file("slurm") + "/plan-part-1-of-2.json' '" + dir.file("slurm") +
                                     "/plan-part-0-of-2.json' -o '" + dir.file("merged") + "'");
    REQUIRE(merged.exit_code == 0);
    check_same_files(dir.file("whole"), dir.file("merged"));
    check_bad_input(run_shell("SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=7 SLURM_ARRAY_TASK_COUNT=2 " + cli() + " plan '" +
                              plan + "' -o '" + dir.file("x") + "'"),
                    "Slurm array task 3 (min 7, count 2) is not a shard 0..1");
    check_bad_input(run_shell("SLURM_ARRAY_TASK_ID=3 " + cli() + " plan '" + plan + "' -o '" + dir.file("x") + "'"),
                    "a Slurm job array needs SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT");
  }
  SECTION("a Kubernetes Indexed Job (--shards N, JOB_COMPLETION_INDEX)") {
    for (int i = 0; i < 4; ++i) {
      const CliResult r = run_shell("JOB_COMPLETION_INDEX=" + std::to_string(i) + " " + cli() + " plan '" + plan + "' -o '" +
                                    dir.file("k8s/" + std::to_string(i)) + "' --shards 4");
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK_THAT(r.out, Catch::Contains("shard " + std::to_string(i) + " of 4 (Kubernetes): " + (i < 2 ? "4" : "2") +
                                        " of 12 searches"));  // 6 groups of 2: 2, 2, 1, 1
    }
    const CliResult merged = run_cli("merge '" + dir.file("k8s/0") + "' '" + dir.file("k8s/1") + "' '" + dir.file("k8s/2") +
                                     "' '" + dir.file("k8s/3") + "' -o '" + dir.file("merged") + "'");
    REQUIRE(merged.exit_code == 0);
    check_same_files(dir.file("whole"), dir.file("merged"));
    check_bad_input(run_cli("plan '" + plan + "' -o '" + dir.file("x") + "' --shards 4"), "JOB_COMPLETION_INDEX is not set");
    check_bad_input(run_shell("JOB_COMPLETION_INDEX=4 " + cli() + " plan '" + plan + "' -o '" + dir.file("x") + "' --shards 4"),
                    "JOB_COMPLETION_INDEX 4 is not below --shards 4");
  }
}

TEST_CASE("cli::merge refuses missing, repeated and foreign parts", "[cli][plan]") {
  TempDir dir;
  const std::string plan = write_plan(dir, "small.json", kPlan);
  for (int i = 0; i < 3; ++i)
    REQUIRE(run_cli("plan '" + plan + "' -o '" + dir.file("parts") + "' --shard " + std::to_string(i) + "/3").exit_code == 0);
  const std::string part0 = dir.file("parts") + "/plan-part-0-of-3.json", part1 = dir.file("parts") + "/plan-part-1-of-3.json";
  check_bad_input(run_cli("merge '" + part0 + "' '" + part1 + "' -o '" + dir.file("m") + "'"),
                  "shard 2 of 3 is missing (plan-part-2-of-3.json)");
  check_bad_input(run_cli("merge '" + dir.file("parts") + "' '" + part1 + "' -o '" + dir.file("m") + "'"),
                  "shard 1 of 3 is given twice");
  // A part of another plan (one SLO differs).
  std::string other = kPlan;
  other.replace(other.find("900"), 3, "901");
  const std::string other_plan = write_plan(dir, "other.json", other);
  REQUIRE(run_cli("plan '" + other_plan + "' -o '" + dir.file("other") + "' --shard 2/3").exit_code == 0);
  check_bad_input(run_cli("merge '" + part0 + "' '" + part1 + "' '" + dir.file("other") + "/plan-part-2-of-3.json' -o '" +
                          dir.file("m") + "'"),
                  "the plan files differ");
  check_bad_input(run_cli("merge '" + dir.file("nowhere") + "' -o '" + dir.file("m") + "'"), "no such file or folder");
  check_bad_input(run_cli("merge '" + plan + "' -o '" + dir.file("m") + "'"), "not a plan part");
  CHECK_FALSE(fs::exists(dir.file("m")));
}

TEST_CASE("cli::plan exits 1 when a growth step has no configuration within the bounds", "[cli][plan]") {
  TempDir dir;
  std::string tight = kPlan;
  tight.replace(tight.find("\"max_nodes\": 16"), 15, "\"max_nodes\": 3");
  const CliResult r = run_cli("plan '" + write_plan(dir, "tight.json", tight) + "' -o '" + dir.file("out") + "'");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err,
             Catch::StartsWith("topsim: SLOs not met: no configuration within the bounds meets every SLO at growth x1, x2"));
  // The largest sizes stop once their p95 wait is lost: no made-up figure, where it was decided.
  CHECK_THAT(r.out, Catch::Contains("none within the bounds: fails wait_s.p95 <= 900 (decided at "));
  CHECK_THAT(r.out, Catch::Contains("At x1 load, topology-aware cannot meet the SLOs within the bounds (fails wait_s.p95 <= 900 "
                                    "(decided at ") &&
                        Catch::Contains("default cannot either (fails wait_s.p95 <= 900 (decided at "));
  CHECK(fs::exists(fs::path(dir.file("out")) / "report.html"));  // the report says what binds
}

TEST_CASE("cli::plan rejects bad plans and options with one line, exit 2", "[cli][plan]") {
  TempDir dir;
  const std::string plan = write_plan(dir, "small.json", kPlan);
  check_bad_input(run_cli("plan '" + dir.file("missing.json") + "'"), "missing.json");
  std::string bad = kPlan;
  bad.replace(bad.find("\"wait_s.p95\": 900"), 17, "\"wait_s.p95\": {\"min\": 5, \"max\": 1}");
  check_bad_input(run_cli("plan '" + write_plan(dir, "bad.json", bad) + "'"), "bad.json: /slo/wait_s.p95: contradictory");
  std::string unknown = kPlan;
  unknown.replace(unknown.find("\"wait_s.p95\": 900"), 17, "\"wait_s.p96\": 900");
  check_bad_input(run_cli("plan '" + write_plan(dir, "unknown.json", unknown) + "'"),
                  "unknown.json: /slo/wait_s.p96: unknown SLO metric");
  check_bad_input(run_cli("plan '" + plan + "' --shard 3/3"), "--shard '3/3': expected I/N with 0 <= I < N");
  check_bad_input(run_cli("plan '" + plan + "' --shard x"), "--shard 'x'");
  check_bad_input(run_cli("plan '" + plan + "' --shard 0/2 --shards 2"), "contradict");
  check_bad_input(run_cli("merge -o '" + dir.file("m") + "'"), "give the shards' output folders");
  check_bad_input(run_cli("merge '" + dir.file("x") + "'"), "-o DIR is required");
}

TEST_CASE("cli::plan report draws the cost vs p95 wait frontier", "[cli][plan][browser]") {
  const std::string chromium = topsim::test::program("chromium");
  if (chromium.empty()) {
    WARN("skipped: chromium is not installed (bash bootstrap.sh test installs it)");
    return;
  }
  TempDir dir;
  REQUIRE(run_cli("plan '" + write_plan(dir, "small.json", kPlan) + "' -o '" + dir.file("out") + "'").exit_code == 0);
  const std::string html = read_text(fs::path(dir.file("out")) / "report.html");
  CHECK_THAT(html, Catch::Contains("Cost vs p95 wait, growth x1") && Catch::Contains("Cost vs p95 wait, growth x2"));
  topsim::test::check_in_browser(chromium, dir.file("out"));
}

TEST_CASE("cli::plan --list-slos prints the metrics an SLO can bound", "[cli][plan]") {
  const CliResult r = run_cli("plan --list-slos");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("wait_s.p95") && Catch::Contains("placement_efficiency") &&
                        Catch::Contains("gpu_alloc_ratio.mean") && Catch::Contains("rejected"));
  CHECK_THAT(r.out, !Catch::Contains("\nfailed ") && !Catch::Contains("arrived_load"));  // fill-only metrics
}
