// Kueue's scheduling cycle: cases from kubernetes-sigs/kueue v0.19.2
// pkg/scheduler/scheduler_test.go (TestSchedule, case names quoted), the integration test
// "Should start workloads that are under min quota before borrowing", and rules worked by hand.
#include <catch2/catch.hpp>

#include "tests/sim/tenancy/kueue_fixture.h"

using namespace topsim;
using topsim::test::KueueFixture;
using Ids = std::vector<uint32_t>;
using Cycle = std::pair<Ids, Ids>;  // admitted, evicted

namespace {

// eng-alpha: on-demand cpu (50, BL 50), spot cpu (100, BL 0); eng-beta: on-demand (50, BL 10),
// spot (0, BL 100); both StrictFIFO in cohort `eng` (scheduler_test.go fixture, GPU group left out).
KueueFixture eng() {
  KueueFixture f;
  f.flavor("on-demand").flavor("spot");
  f.queue_flavors("eng-alpha", "eng", {{"on-demand", {{"cpu", 50, 50}}}, {"spot", {{"cpu", 100, 0}}}}).queueing =
      QueueingStrategy::StrictFIFO;
  ClusterQueueSpec& beta = f.queue_flavors("eng-beta", "eng", {{"on-demand", {{"cpu", 50, 10}}}, {"spot", {{"cpu", 0, 100}}}});
  beta.queueing = QueueingStrategy::StrictFIFO;
  beta.reclaim = ReclaimPreemption::Any;
  beta.within_queue = WithinQueuePreemption::LowerPriority;
  f.build();
  return f;
}

int64_t usage(const KueueFixture& f, const std::string& queue, const std::string& flavor) {
  const QuotaTree& t = f.admission->tree();
  return t.usage(t.cluster_queue(queue), t.fr(t.flavor(flavor), t.resource("cpu")));
}

}  // namespace

TEST_CASE("kueue::admission \"cannot borrow if cohort was assigned and would result in overadmission\"", "[sim][kueue]") {
  KueueFixture f = eng();
  f.admission->enqueue(f.workload(1, "eng-alpha", 0, 45));
  f.admission->enqueue(f.workload(2, "eng-beta", 0, 56));
  // eng-beta was nominated on on-demand, borrowing; after eng-alpha's 45 only 55 remain.
  CHECK(f.cycles(1) == Cycle{{1}, {}});
  CHECK(usage(f, "eng-alpha", "on-demand") == 45);
  CHECK(f.admission->waiting() == 1);
}

TEST_CASE("kueue::admission \"can borrow if cohort was assigned and will not result in overadmission\"", "[sim][kueue]") {
  KueueFixture f = eng();
  f.admission->enqueue(f.workload(1, "eng-alpha", 0, 45));
  f.admission->enqueue(f.workload(2, "eng-beta", 0, 55));
  CHECK(f.cycles(1) == Cycle{{1, 2}, {}});
  CHECK(usage(f, "eng-beta", "on-demand") == 55);
}

TEST_CASE("kueue::admission \"not enough resources to borrow, fallback to next flavor\"", "[sim][kueue]") {
  KueueFixture f = eng();
  f.running(1, "eng-beta", 0, 45, 0, "on-demand");
  f.admission->enqueue(f.workload(2, "eng-alpha", 0, 60));
  CHECK(f.cycles(1) == Cycle{{2}, {}});
  CHECK(usage(f, "eng-alpha", "spot") == 60);
}

TEST_CASE("kueue::admission \"workload exceeds lending limit when borrow in cohort\"", "[sim][kueue]") {
  KueueFixture f;
  f.queue("lend-a", "lend", {{"cpu", 3, -1, 2}});
  f.queue("lend-b", "lend", {{"cpu", 2, -1, 2}});
  f.build();
  f.running(1, "lend-b", 0, 2);
  f.admission->enqueue(f.workload(2, "lend-b", 0, 3));
  // The cohort holds the two lending limits, 4; lend-b already uses 2 of it.
  CHECK(f.cycles(-1) == Cycle{{}, {}});
  CHECK_THAT(f.admission->wait_reason(2), Catch::Contains("insufficient quota for cpu"));
}

TEST_CASE("kueue::admission hierarchical cohort and the lending limit", "[sim][kueue]") {
  // "hierarchical cohort respects lending limit when borrowing" / "... allows borrowing up to
  // lending limit": root <- child {cq-lender 10 (lendingLimit 3 or 5), cq-borrower 5 (BL 10)}.
  for (auto [lending, pending, admitted] : {std::tuple{3, 4, false}, std::tuple{5, 5, true}}) {
    KueueFixture f;
    f.cohort("child", "root");
    f.queue("cq-lender", "child", {{"cpu", 10, -1, lending}});
    f.queue("cq-borrower", "child", {{"cpu", 5, 10}});
    f.build();
    f.running(1, "cq-borrower", 0, 5);
    f.admission->enqueue(f.workload(2, "cq-borrower", 0, pending));
    CHECK(f.cycles(-1).first == (admitted ? Ids{2} : Ids{}));
  }
}

