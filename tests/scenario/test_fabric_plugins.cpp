// The fabric-tier plug-ins: Kueue TAS (sim/schedulers/kueue_tas.cpp), Volcano's
// network-topology-aware scheduling (sim/schedulers/volcano_topology.cpp) and kube-scheduler's
// topology-aware workload scheduling (sim/schedulers/kube_tas.cpp), on four DGX A100 nodes in
// racks of two.
#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

Scenario gang_with(int workers, const std::string& annotations, const std::string& scheduler) {
  const std::string jobs = R"([{"name": "g", "submit_s": 0, "workers": )" + std::to_string(workers) +
                           R"(, "gpus_per_worker": 8, "model": "vgg16", "iterations": 20, "annotations": {)" + annotations +
                           "}}]";
  return scenario_from(scenario_json(R"([{"model": "dgx-a100", "count": 4}])", jobs,
                                     R"(, "schedulers": [")" + scheduler + R"("])",
                                     R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2}]})"));
}

}  // namespace

TEST_CASE("scenario::kueue-tas a required level holds the gang in one domain or keeps it waiting", "[scenario]") {
  const Scenario fits = gang_with(2, R"("kueue.x-k8s.io/podset-required-topology": "rack")", "kueue-tas");
  const RunResult fits_run = run(fits, "kueue-tas");
  const JobRecord& g = record(fits_run, fits, "g");
  REQUIRE(g.state == JobState::Finished);
  CHECK(g.pods[0].node / 2 == g.pods[1].node / 2);
  CHECK(g.host_network);

  const Scenario too_big = gang_with(3, R"("kueue.x-k8s.io/podset-required-topology": "rack")", "kueue-tas");
  const RunResult too_big_run = run(too_big, "kueue-tas");
  const JobRecord& w = record(too_big_run, too_big, "g");
  CHECK(w.state == JobState::Pending);
  CHECK_THAT(w.reason, Catch::Contains("no rack has room for all 3 pods (kueue.x-k8s.io/podset-required-topology)"));
}

TEST_CASE("scenario::kueue-tas a preferred level falls back to the levels above", "[scenario]") {
  const Scenario s = gang_with(3, R"("kueue.x-k8s.io/podset-preferred-topology": "rack")", "kueue-tas");
  const RunResult s_run = run(s, "kueue-tas");
  const JobRecord& g = record(s_run, s, "g");
  CHECK(g.state == JobState::Finished);
  CHECK(g.pods.size() == 3);
}

TEST_CASE("scenario::kueue-tas a level the fabric does not have is refused at submission", "[scenario]") {
  const Scenario s = gang_with(2, R"("kueue.x-k8s.io/podset-required-topology": "block")", "kueue-tas");
  const RunResult s_run = run(s, "kueue-tas");
  const JobRecord& g = record(s_run, s, "g");
  CHECK(g.state == JobState::Rejected);
  CHECK(g.reason == "kueue.x-k8s.io/podset-required-topology: 'block' is not a level of the cluster's fabric (rack)");
}

namespace {

// Four DGX A100 in racks of two, pods of 4 GPUs (two a node, four a rack).
Scenario half_node_pods(const std::string& jobs, const std::string& scheduler = "kueue-tas") {
  return scenario_from(scenario_json(R"([{"model": "dgx-a100", "count": 4}])", jobs,
                                     R"(, "schedulers": [")" + scheduler + R"("])",
                                     R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2}]})"));
}

std::vector<int> pods_per_rack(const JobRecord& job) {
  std::vector<int> per_rack(2, 0);
  for (const PodPlacement& pod : job.pods) ++per_rack[static_cast<size_t>(pod.node / 2)];
  return per_rack;
}

std::string half_node_job(const std::string& name, double submit_s, int workers, int iterations, const std::string& annotations) {
  return R"({"name": ")" + name + R"(", "submit_s": )" + std::to_string(submit_s) + R"(, "workers": )" + std::to_string(workers) +
         R"(, "gpus_per_worker": 4, "model": "vgg16", "iterations": )" + std::to_string(iterations) + R"(, "annotations": {)" +
         annotations + "}}";
}

