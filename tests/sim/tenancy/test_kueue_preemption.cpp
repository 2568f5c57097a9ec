// Kueue's classic preemption, replayed from Kueue's own unit tests with their expected victims:
// kubernetes-sigs/kueue v0.19.2, pkg/scheduler/preemption/preemption_test.go (TestPreemption,
// case names quoted) and preemption_hierarchical_test.go. Fixture CQs as in that file's
// defaultClusterQueues; CPU in cores; priorities as given.
#include <catch2/catch.hpp>

#include "tests/sim/tenancy/kueue_fixture.h"

using namespace topsim;
using topsim::test::KueueFixture;
using Ids = std::vector<uint32_t>;
using Why = std::vector<std::pair<uint32_t, PreemptionReason>>;  // the victims' reasons, as wantPreempted's targetKeyReason

namespace {

// `standalone`: cpu 6, withinClusterQueue LowerPriority, no cohort.
KueueFixture standalone() {
  KueueFixture f;
  f.queue("standalone", "", {{"cpu", 6}}).within_queue = WithinQueuePreemption::LowerPriority;
  f.build();
  return f;
}

// `c1` (within LowerPriority, reclaim LowerPriority) and `c2` (within Never, reclaim Any), both
// cpu 6 with borrowingLimit 6, in `cohort`.
KueueFixture c1_c2() {
  KueueFixture f;
  ClusterQueueSpec& c1 = f.queue("c1", "cohort", {{"cpu", 6, 6}});
  c1.within_queue = WithinQueuePreemption::LowerPriority;
  c1.reclaim = ReclaimPreemption::LowerPriority;
  f.queue("c2", "cohort", {{"cpu", 6, 6}}).reclaim = ReclaimPreemption::Any;
  f.build();
  return f;
}

// The `with_shared_cq` cohort: a_standard, b_standard, a_best_effort (cpu 1, BL 12),
// b_best_effort (cpu 0, BL 13) and shared (cpu 10); 13 CPU in all.
KueueFixture shared_cohort() {
  KueueFixture f;
  auto add = [&](const std::string& name, int64_t nominal, int64_t limit, WithinQueuePreemption within,
                 ReclaimPreemption reclaim) {
    ClusterQueueSpec& cq = f.queue(name, "with_shared_cq", {{"cpu", nominal, limit}});
    cq.within_queue = within;
    cq.reclaim = reclaim;
    cq.borrow_within_cohort = BorrowWithinCohort::LowerPriority;
    cq.borrow_max_priority = 0;
  };
  add("a_standard", 1, 12, WithinQueuePreemption::Never, ReclaimPreemption::LowerPriority);
  add("b_standard", 1, 12, WithinQueuePreemption::LowerPriority, ReclaimPreemption::Any);
  add("a_best_effort", 1, 12, WithinQueuePreemption::Never, ReclaimPreemption::LowerPriority);
  add("b_best_effort", 0, 13, WithinQueuePreemption::Never, ReclaimPreemption::LowerPriority);
  f.queue("shared", "with_shared_cq", {{"cpu", 10}});
  f.build();
  return f;
}

}  // namespace

TEST_CASE("kueue::preemption \"preempt lowest priority\"", "[sim][kueue]") {
  KueueFixture f = standalone();
  f.running(1, "standalone", -1, 2);
  f.running(2, "standalone", 0, 2);
  f.running(3, "standalone", 1, 2);
  CHECK(f.targets(f.workload(9, "standalone", 1, 2)) == Ids{1});
  CHECK(f.why(f.workload(9, "standalone", 1, 2)) == Why{{1, PreemptionReason::InClusterQueue}});
}

TEST_CASE("kueue::preemption \"preempt multiple\"", "[sim][kueue]") {
  KueueFixture f = standalone();
  f.running(1, "standalone", -1, 2);
  f.running(2, "standalone", 0, 2);
  f.running(3, "standalone", 1, 2);
  CHECK(f.targets(f.workload(9, "standalone", 1, 3)) == Ids{1, 2});
}

TEST_CASE("kueue::preemption \"no preemption for low priority\" and \"not enough low priority workloads\"", "[sim][kueue]") {
  KueueFixture f = standalone();
  f.running(1, "standalone", -1, 3);
  f.running(2, "standalone", 0, 3);
  CHECK(f.targets(f.workload(9, "standalone", -1, 1)).empty());
  CHECK(f.targets(f.workload(9, "standalone", 0, 4)).empty());
}

TEST_CASE("kueue::preemption \"minimal set excludes low priority\"", "[sim][kueue]") {
  KueueFixture f = standalone();
  f.running(1, "standalone", -1, 1);
  f.running(2, "standalone", 0, 2);
  f.running(3, "standalone", 1, 3);
  // Greedy removes low then mid; putting low back still fits.
  CHECK(f.targets(f.workload(9, "standalone", 1, 2)) == Ids{2});
}

