// KAI's fair share and time-aware usage per queue over time (ClusterSample's per-tenant vectors):
// kept in results.json, read back, and charted in report.html. One DGX-1, a department `lab` with
// leaf queues a and b (no deserved quota, equal weights); a asks the whole node for 10,000 s at 0,
// b for 300 s at 10 s.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "formats/results/results_json.h"
#include "reports/report_files.h"
#include "reports/report_model.h"
#include "tests/reports/csv_records.h"
#include "tests/reports/memory_sink.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"
#include "util/number_format.h"

using namespace topsim;
using namespace topsim::test;

namespace {

ResultSet lab_run(const TempDir& dir, bool time_aware) {
  std::filesystem::create_directories(dir.file("q"));
  std::ofstream out(dir.file("q/queues.yaml"));
  out << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: lab\nspec:\n  resources:\n"
      << "    gpu: {quota: 8, overQuotaWeight: 1, limit: -1}\n";
  for (const char* leaf : {"a", "b"})
    out << "---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: " << leaf
        << "\nspec:\n  parentQueue: lab\n  resources:\n    gpu: {quota: 0, overQuotaWeight: 1, limit: -1}\n";
  if (time_aware)
    out << "---\napiVersion: kai.scheduler/v1\nkind: SchedulingShard\nmetadata:\n  name: default\nspec:\n  usageDBConfig:\n"
        << "    clientType: prometheus\n    usageParams: {windowSize: 10m, windowType: sliding, fetchInterval: 1m}\n";
  out.close();
  const std::string jobs = R"([
      {"name": "a1", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 10000, "queue": "a"},
      {"name": "b1", "submit_s": 10, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 300, "queue": "b"}])";
  return run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", jobs,
                                             R"(, "tenancy": {"queues": "q", "checkpoint_every_s": 60, "restart_overhead_s": 30},
                                                  "sample_every_s": 30, "schedulers": ["topology-aware"])"),
                               dir.path.string()));
}

// Each chart's title, and the note under its table.
std::vector<std::string> chart_texts(const ResultSet& results) {
  std::vector<std::string> texts;
  for (const Chart& c : build_report_model({{"lab", &results}}).charts) {
    texts.push_back(c.title);
    texts.push_back(c.table.note);
  }
  return texts;
}

bool same(const std::vector<double>& read, const std::vector<double>& written) {
  if (read.size() != written.size()) return false;
  for (size_t i = 0; i < read.size(); ++i)
    if (read[i] != rounded_micro(written[i])) return false;
  return true;
}

bool shows(const std::vector<std::string>& texts, const std::string& text) {
  return std::find(texts.begin(), texts.end(), text) != texts.end();
}

}  // namespace

TEST_CASE("reports::KAI fair share and usage per queue: in results.json and charted", "[reports][kai]") {
  TempDir dir;
  const bool time_aware = GENERATE(true, false);
  INFO("time-aware " << time_aware);
  const ResultSet results = lab_run(dir, time_aware);
  const RunResult& run = results.schedulers.front().runs.front();
  REQUIRE(run.samples.size() > 4);
  const ClusterSample& at_90s = run.samples[3];
  REQUIRE(at_90s.time_ms == 90'000);
  // Time-aware: the fetch at 60 s read a's whole-node minute, so b's fair share is the node.
  CHECK(at_90s.tenant_fair_share_gpus == (time_aware ? std::vector<double>{0, 8} : std::vector<double>{4, 4}));
  CHECK(at_90s.tenant_usage_share == (time_aware ? std::vector<double>{1, 0} : std::vector<double>{}));

  // Written and read back, every sample the same (results.json rounds to 1e-6).
  {
    std::ofstream out(dir.file("results.json"));
    write_results_json(results, out);
  }
  auto loaded = load_results(dir.path.string());
  REQUIRE(loaded.ok());
  const std::vector<ClusterSample>& back = loaded->schedulers.front().runs.front().samples;
  REQUIRE(back.size() == run.samples.size());
  for (size_t i = 0; i < back.size(); ++i) {
    INFO(i);
    CHECK(same(back[i].tenant_gpus, run.samples[i].tenant_gpus));
    CHECK(same(back[i].tenant_fair_share_gpus, run.samples[i].tenant_fair_share_gpus));
    CHECK(same(back[i].tenant_usage_share, run.samples[i].tenant_usage_share));
  }

  const std::vector<std::string> texts = chart_texts(*loaded);
  CHECK(shows(texts, "GPUs held per tenant over time: topology-aware"));
  CHECK(shows(texts, "KAI fair share per queue over time: topology-aware"));
  // Its table shows some of the points, and says where the rest are.
  CHECK(shows(texts, "25 of " + std::to_string(back.size()) +
                         " points, evenly spread; every point is in tenant_timeseries.csv (fair_share_gpus)"));
  CHECK(shows(texts, "KAI usage per queue over time (time-aware fairness): topology-aware") == time_aware);
}

TEST_CASE("reports::tenant_timeseries.csv: a row per sample and tenant, KAI's figures where the run has them", "[reports][kai]") {
  TempDir dir;
  const bool time_aware = GENERATE(true, false);
  INFO("time-aware " << time_aware);
  const ResultSet results = lab_run(dir, time_aware);
  const RunResult& run = results.schedulers.front().runs.front();
  MemorySink sink;
  REQUIRE(write_report({{"lab", &results}}, sink).ok());
  const auto rows = parse_csv(sink.files.at("tenant_timeseries.csv"));
  REQUIRE(rows.size() == 1 + 2 * run.samples.size());
  CHECK(rows[0] ==
        std::vector<std::string>{"run", "scheduler", "seed", "time_s", "tenant", "gpus", "fair_share_gpus", "usage_share"});
  // At 90 s, the fourth sample: a's row, then b's, with the figures checked above.
  const std::vector<std::string>& a = rows[1 + 2 * 3];
  const std::vector<std::string>& b = rows[2 + 2 * 3];
  CHECK(std::vector<std::string>(a.begin(), a.begin() + 5) ==
        std::vector<std::string>{"lab", "topology-aware", std::to_string(run.seed), "90", "a"});
  CHECK(b[4] == "b");
  CHECK(a[5] == format_data(run.samples[3].tenant_gpus[0]));
  CHECK(b[5] == format_data(run.samples[3].tenant_gpus[1]));
  CHECK(a[6] == (time_aware ? "0" : "4"));
  CHECK(b[6] == (time_aware ? "8" : "4"));
  CHECK(a[7] == (time_aware ? "1" : ""));  // no usage without time-aware fairness: empty
  CHECK(b[7] == (time_aware ? "0" : ""));
  // No fabric: the uplink file holds its header alone.
  CHECK(parse_csv(sink.files.at("uplink_timeseries.csv")).size() == 1);
}
