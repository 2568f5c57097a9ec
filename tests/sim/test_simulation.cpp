// The simulator's behaviour (issue 4, "What it must show"): gang atomicity, node labels, default
// scheduling's spreading and sockets, calibration through the simulator's own placements, run
// time feeding back from placement, stuck detection and backfill.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/throughput.h"
#include "scenario/scenario_loader.h"
#include "sim/cluster.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

std::vector<Transition> transitions_of(const RunResult& result, uint32_t job) {
  std::vector<Transition> out;
  for (const Transition& t : result.transitions)
    if (t.job == job) out.push_back(t);
  return out;
}

// Pods per node of a placed job.
std::map<int, int> pods_per_node(const JobRecord& r) {
  std::map<int, int> count;
  for (const PodPlacement& pod : r.pods) ++count[pod.node];
  return count;
}

// Every GPU of the job's pods, as (node, gpu) pairs.
std::set<std::pair<int, int>> job_gpus(const JobRecord& r) {
  std::set<std::pair<int, int>> gpus;
  for (const PodPlacement& pod : r.pods)
    for (int g : pod.gpus) gpus.insert({pod.node, g});
  return gpus;
}

std::string benchmark_path() { return std::string(TOPSIM_SOURCE_DIR) + "/scenarios/ack-v100-benchmark.json"; }

// A job entry of a job list; `work` is `"iterations": N` or `"duration_s": S`.
std::string job(const std::string& name, double submit_s, int workers, int gpus, const std::string& work,
                const std::string& model = "resnet50") {
  return "{\"name\": \"" + name + "\", \"submit_s\": " + std::to_string(submit_s) + ", \"workers\": " + std::to_string(workers) +
         ", \"gpus_per_worker\": " + std::to_string(gpus) + ", \"model\": \"" + model + "\", " + work + "}";
}

constexpr const char* kTwoDgx1 = R"([{"model": "dgx1-v100", "count": 2}])";
constexpr const char* kOneDgx1 = R"([{"model": "dgx1-v100", "count": 1}])";

}  // namespace