TEST_CASE("kueue::preemption \"reclaim quota from borrower\"", "[sim][kueue]") {
  KueueFixture f = c1_c2();
  f.running(1, "c1", -1, 3);  // c1-low
  f.running(2, "c2", 0, 3);   // c2-mid
  f.running(3, "c2", 1, 6);   // c2-high: c2 borrows 3
  CHECK(f.targets(f.workload(9, "c1", 1, 3)) == Ids{2});
  CHECK(f.why(f.workload(9, "c1", 1, 3)) == Why{{2, PreemptionReason::InCohortReclamation}});
}

TEST_CASE("kueue::preemption \"no workloads borrowing\"", "[sim][kueue]") {
  KueueFixture f = c1_c2();
  f.running(1, "c1", 1, 4);
  f.running(2, "c2", -1, 4);
  CHECK(f.targets(f.workload(9, "c1", 1, 4)).empty());
}

TEST_CASE("kueue::preemption \"preempting locally and borrowing same resource in cohort\"", "[sim][kueue]") {
  KueueFixture f = c1_c2();
  f.running(1, "c1", 0, 4);   // c1-med
  f.running(2, "c1", -1, 4);  // c1-low: c1 borrows 2
  f.running(3, "c2", -1, 4);  // c2 inside its quota: protected
  CHECK(f.targets(f.workload(9, "c1", 1, 4)) == Ids{2});
}

TEST_CASE("kueue::preemption \"do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority\"",
          "[sim][kueue]") {
  KueueFixture f = c1_c2();
  f.running(1, "c1", 0, 2);
  f.running(2, "c2", 0, 4);
  f.running(3, "c2", 0, 4);
  CHECK(f.targets(f.workload(9, "c1", 0, 4)).empty());
}

TEST_CASE("kueue::preemption \"reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny\"", "[sim][kueue]") {
  KueueFixture f = c1_c2();
  f.running(1, "c1", 0, 4);  // c1-1
  f.running(2, "c1", 1, 4);  // c1-2: c1 borrows 2
  f.running(3, "c2", 0, 2);
  CHECK(f.targets(f.workload(9, "c2", 0, 4)) == Ids{1});
}

TEST_CASE("kueue::preemption \"preempt from all ClusterQueues in cohort\"", "[sim][kueue]") {
  KueueFixture f = c1_c2();
  f.running(1, "c1", -1, 3);  // c1-low
  f.running(2, "c1", 0, 2);   // c1-mid
  f.running(3, "c2", -1, 3);  // c2-low
  f.running(4, "c2", 0, 4);   // c2-mid: c2 borrows 1
  CHECK(f.why(f.workload(9, "c1", 0, 4)) ==
        Why{{1, PreemptionReason::InClusterQueue}, {3, PreemptionReason::InCohortReclamation}});
}

