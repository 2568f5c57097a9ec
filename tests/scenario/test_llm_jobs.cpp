// LLM jobs in replays: job lists with "llm", timing by the parallel step model on the placement,
// what default (order-blind, pod network) placement costs against topology-aware gangs.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "core/llm_catalog.h"
#include "core/llm_estimate.h"
#include "formats/results/job_line.h"
#include "formats/results/results_json.h"
#include "reports/text_report.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

namespace topsim {

using test::record;
using test::run;
using test::scenario_from;
using test::scenario_json;

namespace {

// One fine-tuning job of Llama 3 70B, TP 8 over 4-GPU pods (TP 8 x PP 2 x DP 2), on 6 HGX H100
// nodes on InfiniBand.
std::string sft_scenario(const std::string& extra_job = "") {
  return scenario_json(R"([{"model": "hgx-h100", "count": 6}])",
                       R"([{"name": "sft", "workers": 8, "gpus_per_worker": 4, "iterations": 10,
                            "llm": {"model": "llama3-70b", "tp": 8, "pp": 2, "sequence": 4096, "global_batch": 16,
                                    "sequence_parallel": true}})" +
                           extra_job + "]",
                       "", R"(, "network": {"transport": "ib"})");
}

}  // namespace

TEST_CASE("scenario::llm job runs its iterations at the step time of its placement", "[scenario][llm]") {
  const Scenario s = scenario_from(sft_scenario());
  const RunResult topo = run(s, "topology-aware");
  const JobRecord& r = record(topo, s, "sft");
  REQUIRE(r.state == JobState::Finished);
  REQUIRE(r.llm != nullptr);
  CHECK(r.host_network);
  // On idle nodes the topology-aware placement is the ideal one, the estimate's.
  auto estimate =
      estimate_llm_idle(**find_llm_model("llama3-70b"), s.workload->llm_jobs->front().config, *builtin_model("hgx-h100"));
  REQUIRE(estimate.ok());
  CHECK(r.llm->step_ms == Approx(estimate->step.step_ms).epsilon(1e-9));
  CHECK(r.samples_per_sec == Approx(r.ideal_samples_per_sec));
  CHECK(r.finish_ms - r.start_ms == Approx(10 * r.llm->step_ms).margin(1));
  CHECK(r.work_samples == Approx(10.0 * 16 * 4096));
}

TEST_CASE("scenario::llm job offloading activations runs at the estimate's step, copies included", "[scenario][llm]") {
  const Scenario s = scenario_from(scenario_json(R"([{"model": "hgx-b200", "count": 8}])",
                                                 R"([{"name": "fsdp", "workers": 8, "gpus_per_worker": 8, "iterations": 5,
                                                      "llm": {"model": "llama3-70b", "zero": 3, "global_batch": 128,
                                                              "precision": "fp8", "recompute": "none",
                                                              "offload_layers": 5}}])",
                                                 "", R"(, "network": {"transport": "ib"})"));
  const RunResult topo = run(s, "topology-aware");
  const JobRecord& r = record(topo, s, "fsdp");
  REQUIRE(r.state == JobState::Finished);
  REQUIRE(r.llm != nullptr);
  const ParallelConfig& c = s.workload->llm_jobs->front().config;
  CHECK(c.offload_layers == 5);
  auto estimate = estimate_llm_idle(**find_llm_model("llama3-70b"), c, *builtin_model("hgx-b200"));
  REQUIRE(estimate.ok());
  CHECK(r.llm->offload_ms > 0);
  CHECK(r.llm->offload_ms == Approx(estimate->step.offload_ms).epsilon(1e-9));
  CHECK(r.llm->step_ms == Approx(estimate->step.step_ms).epsilon(1e-9));
}