TEST_CASE("sim::Simulation gang atomicity", "[sim]") {
  SECTION("a 4 x 2-GPU gang on a node with room for only 3 pods stays pending with 0 pods, then runs with all 4") {
    // A 2-GPU blocker leaves 6 of the DGX-1's 8 GPUs free: room for 3 of the gang's pods.
    const Scenario s = scenario_from(scenario_json(
        kOneDgx1, "[" + job("blocker", 0, 1, 2, "\"duration_s\": 100") + "," + job("gang", 0, 4, 2, "\"duration_s\": 50") + "]"));
    const RunResult r = run(s, "topology-aware");
    const JobRecord& blocker = record(r, s, "blocker");
    const JobRecord& gang = record(r, s, "gang");
    REQUIRE(blocker.state == JobState::Finished);
    REQUIRE(gang.state == JobState::Finished);
    const int64_t freed_ms = blocker.finish_ms;
    CHECK(freed_ms == 100000);
    // Every transition of the gang: pending from 0, running (all pods at once) when the
    // blocker's GPUs come back, never partially placed.
    const auto transitions = transitions_of(r, job_id(s, "gang"));
    REQUIRE(transitions.size() == 3);
    CHECK(transitions[0].to == JobState::Pending);
    CHECK(transitions[0].time_ms == 0);
    CHECK(transitions[1].to == JobState::Running);
    CHECK(transitions[1].time_ms == freed_ms);
    CHECK(transitions[2].to == JobState::Finished);
    CHECK(gang.start_ms == freed_ms);
    REQUIRE(gang.pods.size() == 4);
    for (const PodPlacement& pod : gang.pods) {
      CHECK(pod.gpus.size() == 2);
      CHECK(pod.placed_ms == freed_ms);
      CHECK(pod.node == 0);
    }
    CHECK(job_gpus(gang).size() == 8);  // 4 pods x 2 distinct GPUs
    CHECK(metric(r, "held_idle_gpu_hours") == 0);
  }

  SECTION("the same job under the default scheduler holds 3 pods partially placed from 0 (the contrast)") {
    const Scenario s = scenario_from(scenario_json(
        kOneDgx1, "[" + job("blocker", 0, 1, 2, "\"duration_s\": 100") + "," + job("gang", 0, 4, 2, "\"duration_s\": 50") + "]"));
    const RunResult r = run(s, "default");
    const JobRecord& blocker = record(r, s, "blocker");
    const JobRecord& gang = record(r, s, "gang");
    const auto transitions = transitions_of(r, job_id(s, "gang"));
    REQUIRE(transitions.size() == 4);
    CHECK(transitions[1].to == JobState::Partial);
    CHECK(transitions[1].time_ms == 0);
    CHECK(transitions[2].to == JobState::Running);
    CHECK(transitions[2].time_ms == blocker.finish_ms);
    REQUIRE(gang.pods.size() == 4);
    CHECK(std::count_if(gang.pods.begin(), gang.pods.end(), [](const PodPlacement& p) { return p.placed_ms == 0; }) == 3);
    CHECK(gang.first_pod_ms == 0);
    // 3 pods x 2 GPUs held idle until the blocker finished.
    CHECK(metric(r, "held_idle_gpu_hours") == Approx(6 * blocker.finish_ms / 3.6e6));
  }

  SECTION("a 2 x 8-GPU gang on 2 x dgx1-v100 waits for a 1-GPU job, then gets both whole nodes at once") {
    const Scenario s = scenario_from(scenario_json(
        kTwoDgx1, "[" + job("blocker", 0, 1, 1, "\"duration_s\": 100") + "," + job("gang", 0, 2, 8, "\"duration_s\": 50") + "]"));
    const RunResult r = run(s, "topology-aware");
    const JobRecord& blocker = record(r, s, "blocker");
    const JobRecord& gang = record(r, s, "gang");
    REQUIRE(gang.state == JobState::Finished);
    const auto transitions = transitions_of(r, job_id(s, "gang"));
    REQUIRE(transitions.size() == 3);
    CHECK(transitions[0].to == JobState::Pending);
    CHECK(transitions[1].to == JobState::Running);
    CHECK(transitions[1].time_ms == blocker.finish_ms);
    REQUIRE(gang.pods.size() == 2);
    CHECK(gang.pods[0].node != gang.pods[1].node);
    for (const PodPlacement& pod : gang.pods) {
      CHECK(pod.gpus == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
      CHECK(pod.placed_ms == blocker.finish_ms);
    }
    CHECK(gang.comm.hosts == 2);
    CHECK(gang.comm.ranks == 16);
  }

  SECTION("a job whose pods request unequal GPU counts is rejected by topology-aware, run by default") {
    const Scenario s =
        scenario_from(scenario_json(kOneDgx1, R"([{"name": "uneven", "pods": [2, 1], "model": "resnet50", "duration_s": 10}])"));
    const JobRecord topo = run(s, "topology-aware").jobs.at(0);
    CHECK(topo.state == JobState::Rejected);
    CHECK_THAT(topo.reason, Catch::Contains("unequal GPU counts (2,1)"));
    CHECK(topo.pods.empty());
    const JobRecord plain = run(s, "default").jobs.at(0);
    CHECK(plain.state == JobState::Finished);
    REQUIRE(plain.pods.size() == 2);
    CHECK(plain.pods[0].gpus.size() + plain.pods[1].gpus.size() == 3);
  }
}

TEST_CASE("sim::Simulation node labels decide which requests a node serves", "[sim]") {
  SECTION("topology-labelled nodes reject the default scheduler's nvidia.com/gpu requests") {
    const Scenario s = scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2, "label": "topology"}])",
                                                   "[" + job("plain", 0, 1, 1, "\"duration_s\": 10") + "]"));
    const RunResult r = run(s, "default");
    CHECK(r.jobs.at(0).state == JobState::Rejected);
    CHECK_THAT(r.jobs.at(0).reason, Catch::Contains("no node serves nvidia.com/gpu requests"));
    CHECK(r.jobs.at(0).pods.empty());
    CHECK(run(s, "topology-aware").jobs.at(0).state == JobState::Finished);
  }

  SECTION("default-labelled nodes reject the topology-aware scheduler's aliyun.com/gpu requests") {
    const Scenario s = scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2, "label": "default"}])",
                                                   "[" + job("gang", 0, 1, 1, "\"duration_s\": 10") + "]"));
    const RunResult r = run(s, "topology-aware");
    CHECK(r.jobs.at(0).state == JobState::Rejected);
    CHECK_THAT(r.jobs.at(0).reason, Catch::Contains("no node serves aliyun.com/gpu requests"));
    CHECK(run(s, "default").jobs.at(0).state == JobState::Finished);
  }

  SECTION("with one node of each label, each scheduler uses only its own node and counts only its GPUs") {
    // Node 0 is labelled topology, node 1 default.
    const Scenario s = scenario_from(scenario_json(
        R"([{"model": "dgx1-v100", "label": "topology"}, {"model": "dgx1-v100", "label": "default"}])",
        "[" + job("pair", 0, 2, 1, "\"duration_s\": 10") + "," + job("both-nodes", 0, 2, 8, "\"duration_s\": 10") + "]"));
    const RunResult topo = run(s, "topology-aware");
    const RunResult plain = run(s, "default");
    CHECK(pods_per_node(record(topo, s, "pair")) == std::map<int, int>{{0, 2}});
    CHECK(pods_per_node(record(plain, s, "pair")) == std::map<int, int>{{1, 2}});
    for (const RunResult* r : {&topo, &plain}) {
      const JobRecord& big = record(*r, s, "both-nodes");
      CHECK(big.state == JobState::Rejected);
      CHECK_THAT(big.reason, Catch::Contains("needs 16 GPUs, the nodes serving it have 8"));
    }
  }
}

