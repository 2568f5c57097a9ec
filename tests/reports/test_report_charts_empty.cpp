// Charts that show the answer: a chart whose values are all 0 becomes a sentence ("no job
// waited"), y axes start at 0, and a fill experiment's report has the per-policy table the
// terminal prints, ranked.
#include <fmt/format.h>
#include <algorithm>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "reports/report_files.h"
#include "reports/text_report.h"
#include "tests/reports/memory_sink.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

const Chart* chart_titled(const ReportModel& m, const std::string& title) {
  const auto it = std::find_if(m.charts.begin(), m.charts.end(), [&](const Chart& c) { return c.title == title; });
  return it == m.charts.end() ? nullptr : &*it;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("reports::charts: all-zero charts become a sentence", "[reports]") {
  // Two jobs that fit at once: nothing waits, nothing is pending.
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100},
          {"name": "b", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  const ResultSet results = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs)));
  const ReportModel m = build_report_model({{"bench", &results}});
  const Chart* waits = chart_titled(m, "Queueing delay (CDF)");
  const Chart* pending = chart_titled(m, "Pending jobs over time");
  const Chart* jct = chart_titled(m, "Job completion time (CDF)");
  REQUIRE(waits);
  REQUIRE(pending);
  REQUIRE(jct);
  CHECK(waits->empty_note == "No job waited: every finished job started when it was submitted.");
  CHECK(pending->empty_note == "No job was pending at any sample.");
  CHECK(jct->empty_note.empty());  // JCTs are not zero: the chart stays
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  const std::string& html = sink.files.at("report.html");
  // Expected: the sentence in place of the chart, no canvas for it, one canvas per drawn chart.
  CHECK_THAT(html, Catch::Contains("<h2>Queueing delay (CDF)</h2>\n<p class=\"empty\">No job waited"));
  size_t drawn = 0;
  for (const Chart& c : m.charts) drawn += c.empty_note.empty() ? 1 : 0;
  CHECK(count(html, "<canvas id=") == drawn);
  CHECK(count(html, "\"id\":\"chart-") == drawn);
  CHECK_THAT(html, Catch::Contains("beginAtZero: !spec.y_log"));
}

TEST_CASE("reports::fill report has the per-policy table, ranked", "[reports][fill]") {
  const std::string traces = shared_file("traces/alibaba-gpu-v2023");
  if (traces.empty()) return;
  const std::string fill = R"({"mode": "fill", "name": "fill", "seed": 1, "seeds": 2, "target_load": 0.5,
      "cluster": {"node_list": ")" +
                           traces + R"(/openb_node_list_gpu_node.csv", "node_fraction": 0.05},
      "workload": {"kind": "alibaba-pods", "path": ")" +
                           traces + R"(/openb_pod_list_default.csv"},
      "schedulers": ["random", "fgd"]})";
  const ResultSet results = run_all(scenario_from(fill));
  const ReportModel m = build_report_model({{"fill", &results}});
  REQUIRE(m.policy_table.rows.size() == 2);
  CHECK(m.policy_table.header == std::vector<std::string>{"rank", "scheduler", "GPU alloc ratio", "frag rate", "frag GPUs",
                                                          "failed pods", "of which no GPU room"});
  const double first = results.scheduler(m.policy_table.rows[0][1])->metric("gpu_alloc_ratio.final")->over_seeds.mean;
  const double second = results.scheduler(m.policy_table.rows[1][1])->metric("gpu_alloc_ratio.final")->over_seeds.mean;
  CHECK(first >= second);  // best first
  CHECK_THAT(m.policy_table.rows[0][2], Catch::Contains(" ± "));
  MemorySink sink;
  REQUIRE(write_report({{"fill", &results}}, sink).ok());
  CHECK_THAT(sink.files.at("summary.md"), Catch::Contains("### Policies, ranked") && Catch::Contains("| rank | scheduler |"));
  CHECK_THAT(sink.files.at("report.html"), Catch::Contains("<h2>Policies, ranked</h2>"));
}

TEST_CASE("reports::charts: a run on a fabric whose uplinks jobs used charts them per level", "[reports]") {
  // Two 3-node gangs over racks of two behind 2:1 uplinks (tests/scenario/test_fabric_contention.cpp).
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 3, "gpus_per_worker": 8, "model": "vgg16", "iterations": 200},
          {"name": "b", "submit_s": 0, "workers": 3, "gpus_per_worker": 8, "model": "vgg16", "iterations": 400}])";
  const ResultSet results = run_all(scenario_from(
      scenario_json(R"([{"model": "dgx-a100", "count": 6}])", jobs, R"(, "schedulers": ["topology-aware"])",
                    R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2, "oversubscription": 2}]})")));
  const ReportModel m = build_report_model({{"fabric", &results}});
  const Chart* uplinks = chart_titled(m, "Uplink utilisation over time: rack");
  REQUIRE(uplinks);
  REQUIRE(uplinks->datasets.size() == 1);
  const auto& points = uplinks->datasets.front().points;
  CHECK(std::any_of(points.begin(), points.end(), [](const auto& p) { return p.y > 0.5; }));
  // Without a fabric there is no such chart.
  const ResultSet flat = run_all(scenario_from(scenario_json(R"([{"model": "dgx-a100", "count": 6}])", jobs)));
  const ReportModel f = build_report_model({{"flat", &flat}});
  CHECK(std::none_of(f.charts.begin(), f.charts.end(), [](const Chart& c) { return c.title.rfind("Uplink", 0) == 0; }));
}

