// Text tables (reports/text_table.h): columns as wide as their widest cell, aligned left or right,
// free last cells, no trailing blanks; and the text report's tables built on them stay in line
// whatever the schedulers are called.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "reports/text_report.h"
#include "reports/text_table.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// Where `cell` ends on `line` (one past its last character); npos when it is not there.
size_t end_of(const std::string& line, const std::string& cell) {
  const size_t at = line.find(cell);
  return at == std::string::npos ? at : at + cell.size();
}

}  // namespace

TEST_CASE("reports::text_table pads each column to its widest cell", "[reports][text-table]") {
  const std::vector<TextRow> rows{{"name", "jobs", "note"}, {"a-much-longer-name", "7", "free text"}, {"b", "1234", ""}};
  SECTION("left-aligned names, right-aligned figures, the last cell free, no trailing blank") {
    CHECK(text_table(rows, {"", 1}) ==
          "name                jobs  note\n"
          "a-much-longer-name     7  free text\n"
          "b                   1234\n");
  }
  SECTION("every column padded when the last is a figure too, an indent and a wider gap before the last") {
    CHECK(text_table({{"x", "total"}, {"long", "5"}}, {"  ", 1, 2, false}) == "  x     total\n  long      5\n");
    CHECK(text_table(rows, {"", 3, 4}) ==
          "name                jobs    note\n"
          "a-much-longer-name  7       free text\n"
          "b                   1234\n");
  }
  SECTION("a short row's last cell is free and does not widen the column") {
    CHECK(text_table({{"a", "b", "c"}, {"a-wide-last-cell"}}) == "a  b  c\na-wide-last-cell\n");
  }
  SECTION("headings: a row of one cell written as it is, widening nothing") {
    TextTableLayout headings{"", 1, 2, false, true};
    CHECK(text_table({{"", "a"}, {"a long heading line:"}, {"x", "12"}}, headings) == "    a\na long heading line:\nx  12\n");
    headings.headings = false;
    CHECK(text_table({{"", "a"}, {"a long heading line:"}, {"x", "12"}}, headings) ==
          "                       a\na long heading line:\nx                     12\n");
  }
  SECTION("widths count characters: a \"±\" is one, as the padding counts it") {
    CHECK(text_table({{"x", "1.0 ± 0.1"}, {"y", "12.5 ± 0.25"}}, {"", 1, 2, false}) == "x    1.0 ± 0.1\ny  12.5 ± 0.25\n");
  }
  SECTION("no rows, no text") { CHECK(text_table({}).empty()); }
}

TEST_CASE("reports::text: a table of many schedulers stays in line when one has a long name", "[reports][text-table]") {
  // A 16-character name (volcano-topology) pushed its own row one column right of the others.
  ResultSet results = run_all(scenario_from(scenario_json(
      R"([{"model": "dgx1-v100", "count": 2}])",
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "iterations": 100}])")));
  REQUIRE(!results.schedulers.empty());
  const SchedulerResult one = results.schedulers.front();
  for (const std::string name : {"b", "a-plug-in-with-a-long-name", "c", "d"}) {
    results.schedulers.push_back(one);
    results.schedulers.back().name = name;
  }
  REQUIRE(results.schedulers.size() > 4);  // listed one per row, not side by side
  const std::vector<std::string> lines = lines_of(render_text(results));
  size_t header = 0;
  while (header < lines.size() && lines[header].rfind("scheduler", 0) != 0) ++header;
  REQUIRE(header + results.schedulers.size() < lines.size());
  const size_t counts_end = end_of(lines[header], "fin/rej/stuck/never");
  const size_t frag_end = end_of(lines[header], "mean frag");
  REQUIRE(counts_end != std::string::npos);
  for (size_t i = 1; i <= results.schedulers.size(); ++i) {
    const std::string& row = lines[header + i];
    INFO(row);
    CHECK(row.rfind(results.schedulers[i - 1].name + " ", 0) == 0);
    CHECK(end_of(row, "1/0/0/0") == counts_end);
    CHECK(row.size() == frag_end);
  }
}

TEST_CASE("reports::text: the LLM step table's figures line up on their decimal points", "[reports][text-table]") {
  // Trimmed decimals ("4159" under "4896.6", "3.1" under "13.82") left a column's points unaligned.
  ResultSet results = run_all(scenario_from(scenario_json(
      R"([{"model": "dgx1-v100", "count": 1}])",
      R"([{"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 1, "model": "resnet50", "iterations": 10}])")));
  REQUIRE(!results.schedulers.empty());
  LlmModelStep small{"llama3-8b", 2, 4159.0, 0.3453, 3.1};
  small.compute_s = 3.1;
  LlmModelStep large{"llama3-70b", 1, 903.41, 0.4065, 13.82};
  large.compute_s = 13.82;
  results.schedulers.front().runs.front().llm_steps = {small, large};
  const std::vector<std::string> lines = lines_of(render_text(results));
  size_t header = 0;
  while (header < lines.size() && lines[header].find("tokens/s/GPU") == std::string::npos) ++header;
  REQUIRE(header + 2 < lines.size());
  const std::vector<std::string> first = words_of(lines[header + 1]), second = words_of(lines[header + 2]);
  INFO(lines[header + 1] << "\n" << lines[header + 2]);
  REQUIRE(first.size() > 5);
  REQUIRE(second.size() > 5);
  CHECK(first[3] == "4,159.0");
  CHECK(second[3] == "903.4");
  CHECK(first[4] == "34.5%");
  CHECK(first[5] == "3.10");
  CHECK(second[5] == "13.82");
  for (const std::string cell : {"4,159.0", "34.5%", "3.10"}) {
    const size_t column_end = end_of(lines[header + 1], cell);
    const std::string& other = cell == "4,159.0" ? second[3] : cell == "34.5%" ? second[4] : second[5];
    CHECK(end_of(lines[header + 2], other) == column_end);
  }
}