TEST_CASE("sim::Simulation default scheduling spreads and talks over sockets", "[sim]") {
  auto scenario = load_scenario(benchmark_path());
  REQUIRE(scenario.ok());
  const Scenario& s = *scenario;
  REQUIRE(s.workload->jobs.size() == 6);

  SECTION("default: every benchmark job runs 2 + 2 pods on the two nodes over TCP, each pod its own host (any seed)") {
    for (uint64_t seed : {1, 2, 3}) {
      const RunResult r = run(s, "default", seed);
      for (const JobRecord& j : r.jobs) {
        INFO("seed " << seed << ", job submitted at " << j.submit_ms);
        REQUIRE(j.state == JobState::Finished);
        CHECK(pods_per_node(j) == std::map<int, int>{{0, 2}, {1, 2}});
        CHECK(j.comm.transport == CommTransport::Tcp);
        CHECK(j.comm.hosts == 4);
        CHECK(j.comm.ranks == 4);
        CHECK_FALSE(j.comm.nvlink_hops);
      }
    }
  }

  SECTION("topology-aware: all 4 pods of every benchmark job on one node over NVLink P2P, one host") {
    const RunResult r = run(s, "topology-aware");
    for (const JobRecord& j : r.jobs) {
      REQUIRE(j.state == JobState::Finished);
      CHECK(pods_per_node(j).size() == 1);
      CHECK(j.pods.size() == 4);
      CHECK(j.comm.transport == CommTransport::NvLinkP2p);
      CHECK(j.comm.hosts == 1);
    }
  }

  SECTION("two default pods on one node use pod sockets (2.2 GB/s), not the NVLink topology-aware pods get") {
    const Scenario one = scenario_from(scenario_json(kOneDgx1, "[" + job("pair", 0, 2, 1, "\"iterations\": 10") + "]"));
    const JobRecord plain = run(one, "default").jobs.at(0);
    REQUIRE(plain.pods.size() == 2);
    CHECK(plain.pods[0].node == plain.pods[1].node);
    CHECK(plain.comm.transport == CommTransport::PodSockets);
    CHECK(plain.comm.hosts == 2);
    CHECK(plain.comm.bus_bandwidth_gbps == Approx(kPodSocketGbps));
    const JobRecord topo = run(one, "topology-aware").jobs.at(0);
    CHECK(topo.comm.transport == CommTransport::NvLinkP2p);
    CHECK(topo.comm.hosts == 1);
    CHECK(topo.comm.bus_bandwidth_gbps > 10 * kPodSocketGbps);
    CHECK(topo.samples_per_sec > plain.samples_per_sec);
  }
}

TEST_CASE("sim::Simulation calibration through the simulator's own placements", "[sim]") {
  // The brief's table (TF + Horovod, 2 x DGX-1 V100, 4 workers x 1 GPU, batch 64), images/sec:
  // VGG16 991.92 topology-aware vs 200.47 default; ResNet50 1471.55 vs 745.38. Each within +-10%.
  auto scenario = load_scenario(benchmark_path());
  REQUIRE(scenario.ok());
  const Scenario& s = *scenario;
  const RunResult topo = run(s, "topology-aware");
  const RunResult plain = run(s, "default");
  auto within_10_percent = [](double predicted, double measured) {
    INFO("predicted " << predicted << " images/sec, measured " << measured);
    CHECK(std::abs(predicted - measured) <= 0.10 * measured);
  };

  SECTION("VGG16: 991.92 images/sec topology-aware, 200.47 default, each within 10%") {
    within_10_percent(record(topo, s, "tf-vgg16").samples_per_sec, 991.92);
    within_10_percent(record(plain, s, "tf-vgg16").samples_per_sec, 200.47);
  }
  SECTION("ResNet50: 1471.55 images/sec topology-aware, 745.38 default, each within 10%") {
    within_10_percent(record(topo, s, "tf-resnet50").samples_per_sec, 1471.55);
    within_10_percent(record(plain, s, "tf-resnet50").samples_per_sec, 745.38);
  }
  SECTION("the placements behind those numbers are the ones the schedulers chose: one node vs 2 + 2") {
    CHECK(pods_per_node(record(topo, s, "tf-vgg16")).size() == 1);
    CHECK(pods_per_node(record(plain, s, "tf-vgg16")).size() == 2);
    CHECK(pods_per_node(record(topo, s, "tf-resnet50")).size() == 1);
    CHECK(pods_per_node(record(plain, s, "tf-resnet50")).size() == 2);
  }
}

