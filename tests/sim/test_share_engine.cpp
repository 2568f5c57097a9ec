// Shared-GPU jobs in the event engine (issue 5, item 6): gpu-mem GiB / gpu-core shares on
// share and core_mem nodes beside whole-GPU jobs on topology nodes, queueing for memory,
// rejection at submission, fragmentation sampled over time, and the scenario checks.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "scenario/scenario_loader.h"
#include "sim/engine.h"
#include "sim/run_summary.h"
#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// One DGX-1 V100 (8 x 16 GiB cards) per label given.
std::string v100_nodes(const std::vector<std::string>& labels) {
  std::string nodes = "[";
  for (const std::string& label : labels) {
    if (nodes.size() > 1) nodes += ", ";
    nodes += R"({"model": "dgx1-v100")" + (label.empty() ? std::string() : R"(, "label": ")" + label + "\"") + "}";
  }
  return nodes + "]";
}

std::string share_job(const std::string& name, double submit_s, int gib, int core, double duration_s, int count = 1) {
  std::string job = R"({"name": ")" + name + R"(", "submit_s": )" + std::to_string(submit_s) + R"(, "gpu_mem_gib": )" +
                    std::to_string(gib) + R"(, "duration_s": )" + std::to_string(duration_s);
  if (core > 0) job += R"(, "gpu_core_percent": )" + std::to_string(core);
  if (count > 1) job += R"(, "count": )" + std::to_string(count);
  return job + "}";
}

const ClusterSample& sample_at(const RunResult& result, int64_t time_ms) {
  for (const ClusterSample& s : result.samples)
    if (s.time_ms == time_ms) return s;
  FAIL("no sample at " << time_ms << " ms");
  return result.samples.front();
}

std::string load_error(const std::string& json) {
  auto scenario = parse_scenario(json, "test.json", "");
  REQUIRE_FALSE(scenario.ok());
  return scenario.error().message;
}

}  // namespace

