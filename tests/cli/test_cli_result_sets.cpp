// A run's files are one result set: written whole or not at all, by one topsim at a time, through
// files created exclusively, and stamped with the run's identity that `topsim report` verifies.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/cli/result_set_support.h"
#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::run_into;
using topsim::test::run_shell;
using topsim::test::TempDir;
using topsim::test::write_set_scenario;

namespace fs = std::filesystem;

namespace {

// Names in `dir` that start with `prefix`.
int count_prefixed(const std::string& dir, const std::string& prefix) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_CASE("cli::result sets: results.json and jobs.jsonl of different runs are refused by report", "[cli][outputs]") {
  TempDir dir;
  const std::string a = dir.file("a"), b = dir.file("b");
  REQUIRE(run_into(write_set_scenario(dir, "a.json", 5), a).exit_code == 0);
  REQUIRE(run_into(write_set_scenario(dir, "b.json", 7), b).exit_code == 0);
  // results.json names its run and the digest of the jobs.jsonl written with it.
  const auto results = nlohmann::json::parse(read_text(a + "/results.json"));
  CHECK(results["run"]["id"].get<std::string>().size() == 16);
  CHECK(results["run"]["jobs_jsonl"]["lines"] == 10);  // 5 jobs x 2 schedulers
  REQUIRE(run_cli("report '" + a + "'").exit_code == 0);

  SECTION("jobs.jsonl of another run") {
    fs::copy_file(b + "/jobs.jsonl", a + "/jobs.jsonl", fs::copy_options::overwrite_existing);
    check_bad_input(run_cli("report '" + a + "'"), a + "/jobs.jsonl: not the one written with results.json");
  }
  SECTION("one changed byte") {
    std::string jobs = read_text(a + "/jobs.jsonl");
    jobs[jobs.find("\"wait_s\":") + 9] = '7';
    std::ofstream(a + "/jobs.jsonl", std::ios::binary) << jobs;
    check_bad_input(run_cli("report '" + a + "'"), "not the one written with results.json");
  }
  SECTION("jobs.jsonl cut short, as by a kill") {
    const std::string jobs = read_text(a + "/jobs.jsonl");
    std::ofstream(a + "/jobs.jsonl", std::ios::binary) << jobs.substr(0, jobs.find('\n') + 1);
    check_bad_input(run_cli("report '" + a + "'"), "1 lines, 10 expected");
  }
  SECTION("jobs.jsonl missing, or beside a run written without it") {
    fs::remove(a + "/jobs.jsonl");
    check_bad_input(run_cli("report '" + a + "'"), a + "/jobs.jsonl: missing");
    REQUIRE(run_into(dir.file("b.json"), a, "--summary-only").exit_code == 0);
    CHECK_FALSE(fs::exists(a + "/jobs.jsonl"));  // the older run's is gone with its set
    fs::copy_file(b + "/jobs.jsonl", a + "/jobs.jsonl");
    check_bad_input(run_cli("report '" + a + "'"), "was written without it");
  }
  SECTION("the same inputs give the same identity") {
    REQUIRE(run_into(dir.file("a.json"), dir.file("again")).exit_code == 0);
    CHECK(read_text(dir.file("again/results.json")) == read_text(a + "/results.json"));
  }
}

TEST_CASE("cli::result sets: a run refused at its output leaves the previous set as it was", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out");
  const std::string scenario = write_set_scenario(dir, "s.json", 5);
  REQUIRE(run_into(scenario, out).exit_code == 0);
  const std::string results = read_text(out + "/results.json"), jobs = read_text(out + "/jobs.jsonl");
  const std::string other = write_set_scenario(dir, "other.json", 9);

  SECTION("a file of the set is a folder") {
    fs::remove(out + "/report.html");
    fs::create_directory(out + "/report.html");
    check_bad_input(run_into(other, out), out + "/report.html': it is a directory");
  }
  SECTION("a file of the set is a FIFO") {
    fs::remove(out + "/summary.txt");
    REQUIRE(::mkfifo((out + "/summary.txt").c_str(), 0600) == 0);
    check_bad_input(run_into(other, out), out + "/summary.txt': it exists and is not a regular file");
  }
  CHECK(read_text(out + "/results.json") == results);
  CHECK(read_text(out + "/jobs.jsonl") == jobs);
  CHECK(count_prefixed(out, ".topsim-staging-") == 0);
}

TEST_CASE("cli::result sets: a second topsim writing into the same folder is refused", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out");
  fs::create_directory(out);
  // This process holds the folder's lock as a running topsim would.
  const int fd = ::open(out.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  const std::string scenario = write_set_scenario(dir, "s.json", 5);
  check_bad_input(run_into(scenario, out), "another topsim is writing there");
  check_bad_input(run_cli("report '" + out + "' -o '" + out + "'"), "results.json");  // nothing there yet
  ::close(fd);
  CHECK(run_into(scenario, out).exit_code == 0);
}

TEST_CASE("cli::result sets: a killed run leaves no half-written file, and the next run clears its staging", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out");
  const std::string small = write_set_scenario(dir, "small.json", 5);
  REQUIRE(run_into(small, out).exit_code == 0);
  const std::string results = read_text(out + "/results.json");
  // A longer run, killed with SIGKILL while it runs or writes.
  const std::string large = write_set_scenario(dir, "large.json", 200000);
  run_shell("(" + std::string(TOPSIM_CLI_PATH) + " run '" + large + "' -o '" + out + "' --quiet >/dev/null 2>&1 & pid=$!; " +
            "sleep 0.5; kill -9 $pid; wait $pid) 2>/dev/null");
  // Every visible file is one of the set's: no "*.tmp"; the set reads whole, or its record is gone.
  for (const auto& entry : fs::directory_iterator(out)) {
    const std::string name = entry.path().filename().string();
    CHECK(name.find(".tmp") == std::string::npos);
  }
  if (fs::exists(out + "/results.json")) CHECK(run_cli("report '" + out + "'").exit_code == 0);
  // The next run removes what the killed one left.
  REQUIRE(run_into(small, out).exit_code == 0);
  CHECK(count_prefixed(out, ".topsim-staging-") == 0);
  CHECK(read_text(out + "/results.json") == results);
}

TEST_CASE("cli::result sets: SIGTERM while a run works or writes leaves the previous set and no staging", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out");
  REQUIRE(run_into(write_set_scenario(dir, "small.json", 5), out).exit_code == 0);
  const std::string results = read_text(out + "/results.json");
  const std::string large = write_set_scenario(dir, "large.json", 200000);
  const CliResult r = run_shell("(" + std::string(TOPSIM_CLI_PATH) + " run '" + large + "' -o '" + out +
                                "' --quiet >/dev/null 2>&1 & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid; echo $?)");
  INFO(r.out);
  if (r.out == "143\n") {  // ended by the signal (not finished first)
    CHECK(count_prefixed(out, ".topsim-staging-") == 0);
    CHECK(read_text(out + "/results.json") == results);
  }
}

TEST_CASE("cli::result sets: temporary files never write through a link made in advance", "[cli][outputs]") {
  TempDir dir;
  const std::string outside = dir.file("outside.txt");
  std::ofstream(outside) << "keep";
  fs::create_directory(dir.file("out"));
  // The names the former scheme would have used: "<file>.tmp" beside the file.
  for (const std::string name : {"results.json", "jobs.jsonl", "summary.txt", "report.html"})
    fs::create_hard_link(outside, dir.file("out/" + name + ".tmp"));
  fs::create_hard_link(outside, dir.file("node.json.tmp"));
  REQUIRE(run_into(write_set_scenario(dir, "s.json", 5), dir.file("out")).exit_code == 0);
  REQUIRE(run_cli("topo export-nccl dgx-a100 -o '" + dir.file("node.json") + "'").exit_code == 0);
  CHECK(read_text(outside) == "keep");
  CHECK(fs::hard_link_count(outside) == 6);
  CHECK(read_text(dir.file("node.json")).find("<system") != std::string::npos);
}

TEST_CASE("cli::result sets: FIFOs and devices are never opened where a file is expected", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out");
  REQUIRE(run_into(write_set_scenario(dir, "s.json", 5), out).exit_code == 0);
  SECTION("a results folder whose jobs.jsonl is a FIFO: refused, not waited on") {
    fs::remove(out + "/jobs.jsonl");
    REQUIRE(::mkfifo((out + "/jobs.jsonl").c_str(), 0600) == 0);
    check_bad_input(run_cli("report '" + out + "' -o '" + dir.file("r") + "'"), "not a regular file (a FIFO)");
  }
  SECTION("GITHUB_STEP_SUMMARY naming a FIFO: refused before the suite runs") {
    REQUIRE(::mkfifo(dir.file("summary").c_str(), 0600) == 0);
    std::ofstream(dir.file("suite.json"))
        << R"({"scenarios": [{"scenario": "s.json", "metrics": {"topology-aware/placed": {}}}]})";
    REQUIRE(run_cli("check '" + dir.file("suite.json") + "' --update --quiet").exit_code == 0);
    const CliResult r = run_shell("GITHUB_STEP_SUMMARY='" + dir.file("summary") + "' " + TOPSIM_CLI_PATH + " check '" +
                                  dir.file("suite.json") + "' --quiet");
    check_bad_input(r, "GITHUB_STEP_SUMMARY: cannot append to '" + dir.file("summary") + "': not a regular file");
  }
  SECTION("a folder of manifests holding a FIFO and a link loop names them") {
    fs::create_directory(dir.file("m"));
    std::ofstream(dir.file("m/job.yaml")) << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
                                             "  - name: c\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n";
    REQUIRE(::mkfifo(dir.file("m/fifo.yaml").c_str(), 0600) == 0);
    fs::create_symlink("loop.yaml", dir.file("m/loop.yaml"));
    const CliResult r = run_cli("import jobs '" + dir.file("m") + "' -o '" + dir.file("jobs.json") + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // Each names the entry as it is, without quotes: "skipped <path>: <why>".
    CHECK(r.out.find("skipped " + dir.file("m/fifo.yaml") + ": not a regular file (a FIFO)") != std::string::npos);
    CHECK(r.out.find("skipped " + dir.file("m/loop.yaml") + ": ") != std::string::npos);
  }
}
