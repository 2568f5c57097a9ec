// Every file of a result set is bound to one run: the set's record (.topsim-set.json) names the
// run and each file's size and digest; `report` verifies it, a set of another run is never
// written beside it, `merge` refuses parts run on other inputs and `check` a baseline measured on
// other inputs.
#include <sys/stat.h>

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
using topsim::test::TempDir;
using topsim::test::write_set_scenario;

namespace fs = std::filesystem;

namespace {

// Writes `text` to DIR/name; its path.
std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

nlohmann::json record_of(const std::string& dir) { return nlohmann::json::parse(read_text(dir + "/.topsim-set.json")); }

// `rows` Philly jobs of one GPU, each running `seconds`.
std::string philly_rows(int rows, int seconds) {
  std::string text = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  for (int i = 0; i < rows; ++i)
    text += "2017-10-09 07:" + std::to_string(10 + i) + ":00," + std::to_string(seconds) + ",1," + std::to_string(seconds) +
            ".0,11cb48\n";
  return text;
}

}  // namespace

TEST_CASE("cli::set record: every file of a run is recorded with the run's identity", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out");
  REQUIRE(run_into(write_set_scenario(dir, "s.json", 5), out).exit_code == 0);
  const auto record = record_of(out);
  const auto results = nlohmann::json::parse(read_text(out + "/results.json"));
  CHECK(record["schema"] == "topsim.set/1");
  CHECK(record["run"] == results["run"]["id"]);
  for (const std::string name :
       {"results.json", "jobs.jsonl", "summary.txt", "report.html", "summary.md", "summary.csv", "jobs.csv", "timeseries.csv",
        "tenant_timeseries.csv", "uplink_timeseries.csv", "fill_curves.csv", "metrics.prom"}) {
    INFO(name);
    REQUIRE(record["files"].contains(name));
    CHECK(record["files"][name]["bytes"] == fs::file_size(out + "/" + name));
  }
  SECTION("the same inputs write the same record") {
    REQUIRE(run_into(dir.file("s.json"), dir.file("again")).exit_code == 0);
    CHECK(read_text(dir.file("again/.topsim-set.json")) == read_text(out + "/.topsim-set.json"));
  }
  SECTION("--summary-only and --no-report record what they wrote, and nothing of the older set") {
    REQUIRE(run_into(dir.file("s.json"), out, "--summary-only --no-report").exit_code == 0);
    const auto smaller = record_of(out);
    CHECK(smaller["files"].size() == 2);  // results.json, summary.txt
    CHECK_FALSE(smaller["files"].contains("report.html"));
    CHECK(run_cli("report '" + out + "'").exit_code == 0);
  }
}

TEST_CASE("cli::set record: report refuses a folder whose files are not all of its run", "[cli][outputs]") {
  TempDir dir;
  const std::string a = dir.file("a"), b = dir.file("b");
  REQUIRE(run_into(write_set_scenario(dir, "a.json", 5), a).exit_code == 0);
  REQUIRE(run_into(write_set_scenario(dir, "b.json", 7), b).exit_code == 0);
  const std::string report = "report '" + a + "' -o '" + dir.file("r") + "'";
  REQUIRE(run_cli(report).exit_code == 0);
  SECTION("summary.txt of another run") {
    fs::copy_file(b + "/summary.txt", a + "/summary.txt", fs::copy_options::overwrite_existing);
    check_bad_input(run_cli(report), a + "/summary.txt: not the one written with run ");
  }
  SECTION("a CSV changed since") {
    std::ofstream(a + "/jobs.csv", std::ios::app) << "x\r\n";
    check_bad_input(run_cli(report), a + "/jobs.csv: not the one written with run ");
  }
  SECTION("metrics.prom missing") {
    fs::remove(a + "/metrics.prom");
    check_bad_input(run_cli(report), a + "/metrics.prom: not the one written with run ");
  }
  SECTION("results.json and jobs.jsonl both of another run, the record of the first") {
    for (const std::string name : {"results.json", "jobs.jsonl"})
      fs::copy_file(b + "/" + name, a + "/" + name, fs::copy_options::overwrite_existing);
    check_bad_input(run_cli(report), a + "/results.json: run ");
  }
  SECTION("a record that is not one") {
    std::ofstream(a + "/.topsim-set.json") << R"({"schema": "topsim.set/1", "run": "x", "files": {}})";
    check_bad_input(run_cli(report), a + "/.topsim-set.json: /run: expected 16 hexadecimal digits");
  }
  SECTION("a record naming a path out of the folder") {
    std::ofstream(a + "/.topsim-set.json")
        << R"({"schema": "topsim.set/1", "run": "0123456789abcdef", "files": {"../b/results.json": {"bytes": 1, "digest": "0123456789abcdef"}}})";
    check_bad_input(run_cli(report), "not a plain file name");
  }
}

