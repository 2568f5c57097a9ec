// KAI-Scheduler's admission: the published cases of NVIDIA/KAI-Scheduler 72de64fc at the quota
// level — pkg/scheduler/actions/reclaim/reclaim_test.go (TestHandleReclaim), reclaimGang_test.go
// and actions/preempt/preempt_test.go, case names quoted — and rules worked by hand. KAI's tests
// run one action on nodes; here a cycle runs Allocate, Reclaim and Preempt on the cluster's GPU
// count. A job KAI leaves Pipelined onto a victim's GPUs is admitted here in the same cycle.
#include <algorithm>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include "tests/sim/tenancy/kai_fixture.h"

using namespace topsim;
using namespace topsim::test;
using Ids = std::vector<uint32_t>;
using Cycle = KaiFixture::Cycle;

namespace {

// reclaim_test.go's fair-share cases: queue0 (deserved 2, weight 1) runs one train job of
// `running` GPUs, queue1 (deserved 2, weight 2) has one of `pending` GPUs waiting.
KaiFixture weighted(double cluster_gpus, double running, double pending) {
  KaiFixture f;
  f.queue("queue0", 2, 1).queue("queue1", 2, 2).build(cluster_gpus);
  f.running(1, "queue0", kTrain, running);
  f.pending(2, "queue1", kTrain, pending);
  return f;
}

}  // namespace

// reclaim_test.go: queue0 and queue1 (deserved 1, weight 1) under department d1 (deserved 1),
// reclaimer_queue (deserved 2, weight 0); 6 GPUs; each of queue0 and queue1 runs three 1-GPU
// jobs, priorities 50, 50, 49; the reclaimer asks 2 tasks of 1 GPU (one gang).
TEST_CASE("kai::admission \"Reclaim jobs according to queue fair share\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.department("d1", 1).queue("queue0", 1, 1, -1, "d1").queue("queue1", 1, 1, -1, "d1");
  f.queue("reclaimer_queue", 2, 0, -1, "d1").build(6);
  f.running(1, "queue0", kTrain, 1), f.running(2, "queue0", kTrain, 1), f.running(3, "queue0", kTrain - 1, 1);
  f.running(4, "queue1", kTrain, 1), f.running(5, "queue1", kTrain, 1), f.running(6, "queue1", kTrain - 1, 1);
  f.pending(7, "reclaimer_queue", kTrain, 2);
  // Fair shares 2/2/2: each of queue0 and queue1 gives up its priority-49 job.
  CHECK(f.cycles(1) == Cycle{{7}, {3, 6}});
  // Both for job 7, by the reclaim action.
  std::sort(f.preemptions.begin(), f.preemptions.end(), [](const auto& a, const auto& b) { return a.victim < b.victim; });
  CHECK(f.preemptions == std::vector<Preemption>{{0, 3, 7, PreemptionReason::Reclaim}, {0, 6, 7, PreemptionReason::Reclaim}});
  CHECK(f.fair_share("queue0") == 2000);
  CHECK(f.fair_share("reclaimer_queue") == 2000);
}

// Two nodes of 16 GPUs; queue0's gang runs 10 GPUs on each. The 12 free GPUs are 6 on each node,
// where the 10-GPU job of queue1 fits on neither: at the quota level the usable cluster is the 20
// GPUs the gang holds.
TEST_CASE("kai::admission \"queue1 is under deserved quota, queue0 is over deserved quota and will go below quota - reclaim\"",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 10, 1).queue("queue1", 10, 1).build(20);
  f.running(1, "queue0", kTrain, 20);  // 2 tasks x 10 GPUs: one chunk
  f.pending(2, "queue1", kTrain, 10);
  CHECK(f.cycles(1) == Cycle{{2}, {1}});
}

TEST_CASE("kai::admission \"queue0 is under fair share, queue1 is over fair share - reclaim\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1, 3).queue("queue1", 2, 1).build(4);
  f.running(1, "queue0", kTrain, 1), f.running(2, "queue0", kTrain, 0.5);
  f.running(3, "queue1", kTrain, 2), f.running(4, "queue1", kTrain, 0.5);
  f.pending(5, "queue0", kTrain, 0.5);
  // Fair shares 2 and 2 (the remainder GPU goes to the larger fraction, queue0's): queue1's
  // newest job, its half GPU, is the first victim and enough.
  CHECK(f.cycles(1) == Cycle{{5}, {4}});
  CHECK(f.fair_share("queue0") == 2000);
  CHECK(f.fair_share("queue1") == 2000);
}