TEST_CASE("reports::text: the side-by-side block keeps wide cells apart and under their scheduler", "[reports][text-table]") {
  // Cells wider than a fixed 21-character column ran two schedulers' cells together: two
  // preemption figures, five failure causes, three GPU-hour figures.
  ResultSet results = run_all(scenario_from(scenario_json(
      R"([{"model": "dgx1-v100", "count": 1}])",
      R"([{"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 1, "model": "resnet50", "iterations": 10}])")));
  REQUIRE(!results.schedulers.empty());
  results.schedulers.push_back(results.schedulers.front());
  results.schedulers.back().name = "other";
  const std::pair<const char*, double> figures[] = {{"evictions", 4741},
                                                    {"preempted_gpu_hours", 1},
                                                    {"borrowed_gpu_hours", 1},
                                                    {"jobs@ee9e8c", 10},
                                                    {"finished@ee9e8c", 10},
                                                    {"wait_s.p95@ee9e8c", 11538},
                                                    {"jct_s.mean@ee9e8c", 69898},
                                                    {"gpu_hours@ee9e8c", 181080},
                                                    {"evictions@ee9e8c", 795},
                                                    {"nominal_gpus@ee9e8c", 128},
                                                    {"node_failures", 182},
                                                    {"node_failures.gpu", 88},
                                                    {"restart_gpu_hours", 146549.33},
                                                    {"checkpoint_gpu_hours", 121139.2}};
  for (SchedulerResult& s : results.schedulers) {
    for (const auto& [name, value] : figures) {
      s.runs.front().metrics.set(name, value);
      s.metrics.push_back({name, {value, 0, value, value}});
    }
  }
  const std::vector<std::string> lines = lines_of(render_text(results));
  size_t names = 0;
  while (names + 1 < lines.size() && lines[names + 1].rfind("jobs submitted", 0) != 0) ++names;
  REQUIRE(names + 1 < lines.size());
  const std::string& header = lines[names];
  const size_t first_end = end_of(header, results.schedulers.front().name);
  REQUIRE(first_end != std::string::npos);
  const auto row_of = [&](const std::string& label) {
    for (const std::string& line : lines)
      if (line.rfind(label, 0) == 0) return line;
    return std::string();
  };
  const std::pair<std::string, std::string> wide[] = {
      {"preempted: evictions / GPU-h lost", "4,741 / 1.00"},
      {"node failures: all", "182 (88/0/0/0/0)"},
      {"GPU-h restarting / checkpointing / waiting", "146,549.33 / 121,139.20 / 0.00"}};
  for (const auto& [label, cell] : wide) {
    const std::string row = row_of(label);
    INFO(header << "\n" << row);
    CHECK(row.find(cell + "  ") != std::string::npos);  // two spaces at least before the next cell
    CHECK(end_of(row, cell) == first_end);              // under its scheduler's name
    CHECK(row.size() == header.size());                 // the last cell ends under "other"
    CHECK(row.substr(row.size() - cell.size()) == cell);
  }
  // Every row of the block, headings aside, ends under the last scheduler's name.
  for (size_t i = names + 1; i < lines.size() && !lines[i].empty(); ++i) {
    INFO(lines[i]);
    if (lines[i].back() != ':') CHECK(lines[i].size() == header.size());
  }
  // Each tenant's figures are a table of their own below, a row per scheduler.
  CHECK(row_of("  tenant (nominal GPUs)").ends_with("  evictions"));
  CHECK(row_of("  ee9e8c (128)").ends_with("  11,538.0    69,898.0  181,080.0  100.0%        795"));

  SECTION("no run evicted a job: the per-tenant table leaves evictions out") {
    for (SchedulerResult& s : results.schedulers) {
      s.runs.front().metrics.set("evictions", 0);
      s.runs.front().metrics.set("evictions@ee9e8c", 0);
      for (auto& m : s.metrics)
        if (m.name == "evictions" || m.name == "evictions@ee9e8c") m.over_seeds = {0, 0, 0, 0};
    }
    const std::vector<std::string> quiet = lines_of(render_text(results));
    for (const std::string& line : quiet) {
      INFO(line);
      if (line.rfind("  tenant (nominal GPUs)", 0) == 0) CHECK(line.ends_with("  share"));
      if (line.rfind("  ee9e8c (128)", 0) == 0) CHECK(line.ends_with("  181,080.0  100.0%"));
      if (line.rfind("preempted: evictions", 0) == 0) CHECK(line.find("0 / 1.00") != std::string::npos);
    }
  }
}