TEST_CASE("scenario::llm job with unfused attention runs at the estimate's step", "[scenario][llm]") {
  // Korthikanti et al.'s 22B on one DGX A100 (TP 8, micro-batch 4, selective recomputation), the
  // attention core as their Megatron-LM ran it and as FlashAttention runs it.
  const std::string job = R"([{"name": "gpt", "workers": 1, "gpus_per_worker": 8, "iterations": 10,
                              "llm": {"model": "megatron-22b", "tp": 8, "global_batch": 4, "micro_batch": 4,
                                      "sequence_parallel": true, "attention": "ATTENTION"}}])";
  double step_ms[2] = {0, 0};
  for (const char* attention : {"unfused", "fused"}) {
    std::string jobs = job;
    jobs.replace(jobs.find("ATTENTION"), 9, attention);
    const Scenario s = scenario_from(scenario_json(R"([{"model": "dgx-a100-80g", "count": 1}])", jobs));
    const ParallelConfig& c = s.workload->llm_jobs->front().config;
    CHECK(enum_name(c.attention) == std::string(attention));
    const RunResult result = run(s, "topology-aware");
    const JobRecord& r = record(result, s, "gpt");
    REQUIRE(r.state == JobState::Finished);
    REQUIRE(r.llm != nullptr);
    auto estimate = estimate_llm_idle(**find_llm_model("megatron-22b"), c, *builtin_model("dgx-a100-80g"));
    REQUIRE(estimate.ok());
    CHECK(r.llm->step_ms == Approx(estimate->step.step_ms).epsilon(1e-9));
    step_ms[attention == std::string("fused")] = r.llm->step_ms;
  }
  // The scores of each GPU's 8 heads through memory add about a seventh (1.004 s against 0.878).
  CHECK(step_ms[0] > 1.05 * step_ms[1]);
  CHECK(step_ms[0] < 1.25 * step_ms[1]);
}

TEST_CASE("scenario::llm default placement splits TP groups over the pod network", "[scenario][llm]") {
  const Scenario s = scenario_from(sft_scenario());
  const RunResult topo_run = run(s, "topology-aware");
  const JobRecord& topo = record(topo_run, s, "sft");
  const RunResult def_run = run(s, "default");
  const JobRecord& def = record(def_run, s, "sft");
  REQUIRE(def.state == JobState::Finished);
  REQUIRE(def.llm != nullptr);
  CHECK_FALSE(def.host_network);
  // The default scheduler spreads the pods; a TP group of 8 spans two pods on two nodes.
  CHECK(def.pods[0].node != def.pods[1].node);
  CHECK(def.llm->tp_ms > 5 * topo.llm->tp_ms);
  CHECK(def.samples_per_sec < 0.5 * topo.samples_per_sec);
  CHECK(def.ideal_samples_per_sec == Approx(topo.ideal_samples_per_sec));
}