TEST_CASE("kai::admission \"2 jobs from queue0 running on node0 - 2 pending jobs from queue1 - reclaim\"",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1, 1).queue("queue1", 1, 1).build(2);
  f.running(1, "queue0", kTrain, 1), f.running(2, "queue0", kTrain, 1);
  f.pending(3, "queue1", kTrain, 1), f.pending(4, "queue1", kTrain, 1);
  // One job each way: the second would take queue1 above its fair share 1.
  CHECK(f.cycles(1) == Cycle{{3}, {2}});
  CHECK(f.admission->wait_reason(4).find("would exceed its fair share 1") != std::string::npos);
}

TEST_CASE("kai::admission \"1 job from queue0 and 1 job from queue1 running on node0 - don't reclaim\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1, 1).queue("queue1", 1, 1).build(2);
  f.running(1, "queue0", kTrain, 1), f.running(2, "queue1", kTrain, 1);
  f.pending(3, "queue0", kTrain, 1), f.pending(4, "queue1", kTrain, 1);
  CHECK(f.cycles() == Cycle{});
  CHECK(f.admission->waiting() == 2);
}

TEST_CASE("kai::admission \"2 jobs from queue0 running on node0 (1 train, 1 build)- 2 pending jobs from queue1 - reclaim train\"",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1, 1).queue("queue1", 1, 1).build(2);
  f.running(1, "queue0", kTrain, 1), f.running(2, "queue0", kBuild, 1);
  f.pending(3, "queue1", kTrain, 1), f.pending(4, "queue1", kTrain, 1);
  // The build job is not preemptible, though the newer.
  CHECK(f.cycles(1) == Cycle{{3}, {1}});
}

TEST_CASE(
    "kai::admission \"Queues are over provisioned, ratio between queues are equal, yet don't reclaim since number of used GPUs "
    "is equal to the deserved GPUs\"",
    "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 2, 2).queue("queue1", 2, 2).build(2);
  f.running(1, "queue0", kTrain, 1), f.running(2, "queue0", kTrain, 1);
  f.pending(3, "queue1", kTrain, 1), f.pending(4, "queue1", kTrain, 1);
  CHECK(f.cycles() == Cycle{});
  CHECK(f.admission->wait_reason(3).find("strategies") != std::string::npos);
}

TEST_CASE(
    "kai::admission \"1 train job of 2 GPUs from queue0 running on node0 with deserved of 1, 2 pending jobs (1 build) from "
    "queue1 - reclaim\"",
    "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1).queue("queue1", 1).build(2);
  f.running(1, "queue0", kTrain, 2);
  f.pending(2, "queue1", kTrain, 1), f.pending(3, "queue1", kBuild, 1);
  // The build job goes first (higher priority); the train job would exceed the fair share 1.
  CHECK(f.cycles(1) == Cycle{{3}, {1}});
  CHECK(f.admission->waiting() == 1);
  // The next cycle's Allocate gives it the GPU the 2-GPU victim left free.
  CHECK(f.cycles(1) == Cycle{{2}, {}});
}

TEST_CASE("kai::admission \"reclaim from job that allocated more resources than its' fairShare (no remaining)\"",
          "[sim][kai][tenancy]") {
  KaiFixture f = weighted(10, 8, 6);
  CHECK(f.cycles(1) == Cycle{{2}, {1}});
  CHECK(f.fair_share("queue0") == 4000);
  CHECK(f.fair_share("queue1") == 6000);
}

TEST_CASE("kai::admission \"don't reclaim from job that allocated resources within its' fairShare\"", "[sim][kai][tenancy]") {
  KaiFixture f = weighted(10, 4, 7);
  CHECK(f.cycles() == Cycle{});
  CHECK(f.fair_share("queue1") == 6000);
}

TEST_CASE(
    "kai::admission \"reclaim from job that allocated more resources than its' fairShare (remaining was given to queue with "
    "lower over quota weight)\"",
    "[sim][kai][tenancy]") {
  KaiFixture f = weighted(12, 10, 7);
  CHECK(f.cycles(1) == Cycle{{2}, {1}});
  CHECK(f.fair_share("queue0") == 5000);
  CHECK(f.fair_share("queue1") == 7000);
}