TEST_CASE("sim::Simulation run time feeds back from placement", "[sim]") {
  // The benchmark's network (10 GbE, TCP at 60%) so default placement is as slow as measured.
  const std::string network = R"(, "network": {"transport": "tcp", "nic_speed_gbit": 10, "tcp_efficiency": 0.6})";
  auto with_network = [&](const std::string& jobs) { return scenario_from(scenario_json(kTwoDgx1, jobs, "", network)); };

  SECTION("an iterations job runs iterations x step time; default placement makes its JCT longer") {
    const Scenario s = with_network("[" + job("vgg", 0, 4, 1, "\"iterations\": 500", "vgg16") + "]");
    const JobRecord topo = run(s, "topology-aware").jobs.at(0);
    const JobRecord plain = run(s, "default").jobs.at(0);
    for (const JobRecord* j : {&topo, &plain}) {
      // samples/sec = 4 ranks x batch 64 / step: 500 steps take 500 x 256 / samples_per_sec s.
      const double expected_ms = 500 * 256 * 1000.0 / j->samples_per_sec;
      CHECK(std::abs((j->finish_ms - j->start_ms) - expected_ms) <= 1.0);
    }
    CHECK(plain.finish_ms - plain.submit_ms > topo.finish_ms - topo.submit_ms);
    CHECK(static_cast<double>(plain.finish_ms - plain.start_ms) / (topo.finish_ms - topo.start_ms) ==
          Approx(topo.samples_per_sec / plain.samples_per_sec).epsilon(1e-4));
  }

  SECTION("a duration job finishes in exactly its duration under the ideal placement, longer under default") {
    const Scenario s = with_network("[" + job("trace", 0, 4, 1, "\"duration_s\": 600", "vgg16") + "]");
    const JobRecord topo = run(s, "topology-aware").jobs.at(0);
    CHECK(topo.finish_ms - topo.start_ms == 600000);
    CHECK(topo.samples_per_sec == topo.ideal_samples_per_sec);
    const JobRecord plain = run(s, "default").jobs.at(0);
    CHECK(plain.ideal_samples_per_sec == topo.ideal_samples_per_sec);
    const int64_t stretched = static_cast<int64_t>(std::ceil(600000 * plain.ideal_samples_per_sec / plain.samples_per_sec));
    CHECK(plain.finish_ms - plain.start_ms == stretched);
    CHECK(stretched > 600000);
  }

  SECTION("Philly jobs measured on P40s (the default) run shorter on V100s: work over throughput") {
    // Expectation: work = 600 s x the job's ideal throughput on an 8 x P40 server; on the DGX-1
    // it runs work / its own throughput, by the P40 / V100 ratio (11.76 / 15.7 TFLOPS FP32).
    test::TempDir dir;
    std::ofstream(dir.file("philly.csv")) << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                          << "2017-10-09 07:00:00,600,4,2400,vc1\n";
    std::ofstream(dir.file("s.json")) << R"({"cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}]},
      "workload": {"kind": "philly", "path": "philly.csv"}})";
    auto s = load_scenario(dir.file("s.json"));
    REQUIRE(s.ok());
    CHECK(s->workload->reference_gpu == "p40");
    const JobRecord job = run(*s, "topology-aware").jobs.at(0);
    const double run_ms = static_cast<double>(job.finish_ms - job.start_ms);
    CHECK(run_ms < 600000 * 0.85);
    CHECK(run_ms == Approx(1e3 * job.work_samples / job.samples_per_sec).margin(1));
    CHECK(job.work_samples / 600 < job.ideal_samples_per_sec);  // the P40 server's rate is the lower
  }

  SECTION("Philly trace jobs (4 GPUs, and 16 GPUs as a 2 x 8 gang) run exactly their trace durations under topology-aware") {
    test::TempDir dir;
    std::ofstream(dir.file("philly.csv")) << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                          << "2017-10-09 07:00:00,600,4,2400,vc1\n"
                                          << "2017-10-09 07:00:10,1200,16,19200,vc2\n";
    std::ofstream(dir.file("s.json")) << R"({"cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}]},
      "workload": {"kind": "philly", "path": "philly.csv", "reference_gpu": "v100"}})";
    auto s = load_scenario(dir.file("s.json"));
    REQUIRE(s.ok());
    const RunResult r = run(*s, "topology-aware");
    REQUIRE(r.jobs.size() == 2);
    CHECK(r.jobs[0].state == JobState::Finished);
    CHECK(r.jobs[0].finish_ms - r.jobs[0].start_ms == 600000);
    CHECK(r.jobs[1].state == JobState::Finished);
    CHECK(r.jobs[1].pods.size() == 2);
    CHECK(r.jobs[1].finish_ms - r.jobs[1].start_ms == 1200000);
    // The gang needs both nodes: it starts when the 4-GPU job is done.
    CHECK(r.jobs[1].start_ms == r.jobs[0].finish_ms);
  }
}