TEST_CASE("scenario::llm job list errors name the field", "[scenario][llm]") {
  auto error = [](const std::string& jobs) {
    auto s = parse_scenario(scenario_json(R"([{"model": "hgx-h100", "count": 2}])", jobs), "test.json", "");
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK_THAT(error(R"([{"workers": 2, "gpus_per_worker": 8, "iterations": 1, "llm": {"model": "llama3-8b", "tp": 3}}])"),
             Catch::Contains("/workload/jobs/0/llm: tp 3 does not divide"));
  CHECK_THAT(error(R"([{"workers": 1, "gpus_per_worker": 8, "iterations": 1, "model": "llama3-70b"}])"),
             Catch::Contains("is a large language model"));
  CHECK_THAT(
      error(
          R"([{"workers": 1, "gpus_per_worker": 8, "iterations": 1, "llm": {"model": "llama3-8b", "tp": 8, "recompute": "some"}}])"),
      Catch::Contains("/workload/jobs/0/llm/recompute: unknown recompute 'some'"));
  CHECK_THAT(error(R"([{"workers": 1, "gpus_per_worker": 8, "iterations": 1, "llm": {"model": "llama3-70b"}}])"),
             Catch::Contains("on h100: memory: llama3-70b needs"));
  CHECK_THAT(error(R"([{"workers": 1, "gpus_per_worker": 8, "iterations": 1, "llm": {"model": "llama3-8b", "tp": 8, "dp": 2}}])"),
             Catch::Contains("but the job has 8 GPUs"));
}

TEST_CASE("scenario::llm micro_batch auto runs the fastest micro-batch of each node type", "[scenario][llm]") {
  // Llama 3 8B, TP 2 x DP 4 with sequence parallelism, 128 sequences a step, nothing recomputed:
  // the fastest micro-batch that fits is 2 in an H100's 80 GB and 4 in an H200's 141 GB.
  const std::string llm = R"("llm": {"model": "llama3-8b", "tp": 2, "global_batch": 128, "sequence_parallel": true,
                                     "recompute": "none", "micro_batch": "auto"})";
  const Scenario s = scenario_from(scenario_json(
      R"([{"model": "hgx-h100", "count": 1}, {"model": "hgx-h200", "count": 1}])",
      R"([{"name": "on-h100", "workers": 1, "gpus_per_worker": 8, "iterations": 10, "gpu_models": ["h100"], )" + llm + R"(},
                        {"name": "on-h200", "workers": 1, "gpus_per_worker": 8, "iterations": 10, "gpu_models": ["h200"], )" +
          llm + R"(},
                        {"name": "both", "submit_s": 100000, "workers": 2, "gpus_per_worker": 8, "iterations": 10,
                         "llm": {"model": "llama3-8b", "tp": 2, "global_batch": 128, "sequence_parallel": true,
                                 "recompute": "none", "micro_batch": "auto"}}])",
      "", R"(, "network": {"transport": "ib"})"));
  const LlmJob& spec = s.workload->llm_jobs->front();
  CHECK(spec.micro_batch_auto);
  CHECK(spec.config.micro_batch == 1);
  const RunResult topo = run(s, "topology-aware");
  for (const auto& [name, node, chosen] : {std::tuple{"on-h100", "hgx-h100", 2}, std::tuple{"on-h200", "hgx-h200", 4}}) {
    INFO(name);
    const JobRecord& r = record(topo, s, name);
    REQUIRE(r.state == JobState::Finished);
    REQUIRE(r.llm != nullptr);
    auto fastest = estimate_llm_idle_fastest_micro_batch(*spec.model, spec.config_for(8), *builtin_model(node));
    REQUIRE(fastest.ok());
    CHECK(fastest->micro_batch == chosen);
    CHECK(r.llm->micro_batch == chosen);
    CHECK(r.llm->step_ms == Approx(fastest->step.step_ms).epsilon(1e-9));
    CHECK(r.samples_per_sec == Approx(r.ideal_samples_per_sec));
    CHECK(r.work_samples == Approx(10.0 * 128 * 8192));
    std::string line;
    append_job_line(line, "topology-aware", 1, *s.workload, s.workload->jobs.at(test::job_id(s, name)), r);
    CHECK_THAT(line, Catch::Contains(R"("micro_batch":)" + std::to_string(chosen) + "}"));
  }
  // Across both types every rank runs one micro-batch: the smaller choice, which fits on both.
  for (const RunResult& result : {topo, run(s, "default")}) {
    const JobRecord& both = record(result, s, "both");
    REQUIRE(both.state == JobState::Finished);
    REQUIRE(both.llm != nullptr);
    CHECK(both.llm->micro_batch == 2);
  }
}

