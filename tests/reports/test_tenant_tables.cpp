// Per-tenant figures in every reporter (reports/report_model.h per_tenant_table): worked by hand
// on one DGX-1 with two Kueue ClusterQueues without a cohort, a (6 GPUs) and b (2 GPUs). Each
// team submits 2-GPU jobs of 1000 s at 0: a one, b two, so b's second job waits for its first.
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "reports/report_files.h"
#include "reports/report_model.h"
#include "reports/text_report.h"
#include "tests/reports/memory_sink.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

ResultSet two_teams(const TempDir& dir) {
  std::ofstream out(dir.file("queues.yaml"));
  out << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: gpu\n";
  for (const auto& [name, gpus] : {std::pair{"a", 6}, std::pair{"b", 2}})
    out << "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: " << name
        << "\nspec:\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: gpu\n      resources:\n"
        << "      - name: nvidia.com/gpu\n        nominalQuota: " << gpus << "\n";
  out.close();
  const std::string jobs = R"([
      {"name": "a1", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 1000, "queue": "a"},
      {"name": "b1", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 1000, "queue": "b"},
      {"name": "b2", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 1000, "queue": "b"}])";
  return run_all(
      scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", jobs,
                                  R"(, "tenancy": {"queues": "queues.yaml"}, "schedulers": ["topology-aware", "default"])"),
                    dir.path.string()));
}

const std::vector<std::string>* row_of(const ChartTable& t, const std::string& tenant, const std::string& scheduler) {
  for (const auto& row : t.rows)
    if (row.size() > 2 && row[0] == tenant && row[2] == scheduler) return &row;
  return nullptr;
}

}  // namespace

TEST_CASE("reports::per-tenant table: jobs, waits, JCT, GPU-hours and their share, by hand", "[reports][queues]") {
  TempDir dir;
  const ResultSet results = two_teams(dir);
  const ReportModel m = build_report_model({{"teams", &results}});
  const ChartTable& t = m.tenant_table;
  REQUIRE(t.header == std::vector<std::string>{"tenant", "nominal GPUs", "scheduler", "jobs", "finished", "mean wait (s)",
                                               "p95 wait (s)", "mean JCT (s)", "GPU-h run", "share of GPU-h", "GPU-h borrowed",
                                               "evictions", "GPU-h lost to preemption"});
  REQUIRE(t.rows.size() == 4);  // two tenants x two schedulers, grouped by tenant
  CHECK(t.rows[0][0] == "a");
  CHECK(t.rows[1][0] == "a");
  CHECK(t.rows[2][0] == "b");
  for (const char* scheduler : {"topology-aware", "default"}) {
    INFO(scheduler);
    const auto* a = row_of(t, "a", scheduler);
    const auto* b = row_of(t, "b", scheduler);
    REQUIRE(a);
    REQUIRE(b);
    // a: its one job starts at once; 2 GPUs x 1000 s = 0.56 GPU-h of 1.67, a third.
    CHECK(*a ==
          std::vector<std::string>{"a", "6", scheduler, "1", "1", "0.0", "0.0", "1,000.0", "0.6", "33.3%", "0.0", "0", "0.0"});
    // b: its quota holds one job at a time, the second waits 1000 s; two thirds of the GPU time.
    CHECK((*b)[1] == "2");
    CHECK((*b)[3] == "2");
    CHECK((*b)[4] == "2");
    CHECK((*b)[5] == "500.0");
    CHECK((*b)[7] == "1,500.0");
    CHECK((*b)[8] == "1.1");
    CHECK((*b)[9] == "66.7%");
  }
  for (const Chart& c : m.charts) CHECK(c.title.find("KAI") == std::string::npos);  // Kueue: no fair share in GPUs
  // Jain's index of the stretch: a 1000 / 1000 = 1, b 3000 / 2000 = 1.5; (2.5)^2 / (2 x 3.25).
  REQUIRE(m.tenancy_table.rows.size() == 2);
  CHECK(m.tenancy_table.rows[0] == std::vector<std::string>{"topology-aware", "2", "0.962", "0", "0.0", "0.0"});

  SECTION("summary.md and report.html carry both tables") {
    MemorySink sink;
    REQUIRE(write_report({{"teams", &results}}, sink).ok());
    const std::string& md = sink.files.at("summary.md");
    CHECK_THAT(md, Catch::Contains("### Tenants") && Catch::Contains("| topology-aware | 2 | 0.962 | 0 | 0.0 | 0.0 |"));
    CHECK_THAT(md, Catch::Contains("### Per tenant") && Catch::Contains("| tenant | nominal GPUs | scheduler |") &&
                       Catch::Contains("| --- | ---: | --- |") &&
                       Catch::Contains("| b | 2 | default | 2 | 2 | 500.0 | 1,000.0 | 1,500.0 | 1.1 | 66.7% |"));
    const std::string& html = sink.files.at("report.html");
    CHECK_THAT(html, Catch::Contains("<h2>Tenants</h2>") && Catch::Contains("<h2>Per tenant</h2>"));
  }

  SECTION("the terminal: a row per scheduler under the tenant's name and quota, evictions only when some run evicted") {
    const std::string text = render_text(results);
    INFO(text);
    CHECK_THAT(text, Catch::Contains("\nper tenant (means over seeds;"));
    CHECK_THAT(text, Catch::Contains("  tenant (nominal GPUs)  scheduler       jobs  finished  p95 wait s  mean JCT s  "
                                     "GPU-h run  share\n"));
    CHECK_THAT(text, Catch::Contains("  a (6)                  topology-aware     1         1         0.0     1,000.0        "
                                     "0.6  33.3%\n                         default            1         1         0.0     "
                                     "1,000.0        0.6  33.3%\n"));
    CHECK_THAT(text, Catch::Contains("  b (2)                  topology-aware     2         2     1,000.0     1,500.0        "
                                     "1.1  66.7%\n"));
    CHECK(text.find("evictions  ") == std::string::npos);
  }
}

