// results.json's `preemptions` columns (docs/results-format.md): every eviction of a run with
// quota, written and read back; rows that are not a job id, a preemptor id and a known reason
// are skipped, as the failures' malformed entries are.
#include <algorithm>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/results/results_json.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// A set of one run of no jobs whose preemptions are `preemptions`.
ResultSet with_preemptions(std::vector<Preemption> preemptions) {
  ResultSet results = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", "[]")));
  REQUIRE(!results.schedulers.empty());
  for (SchedulerResult& s : results.schedulers)
    for (RunResult& run : s.runs) run.preemptions = preemptions;
  return results;
}

Expected<ResultSet> written_and_read(const ResultSet& results, const TempDir& dir) {
  {
    std::ofstream out(dir.file("results.json"));
    write_results_json(results, out);
  }
  return load_results(dir.path.string());
}

}  // namespace

TEST_CASE("results: preemptions are written as columns and read back, every reason", "[results][kueue][kai]") {
  const std::vector<Preemption> made{{100'000, 1, 2, PreemptionReason::InClusterQueue, -1, -1, 160'000},
                                     {100'000, 3, 2, PreemptionReason::InCohortReclamation, -1, -1, 3'600'001},
                                     {250'500, 4, 7, PreemptionReason::InCohortReclaimWhileBorrowing},
                                     {300'000, 5, 8, PreemptionReason::InCohortFairSharing},
                                     {400'000, 6, 9, PreemptionReason::Reclaim},
                                     {500'000, 0, 9, PreemptionReason::Preempt}};
  const ResultSet results = with_preemptions(made);
  TempDir dir;
  const auto loaded = written_and_read(results, dir);
  REQUIRE(loaded.ok());
  for (const SchedulerResult& s : loaded->schedulers) CHECK(s.runs.front().preemptions == made);
  const auto json = nlohmann::json::parse(read_text(dir.file("results.json")));
  CHECK(json["schedulers"][0]["runs"][0]["preemptions"]["reason"] ==
        nlohmann::json::parse(R"(["InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing",
                                   "InCohortFairSharing", "reclaim", "preempt"])"));
  CHECK(json["schedulers"][0]["runs"][0]["preemptions"]["time_s"][2] == 250.5);
  CHECK(json["schedulers"][0]["runs"][0]["preemptions"]["lost_gpu_s"] == nlohmann::json::parse("[160, 3600.001, 0, 0, 0, 0]"));
}

TEST_CASE("results: a run without preemptions has no preemptions columns", "[results]") {
  TempDir dir;
  REQUIRE(written_and_read(with_preemptions({}), dir).ok());
  CHECK(!nlohmann::json::parse(read_text(dir.file("results.json")))["schedulers"][0]["runs"][0].contains("preemptions"));
}

TEST_CASE("results: malformed preemption rows are skipped, the rest read", "[results]") {
  TempDir dir;
  REQUIRE(written_and_read(with_preemptions({{1000, 1, 2, PreemptionReason::Reclaim}}), dir).ok());
  auto json = nlohmann::json::parse(read_text(dir.file("results.json")));
  json["schedulers"][0]["runs"][0]["preemptions"] = nlohmann::json::parse(R"({
    "time_s": [1, 2, 3, 4, 5, 6],
    "job": [1, -1, 3, "4", 5, 4294967296],
    "by": [2, 2, null, 2, 2, 2],
    "reason": ["reclaim", "reclaim", "reclaim", "reclaim", "evicted", "preempt"]})");
  std::ofstream(dir.file("results.json")) << json.dump();
  const auto loaded = load_results(dir.path.string());
  REQUIRE(loaded.ok());
  // No lost_gpu_s column (results written before it): the cost is not known, -1.
  CHECK(loaded->schedulers.front().runs.front().preemptions ==
        std::vector<Preemption>{{1000, 1, 2, PreemptionReason::Reclaim, -1, -1, -1}});
}

TEST_CASE("results: an eviction's GPU time that is not a number of seconds is not known", "[results]") {
  TempDir dir;
  REQUIRE(written_and_read(with_preemptions({{1000, 1, 2, PreemptionReason::Reclaim}}), dir).ok());
  auto json = nlohmann::json::parse(read_text(dir.file("results.json")));
  json["schedulers"][0]["runs"][0]["preemptions"] = nlohmann::json::parse(R"({
    "time_s": [1, 2, 3, 4], "job": [1, 1, 1, 1], "by": [2, 2, 2, 2],
    "reason": ["reclaim", "reclaim", "reclaim", "reclaim"], "lost_gpu_s": [12.5, -1, "7", null]})");
  std::ofstream(dir.file("results.json")) << json.dump();
  const auto loaded = load_results(dir.path.string());
  REQUIRE(loaded.ok());
  std::vector<int64_t> lost;
  for (const Preemption& p : loaded->schedulers.front().runs.front().preemptions) lost.push_back(p.lost_gpu_ms);
  CHECK(lost == std::vector<int64_t>{12'500, -1, -1, -1});
}

TEST_CASE("results: columns fill lines up to 100 characters, and read back the same", "[results]") {
  std::vector<Preemption> many;
  for (uint32_t i = 0; i < 2000; ++i)
    many.push_back(
        {int64_t{1'000'000} + 7 * i, i, 5000 + i, i % 3 ? PreemptionReason::InCohortReclamation : PreemptionReason::Preempt});
  TempDir dir;
  const auto loaded = written_and_read(with_preemptions(many), dir);
  REQUIRE(loaded.ok());
  CHECK(loaded->schedulers.front().runs.front().preemptions == many);
  const std::string text = read_text(dir.file("results.json"));
  const size_t from = text.find("\"preemptions\": {"), to = text.find('}', from);
  REQUIRE(from != std::string::npos);
  size_t lines = 0, widest = 0;
  for (size_t at = from; at < to;) {
    const size_t end = text.find('\n', at);
    widest = std::max(widest, end - at), ++lines, at = end + 1;
  }
  CHECK(widest <= 100);
  CHECK(lines < 2000);  // 8,000 values, several to a line
  // A column that fits on its key's line stays on it.
  REQUIRE(written_and_read(with_preemptions({{1000, 1, 2, PreemptionReason::Reclaim}}), dir).ok());
  CHECK_THAT(read_text(dir.file("results.json")), Catch::Contains("\"time_s\": [1.0],\n"));
}
