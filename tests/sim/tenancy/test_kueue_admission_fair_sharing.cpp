// Kueue's Admission Fair Sharing (sim/tenancy/kueue_admission.h): in a ClusterQueue that opts in,
// the LocalQueue with less decayed usage goes first; usage decays by sampling ticks and an
// admission adds its entry penalty. Worked by hand: half-life 10 min, sampling 5 min, so one tick
// keeps 0.5^0.5 of the usage and the entry penalty is the request x (1 - 0.5^0.5).
#include <cmath>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/sim/tenancy/kueue_fixture.h"

using namespace topsim;
using namespace topsim::test;

namespace {

constexpr int64_t kMinuteMs = 60'000;

// ClusterQueue `shared` (4 cores), LocalQueues lq-a (0) and lq-b (1) pointing at it.
struct Shared {
  KueueFixture k;
  // `consumed_a`: lq-a's consumedResources as a live queue reports it; `weights`: resourceWeights.
  explicit Shared(bool opt_in, int64_t half_life_ms = 10 * kMinuteMs, double weight_b = 1,
                  std::map<std::string, double> consumed_a = {}, std::map<std::string, double> weights = {}) {
    k.queue("shared", "", {{"cpu", 4000}}).admission_fair_sharing = opt_in;
    k.config.local_queues.push_back({"lq-a", "test", "default", "shared", 1, std::move(consumed_a)});
    k.config.local_queues.push_back({"lq-b", "test", "default", "shared", weight_b});
    k.config.admission_fair_sharing = AdmissionFairSharingSpec{half_life_ms, 5 * kMinuteMs, std::move(weights)};
    k.build();
  }
  void enqueue(uint32_t id, int local_queue, int64_t timestamp_ms) {
    QueuedWorkload w = k.workload(id, "shared", 0, 4000, timestamp_ms);
    w.local_queue = local_queue;
    k.admission->enqueue(w);
  }
  std::vector<uint32_t> run(int64_t now_ms) {
    std::vector<uint32_t> admitted;
    k.admission->run(
        now_ms, [&](uint32_t id) { admitted.push_back(id); }, [](const Preemption&) {});
    return admitted;
  }
  // a1 (lq-a) runs 0-20 min while a2 (lq-a, older) and b1 (lq-b) wait; who is admitted at 20 min.
  std::vector<uint32_t> after_a1() {
    enqueue(1, 0, 0);
    REQUIRE(run(0) == std::vector<uint32_t>{1});
    enqueue(2, 0, 1);
    enqueue(3, 1, 2);
    REQUIRE(run(2).empty());
    k.admission->finish(1, 20 * kMinuteMs);
    return run(20 * kMinuteMs);
  }
};

const double kPenaltyShare = 1 - std::sqrt(0.5);  // 1 - 0.5^(5 min / 10 min)

}  // namespace

TEST_CASE("kueue::admission fair sharing: the LocalQueue that used less goes first, by its decayed usage", "[sim][kueue]") {
  SECTION("on: b1 before the older a2, lq-a's usage decayed over four ticks towards what it held") {
    Shared s(true);
    CHECK(s.after_a1() == std::vector<uint32_t>{3});
    // a1's admission at 0: the entry penalty 4 x 0.2929; four ticks to 20 min holding 4 cores keep 0.25 of it.
    CHECK(s.k.admission->local_queue_usage(0) == Approx(4 * kPenaltyShare * 0.25 + 4 * 0.75));
    CHECK(s.k.admission->local_queue_usage(1) == Approx(4 * kPenaltyShare));  // b1's entry penalty
  }
  SECTION("a ClusterQueue that does not opt in keeps its order: the older a2") {
    Shared s(false);
    CHECK(s.after_a1() == std::vector<uint32_t>{2});
    CHECK(s.k.admission->local_queue_usage(0) == 0);
  }
  SECTION("a half-life of 0 keeps no history: the older a2") {
    Shared s(true, 0);
    CHECK(s.after_a1() == std::vector<uint32_t>{2});
    CHECK(s.k.admission->local_queue_usage(0) == 0);
  }
  SECTION("a LocalQueue of weight 0 is always last") {
    Shared s(true, 10 * kMinuteMs, 0);
    CHECK(s.after_a1() == std::vector<uint32_t>{2});
    CHECK(std::isinf(s.k.admission->local_queue_usage(1)));
  }
  SECTION("a burst: each admission's entry penalty counts before the next is chosen") {
    // Three workloads created at 0, one core each, run at 0: no time has passed to sample any
    // usage, so only a1's penalty puts lq-a's a2 behind lq-b's b (without it, a2's lower id wins).
    Shared s(true);
    for (const auto& [id, local_queue] : {std::pair{1u, 0}, std::pair{2u, 0}, std::pair{3u, 1}}) {
      QueuedWorkload w = s.k.workload(id, "shared", 0, 1000, 0);
      w.local_queue = local_queue;
      s.k.admission->enqueue(w);
    }
    CHECK(s.run(0) == std::vector<uint32_t>{1, 3, 2});  // one head of the ClusterQueue a cycle
    CHECK(s.k.admission->local_queue_usage(0) == Approx(2 * kPenaltyShare));
  }
}