TEST_CASE("sim::shares binpack cards of core_mem nodes by memory and compute", "[sim][share]") {
  const Scenario s = scenario_from(scenario_json(
      v100_nodes({"core_mem", ""}), "[" + share_job("a", 0, 10, 50, 100) + ", " + share_job("b", 1, 4, 30, 100) + ", " +
                                        share_job("c", 2, 8, 20, 100) + ", " + share_job("d", 3, 2, 25, 100) + "]"));
  const RunResult result = run(s, "topology-aware");
  // a takes GPU 0 (10 of 16 GiB, 50%); b (4 GiB, 30%) fits beside it (6 GiB and 50% free): the
  // fullest card that fits; c (8 GiB) does not fit GPU 0 (2 GiB free) and opens GPU 1; d (2 GiB,
  // 25%) fits GPU 0's memory (2 GiB) but not its compute (100 - 50 - 30 = 20% < 25%), so it goes
  // to GPU 1 (8 GiB, 80% free).
  REQUIRE(record(result, s, "a").pods.size() == 1);
  CHECK(record(result, s, "a").pods[0].node == 0);
  CHECK(record(result, s, "a").pods[0].gpus == std::vector<int>{0});
  CHECK(record(result, s, "b").pods[0].gpus == std::vector<int>{0});
  CHECK(record(result, s, "c").pods[0].gpus == std::vector<int>{1});
  CHECK(record(result, s, "d").pods[0].gpus == std::vector<int>{1});
  for (const char* name : {"a", "b", "c", "d"}) {
    CHECK(record(result, s, name).state == JobState::Finished);
    CHECK(record(result, s, name).finish_ms - record(result, s, name).start_ms == 100'000);  // its duration
  }
}

TEST_CASE("sim::shares memory-only and memory+compute pods never share a node", "[sim][share]") {
  const Scenario s =
      scenario_from(scenario_json(v100_nodes({"share", "core_mem"}),
                                  "[" + share_job("mem", 0, 4, 0, 100, 3) + ", " + share_job("core", 0, 4, 30, 100, 3) + "]"));
  for (const char* scheduler : {"topology-aware", "default"}) {
    const RunResult result = run(s, scheduler);
    for (int k = 0; k < 3; ++k) {
      CHECK(record(result, s, "mem-" + std::to_string(k)).pods.at(0).node == 0);   // the share node
      CHECK(record(result, s, "core-" + std::to_string(k)).pods.at(0).node == 1);  // the core_mem node
    }
  }
}

TEST_CASE("sim::shares wait for memory and whole-GPU jobs never use share nodes", "[sim][share]") {
  const std::string jobs =
      "[" + share_job("full", 0, 16, 0, 100, 9) +
      R"(, {"name": "train", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 50}])";
  const Scenario s = scenario_from(scenario_json(v100_nodes({"share", ""}), jobs));
  const RunResult result = run(s, "topology-aware");
  // Eight 16 GiB shares fill the share node's eight cards; the ninth waits for the first to end.
  for (int k = 0; k < 8; ++k) CHECK(record(result, s, "full-" + std::to_string(k)).start_ms == 0);
  CHECK(record(result, s, "full-8").start_ms == 100'000);
  // The 16-GPU gang needs both nodes but only the topology node serves it: rejected, with why.
  CHECK(record(result, s, "train").state == JobState::Rejected);
  CHECK_THAT(record(result, s, "train").reason, Catch::Contains("needs 16 GPUs"));
  CHECK(metric(result, "share_jobs") == 9);
  for (int k = 0; k < 9; ++k) CHECK(record(result, s, "full-" + std::to_string(k)).state == JobState::Finished);
  CHECK(metric(result, "share_wait_s.mean") == Approx(100.0 / 9));
  CHECK(metric(result, "pending_jobs.max") == 1);
}

TEST_CASE("sim::shares a share the cluster's cards cannot hold is rejected at submission and counted", "[sim][share]") {
  // Built directly (a scenario file refuses it at load): 20 GiB on 16 GiB cards, and a compute
  // share with no core_mem node.
  auto cluster =
      ClusterState::build(scenario_from(scenario_json(v100_nodes({"share"}), "[" + share_job("ok", 0, 4, 0, 10) + "]")).cluster);
  REQUIRE(cluster.ok());
  Workload workload;
  for (uint32_t id = 0; id < 3; ++id) {
    JobSpec job;
    job.id = id;
    job.kind = JobKind::Share;
    job.gpu_mem_gib = id == 0 ? 20 : 4;
    job.gpu_core_percent = id == 2 ? 30 : 0;
    job.ideal_duration_ms = 1000;
    job.model = kNoModel;
    workload.jobs.push_back(job);
  }
  RunConfig config;
  config.scheduler = find_scheduler("topology-aware");
  config.share_scheduler = find_scheduler("binpack");
  const RunOutput result = simulate(*cluster, workload, config);
  CHECK(result.jobs[0].state == JobState::Rejected);
  CHECK_THAT(result.jobs[0].reason, Catch::Contains("aliyun.com/gpu-mem 20 GiB exceeds the largest card's memory (16 GiB)"));
  CHECK(result.jobs[1].state == JobState::Finished);
  CHECK(result.jobs[2].state == JobState::Rejected);
  CHECK_THAT(result.jobs[2].reason, Catch::Contains("ack.node.gpu.schedule=core_mem"));
  CHECK(summarize_run(result, workload, true, false).value_or("rejected", -1) == 2);
}

TEST_CASE("sim::shares fragmentation is sampled over time and integrated", "[sim][share]") {
  // One share node, 8 cards x 16 GiB; every job asks 6 GiB, so the target workload is that one
  // spec. Two jobs from t=0 to 100 s share GPU 0 (binpack): 4 GiB stay free there,
  // R = floor(1000 x 4 / 16) = 250 milli, which a 6 GiB pod cannot use: F = 0.25 GPUs; the seven
  // idle cards are usable (F 0). Allocated = 8 - (7 + 0.25) = 0.75 GPUs. Rate = 0.25 / 7.25.
  const std::string extra = R"(, "sample_every_s": 50)";
  const Scenario s = scenario_from(scenario_json(v100_nodes({"share"}), "[" + share_job("x", 0, 6, 0, 100, 2) + "]", extra));
  const RunResult result = run(s, "topology-aware");
  CHECK(result.sample_every_ms == 50'000);
  REQUIRE(result.samples.size() == 3);  // 0, 50 and 100 s (the last event)
  const ClusterSample& mid = sample_at(result, 50'000);
  CHECK(mid.running == 2);
  CHECK(mid.pending == 0);
  CHECK(mid.fragmentation_gpus == Approx(0.25));
  CHECK(mid.allocated_gpus == Approx(0.75));
  CHECK(mid.fragmentation_rate == Approx(0.25 / 7.25));
  CHECK(mid.idle_cards == 7);
  CHECK(mid.unusable_gpus == Approx(0.25));
  const ClusterSample& end = sample_at(result, 100'000);  // both finished at 100 s
  CHECK(end.running == 0);
  CHECK(end.fragmentation_gpus == Approx(0.0));
  CHECK(end.allocated_gpus == Approx(0.0));
  // Over [0, 100 s] the state held all along: the time means equal it.
  CHECK(metric(result, "fragmentation_gpus.mean") == Approx(0.25));
  CHECK(metric(result, "allocated_gpus.mean") == Approx(0.75));
  CHECK(metric(result, "running_jobs.mean") == Approx(2.0));
}

TEST_CASE("sim::shares whole-GPU placements count in the fragmentation of topology nodes", "[sim][share]") {
  // Target workload: the two pods' specs, a 4-GPU and a 3-GPU pod, popularity 1/2 each. After
  // the 4-GPU job (0 s) 4 cards are idle: both specs can run and no idle card is below their
  // per-card share (1000): F = 0. After the 3-GPU job (10 s) one idle card is left: neither spec
  // can run (1 fitting card < 4, < 3), so each counts all free share: F_n(M) = 1/2 x 1 + 1/2 x 1
  // = 1 GPU.
  const std::string jobs =
      R"([{"name": "four", "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 100},
          {"name": "three", "submit_s": 10, "workers": 1, "gpus_per_worker": 3, "model": "resnet50", "duration_s": 100}])";
  const Scenario s = scenario_from(scenario_json(v100_nodes({""}), jobs, R"(, "sample_every_s": 10)"));
  const RunResult result = run(s, "topology-aware");
  CHECK(result.target_specs == 2);
  CHECK(sample_at(result, 0).fragmentation_gpus == Approx(0.0));
  CHECK(sample_at(result, 20'000).fragmentation_gpus == Approx(1.0));
  CHECK(sample_at(result, 20'000).idle_cards == 1);
}

TEST_CASE("sim::shares runs are deterministic and automatic sampling stays bounded", "[sim][share]") {
  const std::string jobs =
      "[" + share_job("s", 0, 5, 0, 3600, 40) +
      R"(, {"name": "t", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "vgg16", "iterations": 2000000}])";
  const Scenario s = scenario_from(scenario_json(v100_nodes({"share", ""}), jobs));
  const RunResult a = run(s, "topology-aware");
  const RunResult b = run(s, "topology-aware");
  REQUIRE(a.samples.size() == b.samples.size());
  for (size_t i = 0; i < a.samples.size(); ++i) {
    CHECK(a.samples[i].time_ms == b.samples[i].time_ms);
    CHECK(a.samples[i].fragmentation_gpus == b.samples[i].fragmentation_gpus);
  }
  // The expected span is 1 h (the shares' duration): 1 min samples; the training job runs far
  // longer (iterations), and the grid doubles instead of growing past 1,000 samples.
  CHECK(auto_sample_period_ms(workload_span(*s.workload)) == 60'000);
  const auto makespan_ms = static_cast<int64_t>(metric(a, "makespan_s") * 1000);
  CHECK(makespan_ms > 1000 * 60'000);
  CHECK(a.samples.size() <= 1000);
  CHECK(a.sample_every_ms > 60'000);
  CHECK(a.samples.back().time_ms <= makespan_ms);
  CHECK(a.samples.back().time_ms + a.sample_every_ms > makespan_ms);
}

TEST_CASE("sim::shares scenario checks name the field", "[sim][share]") {
  const std::string nodes = v100_nodes({"share", "core_mem"});
  auto with = [&](const std::string& job) { return scenario_json(nodes, "[" + job + "]"); };
  CHECK_THAT(load_error(with(share_job("j", 0, 4, 7, 10))),
             Catch::Contains("/workload/jobs/0/gpu_core_percent") && Catch::Contains("not a multiple of 5"));
  CHECK_THAT(load_error(with(R"({"gpu_mem_gib": 4, "gpu_core_percent": 0, "duration_s": 1})")),
             Catch::Contains("/workload/jobs/0/gpu_core_percent"));
  CHECK_THAT(load_error(with(share_job("j", 0, 4, 105, 10))), Catch::Contains("/workload/jobs/0/gpu_core_percent"));
  CHECK_THAT(load_error(with(R"({"gpu_mem_gib": 0, "duration_s": 1})")), Catch::Contains("/workload/jobs/0/gpu_mem_gib"));
  CHECK_THAT(load_error(with(R"({"gpu_mem_gib": -3, "duration_s": 1})")), Catch::Contains("/workload/jobs/0/gpu_mem_gib"));
  CHECK_THAT(load_error(with(R"({"gpu_core_percent": 30, "model": "vgg16", "duration_s": 1})")),
             Catch::Contains("/workload/jobs/0/gpu_core_percent: needs \"gpu_mem_gib\""));
  CHECK_THAT(load_error(with(R"({"gpu_mem_gib": 4, "workers": 2, "duration_s": 1})")),
             Catch::Contains("/workload/jobs/0/workers"));
  CHECK_THAT(load_error(with(R"({"gpu_mem_gib": 4, "iterations": 10})")), Catch::Contains("/workload/jobs/0/iterations"));
  CHECK_THAT(load_error(with(share_job("big", 0, 20, 0, 10))),
             Catch::Contains("/workload: job 'big' asks 20 GiB of one GPU, the largest card on share nodes has 16 GiB"));
  CHECK_THAT(load_error(scenario_json(v100_nodes({""}), "[" + share_job("j", 0, 4, 0, 10) + "]")),
             Catch::Contains("no node group has \"label\": \"share\""));
  CHECK_THAT(load_error(scenario_json(nodes, "[" + share_job("j", 0, 4, 0, 10) + "]", R"(, "share_policy": "fdg")")),
             Catch::Contains("/share_policy: unknown policy 'fdg' (did you mean 'fgd'?)"));
  CHECK_THAT(load_error(scenario_json(v100_nodes({"shared"}), "[" + share_job("j", 0, 4, 0, 10) + "]")),
             Catch::Contains("/cluster/nodes/0/label"));
  CHECK_THAT(load_error(scenario_json(nodes, "[" + share_job("j", 0, 4, 0, 10) + "]", R"(, "sample_every_s": 0)")),
             Catch::Contains("/sample_every_s"));
}
