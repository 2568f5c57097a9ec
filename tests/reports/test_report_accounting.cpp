// Every job accounted for in what a user reads: a scheduler that placed nothing is not "no
// difference" (its change is n/a with the reason, the cards count placed and unplaced jobs), and
// the terminal summary and summary.md add up to the workload, saying which metric covers a subset.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "reports/report_files.h"
#include "reports/text_report.h"
#include "tests/reports/memory_sink.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"
#include "util/number_format.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// Two jobs on nodes only the topology-aware scheduler serves: default rejects both.
ResultSet default_places_nothing() {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100},
          {"name": "b", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  return run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2, "label": "topology"}])", jobs)));
}

// A 16-GPU gang no node pair can take (no NIC) beside a 2-GPU job: the gang is never placed.
ResultSet one_job_never_placed() {
  TempDir dir;
  return run_all(gang_without_nic_path(dir.path.string()));
}

}  // namespace

TEST_CASE("reports::headline against a scheduler that placed nothing is n/a with the reason", "[reports]") {
  const ResultSet results = default_places_nothing();
  const ReportModel m = build_report_model({{"bench", &results}});
  REQUIRE_FALSE(m.headlines.empty());
  for (const Headline& h : m.headlines) {
    INFO(h.metric);
    // Expected: no % change against default's zero, and the reason why.
    CHECK(h.base_name == "default");
    CHECK(h.no_change == "default placed 0 of 2 jobs");
    CHECK(h.change_percent == 0);
    CHECK_FALSE(h.worse);
  }
  REQUIRE(m.job_counts.size() == 2);
  CHECK(job_counts_text(m.job_counts[0]) == "2 of 2 placed");
  CHECK(job_counts_text(m.job_counts[1]) == "0 of 2 placed (2 rejected)");
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  const std::string& md = sink.files.at("summary.md");
  CHECK_THAT(md, Catch::Contains("against default: n/a (default placed 0 of 2 jobs)"));
  CHECK_THAT(md, !Catch::Contains("+0.0%"));
  CHECK_THAT(md, Catch::Contains("- jobs: topology-aware 2 of 2 placed; default 0 of 2 placed (2 rejected)"));
  const std::string& html = sink.files.at("report.html");
  CHECK_THAT(html, Catch::Contains("n/a against default (default placed 0 of 2 jobs)"));
  CHECK_THAT(html, Catch::Contains("<div>default: 0 of 2 placed (2 rejected)</div>"));
}

TEST_CASE("reports::headline against a zero value is n/a, not +0.0%", "[reports]") {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  const ResultSet results = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs)));
  const ReportModel m = build_report_model({{"bench", &results}});
  // Expected: both schedulers placed the job at once; the p95 wait of 0 against 0 has no change.
  const auto wait =
      std::find_if(m.headlines.begin(), m.headlines.end(), [](const Headline& h) { return h.metric == "wait_s.p95"; });
  REQUIRE(wait != m.headlines.end());
  CHECK(wait->no_change == "its value is 0");
  const auto images =
      std::find_if(m.headlines.begin(), m.headlines.end(), [](const Headline& h) { return h.metric == "images_per_sec.mean"; });
  REQUIRE(images != m.headlines.end());
  CHECK(images->no_change.empty());
  CHECK(images->change_percent != 0);
  // Expected: the figure compared against carries its unit, as the headline's own figure does.
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  const std::string base = format_number(images->base);
  CHECK_THAT(sink.files.at("summary.md"), Catch::Contains(" against " + base + " images/s default ("));
  CHECK_THAT(sink.files.at("report.html"), Catch::Contains(" against default (" + base + " images/s)</div>"));
}