// Each (annotations, reason): a job of 6 half-node pods with those annotations on racks of two in
// zones of two is rejected at submission with that reason.
void check_refused(const std::vector<std::pair<std::string, std::string>>& cases, const std::string& scheduler) {
  for (const auto& [annotations, reason] : cases) {
    const Scenario s = scenario_from(scenario_json(
        R"([{"model": "dgx-a100", "count": 4}])", "[" + half_node_job("g", 0, 6, 20, annotations) + "]",
        R"(, "schedulers": [")" + scheduler + R"("])",
        R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2}, {"name": "zone", "fanout": 2}]})"));
    const RunResult r = run(s, scheduler);
    const JobRecord& g = record(r, s, "g");
    CHECK(g.state == JobState::Rejected);
    CHECK(g.reason == reason);
  }
}

constexpr const char* kSlicesOf3 =
    R"("kueue.x-k8s.io/podset-slice-required-topology": "rack", "kueue.x-k8s.io/podset-slice-size": "3")";

}  // namespace

TEST_CASE("scenario::kueue-tas pod-set slices put whole slices in each domain", "[scenario]") {
  // A long job takes one pod slot of rack 0 (LeastFreeCapacity: node 0): racks have 3 and 4 free
  // slots. Six pods without slices: rack 1 (most free) takes 4, rack 0 2. In slices of 3 each
  // rack holds one slice: 3 and 3.
  const std::string blocker = half_node_job("b", 0, 1, 100000, "");
  for (const bool sliced : {false, true}) {
    const Scenario s = half_node_pods(
        "[" + blocker + ", " +
        half_node_job("g", 1, 6, 20, sliced ? kSlicesOf3 : R"("kueue.x-k8s.io/podset-preferred-topology": "rack")") + "]");
    const RunResult r = run(s, "kueue-tas");
    const JobRecord& g = record(r, s, "g");
    REQUIRE(g.state == JobState::Finished);
    CHECK(pods_per_rack(g) == (sliced ? std::vector<int>{3, 3} : std::vector<int>{2, 4}));
  }
}

TEST_CASE("scenario::kueue-tas a sliced job waits for whole slices, with the reason", "[scenario]") {
  // Two gangs of 3 pods preferring a rack leave one slot in each rack: a job of 2 pods in one
  // slice of 2 waits for a blocker to finish although 2 slots are free; without slices it starts
  // at once across the racks.
  const std::string rack = R"("kueue.x-k8s.io/podset-preferred-topology": "rack")";
  const std::string blockers = half_node_job("b1", 0, 3, 20000, rack) + ", " + half_node_job("b2", 1, 3, 20000, rack);
  const Scenario s = half_node_pods(
      "[" + blockers + ", " +
      half_node_job("g", 2, 2, 20,
                    R"("kueue.x-k8s.io/podset-slice-required-topology": "rack", "kueue.x-k8s.io/podset-slice-size": "2")") +
      "]");
  const RunResult r = run(s, "kueue-tas");
  const JobRecord& g = record(r, s, "g");
  REQUIRE(g.state == JobState::Finished);
  CHECK(g.start_ms == std::min(record(r, s, "b1").finish_ms, record(r, s, "b2").finish_ms));
  CHECK(g.pods[0].node / 2 == g.pods[1].node / 2);
  const Scenario plain = half_node_pods("[" + blockers + ", " + half_node_job("g", 2, 2, 20, "") + "]");
  const RunResult plain_run = run(plain, "kueue-tas");
  const JobRecord& across = record(plain_run, plain, "g");
  CHECK(across.start_ms == 2000);
  CHECK(across.pods[0].node / 2 != across.pods[1].node / 2);

  // Whole nodes in racks of two: 4 pods fit, no slice of 3 ever does.
  const Scenario never = gang_with(3, kSlicesOf3, "kueue-tas");
  const RunResult never_run = run(never, "kueue-tas");
  const JobRecord& n = record(never_run, never, "g");
  CHECK(n.state == JobState::Pending);
  CHECK(
      n.reason ==
      "never placed: room for 0 of its 1 slice of 3 pods, each within one rack (kueue.x-k8s.io/podset-slice-required-topology)");
  const Scenario required =
      gang_with(3, std::string(kSlicesOf3) + R"(, "kueue.x-k8s.io/podset-required-topology": "rack")", "kueue-tas");
  const RunResult required_run = run(required, "kueue-tas");
  CHECK(record(required_run, required, "g").reason ==
        "never placed: no rack has room for its 1 slice of 3 pods, each within one rack "
        "(kueue.x-k8s.io/podset-slice-required-topology)");
}