TEST_CASE("scenario::llm micro_batch auto errors name the field", "[scenario][llm]") {
  auto error = [](const std::string& llm) {
    auto s = parse_scenario(
        scenario_json(
            R"([{"model": "hgx-h100", "count": 1}])",
            R"([{"workers": 1, "gpus_per_worker": 8, "iterations": 1, "llm": {"model": "llama3-8b", "tp": 8, )" + llm + "}}]"),
        "test.json", "");
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(error(R"("micro_batch": "big", "global_batch": 8)") ==
        R"(test.json: /workload/jobs/0/llm/micro_batch: must be an integer in 1..65535 or "auto", got "big")");
  CHECK(
      error(R"("micro_batch": "auto")") ==
      R"(test.json: /workload/jobs/0/llm/micro_batch: "auto" needs "global_batch": the micro-batch is chosen among the divisors of global_batch / dp)");
  CHECK_THAT(error(R"("micro_batch": 0)"), Catch::Contains("/workload/jobs/0/llm/micro_batch: must be an integer in 1..65535"));
}

TEST_CASE("scenario::llm a node group's own host memory bounds the offload, naming its nodes", "[scenario][llm]") {
  // llama3-70b, ZeRO-3 over 64 H100s, micro-batch 1, no recomputation: 60 layers offloaded keep
  // 2 GiB each per GPU, 960 GiB for a node's 8 GPUs; hgx-h100 states 2048 GiB.
  const std::string jobs = R"([{"name": "j", "workers": 8, "gpus_per_worker": 8, "iterations": 1,
      "llm": {"model": "llama3-70b", "zero": 3, "micro_batch": 1, "global_batch": 128, "recompute": "none",
              "offload_layers": 60}}])";
  const auto load = [&](const std::string& nodes) { return parse_scenario(scenario_json(nodes, jobs), "test.json", ""); };
  const auto fits = load(R"([{"model": "hgx-h100", "count": 8}])");
  REQUIRE(fits.ok());
  CHECK(fits->cluster.groups.front().model.host_memory_gib == 2048);
  const auto group = load(R"([{"model": "hgx-h100", "count": 7, "host_memory_gib": 1007.5},
                              {"model": "hgx-h100", "count": 1, "names": ["h5"], "host_memory_gib": 900}])");
  // h5 cannot take it: the other 7 nodes (56 GPUs) are too few for its 64.
  REQUIRE_FALSE(group.ok());
  CHECK_THAT(group.error().message,
             Catch::Contains("/workload: job 'j' needs 64 GPUs, the nodes it can run on (hgx-h100) have 56; it cannot run on "
                             "hgx-h100 (node h5): host memory: offload_layers 60") &&
                 Catch::Contains("960 GiB for 8 GPUs on a node of hgx-h100, which has 900 GiB"));
  const auto none = load(R"([{"model": "hgx-h100", "count": 2, "names": ["h1", "h2"], "host_memory_gib": 900},
                             {"model": "hgx-h100", "count": 6, "host_memory_gib": 800}])");
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.error().message,
             Catch::Contains("/workload: job 'j' (llama3-70b, 64 GPUs) can run on no node type of the cluster: on hgx-h100 (2 "
                             "nodes: h1, ...): host memory: ") &&
                 Catch::Contains("which has 900 GiB; offload fewer layers; on hgx-h100: host memory: ") &&
                 Catch::Contains("which has 800 GiB"));
  const auto bad = load(R"([{"model": "hgx-h100", "count": 8, "host_memory_gib": 0}])");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("/cluster/nodes/0/host_memory_gib: must be a positive number, got 0"));
  const auto huge = load(R"([{"model": "hgx-h100", "count": 8, "host_memory_gib": 70000}])");
  REQUIRE_FALSE(huge.ok());
  CHECK_THAT(huge.error().message, Catch::Contains("/cluster/nodes/0/host_memory_gib: must be at most 65,536 GiB, got 70,000"));
}

}  // namespace topsim