TEST_CASE("kueue::preemption \"preempt newer workloads with the same priority\"", "[sim][kueue]") {
  KueueFixture f;
  f.queue("preventStarvation", "", {{"cpu", 6}}).within_queue = WithinQueuePreemption::LowerOrNewerEqualPriority;
  f.build();
  const int64_t t = 100'000;
  f.admission->admit_now(f.workload(1, "preventStarvation", 2, 2, t), t);
  f.admission->admit_now(f.workload(2, "preventStarvation", 1, 2, t), t + 1000);  // admitted last
  f.admission->admit_now(f.workload(3, "preventStarvation", 1, 2, t), t);
  CHECK(f.targets(f.workload(9, "preventStarvation", 1, 2, t - 15'000)) == Ids{2});
}

TEST_CASE("kueue::preemption BorrowWithinCohort: lower priority of another queue while borrowing", "[sim][kueue]") {
  // "use BorrowWithinCohort; allow preempting a lower-priority workload from another
  // ClusterQueue while borrowing"
  KueueFixture f = shared_cohort();
  f.running(1, "a_best_effort", -1, 10);
  f.running(2, "b_best_effort", -1, 1);
  CHECK(f.why(f.workload(9, "a_standard", 0, 10)) == Why{{1, PreemptionReason::InCohortReclaimWhileBorrowing}});
}

TEST_CASE("kueue::preemption BorrowWithinCohort: maxPriorityThreshold", "[sim][kueue]") {
  SECTION("\"don't allow preempting ... above MaxPriorityThreshold, if borrowing is required even after the preemption\"") {
    KueueFixture f = shared_cohort();
    f.running(1, "b_standard", 1, 10);
    CHECK(f.targets(f.workload(9, "a_standard", 2, 10)).empty());
  }
  SECTION("\"allow preempting ... above MaxPriorityThreshold, if borrowing is not required after the preemption\"") {
    KueueFixture f = shared_cohort();
    f.running(1, "b_standard", 1, 13);
    CHECK(f.why(f.workload(9, "a_standard", 2, 1)) == Why{{1, PreemptionReason::InCohortReclamation}});
  }
  SECTION("\"preempt from CQ and from other CQs with workloads below threshold\"") {
    KueueFixture f = shared_cohort();
    f.running(1, "b_standard", 2, 10);     // high
    f.running(2, "b_standard", 1, 1);      // mid
    f.running(3, "a_best_effort", -1, 1);  // low
    f.running(4, "a_best_effort", -2, 1);  // lower
    // Once `lower` is gone, a_best_effort is at its nominal quota: `low` is no longer a victim.
    CHECK(f.targets(f.workload(9, "b_standard", 2, 2)) == Ids{2, 4});
  }
}

TEST_CASE("kueue::preemption lending limits: \"reclaim quota from lender\" and the requestable limit", "[sim][kueue]") {
  KueueFixture f;
  for (auto [name, lending] : {std::pair{"lend1", 4}, std::pair{"lend2", 2}}) {
    ClusterQueueSpec& cq = f.queue(name, "cohort-lend", {{"cpu", 6, -1, lending}});
    cq.within_queue = WithinQueuePreemption::LowerPriority;
    cq.reclaim = ReclaimPreemption::LowerPriority;
  }
  f.build();
  SECTION("\"reclaim quota from lender\"") {
    f.running(1, "lend1", -1, 3);
    f.running(2, "lend2", 0, 3);  // lend2-mid
    f.running(3, "lend2", 1, 4);  // lend2-high: lend2 at 7, above its 6
    CHECK(f.targets(f.workload(9, "lend1", 1, 3)) == Ids{2});
  }
  SECTION("\"cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit\"") {
    f.running(1, "lend2", -1, 10);
    // lend1 keeps 2 to itself and the cohort holds 4 + 2: 8 at most, never 9.
    const int fr = f.admission->tree().fr(0, f.admission->tree().resource("cpu"));
    CHECK(f.admission->tree().potential_available(f.queue_index("lend1"), fr) == 8);
    // Fair Sharing's denominator, kept per resource from the build: the same, summed over flavors.
    const QuotaTree& tree = f.admission->tree();
    for (int node = 0; node < tree.nodes(); ++node) {
      int64_t sum = 0;
      for (int flavor = 0; flavor < tree.flavors(); ++flavor) sum += tree.potential_available(node, tree.fr(flavor, 0));
      CHECK(tree.potential_all_flavors(node, 0) == sum);
    }
    CHECK(tree.potential_all_flavors(f.queue_index("lend1"), tree.resource("cpu")) == 8);
    f.admission->enqueue(f.workload(9, "lend1", 0, 9));
    CHECK(f.cycles(-1) == std::pair{Ids{}, Ids{}});
    CHECK_THAT(f.admission->wait_reason(9), Catch::Contains("8 at most ever"));
  }
}

TEST_CASE("kueue::preemption cohort of three: exhausted target queue, and reclaim with fill-back", "[sim][kueue]") {
  KueueFixture f;
  ClusterQueueSpec& a = f.queue("a", "cohort-three", {{"cpu", 2}});
  a.within_queue = WithinQueuePreemption::LowerPriority;
  a.reclaim = ReclaimPreemption::Any;
  f.queue("b", "cohort-three", {{"cpu", 2}});
  f.queue("c", "cohort-three", {{"cpu", 2}});
  f.build();
  SECTION("\"preemptions from cq when target queue is exhausted for the single requested resource\"") {
    f.running(1, "a", -2, 1);
    f.running(2, "a", -2, 1);
    f.running(3, "a", -1, 1);
    for (uint32_t id = 4; id <= 6; ++id) f.running(id, "b", 0, 1);
    CHECK(f.targets(f.workload(9, "a", 0, 2)) == Ids{1, 2});
  }
  SECTION("\"allow preemption from other cluster queues if target cq is not exhausted for the requested resource\"") {
    f.running(1, "a", -1, 1);
    for (uint32_t id = 2; id <= 5; ++id) f.running(id, "b", 0, 1);
    f.running(6, "b", -1, 1);
    CHECK(f.targets(f.workload(9, "a", 0, 2)) == Ids{1, 6});
  }
}

TEST_CASE("kueue::preemption hierarchical cohorts: \"long range preemption\" and hierarchical advantage", "[sim][kueue]") {
  SECTION("\"long range preemption\"") {
    KueueFixture f;
    f.cohort("cohort-left", "root");
    f.cohort("cohort-right", "root");
    f.queue("cq-left", "cohort-left", {{"cpu", 10}}).reclaim = ReclaimPreemption::Any;
    f.queue("cq-right", "cohort-right", {{"cpu", 0}});
    f.build();
    f.running(1, "cq-right", 0, 5);
    CHECK(f.targets(f.workload(9, "cq-left", 0, 8)) == Ids{1});
  }
  SECTION("\"preempt with hierarchical advantage\" (preemption_hierarchical_test.go)") {
    KueueFixture f;
    f.cohort("r", "");
    f.cohort("c", "r", {{"cpu", 2}});
    ClusterQueueSpec& q = f.queue("q", "c", {{"cpu", 0}});
    q.within_queue = WithinQueuePreemption::LowerPriority;
    q.reclaim = ReclaimPreemption::Any;
    f.queue("q_borrowing", "r", {{"cpu", 0}});
    f.build();
    f.running(1, "q_borrowing", 0, 2);  // uses c's 2 CPU through r
    CHECK(f.targets(f.workload(9, "q", 0, 2)) == Ids{1});
  }
}
