// Per-job records kept on disk while runs proceed (ExperimentOptions::spill_dir) give the same
// files as records kept in memory: results.json, jobs.jsonl and every file of the report, on
// whole-GPU gangs, default-scheduler pods and GPU shares.
#include <filesystem>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "reports/report_files.h"
#include "reports/reporter.h"
#include "tests/reports/memory_sink.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

std::map<std::string, std::string> outputs(const Scenario& scenario, const std::string& spill_dir, int threads) {
  ExperimentOptions options;
  options.threads = threads;
  options.spill_dir = spill_dir;
  auto results = run_experiment(scenario, options);
  INFO((results ? std::string() : results.error().message));
  REQUIRE(results);
  for (const SchedulerResult& s : results->schedulers)
    for (const RunResult& run : s.runs) CHECK(spill_dir.empty() == (run.job_store == nullptr));
  MemorySink sink;
  REQUIRE(make_json_reporter(true)->write(*results, sink));
  REQUIRE(write_report({{"stream", &*results}}, sink));
  return sink.files;
}

// Shares (memory and compute), gangs of whole GPUs and a gang too large to ever run.
const char* kJobs = R"([
  {"name": "gang", "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "iterations": 500},
  {"name": "mem", "gpu_mem_gib": 8, "duration_s": 300, "count": 40},
  {"name": "core", "gpu_mem_gib": 4, "gpu_core_percent": 30, "duration_s": 100, "count": 30, "submit_s": 20},
  {"name": "small", "workers": 1, "gpus_per_worker": 1, "model": "vgg16", "iterations": 300, "count": 20, "submit_s": 5},
  {"name": "late", "workers": 3, "gpus_per_worker": 2, "model": "vgg16", "iterations": 300, "count": 10, "submit_s": 50},
  {"name": "huge", "workers": 5, "gpus_per_worker": 8, "model": "bert-large", "iterations": 10}])";

}  // namespace

TEST_CASE("formats::results: records on disk give the bytes of records in memory", "[formats][jobs]") {
  test::TempDir dir;
  const std::string nodes = R"([{"model": "dgx-a100", "count": 2}, {"model": "dgx1-v100", "count": 2, "label": "share"},
                                {"model": "dgx1-v100", "count": 1, "label": "core_mem"}])";
  const Scenario scenario =
      test::scenario_from(test::scenario_json(nodes, kJobs, R"(, "seeds": 2, "schedulers": ["topology-aware", "default"])"));
  const auto memory = outputs(scenario, "", 1);
  REQUIRE(memory.at("jobs.jsonl").find("\"gpu_core_percent\":30") != std::string::npos);
  REQUIRE(memory.at("jobs.jsonl").find("\"state\":\"rejected\"") != std::string::npos);
  for (int threads : {1, 2}) {
    const auto disk = outputs(scenario, dir.path.string(), threads);
    REQUIRE(disk.size() == memory.size());
    for (const auto& [name, text] : memory) {
      INFO(name << ", threads " << threads);
      CHECK(disk.at(name) == text);
    }
  }
  // The records' files had no name: nothing is left in the folder.
  CHECK(std::filesystem::is_empty(dir.path));
}
