// Figures the README and docs/ quote are checked against what the tree and this build give, so
// they cannot go stale silently: the bad-input count, the baseline example of docs/ci.md, the
// searches, configurations and shard balance of the shipped plans and the Philly plan's printed
// example, the replays' figures the README's scenario table, docs/llm-training.md,
// docs/fabric.md, docs/failures.md and docs/workloads.md quote, and the reports the README's screenshots show.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "plan/plan_parts.h"
#include "reports/plan_report.h"
#include "scenario/scenario_loader.h"
#include "sim/workload/workload_mix.h"

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

// `number` (digits, an optional sign and decimals) with its whole part's thousands separated by
// commas, as the docs write figures.
std::string grouped(std::string number) {
  const size_t begin = number[0] == '-' ? 1 : 0;
  for (size_t at = std::min(number.find('.'), number.size()); at > begin + 3;) {
    at -= 3;
    number.insert(at, ",");
  }
  return number;
}

// A figure as the docs write it: a whole number (12,345).
[[maybe_unused]] std::string whole(double value) { return grouped(std::to_string(std::llround(value))); }

// A figure to one decimal as the docs write it (4,488.8).
[[maybe_unused]] std::string tenth(double value) { return grouped(fmt::format("{:.1f}", value)); }

// Text with every run of white space one space: a quoted phrase may cross a line break.
[[maybe_unused]] std::string one_spaced(const std::string& text) { return std::regex_replace(text, std::regex("\\s+"), " "); }

