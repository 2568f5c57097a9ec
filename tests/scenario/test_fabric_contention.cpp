// Jobs sharing the fabric's uplinks in a replay (sim/engine.cpp, sim/flowing_jobs.h): two
// gangs over one 2:1 rack uplink each get half of it; when one finishes the other speeds up at
// that instant; work is conserved across the rate change.
#include <algorithm>

#include <catch2/catch.hpp>

#include "sim/job_timing.h"
#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// Six DGX A100 nodes (8 x HDR each) in racks of 2 behind 2:1 uplinks. Gangs of 3 nodes: "a"
// takes nodes 0-2 (racks 0 and 1), "b" nodes 3-5 (racks 1 and 2): both cross rack 1's uplink,
// whose capacity (2 nodes' NICs / 2) is one node's NICs, what each ring needs alone.
Scenario two_gangs_over_one_uplink(int a_iterations, int b_iterations, double oversubscription = 2) {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 3, "gpus_per_worker": 8, "model": "vgg16", "iterations": )" +
      std::to_string(a_iterations) + R"(},
      {"name": "b", "submit_s": 0, "workers": 3, "gpus_per_worker": 8, "model": "vgg16", "iterations": )" +
      std::to_string(b_iterations) + "}]";
  const std::string network =
      R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2, "oversubscription": )" +
      std::to_string(oversubscription) + "}]}";
  return scenario_from(
      scenario_json(R"([{"model": "dgx-a100", "count": 6}])", jobs, R"(, "schedulers": ["topology-aware"])", network));
}

}  // namespace

TEST_CASE("scenario::fabric two gangs over one 2:1 uplink share it, and the survivor speeds up", "[scenario]") {
  const Scenario s = two_gangs_over_one_uplink(200, 1000);
  const RunResult run = topsim::test::run(s, "topology-aware");
  const JobRecord& a = record(run, s, "a");
  const JobRecord& b = record(run, s, "b");
  REQUIRE(a.state == JobState::Finished);
  REQUIRE(b.state == JobState::Finished);
  CHECK(a.least_network_share == Approx(0.5));
  CHECK(b.least_network_share == Approx(0.5));
  // "a" ran slowed all along; "b" only while "a" ran.
  CHECK(a.contended_ms == a.finish_ms - a.start_ms);
  CHECK(b.contended_ms == a.finish_ms - b.start_ms);
  CHECK(metric(run, "contended_jobs") == 2);
  // The rack level's uplinks were full while both ran: the samples say so.
  REQUIRE_FALSE(run.samples.empty());
  double peak = 0;
  for (const ClusterSample& sample : run.samples) {
    REQUIRE(sample.link_utilisation.size() == 1);
    peak = std::max(peak, sample.link_utilisation[0]);
  }
  CHECK(peak > 0.3);

  // Work conserved: b's samples at half share until a finished plus at full share after make
  // its whole work (rates from the same throughput model, to the ms the engine rounds to).
  ClusterState cluster = std::move(ClusterState::build(s.cluster)).value();
  JobTimer timer(cluster, s.network, s.overlap);
  const JobSpec& b_spec = s.workload->jobs.at(job_id(s, "b"));
  const double half = timer.rate_at(b_spec, b, 0.5), full = b.samples_per_sec;
  REQUIRE(half < full);
  const double work = 1000.0 * 8 * b_spec.batch_per_gpu * 3;  // iterations x samples per iteration
  const double done_slowed = half * static_cast<double>(a.finish_ms - b.start_ms) / 1e3;
  const double expected_finish_ms = static_cast<double>(a.finish_ms) + (work - done_slowed) / full * 1e3;
  CHECK(static_cast<double>(b.finish_ms) == Approx(expected_finish_ms).margin(2));
}

TEST_CASE("scenario::fabric uplinks that are not oversubscribed slow nobody", "[scenario]") {
  const Scenario s = two_gangs_over_one_uplink(200, 1000, 1);
  const RunResult run = topsim::test::run(s, "topology-aware");
  CHECK(record(run, s, "a").contended_ms == 0);
  CHECK(record(run, s, "b").least_network_share == 1);
  CHECK(metric(run, "contended_jobs") == 0);
}

TEST_CASE("scenario::fabric topology-aware packs a gang into one rack when one holds it", "[scenario]") {
  // Racks of 2 nodes. A 1-GPU job takes node 0 first; the 2-node gang then fits nodes 1 and 2
  // by index (two racks) but goes to rack 1 (nodes 2 and 3), the lowest tier that holds it.
  const std::string jobs =
      R"([{"name": "one", "submit_s": 0, "workers": 1, "gpus_per_worker": 1, "model": "vgg16", "iterations": 100000},
      {"name": "g", "submit_s": 1, "workers": 2, "gpus_per_worker": 8, "model": "vgg16", "iterations": 10}])";
  const Scenario s = scenario_from(
      scenario_json(R"([{"model": "dgx-a100", "count": 4}])", jobs, R"(, "schedulers": ["topology-aware"])",
                    R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 2, "oversubscription": 4}]})"));
  const RunResult run = topsim::test::run(s, "topology-aware");
  REQUIRE(record(run, s, "one").pods.at(0).node == 0);
  const JobRecord& g = record(run, s, "g");
  REQUIRE(g.pods.size() == 2);
  CHECK(g.pods[0].node / 2 == 1);
  CHECK(g.pods[1].node / 2 == 1);
  CHECK(g.contended_ms == 0);
}

