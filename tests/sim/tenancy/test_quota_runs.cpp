// Runs with quota (sim/tenancy/ in the engine): admission before placement, borrowing, a reclaim
// that preempts a borrower, the work a preempted job keeps from its checkpoints, and the
// per-tenant figures. Worked by hand on one DGX-1 (8 GPUs).
#include <array>
#include <fstream>
#include <map>

#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

constexpr const char* kOneDgx1 = R"([{"model": "dgx1-v100", "count": 1}])";

std::string job(const std::string& name, double submit_s, int gpus, double duration_s) {
  return "{\"name\": \"" + name + "\", \"submit_s\": " + std::to_string(submit_s) +
         ", \"workers\": 1, \"gpus_per_worker\": " + std::to_string(gpus) +
         ", \"model\": \"resnet50\", \"duration_s\": " + std::to_string(duration_s) + "}";
}

// Cohort `lab`: ClusterQueues a and b with 4 GPUs each; a reclaims from any borrower.
TenancySpec lab() {
  TenancySpec spec;
  QueueConfig& q = spec.queues;
  q.source = "test-queues";
  q.flavors.push_back({"default", "test", {}});
  for (const char* name : {"a", "b"}) {
    ClusterQueueSpec cq;
    cq.name = name;
    cq.where = "test";
    cq.cohort = "lab";
    cq.groups.push_back({{kResourceGpu}, {{"default", {{kResourceGpu, 4, {}, {}}}}}});
    if (cq.name == "a") cq.reclaim = ReclaimPreemption::Any;
    q.cluster_queues.push_back(cq);
    q.local_queues.push_back({std::string(name) + "-lq", "test", "default", name});
  }
  return spec;
}

// The scenario's jobs in cohort `lab`: those named a... in queue a, the others in b.
void in_lab(Scenario& s) {
  Workload w = *s.workload;
  w.queue_names = {"b-lq", "a-lq"};
  for (JobSpec& j : w.jobs) j.queue = w.job_name(j.id)[0] == 'a' ? 1 : 0;
  s.workload = std::make_shared<const Workload>(std::move(w));
  s.tenancy = std::make_shared<const TenancySpec>(lab());
}

// b1, b2 (b: 4 GPUs each, 1000 s) at 0, b2 borrowing a's idle quota; a1 (a, 4 GPUs, 1000 s) at 100 s.
Scenario reclaim_scenario(int64_t checkpoint_every_s, int64_t overhead_s) {
  Scenario s = scenario_from(
      scenario_json(kOneDgx1, "[" + job("b1", 0, 4, 1000) + "," + job("b2", 0, 4, 1000) + "," + job("a1", 100, 4, 1000) + "]"));
  in_lab(s);
  s.checkpoint = {checkpoint_every_s * 1000, 0, overhead_s * 1000};
  return s;
}

}  // namespace

