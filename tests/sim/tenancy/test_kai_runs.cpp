// Runs with KAI-Scheduler queues (sim/tenancy/admission.h driving KaiAdmission in the engine):
// a queue within its fair share reclaims what another holds above it, the victim keeps its
// checkpoint; non-preemptible jobs stay within deserved quota; tenants are the leaf queues.
// Worked by hand on one DGX-1 (8 GPUs).
#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

constexpr const char* kOneDgx1 = R"([{"model": "dgx1-v100", "count": 1}])";

std::string job(const std::string& name, double submit_s, int gpus, double duration_s, const std::string& queue) {
  return "{\"name\": \"" + name + "\", \"submit_s\": " + std::to_string(submit_s) +
         ", \"workers\": 1, \"gpus_per_worker\": " + std::to_string(gpus) +
         ", \"model\": \"resnet50\", \"duration_s\": " + std::to_string(duration_s) + ", \"queue\": \"" + queue + "\"}";
}

KaiQueueSpec kai_queue(const std::string& name, const std::string& parent, double deserved) {
  KaiQueueSpec q;
  q.name = name;
  q.where = "test";
  q.parent = parent;
  q.gpu = {deserved, 1, -1};
  return q;
}

// Department `lab` (8 GPUs) with leaf queues a and b, 4 deserved GPUs each, equal weights.
TenancySpec lab() {
  TenancySpec spec;
  spec.queues.source = "test-queues";
  spec.queues.kai_queues = {kai_queue("lab", "", 8), kai_queue("a", "lab", 4), kai_queue("b", "lab", 4)};
  return spec;
}

// b1, b2 (b: 4 GPUs each, 1000 s) at 0, b taking a's idle share; a1 (a, 4 GPUs, 1000 s) at 100 s.
Scenario reclaim_scenario(const TenancySpec& spec, int64_t checkpoint_every_s = 60, int64_t overhead_s = 30) {
  Scenario s = scenario_from(scenario_json(
      kOneDgx1, "[" + job("b1", 0, 4, 1000, "b") + "," + job("b2", 0, 4, 1000, "b") + "," + job("a1", 100, 4, 1000, "a") + "]"));
  s.tenancy = std::make_shared<const TenancySpec>(spec);
  s.checkpoint = {checkpoint_every_s * 1000, 0, overhead_s * 1000};
  return s;
}

}  // namespace