TEST_CASE("scenario::fabric a measured node pair caps the rings that hop between them", "[scenario]") {
  const std::string jobs =
      R"([{"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "vgg16", "iterations": 50}])";
  const std::string nodes = R"([{"model": "dgx-a100", "count": 2, "names": ["gpu-a", "gpu-b"]}])";
  const Scenario modelled = scenario_from(scenario_json(nodes, jobs, "", R"(, "network": {"transport": "ib"})"));
  const Scenario measured = scenario_from(scenario_json(
      nodes, jobs, "", R"(, "network": {"transport": "ib", "measured": [{"a": "gpu-b", "b": "gpu-a", "bus_gbps": 10}]})"));
  const RunResult before = topsim::test::run(modelled, "topology-aware"), after = topsim::test::run(measured, "topology-aware");
  const JobRecord& m = record(before, modelled, "g");
  const JobRecord& g = record(after, measured, "g");
  REQUIRE(m.comm.bus_bandwidth_gbps > 10);
  CHECK(g.comm.bus_bandwidth_gbps == 10);
  CHECK(g.samples_per_sec < m.samples_per_sec);
  CHECK(g.finish_ms - g.start_ms > m.finish_ms - m.start_ms);
}

TEST_CASE("scenario::fabric GB200 trays without an NVLink level are noted as domains of their own", "[scenario]") {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "iterations": 10}])";
  const Scenario flat = scenario_from(
      scenario_json(R"([{"model": "gb200-nvl72-tray", "count": 18}])", jobs, "", R"(, "network": {"transport": "ib"})"));
  REQUIRE(flat.notes.size() == 1);
  CHECK_THAT(flat.notes.front(), Catch::Contains("gb200-nvl72-tray nodes without an NVLink level"));
  CHECK_THAT(flat.notes.front(), Catch::Contains(R"("fanout": 18, "links": "nvlink")"));
  const Scenario racks = scenario_from(
      scenario_json(R"([{"model": "gb200-nvl72-tray", "count": 18}])", jobs, "",
                    R"(, "network": {"transport": "ib", "levels": [{"name": "nvl72", "fanout": 18, "links": "nvlink"}]})"));
  CHECK(racks.notes.empty());
  const Scenario h100 =
      scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 2}])", jobs, "", R"(, "network": {"transport": "ib"})"));
  CHECK(h100.notes.empty());
}