TEST_CASE("scenario::kueue-tas slice annotations that Kueue refuses are refused at submission", "[scenario]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("kueue.x-k8s.io/podset-slice-required-topology": "rack")",
       "kueue.x-k8s.io/podset-slice-size: must be set with kueue.x-k8s.io/podset-slice-required-topology"},
      {R"("kueue.x-k8s.io/podset-slice-size": "2")",
       "kueue.x-k8s.io/podset-slice-size: may not be set without kueue.x-k8s.io/podset-slice-required-topology"},
      {R"("kueue.x-k8s.io/podset-slice-required-topology": "rack", "kueue.x-k8s.io/podset-slice-size": "4")",
       "kueue.x-k8s.io/podset-slice-size: 4 does not divide the pod set's 6 pods"},
      {R"("kueue.x-k8s.io/podset-slice-required-topology": "rack", "kueue.x-k8s.io/podset-slice-size": "0")",
       "kueue.x-k8s.io/podset-slice-size: '0' is not a whole number of pods of at least 1"},
      {R"("kueue.x-k8s.io/podset-slice-required-topology": "rack", "kueue.x-k8s.io/podset-slice-size": "two")",
       "kueue.x-k8s.io/podset-slice-size: 'two' is not a whole number of pods of at least 1"},
      {R"("kueue.x-k8s.io/podset-slice-required-topology": "block", "kueue.x-k8s.io/podset-slice-size": "2")",
       "kueue.x-k8s.io/podset-slice-required-topology: 'block' is not a level of the cluster's fabric (rack, zone)"},
      {R"("kueue.x-k8s.io/podset-slice-required-topology": "zone", "kueue.x-k8s.io/podset-slice-size": "2", )"
       R"("kueue.x-k8s.io/podset-required-topology": "rack")",
       "kueue.x-k8s.io/podset-slice-required-topology: 'zone' is above the pod set's level 'rack'"},
  };
  check_refused(cases, "kueue-tas");
}

TEST_CASE("scenario::volcano-topology hard mode keeps the gang within its highest tier, soft mode does not", "[scenario]") {
  const Scenario hard =
      gang_with(3, R"("volcano.sh/network-topology-mode": "hard", "volcano.sh/network-topology-highest-tier-allowed": "1")",
                "volcano-topology");
  const RunResult hard_run = run(hard, "volcano-topology");
  const JobRecord& h = record(hard_run, hard, "g");
  CHECK(h.state == JobState::Pending);
  CHECK_THAT(h.reason, Catch::Contains("no HyperNode of tier <= 1 (rack) has room for all 3 pods"));

  const Scenario soft = gang_with(3, R"("volcano.sh/network-topology-mode": "soft")", "volcano-topology");
  const RunResult soft_run = run(soft, "volcano-topology");
  CHECK(record(soft_run, soft, "g").state == JobState::Finished);
  // Hard without a tier is held to none (Volcano's JobInfo.IsHardTopologyMode): it starts across racks.
  const Scenario untiered = gang_with(3, R"("volcano.sh/network-topology-mode": "hard")", "volcano-topology");
  const RunResult untiered_run = run(untiered, "volcano-topology");
  const JobRecord& u = record(untiered_run, untiered, "g");
  CHECK(u.state == JobState::Finished);
  CHECK(u.start_ms == record(soft_run, soft, "g").start_ms);
  CHECK(u.placement_note ==
        "volcano.sh/network-topology-mode: hard without a highest tier (volcano.sh/network-topology-highest-tier-allowed or "
        "volcano.sh/network-topology-highest-tier-name): Volcano holds the job to no tier");
  CHECK(record(soft_run, soft, "g").placement_note.empty());
  // Soft with a tier: Volcano replaces the tier with the cluster's top one.
  const Scenario soft_tier =
      gang_with(2, R"("volcano.sh/network-topology-mode": "soft", "volcano.sh/network-topology-highest-tier-allowed": "1")",
                "volcano-topology");
  const RunResult soft_tier_run = run(soft_tier, "volcano-topology");
  CHECK(record(soft_tier_run, soft_tier, "g").placement_note ==
        "volcano.sh/network-topology-mode: soft with a highest tier: Volcano replaces it with the cluster's top tier 1 (the "
        "lowest tier that holds the job, else anywhere)");

  // Volcano's pod annotation for the tier, the mode left to its default (hard).
  const Scenario two = gang_with(2, R"("volcano.sh/network-topology-highest-tier": "1")", "volcano-topology");
  const RunResult two_run = run(two, "volcano-topology");
  const JobRecord& t = record(two_run, two, "g");
  REQUIRE(t.state == JobState::Finished);
  CHECK(t.pods[0].node / 2 == t.pods[1].node / 2);
  // The tier by name (highestTierName, a level of the fabric), mode by default hard.
  const Scenario named = gang_with(3, R"("volcano.sh/network-topology-highest-tier-name": "rack")", "volcano-topology");
  const RunResult named_run = run(named, "volcano-topology");
  CHECK(record(named_run, named, "g").reason ==
        "never placed: no HyperNode of tier <= 1 (rack) has room for all 3 pods (hard mode, Volcano's default)");

  const Scenario beyond =
      gang_with(2, R"("volcano.sh/network-topology-mode": "hard", "volcano.sh/network-topology-highest-tier-allowed": "3")",
                "volcano-topology");
  const RunResult beyond_run = run(beyond, "volcano-topology");
  CHECK_THAT(
      record(beyond_run, beyond, "g").reason,
      Catch::StartsWith("volcano.sh/network-topology-highest-tier-allowed: '3' is not a tier of the fabric (1 .. 1: rack)"));
}