TEST_CASE("reports::charts: a table over time reads every run at the row's time, and n/a where a run has no value", "[reports]") {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100},
          {"name": "b", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  ResultSet results = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2, "label": "topology"}])", jobs)));
  REQUIRE(results.schedulers.size() == 2);
  // Runs of different lengths, both longer than a chart keeps (so each is thinned at its own
  // stride): a sample every 10 s, the allocated GPUs equal to the sample's time in tens of
  // seconds, 3,000 samples for the first run and 5,000 for the second.
  const auto grid = [](size_t n) {
    std::vector<ClusterSample> samples(n);
    for (size_t i = 0; i < n; ++i) samples[i].time_ms = static_cast<int64_t>(i) * 10'000, samples[i].allocated_gpus = double(i);
    return samples;
  };
  results.schedulers[0].runs[0].samples = grid(3000);
  results.schedulers[1].runs[0].samples = grid(5000);
  const ReportModel m = build_report_model({{"bench", &results}});
  const Chart* allocated = chart_titled(m, "Allocated GPUs over time");
  REQUIRE(allocated);
  const ChartTable& t = allocated->table;
  REQUIRE(t.rows.size() == 25);
  CHECK(t.note == "25 of 5000 points, evenly spread; every point is in timeseries.csv");
  const auto number = [](std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    return std::stod(text);
  };
  size_t ended = 0;
  for (const auto& row : t.rows) {
    INFO(row[0] << " h: " << row[1] << ", " << row[2]);
    // Expected: the second run's value is its sample at the row's time (hours x 360 tens of
    // seconds, the hours shown to 4 figures); the first run's is the same sample while it lasted,
    // "ended" after its last one. (Before, each column took its own thinned series' point of the
    // row's index: the first run's value was from an earlier time.)
    const double tens = number(row[0]) * 360;
    CHECK(std::abs(number(row[2]) - tens) <= 0.001 * tens);
    if (row[1] == "ended") {
      CHECK(number(row[2]) > 2999);
      ++ended;
    } else {
      CHECK(row[1] == row[2]);
    }
  }
  CHECK(ended == 10);
  // default finished no job (its nodes are the topology-aware scheduler's): its CDF columns are n/a.
  const Chart* jct = chart_titled(m, "Job completion time (CDF)");
  REQUIRE(jct);
  CHECK(jct->table.note == "n/a: default finished no job");
  for (const auto& row : jct->table.rows) CHECK(row.back() == "n/a");
}

TEST_CASE("reports::text summary: the over-time table reads every run at the row's time", "[reports]") {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  ResultSet results = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs)));
  REQUIRE(results.schedulers.size() == 2);
  // The first run's automatic period doubled (it outlasted the expected span: a sample every
  // 2 h, to 22 h); the second kept 1 h and ended at 10 h. Pending jobs = the sample's hour.
  const auto grid = [](int64_t period_h, int64_t last_h) {
    RunResult run;
    run.sample_every_ms = period_h * 3'600'000;
    for (int64_t h = 0; h <= last_h; h += period_h) {
      ClusterSample& x = run.samples.emplace_back();
      x.time_ms = h * 3'600'000;
      x.pending = h;
    }
    return run;
  };
  for (int i = 0; i < 2; ++i) {
    const RunResult g = grid(i == 0 ? 2 : 1, i == 0 ? 22 : 10);
    results.schedulers[i].runs[0].samples = g.samples;
    results.schedulers[i].runs[0].sample_every_ms = g.sample_every_ms;
  }
  const std::string text = render_text(results, {0, 12});
  INFO(text);
  // Expected: rows every 2 h over the first run; at each, both runs' own sample of that hour, the
  // second "(finished)" after 10 h. (Before, rows paired the samples of one index: 4 h beside 2 h.)
  CHECK_THAT(text, Catch::Contains("over time (every 01:00:00 to 02:00:00; 12 of 12 samples"));
  for (int h = 0; h <= 22; h += 2) {
    const std::string time = fmt::format("{:02}:00:00", h);
    const size_t at = text.find("  " + time + "  ");
    REQUIRE(at != std::string::npos);
    const std::string row = text.substr(at, text.find('\n', at) - at);
    std::istringstream cells(row.substr(time.size() + 2));
    std::vector<std::string> words;
    for (std::string w; cells >> w;) words.push_back(w);
    INFO(row);
    REQUIRE(words.size() >= 5);
    CHECK(words[1] == std::to_string(h));  // first run: running, pending, ...
    if (h <= 10)
      CHECK(words[6] == std::to_string(h));
    else
      CHECK(words.back() == "(finished)");
  }
}
