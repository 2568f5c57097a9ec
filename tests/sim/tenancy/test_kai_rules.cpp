// KAI-Scheduler's admission: rules worked by hand (limits, deserved quota before over-quota
// weight, non-preemptible jobs within quota, departments, fractions, GPU time above deserved, and
// that a steady state evicts nothing).
#include <catch2/catch.hpp>

#include "tests/sim/tenancy/kai_fixture.h"

using namespace topsim;
using namespace topsim::test;
using Cycle = KaiFixture::Cycle;

TEST_CASE("kai::admission a queue's limit holds, on the queue and on its department", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.department("research", 4, 5).queue("vision", 2, 1, 3, "research").queue("speech", 2, 1, -1, "research").build(8);
  for (uint32_t id = 1; id <= 5; ++id) f.pending(id, "vision", kTrain, 1);
  for (uint32_t id = 6; id <= 10; ++id) f.pending(id, "speech", kTrain, 1);
  f.cycles();
  // vision stops at its limit 3, the department at its limit 5, with 3 GPUs still free.
  CHECK(f.milli("vision") == 3000);
  CHECK(f.milli("research") == 5000);
  CHECK(f.admission->wait_reason(4).find("over the GPU limit of KAI queue vision: it holds 3 of 3") != std::string::npos);
  CHECK(f.admission->wait_reason(10).find("over the GPU limit of KAI queue research") != std::string::npos);
  CHECK(f.admission->never_admitted(f.admission->queue("vision"), 3500) ==
        "it asks 3.5 GPUs, above the GPU limit 3 of KAI queue vision");
}

TEST_CASE("kai::admission deserved quota first, then over quota by weight", "[sim][kai][tenancy]") {
  SECTION("deserved first: a queue of weight 10 does not take another's deserved GPUs") {
    KaiFixture f;
    f.queue("a", 3, 0).queue("b", 1, 10).build(4);
    for (uint32_t id = 1; id <= 4; ++id) f.pending(id, "b", kTrain, 1);  // b's jobs are older
    for (uint32_t id = 5; id <= 8; ++id) f.pending(id, "a", kTrain, 1);
    f.cycles();
    CHECK(f.milli("a") == 3000);
    CHECK(f.milli("b") == 1000);
  }
  SECTION("over quota 1 : 3 of the 8 GPUs beyond deserved") {
    KaiFixture f;
    f.queue("a", 1, 1).queue("b", 1, 3).build(10);
    for (uint32_t id = 1; id <= 10; ++id) f.pending(id, "a", kTrain, 1), f.pending(100 + id, "b", kTrain, 1);
    f.cycles();
    CHECK(f.fair_share("a") == 3000);
    CHECK(f.milli("a") == 3000);
    CHECK(f.milli("b") == 7000);
  }
  SECTION("a higher-priority queue takes the over-quota GPUs first") {
    KaiFixture f;
    f.queue("low", 1, 1).queue("high", 1, 1, -1, "default", 200).build(6);
    for (uint32_t id = 1; id <= 6; ++id) f.pending(id, "low", kTrain, 1), f.pending(100 + id, "high", kTrain, 1);
    f.cycles();
    CHECK(f.milli("high") == 5000);
    CHECK(f.milli("low") == 1000);
  }
}

TEST_CASE("kai::admission a non-preemptible job uses only in-quota GPUs", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("team", 2, 1).build(8);
  for (uint32_t id = 1; id <= 4; ++id) f.pending(id, "team", kBuild, 1);
  for (uint32_t id = 5; id <= 8; ++id) f.pending(id, "team", kTrain, 1);
  CHECK(f.cycles() == Cycle{{1, 2, 5, 6, 7, 8}, {}});
  CHECK(f.admission->wait_reason(3) ==
        "a non-preemptible job over the quota of KAI queue team: non-preemptible jobs hold 2 of its deserved 2, the job asks 1");
}

TEST_CASE("kai::admission fractions of a GPU are exact", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("team", 1, 1).build(1);
  f.pending(1, "team", kTrain, 0.3), f.pending(2, "team", kTrain, 0.7), f.pending(3, "team", kTrain, 0.001);
  CHECK(f.cycles() == Cycle{{1, 2}, {}});
  CHECK(f.admission->wait_reason(3) ==
        "not enough free GPUs: 0 of 1 free, it asks 0.001; reclaim: KAI queue team would exceed its "
        "fair share 1 with it; preempt: 0 GPUs free, and its queue's preemptible jobs of lower "
        "priority leave too little (it asks 0.001)");
}

TEST_CASE("kai::admission GPUs one victim freed beyond its preemptor's need wait for the next Allocate", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("team", 2, 1).build(2);
  f.running(1, "team", kTrain, 2);
  f.pending(2, "team", kInference, 1), f.pending(3, "team", kInference, 1);
  // Preempt evicts job 1 (2 GPUs) for job 2 (1 GPU); the GPU left over is not Preempt's to give.
  CHECK(f.cycles(1) == Cycle{{2}, {1}});
  CHECK(f.admission->wait_reason(3) ==
        "not enough free GPUs: 0 of 2 free, it asks 1; reclaim: KAI queue team would exceed its fair share 2 with it; "
        "GPUs were freed in this cycle: the next Allocate");
  CHECK(f.cycles(1) == Cycle{{3}, {}});
}

TEST_CASE("kai::admission jobs a queue can never admit", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.department("research", 4).queue("vision", 2, 1, -1, "research").queue("closed", 0, 0, 0, "research").build(8);
  CHECK(f.admission->never_admitted(f.admission->queue("research"), 1000) ==
        "KAI queue research is a parent queue: only leaf queues take jobs");
  CHECK(f.admission->never_admitted(f.admission->queue("vision"), 9000) == "it asks 9 GPUs, the cluster has 8");
  CHECK(f.admission->never_admitted(f.admission->queue("closed"), 1) ==
        "it asks 0.001 GPUs, above the GPU limit 0 of KAI queue closed");
  CHECK(f.admission->never_admitted(f.admission->queue("vision"), 8000).empty());
  CHECK(f.admission->queue("nope") == -1);
}