TEST_CASE("scenario::volcano-topology soft mode tries every tier, whatever tier it is given", "[scenario]") {
  // Eight DGX A100 in racks of two and zones of two racks, pods of 4 GPUs. A short job fills zone 0
  // while one pod of a long one goes to node 4 (zone 1); then 5 pods, more than a rack holds. Soft
  // is Volcano's hard at the top tier: the most used zone that holds them, zone 1. Binpack over the
  // cluster (what a soft search held to tier 1 fell back to) would take node 4's slot and four in
  // zone 0.
  const std::string jobs = "[" + half_node_job("fill", 0, 8, 20, "") + ", " + half_node_job("b", 1, 1, 100000, "") + ", " +
                           half_node_job("g", 1000, 5, 20,
                                         R"("volcano.sh/network-topology-mode": "soft", )"
                                         R"("volcano.sh/network-topology-highest-tier-allowed": "1")") +
                           "]";
  const Scenario s = scenario_from(scenario_json(
      R"([{"model": "dgx-a100", "count": 8}])", jobs, R"(, "schedulers": ["volcano-topology"])",
      R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2}, {"name": "zone", "fanout": 2}]})"));
  const RunResult r = run(s, "volcano-topology");
  REQUIRE(record(r, s, "b").pods.at(0).node == 4);
  const JobRecord& g = record(r, s, "g");
  REQUIRE(g.state == JobState::Finished);
  for (const PodPlacement& pod : g.pods) CHECK(pod.node / 4 == 1);
}

TEST_CASE("scenario::volcano-topology partitions each sit in one HyperNode, the most used first", "[scenario]") {
  // A one-pod job takes node 0 (binpack): rack 0 has 3 free pod slots, rack 1 4. Four pods by
  // binpack alone: node 0's slot, node 1's two, node 2's one (3 + 1, a pair across racks). In hard
  // partitions of 2 within tier 1: one partition in rack 0 (the most used), one in rack 1.
  const std::string blocker = half_node_job("b", 0, 1, 100000, "");
  const std::string hard = R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "2")";
  const std::string partitions = hard + R"(, "volcano.sh/partition-highest-tier-allowed": "1")";
  // Hard partitions without a tier are held to none (Volcano's SubJobInfo.IsHardTopologyMode):
  // placed as without partitions.
  for (const std::string& asks : {std::string(), hard, partitions}) {
    const Scenario s = half_node_pods("[" + blocker + ", " + half_node_job("g", 1, 4, 20, asks) + "]", "volcano-topology");
    const RunResult r = run(s, "volcano-topology");
    const JobRecord& g = record(r, s, "g");
    REQUIRE(g.state == JobState::Finished);
    CHECK(pods_per_rack(g) == (asks == partitions ? std::vector<int>{2, 2} : std::vector<int>{3, 1}));
  }
  // Two partitions that fit the used rack both go there (HyperNode bin-packing): pods of 2 GPUs.
  const std::string two_gpu_jobs = R"([{"name": "b", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "vgg16",
      "iterations": 100000}, {"name": "g", "submit_s": 1, "workers": 4, "gpus_per_worker": 2, "model": "vgg16",
      "iterations": 20, "annotations": {)" +
                                   partitions + "}}]";
  const Scenario packed = half_node_pods(two_gpu_jobs, "volcano-topology");
  const RunResult packed_run = run(packed, "volcano-topology");
  CHECK(pods_per_rack(record(packed_run, packed, "g")) == std::vector<int>{4, 0});
}