TEST_CASE("sim::Simulation stuck detection", "[sim]") {
  // 2 x dgx1-v100 (16 GPUs). All submitted at 0, in this order:
  //   blocker: 1 pod x 4 GPUs for 100 s;  A: 2 pods x 8 GPUs;  B: 3 pods x 4 GPUs.
  // Default scheduler (LeastAllocated score = free-after-pod x 100 / 8, pods of a job placed
  // before the next job's): the blocker goes to a random node X (both score 50); A's first pod
  // (8 GPUs) only fits on the other node Y; its second does not fit (X has 4 free): A holds Y.
  // B's first pod takes X's last 4 GPUs. At 100 s the blocker ends: A's 8-GPU pod still does
  // not fit, B's second pod takes X's 4 GPUs, its third has nowhere to go. Nothing runs: A holds
  // 8 GPUs, B 8, both stuck, whichever node the seed picks as X.
  // Jobs of equal pod size cannot deadlock this way: the earlier job always gets freed GPUs
  // first, so a later job only places pods once the earlier one is complete.
  const Scenario s = scenario_from(scenario_json(kTwoDgx1, "[" + job("blocker", 0, 1, 4, "\"duration_s\": 100") + "," +
                                                               job("A", 0, 2, 8, "\"duration_s\": 100") + "," +
                                                               job("B", 0, 3, 4, "\"duration_s\": 100") + "]"));

  SECTION("default: A and B end stuck with 1 of 2 and 2 of 3 pods, 12 GPUs x 100 s held idle, for any seed") {
    for (uint64_t seed : {1, 2, 3, 4}) {
      INFO("seed " << seed);
      const RunResult r = run(s, "default", seed);
      const JobRecord& blocker = record(r, s, "blocker");
      const JobRecord& a = record(r, s, "A");
      const JobRecord& b = record(r, s, "B");
      CHECK(blocker.state == JobState::Finished);
      CHECK(blocker.finish_ms == 100000);
      REQUIRE(a.state == JobState::Stuck);
      REQUIRE(b.state == JobState::Stuck);
      CHECK_THAT(a.reason, Catch::StartsWith("stuck: 1 of 2 pods placed"));
      CHECK_THAT(b.reason, Catch::StartsWith("stuck: 2 of 3 pods placed"));
      CHECK(a.start_ms == -1);
      CHECK(b.start_ms == -1);
      // A and B together hold all 16 GPUs.
      CHECK(job_gpus(a).size() + job_gpus(b).size() == 16);
      // A: 8 GPUs from 0 to 100 s; B: 4 GPUs from 0 and 4 from 100 s, to the end at 100 s.
      CHECK(metric(r, "held_idle_gpu_hours") == Approx((8 + 4) * 100000 / 3.6e6));
      CHECK(metric(r, "stuck") == 2);
      CHECK(metric(r, "held_idle_gpu_hours") == Approx(12 * 100 / 3600.0));
      const auto a_transitions = transitions_of(r, job_id(s, "A"));
      REQUIRE(a_transitions.size() == 3);
      CHECK(a_transitions[1].to == JobState::Partial);
      CHECK(a_transitions[2].to == JobState::Stuck);
      CHECK(a_transitions[2].time_ms == 100000);
    }
  }

  SECTION("topology-aware: B runs beside the blocker (backfill), A after both; everything finishes, nothing held") {
    const RunResult r = run(s, "topology-aware");
    const JobRecord& blocker = record(r, s, "blocker");
    const JobRecord& a = record(r, s, "A");
    const JobRecord& b = record(r, s, "B");
    CHECK(blocker.state == JobState::Finished);
    CHECK(a.state == JobState::Finished);
    CHECK(b.state == JobState::Finished);
    CHECK(b.start_ms == 0);
    CHECK(a.start_ms == std::max(blocker.finish_ms, b.finish_ms));
    CHECK(metric(r, "held_idle_gpu_hours") == 0);
    CHECK(metric(r, "stuck") == 0);
  }
}

TEST_CASE("sim::Simulation backfill", "[sim]") {
  // 2 x dgx1-v100. blocker: 1 x 8 GPUs at 0 for 100 s; big: 2 x 8 at 1 s (needs both nodes);
  // small: 1 x 4 at 2 s for 50 s, which fits beside the blocker.
  const std::string jobs = "[" + job("blocker", 0, 1, 8, "\"duration_s\": 100") + "," +
                           job("big", 1, 2, 8, "\"duration_s\": 100") + "," + job("small", 2, 1, 4, "\"duration_s\": 50") + "]";

  SECTION("with backfill the small job starts at 2 s, without it waits for the big one to finish (200 s)") {
    const Scenario with = scenario_from(scenario_json(kTwoDgx1, jobs, R"(, "queue": {"backfill": true})"));
    const Scenario without = scenario_from(scenario_json(kTwoDgx1, jobs, R"(, "queue": {"backfill": false})"));
    const RunResult r_with = run(with, "topology-aware");
    const RunResult r_without = run(without, "topology-aware");
    CHECK(record(r_with, with, "small").start_ms == 2000);
    CHECK(record(r_without, without, "small").start_ms == record(r_without, without, "big").finish_ms);
    CHECK(record(r_without, without, "big").finish_ms == 200000);
    CHECK(record(r_with, with, "small").start_ms < record(r_without, without, "small").start_ms);
    // Here backfilling does not delay the big job: the small one ends before the blocker.
    CHECK(record(r_with, with, "big").start_ms == 100000);
    CHECK(record(r_without, without, "big").start_ms == 100000);
  }
}

