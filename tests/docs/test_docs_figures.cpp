// Figures the README and docs/ quote are checked against what the tree and this build give, so
// they cannot go stale silently: the bad-input count, the baseline example of docs/ci.md, the
// searches, configurations and shard balance of the shipped plans, and the reports the README's
// screenshots show.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "plan/plan.h"
#include "plan/plan_parts.h"

#include "tests/test_support.h"

using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::run_shell;
using topsim::test::TempDir;

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = TOPSIM_SOURCE_DIR;

// The first match of `pattern`'s group 1 in `text`, or "".
std::string first_group(const std::string& text, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m[1].str() : "";
}

// Every match of `pattern` in `text`: its groups.
std::vector<std::vector<std::string>> all_groups(const std::string& text, const std::string& pattern) {
  std::vector<std::vector<std::string>> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::vector<std::string>(it->begin() + 1, it->end()));
  return out;
}

// What a shipped plan evaluates: its searches, the sizes each evaluated, and the jobs each replayed.
struct PlanFigures {
  size_t searches = 0, configurations = 0, fewest = 0, most = 0;  // sizes: in all, and per search
  std::vector<double> jobs_replayed;                              // per search
  std::vector<std::vector<size_t>> groups;                        // plan_groups: what shards deal out
};

// The figures of scenarios/<name>.json; nullopt (with a warning) when its trace is absent.
std::optional<PlanFigures> run_shipped_plan(const std::string& name) {
  auto plan = topsim::load_plan((kRoot / "scenarios" / (name + ".json")).string());
  if (!plan) {
    WARN("skipped " << name << ": " << plan.error().message);
    return std::nullopt;
  }
  topsim::PlanRunOptions options;
  options.threads = 2;
  options.check_invariants = false;  // the figures do not depend on it, and it costs several times the run
  const auto result = topsim::run_plan(*plan, options);
  REQUIRE(result);
  PlanFigures figures{result->chains.size(), 0, SIZE_MAX, 0, {}, topsim::plan_groups(*plan)};
  for (const topsim::PlanChain& chain : result->chains) {
    figures.configurations += chain.evaluations.size();
    figures.fewest = std::min(figures.fewest, chain.evaluations.size());
    figures.most = std::max(figures.most, chain.evaluations.size());
    figures.jobs_replayed.push_back(static_cast<double>(topsim::jobs_replayed(chain, result->info.jobs)));
  }
  return figures;
}

// docs/performance.md (bench_plan's table: | plan | threads | searches | configurations | ...) and
// docs/distributed.md (| plan | searches | N = 2 | 3 | 4 | 6 | 8 | 16 |, by jobs replayed).
[[maybe_unused]] void check_plan_figures(const std::string& name) {
  const auto figures = run_shipped_plan(name);
  if (!figures) return;
  const auto rows =
      all_groups(read_text(kRoot / "docs/performance.md"), "\\| " + name + " \\| [0-9]+ \\| ([0-9]+) \\| ([0-9]+) \\|");
  CHECK_FALSE(rows.empty());
  for (const auto& row : rows)
    CHECK(row == std::vector<std::string>{std::to_string(figures->searches), std::to_string(figures->configurations)});
  const auto balance =
      all_groups(read_text(kRoot / "docs/distributed.md"), "\\| " + name + " \\| ([0-9]+) \\|(( [0-9.—]+ \\|){6})");
  REQUIRE(balance.size() == 1);
  std::string expected;
  for (const size_t shards : {2, 3, 4, 6, 8, 16})
    expected += shards > figures->groups.size()
                    ? " — |"
                    : fmt::format(" {:.2f} |", topsim::shard_balance(figures->jobs_replayed, figures->groups, shards));
  CHECK(balance[0][0] == std::to_string(figures->searches));
  CHECK(balance[0][1] == expected);
  if (name != "plan-philly") return;
  // docs/planning.md: "(the Philly plan: A–B per search, N in all)", across a line break.
  const std::string planning = std::regex_replace(read_text(kRoot / "docs/planning.md"), std::regex("\\s+"), " ");
  CHECK_THAT(planning, Catch::Contains(fmt::format("(the Philly plan: {}–{} per search, {} in all)", figures->fewest,
                                                   figures->most, figures->configurations)));
}

}  // namespace

TEST_CASE("docs::the README's count of malformed inputs is the number of bad-input cases", "[docs]") {
  size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(kRoot / "tests/bad_inputs/cases")) cases += entry.path().extension() == ".case";
  const std::string quoted = first_group(read_text(kRoot / "README.md"), "([0-9,]+) malformed\\s+inputs");
  REQUIRE_FALSE(quoted.empty());
  CHECK(std::regex_replace(quoted, std::regex(","), "") == std::to_string(cases));
}

TEST_CASE("docs::the baseline example of docs/ci.md is this repository's baseline", "[docs]") {
  const std::string doc = read_text(kRoot / "docs/ci.md");
  const size_t section = doc.find("## The baseline"), start = doc.find("```json\n", section);
  REQUIRE(start != std::string::npos);
  const std::string example = doc.substr(start + 8, doc.find("```", start + 8) - start - 8);
  REQUIRE_FALSE(example.empty());
  const auto shown = nlohmann::json::parse(example);
  const auto baseline = nlohmann::json::parse(read_text(kRoot / "ci/quality-baseline.json"));
  // Every value the example shows is the committed baseline's (the example shows a part of it).
  CHECK(shown["schema"] == baseline["schema"]);
  CHECK(shown["suite"] == baseline["suite"]);
  for (const auto& [key, digest] : shown["inputs"].items()) CHECK(baseline["inputs"][key] == digest);
  for (const auto& [key, metrics] : shown["scenarios"].items())
    for (const auto& [metric, value] : metrics.items()) {
      INFO(key << " " << metric);
      CHECK(baseline["scenarios"][key][metric] == value);
    }
}

// Each plan in a test of its own, so that they run side by side; not under the sanitizers,
// where the replays take many times longer and give the same figures.
TEST_CASE("docs::the Philly plan's searches, configurations and shard balance in docs/ are what it evaluates", "[docs]") {
#ifndef TOPSIM_SANITIZED
  check_plan_figures("plan-philly");
#endif
}

TEST_CASE("docs::the Alibaba plan's searches, configurations and shard balance in docs/ are what it evaluates", "[docs]") {
#ifndef TOPSIM_SANITIZED
  check_plan_figures("plan-alibaba-shares");
#endif
}

TEST_CASE("docs::the README's screenshots show the reports this build writes", "[docs]") {
  const CliResult r =
      run_shell("bash '" + (kRoot / "docs/images/make.sh").string() + "' '" + std::string(TOPSIM_CLI_PATH) + "' --check");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
}