namespace topsim {

TEST_CASE("scenario::llm synthetic mixes draw LLM jobs configured by their size", "[scenario][llm]") {
  const std::string base = R"({"cluster": {"nodes": [{"model": "hgx-h100", "count": 8}], "network": {"transport": "ib"}},
    "workload": {"kind": "synthetic", "jobs": 60, "arrival_rate_per_hour": 20, "size_mix": {"8": 0.5, "16": 0.5},
                 "model_mix": {"resnet50": 0.5, "llama3-8b": 0.5})";
  const Scenario s = test::scenario_from(base + R"(, "reference_gpu": "h100"}, "schedulers": ["topology-aware"]})");
  REQUIRE(s.workload->llm_jobs);
  int llm_jobs = 0;
  JobCursor cursor(*s.workload);
  while (const JobSpec* job = cursor.next()) {
    const LlmJob* llm = s.workload->llm_of(*job);
    if (!llm) continue;
    ++llm_jobs;
    CHECK(job->model == kNoModel);
    const ParallelConfig c = llm->config_for(job->total_gpus());
    // The smallest TP that fits the reference GPU (core/llm_step.h default_parallel): TP 1 needs
    // 92 GiB, TP 2 fits.
    CHECK(c.tp == 2);
    CHECK(c.gpus() == job->total_gpus());
    CHECK(c.batch() * c.seq(*llm->model) >= 4 * 1024 * 1024);
    // jobs.jsonl names the layout it ran with, not the spec's unset one.
    std::string line;
    append_job_line(line, "topology-aware", 1, *s.workload, *job, JobRecord{});
    CHECK_THAT(line, Catch::Contains(job->total_gpus() == 8 ? R"("parallelism":"tp2 pp1 dp4 cp1 ep1")"
                                                            : R"("parallelism":"tp2 pp1 dp8 cp1 ep1")"));
  }
  CHECK(llm_jobs > 15);
  CHECK(llm_jobs < 45);
  const RunResult r = test::run(s, "topology-aware");
  bool tokens = false;
  for (const ModelThroughput& t : r.by_model)
    if (t.model == "llama3-8b") tokens = t.unit == "tokens" && t.mean_samples_per_sec > 0;
  CHECK(tokens);
  // Each runs the micro-batch a tuned run picks, the fastest that fits on an idle H100 node (2
  // for Llama 3 8B at TP 2: 0.19% above micro-batch 1), and jobs.jsonl says it was chosen.
  const LlmJob& spec = s.workload->llm_jobs->front();
  CHECK(spec.micro_batch_auto);
  const auto fastest = estimate_llm_idle_fastest_micro_batch(*spec.model, spec.config_for(8), *builtin_model("hgx-h100"));
  REQUIRE(fastest.ok());
  CHECK(fastest->micro_batch == 2);
  int chosen = 0;
  JobCursor ran(*s.workload);
  while (const JobSpec* job = ran.next()) {
    const JobRecord& record = r.jobs.at(job->id);
    if (!s.workload->llm_of(*job) || job->total_gpus() != 8 || !record.llm) continue;
    chosen += record.llm->micro_batch == 2;
    std::string line;
    append_job_line(line, "topology-aware", 1, *s.workload, *job, record);
    CHECK_THAT(line, Catch::Contains(R"("micro_batch":"auto")") && Catch::Contains(R"("micro_batch":2})"));
  }
  CHECK(chosen > 5);
  // A job read back from results that named only its layout has no settings to write.
  Workload layout_only = *s.workload;
  auto specs = std::make_shared<std::vector<LlmJob>>(*layout_only.llm_jobs);
  for (LlmJob& other : *specs) other.settings_known = false;
  layout_only.llm_jobs = specs;
  JobCursor first(layout_only);
  while (const JobSpec* job = first.next()) {
    if (!layout_only.llm_of(*job)) continue;
    std::string line;
    append_job_line(line, "topology-aware", 1, layout_only, *job, JobRecord{});
    CHECK_THAT(line, Catch::Contains(R"("parallelism":"tp2 pp1 )"));
    CHECK(line.find("llm_config") == std::string::npos);
    break;
  }
  // Durations measured on a V100 (the synthetic default) cannot become work for a BF16 job.
  auto refused = parse_scenario(base + R"(}, "schedulers": ["topology-aware"]})", "test.json", "");
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("(llama3-8b, ") &&
                                          Catch::Contains("measured on v100, which cannot run it") &&
                                          Catch::Contains(R"(: set "reference_gpu" to a GPU that can, e.g. )"));
  // A model no layout of any of the workload's sizes fits on the reference GPU would never be
  // drawn: the mix is refused, saying what would run it.
  auto too_small = parse_scenario(R"({"cluster": {"nodes": [{"model": "hgx-h100", "count": 8}], "network": {"transport": "ib"}},
    "workload": {"kind": "synthetic", "jobs": 4, "size_mix": {"1": 1}, "model_mix": {"llama2-13b": 1}, "reference_gpu": "h100"},
    "schedulers": ["topology-aware"]})",
                                  "test.json", "");
  REQUIRE_FALSE(too_small.ok());
  CHECK(too_small.error().message ==
        "test.json: /workload/model_mix: llama2-13b fits no job of the workload on h100 (80 GiB): no layout of its sizes, up "
        "to 1 GPU, holds it, so the mix would never draw it; give the workload larger jobs, or list its jobs in a job list, "
        "where \"recompute\": \"full\" or \"zero\": 3 save memory");
  // Jobs of a size no model of the mix fits: refused, naming the size.
  auto none_fits = parse_scenario(R"({"cluster": {"nodes": [{"model": "hgx-h100", "count": 8}], "network": {"transport": "ib"}},
    "workload": {"kind": "synthetic", "jobs": 20, "size_mix": {"1": 0.5, "8": 0.5}, "model_mix": {"llama2-13b": 1},
                 "reference_gpu": "h100"}, "schedulers": ["topology-aware"]})",
                                  "test.json", "");
  REQUIRE_FALSE(none_fits.ok());
  CHECK_THAT(none_fits.error().message,
             Catch::Contains("(llama2-13b, 1 GPU) is given by a duration measured on h100, which cannot run it (memory: ") &&
                 Catch::Contains("): no model of the model mix fits a job of 1 GPU there (an LLM of the mix is drawn only for "
                                 "the sizes it fits); add one that does, e.g. resnet50"));
  CHECK(none_fits.error().message.find("set \"reference_gpu\"") == std::string::npos);
}