TEST_CASE("sim::quota a lender's job reclaims its quota: the borrower is preempted and keeps its checkpoint", "[sim][kueue]") {
  const Scenario s = reclaim_scenario(60, 30);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& b1 = record(r, s, "b1");
  const JobRecord& b2 = record(r, s, "b2");
  const JobRecord& a1 = record(r, s, "a1");
  CHECK(b1.evictions == 0);
  CHECK(b1.finish_ms == 1'000'000);
  // b2 borrowed a's 4 GPUs; a1 at 100 s reclaims them at once.
  CHECK(b2.evictions == 1);
  CHECK(a1.start_ms == 100'000);
  CHECK(a1.admitted_ms == 100'000);
  // 100 s run, checkpoint at 60 s: 40 s of 4 GPUs lost; b2 is admitted again inside b's quota
  // when b1 ends at 1000 s and runs the 30 s overhead plus the 940 s left. The eviction cost it
  // both: 40 s to redo and the 30 s restart, of 4 GPUs.
  CHECK(b2.lost_gpu_ms == 280'000);
  CHECK(b2.start_ms == 0);
  CHECK(b2.finish_ms == 1'000'000 + 30'000 + 940'000);
  CHECK(b2.state == JobState::Finished);
  CHECK(metric(r, "evictions") == 1);
  // The one eviction, logged with its preemptor, Kueue's reason and the two tenants.
  auto id = [&](const char* name) {
    for (const JobSpec& j : s.workload->jobs)
      if (s.workload->job_name(j.id) == name) return j.id;
    FAIL("no job " << name);
    return uint32_t{0};
  };
  // Tenants in the run's order (a, b): b's job evicted for a's, losing 40 s + 30 s of 4 GPUs.
  CHECK(r.preemptions ==
        std::vector<Preemption>{{100'000, id("b2"), id("a1"), PreemptionReason::InCohortReclamation, 1, 0, 280'000}});
  CHECK(metric(r, "evictions@b") == 1);
  CHECK(metric(r, "evictions@a") == 0);
  CHECK(metric(r, "preempted_gpu_hours@b") == Approx(280.0 / 3600));
  // b held 4 GPUs above its nominal 4 for 100 s.
  CHECK(metric(r, "borrowed_gpu_hours@b") == Approx(400.0 / 3600));
  CHECK(metric(r, "borrowed_gpu_hours@a") == 0);
  CHECK(metric(r, "nominal_gpus@a") == 4);
  // b's GPU time: b1 4000 GPU-s, b2 400 + 4 x 970 GPU-s.
  CHECK(metric(r, "gpu_hours@b") == Approx((4000.0 + 400 + 3880) / 3600));
  CHECK(metric(r, "finished@b") == 2);
  CHECK(metric(r, "wait_s.max@a") == 0);
  // Samples over time hold each tenant's GPUs (tenants in the run's order: a, b).
  CHECK(tenant_names(r) == std::vector<std::string>{"a", "b"});
  REQUIRE(!r.samples.empty());
  double most_b = 0;
  for (const ClusterSample& x : r.samples) {
    REQUIRE(x.tenant_gpus.size() == 2);
    CHECK(x.tenant_gpus[0] + x.tenant_gpus[1] <= 8);
    most_b = std::max(most_b, x.tenant_gpus[1]);
  }
  CHECK(most_b >= 4);
}

TEST_CASE("sim::quota without checkpoints a preempted job starts again from nothing", "[sim][kueue]") {
  const Scenario s = reclaim_scenario(0, 0);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& b2 = record(r, s, "b2");
  CHECK(b2.lost_gpu_ms == 400'000);
  CHECK(b2.finish_ms == 2'000'000);
}

TEST_CASE("sim::quota jobs wait for quota even when GPUs are free, a job no queue can take is rejected", "[sim][kueue]") {
  Scenario s = scenario_from(
      scenario_json(kOneDgx1, "[" + job("x1", 0, 4, 100) + "," + job("x2", 0, 2, 100) + "," + job("x3", 0, 8, 100) + "]"));
  Workload w = *s.workload;
  w.queue_names = {"x"};
  for (JobSpec& j : w.jobs) j.queue = 0;
  s.workload = std::make_shared<const Workload>(std::move(w));
  TenancySpec spec = lab();
  spec.queues.cluster_queues[1].cohort = "";  // b alone: 4 GPUs, nothing to borrow
  spec.queue_of = {{"x", "b"}};
  s.tenancy = std::make_shared<const TenancySpec>(spec);
  const RunResult r = run(s, "topology-aware");
  CHECK(record(r, s, "x1").start_ms == 0);
  CHECK(record(r, s, "x2").start_ms == 100'000);  // 6 GPUs free, but b's quota is 4
  CHECK(record(r, s, "x3").state == JobState::Pending);
  CHECK_THAT(record(r, s, "x3").reason, Catch::Contains("never admitted: insufficient quota for nvidia.com/gpu"));
  CHECK_THAT(record(r, s, "x3").reason, Catch::Contains("4 at most ever"));
}

TEST_CASE("sim::quota preemption cost arithmetic", "[sim][kueue]") {
  const CheckpointPolicy every_minute{60'000, 0, 30'000};
  // A run from 0 with 30 s overhead, due at 1030 s, preempted at 250 s: 220 s trained, 180 s saved.
  StoppedRun c = stop_run(0, 0, 1'030'000, 30'000, 250'000, every_minute);
  CHECK(c.done == Approx(0.18));
  CHECK(c.lost_ms() == 70'000);
  // Preempted during the overhead: nothing saved, all lost.
  c = stop_run(0.5, 0, 530'000, 30'000, 20'000, every_minute);
  CHECK(c.done == Approx(0.5));
  CHECK(c.lost_ms() == 20'000);
  CHECK(remaining_run_ms(0.18, 1'000'000, 30'000, every_minute) == 30'000 + 820'000);
}

TEST_CASE("sim::quota every eviction's GPU time adds up to its job's and its tenant's", "[sim][kueue]") {
  // b fills the node with four 2-GPU jobs of 2000 s, two on a's idle quota; a's 2-GPU jobs of
  // 180 s arrive every 200 s and reclaim, so b's borrowers are evicted again and again: one is
  // admitted again when an a job ends and evicted 20 s into its 30 s restart by the next
  // (checkpoints every 60 s).
  std::string jobs = "[";
  for (int i = 0; i < 4; ++i) jobs += job("b" + std::to_string(i), 0, 2, 2000) + ",";
  for (int i = 0; i < 12; ++i) jobs += job("a" + std::to_string(i), 95 + 200 * i, 2, 180) + (i < 11 ? "," : "]");
  Scenario s = scenario_from(scenario_json(kOneDgx1, jobs));
  in_lab(s);
  s.checkpoint = {60'000, 0, 30'000};
  const RunResult r = run(s, "topology-aware");
  REQUIRE(r.preemptions.size() >= 6);
  std::map<uint32_t, int64_t> lost_by_job;
  std::map<uint32_t, int> evictions_by_job;
  std::array<int64_t, 2> lost_by_tenant{};  // the run's tenants: a, b
  for (const Preemption& p : r.preemptions) {
    CHECK(p.lost_gpu_ms >= 0);
    lost_by_job[p.victim] += p.lost_gpu_ms;
    ++evictions_by_job[p.victim];
    REQUIRE((p.tenant == 0 || p.tenant == 1));
    lost_by_tenant[static_cast<size_t>(p.tenant)] += p.lost_gpu_ms;
  }
  bool again = false;                                // some job evicted more than once
  for (uint32_t id = 0; id < r.jobs.size(); ++id) {  // jobs by id
    const JobRecord& rec = r.jobs[id];
    CHECK(lost_by_job[id] == rec.lost_gpu_ms);
    CHECK(evictions_by_job[id] == rec.evictions);
    again = again || rec.evictions >= 2;
    // Its restarts count what they spent: a run stopped 20 s into its restart, 20 s. Every restart
    // it spent was caused by an eviction, and every eviction's cost is the training redone and the
    // restart it caused, so they add up to all it redid and restarted (2 GPUs).
    CHECK(rec.lost_gpu_ms == 2 * (rec.recompute_ms + rec.restart_ms));
    if (rec.evictions == 0) CHECK(rec.restart_ms == 0);
  }
  CHECK(again);
  CHECK(lost_by_tenant[1] > 0);
  CHECK(static_cast<double>(lost_by_tenant[1]) / 3.6e6 == Approx(metric(r, "preempted_gpu_hours@b")));
  CHECK(static_cast<double>(lost_by_tenant[0]) / 3.6e6 == Approx(metric(r, "preempted_gpu_hours@a")).margin(1e-12));
}

TEST_CASE("sim::quota a restart is charged once, to the stop that caused it: a failure's, then an eviction's",
          "[sim][kueue][failures]") {
  // b1, b2 (b: 4 GPUs each, 1000 s) at 0, b2 borrowing a's idle quota; checkpoints every 60 s,
  // 30 s restarts. The node fails at 130 s for 100 s: each loses the 10 s since its checkpoint at
  // 120 s. Both restart at 230 s; a1 (a, 4 GPUs, 100 s) arrives at 240 s and reclaims one of them
  // (the two are alike) 10 s into its restart; that one is admitted again when a1 ends at 340 s
  // and restarts again.
  TempDir dir;
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,130,100,gpu\n";
  const std::string extra =
      R"(, "checkpoints": {"every_s": 60, "restart_s": 30}, "failures": {"rates": "none", "trace": "incidents.csv"})";
  Scenario s = scenario_from(
      scenario_json(kOneDgx1, "[" + job("b1", 0, 4, 1000) + "," + job("b2", 0, 4, 1000) + "," + job("a1", 240, 4, 100) + "]",
                    extra),
      dir.path.string());
  in_lab(s);
  const RunResult r = run(s, "topology-aware");
  REQUIRE(r.preemptions.size() == 1);
  const Preemption& p = r.preemptions.front();
  CHECK(p.at_ms == 240'000);
  const JobRecord& victim = r.jobs[p.victim];
  const JobRecord& other = r.jobs[p.victim == job_id(s, "b1") ? job_id(s, "b2") : job_id(s, "b1")];
  CHECK(victim.interruptions == 1);
  CHECK(victim.evictions == 1);
  // Its restarts: 10 s of the failure's, cut short, and the eviction's 30 s from 340 s.
  CHECK(victim.restart_ms == 40'000);
  CHECK(victim.recompute_ms == 10'000);
  CHECK(victim.finish_ms == 340'000 + 30'000 + 880'000);
  // The eviction cost it the restart it caused (nothing to redo: it had not trained since 120 s).
  CHECK(p.lost_gpu_ms == 30'000 * 4);
  CHECK(victim.lost_gpu_ms == 30'000 * 4);
  CHECK(other.restart_ms == 30'000);
  // The failure cost each 10 s to redo, and the restarts it caused as spent: the other's 30 s and
  // the victim's 10 s. Counted at the failure whole (2 x 30 s), the victim's 10 s would count
  // twice, once in each figure.
  CHECK(metric(r, "failure_lost_gpu_hours") == Approx((10.0 + 30 + 10 + 10) * 4 / 3600));
  CHECK(metric(r, "preempted_gpu_hours") == Approx(30.0 * 4 / 3600));
  // Together: all the GPU time redone and restarting.
  const double redone_and_restarting =
      4.0 * static_cast<double>(victim.recompute_ms + victim.restart_ms + other.recompute_ms + other.restart_ms);
  CHECK(metric(r, "failure_lost_gpu_hours") + metric(r, "preempted_gpu_hours") == Approx(redone_and_restarting / 3.6e6));
}