TEST_CASE("scenario::volcano-topology hard partitions wait for room, soft ones do not", "[scenario]") {
  // Whole nodes in racks of two: no partition of 3 pods ever fits a rack.
  const std::string three = R"("volcano.sh/partition-size": "3", "volcano.sh/partition-highest-tier-allowed": "1", )"
                            R"("volcano.sh/partition-network-topology-mode": )";
  const Scenario hard = gang_with(3, three + R"("hard")", "volcano-topology");
  const RunResult hard_run = run(hard, "volcano-topology");
  const JobRecord& h = record(hard_run, hard, "g");
  CHECK(h.state == JobState::Pending);
  CHECK(h.reason ==
        "never placed: room for 0 of its 1 partition of 3 pods, each within one HyperNode of tier <= 1 (rack) "
        "(volcano.sh/partition-network-topology-mode: hard)");
  const Scenario soft = gang_with(3, three + R"("soft")", "volcano-topology");
  const RunResult soft_run = run(soft, "volcano-topology");
  CHECK(record(soft_run, soft, "g").state == JobState::Finished);
  // Soft partitions of a job held in one rack: the job's own tier is what it waits for.
  const Scenario soft_in_hard = gang_with(
      3, three + R"("soft", "volcano.sh/network-topology-mode": "hard", "volcano.sh/network-topology-highest-tier-allowed": "1")",
      "volcano-topology");
  const RunResult soft_in_hard_run = run(soft_in_hard, "volcano-topology");
  CHECK(record(soft_in_hard_run, soft_in_hard, "g").reason ==
        "never placed: no HyperNode of tier <= 1 (rack) has room for all 3 pods (volcano.sh/network-topology-mode: hard)");
  // The job held in one rack, in partitions of 2 each in a rack: 4 pods never fit.
  const Scenario both =
      gang_with(4,
                R"("volcano.sh/network-topology-mode": "hard", "volcano.sh/partition-size": "2", )"
                R"("volcano.sh/network-topology-highest-tier-allowed": "1", )"
                R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-highest-tier-name": "rack")",
                "volcano-topology");
  const RunResult both_run = run(both, "volcano-topology");
  CHECK(record(both_run, both, "g").reason ==
        "never placed: no HyperNode of tier <= 1 (rack) has room for its 2 partitions of 2 pods, each within one HyperNode of "
        "tier <= 1 (rack) (volcano.sh/network-topology-mode: hard)");
}

TEST_CASE("scenario::volcano-topology partition annotations Volcano refuses are refused at submission", "[scenario]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("volcano.sh/partition-size": "2")",
       "volcano.sh/partition-size: may not be set without volcano.sh/partition-network-topology-mode"},
      {R"("volcano.sh/partition-network-topology-mode": "hard")",
       "volcano.sh/partition-size: must be set with volcano.sh/partition-network-topology-mode"},
      {R"("volcano.sh/partition-network-topology-mode": "firm", "volcano.sh/partition-size": "2")",
       "volcano.sh/partition-network-topology-mode: 'firm' is not one of hard, soft"},
      {R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "4")",
       "volcano.sh/partition-size: 4 does not divide the job's 6 pods"},
      {R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "-2")",
       "volcano.sh/partition-size: '-2' is not a whole number of pods of at least 1"},
      {R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "2", )"
       R"("volcano.sh/partition-highest-tier-allowed": "3")",
       "volcano.sh/partition-highest-tier-allowed: '3' is not a tier of the fabric (1 .. 2: rack, zone)"},
      {R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "2", )"
       R"("volcano.sh/partition-highest-tier-allowed": "2", "volcano.sh/network-topology-mode": "hard", )"
       R"("volcano.sh/network-topology-highest-tier-allowed": "1")",
       "volcano.sh/partition-highest-tier-allowed: tier 2 is above the job's tier 1"},
      {R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "2", )"
       R"("volcano.sh/partition-highest-tier-name": "zone", "volcano.sh/network-topology-highest-tier-name": "rack")",
       "volcano.sh/partition-highest-tier-name: tier 2 is above the job's tier 1"},
      {R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "2", )"
       R"("volcano.sh/partition-highest-tier-name": "pod")",
       "volcano.sh/partition-highest-tier-name: 'pod' is not a tier name of the fabric (rack, zone)"},
      {R"("volcano.sh/partition-highest-tier-name": "rack")",
       "volcano.sh/partition-highest-tier-name: may not be set without volcano.sh/partition-network-topology-mode"},
      {R"("volcano.sh/network-topology-highest-tier-allowed": "1", "volcano.sh/network-topology-highest-tier-name": "rack")",
       "volcano.sh/network-topology-highest-tier-allowed: may not be set with volcano.sh/network-topology-highest-tier-name "
       "(one highest tier, by number or by name)"},
      {R"("volcano.sh/network-topology-highest-tier": "1", "volcano.sh/network-topology-highest-tier-allowed": "1")",
       "volcano.sh/network-topology-highest-tier-allowed: may not be set with volcano.sh/network-topology-highest-tier "
       "(one highest tier, by number or by name)"},
      {R"("volcano.sh/network-topology-highest-tier-name": "Rack")",
       "volcano.sh/network-topology-highest-tier-name: 'Rack' is not a tier name of the fabric (rack, zone)"},
      {R"("volcano.sh/network-topology-mode": "firm")", "volcano.sh/network-topology-mode: 'firm' is not one of hard, soft"},
  };
  check_refused(cases, "volcano-topology");
}