TEST_CASE("sim::Simulation in a cluster of several GPU models", "[sim]") {
  constexpr const char* kV100AndH100 = R"([{"model": "dgx1-v100", "count": 1}, {"model": "hgx-h100", "count": 1}])";
  SECTION("topology-aware starts a job where it finishes first: the H100 node, listed second") {
    // Expectation: one 1-GPU ResNet-50 job measured on V100s; by ring and fill alone both nodes
    // tie and node 0 (the V100s) would win; by predicted throughput the H100 does, and the job
    // runs its V100 duration x the V100 / H100 throughput ratio (less than half).
    const Scenario s = scenario_from(std::string(R"({"cluster": {"nodes": )") + kV100AndH100 +
                                     R"(}, "workload": {"kind": "jobs", "reference_gpu": "v100", "jobs": [)" +
                                     job("j", 0, 1, 1, "\"duration_s\": 3600") + "]}}");
    const JobRecord r = run(s, "topology-aware").jobs.at(0);
    REQUIRE(r.pods.size() == 1);
    CHECK(r.pods.front().node == 1);
    CHECK(static_cast<double>(r.finish_ms - r.start_ms) < 3600e3 / 2);
  }
  SECTION("a job list names each job's reference GPU: the mixed cluster needs no workload-wide one") {
    // Expectation: two 1-GPU jobs of 3600 s, one measured on a V100, one on an H100, both run on
    // the H100 node (topology-aware): the first takes less than half its duration, the second
    // exactly its duration.
    const Scenario s =
        scenario_from(std::string(R"({"cluster": {"nodes": )") + kV100AndH100 + R"(}, "workload": {"kind": "jobs", "jobs": [)" +
                      job("v", 0, 1, 1, "\"duration_s\": 3600, \"reference_gpu\": \"v100\"") + "," +
                      job("h", 0, 1, 1, "\"duration_s\": 3600, \"reference_gpu\": \"h100\"") + "]}}");
    const RunResult r = run(s, "topology-aware");
    CHECK(r.jobs.at(0).pods.front().node == 1);
    CHECK(r.jobs.at(1).pods.front().node == 1);
    CHECK(static_cast<double>(r.jobs.at(0).finish_ms - r.jobs.at(0).start_ms) < 3600e3 / 2);
    CHECK(r.jobs.at(1).finish_ms - r.jobs.at(1).start_ms == 3600000);
  }
  SECTION("results say per node type where the training jobs ran: jobs, GPU-hours, samples/s") {
    // Expectation: two 8-GPU jobs at once: one on each node (topology-aware puts the first on
    // the H100s); every started job is counted once, its GPU time on the type it ran on.
    const Scenario s = scenario_from(std::string(R"({"cluster": {"nodes": )") + kV100AndH100 +
                                     R"(}, "workload": {"kind": "jobs", "reference_gpu": "v100", "jobs": [)" +
                                     job("a", 0, 1, 8, "\"duration_s\": 3600") + "," + job("b", 0, 1, 8, "\"duration_s\": 3600") +
                                     "]}, \"schedulers\": [\"topology-aware\"]}");
    const ResultSet results = run_all(s);
    const auto& usage = results.schedulers.front().runs.front().by_node_type;
    REQUIRE(usage.size() == 2);
    CHECK(usage[0].node_type == "dgx1-v100");
    CHECK(usage[1].node_type == "hgx-h100");
    CHECK(usage[0].jobs == 1);
    CHECK(usage[1].jobs == 1);
    CHECK(usage[0].gpu_hours > 2 * usage[1].gpu_hours);  // the same work takes the V100s over twice as long
    CHECK(usage[1].mean_samples_per_sec > 2 * usage[0].mean_samples_per_sec);
  }
  SECTION("a job whose state does not fit a GPU's memory runs only on the types it fits, under every scheduler") {
    // Expectation: GPT-2 XL needs 23.2 GiB per GPU (16 B x 1.56 G parameters): not on the
    // 16 GiB V100s of node 0, so on the A100 node, whoever schedules.
    const Scenario s = scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 1}, {"model": "dgx-a100", "count": 1}])",
                                                   "[" + job("xl", 0, 2, 1, "\"iterations\": 10", "gpt2-xl") + "]"));
    for (const char* scheduler : {"topology-aware", "default", "binpack"}) {
      INFO(scheduler);
      const JobRecord r = run(s, scheduler).jobs.at(0);
      CHECK(r.state == JobState::Finished);
      for (const PodPlacement& pod : r.pods) CHECK(pod.node == 1);
    }
  }
  SECTION("an LLM job one node type cannot run runs on the others, under every scheduler") {
    // Expectation: Llama 3 8B in BF16 (tp 8) on a cluster of two V100 nodes (no BF16: its
    // configuration cannot run there) listed first and one H100 node: all three jobs run on the
    // H100 node, one after another, whoever schedules; the ResNet-50 jobs run anywhere.
    const std::string llm = R"({"name": "llm", "count": 3, "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "iterations": 50,
                                "llm": {"model": "llama3-8b", "tp": 8}})";
    const Scenario s = scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2}, {"model": "hgx-h100", "count": 1}])",
                                                   "[" + llm + "," + job("cnn", 0, 1, 8, "\"iterations\": 100") + "]", "",
                                                   R"(, "network": {"levels": [{"name": "rack", "fanout": 3}]})"));
    for (const char* scheduler :
         {"topology-aware", "default", "binpack", "kueue-tas", "volcano-topology", "kube-tas", "kai-topology"}) {
      INFO(scheduler);
      const RunResult r = run(s, scheduler);
      for (const char* name : {"llm-0", "llm-1", "llm-2"}) {
        INFO(name);
        const JobRecord& j = record(r, s, name);
        CHECK(j.state == JobState::Finished);
        REQUIRE(j.pods.size() == 1);
        CHECK(j.pods.front().node == 2);
      }
      CHECK(record(r, s, "cnn").state == JobState::Finished);
      CHECK(record(r, s, "llm-1").start_ms >= record(r, s, "llm-0").finish_ms);
    }
  }
  SECTION("topology-aware starts an LLM job on the node type where it runs fastest") {
    // Expectation: a 1-GPU Megatron 1.7B job; `topsim estimate` gives 13,565.9 tokens/s on a
    // dgx-a100 GPU and 20,878.3 on a pcie-h100 one. By ring and fill alone the two idle nodes tie
    // and node 0 (the A100s, listed first) would win; by the LLM's predicted rate the H100 does.
    const Scenario s = scenario_from(scenario_json(
        R"([{"model": "dgx-a100", "count": 1}, {"model": "pcie-h100", "count": 1}])",
        R"([{"name": "j", "submit_s": 0, "workers": 1, "gpus_per_worker": 1, "iterations": 10, "llm": {"model": "megatron-1.7b"}}])",
        R"(, "schedulers": ["topology-aware"])"));
    const JobRecord r = run(s, "topology-aware").jobs.at(0);
    REQUIRE(r.pods.size() == 1);
    CHECK(r.pods.front().node == 1);
    CHECK(r.samples_per_sec == Approx(20878.3).epsilon(0.01));
  }
  SECTION("a gang over two node types runs at the pace of the slower, and is counted there") {
    // Expectation: one A100 node and one H100 node, a 2 x 8-GPU job fills both. Each step waits
    // for the A100 ranks, so the job runs exactly as fast as on two A100 nodes (same NICs, same
    // ring), not as on two H100 nodes, and its ideal is the H100 nodes' ideal; per node type the
    // job counts where it was paced (the A100s) and its GPU time goes half to each type. The same
    // for an LLM job (tp 8, pp 2).
    const std::string cnn = job("g", 0, 2, 8, "\"iterations\": 1000");
    const std::string llm =
        R"({"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "iterations": 20, "llm": {"model": "llama3-8b", "tp": 8, "pp": 2}})";
    for (const std::string& jobs : {cnn, llm}) {
      const auto on = [&](const char* nodes) { return scenario_from(scenario_json(nodes, "[" + jobs + "]")); };
      const Scenario mixed = on(R"([{"model": "hgx-h100", "count": 1}, {"model": "dgx-a100", "count": 1}])");
      const Scenario a100 = on(R"([{"model": "dgx-a100", "count": 2}])");
      const Scenario h100 = on(R"([{"model": "hgx-h100", "count": 2}])");
      for (const char* scheduler : {"topology-aware", "default"}) {
        INFO(scheduler << (&jobs == &llm ? " llm" : " cnn"));
        const JobRecord r = run(mixed, scheduler).jobs.at(0);
        REQUIRE(r.state == JobState::Finished);
        REQUIRE(pods_per_node(r).size() == 2);
        const JobRecord slow = run(a100, scheduler).jobs.at(0);
        CHECK(r.samples_per_sec == Approx(slow.samples_per_sec).epsilon(1e-9));
        CHECK(r.finish_ms - r.start_ms == slow.finish_ms - slow.start_ms);
        // Its ideal is the faster type's: spreading onto slower cards costs placement efficiency.
        const JobRecord fast = run(h100, scheduler).jobs.at(0);
        CHECK(fast.samples_per_sec > 1.3 * r.samples_per_sec);
        CHECK(r.ideal_samples_per_sec == Approx(fast.ideal_samples_per_sec).epsilon(1e-9));
      }
      Scenario one = mixed;
      one.schedulers = {"topology-aware"};
      const ResultSet results = run_all(one);
      const auto& usage = results.schedulers.front().runs.front().by_node_type;
      REQUIRE(usage.size() == 2);
      CHECK(usage[0].node_type == "hgx-h100");
      CHECK(usage[0].jobs == 0);
      CHECK(usage[1].jobs == 1);
      CHECK(usage[0].gpu_hours > 0);
      CHECK(usage[0].gpu_hours == Approx(usage[1].gpu_hours));
    }
  }
  SECTION("topology-aware keeps a gang to one GPU model when one holds it, the fastest first") {
    // Expectation: two H100 and two A100 nodes (H100s listed first). An 8-GPU job takes an H100
    // node; a 2 x 8-GPU gang then finds one H100 and two A100 nodes free. The pack policy over
    // all nodes would take the free H100 and one A100 (paced by the A100 and wasting the H100);
    // kept to one model, the gang goes on the two A100 nodes. With both H100 nodes free it goes
    // there, the faster model. For an LLM job too (Llama 3 8B, tp 8, pp 2).
    const char* nodes = R"([{"model": "hgx-h100", "count": 2}, {"model": "dgx-a100", "count": 2}])";
    const std::string cnn = job("g", 1, 2, 8, "\"iterations\": 1000");
    const std::string llm =
        R"({"name": "g", "submit_s": 1, "workers": 2, "gpus_per_worker": 8, "iterations": 20, "llm": {"model": "llama3-8b", "tp": 8, "pp": 2}})";
    for (const std::string& gang : {cnn, llm}) {
      INFO(gang);
      const Scenario busy =
          scenario_from(scenario_json(nodes, "[" + job("a", 0, 1, 8, "\"iterations\": 100000") + "," + gang + "]"));
      const RunResult r = run(busy, "topology-aware");
      const JobRecord& g = record(r, busy, "g");
      REQUIRE(g.state == JobState::Finished);
      CHECK(pods_per_node(g) == std::map<int, int>{{2, 1}, {3, 1}});
      const Scenario idle = scenario_from(scenario_json(nodes, "[" + gang + "]"));
      CHECK(pods_per_node(run(idle, "topology-aware").jobs.at(0)) == std::map<int, int>{{0, 1}, {1, 1}});
    }
  }
  SECTION("a job that selects GPU models runs only on them, under every scheduler, and holds back no other job") {
    // Expectation: one HGX H100 and one DGX A100 node. `busy` (8 GPUs, selects H100) takes the
    // H100; `pinned` (the same shape, selects H100) waits for it although the A100 is idle;
    // `free` (the same shape, selects nothing) starts on the A100 on arrival: the failed attempt
    // of a job held to other node types does not hold back the job behind it.
    const char* nodes = R"([{"model": "hgx-h100", "count": 1}, {"model": "dgx-a100", "count": 1}])";
    const std::string h100 = R"("gpu_models": "NVIDIA-H100-80GB-HBM3")";
    const std::string jobs = "[" + job("busy", 0, 1, 8, "\"iterations\": 3000, " + h100) + "," +
                             job("pinned", 1, 1, 8, "\"iterations\": 100, " + h100) + "," +
                             job("free", 2, 1, 8, "\"iterations\": 100") + "]";
    const Scenario s = scenario_from(scenario_json(nodes, jobs));
    for (const char* name : {"topology-aware", "default", "binpack", "kueue-tas", "volcano-topology", "kube-tas", "kai-topology",
                             "spread", "best-fit", "fgd", "random"}) {
      INFO(name);
      const RunResult r = run(s, name);
      const JobRecord& busy = record(r, s, "busy");
      const JobRecord& pinned = record(r, s, "pinned");
      const JobRecord& free = record(r, s, "free");
      REQUIRE((busy.state == JobState::Finished && pinned.state == JobState::Finished && free.state == JobState::Finished));
      CHECK(pods_per_node(busy) == std::map<int, int>{{0, 1}});
      CHECK(pods_per_node(pinned) == std::map<int, int>{{0, 1}});
      CHECK(pinned.start_ms == busy.finish_ms);
      CHECK(pods_per_node(free) == std::map<int, int>{{1, 1}});
      CHECK(free.start_ms == 2000);
    }
  }
  SECTION("a job that selects a GPU model the cluster lacks, or too few of its GPUs, is refused naming why") {
    const char* nodes = R"([{"model": "hgx-h100", "count": 1}, {"model": "dgx-a100", "count": 2}])";
    const auto error = [](const std::string& json) {
      const auto scenario = parse_scenario(json, "test.json", "");
      return scenario.ok() ? std::string("loaded") : scenario.error().message;
    };
    CHECK_THAT(error(scenario_json(nodes, "[" + job("j", 0, 1, 8, R"("iterations": 5, "gpu_models": ["h200", "b200"])") + "]")),
               Catch::EndsWith("/workload: job 'j' selects GPU model h200 or b200 (\"gpu_models\"), and the cluster has none "
                               "(its GPUs: h100, a100)"));
    CHECK_THAT(
        error(scenario_json(nodes, "[" + job("j", 0, 2, 8, R"("iterations": 5, "gpu_models": "h100")") + "]")),
        Catch::EndsWith("/workload: job 'j' needs 16 GPUs, the nodes it can run on (hgx-h100) have 8; it cannot run on a100: "
                        "it selects GPU model h100 (\"gpu_models\", a nvidia.com/gpu.product node selector)"));
  }
  SECTION("admission counts only the serving nodes a job can run on, and says why the others do not count") {
    // Expectation: the H100 node is pinned to the default scheduler's label; topology-aware serves
    // the V100s alone, where the BF16 job cannot run: it is rejected at submission with both
    // reasons; the default scheduler, serving the H100 node, runs it.
    const Scenario s = scenario_from(scenario_json(
        R"([{"model": "dgx1-v100", "count": 2, "label": "topology"}, {"model": "hgx-h100", "count": 1, "label": "default"}])",
        R"([{"name": "llm", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "iterations": 50, "llm": {"model": "llama3-8b", "tp": 8}}])"));
    const JobRecord rejected = run(s, "topology-aware").jobs.at(0);
    CHECK(rejected.state == JobState::Rejected);
    CHECK_THAT(rejected.reason, Catch::Contains("needs 8 GPUs, the nodes serving it that it can run on have 0 (it cannot run on "
                                                "dgx1-v100: precision bf16 needs BF16 tensor cores"));
    CHECK(run(s, "default").jobs.at(0).state == JobState::Finished);
  }
}
