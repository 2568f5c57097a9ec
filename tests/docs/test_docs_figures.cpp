// Figures the README and docs/ quote are checked against what the tree and this build give, so
// they cannot go stale silently: the bad-input count, the baseline example of docs/ci.md, the
// searches, configurations and shard balance of the shipped plans, and the reports the README's
// screenshots show.
#include <filesystem>
#include <fstream>
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

TEST_CASE("docs::the shipped plans' searches, configurations and shard balance in docs/ are what they evaluate", "[docs]") {
  const std::string performance = read_text(kRoot / "docs/performance.md");
  const std::string distributed = read_text(kRoot / "docs/distributed.md");
  const std::string planning = std::regex_replace(read_text(kRoot / "docs/planning.md"), std::regex("\\s+"), " ");
  for (const std::string name : {"plan-philly", "plan-alibaba-shares"}) {
    INFO(name);
    auto plan = topsim::load_plan((kRoot / "scenarios" / (name + ".json")).string());
    if (!plan) {
      WARN("skipped " << name << ": " << plan.error().message);
      continue;
    }
    topsim::PlanRunOptions options;
    options.threads = 2;
    const auto result = topsim::run_plan(*plan, options);
    REQUIRE(result);
    size_t configurations = 0;
    std::vector<double> jobs;
    for (const topsim::PlanChain& chain : result->chains) {
      configurations += chain.evaluations.size();
      jobs.push_back(static_cast<double>(topsim::jobs_replayed(chain, result->info.jobs)));
    }
    // docs/performance.md, bench_plan's table: | plan | threads | searches | configurations | ...
    const auto rows = all_groups(performance, "\\| " + name + " \\| [0-9]+ \\| ([0-9]+) \\| ([0-9]+) \\|");
    CHECK_FALSE(rows.empty());
    for (const auto& row : rows) {
      CHECK(row[0] == std::to_string(result->chains.size()));
      CHECK(row[1] == std::to_string(configurations));
    }
    // docs/distributed.md: | plan | searches | N = 2 | 3 | 4 | 6 | 8 | 16 |
    const auto balance = all_groups(distributed, "\\| " + name + " \\| ([0-9]+) \\|(( [0-9.—]+ \\|){6})");
    REQUIRE(balance.size() == 1);
    CHECK(balance[0][0] == std::to_string(result->chains.size()));
    std::string expected;
    for (const size_t shards : {2, 3, 4, 6, 8, 16})
      expected += shards > jobs.size() ? " — |" : fmt::format(" {:.2f} |", topsim::shard_balance(jobs, shards));
    INFO("distributed.md row: " << balance[0][1] << ", the plan's: " << expected);
    CHECK(balance[0][1] == expected);
    if (name == "plan-philly") {  // docs/planning.md: "(the Philly plan: A–B per search, N in all)"
      size_t fewest = configurations, most = 0;
      for (const topsim::PlanChain& chain : result->chains)
        fewest = std::min(fewest, chain.evaluations.size()), most = std::max(most, chain.evaluations.size());
      CHECK_THAT(planning,
                 Catch::Contains(fmt::format("(the Philly plan: {}–{} per search, {} in all)", fewest, most, configurations)));
    }
  }
}

TEST_CASE("docs::the README's screenshots show the reports this build writes", "[docs]") {
  const CliResult r =
      run_shell("bash '" + (kRoot / "docs/images/make.sh").string() + "' '" + std::string(TOPSIM_CLI_PATH) + "' --check");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
}