TEST_CASE("kueue::admission \"only one workload can borrow one resources from the same flavor in the same cycle\"",
          "[sim][kueue]") {
  for (auto [second, both] : {std::pair{16, false}, std::pair{14, true}}) {
    KueueFixture f;
    for (const char* name : {"cq1", "cq2", "cq3"}) f.queue(name, "co", {{"cpu", 10, 10}});
    f.build();
    f.admission->enqueue(f.workload(1, "cq1", -1, 16));
    f.admission->enqueue(f.workload(2, "cq2", -2, second));
    CHECK(f.cycles(1).first == (both ? Ids{1, 2} : Ids{1}));
  }
}

TEST_CASE("kueue::admission \"in a hierarchical cohort, workload borrowing less is scheduled first\"", "[sim][kueue]") {
  KueueFixture f;
  f.cohort("guaranteed", "root", {{"cpu", 4}});
  f.queue("guaranteed", "guaranteed", {{"cpu", 0}});
  f.queue("best-effort", "root", {{"cpu", 0}});
  f.build();
  f.admission->enqueue(f.workload(1, "guaranteed", 0, 4));
  f.admission->enqueue(f.workload(2, "best-effort", 3, 4));  // higher priority, but borrows further
  CHECK(f.cycles(1) == Cycle{{1}, {}});
}

TEST_CASE("kueue::admission flavor preference: preemption over borrowing, and borrowing over preemption", "[sim][kueue]") {
  for (auto preference : {FlavorPreference::PreemptionOverBorrowing, FlavorPreference::BorrowingOverPreemption}) {
    KueueFixture f;
    f.flavor("on-demand").flavor("spot");
    ClusterQueueSpec& cq = f.queue_flavors("pob-cq", "pob", {{"on-demand", {{"cpu", 5, 0}}}, {"spot", {{"cpu", 0, 5}}}});
    cq.within_queue = WithinQueuePreemption::LowerPriority;
    cq.when_can_borrow = FungibilityChoice::TryNextFlavor;
    cq.when_can_preempt = FungibilityChoice::TryNextFlavor;
    cq.preference = preference;
    f.queue_flavors("pob-lender", "pob", {{"spot", {{"cpu", 5}}}});
    f.build();
    f.running(1, "pob-cq", -1, 5, 0, "on-demand");
    f.admission->enqueue(f.workload(2, "pob-cq", 0, 5));
    if (preference == FlavorPreference::PreemptionOverBorrowing) {
      CHECK(f.cycles(1) == Cycle{{}, {1}});  // low-pob preempted; high-pob admitted in a later cycle
      CHECK(f.cycles(1) == Cycle{{2}, {}});
      CHECK(usage(f, "pob-cq", "on-demand") == 5);
    } else {
      CHECK(f.cycles(1) == Cycle{{2}, {}});  // borrows on spot, nothing preempted
      CHECK(usage(f, "pob-cq", "spot") == 5);
    }
  }
}

TEST_CASE("kueue::admission \"Should start workloads that are under min quota before borrowing\"", "[sim][kueue]") {
  // test/integration/singlecluster/scheduler/scheduler_test.go: prod-cq (cpu 2) and dev-cq
  // (cpu 0), both StrictFIFO in cohort `all`.
  KueueFixture f;
  f.queue("prod-cq", "all", {{"cpu", 2}}).queueing = QueueingStrategy::StrictFIFO;
  f.queue("dev-cq", "all", {{"cpu", 0}}).queueing = QueueingStrategy::StrictFIFO;
  f.build();
  f.running(1, "prod-cq", 0, 2);
  f.admission->enqueue(f.workload(2, "dev-cq", 0, 1, 10));
  f.admission->enqueue(f.workload(3, "prod-cq", 0, 2, 20));
  CHECK(f.cycles(-1) == Cycle{{}, {}});
  f.admission->finish(1, 100);
  CHECK(f.cycles(-1) == Cycle{{3}, {}});  // inside nominal first, although newer
  f.admission->finish(3, 200);
  CHECK(f.cycles(-1) == Cycle{{2}, {}});
}

TEST_CASE("kueue::admission StrictFIFO blocks behind a head that does not fit, BestEffortFIFO does not", "[sim][kueue]") {
  for (auto strategy : {QueueingStrategy::StrictFIFO, QueueingStrategy::BestEffortFIFO}) {
    KueueFixture f;
    f.queue("team", "", {{"nvidia.com/gpu", 8}}).queueing = strategy;
    f.build();
    f.running(1, "team", 0, 4, 0, "default", "nvidia.com/gpu");
    f.admission->enqueue(f.workload(2, "team", 0, 8, 10, "nvidia.com/gpu"));  // head: needs 8, 4 free
    f.admission->enqueue(f.workload(3, "team", 0, 2, 20, "nvidia.com/gpu"));
    const Ids admitted = f.cycles(-1).first;
    if (strategy == QueueingStrategy::StrictFIFO) {
      CHECK(admitted.empty());
      CHECK(f.admission->wait_reason(3) == "StrictFIFO: behind job 2 in ClusterQueue team");
    } else {
      CHECK(admitted == Ids{3});
    }
    f.admission->finish(1, 100);
    f.admission->finish(3, 100);
    CHECK(f.cycles(-1).first == Ids{2});  // quota released: the set-aside head is tried again
  }
}