TEST_CASE("scenario::llm a mix's LLM is drawn only for the job sizes it fits, and the results say which it left out",
          "[scenario][llm]") {
  // The default sizes: half the jobs have 1 GPU, which no layout of Llama 3 8B fits on an H100.
  const Scenario s =
      test::scenario_from(R"({"cluster": {"nodes": [{"model": "hgx-h100", "count": 8}], "network": {"transport": "ib"}},
    "workload": {"kind": "synthetic", "jobs": 200, "model_mix": {"resnet50": 0.5, "llama3-8b": 0.5}, "reference_gpu": "h100"},
    "schedulers": ["topology-aware"]})");
  size_t one_gpu = 0, left_out = 0, llm_jobs = 0, llm_eligible = 0;
  JobCursor cursor(*s.workload);
  while (const JobSpec* job = cursor.next()) {
    const bool fits =
        !default_parallel_too_large(*find_llm_model("llama3-8b").value(), job->total_gpus(), *find_gpu_model("h100"));
    one_gpu += job->total_gpus() == 1;
    llm_eligible += fits;
    left_out += !fits;
    if (!s.workload->llm_of(*job)) continue;
    ++llm_jobs;
    CHECK(fits);
  }
  REQUIRE(one_gpu > 60);
  // Half of the jobs of sizes it fits (binomial: within 4 standard deviations).
  CHECK(std::abs(static_cast<double>(llm_jobs) - llm_eligible / 2.0) < 4 * std::sqrt(llm_eligible / 4.0));
  const ResultSet results = test::run_all(s);
  CHECK(left_out >= one_gpu);
  CHECK(results.scenario.model_mix.find("llama3-8b is left out of the " + std::to_string(left_out) + " jobs of 1") == 0);
  CHECK_THAT(render_text(results), Catch::Contains("model mix: llama3-8b is left out of the "));
  // Read back from results.json as written.
  const test::TempDir dir;
  {
    std::ofstream out(dir.file("results.json"));
    write_results_json(results, out);
  }
  const auto back = load_results(dir.path.string());
  REQUIRE(back.ok());
  CHECK(back->scenario.model_mix == results.scenario.model_mix);
}

}  // namespace topsim

