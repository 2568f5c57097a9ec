#include "tests/docs/docs_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "plan/plan.h"
#include "plan/plan_parts.h"
#include "reports/plan_report.h"
#include "tests/test_support.h"

namespace topsim::test::docs {

namespace fs = std::filesystem;

std::string first_group(const std::string& text, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m[1].str() : "";
}

std::vector<std::vector<std::string>> all_groups(const std::string& text, const std::string& pattern) {
  std::vector<std::vector<std::string>> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::vector<std::string>(it->begin() + 1, it->end()));
  return out;
}

std::string grouped(std::string number) {
  const size_t begin = number[0] == '-' ? 1 : 0;
  for (size_t at = std::min(number.find('.'), number.size()); at > begin + 3;) {
    at -= 3;
    number.insert(at, ",");
  }
  return number;
}

std::string whole(double value) { return grouped(std::to_string(std::llround(value))); }

std::string tenth(double value) { return grouped(fmt::format("{:.1f}", value)); }

std::string one_spaced(const std::string& text) { return std::regex_replace(text, std::regex("\\s+"), " "); }

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
  PlanFigures figures{result->chains.size(), 0, SIZE_MAX, 0, {}, topsim::plan_groups(*plan), topsim::render_plan_text(*result)};
  for (const topsim::PlanChain& chain : result->chains) {
    figures.configurations += chain.evaluations.size();
    figures.fewest = std::min(figures.fewest, chain.evaluations.size());
    figures.most = std::max(figures.most, chain.evaluations.size());
    figures.jobs_replayed.push_back(static_cast<double>(topsim::jobs_replayed(chain, result->info.jobs)));
  }
  return figures;
}

void check_plan_figures(const std::string& name) {
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
  const std::string doc = read_text(kRoot / "docs/planning.md");
  CHECK_THAT(one_spaced(doc), Catch::Contains(fmt::format("(the Philly plan: {}–{} per search, {} in all)", figures->fewest,
                                                          figures->most, figures->configurations)));
  // Its "What it prints": every row shown (up to its "...") starts a line of the plan's text, and
  // the headline, wrapped in the docs, is the plan's.
  const size_t start = doc.find("```\n", doc.find("## What it prints"));
  REQUIRE(start != std::string::npos);
  std::istringstream example(doc.substr(start + 4, doc.find("```", start + 4) - start - 4));
  std::string headline;
  for (std::string line; std::getline(example, line);) {
    INFO(line);
    if (line == "...") continue;
    if (const size_t cut = line.rfind("  ..."); cut != std::string::npos && cut + 5 == line.size())
      CHECK_THAT(figures->text, Catch::Contains("\n" + line.substr(0, cut + 2)));
    else if (line.rfind("  ", 0) == 0)
      headline += line;
    else
      CHECK_THAT(figures->text, Catch::Contains(line + "\n"));
  }
  REQUIRE_FALSE(headline.empty());
  CHECK_THAT(one_spaced(figures->text), Catch::Contains(one_spaced(headline)));
}

ReplayFigures run_replay(const fs::path& scenario) {
  const TempDir dir;
  const CliResult r = run_cli("run '" + scenario.string() + "' -o '" + dir.file("out") + "' --threads 2");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  ReplayFigures figures{nlohmann::json::parse(read_text(dir.file("out/results.json"))), {}};
  std::istringstream lines(read_text(dir.file("out/jobs.jsonl")));
  for (std::string line; std::getline(lines, line);) figures.jobs.push_back(nlohmann::json::parse(line));
  return figures;
}

nlohmann::json movable_scenario(const std::string& name) {
  nlohmann::json scenario = nlohmann::json::parse(read_text(kRoot / "scenarios" / (name + ".json")));
  const std::function<void(nlohmann::json&)> fix = [&](nlohmann::json& v) {
    if (v.is_string()) {
      const std::string text = v.get<std::string>();
      std::error_code ec;  // a description is no path: too long a name is no file either
      if (!text.empty() && fs::path(text).is_relative() && fs::exists(kRoot / "scenarios" / text, ec))
        v = (kRoot / "scenarios" / text).lexically_normal().string();
    }
    if (v.is_structured())
      for (auto& child : v) fix(child);  // objects' values, arrays' elements (a scalar iterates as itself)
  };
  fix(scenario);
  return scenario;
}

ReplayFigures run_shipped_replay(const std::string& name) { return run_replay(kRoot / "scenarios" / (name + ".json")); }

bool philly_absent() {
  if (!topsim::test::shared_file("traces/philly/philly.csv").empty()) return false;
  WARN("skipped: ../shared/traces/philly/philly.csv is not here (the scenarios replay the Philly trace)");
  return true;
}

std::string readme_fairness(const ReplayFigures& with, const ReplayFigures& without) {
  const auto jain = [](const ReplayFigures& f) { return fmt::format("{:.3f}", f.metric("topology-aware", "tenant_fairness")); };
  const auto wait = [](const ReplayFigures& f) { return whole(f.metric("topology-aware", "wait_s.mean")); };
  return "Jain's index between the VCs " + jain(with) + " against " + jain(without) + ", mean wait " + wait(with) +
         " s against " + wait(without) + " s";
}

}  // namespace topsim::test::docs