TEST_CASE("kueue::admission borrowing stops at the borrowing limit, a lending limit holds quota back", "[sim][kueue]") {
  KueueFixture f;
  f.queue("a", "co", {{"nvidia.com/gpu", 8, 4}});
  f.queue("b", "co", {{"nvidia.com/gpu", 16, -1, 6}});  // keeps 10 to itself
  f.build();
  auto gpus = [&](uint32_t id, const char* queue, int64_t n) { return f.workload(id, queue, 0, n, id, "nvidia.com/gpu"); };
  f.admission->enqueue(gpus(1, "a", 8));
  f.admission->enqueue(gpus(2, "a", 4));  // borrows 4: up to the limit
  f.admission->enqueue(gpus(3, "a", 1));  // one more would pass the borrowing limit
  CHECK(f.cycles(-1).first == Ids{1, 2});
  CHECK_THAT(f.admission->wait_reason(3), Catch::Contains("insufficient quota"));
  // b lends at most 6: with a at 12 (4 borrowed), b can still take its 10 private + 2 left.
  f.admission->enqueue(gpus(4, "b", 12));
  CHECK(f.cycles(-1).first == Ids{4});
  f.admission->enqueue(gpus(5, "b", 1));
  CHECK(f.cycles(-1).first.empty());  // 8 + 16 = 24, all in use
}

TEST_CASE("kueue::admission reclaim: a lender's workload preempts the borrower's lowest priority, then is admitted",
          "[sim][kueue]") {
  KueueFixture f;
  ClusterQueueSpec& a = f.queue("a", "co", {{"nvidia.com/gpu", 8}});
  a.reclaim = ReclaimPreemption::Any;
  f.queue("b", "co", {{"nvidia.com/gpu", 8}});
  f.build();
  auto gpus = [&](uint32_t id, const char* queue, int32_t p, int64_t n) {
    return f.workload(id, queue, p, n, id, "nvidia.com/gpu");
  };
  f.admission->enqueue(gpus(1, "b", 5, 8));
  f.admission->enqueue(gpus(2, "b", 1, 4));   // borrowed from a
  f.admission->enqueue(gpus(3, "b", 3, 4));   // borrowed from a
  CHECK(f.cycles(-1).first == Ids{1, 3, 2});  // one head a cycle, higher priority first
  f.admission->enqueue(gpus(4, "a", 0, 4));
  // a is inside its nominal quota: it reclaims from b's borrowed part, lowest priority first,
  // once time has moved on from b's admissions.
  CHECK(f.cycles(-1) == Cycle{{}, {}});
  CHECK(f.cycles(-1, 2000) == Cycle{{4}, {2}});
  // The eviction names its preemptor and Kueue's reason, at the instant it was made.
  CHECK(f.preemptions == std::vector<Preemption>{{2000, 2, 4, PreemptionReason::InCohortReclamation}});
}

TEST_CASE("kueue::admission the quota a preemption frees goes to its preemptor, not back to the borrower", "[sim][kueue]") {
  // a owns the cohort's 4 GPUs and runs 2; b owns none and borrows the other 2, with more
  // waiting. a's oldest head wants 4 (6 with what a runs: never while it stays at nominal); the
  // next, 1 GPU each, reclaim b's. Without the preemptor keeping what it freed, the set-aside
  // head comes back on each release and b takes the GPU back: the two evict each other for ever
  // at one instant.
  KueueFixture f;
  f.queue("a", "co", {{"nvidia.com/gpu", 4}}).reclaim = ReclaimPreemption::Any;
  f.queue("b", "co", {{"nvidia.com/gpu", 0}});
  f.build();
  auto gpus = [&](uint32_t id, const char* queue, int64_t n) { return f.workload(id, queue, 0, n, id, "nvidia.com/gpu"); };
  for (uint32_t id : {1u, 2u}) f.admission->admit_now(gpus(id, "a", 1), 0);
  for (uint32_t id : {3u, 4u}) f.admission->admit_now(gpus(id, "b", 1), 0);
  f.admission->enqueue(gpus(10, "a", 4));
  f.admission->enqueue(gpus(11, "a", 1));
  f.admission->enqueue(gpus(12, "a", 1));
  for (uint32_t id = 20; id < 30; ++id) f.admission->enqueue(gpus(id, "b", 1));
  const auto [admitted, evicted] = f.cycles(100);
  CHECK(admitted == Ids{11, 12});
  CHECK(evicted.size() == 2);
  CHECK(f.cycles(1) == Cycle{{}, {}});  // settled
  CHECK_FALSE(f.admission->admitted(10));
}