namespace {

constexpr const char* kLayers = "kueue.x-k8s.io/podset-slice-required-topology-constraints";

// Twelve DGX A100 in racks of three and blocks of two racks; whole-node pods (three a rack).
Scenario racks_of_three(int workers, const std::string& annotations) {
  const std::string jobs = R"([{"name": "g", "submit_s": 0, "workers": )" + std::to_string(workers) +
                           R"(, "gpus_per_worker": 8, "model": "vgg16", "iterations": 20, "annotations": {)" + annotations +
                           "}}]";
  return scenario_from(scenario_json(
      R"([{"model": "dgx-a100", "count": 12}])", jobs, R"(, "schedulers": ["kueue-tas"])",
      R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 3}, {"name": "block", "fanout": 2}]})"));
}

// Job g of racks_of_three(workers, annotations), as kueue-tas placed it (or left it waiting).
JobRecord racks_of_three_job(int workers, const std::string& annotations) {
  const Scenario s = racks_of_three(workers, annotations);
  const RunResult r = run(s, "kueue-tas");
  return record(r, s, "g");
}

std::vector<int> pods_per_rack_of_three(const JobRecord& job) {
  std::vector<int> per_rack(4, 0);
  for (const PodPlacement& pod : job.pods) ++per_rack[static_cast<size_t>(pod.node / 3)];
  return per_rack;
}

std::string layers(const std::string& json) { return "\"" + std::string(kLayers) + "\": \"" + json + "\""; }

}  // namespace

TEST_CASE("scenario::kueue-tas multi-layer slices put whole inner slices in each inner domain", "[scenario]") {
  // A block has two racks of 3 free pods. One slice of 4 in a block: rack 0 (first of the two
  // with most room) takes 3 and rack 1 the last. Made of slices of 2 in a rack, each rack counts
  // 2 (3 rounded down to whole inner slices): 2 and 2.
  const std::string block4 = R"({\"topology\": \"block\", \"size\": 4})";
  const std::string rack2 = R"({\"topology\": \"rack\", \"size\": 2})";
  const JobRecord outer = racks_of_three_job(4, layers("[" + block4 + "]"));
  REQUIRE(outer.state == JobState::Finished);
  CHECK(pods_per_rack_of_three(outer) == std::vector<int>{3, 1, 0, 0});
  const JobRecord two = racks_of_three_job(4, layers("[" + block4 + ", " + rack2 + "]"));
  REQUIRE(two.state == JobState::Finished);
  CHECK(pods_per_rack_of_three(two) == std::vector<int>{2, 2, 0, 0});
  // Eight pods in one required block: each block counts 2 + 2, one slice of 4, not two; it waits.
  const JobRecord required = racks_of_three_job(
      8, layers("[" + block4 + ", " + rack2 + "]") + R"(, "kueue.x-k8s.io/podset-required-topology": "block")");
  CHECK(required.state == JobState::Pending);
  CHECK(required.reason ==
        "never placed: no block has room for its 2 slices of 4 pods, each within one block, in slices of 2 within one rack "
        "(kueue.x-k8s.io/podset-slice-required-topology-constraints)");
}