TEST_CASE("kai::admission \"Attempt to reclaim from an inference workload\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1).queue("queue1", 1).build(2);
  f.running(1, "queue0", kInference, 1), f.running(2, "queue0", kInference, 1);
  f.pending(3, "queue1", kInference, 1);
  CHECK(f.cycles() == Cycle{});
}

// reclaimGang_test.go
TEST_CASE("kai::admission \"dont reclaim if will go over quota\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 0).queue("queue1", 2, 2).build(10);
  f.running(1, "queue0", kTrain, 10);
  f.pending(2, "queue1", kBuild, 4);  // 2 tasks x 2 GPUs, non-preemptible
  CHECK(f.cycles() == Cycle{});
  CHECK(f.admission->wait_reason(2).find("non-preemptible job over the quota of KAI queue queue1") != std::string::npos);
  CHECK(f.admission->never_admitted(f.admission->queue("queue1"), 4000, kBuild) ==
        "a non-preemptible job asking 4 GPUs, above the deserved quota 2 of KAI queue queue1");
}

TEST_CASE("kai::admission \"reclaim mpi job\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 0).queue("queue1", 2).build(2);
  f.running(1, "queue0", kTrain, 2);  // 2 tasks x 1 GPU: both go
  f.pending(2, "queue1", kBuild, 2);
  CHECK(f.cycles(1) == Cycle{{2}, {1}});
}

// preempt_test.go: one queue of deserved 1 on one GPU unless said otherwise.
TEST_CASE("kai::admission \"1 train job running, 1 build job pending for the same queue - preempt\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1).build(1);
  f.running(1, "queue0", kTrain, 1);
  f.pending(2, "queue0", kBuild, 1);
  CHECK(f.cycles(1) == Cycle{{2}, {1}});
  CHECK(f.preemptions == std::vector<Preemption>{{0, 1, 2, PreemptionReason::Preempt}});
}

TEST_CASE("kai::admission \"1 train job running, 1 train job pending for the same queue - don't preempt\"",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1).build(1);
  f.running(1, "queue0", kTrain, 1);
  f.pending(2, "queue0", kTrain, 1);
  CHECK(f.cycles() == Cycle{});
  CHECK(f.admission->wait_reason(2).find("preempt: 0 GPUs free") != std::string::npos);
}

TEST_CASE("kai::admission \"1 train job running, 1 build job pending for the different queue - don't preempt\"",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1).queue("queue1", 1).build(1);
  f.running(1, "queue0", kTrain, 1);
  f.pending(2, "queue1", kBuild, 1);
  // Preempt stays in the queue; Reclaim finds queue0 within its deserved 1.
  CHECK(f.cycles() == Cycle{});
}

// Node level: the two half-GPU jobs share GPU 0 and the 1-GPU job holds GPU 1; evicting a half
// frees no whole GPU. At the quota level the newest half goes first (0.5 free), then the 1-GPU
// job (1.5 free); the half is put back as the GPU it would free is not needed: the same outcome.
TEST_CASE("kai::admission \"3 train job running, 1 build job pending for the same queue - no need to preempt both\"",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 2).build(2);
  f.running(1, "queue0", kTrain, 0.5), f.running(2, "queue0", kTrain, 1), f.running(3, "queue0", kTrain, 0.5);
  f.pending(4, "queue0", kBuild, 1);
  CHECK(f.cycles(1) == Cycle{{4}, {2}});
  CHECK(f.milli("queue0") == 2000);
}

TEST_CASE("kai::admission \"Inference shouldn't preempt interactive\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1).build(1);
  f.running(1, "queue0", kBuild, 1);
  f.pending(2, "queue0", kInference, 1);
  CHECK(f.cycles() == Cycle{});
}

TEST_CASE("kai::admission \"Inference should preempt train\"", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 1).build(1);
  f.running(1, "queue0", kTrain, 1);
  f.pending(2, "queue0", kInference, 1);
  CHECK(f.cycles(1) == Cycle{{2}, {1}});
}