TEST_CASE("sim::kai a queue within its fair share reclaims GPUs another holds above its own", "[sim][kai]") {
  const Scenario s = reclaim_scenario(lab());
  const RunResult r = run(s, "topology-aware");
  const JobRecord& b1 = record(r, s, "b1");
  const JobRecord& b2 = record(r, s, "b2");
  const JobRecord& a1 = record(r, s, "a1");
  // At 100 s a and b deserve 4 each: b holds 8, so its newest job goes (jobs without a
  // PriorityClass have priority 0, below KAI's 100: preemptible) and a1 starts at once.
  CHECK(b1.evictions == 0);
  CHECK(b1.finish_ms == 1'000'000);
  CHECK(b2.evictions == 1);
  CHECK(a1.admitted_ms == 100'000);
  CHECK(a1.start_ms == 100'000);
  // b2 ran 100 s, checkpointed at 60 s: 40 s of 4 GPUs lost; admitted again when b1 ends, it
  // runs the 30 s overhead and the 940 s left. The eviction cost it both, on 4 GPUs.
  CHECK(b2.lost_gpu_ms == 160'000 + 120'000);
  CHECK(b2.finish_ms == 1'000'000 + 30'000 + 940'000);
  CHECK(metric(r, "evictions@b") == 1);
  CHECK(metric(r, "evictions@a") == 0);
  CHECK(metric(r, "preempted_gpu_hours@b") == Approx(280.0 / 3600));
  // Tenants are the leaf queues, their nominal GPUs the deserved quota; b held 4 GPUs above its
  // 4 deserved for 100 s.
  CHECK(tenant_names(r) == std::vector<std::string>{"a", "b"});
  CHECK(metric(r, "nominal_gpus@a") == 4);
  CHECK(metric(r, "borrowed_gpu_hours@b") == Approx(400.0 / 3600));
  CHECK(metric(r, "finished@b") == 2);
}

TEST_CASE("sim::kai non-preemptible jobs (a globalDefault PriorityClass of 125) stay within deserved quota", "[sim][kai]") {
  TenancySpec spec = lab();
  PriorityClassSpec inference;
  inference.name = "inference";
  inference.value = 125;  // KAI's built-in inference class: non-preemptible
  inference.workload_class = false;
  inference.global_default = true;
  spec.queues.priority_classes.push_back(inference);
  const Scenario s = reclaim_scenario(spec);
  const RunResult r = run(s, "topology-aware");
  // b2 would take b above its 4 deserved GPUs: it waits for b1, though 4 GPUs are free until
  // a1 takes them at 100 s; nothing is evicted.
  CHECK(record(r, s, "a1").start_ms == 100'000);
  CHECK(record(r, s, "b2").start_ms == 1'000'000);
  CHECK(record(r, s, "b2").finish_ms == 2'000'000);
  CHECK(metric(r, "evictions") == 0);
}

TEST_CASE("sim::kai a job asking more than its queue's limit is rejected with KAI's reason", "[sim][kai]") {
  TenancySpec spec = lab();
  spec.queues.kai_queues[2].gpu.limit = 2;
  const Scenario s = reclaim_scenario(spec, 0, 0);
  const RunResult r = run(s, "topology-aware");
  CHECK(record(r, s, "b1").state == JobState::Rejected);
  CHECK_THAT(record(r, s, "b1").reason, Catch::Contains("above the GPU limit 2 of KAI queue b"));
  CHECK(record(r, s, "a1").finish_ms == 1'100'000);
}

// KAI's minruntime plugin: b's jobs are protected for 300 s after they start, so a1 (at 100 s)
// waits with nothing else happening until b2 has run 300 s, then reclaims at that instant.
TEST_CASE("sim::kai reclaimMinRuntime: the reclaim happens when the victim's protection ends", "[sim][kai]") {
  TenancySpec spec = lab();
  SECTION("set on the victim's queue") { spec.queues.kai_queues[2].reclaim_min_runtime_ms = 300'000; }
  SECTION("set on the department above it") { spec.queues.kai_queues[0].reclaim_min_runtime_ms = 300'000; }
  const Scenario s = reclaim_scenario(spec, 70);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& b2 = record(r, s, "b2");
  const JobRecord& a1 = record(r, s, "a1");
  CHECK(b2.evictions == 1);
  CHECK(a1.admitted_ms == 300'000);
  CHECK(a1.start_ms == 300'000);
  CHECK(a1.finish_ms == 1'300'000);
  // b2 checkpointed at 280 s: 20 s of 4 GPUs lost; back when b1 ends, 30 s overhead + 720 s left.
  CHECK(b2.lost_gpu_ms == 80'000 + 120'000);
  CHECK(b2.finish_ms == 1'000'000 + 30'000 + 720'000);
}

TEST_CASE("sim::kai reclaimMinRuntime of the reclaimer's own queue protects nothing of another", "[sim][kai]") {
  TenancySpec spec = lab();
  spec.queues.kai_queues[1].reclaim_min_runtime_ms = 300'000;  // a: the reclaimer's
  const Scenario s = reclaim_scenario(spec);
  const RunResult r = run(s, "topology-aware");
  CHECK(record(r, s, "a1").admitted_ms == 100'000);
  CHECK(record(r, s, "b2").evictions == 1);
}

// KAI's time-aware fairness in a run: a and b (no deserved GPUs, equal weights) share one DGX-1.
// a1 takes all 8 GPUs at 0; b1 (8 GPUs, 300 s) comes at 10 s, when the fair shares are 4 / 4 and
// b1 cannot reclaim. At the first usage fetch, 60 s, a has held the whole cluster for the whole
// window: a's share falls to 0, b's rises to 8, and b1 reclaims a1 at that instant with nothing
// else happening. Without a usage database b1 waits for a1's end.
TEST_CASE("sim::kai time-aware fairness: the fetched usage lets a starved queue reclaim in a run", "[sim][kai]") {
  TenancySpec spec;
  spec.queues.source = "test-queues";
  spec.queues.kai_queues = {kai_queue("lab", "", 8), kai_queue("a", "lab", 0), kai_queue("b", "lab", 0)};
  const bool time_aware = GENERATE(true, false);
  if (time_aware) {
    KaiSchedulerSpec shard;
    shard.time_aware = KaiTimeAwareSpec{};
    shard.time_aware->window_ms = 600'000;
    spec.queues.kai_scheduler = shard;
  }
  Scenario s = scenario_from(scenario_json(kOneDgx1, "[" + job("a1", 0, 8, 10000, "a") + "," + job("b1", 10, 8, 300, "b") + "]"));
  s.tenancy = std::make_shared<const TenancySpec>(spec);
  s.checkpoint = {60'000, 0, 30'000};
  s.sample_every_ms = 30'000;
  const RunResult r = run(s, "topology-aware");
  const JobRecord& a1 = record(r, s, "a1");
  const JobRecord& b1 = record(r, s, "b1");
  INFO("time-aware " << time_aware);
  // The samples carry each queue's fair share, and with time-aware fairness the usage KAI read.
  REQUIRE(tenant_names(r) == std::vector<std::string>{"a", "b"});
  REQUIRE(r.samples.size() > 4);
  for (const ClusterSample& x : r.samples) {
    INFO(x.time_ms);
    REQUIRE(x.tenant_fair_share_gpus.size() == 2);
    CHECK(x.tenant_fair_share_gpus[0] + x.tenant_fair_share_gpus[1] <= 8);
    REQUIRE(x.tenant_usage_share.size() == (time_aware ? 2u : 0u));
    for (double u : x.tenant_usage_share) CHECK((u >= 0 && u <= 1));
  }
  const ClusterSample& at_90s = r.samples[3];
  REQUIRE(at_90s.time_ms == 90'000);
  if (time_aware) {
    CHECK(b1.admitted_ms == 60'000);
    CHECK(b1.start_ms == 60'000);
    CHECK(b1.finish_ms == 360'000);
    CHECK(a1.evictions == 1);
    // At 90 s: the fetch at 60 s read a's whole-cluster minute (usage 1, b's 0), which gave b
    // the cluster.
    CHECK(at_90s.tenant_usage_share == std::vector<double>{1, 0});
    CHECK(at_90s.tenant_fair_share_gpus == std::vector<double>{0, 8});
  } else {
    CHECK(b1.admitted_ms == 10'000'000);
    CHECK(a1.evictions == 0);
    // Both ask the whole cluster with equal weights: 4 GPUs each.
    CHECK(at_90s.tenant_fair_share_gpus == std::vector<double>{4, 4});
  }
}
