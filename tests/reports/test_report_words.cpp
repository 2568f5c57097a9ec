// Units and words a user reads: throughput with its unit per second, "1 node" and "1 job",
// seeds as "1 seed (7)" / "3 seeds (7..9)", in the terminal, summary.md and report.html.
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

ResultSet one_node_one_job(const std::string& seeds) {
  const std::string jobs =
      R"([{"name": "only", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  return run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])", jobs,
                                             R"(, "seed": 7, "schedulers": ["topology-aware"])" + seeds)));
}

}  // namespace

TEST_CASE("reports::words: one node, one job, one seed, throughput per second", "[reports]") {
  const ResultSet results = one_node_one_job("");
  const std::string text = render_text(results);
  // Expected: singular nouns for one, the seed named, and "images/s" after a throughput.
  CHECK_THAT(text, Catch::StartsWith("scenario test: 1 node, 8 GPUs, 1 job ("));
  CHECK_THAT(text, Catch::Contains("), 1 seed (7)\n"));
  CHECK(some_line_matches(text, ".*only +[0-9]+\\.[0-9]{2} images/s"));
  MemorySink sink;
  REQUIRE(write_report({{"bench", &results}}, sink).ok());
  CHECK_THAT(sink.files.at("summary.md"), Catch::Contains("1 node, 8 GPUs, 1 job, 1 seed (7)"));
  CHECK_THAT(sink.files.at("report.html"), Catch::Contains("1 node, 8 GPUs, 1 job (") && Catch::Contains(", 1 seed (7)"));
}

TEST_CASE("reports::words: several seeds as a range", "[reports]") {
  const std::string text = render_text(one_node_one_job(R"(, "seeds": 3)"));
  CHECK_THAT(text, Catch::Contains("3 seeds (7..9), means over 3 runs\n"));
}

TEST_CASE("reports::words: an LLM job's throughput is in tokens/s", "[reports]") {
  const std::string jobs = R"([{"name": "llm", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "iterations": 2,
      "llm": {"model": "llama3-8b", "tp": 8, "global_batch": 8}}])";
  const std::string text = render_text(run_all(
      scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 1}])", jobs, R"(, "schedulers": ["topology-aware"])"))));
  CHECK(some_line_matches(text, "^llm +[0-9,]+\\.[0-9]{2} tokens/s"));
}

TEST_CASE("reports::words: a run of LLMs only leads with their MFU, not an image rate", "[reports][llm]") {
  const std::string llm = R"({"name": "llm", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "iterations": 2,
      "llm": {"model": "llama3-8b", "tp": 8, "global_batch": 8}})";
  const std::string cnn = R"({"name": "cnn", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50",
      "iterations": 100})";
  const auto run = [](const std::string& jobs) {
    return run_all(scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 2}])", "[" + jobs + "]",
                                               R"(, "schedulers": ["topology-aware", "default"])")));
  };
  const ResultSet only_llm = run(llm);
  const SchedulerResult& topo = only_llm.schedulers.front();
  // Expected: no image rate at all; the MFU is the one job's own (its step's).
  CHECK(topo.metric("images_per_sec.mean") == nullptr);
  REQUIRE(topo.metric("llm_mfu.mean") != nullptr);
  REQUIRE(topo.runs.front().llm_steps.size() == 1);
  CHECK(topo.metric("llm_mfu.mean")->over_seeds.mean == Approx(topo.runs.front().llm_steps.front().mfu));
  CHECK(topo.metric("llm_mfu.mean")->over_seeds.mean > 0.2);
  MemorySink sink;
  REQUIRE(write_report({{"llm", &only_llm}}, sink).ok());
  const std::string& md = sink.files.at("summary.md");
  CHECK_THAT(md, Catch::Contains("- LLM MFU per job, mean: **"));
  CHECK_THAT(md, !Catch::Contains("images"));
  CHECK_THAT(md, Catch::Contains("| LLM MFU per started job |"));
  CHECK_THAT(sink.files.at("report.html"), !Catch::Contains("images/sec per job"));
  CHECK_THAT(sink.files.at("metrics.prom"), Catch::Contains("topsim_llm_mfu_ratio{"));

  // A run of image models only is as before; a mixed one carries both.
  const ResultSet only_cnn = run(cnn), mixed = run(llm + ", " + cnn);
  CHECK(only_cnn.schedulers.front().metric("llm_mfu.mean") == nullptr);
  CHECK(only_cnn.schedulers.front().metric("images_per_sec.mean") != nullptr);
  CHECK(mixed.schedulers.front().metric("llm_mfu.mean") != nullptr);
  CHECK(mixed.schedulers.front().metric("images_per_sec.mean") != nullptr);
  MemorySink mixed_sink;
  REQUIRE(write_report({{"mixed", &mixed}}, mixed_sink).ok());
  CHECK_THAT(mixed_sink.files.at("summary.md"),
             Catch::Contains("- images/sec per job, mean: **") && Catch::Contains("- LLM MFU per job, mean: **"));
}

TEST_CASE("reports::words: a run of GPU shares only has no image rate to lead with", "[reports]") {
  // Two shares on a pinned share node: nothing trains an image model, so no "images/s" figure
  // (before, a mean over no jobs read "0 images/s ... n/a (spread's value is 0)").
  const std::string jobs = R"([{"name": "s1", "submit_s": 0, "gpu_mem_gib": 8, "duration_s": 60},
      {"name": "s2", "submit_s": 10, "gpu_mem_gib": 8, "duration_s": 60}])";
  const ResultSet results = run_all(scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1, "label": "share"},
                                                                    {"model": "dgx-a100", "count": 1, "label": "share"}])",
                                                                jobs, R"(, "schedulers": ["binpack", "spread"])")));
  for (const SchedulerResult& s : results.schedulers) {
    CHECK(s.metric("images_per_sec.mean") == nullptr);
    CHECK(s.metric("placement_efficiency") == nullptr);  // no multi-GPU job: not 0%, nothing measured
    CHECK(s.metric("cross_numa_ratio") == nullptr);
    CHECK(s.metric("ring_gbps.mean") == nullptr);
    REQUIRE(s.metric("finished") != nullptr);
    CHECK(s.metric("finished")->over_seeds.mean == 2);
  }
  MemorySink sink;
  REQUIRE(write_report({{"shares", &results}}, sink).ok());
  CHECK_THAT(sink.files.at("summary.md"), !Catch::Contains("images"));
  CHECK_THAT(sink.files.at("report.html"), !Catch::Contains("images/sec per job"));
  const std::string text = render_text(results);
  CHECK_THAT(text, !Catch::Contains("images/s"));
  CHECK(some_line_matches(text, "^placement efficiency \\(started\\) +n/a +n/a$"));
  CHECK(some_line_matches(text, "^cross-NUMA ratio +n/a +n/a$"));
  CHECK_THAT(text, !Catch::Contains("node type"));  // no training job ran on any node type
}