TEST_CASE("reports::headline figures read as a person takes them in: ratios in percent, long spans in hours or days",
          "[reports]") {
  CHECK(headline_value_text(0.4178, "ratio") == "41.78%");
  CHECK(headline_value_text(20404.1, "images/s") == "20,404.1 images/s");
  CHECK(headline_value_text(59.5, "s") == "59.5 s");
  CHECK(headline_value_text(7200, "s") == "7,200 s = 2 h");
  CHECK(headline_value_text(1400636, "s") == "1,400,636 s = 16.21 d");
  CHECK(headline_value_text(3, "GPUs") == "3 GPUs");
  // A ratio's change is a difference in percentage points; others' a relative change.
  Headline mfu;
  mfu.unit = "ratio";
  mfu.base = 0.4154;
  mfu.other = 0.4178;
  mfu.change_percent = (mfu.other - mfu.base) / mfu.base * 100;
  CHECK(headline_change_text(mfu) == "+0.2 pp");
  std::swap(mfu.base, mfu.other);
  CHECK(headline_change_text(mfu) == "-0.2 pp");
  Headline jct;
  jct.unit = "s";
  jct.change_percent = -35.6;
  CHECK(headline_change_text(jct) == "-35.6%");

  // In the report: an LLM run's MFU card and its summary.md line.
  const std::string jobs = R"([{"name": "llm", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "iterations": 2,
      "llm": {"model": "llama3-8b", "tp": 2, "global_batch": 16, "sequence_parallel": true}}])";
  const ResultSet results = run_all(
      scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 2}])", jobs, "", R"(, "network": {"transport": "ib"})")));
  const ReportModel m = build_report_model({{"bench", &results}});
  const auto card =
      std::find_if(m.headlines.begin(), m.headlines.end(), [](const Headline& h) { return h.metric == "llm_mfu.mean"; });
  REQUIRE(card != m.headlines.end());
  REQUIRE(card->no_change.empty());
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  const std::string other = format_number(card->other * 100) + "%", base = format_number(card->base * 100) + "%";
  CHECK_THAT(sink.files.at("report.html"), Catch::Contains("<div class=\"value\">" + other + "</div>") &&
                                               Catch::Contains(" against default (" + base + ")</div>") &&
                                               !Catch::Contains(format_number(card->other) + " ratio"));
  CHECK_THAT(sink.files.at("summary.md"), Catch::Contains("- LLM MFU per job, mean: **" + other + "** topology-aware against " +
                                                          base + " default (" + headline_change_text(*card)));
}

TEST_CASE("reports::text summary groups counts by thousands, a fractional mean over seeds as it is", "[reports]") {
  ResultSet results = one_job_never_placed();
  results.scenario.jobs = 82247;
  for (SchedulerResult& s : results.schedulers)
    for (MetricSummary& m : s.metrics) {
      if (m.name == "jobs") m.over_seeds.mean = 82247;
      if (m.name == "finished") m.over_seeds.mean = 82245.5;
      if (m.name == "never_placed") m.over_seeds.mean = 1.5;
    }
  const std::string text = render_text(results);
  // Expected: the header's and the jobs row's 82,247; finished 82,245.5 (a mean of two seeds'
  // counts) keeps its decimal.
  CHECK_THAT(text, Catch::Contains(" 82,247 jobs ("));
  CHECK(some_line_matches(text, "jobs submitted +82,247( .*)?"));
  CHECK(some_line_matches(text, ".*  finished / rejected +82,245.5 / 0( .*)?"));
  CHECK(some_line_matches(text, ".*  stuck / never placed +0 / 1.5( .*)?"));
}

TEST_CASE("reports::text summary accounts for every job, never-placed ones included", "[reports]") {
  const ResultSet results = one_job_never_placed();
  const std::string text = render_text(results);
  // Expected: 2 submitted = 1 finished + 0 rejected + 0 stuck + 1 never placed, and the wait
  // says it is over finished jobs only.
  CHECK_THAT(text, Catch::Contains("jobs submitted") && Catch::Contains("  stuck / never placed"));
  CHECK(some_line_matches(text, ".*  stuck / never placed +0 / 1"));
  CHECK(some_line_matches(text, ".*  finished / rejected +1 / 0"));
  CHECK_THAT(text, Catch::Contains("wait and JCT are over finished jobs only (topology-aware 1 of 2)"));
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  const std::string& md = sink.files.at("summary.md");
  CHECK_THAT(md, Catch::Contains("| jobs | finished | rejected | stuck | never placed | mean wait of finished (s) |"));
  CHECK_THAT(md, Catch::Contains("| bench | topology-aware | 2 | 1 | 0 | 0 | 1 |"));
  CHECK_THAT(md, Catch::Contains("topology-aware 1 of 2 placed (1 never placed)"));
}