TEST_CASE("scenario::kueue-tas a multi-layer job waits while its inner slices do not fit", "[scenario]") {
  // Six pods in one block: a block's racks hold 3 + 3, so one slice of 6 fits; in slices of 2 a
  // rack holds 2 and a block 4: it never starts, and says which layers hold it.
  const std::string block6 = R"({\"topology\": \"block\", \"size\": 6})";
  CHECK(racks_of_three_job(6, layers("[" + block6 + "]")).state == JobState::Finished);
  const JobRecord two = racks_of_three_job(6, layers("[" + block6 + R"(, {\"topology\": \"rack\", \"size\": 2}])"));
  CHECK(two.state == JobState::Pending);
  CHECK(two.reason ==
        "never placed: room for 0 of its 1 slice of 6 pods, each within one block, in slices of 2 within one rack "
        "(kueue.x-k8s.io/podset-slice-required-topology-constraints)");
}

TEST_CASE("scenario::kueue-tas multi-layer slice annotations that Kueue refuses are refused at submission", "[scenario]") {
  const std::string key = kLayers;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {layers(R"([{\"topology\": \"rack\", \"size\": 2}])") + R"(, "kueue.x-k8s.io/podset-slice-size": "2")",
       key + ": may not be set with kueue.x-k8s.io/podset-slice-size"},
      {layers(R"([{\"topology\": \"rack\", \"size\": 2})"), key + ": not a JSON array of {\"topology\": <level>, \"size\": "
                                                                  "<pods>}: ',' or ']' expected where the text ends"},
      {layers("[]"), key + ": 1 to 3 layers, not 0"},
      {layers(R"([{\"topology\": \"zone\", \"size\": 6}, {\"topology\": \"rack\", \"size\": 2}, )"
              R"({\"topology\": \"rack\", \"size\": 2}, {\"topology\": \"rack\", \"size\": 1}])"),
       key + ": 1 to 3 layers, not 4"},
      {layers(R"([{\"topology\": \"zone\", \"size\": 0}])"), key + "[0].size: 0 is not a number of pods of at least 1"},
      {layers(R"([{\"topology\": \"zone\", \"size\": 6}, {\"topology\": \"zone\", \"size\": 2}])"),
       key + "[1].topology: 'zone' is also layer 0"},
      {layers(R"([{\"topology\": \"zone\", \"size\": 6}, {\"topology\": \"rack\", \"size\": 4}])"),
       key + "[1].size: 4 does not divide the layer above's 6"},
      {layers(R"([{\"topology\": \"rack\", \"size\": 6}, {\"topology\": \"zone\", \"size\": 2}])"),
       key + "[1].topology: 'zone' is not below the layer above's 'rack'"},
      {layers(R"([{\"topology\": \"zone\", \"size\": 6}, {\"topology\": \"host\", \"size\": 2}])"),
       key + "[1].topology: 'host' is not a level of the cluster's fabric (rack, zone)"},
      {layers(R"([{\"topology\": \"zone\", \"size\": 4}])"), key + "[0].size: 4 does not divide the pod set's 6 pods"},
      {layers(R"([{\"topology\": \"zone\", \"size\": 6}])") + R"(, "kueue.x-k8s.io/podset-required-topology": "rack")",
       key + "[0].topology: 'zone' is above the pod set's level 'rack'"},
  };
  check_refused(cases, "kueue-tas");
}

TEST_CASE("scenario::kueue-tas going down, the last domain is the smallest that holds the rest (BestFit)", "[scenario]") {
  // Twelve DGX A100 in racks of two and blocks of three racks, whole-node pods. A long job takes
  // one node of rack 0; a job of 3 pods preferring a block goes to block 0 (5 free, the tightest
  // that holds it). Inside, rack 1 (2 free, the roomiest) takes 2 and the last pod goes to rack 0
  // (1 free, the smallest that holds it), not rack 2, which stays whole (Kueue's
  // updateCountsToMinimumGeneric).
  const std::string jobs =
      R"([{"name": "b", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "vgg16", "iterations": 100000,
           "annotations": {"kueue.x-k8s.io/podset-required-topology": "rack"}},
          {"name": "g", "submit_s": 1, "workers": 3, "gpus_per_worker": 8, "model": "vgg16", "iterations": 20,
           "annotations": {"kueue.x-k8s.io/podset-preferred-topology": "block"}}])";
  const Scenario s = scenario_from(scenario_json(
      R"([{"model": "dgx-a100", "count": 12}])", jobs, R"(, "schedulers": ["kueue-tas"])",
      R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2}, {"name": "block", "fanout": 3}]})"));
  const RunResult r = run(s, "kueue-tas");
  REQUIRE(record(r, s, "b").pods.at(0).node / 2 == 0);
  const JobRecord& g = record(r, s, "g");
  REQUIRE(g.state == JobState::Finished);
  std::vector<int> per_rack(6, 0);
  for (const PodPlacement& pod : g.pods) ++per_rack[static_cast<size_t>(pod.node / 2)];
  CHECK(per_rack == std::vector<int>{1, 2, 0, 0, 0, 0});
}