// What a shipped plan evaluates: its searches, the sizes each evaluated, and the jobs each replayed.
struct PlanFigures {
  size_t searches = 0, configurations = 0, fewest = 0, most = 0;  // sizes: in all, and per search
  std::vector<double> jobs_replayed;                              // per search
  std::vector<std::vector<size_t>> groups;                        // plan_groups: what shards deal out
  std::string text;                                               // what `topsim plan` prints
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
  PlanFigures figures{result->chains.size(), 0, SIZE_MAX, 0, {}, topsim::plan_groups(*plan), topsim::render_plan_text(*result)};
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
[[maybe_unused]] ReplayFigures run_replay(const fs::path& scenario) {
  const TempDir dir;
  const CliResult r = run_cli("run '" + scenario.string() + "' -o '" + dir.file("out") + "' --threads 2");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  ReplayFigures figures{nlohmann::json::parse(read_text(dir.file("out/results.json"))), {}};
  std::istringstream lines(read_text(dir.file("out/jobs.jsonl")));
  for (std::string line; std::getline(lines, line);) figures.jobs.push_back(nlohmann::json::parse(line));
  return figures;
}

// A copy of scenarios/<name>.json to run from elsewhere: every string naming a file or folder
// beside it (node models, traces, queues) made absolute.
[[maybe_unused]] nlohmann::json movable_scenario(const std::string& name) {
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

// Runs scenarios/<name>.json, whose jobs are in the file or synthetic (nothing from ../shared/).
[[maybe_unused]] ReplayFigures run_shipped_replay(const std::string& name) {
  return run_replay(kRoot / "scenarios" / (name + ".json"));
}

// The Philly trace is not here: a test of the scenarios replaying it warns and skips.
[[maybe_unused]] bool philly_absent() {
  if (!topsim::test::shared_file("traces/philly/philly.csv").empty()) return false;
  WARN("skipped: ../shared/traces/philly/philly.csv is not here (the scenarios replay the Philly trace)");
  return true;
}

// The README's sentence comparing a queue model (`with`) with its baseline (`without`) under
// topology-aware placement: Jain's index between the VCs, then the mean wait.
[[maybe_unused]] std::string readme_fairness(const ReplayFigures& with, const ReplayFigures& without) {
  const auto jain = [](const ReplayFigures& f) { return fmt::format("{:.3f}", f.metric("topology-aware", "tenant_fairness")); };
  const auto wait = [](const ReplayFigures& f) { return whole(f.metric("topology-aware", "wait_s.mean")); };
  return "Jain's index between the VCs " + jain(with) + " against " + jain(without) + ", mean wait " + wait(with) +
         " s against " + wait(without) + " s";
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

// The replays' figures the README's scenario table and docs/llm-training.md quote; not under the
// sanitizers, as for the plans.
TEST_CASE("docs::the LLM fleet's figures in the README and docs/llm-training.md are what the scenario gives", "[docs]") {
#ifndef TOPSIM_SANITIZED
  const ReplayFigures f = run_shipped_replay("llm-fleet-h100");
  const auto both = [&](const std::function<std::string(const std::string&)>& cell) {
    return " | " + cell("topology-aware") + " | " + cell("default") + " |";
  };
  const auto tokens = [&](const std::string& job) {
    return [&f, job](const std::string& s) { return whole(f.job(s, job).at("samples_per_sec").get<double>()); };
  };
  const std::string doc = read_text(kRoot / "docs/llm-training.md");
  CHECK_THAT(doc, Catch::Contains("| JCT mean / p95 (s)" + both([&](const std::string& s) {
                                    return whole(f.metric(s, "jct_s.mean")) + " / " + whole(f.metric(s, "jct_s.p95"));
                                  })));
  CHECK_THAT(doc,
             Catch::Contains("| makespan (s)" + both([&](const std::string& s) { return whole(f.metric(s, "makespan_s")); })));
  CHECK_THAT(doc, Catch::Contains("| Llama 3 70B SFT (TP 8 over 4-GPU pods), tokens/s" + both(tokens("sft-llama3-70b-0"))));
  CHECK_THAT(doc, Catch::Contains("| its step / the tensor-parallel part of it (s)" + both([&](const std::string& s) {
                                    const nlohmann::json& llm = f.job(s, "sft-llama3-70b-0").at("llm");
                                    return fmt::format("{:.2f} / {:.2f}", llm.at("step_s").get<double>(),
                                                       llm.at("tp_s").get<double>());
                                  })));
  CHECK_THAT(doc, Catch::Contains("| Llama 3.1 405B (32 x 8 GPUs), tokens/s" + both(tokens("llama3-405b"))));
  const std::string readme = one_spaced(read_text(kRoot / "README.md"));
  CHECK_THAT(readme, Catch::Contains("topology-aware mean JCT " + whole(f.metric("topology-aware", "jct_s.mean")) +
                                     " s against default's " + whole(f.metric("default", "jct_s.mean")) + " s"));
  CHECK_THAT(readme, Catch::Contains("trains at " + tokens("sft-llama3-70b-0")("default") + " instead of " +
                                     tokens("sft-llama3-70b-0")("topology-aware") + " tokens/s"));
#endif
}

TEST_CASE("docs::the README's generation figures are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  std::vector<std::string> generations;
  for (const std::string name : {"generation-dgx1-v100", "generation-dgx-a100", "generation-hgx-h100"})
    generations.push_back(whole(run_shipped_replay(name).metric("topology-aware", "jct_s.mean")));
  const std::string readme = one_spaced(read_text(kRoot / "README.md"));
  CHECK_THAT(readme, Catch::Contains("mean JCT " + generations[0] + " / " + generations[1] + " / " + generations[2] +
                                     " s (topology-aware)"));
#endif
}

// docs/fabric.md's table of both fabric scenarios under every scheduler (mean wait, mean JCT,
// jobs slowed by shared uplinks and the GPU-hours they ran slowed), its kube-tas table and the
// README's GB200 sentence.
TEST_CASE("docs::the fabric scenarios' figures in docs/fabric.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  const std::string doc = read_text(kRoot / "docs/fabric.md");
  for (const std::string name : {"fabric-h100-3level", "fabric-gb200-nvl72"}) {
    const ReplayFigures f = run_shipped_replay(name);
    std::string first = name;
    for (const auto& s : f.results.at("schedulers")) {
      const std::string scheduler = s.at("name").get<std::string>();
      const double slowed_hours = f.metric(scheduler, "contended_gpu_hours");
      const std::string row = "|" + (first.empty() ? "" : " " + first) + " | " + scheduler + " | " +
                              tenth(f.metric(scheduler, "wait_s.mean")) + " | " + tenth(f.metric(scheduler, "jct_s.mean")) +
                              " | " + whole(f.metric(scheduler, "contended_jobs")) + " / " +
                              (slowed_hours == 0 ? "0" : tenth(slowed_hours)) + " |";
      CHECK_THAT(doc, Catch::Contains(row));
      first = "";
    }
    const bool h100 = name == "fabric-h100-3level";
    const auto ring_row = [&](const std::string& scheduler) {
      return " | " + tenth(f.metric(scheduler, "wait_s.mean")) + " | " + tenth(f.metric(scheduler, "jct_s.mean")) + " | " +
             tenth(f.metric(scheduler, "ring_gbps.mean")) + " |";
    };
    CHECK_THAT(doc, Catch::Contains("| " + name +
                                    (h100 ? " (block) | kueue-tas (preferred rack)" : " (nvl72) | kueue-tas (preferred nvl72)") +
                                    ring_row("kueue-tas")));
    CHECK_THAT(doc, Catch::Contains("| | kube-tas" + ring_row("kube-tas")));
    if (!h100) {
      const std::string readme = one_spaced(read_text(kRoot / "README.md"));
      CHECK_THAT(readme, Catch::Contains("tier-aware mean JCT " + whole(f.metric("topology-aware", "jct_s.mean")) +
                                         " s against default's " + whole(f.metric("default", "jct_s.mean")) + " s"));
    }
  }
#endif
}

TEST_CASE("docs::the Admission Fair Sharing figures in docs/tenancy.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const ReplayFigures fifo = run_shipped_replay("philly-kueue-shared");
  const ReplayFigures afs = run_shipped_replay("philly-kueue-afs");
  const auto row = [](const ReplayFigures& f, const std::string& s) {
    return " | " + s + " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "jct_s.mean")) + " | " + fmt::format("{:.3f}", f.metric(s, "tenant_fairness")) + " |";
  };
  const std::string doc = one_spaced(read_text(kRoot / "docs/tenancy.md"));
  CHECK_THAT(doc, Catch::Contains("| first come, first served (`philly-kueue-shared`)" + row(fifo, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(fifo, "default")));
  CHECK_THAT(doc,
             Catch::Contains("| Admission Fair Sharing, half-life 1 week (`philly-kueue-afs`)" + row(afs, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(afs, "default")));
  const auto p95 = [](const ReplayFigures& f, const std::string& s, const std::string& vc) {
    return whole(f.metric(s, "wait_s.p95@" + vc));
  };
  for (const std::string vc : {"103959", "11cb48"})
    CHECK_THAT(doc, Catch::Contains(vc + "'s" + (vc == "103959" ? " p95 wait" : "") + " from " + p95(fifo, "topology-aware", vc) +
                                    " to " + p95(afs, "topology-aware", vc) + " s"));
  CHECK_THAT(doc, Catch::Contains("(p95 " + p95(fifo, "topology-aware", "ee9e8c") + " to " +
                                  p95(afs, "topology-aware", "ee9e8c") + " s)"));
  CHECK_THAT(doc,
             Catch::Contains("(p95 from " + p95(fifo, "default", "7f04ca") + " to " + p95(afs, "default", "7f04ca") + " s)"));
  const std::string readme = one_spaced(read_text(kRoot / "README.md"));
  CHECK_THAT(readme, Catch::Contains(readme_fairness(afs, fifo)));
#endif
}

TEST_CASE("docs::the KAI time-aware fairness figures in docs/tenancy.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const ReplayFigures weights = run_shipped_replay("philly-kai-shared");
  const ReplayFigures usage = run_shipped_replay("philly-kai-timeaware");
  const auto row = [](const ReplayFigures& f, const std::string& s) {
    return " | " + s + " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "jct_s.mean")) + " | " + whole(f.metric(s, "evictions")) + " | " +
           fmt::format("{:.3f}", f.metric(s, "tenant_fairness")) + " |";
  };
  const std::string doc = one_spaced(read_text(kRoot / "docs/tenancy.md"));
  CHECK_THAT(doc, Catch::Contains("| by weight (`philly-kai-shared`)" + row(weights, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(weights, "default")));
  CHECK_THAT(doc, Catch::Contains("| time-aware, a week's usage (`philly-kai-timeaware`)" + row(usage, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(usage, "default")));
  const auto p95 = [](const ReplayFigures& f, const std::string& vc) {
    return whole(f.metric("topology-aware", "wait_s.p95@" + vc));
  };
  for (const std::string vc : {"e13805", "23dbec"})
    CHECK_THAT(doc, Catch::Contains(vc + "'s" + (vc == "e13805" ? " p95 wait" : "") + " falls from " + p95(weights, vc) + " to " +
                                    p95(usage, vc) + " s"));
  CHECK_THAT(doc, Catch::Contains("(p95 " + p95(weights, "ee9e8c") + " to " + p95(usage, "ee9e8c") + " s)"));
  CHECK_THAT(doc, Catch::Contains("(" + whole(weights.metric("default", "evictions")) + " to " +
                                  whole(usage.metric("default", "evictions")) + ", " +
                                  whole(weights.metric("default", "preempted_gpu_hours")) + " to " +
                                  whole(usage.metric("default", "preempted_gpu_hours")) + " GPU-hours lost)"));
  const std::string readme = one_spaced(read_text(kRoot / "README.md"));
  CHECK_THAT(readme, Catch::Contains(readme_fairness(usage, weights)));
#endif
}

// docs/failures.md's table of both failure scenarios under both schedulers: failures and
// interruptions, the pre-training job's own interruptions, wall days and ETTR (jobs.jsonl), the
// goodput, the largest interrupted job's MTBF and Daly interval, the failures spares took.
TEST_CASE("docs::the failure scenarios' figures in docs/failures.md are what the scenarios give", "[docs][failures]") {
#ifndef TOPSIM_SANITIZED
  const std::string doc = read_text(kRoot / "docs/failures.md");
  const ReplayFigures plain = run_shipped_replay("failures-h100-16k");
  const ReplayFigures spares = run_shipped_replay("failures-h100-16k-spares");
  const std::vector<std::pair<const ReplayFigures*, std::string>> columns = {
      {&plain, "topology-aware"}, {&plain, "default"}, {&spares, "topology-aware"}, {&spares, "default"}};
  const auto row = [&](const std::string& title,
                       const std::function<std::string(const ReplayFigures&, const std::string&)>& cell) {
    std::string out = "| " + title + " |";
    for (const auto& [f, scheduler] : columns) out += " " + cell(*f, scheduler) + " |";
    return out;
  };
  CHECK_THAT(doc, Catch::Contains(row("node failures / jobs interrupted", [](const ReplayFigures& f, const std::string& s) {
               return whole(f.metric(s, "node_failures")) + " / " + whole(f.metric(s, "interruptions"));
             })));
  CHECK_THAT(
      doc, Catch::Contains(row("pre-training: interruptions, wall days, ETTR", [](const ReplayFigures& f, const std::string& s) {
        const nlohmann::json& job = f.job(s, "llama3-405b-pretrain");
        const double run_s = job.at("finish_s").get<double>() - job.at("start_s").get<double>();
        double lost_s = 0;
        for (const char* key : {"recompute_s", "restart_s", "checkpoint_s", "requeue_s"}) lost_s += job.value(key, 0.0);
        return whole(job.at("interruptions").get<double>()) + ", " + tenth(job.at("jct_s").get<double>() / 86400) + ", " +
               fmt::format("{:.3f}", (run_s - lost_s) / run_s);
      })));
  CHECK_THAT(doc,
             Catch::Contains(row("goodput (GPU-weighted, finished training)", [](const ReplayFigures& f, const std::string& s) {
               return tenth(f.metric(s, "goodput") * 100) + "%";
             })));
  CHECK_THAT(doc, Catch::Contains(row("its MTBF / Daly interval", [](const ReplayFigures& f, const std::string& s) {
               return whole(f.metric(s, "interrupted_job_mtbf_s") / 60) + " / " +
                      tenth(f.metric(s, "checkpoint_optimum_s") / 60) + " min";
             })));
  CHECK_THAT(doc, Catch::Contains("| failures a spare took | | | " + whole(spares.metric("topology-aware", "spare_swaps")) +
                                  " | " + whole(spares.metric("default", "spare_swaps")) + " |"));
#endif
}

// docs/workloads.md's table of mean JCT by GPU-model selection (scenarios/mixed-h100-a100-pinned.json
// against the same jobs unpinned) and the sentences drawn from it.
TEST_CASE("docs::the pinned-selection figures in docs/workloads.md are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  const std::string doc = one_spaced(read_text(kRoot / "docs/workloads.md"));
  const ReplayFigures pinned = run_shipped_replay("mixed-h100-a100-pinned");
  const ReplayFigures free = run_shipped_replay("mixed-h100-a100-synthetic");
  const auto mean_jct = [&](const std::string& scheduler, const nlohmann::json& models) {
    return pinned.mean_jct_selecting(scheduler, models);
  };
  for (const std::string scheduler : {"topology-aware", "default", "binpack"}) {
    INFO(scheduler);
    std::string row = "| " + scheduler + " | " + tenth(mean_jct(scheduler, {"h100"})) + " s | " +
                      tenth(mean_jct(scheduler, {"a100"})) + " s | " + tenth(mean_jct(scheduler, nlohmann::json::array())) +
                      " s | " + tenth(pinned.metric(scheduler, "jct_s.mean")) + " s";
    if (scheduler != "binpack") row += " (" + tenth(free.metric(scheduler, "jct_s.mean")) + " s unpinned)";
    CHECK_THAT(doc, Catch::Contains(row + " |"));
  }
  const double cost = pinned.metric("topology-aware", "jct_s.mean") / free.metric("topology-aware", "jct_s.mean") - 1;
  CHECK_THAT(doc,
             Catch::Contains("pinning a fifth of the jobs to the slower card costs " + whole(cost * 100) + "% of the mean JCT"));
  CHECK_THAT(doc,
             Catch::Contains("placement efficiency rises from " + tenth(free.metric("default", "placement_efficiency") * 100) +
                             "% to " + tenth(pinned.metric("default", "placement_efficiency") * 100) + "%"));
#endif
}

// docs/tenancy.md's table of Kueue flavors that hold nodes against flavors that divide quota
// only: the shipped scenario, and the same with its flavors' nodeLabels removed (built here).
TEST_CASE("docs::the Kueue flavor figures in docs/tenancy.md are what the scenario and its quota-only copy give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  const std::string doc = read_text(kRoot / "docs/tenancy.md");
  const TempDir dir;
  const fs::path queues = kRoot / "scenarios/queues/mixed-h100-a100-flavors";
  fs::create_directories(dir.path / "queues");
  for (const auto& file : fs::directory_iterator(queues)) {
    std::istringstream in(read_text(file.path()));
    std::ofstream out(dir.path / "queues" / file.path().filename());
    bool labels = false;  // inside a nodeLabels block: its lines are indented past it
    for (std::string line; std::getline(in, line);) {
      if (labels && line.rfind("    ", 0) == 0) continue;
      labels = line == "  nodeLabels:";
      if (!labels) out << line << "\n";
    }
  }
  REQUIRE(read_text(dir.path / "queues/flavors.yaml").find("  nodeLabels:") == std::string::npos);
  nlohmann::json scenario = movable_scenario("mixed-h100-a100-kueue-flavors");
  scenario["tenancy"]["queues"] = (dir.path / "queues").string();
  std::ofstream(dir.file("quota-only.json")) << scenario.dump();
  const ReplayFigures held = run_shipped_replay("mixed-h100-a100-kueue-flavors");
  const ReplayFigures quota = run_replay(dir.file("quota-only.json"));
  const int h100_nodes = held.results.at("scenario").at("node_groups").at(0).at("count").get<int>();
  const auto row = [&](const ReplayFigures& f, const std::string& scheduler) {
    size_t both = 0;  // jobs with pods on both GPU models
    for (const nlohmann::json& j : f.jobs) {
      if (j.at("scheduler") != scheduler || !j.contains("pods")) continue;
      bool h100 = false, a100 = false;
      for (const nlohmann::json& pod : j.at("pods")) (pod.at("node").get<int>() < h100_nodes ? h100 : a100) = true;
      both += h100 && a100;
    }
    return " | " + tenth(f.metric(scheduler, "jct_s.mean")) + " s | " + tenth(f.mean_jct_selecting(scheduler, {"h100"})) +
           " s | " + tenth(f.mean_jct_selecting(scheduler, {"a100"})) + " s | " +
           tenth(f.mean_jct_selecting(scheduler, nlohmann::json::array())) + " s | " + whole(static_cast<double>(both)) + " |";
  };
  for (const std::string scheduler : {"topology-aware", "default"}) {
    CHECK_THAT(doc, Catch::Contains("| " + scheduler + ", flavors hold nodes" + row(held, scheduler)));
    CHECK_THAT(doc, Catch::Contains("| " + scheduler + ", quota only" + row(quota, scheduler)));
  }
  const auto change = [&](const std::string& scheduler) {
    return whole(std::abs(held.metric(scheduler, "jct_s.mean") / quota.metric(scheduler, "jct_s.mean") - 1) * 100);
  };
  const std::string spaced = one_spaced(doc);
  CHECK_THAT(spaced, Catch::Contains("- Topology-aware loses " + change("topology-aware") + "%:"));
  CHECK_THAT(spaced, Catch::Contains("- Default gains " + change("default") + "%:"));
#endif
}

// docs/tenancy.md's KAI tables: philly-kai under both schedulers, and the same with
// `reclaimMinRuntime` 30m and 32m on the department (copies of its queues, built here), with
// the sentences drawn from them.
TEST_CASE("docs::the KAI reclaimMinRuntime figures in docs/tenancy.md are what the scenario and its copies give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const std::string doc = read_text(kRoot / "docs/tenancy.md");
  const TempDir dir;
  const auto with_min_runtime = [&](const std::string& runtime) {
    std::string queues = read_text(kRoot / "scenarios/queues/philly-vcs-kai/queues.yaml");
    const std::string department = "  displayName: Philly VCs\n";
    const size_t at = queues.find(department);
    REQUIRE(at != std::string::npos);
    queues.insert(at + department.size(), "  reclaimMinRuntime: " + runtime + "\n");
    fs::create_directories(dir.path / runtime);
    std::ofstream(dir.path / runtime / "queues.yaml") << queues;
    nlohmann::json scenario = movable_scenario("philly-kai");
    scenario["tenancy"]["queues"] = (dir.path / runtime).string();
    std::ofstream(dir.path / (runtime + ".json")) << scenario.dump();
    return run_replay(dir.path / (runtime + ".json"));
  };
  const ReplayFigures none = run_shipped_replay("philly-kai");
  const ReplayFigures m30 = with_min_runtime("30m"), m32 = with_min_runtime("32m");
  const auto cells = [](const ReplayFigures& f, const std::string& s) {
    return " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "evictions")) + " | " + whole(f.metric(s, "preempted_gpu_hours")) + " |";
  };
  const auto jain = [](const ReplayFigures& f, const std::string& s) {
    return fmt::format("{:.3f}", f.metric(s, "tenant_fairness"));
  };
  for (const std::string s : {"topology-aware", "default"}) {
    const std::string first = s == "topology-aware" ? "| KAI queues (`philly-kai`) | " : "| | ";
    CHECK_THAT(doc, Catch::Contains(first + s + cells(none, s) + " " + whole(none.metric(s, "borrowed_gpu_hours")) + " | " +
                                    jain(none, s) + " |"));
    CHECK_THAT(doc, Catch::Contains((s == "topology-aware" ? "| none (`philly-kai`) | " : "| | ") + s + cells(none, s) + " " +
                                    jain(none, s) + " |"));
    CHECK_THAT(doc,
               Catch::Contains((s == "topology-aware" ? "| 30m | " : "| | ") + s + cells(m30, s) + " " + jain(m30, s) + " |"));
    CHECK_THAT(doc,
               Catch::Contains((s == "topology-aware" ? "| 32m | " : "| | ") + s + cells(m32, s) + " " + jain(m32, s) + " |"));
  }
  const std::string spaced = one_spaced(doc);
  const auto fewer = [&](const std::string& s) { return 1 - m30.metric(s, "evictions") / none.metric(s, "evictions"); };
  const auto lost = [&](const std::string& s) {
    return m30.metric(s, "preempted_gpu_hours") / none.metric(s, "preempted_gpu_hours");
  };
  // "2.3 to 2.5 times", or "2.7 times" when both round alike.
  const std::string least = tenth(std::min(lost("topology-aware"), lost("default")));
  const std::string most = tenth(std::max(lost("topology-aware"), lost("default")));
  CHECK_THAT(spaced, Catch::Contains(whole(100 * std::min(fewer("topology-aware"), fewer("default"))) + "-" +
                                     whole(100 * std::max(fewer("topology-aware"), fewer("default"))) +
                                     "% fewer evictions and shorter waits, but " +
                                     (least == most ? least : least + " to " + most) + " times the GPU-hours lost (30m)"));
  CHECK_THAT(spaced, Catch::Contains("(Jain " + jain(none, "topology-aware") + " to " + jain(m30, "topology-aware") + ", " +
                                     jain(m32, "topology-aware") + " at 32m) and swings under default (" + jain(none, "default") +
                                     " to " + jain(m30, "default") + " at 30m, " + jain(m32, "default") + " at 32m)"));
#endif
}

// docs/tenancy.md's table of the Philly trace as Kueue tenants (no cohort, one cohort, Fair
// Sharing) and the README's sentence drawn from it.
// docs/tenancy.md's most-preempted job of philly-kai under topology-aware: its name and GPUs, its
// evictions (all reclaims), how many came from the VC that made most, and the share of its run
// not spent training, from results.json's preemptions and jobs.jsonl; and explain says the same.
TEST_CASE("docs::the most-preempted job's figures in docs/tenancy.md are what philly-kai and explain give", "[docs][kai]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const TempDir dir;
  REQUIRE(run_cli("run '" + (kRoot / "scenarios/philly-kai.json").string() + "' -o '" + dir.file("out") +
                  "' -q --no-report --threads 2")
              .exit_code == 0);
  const auto results = nlohmann::json::parse(read_text(dir.file("out/results.json")));
  std::map<uint64_t, std::pair<std::string, nlohmann::json>> jobs;  // topology-aware's, by id: name, line
  std::istringstream lines(read_text(dir.file("out/jobs.jsonl")));
  for (std::string line; std::getline(lines, line);)
    if (auto j = nlohmann::json::parse(line); j.at("scheduler") == "topology-aware")
      jobs[j.at("id").get<uint64_t>()] = {j.at("name").get<std::string>(), j};
  const nlohmann::json* columns = nullptr;
  for (const auto& s : results.at("schedulers"))
    if (s.at("name") == "topology-aware") columns = &s.at("runs").at(0).at("preemptions");
  REQUIRE(columns);
  std::map<uint64_t, size_t> evicted;
  for (const auto& id : columns->at("job")) ++evicted[id.get<uint64_t>()];
  const auto most =
      std::max_element(evicted.begin(), evicted.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  std::map<std::string, size_t> by_queue;
  for (size_t i = 0; i < columns->at("job").size(); ++i)
    if (columns->at("job")[i] == most->first) {
      CHECK(columns->at("reason")[i] == "reclaim");
      ++by_queue[jobs.at(columns->at("by")[i].get<uint64_t>()).second.at("queue").get<std::string>()];
    }
  const auto top =
      std::max_element(by_queue.begin(), by_queue.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto& [name, line] = jobs.at(most->first);
  CHECK(line.at("evictions") == most->second);
  const CliResult explained = run_cli("explain '" + dir.file("out") + "' " + name);
  REQUIRE(explained.exit_code == 0);
  // topology-aware is the scenario's first scheduler: its lines come first.
  const std::string effective = first_group(explained.out, "effective training time ([0-9.]+)%");
  REQUIRE(!effective.empty());
  CHECK_THAT(one_spaced(read_text(kRoot / "docs/tenancy.md")),
             Catch::Contains(fmt::format("({}, {} GPUs) was evicted {} times by reclaims, {} of them by jobs of VC {}, and "
                                         "spent {:.1f}% of its run",
                                         name, line.at("workers").get<int>() * line.at("gpus_per_worker").get<int>(),
                                         most->second, top->second, top->first, 100 - std::stod(effective))));
#endif
}

TEST_CASE("docs::the Kueue cohort figures in docs/tenancy.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const std::string doc = read_text(kRoot / "docs/tenancy.md");
  const ReplayFigures alone = run_shipped_replay("philly-kueue-no-borrowing");
  const ReplayFigures cohort = run_shipped_replay("philly-kueue");
  const ReplayFigures fair = run_shipped_replay("philly-kueue-fair");
  const auto row = [](const ReplayFigures& f, const std::string& s) {
    return s + " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "evictions")) + " | " + whole(f.metric(s, "preempted_gpu_hours")) + " | " +
           whole(f.metric(s, "borrowed_gpu_hours")) + " | " + fmt::format("{:.3f}", f.metric(s, "tenant_fairness")) + " |";
  };
  CHECK_THAT(doc, Catch::Contains("| no cohort (`-no-borrowing`) | " + row(alone, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| one cohort, reclaim `Any` | " + row(cohort, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| same, Fair Sharing on (`-fair`) | " + row(fair, "topology-aware")));
  for (const ReplayFigures* f : {&alone, &cohort, &fair}) CHECK_THAT(doc, Catch::Contains("| | " + row(*f, "default")));
  const auto topo = [](const ReplayFigures& f, const std::string& metric) { return whole(f.metric("topology-aware", metric)); };
  CHECK_THAT(
      one_spaced(read_text(kRoot / "README.md")),
      Catch::Contains("Mean wait (topology-aware) " + topo(cohort, "wait_s.mean") + " s with borrowing against " +
                      topo(alone, "wait_s.mean") + " s without, for " + topo(cohort, "evictions") + " evictions costing " +
                      topo(cohort, "preempted_gpu_hours") + " GPU-hours; Fair Sharing " + topo(fair, "wait_s.mean") + " s, " +
                      topo(fair, "evictions") + " evictions, " + topo(fair, "preempted_gpu_hours") + " GPU-hours"));
#endif
}

namespace {

// A workload's jobs by size and model mix: jobs, and those of them drawn as an LLM.
struct MixFigures {
  size_t jobs = 0, llm_jobs = 0;
  std::vector<topsim::MixLlmLimit> limits;
};

MixFigures mix_figures(const std::string& scenario_json) {
  auto s = topsim::parse_scenario(scenario_json, "mix.json", ".");
  if (!s.ok()) FAIL(s.error().message);
  MixFigures f;
  topsim::JobCursor cursor(*s->workload);
  while (const topsim::JobSpec* job = cursor.next()) {
    ++f.jobs;
    f.llm_jobs += s->workload->llm_of(*job) != nullptr;
  }
  f.limits = topsim::mix_llm_limits(*s->workload);
  return f;
}

}  // namespace

// docs/workloads.md's figures of LLMs drawn only for the job sizes they fit.
TEST_CASE("docs::the model-mix LLM figures in docs/workloads.md are what the draws give", "[docs][llm]") {
  const std::string doc = one_spaced(read_text(kRoot / "docs/workloads.md"));
  const MixFigures synthetic = mix_figures(
      R"({"cluster": {"nodes": [{"model": "hgx-h100", "count": 16}], "network": {"transport": "ib"}}, "seed": 1,
          "workload": {"kind": "synthetic", "jobs": 500, "model_mix": {"resnet50": 0.5, "llama3-8b": 0.5}, "reference_gpu": "h100"}})");
  REQUIRE(synthetic.limits.size() == 1);
  const size_t left_out = synthetic.limits.front().jobs_left_out;
  CHECK(synthetic.limits.front().left_out.size() == 2);  // 1 and 2 GPUs
  CHECK_THAT(doc, Catch::Contains("of " + whole(500) + " jobs (seed 1), " + whole(static_cast<double>(left_out)) +
                                  " of 1 or 2 GPUs are ResNet-50 and " + whole(static_cast<double>(synthetic.llm_jobs)) +
                                  " of the other " + whole(static_cast<double>(500 - left_out)) + " Llama 3 8B"));
  if (philly_absent()) return;
  const std::string trace = topsim::test::shared_file("traces/philly/philly.csv");
  const auto philly = [&](const std::string& mix, const std::string& gpu) {
    const std::string node = gpu == "a100" ? "dgx-a100" : "hgx-h100";
    return mix_figures(R"({"cluster": {"nodes": [{"model": ")" + node +
                       R"(", "count": 312}], "network": {"transport": "ib"}}, "seed": 7,
        "workload": {"kind": "philly", "path": ")" +
                       trace + R"(", "model_mix": )" + mix + R"(, "reference_gpu": ")" + gpu + R"("}})");
  };
  const MixFigures llama13 = philly(R"({"resnet50": 0.5, "llama2-13b": 0.5})", "a100");
  REQUIRE(llama13.limits.size() == 1);
  CHECK(llama13.limits.front().left_out.size() == 3);  // 1, 2 and 4 GPUs
  CHECK_THAT(doc, Catch::Contains("In the Philly trace (" + whole(static_cast<double>(llama13.jobs)) +
                                  " jobs) on A100-40GB, Llama 2 13B at half the mix is left out of the " +
                                  whole(static_cast<double>(llama13.limits.front().jobs_left_out)) +
                                  " jobs of 1, 2 or 4 GPUs and drawn for " + whole(static_cast<double>(llama13.llm_jobs)) +
                                  " of the rest"));
  const MixFigures llama70 = philly(R"({"resnet50": 0.9, "llama3-70b": 0.1})", "h100");
  REQUIRE(llama70.limits.size() == 1);
  CHECK(llama70.limits.front().left_out.rbegin()->first == 16);
  CHECK_THAT(doc, Catch::Contains("Llama 3 70B on H100 fits only the " +
                                  whole(static_cast<double>(llama70.jobs - llama70.limits.front().jobs_left_out)) +
                                  " jobs of more than 16 GPUs"));
}
