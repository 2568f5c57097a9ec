// The figures docs/workloads.md quotes of GPU-model selection and of model mixes naming LLMs are
// what the scenarios and draws give (helpers: tests/docs/docs_figures.h).
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scenario/scenario_loader.h"
#include "sim/workload/workload_mix.h"
#include "tests/docs/docs_figures.h"

using namespace topsim::test::docs;

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
