// `topsim run` keeps per-job records on disk while runs proceed (sim/job_store.h) and writes
// jobs.jsonl, jobs.csv and the report from them: the same bytes whatever the thread count, and
// a run that fails or is killed half-way leaves no file behind (the records' file has no name).
#include <csignal>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/test_support.h"

using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::run_shell;
using topsim::test::TempDir;

namespace fs = std::filesystem;

namespace {

// Every file of a folder, by name.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) files[entry.path().filename().string()] = read_text(entry.path());
  return files;
}

// Two schedulers, three seeds: six runs of 400 synthetic jobs on 4 DGX A100.
const char* kScenario = R"({"name": "stream", "seed": 3, "seeds": 3, "schedulers": ["topology-aware", "default"],
 "cluster": {"nodes": [{"model": "dgx-a100", "count": 4}]},
 "workload": {"kind": "synthetic", "jobs": 400, "arrival_rate_per_hour": 30, "seed": 5}})";

std::string big_scenario(const TempDir& dir, int jobs) {
  const std::string path = dir.file("big.json");
  std::ofstream(path)
      << R"({"name": "big", "schedulers": ["topology-aware"], "cluster": {"nodes": [{"model": "dgx-a100", "count": 64}]},
   "workload": {"kind": "synthetic", "jobs": )"
      << jobs << "}}";
  return path;
}

}  // namespace

TEST_CASE("cli::run: per-job files are the same bytes with one thread and with two", "[cli][jobs]") {
  TempDir dir;
  const std::string scenario = dir.file("stream.json");
  std::ofstream(scenario) << kScenario;
  for (const char* threads : {"1", "2"}) {
    const CliResult r = run_cli("run '" + scenario + "' --quiet --threads " + threads + " -o '" + dir.file(threads) + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  const auto one = files_of(dir.file("1")), two = files_of(dir.file("2"));
  // Every file, jobs.jsonl (2 x 3 x 400 lines), jobs.csv and the set's record included; nothing
  // else in the folder.
  REQUIRE(one.size() == 13);
  CHECK(one.count(".topsim-set.json") == 1);
  CHECK(one.count("jobs.jsonl") == 1);
  CHECK(std::count(one.at("jobs.jsonl").begin(), one.at("jobs.jsonl").end(), '\n') == 2400);
  for (const auto& [name, text] : one) {
    INFO(name);
    REQUIRE(two.count(name) == 1);
    CHECK(text == two.at(name));
  }
}

TEST_CASE("cli::run: a run that fails or dies half-way leaves nothing in its folder", "[cli][jobs]") {
  TempDir dir;
  // 100,000 jobs keep more than 1 MB of records on disk: past a 1 MB file size limit.
  const std::string scenario = big_scenario(dir, 100000);
  SECTION("a write that fails (a full disk alike): one error line, exit 2, and the folder it made is gone") {
    const CliResult r = run_shell("trap '' XFSZ; ulimit -f 1024; " + std::string(TOPSIM_CLI_PATH) + " run '" + scenario +
                                  "' --quiet -o '" + dir.file("out") + "'");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err,
               Catch::StartsWith("topsim: error: cannot keep the per-job records in '" + dir.file("out") + "/.topsim-staging-") &&
                   Catch::EndsWith("': File too large\n"));
    CHECK_FALSE(fs::exists(dir.file("out")));
  }
  SECTION("killed at that write (SIGXFSZ): no file either, and the next run clears the staging folder") {
    const CliResult r = run_shell("ulimit -f 1024; " + std::string(TOPSIM_CLI_PATH) + " run '" + scenario + "' --quiet -o '" +
                                  dir.file("out") + "'; echo $?");
    CHECK(r.out == std::to_string(128 + SIGXFSZ) + "\n");
    REQUIRE(fs::is_directory(dir.file("out")));
    for (const auto& entry : fs::directory_iterator(dir.file("out")))
      CHECK(entry.path().filename().string().rfind(".topsim-staging-", 0) == 0);  // nothing visible
    REQUIRE(run_cli("run '" + big_scenario(dir, 5) + "' --quiet -o '" + dir.file("out") + "'").exit_code == 0);
    for (const auto& entry : fs::directory_iterator(dir.file("out")))
      CHECK(entry.path().filename().string().rfind(".topsim-staging-", 0) != 0);
  }
}
