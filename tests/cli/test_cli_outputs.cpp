// Outputs are written only where asked, only over regular files, and their places are checked
// before any work is done.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::run_shell;
using topsim::test::TempDir;

namespace fs = std::filesystem;

namespace {

const char* kScenario = R"({"name": "NAME", "cluster": {"nodes": [{"model": "dgx-a100", "count": 1}]},
 "workload": {"kind": "synthetic", "jobs": 5, "seed": 1}})";

std::string scenario_named(const TempDir& dir, const std::string& name) {
  std::string text = kScenario;
  text.replace(text.find("NAME"), 4, name);
  const std::string path = dir.file("s.json");
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("cli::outputs: a scenario name never writes outside results/", "[cli][outputs]") {
  TempDir dir;
  fs::create_directories(dir.file("work"));
  const std::string scenario = scenario_named(dir, "../../escaped");
  const CliResult r = run_shell("cd '" + dir.file("work") + "' && " + TOPSIM_CLI_PATH + " run '" + scenario + "' --quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::exists(fs::path(dir.file("work")) / "results" / "_.._escaped" / "results.json"));
  CHECK_FALSE(fs::exists(dir.file("escaped")));
  CHECK_FALSE(fs::exists(fs::path(dir.path).parent_path() / "escaped"));
}

TEST_CASE("cli::outputs: never replaces what is not a regular file", "[cli][outputs]") {
  TempDir dir;
  const std::string fifo = dir.file("node.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  check_bad_input(run_cli("topo export-nccl dgx-a100 -o '" + fifo + "'"), "it exists and is not a regular file");
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));  // still the FIFO
  CHECK_FALSE(fs::exists(fifo + ".tmp"));
  check_bad_input(run_cli("topo export-nccl dgx-a100 -o '" + dir.path.string() + "'"), "it is a directory");
}

TEST_CASE("cli::outputs: the output place is checked before the work", "[cli][outputs]") {
  TempDir dir;
  std::ofstream(dir.file("file")) << "x";
  // A plan or a run into a folder that is a file: refused at once, nothing run.
  check_bad_input(run_cli("run '" + scenario_named(dir, "ok") + "' -o '" + dir.file("file") + "/out'"), "cannot create");
  const std::string plan = dir.file("plan.json");
  std::ofstream(plan) << R"({"workload": {"kind": "synthetic", "jobs": 5}, "node_types": [{"model": "dgx-a100",
    "cost_per_node_hour": 1}], "slo": {"rejected": 0}})";
  check_bad_input(run_cli("plan '" + plan + "' -o '" + dir.file("file") + "' --quiet"), "cannot create");
  // A check whose JUnit file cannot be written: refused before the suite runs.
  const std::string suite = dir.file("suite.json");
  std::ofstream(suite) << R"({"scenarios": [{"scenario": "s.json", "metrics": {"topology-aware/placed": {}}}]})";
  const CliResult r = run_cli("check '" + suite + "' --update --junit '" + dir.file("absent/junit.xml") + "'");
  check_bad_input(r, "the folder '" + dir.file("absent") + "' does not exist");
  CHECK_FALSE(fs::exists(dir.file("suite-baseline.json")));
}