namespace {

constexpr const char* kRackLevel = R"("scheduling.k8s.io/topology-level": "rack")";

}  // namespace

TEST_CASE("scenario::kube-tas the gang goes to the fullest rack that holds it, its pods spread over the rack's nodes",
          "[scenario]") {
  // A long job of one pod takes node 0 (both racks score alike: the lower index). A gang of two
  // pods then scores rack 0 (4 + 8 of 16 GPUs in use, 75) above rack 1 (8 of 16, 50); inside
  // rack 0 LeastAllocated puts its first pod on the idle node 1, its second on node 0 (both now
  // score 0: the lower index). Kueue TAS takes the same rack (BestFit: the fewest free slots) but
  // fills node 1 (the node with the most free slots first).
  const std::string jobs =
      "[" + half_node_job("a", 0, 1, 100000, kRackLevel) + ", " + half_node_job("g", 1, 2, 20, kRackLevel) + "]";
  const Scenario s = half_node_pods(jobs, "kube-tas");
  const RunResult r = run(s, "kube-tas");
  const JobRecord& a = record(r, s, "a");
  REQUIRE(a.pods.size() == 1);
  CHECK(a.pods[0].node == 0);
  const JobRecord& g = record(r, s, "g");
  REQUIRE(g.state == JobState::Finished);
  std::vector<int> nodes;
  for (const PodPlacement& pod : g.pods) nodes.push_back(pod.node);
  CHECK(nodes == std::vector<int>{1, 0});
  CHECK(g.host_network);

  const std::string kueue_rack = R"("kueue.x-k8s.io/podset-required-topology": "rack")";
  const Scenario k = half_node_pods(
      "[" + half_node_job("a", 0, 1, 100000, kueue_rack) + ", " + half_node_job("g", 1, 2, 20, kueue_rack) + "]", "kueue-tas");
  const RunResult kr = run(k, "kueue-tas");
  const JobRecord& kg = record(kr, k, "g");
  REQUIRE(kg.pods.size() == 2);
  CHECK((kg.pods[0].node == 1 && kg.pods[1].node == 1));
}

TEST_CASE("scenario::kube-tas without a level the gang spreads over the whole cluster, all pods or none", "[scenario]") {
  const Scenario s = half_node_pods("[" + half_node_job("g", 0, 3, 20, "") + "]", "kube-tas");
  const RunResult r = run(s, "kube-tas");
  const JobRecord& g = record(r, s, "g");
  REQUIRE(g.state == JobState::Finished);
  std::vector<int> nodes;
  for (const PodPlacement& pod : g.pods) nodes.push_back(pod.node);
  CHECK(nodes == std::vector<int>{0, 1, 2});  // one pod a node, across both racks
  CHECK(pods_per_rack(g) == std::vector<int>{2, 1});
}

TEST_CASE("scenario::kube-tas a gang no rack holds waits, with the reason, and an unknown level is refused", "[scenario]") {
  const Scenario big = half_node_pods("[" + half_node_job("g", 0, 5, 20, kRackLevel) + "]", "kube-tas");
  const RunResult big_run = run(big, "kube-tas");
  const JobRecord& w = record(big_run, big, "g");
  CHECK(w.state == JobState::Pending);
  CHECK(w.pods.empty());
  CHECK_THAT(w.reason, Catch::Contains("no rack has room for all 5 pods (scheduling.k8s.io/topology-level)"));

  const Scenario bad =
      half_node_pods(R"([)" + half_node_job("g", 0, 2, 20, R"("scheduling.k8s.io/topology-level": "block")") + "]", "kube-tas");
  const RunResult bad_run = run(bad, "kube-tas");
  const JobRecord& b = record(bad_run, bad, "g");
  CHECK(b.state == JobState::Rejected);
  CHECK(b.reason == "scheduling.k8s.io/topology-level: 'block' is not a level of the cluster's fabric (rack)");
}