// minruntime plugin (NVIDIA/KAI-Scheduler 07981a98 plugins/minruntime): a victim that has run less
// than its min runtime since it was admitted is no candidate; the queues run again when the
// protection ends. Worked by hand.
namespace {

// At `now_ms` job 2 waits: job 1, its only possible victim, is protected by `field` until
// `until_ms`, and the reason says so. Nothing changes a millisecond before; at that instant the
// run takes job 1 for job 2 with nothing else having happened.
void kept_until(KaiFixture& f, int64_t now_ms, const std::string& field, int64_t until_ms) {
  f.now_ms = now_ms;
  CHECK(f.cycles() == Cycle{});
  CHECK_THAT(f.admission->wait_reason(2), Catch::Contains("; 1 job it could take has run less than its " + field));
  CHECK(f.admission->wakeup_ms() == until_ms);
  f.now_ms = until_ms - 1;
  CHECK(f.cycles() == Cycle{});
  f.now_ms = until_ms;
  CHECK(f.cycles() == Cycle{{2}, {1}});
  CHECK(f.admission->wakeup_ms() == std::numeric_limits<int64_t>::max());
}

}  // namespace

TEST_CASE("kai::admission min runtime: a reclaim waits until the victim has run its reclaimMinRuntime", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 4, 1).queue("queue1", 4, 1);
  f.config.kai_queues.back().reclaim_min_runtime_ms = 600'000;  // queue1's jobs: 10 min
  f.build(8);
  f.running(1, "queue1", kTrain, 8);  // admitted at 0, 4 GPUs above its share
  f.pending(2, "queue0", kTrain, 4);
  kept_until(f, 300'000, "reclaimMinRuntime", 600'000);
}

TEST_CASE("kai::admission min runtime: preemptMinRuntime comes from the nearest queue that sets it", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.department("d1", 2).queue("queue0", 2, 1, -1, "d1");
  f.config.kai_queues.front().preempt_min_runtime_ms = 3'600'000;  // d1: 1 h, queue0 inherits it
  f.build(2);
  f.running(1, "queue0", kTrain, 2);
  f.pending(2, "queue0", kBuild, 2);
  kept_until(f, 1'800'000, "preemptMinRuntime", 3'600'000);
  SECTION("the leaf's own setting wins over its department's") {
    KaiFixture g;
    g.department("d1", 2).queue("queue0", 2, 1, -1, "d1");
    g.config.kai_queues.front().preempt_min_runtime_ms = 3'600'000;
    g.config.kai_queues.back().preempt_min_runtime_ms = 0;
    g.build(2);
    g.running(1, "queue0", kTrain, 2);
    g.pending(2, "queue0", kBuild, 2);
    g.now_ms = 1;
    CHECK(g.cycles() == Cycle{{2}, {1}});
  }
}

// resolver.go resolveReclaimMinRuntimeLCA: d1 (20 min) holds a1 and a2 (a2: 5 min), d2 holds b.
// The victim runs in a2. From b (another top-level queue) the victim's top-level queue counts,
// 20 min; from a1 (same department) the child of the common ancestor on the victim's side, a2,
// 5 min. The reclaimer's own queue never counts.
TEST_CASE("kai::admission min runtime: which queue's reclaimMinRuntime protects a victim", "[sim][kai][tenancy]") {
  auto protection_end = [](const std::string& reclaimer) {
    KaiFixture f;
    f.department("d1", 2).queue("a1", 1, 1, -1, "d1").queue("a2", 1, 1, -1, "d1");
    f.department("d2", 2).queue("b", 2, 1, -1, "d2");
    for (KaiQueueSpec& q : f.config.kai_queues) {
      if (q.name == "d1") q.reclaim_min_runtime_ms = 1'200'000;
      if (q.name == "a2") q.reclaim_min_runtime_ms = 300'000;
      if (q.name == "a1" || q.name == "b") q.reclaim_min_runtime_ms = 7'200'000;
    }
    f.build(4);
    f.running(1, "a2", kTrain, 4);  // all 4 GPUs: above a2's, and d1's, fair share
    f.pending(2, reclaimer, kTrain, 1);
    f.now_ms = 1;
    const Cycle none = f.cycles();
    CHECK(none == Cycle{});
    return f.admission->wakeup_ms();
  };
  CHECK(protection_end("b") == 1'200'000);
  CHECK(protection_end("a1") == 300'000);
}