namespace topsim {

TEST_CASE("scenario::llm a mix's LLM job runs the layout a tuned run takes on the GPU it runs on", "[scenario][llm]") {
  // Durations measured on H100 (Llama 3 8B at 16 GPUs: TP 2), replayed on 40 GB A100s, where TP 2
  // needs 46 GiB and TP 4 fits.
  const auto scenario = [](const std::string& node) {
    return test::scenario_from(R"({"cluster": {"nodes": [{"model": ")" + node +
                               R"(", "count": 4}], "network": {"transport": "ib"}},
      "workload": {"kind": "synthetic", "jobs": 6, "arrival_rate_per_hour": 1, "size_mix": {"16": 1},
                   "model_mix": {"llama3-8b": 1}, "reference_gpu": "h100"}, "schedulers": ["topology-aware"]})");
  };
  const Scenario on_a100 = scenario("dgx-a100"), on_h100 = scenario("hgx-h100");
  const LlmJob& spec = on_a100.workload->llm_jobs->front();
  REQUIRE(spec.config_for(16).tp == 2);
  REQUIRE(spec.config_for(16, find_gpu_model("a100")).tp == 4);
  REQUIRE(spec.config_for(16, find_gpu_model("h100")).tp == 2);
  const RunResult a = test::run(on_a100, "topology-aware"), h = test::run(on_h100, "topology-aware");
  int ran = 0;
  JobCursor cursor(*on_a100.workload);
  while (const JobSpec* job = cursor.next()) {
    const JobRecord& on_a = a.jobs.at(job->id);
    const JobRecord& on_h = h.jobs.at(job->id);
    REQUIRE(on_a.llm);
    REQUIRE(on_h.llm);
    ++ran;
    CHECK(on_a.llm->tp == 4);
    CHECK(on_a.llm->pp == 1);
    CHECK(on_h.llm->tp == 2);
    // The work is the duration at the reference layout's rate on H100, wherever the job runs; on
    // an ideal H100 placement it runs as long as measured, on A100s at TP 4 work / their rate.
    CHECK(on_a.work_samples == Approx(on_h.work_samples).epsilon(1e-12));
    REQUIRE(on_h.samples_per_sec == Approx(on_h.ideal_samples_per_sec).epsilon(1e-12));
    CHECK(std::abs(static_cast<double>(on_h.finish_ms - on_h.start_ms - job->ideal_duration_ms)) <= 1);
    CHECK(static_cast<double>(on_a.finish_ms - on_a.start_ms) ==
          Approx(on_a.work_samples / on_a.samples_per_sec * 1e3).margin(1.0));
    CHECK(on_a.samples_per_sec < on_h.samples_per_sec);
    std::string line;
    append_job_line(line, "topology-aware", 1, *on_a100.workload, *job, on_a);
    CHECK_THAT(line, Catch::Contains(R"("parallelism":"tp4 pp1 dp4 cp1 ep1")"));
    line.clear();
    append_job_line(line, "topology-aware", 1, *on_h100.workload, *job, on_h);
    CHECK_THAT(line, Catch::Contains(R"("parallelism":"tp2 pp1 dp8 cp1 ep1")"));
  }
  CHECK(ran == 6);
}

TEST_CASE("scenario::llm a mix's LLM job no layout of which fits a GPU is told so, without a job list's advice",
          "[scenario][llm]") {
  // Llama 3 8B measured on H100 at 16 GPUs; a job of 4 GPUs on a 40 GB A100 needs 42.66 GiB at
  // TP 4, its least memory. The mix chose its layout, so "raise tp, pp or zero" would be no advice.
  const Scenario s = test::scenario_from(R"({"cluster": {"nodes": [{"model": "hgx-h100", "count": 2}],
    "network": {"transport": "ib"}}, "workload": {"kind": "synthetic", "jobs": 2, "size_mix": {"16": 1},
    "model_mix": {"llama3-8b": 1}, "reference_gpu": "h100"}})");
  JobCursor cursor(*s.workload);
  JobSpec job = *cursor.next();
  REQUIRE(s.workload->llm_of(job));
  job.workers = 1;
  job.gpus_per_worker = 4;
  const GpuModel& a100 = *find_gpu_model("a100");
  const NodeFitProblem mix = job_capacity_problem(*s.workload, job, a100, *builtin_model("dgx-a100"));
  CHECK(mix.message ==
        "memory: no layout of its 4 GPUs fits: the least memory, TP 4 x PP 1, needs 42.66 GiB per GPU (33.65 parameters "
        "and optimizer state, 9.01 activations), a100 has 40");
  CHECK(mix.least_gib == Approx(42.66).margin(0.005));
  CHECK_FALSE(mix.of_node);
  // The same layout given by a job list keeps validate_parallel's advice, and no least memory.
  Workload listed = *s.workload;
  auto specs = std::make_shared<std::vector<LlmJob>>(*s.workload->llm_jobs);
  specs->front().config = specs->front().config_for(4, &a100);
  specs->front().automatic = false;
  listed.llm_jobs = specs;
  const NodeFitProblem given = job_capacity_problem(listed, job, a100, *builtin_model("dgx-a100"));
  CHECK(given.message ==
        "memory: llama3-8b needs 42.66 GiB per GPU (33.65 parameters and optimizer state, 9.01 activations), a100 has 40; "
        "raise tp, pp or zero, or recompute full");
  CHECK(given.least_gib == 0);
  // On H100 it fits at TP 2.
  CHECK(job_capacity_problem(*s.workload, job, *find_gpu_model("h100"), *builtin_model("hgx-h100")).ok());
}

}  // namespace topsim