TEST_CASE("reports::no tenants, no tenant tables", "[reports][queues]") {
  const ResultSet results = run_all(scenario_from(scenario_json(
      R"([{"model": "dgx1-v100", "count": 1}])",
      R"([{"name": "j", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 10}])")));
  const ReportModel m = build_report_model({{"plain", &results}});
  CHECK(m.tenancy_table.rows.empty());
  CHECK(m.tenant_table.rows.empty());
  MemorySink sink;
  REQUIRE(write_report({{"plain", &results}}, sink).ok());
  CHECK(sink.files.at("summary.md").find("Per tenant") == std::string::npos);
  CHECK(render_text(results).find("per tenant") == std::string::npos);
}

TEST_CASE("reports::preemptions between tenants: evictions and the GPU-hours they cost, per pair", "[reports][queues]") {
  TempDir dir;
  ResultSet results = two_teams(dir);
  // The run's tenants are a (0) and b (1). b loses two reclaims to a (1 and 0.5 GPU-hours), a
  // one preemption to b whose cost a results.json written before it was recorded does not say.
  for (SchedulerResult& s : results.schedulers)
    for (RunResult& run : s.runs)
      run.preemptions = {{10'000, 1, 0, PreemptionReason::InCohortReclamation, 1, 0, 3'600'000},
                         {20'000, 2, 0, PreemptionReason::InCohortReclamation, 1, 0, 1'800'000},
                         {30'000, 0, 2, PreemptionReason::InClusterQueue, 0, 1, -1}};
  const ReportModel m = build_report_model({{"teams", &results}});
  const ChartTable& t = m.preemption_table;
  REQUIRE(t.header.back() == "GPU-h lost");
  REQUIRE(t.rows.size() == 4);  // two pairs under each scheduler, the larger first
  CHECK(t.rows[0] == std::vector<std::string>{"topology-aware", "b", "a", "InCohortReclamation", "2.0", "66.7%", "1.5"});
  CHECK(t.rows[1] == std::vector<std::string>{"topology-aware", "a", "b", "InClusterQueue", "1.0", "33.3%", "n/a"});
  CHECK(t.rows[2][0] == "default");
  // All costs known: the pairs that cost the most GPU time first, whatever their evictions.
  for (SchedulerResult& s : results.schedulers)
    for (RunResult& run : s.runs) run.preemptions.back().lost_gpu_ms = 7'200'000;
  const ChartTable by_cost = build_report_model({{"teams", &results}}).preemption_table;
  REQUIRE(by_cost.rows.size() == 4);
  CHECK(by_cost.rows[0] == std::vector<std::string>{"topology-aware", "a", "b", "InClusterQueue", "1.0", "33.3%", "2.0"});
  CHECK(by_cost.rows[1] == std::vector<std::string>{"topology-aware", "b", "a", "InCohortReclamation", "2.0", "66.7%", "1.5"});
  // The terminal summary shows the same pairs.
  const std::string text = render_text(results);
  CHECK_THAT(text,
             Catch::Contains("costliest preemptions between tenants (means over seeds; summary.md lists ten per scheduler):\n"));
  CHECK_THAT(text, Catch::Contains("InClusterQueue             1.0  33.3%         2.0\n"));
}