TEST_CASE("reports::text summary of a scheduler that ran nothing shows n/a, not zero waits", "[reports]") {
  const ResultSet results = default_places_nothing();
  // The data says it too: no wait, JCT or throughput over jobs that never ran.
  const SchedulerResult& none = *results.scheduler("default");
  for (const char* absent :
       {"wait_s.mean", "wait_s.p95", "jct_s.mean", "share_wait_s.mean", "images_per_sec.mean", "ring_gbps.mean"})
    CHECK(none.metric(absent) == nullptr);
  CHECK(none.metric("finished")->over_seeds.mean == 0);
  CHECK(results.scheduler("topology-aware")->metric("wait_s.p95") != nullptr);
  CHECK(results.scheduler("topology-aware")->metric("share_wait_s.p95") == nullptr);  // no GPU shares
  const std::string text = render_text(results);
  CHECK(some_line_matches(text, ".*wait of finished, mean / p95 \\(s\\) +0\\.0 / 0\\.0 +n/a"));
  CHECK(some_line_matches(text, ".*placement efficiency \\(started\\) +[0-9.]+% +n/a"));
}

TEST_CASE("reports::comparison headline cards show the largest change across schedulers", "[reports]") {
  // The same jobs on two nodes, then on one: both schedulers wait on one node, by different amounts.
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 4, "gpus_per_worker": 1, "model": "vgg16", "iterations": 100},
          {"name": "b", "submit_s": 10, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "iterations": 100}])";
  const ResultSet two = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs)));
  const ResultSet one = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", jobs)));
  const ReportModel m = build_report_model({{"two", &two}, {"one", &one}});
  REQUIRE_FALSE(m.headlines.empty());
  for (const Headline& h : m.headlines) {
    INFO(h.metric);
    // Expected: no scheduler changed more than the one on the card.
    for (const SchedulerResult& s : two.schedulers) {
      const MetricSummary* before = s.metric(h.metric);
      const MetricSummary* after = one.scheduler(s.name)->metric(h.metric);
      if (!before || !after || before->over_seeds.mean == 0 || !h.no_change.empty()) continue;
      const double change = (after->over_seeds.mean - before->over_seeds.mean) / std::abs(before->over_seeds.mean) * 100;
      CHECK(std::abs(h.change_percent) >= std::abs(change) - 1e-9);
    }
  }
  CHECK(m.warnings.empty());  // one scenario, two clusters: same name and workload
}

TEST_CASE("reports::comparing runs of different scenarios warns", "[reports]") {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  const ResultSet first = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", jobs)));
  const ResultSet other =
      run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", jobs, R"(, "name": "elsewhere")")));
  const ReportModel m = build_report_model({{"a", &first}, {"b", &other}});
  REQUIRE(m.warnings.size() == 1);
  CHECK_THAT(m.warnings[0], Catch::StartsWith("b ran scenario elsewhere (") && Catch::Contains("a ran test ("));
  MemorySink sink;
  REQUIRE(write_report({{"a", &first}, {"b", &other}}, sink).ok());
  CHECK_THAT(sink.files.at("summary.md"), Catch::Contains("> **Warning:** b ran scenario elsewhere"));
  CHECK_THAT(sink.files.at("report.html"), Catch::Contains("<p class=\"warning\">Warning: b ran scenario elsewhere"));
}

TEST_CASE("reports::failures and goodput in summary.md and report.html", "[reports][failures]") {
  TempDir dir;
  // One DGX-1 job of 1000 s, its node down from 250 s to 750 s; checkpoints every 100 s, 30 s
  // restart: 50 s of training and the restart lost, 500 s waiting, 1000 of 1580 s counted.
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  const ResultSet results = run_all(scenario_from(
      scenario_json(
          R"([{"model": "dgx1-v100", "count": 1}])",
          R"([{"name": "j", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000}])",
          R"(, "schedulers": ["topology-aware"], "checkpoints": {"every_s": 100, "restart_s": 30},
                        "failures": {"rates": "none", "trace": "incidents.csv"})"),
      dir.path.string()));
  MemorySink sink;
  REQUIRE(write_report({{"f", &results}}, sink).ok());
  const std::string& md = sink.files.at("summary.md");
  CHECK_THAT(md, Catch::Contains("### Failures and goodput"));
  CHECK_THAT(md, Catch::Contains("| topology-aware | 1 | 1 | 0.2 | 0.1 | 0.0 | 1.1 | 63.3% | 63.3% |"));
  CHECK_THAT(sink.files.at("report.html"), Catch::Contains("<h2>Failures and goodput</h2>"));
  // Without failures there is no such table.
  const ResultSet plain = default_places_nothing();
  MemorySink none;
  REQUIRE(write_report({{"p", &plain}}, none).ok());
  CHECK(none.files.at("summary.md").find("Failures and goodput") == std::string::npos);
}