namespace {

std::string job(const std::string& name, double submit_s, double duration_s) {
  return "{\"name\": \"" + name + "\", \"submit_s\": " + std::to_string(submit_s) +
         ", \"workers\": 1, \"gpus_per_worker\": 8, \"model\": \"resnet50\", \"duration_s\": " + std::to_string(duration_s) + "}";
}

// One DGX-1 behind ClusterQueue `shared` (8 GPUs); a1, a2 from lq-a at 0 and 1 s, b1 from lq-b at
// 2 s, 1,000 s each.
Scenario shared_scenario(bool opt_in) {
  Scenario s = scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}])",
                                           "[" + job("a1", 0, 1000) + "," + job("a2", 1, 1000) + "," + job("b1", 2, 1000) + "]"));
  Workload w = *s.workload;
  w.queue_names = {"lq-a", "lq-b"};
  for (JobSpec& j : w.jobs) j.queue = w.job_name(j.id) == "b1" ? 1 : 0;
  s.workload = std::make_shared<const Workload>(std::move(w));
  TenancySpec spec;
  QueueConfig& q = spec.queues;
  q.source = "test-queues";
  q.flavors.push_back({"default", "test", {}});
  ClusterQueueSpec cq;
  cq.name = "shared";
  cq.where = "test";
  cq.groups.push_back({{kResourceGpu}, {{"default", {{kResourceGpu, 8, {}, {}}}}}});
  cq.admission_fair_sharing = opt_in;
  q.cluster_queues.push_back(cq);
  q.local_queues.push_back({"lq-a", "test", "default", "shared"});
  q.local_queues.push_back({"lq-b", "test", "default", "shared"});
  q.local_queues.push_back({"shared", "test", "ml", "shared"});  // no jobs; named as its ClusterQueue
  q.admission_fair_sharing = AdmissionFairSharingSpec{3600 * 1000, 5 * kMinuteMs, {}};
  s.tenancy = std::make_shared<const TenancySpec>(std::move(spec));
  return s;
}

}  // namespace

TEST_CASE("sim::quota Admission Fair Sharing: LocalQueues take turns, and are the run's tenants", "[sim][kueue]") {
  SECTION("on: b1 runs second, before lq-a's a2; the tenants are the LocalQueues, without quota of their own") {
    const Scenario s = shared_scenario(true);
    const RunResult r = run(s, "topology-aware");
    CHECK(record(r, s, "b1").start_ms == 1'000'000);
    CHECK(record(r, s, "a2").start_ms == 2'000'000);
    CHECK(metric(r, "jobs@lq-a") == 2);
    CHECK(metric(r, "jobs@lq-b") == 1);
    CHECK(metric(r, "wait_s.max@lq-b") == Approx(998));
    CHECK(metric(r, "wait_s.max@lq-a") == Approx(1999));
    CHECK_FALSE(r.metrics.get("nominal_gpus@lq-a"));  // a LocalQueue holds no quota
    CHECK_FALSE(r.metrics.get("borrowed_gpu_hours@lq-a"));
    CHECK(metric(r, "borrowed_gpu_hours") == 0);
    CHECK_FALSE(r.metrics.get("jobs@shared"));
    CHECK(metric(r, "jobs@ml/shared") == 0);  // a LocalQueue named as a ClusterQueue is told apart by its namespace
  }
  SECTION("off: first come, first served, and the ClusterQueue is the tenant") {
    const Scenario s = shared_scenario(false);
    const RunResult r = run(s, "topology-aware");
    CHECK(record(r, s, "a2").start_ms == 1'000'000);
    CHECK(record(r, s, "b1").start_ms == 2'000'000);
    CHECK(metric(r, "jobs@shared") == 3);
    CHECK(metric(r, "nominal_gpus@shared") == 8);
  }
}

TEST_CASE("kueue::admission fair sharing: a live LocalQueue's consumedResources is the usage the replay starts from",
          "[sim][kueue]") {
  SECTION("lq-a used 8 cores: b1 goes before the older a1, and lq-a's usage decays from 8") {
    Shared s(true, 10 * kMinuteMs, 1, {{"cpu", 8}});
    CHECK(s.k.admission->local_queue_usage(0) == 8);
    s.enqueue(1, 0, 0);
    s.enqueue(2, 1, 1);
    CHECK(s.run(0) == std::vector<uint32_t>{2});
    s.k.admission->finish(2, 10 * kMinuteMs);
    CHECK(s.run(10 * kMinuteMs) == std::vector<uint32_t>{1});
    // Two ticks holding nothing keep 0.5^(10 / 10) of 8; then a1's entry penalty.
    CHECK(s.k.admission->local_queue_usage(0) == Approx(8 * 0.5 + 4 * kPenaltyShare));
  }
  SECTION("the usage counts at the resources' weights: 8 cores at 0.25 and 2 GPUs at 3 are 8") {
    Shared s(true, 10 * kMinuteMs, 1, {{"cpu", 8}, {"nvidia.com/gpu", 2}}, {{"cpu", 0.25}, {"nvidia.com/gpu", 3}});
    CHECK(s.k.admission->local_queue_usage(0) == 8);
  }
  SECTION("a ClusterQueue that does not opt in keeps its order: the older a1") {
    Shared s(false, 10 * kMinuteMs, 1, {{"cpu", 8}});
    s.enqueue(1, 0, 0);
    s.enqueue(2, 1, 1);
    CHECK(s.run(0) == std::vector<uint32_t>{1});
  }
}