TEST_CASE("cli::set record: a set is never written beside another run's files", "[cli][outputs]") {
  TempDir dir;
  const std::string a = dir.file("a"), b = dir.file("b");
  REQUIRE(run_into(write_set_scenario(dir, "a.json", 5), a).exit_code == 0);
  REQUIRE(run_into(write_set_scenario(dir, "b.json", 7), b).exit_code == 0);
  const std::string a_results = read_text(a + "/results.json"), a_report = read_text(a + "/report.html");
  SECTION("the report of run b into run a's folder") {
    check_bad_input(run_cli("report '" + b + "' -o '" + a + "'"), "of run ");
    CHECK(read_text(a + "/report.html") == a_report);
  }
  SECTION("a comparison into run a's folder") {
    check_bad_input(run_cli("report '" + a + "' '" + b + "' -o '" + a + "'"), "the folder would mix two runs");
  }
  SECTION("a plan into run a's folder: refused before it runs") {
    const std::string plan = write_file(dir, "p.json", R"({"name": "p", "seeds": 1,
 "workload": {"kind": "synthetic", "jobs": 20, "arrival_rate_per_hour": 20},
 "node_types": [{"model": "dgx-a100", "cost_per_node_hour": 32.77}],
 "schedulers": ["topology-aware"], "slo": {"wait_s.p95": 900}, "bounds": {"max_nodes": 4}})");
    check_bad_input(run_cli("plan '" + plan + "' -o '" + a + "' --quiet"),
                    "summary.csv, tenant_timeseries.csv, timeseries.csv, uplink_timeseries.csv of run ");
  }
  SECTION("a run's own report beside it is fine, and keeps the record whole") {
    REQUIRE(run_cli("report '" + a + "' --label mine").exit_code == 0);
    const auto record = record_of(a);
    CHECK(record["files"].contains("results.json"));
    CHECK(record["files"]["report.html"]["bytes"] == fs::file_size(a + "/report.html"));
    CHECK(run_cli("report '" + a + "'").exit_code == 0);
  }
  CHECK(read_text(a + "/results.json") == a_results);
}

TEST_CASE("cli::set record: temporary files left by older versions are removed, nothing else", "[cli][outputs]") {
  TempDir dir;
  const std::string out = dir.file("out");
  fs::create_directory(out);
  const std::string outside = write_file(dir, "outside.txt", "keep");
  std::ofstream(out + "/jobs.jsonl.tmp") << "{\"job\": 1}\n";  // a killed older run's
  std::ofstream(out + "/notes.tmp") << "mine";                 // not a file of the set
  fs::create_hard_link(outside, out + "/results.json.tmp");    // not topsim's: two links
  fs::create_symlink(outside, out + "/summary.txt.tmp");
  REQUIRE(run_into(write_set_scenario(dir, "s.json", 5), out).exit_code == 0);
  CHECK_FALSE(fs::exists(out + "/jobs.jsonl.tmp"));
  CHECK(fs::exists(out + "/notes.tmp"));
  CHECK(fs::exists(out + "/results.json.tmp"));
  CHECK(fs::is_symlink(out + "/summary.txt.tmp"));
  CHECK(read_text(outside) == "keep");
  SECTION("and beside a single output file") {
    std::ofstream(dir.file("node.xml.tmp")) << "<half";
    REQUIRE(run_cli("topo export-nccl dgx-a100 -o '" + dir.file("node.xml") + "'").exit_code == 0);
    CHECK_FALSE(fs::exists(dir.file("node.xml.tmp")));
  }
}

TEST_CASE("cli::merge refuses parts whose shards read other input files", "[cli][plan][outputs]") {
  TempDir dir;
  const std::string plan = write_file(dir, "p.json", R"({"name": "p", "seeds": 1,
 "workload": {"kind": "philly", "path": "philly.csv"},
 "node_types": [{"model": "dgx1-v100", "cost_per_node_hour": 24.48}],
 "schedulers": ["topology-aware", "default"], "slo": {"wait_s.p95": 900}, "bounds": {"max_nodes": 4}})");
  write_file(dir, "philly.csv", philly_rows(12, 600));
  REQUIRE(run_cli("plan '" + plan + "' -o '" + dir.file("parts") + "' --shard 0/2 --quiet").exit_code == 0);
  SECTION("the same trace: merged") {
    REQUIRE(run_cli("plan '" + plan + "' -o '" + dir.file("parts") + "' --shard 1/2 --quiet").exit_code == 0);
    CHECK(run_cli("merge '" + dir.file("parts") + "' -o '" + dir.file("m") + "'").exit_code == 0);
  }
  SECTION("the trace changed between the shards: refused") {
    write_file(dir, "philly.csv", philly_rows(12, 900));
    REQUIRE(run_cli("plan '" + plan + "' -o '" + dir.file("parts") + "' --shard 1/2 --quiet").exit_code == 0);
    check_bad_input(run_cli("merge '" + dir.file("parts") + "' -o '" + dir.file("m") + "'"),
                    "the plan files differ, or the trace and node files they read do");
    CHECK_FALSE(fs::exists(dir.file("m")));
  }
}

TEST_CASE("cli::check refuses a baseline measured on other inputs", "[cli][check][outputs]") {
  TempDir dir;
  write_file(dir, "s.json", R"({"name": "tiny", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}]},
 "workload": {"kind": "philly", "path": "philly.csv"}})");
  write_file(dir, "philly.csv", philly_rows(6, 600));
  const std::string suite =
      write_file(dir, "suite.json", R"({"scenarios": [{"scenario": "s.json", "metrics": {"topology-aware/placed": {}}}]})");
  REQUIRE(run_cli("check '" + suite + "' --update --quiet").exit_code == 0);
  const auto baseline = nlohmann::json::parse(read_text(dir.file("suite-baseline.json")));
  CHECK(baseline["inputs"]["tiny"].get<std::string>().size() == 16);
  CHECK(run_cli("check '" + suite + "' --quiet").exit_code == 0);
  SECTION("the trace changed since --update") {
    write_file(dir, "philly.csv", philly_rows(6, 660));
    check_bad_input(run_cli("check '" + suite + "' --quiet"),
                    "/inputs/tiny: measured on other inputs than " + dir.file("s.json"));
  }
  SECTION("a baseline of an older version (no inputs) is read as before") {
    auto older = baseline;
    older.erase("inputs");
    std::ofstream(dir.file("suite-baseline.json")) << older.dump();
    write_file(dir, "philly.csv", philly_rows(6, 660));
    CHECK(run_cli("check '" + suite + "' --quiet").exit_code != 2);
  }
}