TEST_CASE("kai::admission reclaims across departments at the department level", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.department("a", 4).department("b", 4).queue("a1", 4, 1, -1, "a").queue("b1", 0, 1, -1, "b").build(8);
  for (uint32_t id = 1; id <= 8; ++id) f.running(id, "b1", kTrain, 1);
  f.pending(9, "a1", kTrain, 3);
  // b1 has no deserved quota of its own, but department b holds 8 of its fair share 5: the three
  // newest of b1's jobs go.
  CHECK(f.cycles(1) == Cycle{{9}, {6, 7, 8}});
  CHECK(f.fair_share("a") == 3000);
}

TEST_CASE("kai::admission GPU time above deserved quota", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("team", 1, 1).build(4);
  f.running(1, "team", kTrain, 3);
  f.running(2, "team", kTrain, 0.5);
  f.admission->finish(2, 1000);  // 2.5 above deserved for 1 s
  f.admission->finish(1, 3000);  // then 2 above for 2 s
  const std::vector<int64_t> borrowed = f.admission->borrowed_gpu_ms(10000);
  CHECK(borrowed[static_cast<size_t>(f.admission->queue("team"))] == 2500 + 4000);
  CHECK(borrowed[static_cast<size_t>(f.admission->queue("default"))] == 0);
  CHECK(f.admission->nominal_gpus(f.admission->queue("team")) == 1);
}

TEST_CASE("kai::admission a steady state evicts nothing (no ping-pong)", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.requeue = true;
  f.queue("a", 2, 1).queue("b", 2, 1).queue("c", 0, 1).build(8);
  for (uint32_t id = 1; id <= 8; ++id) f.running(id, "a", kTrain, 1);
  for (uint32_t id = 11; id <= 16; ++id) f.pending(id, "b", kTrain, 1);
  for (uint32_t id = 21; id <= 26; ++id) f.pending(id, "c", kInteractivePreemptible, 1);
  f.now_ms = 1000;
  // Fair shares 4/3/1 (the remainder GPU to the oldest of equal fractions): a gives up four jobs,
  // each requeued behind what waits; no victim reclaims its GPUs back.
  const Cycle first = f.cycles();
  CHECK(first.second == std::vector<uint32_t>{5, 6, 7, 8});
  CHECK(f.milli("a") == 4000);
  CHECK(f.milli("b") == 3000);
  CHECK(f.milli("c") == 1000);
  CHECK(f.admission->waiting() == 4 + 3 + 5);
  // A new job of b starts a new cycle: still nothing moves.
  f.pending(30, "b", kTrain, 1);
  CHECK(f.cycles() == Cycle{});
}

TEST_CASE("kai::admission a reclaim may not leave the reclaimer's department more saturated than the one it takes from",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.department("b", 2).department("a", 2);  // b first: the older takes the remainder GPU
  f.queue("b1", 2, 1, -1, "b").queue("a1", 2, 1, -1, "a").queue("a2", 0, 1, -1, "a").build(9);
  for (uint32_t id = 1; id <= 4; ++id) f.running(id, "b1", kTrain, 1);
  f.running(5, "b1", kTrain, 2);
  for (uint32_t id = 6; id <= 8; ++id) f.running(id, "a2", kTrain, 1);
  f.pending(9, "a1", kTrain, 2);
  // Fair shares: b 5, a 4 (a1 2, a2 2). a1 may reclaim (0 + 2 <= 2) and b holds 6 of its 5, but
  // with b's 2-GPU job department a would hold 5 of 4 (saturation 1.25) and b 4 of 5 (0.8).
  CHECK(f.fair_share("a") == 0);  // (no cycle yet)
  CHECK(f.cycles() == Cycle{});
  CHECK(f.fair_share("a") == 4000);
  CHECK(f.fair_share("b") == 5000);
  CHECK(f.fair_share("a1") == 2000);
  CHECK(f.admission->wait_reason(9).find(
            "reclaim: KAI queue a would hold 5 of its fair share 4, more saturated than b it takes from (4 of 5)") !=
        std::string::npos);
}

// KAI pops the next job from the top of the hierarchy down (actions/utils/job_order_by_queue.go):
// department a is ranked with its best job (a1's, 8 GPUs: above a's deserved 4), so b goes
// first, though a2's job (2 GPUs) would rank before b's. a1 before a2 by queue priority.
TEST_CASE("kai::admission the next job is found from the top of the hierarchy down, each queue with its subtree's best job",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.department("b", 4).queue("b1", 4, 1, -1, "b").department("a", 4);
  f.queue("a1", 2, 1, -1, "a", 200).queue("a2", 1, 1, -1, "a", 100).build(8);
  f.pending(1, "a1", kTrain, 8);
  f.pending(2, "a2", kTrain, 2);
  f.pending(3, "b1", kTrain, 2);
  std::vector<uint32_t> order;
  f.admission->run(
      0, [&](uint32_t id) { order.push_back(id); }, [](const Preemption&) {}, 1);
  // b's job, then a1's fails (6 GPUs free), then a2's.
  CHECK(order == std::vector<uint32_t>{3, 2});
  INFO(f.admission->wait_reason(1));
  CHECK(f.admission->wait_reason(1).find("6 of 8 free") != std::string::npos);
  CHECK(f.fair_share("a") == 6000);
  CHECK(f.fair_share("b") == 2000);
}
