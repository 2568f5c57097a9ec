// Helpers of the tests that check the figures the README and docs/ quote against what the tree and
// this build give (tests/docs/test_docs_*.cpp): reading figures out of the docs as they write
// them, and running the shipped plans and replays.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace topsim::test::docs {

// The shared test helpers these tests use (tests/test_support.h), so that one using-directive of
// this namespace brings everything a docs test needs.
using test::CliResult;
using test::read_text;
using test::run_cli;
using test::run_shell;
using test::TempDir;

inline const std::filesystem::path kRoot = TOPSIM_SOURCE_DIR;

// The first match of `pattern`'s group 1 in `text`, or "".
std::string first_group(const std::string& text, const std::string& pattern);
// Every match of `pattern` in `text`: its groups.
std::vector<std::vector<std::string>> all_groups(const std::string& text, const std::string& pattern);
// `number` (digits, an optional sign and decimals) with its whole part's thousands separated by
// commas, as the docs write figures.
std::string grouped(std::string number);
// A figure as the docs write it: a whole number (12,345).
std::string whole(double value);
// A figure to one decimal as the docs write it (4,488.8).
std::string tenth(double value);
// Text with every run of white space one space: a quoted phrase may cross a line break.
std::string one_spaced(const std::string& text);

// What a shipped plan evaluates: its searches, the sizes each evaluated, and the jobs each replayed.
struct PlanFigures {
  size_t searches = 0, configurations = 0, fewest = 0, most = 0;  // sizes: in all, and per search
  std::vector<double> jobs_replayed;                              // per search
  std::vector<std::vector<size_t>> groups;                        // plan_groups: what shards deal out
  std::string text;                                               // what `topsim plan` prints
};

// The figures of scenarios/<name>.json; nullopt (with a warning) when its trace is absent.
std::optional<PlanFigures> run_shipped_plan(const std::string& name);
// docs/performance.md (bench_plan's table: | plan | threads | searches | configurations | ...) and
// docs/distributed.md (| plan | searches | N = 2 | 3 | 4 | 6 | 8 | 16 |, by jobs replayed).
void check_plan_figures(const std::string& name);

// What a shipped replay wrote: results.json and jobs.jsonl.
struct ReplayFigures {
  nlohmann::json results;
  std::vector<nlohmann::json> jobs;

  double metric(const std::string& scheduler, const std::string& name) const {
    for (const auto& s : results.at("schedulers"))
      if (s.at("name") == scheduler) return s.at("metrics").at(name).at("mean").get<double>();
    FAIL("no scheduler " << scheduler);
    return 0;
  }
  // Mean JCT of the scheduler's finished jobs that select exactly `models` (GPU model names;
  // empty: the jobs that select none).
  double mean_jct_selecting(const std::string& scheduler, const nlohmann::json& models) const {
    double sum = 0;
    size_t n = 0;
    for (const nlohmann::json& j : jobs)
      if (j.at("scheduler") == scheduler && j.at("state") == "finished" &&
          j.value("gpu_models", nlohmann::json::array()) == models)
        sum += j.at("jct_s").get<double>(), ++n;
    REQUIRE(n > 0);
    return sum / static_cast<double>(n);
  }
  // The job's line, kept here: a reference into a member may be held as long as these figures.
  const nlohmann::json& job(const std::string& scheduler, const std::string& name) const {
    const auto it = std::find_if(jobs.begin(), jobs.end(),
                                 [&](const nlohmann::json& j) { return j.at("scheduler") == scheduler && j.at("name") == name; });
    REQUIRE(it != jobs.end());
    return *it;
  }
};

// Runs the scenario at `scenario`.
ReplayFigures run_replay(const std::filesystem::path& scenario);
// A copy of scenarios/<name>.json to run from elsewhere: every string naming a file or folder
// beside it (node models, traces, queues) made absolute.
nlohmann::json movable_scenario(const std::string& name);
// Runs scenarios/<name>.json, whose jobs are in the file or synthetic (nothing from ../shared/).
ReplayFigures run_shipped_replay(const std::string& name);
// The Philly trace is not here: a test of the scenarios replaying it warns and skips.
bool philly_absent();
// The README's sentence comparing a queue model (`with`) with its baseline (`without`) under
// topology-aware placement: Jain's index between the VCs, then the mean wait.
std::string readme_fairness(const ReplayFigures& with, const ReplayFigures& without);

}  // namespace topsim::test::docs
