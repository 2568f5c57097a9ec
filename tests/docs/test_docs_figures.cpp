// Figures the README and docs/ quote are checked against what the tree and this build give, so
// they cannot go stale silently (helpers: tests/docs/docs_figures.h). Here: the bad-input count,
// the baseline example of docs/ci.md, the searches, configurations and shard balance of the
// shipped plans and the Philly plan's printed example, the LLM fleet's and the generations'
// figures the README's scenario table and docs/llm-training.md quote, and the reports the README's
// screenshots show. The other documents' figures: test_docs_fabric_failures.cpp,
// test_docs_tenancy.cpp, test_docs_workloads.cpp.
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/docs/docs_figures.h"

using namespace topsim::test::docs;
namespace fs = std::filesystem;
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
