// The report (reports/report_files.h): the model behind it (series, headlines, comparisons,
// downsampling), every file's format, and escaping: a job and a scenario named with HTML,
// script, Markdown, CSV and Prometheus metacharacters go through every output without
// breaking out of their place.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/results/results_json.h"
#include "reports/escape.h"
#include "reports/report_files.h"
#include "reports/text_report.h"
#include "tests/reports/csv_records.h"
#include "tests/reports/memory_sink.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

constexpr const char* kNasty = "</script><img src=x onerror=alert(1)>|\"a,b\"\n";
// The same as a JSON string literal.
constexpr const char* kNastyJson = R"("</script><img src=x onerror=alert(1)>|\"a,b\"\n")";

std::string jobs_json(const std::string& first_name) {
  return R"([{"name": )" + first_name +
         R"(, "submit_s": 0, "workers": 4, "gpus_per_worker": 1, "model": "vgg16", "iterations": 100},
             {"name": "second", "submit_s": 10, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "iterations": 100}])";
}

ResultSet run_scenario(const std::string& json) { return run_all(scenario_from(json)); }

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("reports::escape for each format", "[reports]") {
  CHECK(html_escape(R"(<a href="x">&'</a>)") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  CHECK(script_safe_json(R"({"a": "</script>&"})") == R"({"a": "\u003c/script\u003e\u0026"})");
  CHECK(markdown_cell("a|b\nc*d_e") == "a\\|b c\\*d\\_e");
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,\"b\"\n") == "\"a,\"\"b\"\"\n\"");
  CHECK(prometheus_label("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
}

TEST_CASE("reports::escape: no control byte and no formula reaches a file", "[reports]") {
  // ESC, CR, NUL and DEL as the visible text \xNN in every format (JSON escapes them itself).
  CHECK(html_escape("a\x1b[31mb") == "a\\x1b[31mb");
  CHECK(markdown_cell("a\x1b") == "a\\\\x1b");
  CHECK(csv_field(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(prometheus_label("a\x7f") == "a\\\\x7f");
  // A text a spreadsheet would run as a formula gets a leading ', numbers stay numbers.
  CHECK(csv_field("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_field("+1+2") == "'+1+2");
  CHECK(csv_field("-cmd") == "'-cmd");
  CHECK(csv_field("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_field("-1.5") == "-1.5");
  CHECK(csv_field("+3") == "+3");
  CHECK(csv_field("-1e-06") == "-1e-06");
  CHECK(csv_field("a=b") == "a=b");
}

TEST_CASE("reports::downsampling keeps the ends", "[reports]") {
  std::vector<Point> points;
  for (int i = 0; i < 10001; ++i) points.push_back({static_cast<double>(i), static_cast<double>(i % 7)});
  const std::vector<Point> down = downsample(points, kMaxSeriesPoints);
  CHECK(down.size() == kMaxSeriesPoints);
  CHECK(down.front().x == 0);
  CHECK(down.back().x == 10000);
  SECTION("a CDF: at most 500 points, from 0 at the smallest value to 1 at the largest") {
    std::vector<double> values;
    for (int i = 1; i <= 100000; ++i) values.push_back(static_cast<double>(i));
    const std::vector<Point> cdf = cdf_points(values, kMaxCdfPoints);
    CHECK(cdf.size() <= kMaxCdfPoints);
    CHECK(cdf.front().x == 1);
    CHECK(cdf.front().y == 0);
    CHECK(cdf.back().x == 100000);
    CHECK(cdf.back().y == 1);
  }
  SECTION("numbers print with precision for their size") {
    CHECK(format_number(1071.70519) == "1,071.7");
    CHECK(format_number(12.3456) == "12.35");
    CHECK(format_number(0.88781) == "0.8878");
    CHECK(format_number(0) == "0");
    CHECK(format_number(-0.00001) == "0");
  }
}

TEST_CASE("reports::model: headlines compare topology-aware with default, colours follow the scheduler", "[reports]") {
  const ResultSet results = run_scenario(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs_json(R"("first")"), "",
                                                       R"(, "network": {"nic_speed_gbit": 10})"));
  const ReportModel m = build_report_model({{"bench", &results}});
  REQUIRE(m.series.size() == 2);
  CHECK(m.series[0].colour == scheduler_colour("topology-aware"));
  CHECK(m.series[0].colour != m.series[1].colour);
  REQUIRE_FALSE(m.headlines.empty());
  const Headline& images = m.headlines.front();
  CHECK(images.metric == "images_per_sec.mean");
  CHECK(images.other_name == "topology-aware");
  CHECK(images.base_name == "default");
  CHECK(images.change_percent == Approx((images.other - images.base) / images.base * 100));
  CHECK(images.change_percent > 0);  // NVLink against TCP
  CHECK_FALSE(images.worse);
  CHECK(m.deltas.empty());  // one run: nothing to compare across runs
  std::vector<std::string> titles;
  for (const Chart& c : m.charts) titles.push_back(c.title);
  CHECK(std::find(titles.begin(), titles.end(), "Job completion time (CDF)") != titles.end());
  CHECK(std::find(titles.begin(), titles.end(), "Ring bandwidth by transport") != titles.end());
  for (const Chart& c : m.charts) {
    INFO(c.title);
    CHECK_FALSE(c.x_label.empty());
    CHECK_FALSE(c.y_label.empty());
    CHECK_FALSE(c.table.rows.empty());
    // Expected: the table says what its figures are, with the unit, as the chart's value axis does.
    // (A CDF's figures are its x values; a log-scale axis says so after them.)
    CHECK_FALSE(c.table.values.empty());
    CHECK_THAT(c.y_label == "share of finished jobs" ? c.x_label : c.y_label, Catch::StartsWith(c.table.values));
  }
  const auto jct =
      std::find_if(m.charts.begin(), m.charts.end(), [](const Chart& c) { return c.title == "Job completion time (CDF)"; });
  REQUIRE(jct != m.charts.end());
  CHECK(jct->table.values == "JCT (s)");
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  CHECK_THAT(sink.files.at("report.html"), Catch::Contains("<table><caption>figures: JCT (s)</caption><thead>"));
}

TEST_CASE("reports::comparison of two runs: deltas with % change, worse marked", "[reports]") {
  // The same jobs on two nodes, then on one: the second job waits for the first.
  const std::string jobs = jobs_json(R"("first")");
  const ResultSet two =
      run_scenario(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs, R"(, "schedulers": ["topology-aware"])"));
  const ResultSet one =
      run_scenario(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", jobs, R"(, "schedulers": ["topology-aware"])"));
  const ReportModel m = build_report_model({{"two nodes", &two}, {"one node", &one}});
  REQUIRE(m.series.size() == 2);
  CHECK(m.series[1].name == "one node: topology-aware");
  CHECK(m.series[1].colour == m.series[0].colour);  // one colour per scheduler, the later run dashed
  const auto row = std::find_if(m.deltas.begin(), m.deltas.end(), [](const DeltaRow& r) { return r.metric == "wait_s.mean"; });
  REQUIRE(row != m.deltas.end());
  CHECK(row->values[0] == 0);
  CHECK(row->values[1] > 0);
  CHECK(row->worse[1]);
  // Expected: a change against 0 cannot be stated (before: "+0.0%" for a wait that grew from 0).
  CHECK(std::isnan(row->change_percent[1]));
  const auto jct = std::find_if(m.deltas.begin(), m.deltas.end(), [](const DeltaRow& r) { return r.metric == "jct_s.mean"; });
  REQUIRE(jct != m.deltas.end());
  CHECK(jct->change_percent[1] == Approx((jct->values[1] - jct->values[0]) / jct->values[0] * 100));
  MemorySink sink;
  REQUIRE(write_report({{"two nodes", &two}, {"one node", &one}}, sink).ok());
  const std::string& md = sink.files.at("summary.md");
  CHECK_THAT(md, Catch::Contains("| one node vs two nodes |") && Catch::Contains(" worse**"));
  CHECK_THAT(md, Catch::Contains("| topology-aware | wait\\_s.mean | s | 0 | ") && Catch::Contains(" | n/a |"));
  CHECK_THAT(md, Catch::Contains(kChangeAgainstZeroNote));
  const std::string& html = sink.files.at("report.html");
  CHECK_THAT(html, Catch::Contains("Comparison of runs") && Catch::Contains("class=\"worse\""));
  CHECK_THAT(html, Catch::Contains("<td>n/a</td>") && Catch::Contains(kChangeAgainstZeroNote));
}

TEST_CASE("reports::files: every one written, CSV headers with units, Prometheus families", "[reports]") {
  const ResultSet results = run_scenario(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs_json(R"("first")")));
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  for (const std::string& name : report_file_names()) CHECK(sink.files.count(name) == 1);
  const auto summary = parse_csv(sink.files.at("summary.csv"));
  REQUIRE(summary.size() == 3);  // header + 2 schedulers
  CHECK(summary[0][0] == "run");
  CHECK(std::find(summary[0].begin(), summary[0].end(), "wait_s.p95") != summary[0].end());
  CHECK(std::find(summary[0].begin(), summary[0].end(), "ring_gbps.mean") != summary[0].end());
  const auto jobs = parse_csv(sink.files.at("jobs.csv"));
  CHECK(jobs.size() == 1 + 2 * 2);
  CHECK(std::find(jobs[0].begin(), jobs[0].end(), "jct_s") != jobs[0].end());
  CHECK(sink.files.at("summary.csv").find("\r\n") != std::string::npos);
  const std::string& prom = sink.files.at("metrics.prom");
  CHECK_THAT(prom, Catch::Contains("# TYPE topsim_wait_seconds gauge") && Catch::Contains("# HELP topsim_wait_seconds "));
  CHECK_THAT(prom,
             Catch::Contains(
                 "topsim_wait_seconds{run=\"bench\",scenario=\"test\",scheduler=\"default\",policy=\"none\",stat=\"p95\"} "));
  CHECK_THAT(sink.files.at("summary.md"), Catch::StartsWith("## topsim: bench\n"));
}

TEST_CASE("reports::escaping: a job and a scenario named to break out go through every output intact", "[reports][escape]") {
  const std::string json =
      R"({"name": )" + std::string(kNastyJson) +
      R"(, "cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}]}, "workload": {"kind": "jobs", "jobs": )" +
      jobs_json(kNastyJson) + "}}";
  const ResultSet results = run_scenario(json);
  REQUIRE(results.scenario.name == kNasty);
  MemorySink sink;
  REQUIRE(write_report({{kNasty, &results}}, sink).ok());
  SECTION("report.html: no raw tag from the name; only the page's own three scripts close") {
    const std::string& html = sink.files.at("report.html");
    CHECK(html.find("<img src=x") == std::string::npos);
    CHECK(count(html, "</script>") == 3);
    CHECK_THAT(html, Catch::Contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;|&quot;a,b&quot;"));
  }
  SECTION("summary.md: the name stays inside its cell and its line") {
    const std::string& md = sink.files.at("summary.md");
    for (size_t at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1)) CHECK(md[at - 1] == '\\');
    CHECK_THAT(md, Catch::Contains("\\<img src=x onerror=alert(1)\\>\\|\"a,b\""));
    std::istringstream lines(md);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty() && line[0] == '|') CHECK(line.back() == '|');
  }
  SECTION("CSV: the name comes back exactly from an RFC 4180 reader") {
    const auto jobs = parse_csv(sink.files.at("jobs.csv"));
    REQUIRE(jobs.size() == 5);
    const size_t name = static_cast<size_t>(std::find(jobs[0].begin(), jobs[0].end(), "name") - jobs[0].begin());
    CHECK(jobs[1][0] == kNasty);  // the run's label
    CHECK((jobs[1][name] == kNasty || jobs[2][name] == kNasty));
    const auto summary = parse_csv(sink.files.at("summary.csv"));
    CHECK(summary[1][1] == kNasty);  // the scenario
  }
  SECTION("metrics.prom: label values escaped") {
    CHECK_THAT(sink.files.at("metrics.prom"),
               Catch::Contains(R"(run="</script><img src=x onerror=alert(1)>|\"a,b\"\n",scenario=)"));
  }
  SECTION("results.json and jobs.jsonl: JSON gives the names back") {
    std::ostringstream results_json, jobs_jsonl;
    write_results_json(results, results_json);
    write_jobs_jsonl(results, jobs_jsonl);
    CHECK(nlohmann::json::parse(results_json.str())["scenario"]["name"] == kNasty);
    std::istringstream lines(jobs_jsonl.str());
    std::string first;
    std::getline(lines, first);
    CHECK(nlohmann::json::parse(first)["name"] == kNasty);
  }
}

TEST_CASE("reports::text: figures wider than their column never run into the next", "[reports]") {
  // Medians of 10^15 s (a run that saturates the simulated time) were printed back to back.
  ResultSet results = run_scenario(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs_json(R"("first")")));
  for (SchedulerResult& s : results.schedulers)
    for (MetricSummary& m : s.metrics) m.over_seeds.mean = 1e15;
  const std::string text = render_text(results);
  CHECK(text.find("1,000,000,000,000,000.0 / 1,000,000,000,000,000.0") != std::string::npos);
  CHECK(text.find(".01000") == std::string::npos);  // "...0.0" directly followed by "1000..."
  CHECK(text.find("%1") == std::string::npos);
}

TEST_CASE("reports: per node type, LLM jobs' tokens/s stand apart from other jobs' samples/s", "[reports]") {
  // Expectation: on A100 and H100 nodes, two Llama 3 8B jobs (tokens/s) and two ResNet-50 jobs
  // (images/s): each type's mean samples/s is its ResNet-50 jobs' alone, its mean tokens/s its
  // LLM jobs' alone, in results.json (read back the same), summary.txt and summary.md.
  const ResultSet results = run_scenario(
      scenario_json(R"([{"model": "dgx-a100", "count": 1}, {"model": "hgx-h100", "count": 1}])",
                    R"([{"name": "llm", "count": 2, "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "iterations": 20,
           "llm": {"model": "llama3-8b", "tp": 4}},
          {"name": "cnn", "count": 2, "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "iterations": 20}])",
                    R"(, "schedulers": ["topology-aware"])"));
  const RunResult& run = results.schedulers.front().runs.front();
  REQUIRE(run.by_node_type.size() == 2);
  uint64_t llm_jobs = 0, jobs = 0;
  for (const NodeTypeUsage& u : run.by_node_type) {
    INFO(u.node_type);
    jobs += u.jobs;
    llm_jobs += u.llm_jobs;
    CHECK(u.llm_jobs <= u.jobs);
    if (u.llm_jobs > 0) CHECK(u.mean_tokens_per_sec > 0);
    // ResNet-50 trains at most a few thousand images/s per GPU: a mean with tokens/s in it would be far above.
    if (u.jobs > u.llm_jobs) CHECK(u.mean_samples_per_sec < 4 * 4000);
  }
  CHECK(jobs == 4);
  CHECK(llm_jobs == 2);
  std::ostringstream json;
  write_results_json(results, json);
  const nlohmann::json written = nlohmann::json::parse(json.str());
  const auto& types = written["schedulers"][0]["runs"][0]["usage_by_node_type"];
  REQUIRE(types.size() == 2);
  for (size_t t = 0; t < 2; ++t) {
    CHECK(types[t]["llm_jobs"] == run.by_node_type[t].llm_jobs);
    CHECK(types[t]["mean_tokens_per_sec"].is_null() == (run.by_node_type[t].llm_jobs == 0));
  }
  TempDir dir;
  {
    std::ofstream out(dir.file("results.json"));
    write_results_json(results, out);
  }
  auto loaded = load_results(dir.path.string());
  REQUIRE(loaded.ok());
  const auto& back = loaded->schedulers.front().runs.front().by_node_type;
  REQUIRE(back.size() == 2);
  for (size_t t = 0; t < 2; ++t) {
    CHECK(back[t].llm_jobs == run.by_node_type[t].llm_jobs);
    CHECK(back[t].mean_tokens_per_sec == Approx(run.by_node_type[t].mean_tokens_per_sec));
    CHECK(back[t].mean_samples_per_sec == Approx(run.by_node_type[t].mean_samples_per_sec));
  }
  const std::string text = render_text(results);
  CHECK_THAT(text, Catch::Contains("mean samples/s  LLM jobs  mean tokens/s"));
  const auto node_types = [](const std::string& summary) {  // the table, up to the blank line after it
    const size_t from = summary.find("scheduler       node type");
    return from == std::string::npos ? std::string() : summary.substr(from, summary.find("\n\n", from) - from);
  };
  CHECK(!node_types(text).empty());
  CHECK(node_types(render_text(*loaded)) == node_types(text));
  MemorySink sink;
  REQUIRE(write_report({{"mixed", &results}}, sink).ok());
  CHECK_THAT(sink.files.at("summary.md"), Catch::Contains("### Per node type\n\n| scheduler | node type | jobs | GPU-hours | "
                                                          "mean samples/s | LLM jobs | mean tokens/s |\n| --- | --- | ---: |"));
  // report.html has the same table, a row per node type.
  const std::string& html = sink.files.at("report.html");
  CHECK_THAT(
      html,
      Catch::Contains("<h2>Per node type</h2>\n<table><thead><tr><th>scheduler</th><th class=\"name\">node type</th><th>jobs</th>"
                      "<th>GPU-hours</th><th>mean samples/s</th><th>LLM jobs</th><th>mean tokens/s</th>"));
  for (const NodeTypeUsage& u : run.by_node_type)
    CHECK_THAT(html, Catch::Contains("<tr><td>topology-aware</td><td class=\"name\">" + u.node_type + "</td><td>" +
                                     std::to_string(u.jobs) + "</td>"));
}

TEST_CASE("reports: a cluster of one node type has no per-node-type table", "[reports]") {
  const ResultSet results = run_scenario(scenario_json(
      R"([{"model": "dgx-a100", "count": 2}])",
      R"([{"name": "cnn", "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "iterations": 20}])"));
  MemorySink sink;
  REQUIRE(write_report({{"one", &results}}, sink).ok());
  CHECK(sink.files.at("report.html").find("Per node type") == std::string::npos);
  CHECK(sink.files.at("summary.md").find("Per node type") == std::string::npos);
  CHECK(render_text(results).find("node type") == std::string::npos);
}