TEST_CASE("scenario::fabric topology-aware lays an LLM job larger than an NVL72 rack out in segments of 16", "[scenario]") {
  // Three racks of 18 trays. GPT-3 175B at TP 4 x PP 4 x DP 8 on 32 trays: a pipeline stage is 8
  // trays, so two segments of 16 keep every data-parallel group in its rack. Filling rack 0's 18
  // trays first (Kueue TAS) puts stage 2's groups across two racks, through 2 trays' NICs.
  const std::string llm =
      R"("llm": {"model": "gpt3-175b", "tp": 4, "pp": 4, "vpp": 12, "sequence": 2048, "global_batch": 256, "micro_batch": 2,
      "recompute": "none", "sequence_parallel": true, "precision": "fp8", "tp_overlap": true})";
  const std::string jobs =
      R"([{"name": "gpt3", "submit_s": 0, "workers": 32, "gpus_per_worker": 4, "iterations": 20, )" + llm + "}]";
  const Scenario s = scenario_from(
      scenario_json(R"([{"model": "gb200-nvl72-tray", "count": 54}])", jobs, R"(, "schedulers": ["topology-aware", "kueue-tas"])",
                    R"(, "network": {"transport": "ib", "levels": [{"name": "nvl72", "fanout": 18, "links": "nvlink"}]})"));
  const RunResult aware = topsim::test::run(s, "topology-aware");
  const JobRecord& segments = record(aware, s, "gpt3");
  std::vector<int> per_rack(3, 0);
  for (const PodPlacement& pod : segments.pods) ++per_rack[static_cast<size_t>(pod.node / 18)];
  std::sort(per_rack.begin(), per_rack.end());
  CHECK(per_rack == std::vector<int>{0, 16, 16});
  // Its ideal rate is the faster layout's, which it reaches; filled racks run about 18% slower.
  CHECK(segments.samples_per_sec == Approx(segments.ideal_samples_per_sec));
  const RunResult tas = topsim::test::run(s, "kueue-tas");
  const JobRecord& filled = record(tas, s, "gpt3");
  CHECK(filled.samples_per_sec < 0.85 * segments.samples_per_sec);
  CHECK(filled.ideal_samples_per_sec == Approx(segments.ideal_samples_per_sec));
  // Kueue TAS with pod-set slices of 16 trays, each inside one rack (as one layer of the
  // multi-layer annotation too), and Volcano with partitions of 16 trays, each within a tier-1
  // HyperNode (a rack), lay it out as topology-aware.
  const std::vector<std::pair<std::string, std::string>> asks = {
      {"kueue-tas", R"("kueue.x-k8s.io/podset-slice-required-topology": "nvl72", "kueue.x-k8s.io/podset-slice-size": "16")"},
      {"kueue-tas",
       R"("kueue.x-k8s.io/podset-slice-required-topology-constraints": "[{\"topology\": \"nvl72\", \"size\": 16}]")"},
      {"volcano-topology", R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "16", )"
                           R"("volcano.sh/partition-highest-tier-allowed": "1")"}};
  for (const auto& [scheduler, annotations] : asks) {
    const std::string asked = R"([{"name": "gpt3", "submit_s": 0, "workers": 32, "gpus_per_worker": 4, "iterations": 20, )" +
                              llm + R"(, "annotations": {)" + annotations + "}}]";
    const Scenario a = scenario_from(
        scenario_json(R"([{"model": "gb200-nvl72-tray", "count": 54}])", asked, R"(, "schedulers": [")" + scheduler + R"("])",
                      R"(, "network": {"transport": "ib", "levels": [{"name": "nvl72", "fanout": 18, "links": "nvlink"}]})"));
    const RunResult a_run = topsim::test::run(a, scheduler);
    const JobRecord& placed = record(a_run, a, "gpt3");
    std::vector<int> racks(3, 0);
    for (const PodPlacement& pod : placed.pods) ++racks[static_cast<size_t>(pod.node / 18)];
    CHECK(racks == std::vector<int>{16, 16, 0});
    CHECK(placed.samples_per_sec == Approx(segments.samples_per_sec));
  }
  // A stage of 24 trays (TP 4 x DP 24) does not fit a segment: the racks fill in order.
  const std::string wide = R"([{"name": "wide", "submit_s": 0, "workers": 48, "gpus_per_worker": 4, "iterations": 5,
      "llm": {"model": "llama3-8b", "tp": 4, "pp": 2, "global_batch": 96}}])";
  const Scenario w = scenario_from(
      scenario_json(R"([{"model": "gb200-nvl72-tray", "count": 54}])", wide, R"(, "schedulers": ["topology-aware"])",
                    R"(, "network": {"transport": "ib", "levels": [{"name": "nvl72", "fanout": 18, "links": "nvlink"}]})"));
  const RunResult in_order = topsim::test::run(w, "topology-aware");
  std::vector<int> wide_racks(3, 0);
  for (const PodPlacement& pod : record(in_order, w, "wide").pods) ++wide_racks[static_cast<size_t>(pod.node / 18)];
  std::sort(wide_racks.begin(), wide_racks.end());
  CHECK(wide_racks == std::vector<int>{12, 18, 18});
}

TEST_CASE("scenario::fabric a two-node Tree loads its uplinks with its algorithm bandwidth", "[scenario]") {
  // Two DGX A100 (8 x HDR, 177 GB/s of NICs each), one per rack. A 2 x 8 gang runs NCCL's Tree
  // (core/nccl_algo.h) at 0.92 x 234.8 / 2 x 2 x 15/16 = 202.5 GB/s of bus bandwidth (its chain
  // through 8 GPUs at half their ring, below the NICs); per direction each
  // node sends each byte once, so its demand on a rack uplink is the algorithm bandwidth, 202.5 x
  // 16/30 = 108.0 GB/s, not the bus's 202.5 (nor the NICs' 177). A 1.5:1 uplink (118 GB/s) holds
  // it; a 2:1 uplink (88.5) gives it 88.5 / 108.0 of its rate.
  const auto scenario = [](double oversubscription) {
    return scenario_from(scenario_json(
        R"([{"model": "dgx-a100", "count": 2}])",
        R"([{"name": "t", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "vgg16", "iterations": 100}])",
        R"(, "schedulers": ["topology-aware"])",
        R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "fanout": 1, "oversubscription": )" +
            std::to_string(oversubscription) + "}]}"));
  };
  const Scenario roomy = scenario(1.5);
  const RunResult roomy_run = topsim::test::run(roomy, "topology-aware");
  const JobRecord& alone = record(roomy_run, roomy, "t");
  REQUIRE(alone.state == JobState::Finished);
  REQUIRE(alone.comm.algorithm == NcclAlgorithm::Tree);
  const double demand = alone.comm.bus_bandwidth_gbps * 16 / 30;
  CHECK(demand == Approx(108.0).epsilon(0.01));
  CHECK(alone.contended_ms == 0);
  CHECK(alone.least_network_share == 1);

  const Scenario tight = scenario(2);
  const RunResult tight_run = topsim::test::run(tight, "topology-aware");
  const JobRecord& slowed = record(tight_run, tight, "t");
  REQUIRE(slowed.state == JobState::Finished);
  CHECK(slowed.least_network_share == Approx(8 * 25 * kInfiniBandEfficiency / 2 / demand));
  CHECK(slowed.contended_ms == slowed.finish_ms - slowed.start_ms);
}
