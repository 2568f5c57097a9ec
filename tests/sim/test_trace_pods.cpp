// The Alibaba 2023 trace's pods on the trace's own nodes (workload kind alibaba-pods, cluster
// node_list), through the one engine: replayed over time (pods wait for departures) and in
// FGD's fill protocol (mode fill: draws with replacement to a target load, nothing departs).
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/results/results_json.h"
#include "reports/text_report.h"
#include "scenario/scenario_loader.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

constexpr const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

// One node with 2 T4 cards. p0 takes 600 thousandths of one card (0..30 s), p1 the other card
// whole (0..100 s); p2 (whole card, arrives at 10 s, no scheduled time: runs 50 - 10 = 40 s)
// finds no idle card and waits until p0 departs at 30 s.
struct TinyTrace {
  TempDir dir;
  TinyTrace() {
    std::ofstream(dir.file("nodes.csv")) << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\n";
    std::ofstream(dir.file("pods.csv")) << kPodHeader << "p0,1000,1024,1,600,,LS,Running,0,30,0\n"
                                        << "p1,1000,1024,1,1000,,LS,Running,0,100,0\n"
                                        << "p2,1000,1024,1,1000,,LS,Running,10,50,\n";
  }
  std::string json(const std::string& extra = "") const {
    return R"({"cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"},
               "sample_every_s": 10)" +
           extra + "}";
  }
};

// 3 GPU nodes (2 + 4 + 8 = 14 GPUs) and one CPU-only node; 6 pod specs, the last one invalid
// (num_gpu 1 with gpu_milli 0).
struct SmallTrace {
  TempDir dir;
  SmallTrace() {
    std::ofstream(dir.file("nodes.csv"))
        << "sn,cpu_milli,memory_mib,gpu,model\n"
           "n0,32000,131072,2,T4\nn1,32000,131072,4,V100M16\nn2,64000,262144,8,G2\nn3,16000,65536,0,\n";
    std::ofstream(dir.file("pods.csv")) << kPodHeader << "p0,4000,8192,1,500,,LS,Running,0,10,0\n"
                                        << "p1,8000,16384,1,1000,,LS,Running,0,10,0\n"
                                        << "p2,2000,4096,0,0,,BE,Running,0,10,0\n"
                                        << "p3,16000,32768,2,1000,,LS,Running,0,10,0\n"
                                        << "p4,4000,8192,1,250,T4,LS,Running,0,10,0\n"
                                        << "p5,4000,8192,1,0,,LS,Running,0,10,0\n";
  }
  std::string json(const std::string& extra = "") const {
    return R"({"mode": "fill", "cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"})" +
           extra + "}";
  }
};

const ClusterSample& sample_at(const RunResult& run, int64_t time_s) {
  for (const ClusterSample& s : run.samples)
    if (s.time_ms == time_s * 1000) return s;
  FAIL("no sample at " << time_s << " s");
  return run.samples.front();
}

std::string load_error(const std::string& json, const std::string& dir) {
  auto scenario = parse_scenario(json, "test.json", dir);
  REQUIRE_FALSE(scenario.ok());
  return scenario.error().message;
}

std::string results_json(const ResultSet& results) {
  std::ostringstream out;
  write_results_json(results, out);
  return out.str();
}

}  // namespace

TEST_CASE("sim::trace pods replayed: a pod waits for a departure, then starts", "[sim][trace-pods]") {
  const TinyTrace trace;
  const Scenario s = scenario_from(trace.json(), trace.dir.path.string());
  // Every scheduler that places trace pods is the default on a node list.
  REQUIRE(s.schedulers.size() == 9);
  const ResultSet results = run_all(s);
  for (const SchedulerResult& scheduler : results.schedulers) {
    INFO(scheduler.name);
    const RunResult& run = scheduler.runs.front();
    // p0 and p1 start on arrival; p2 starts exactly when p0 departs (30 s), after 20 s of wait.
    CHECK(run.jobs[0].start_ms == 0);
    CHECK(run.jobs[1].start_ms == 0);
    CHECK(run.jobs[2].start_ms == 30'000);
    CHECK(metric(run, "finished") == 3);
    CHECK(metric(run, "never_placed") == 0);
    CHECK(metric(run, "pending_jobs.max") == 1);
    CHECK(metric(run, "wait_s.mean") == Approx(20.0 / 3));
    CHECK(metric(run, "wait_s.p95") == 20);
    CHECK(metric(run, "makespan_s") == 100);
    // The 400 free thousandths beside p0 fit no pod of the workload (all ask 600 or more):
    // fragmented while p2 waits, gone once p0 departs and p2 takes the card.
    CHECK(sample_at(run, 20).fragmentation_gpus > 0);
    CHECK(sample_at(run, 20).pending == 1);
    CHECK(sample_at(run, 20).running == 2);
    CHECK(sample_at(run, 30).fragmentation_gpus == 0);
    CHECK(sample_at(run, 30).pending == 0);
    CHECK(sample_at(run, 30).allocated_gpus == Approx(2.0));
    CHECK(sample_at(run, 100).running == 0);
    CHECK(sample_at(run, 100).allocated_gpus == 0);
    // Time-weighted: 1.6 GPUs until 30 s (p2 waiting from 10 s), 2 while p2 runs its recorded
    // 40 s (30..70 s), then p1's 1 until 100 s.
    CHECK(metric(run, "allocated_gpus.mean") == Approx((1.6 * 30 + 2 * 40 + 1 * 30) / 100));
    CHECK(metric(run, "gpu_alloc_ratio.max") == Approx(1.0));
  }
}

TEST_CASE("sim::trace pods replayed: a pod no node can take waits to the end and says what the nodes lack", "[sim][trace-pods]") {
  // TinyTrace's node has 64 cores; "huge" asks 70. It waits (Kubernetes leaves it Pending,
  // Insufficient cpu) while the others run, and its reason is CPU, not GPUs.
  const TinyTrace trace;
  std::ofstream(trace.dir.file("pods.csv"), std::ios::app) << "huge,70000,1024,1,500,,LS,Running,5,60,\n";
  const Scenario s = scenario_from(trace.json(), trace.dir.path.string());
  const ResultSet results = run_all(s);
  for (const SchedulerResult& scheduler : results.schedulers) {
    INFO(scheduler.name);
    const RunResult& run = scheduler.runs.front();
    CHECK(metric(run, "finished") == 3);
    CHECK(metric(run, "never_placed") == 1);
    const JobRecord& huge = record(run, s, "huge");
    CHECK(huge.state == JobState::Pending);
    CHECK(huge.reason ==
          "never placed: the 1 node serving its pod has no room for it (a card with 500 thousandths free, 70 cores, 1 GiB of "
          "host memory): 1 lacks only CPU; no node has 70 cores free (most on one node: 64 cores)");
  }
}

TEST_CASE("sim::trace pods replayed: deterministic, and bad input names the JSON pointer", "[sim][trace-pods]") {
  const TinyTrace trace;
  const std::string dir = trace.dir.path.string();
  SECTION("same input, same results.json, byte for byte, on 1 or 2 threads") {
    const Scenario s = scenario_from(trace.json(), dir);
    const std::string first = results_json(run_all(s, 1));
    CHECK(first == results_json(run_all(s, 2)));
    CHECK(first.find("\"wait_s.p95\": 20.0") != std::string::npos);
  }
  SECTION("errors") {
    CHECK_THAT(load_error(R"({"cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods"}})", dir),
               Catch::Contains("test.json: /workload/path: missing required key"));
    CHECK_THAT(load_error(trace.json(R"(, "schedulers": ["fgd", "bestfit"])"), dir),
               Catch::Contains("/schedulers/1: unknown scheduler 'bestfit'") && Catch::Contains("did you mean 'best-fit'?"));
    CHECK_THAT(load_error(trace.json(R"(, "schedulers": ["topology-aware"])"), dir),
               Catch::Contains("/schedulers/0: 'topology-aware' cannot place a trace's pods"));
    CHECK_THAT(load_error(trace.json(R"(, "schedulers": ["fgd", "fgd"])"), dir),
               Catch::Contains("/schedulers/1: scheduler 'fgd' listed twice"));
    CHECK_THAT(load_error(R"({"cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "philly", "path": "x"}})", dir),
               Catch::Contains("/workload/kind: a cluster from a node list runs the trace's pods"));
    CHECK_THAT(
        load_error(
            R"({"cluster": {"nodes": [{"model": "dgx1-v100"}]}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"}})", dir),
        Catch::Contains("/workload/kind: alibaba-pods runs on a trace's nodes"));
    CHECK_THAT(
        load_error(R"({"cluster": {"node_list": "missing.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"}})", dir),
        Catch::Contains("/cluster/node_list: ") && Catch::Contains("cannot open '") &&
            Catch::Contains("missing.csv': No such file"));
    CHECK_THAT(load_error(trace.json(R"(, "sample_every_s": 0)"), dir), Catch::Contains("/sample_every_s"));
  }
  SECTION("a fill experiment over pods that ask no GPU is refused (its draws never reached the target: a hang)") {
    std::ofstream(dir + "/cpu.csv") << kPodHeader << "c0,1000,1024,0,0,,LS,Running,0,30,0\n";
    CHECK_THAT(
        load_error(
            R"({"mode": "fill", "cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "cpu.csv"}})",
            dir),
        Catch::Contains("/workload/path: cpu.csv: no pod asks for a GPU (1 pods)"));
  }
}

TEST_CASE("sim::fill protocol stops at the requested load", "[sim][fill]") {
  const SmallTrace trace;
  const std::string dir = trace.dir.path.string();
  const Scenario s = scenario_from(trace.json(R"(, "seed": 5, "schedulers": ["fgd", "best-fit", "binpack"])"), dir);
  const ResultSet results = run_all(s);
  SECTION("the cluster is the 3 GPU nodes (14 GPUs); the invalid pod is rejected with its reason") {
    CHECK(results.scenario.nodes == 3);
    CHECK(results.scenario.gpus == 14);
    const RunResult& run = results.schedulers.front().runs.front();
    for (const std::string& reason : run.rejections) CHECK(reason == "p5: gpu_milli 0 is below the minimum 1");
  }
  SECTION("arrivals stop at the first pod that brings the GPU request to 130% of 14 GPUs (18200 milli)") {
    const RunResult& run = results.schedulers.front().runs.front();
    const Workload& w = *run.workload;
    int64_t arrived = 0;
    for (const JobSpec& job : w.jobs) arrived += job.gpu_milli_total();
    CHECK(arrived >= 18200);
    CHECK(arrived - w.jobs.back().gpu_milli_total() < 18200);
    CHECK(metric(run, "arrived_load") == Approx(static_cast<double>(arrived) / 14000));
    CHECK(metric(run, "jobs") == metric(run, "placed") + metric(run, "failed") + metric(run, "rejected"));
    CHECK(metric(run, "failed") > 0);  // 130% cannot all fit
    // Every scheduler sees the same pod sequence for a seed.
    for (const SchedulerResult& other : results.schedulers) CHECK(other.runs.front().workload == run.workload);
  }
  SECTION("the curve has a point at every 1% from 0 to 130%, allocation never decreases") {
    const RunResult& run = results.schedulers[1].runs.front();
    REQUIRE(run.load_curve.size() == 131);
    CHECK(run.load_curve.front().gpu_alloc_ratio == 0);
    for (size_t p = 0; p < run.load_curve.size(); ++p) {
      CHECK(run.load_curve[p].load_percent == static_cast<int>(p));
      if (p > 0) CHECK(run.load_curve[p].gpu_alloc_ratio >= run.load_curve[p - 1].gpu_alloc_ratio);
      CHECK(run.load_curve[p].gpu_alloc_ratio <= 1.0);
    }
    CHECK(metric(run, "gpu_alloc_ratio.final") >= run.load_curve.back().gpu_alloc_ratio);
  }
  SECTION("a 50% target gives 51 points") {
    const Scenario half = scenario_from(trace.json(R"(, "target_load": 0.5, "schedulers": ["binpack"])"), dir);
    CHECK(run_all(half).schedulers.front().runs.front().load_curve.size() == 51);
  }
  SECTION("include_cpu_nodes adds the CPU-only node, not its GPUs") {
    const std::string json = R"({"mode": "fill", "cluster": {"node_list": "nodes.csv", "include_cpu_nodes": true},
                                 "workload": {"kind": "alibaba-pods", "path": "pods.csv"}, "schedulers": ["fgd"]})";
    const ResultSet with_cpu = run_all(scenario_from(json, dir));
    CHECK(with_cpu.scenario.nodes == 4);
    CHECK(with_cpu.scenario.gpus == 14);
  }
}

TEST_CASE("sim::fill: a pod no node fitted on arrival says what each node serving it lacked", "[sim][fill]") {
  const SmallTrace trace;
  const Scenario s =
      scenario_from(trace.json(R"(, "seed": 5, "schedulers": ["fgd", "best-fit", "binpack"])"), trace.dir.path.string());
  for (const SchedulerResult& scheduler : run_all(s).schedulers) {
    INFO(scheduler.name);
    int failed = 0, no_gpu_room = 0;
    for (const JobRecord& r : scheduler.runs.front().jobs) {
      if (r.state != JobState::Failed) continue;
      ++failed;
      INFO(r.reason);
      // "no node fitted it on arrival: none of the N nodes serving its pod has room for it (...): A lack ..., B only
      // CPU, ...[; no node has ...]": the counts split the N serving nodes (of the 3 GPU nodes).
      // ("the 1 node serving its pod has no room" for a pod held to one GPU type.)
      const std::string prefix = "no node fitted it on arrival: none of the ", one = "no node fitted it on arrival: the 1 node";
      REQUIRE((r.reason.starts_with(prefix) || r.reason.starts_with(one)));
      const int serving = r.reason.starts_with(one) ? 1 : std::stoi(r.reason.substr(prefix.size()));
      CHECK((serving >= 1 && serving <= 3));
      const size_t from = r.reason.find("): ") + 3, to = r.reason.find(';', from);
      std::istringstream parts(r.reason.substr(from, to == std::string::npos ? std::string::npos : to - from));
      int sum = 0;
      for (std::string part; std::getline(parts, part, ',');) sum += std::stoi(part);
      CHECK(sum == serving);
      // Every serving node lacked GPU room exactly when the reason says no node has it ("no node
      // has an idle GPU", "2 idle GPUs", "a whole free card", "a card with ...").
      const size_t none = r.reason.find("; no node has ");
      const std::string lacking = none == std::string::npos ? "" : r.reason.substr(none + 14);
      no_gpu_room += lacking.starts_with("an idle GPU") || lacking.starts_with("a whole free card") ||
                     lacking.starts_with("a card with") || (!lacking.empty() && std::isdigit(lacking[0]));
    }
    CHECK(failed == metric(scheduler.runs.front(), "failed"));
    CHECK(failed > 0);
    // The run's tally of failed pods with no GPU room on any serving node is the reasons' count.
    CHECK(no_gpu_room == metric(scheduler.runs.front(), "failed_no_gpu_room"));
  }
}

TEST_CASE("sim::fill determinism and seeds", "[sim][fill]") {
  const SmallTrace trace;
  const Scenario s = scenario_from(trace.json(R"(, "seeds": 3, "seed": 11)"), trace.dir.path.string());
  SECTION("1 thread and 2 threads give identical result JSON; so do two runs") {
    const std::string one = results_json(run_all(s, 1));
    CHECK(one == results_json(run_all(s, 2)));
    CHECK(one == results_json(run_all(s, 1)));
  }
  SECTION("runs per scheduler have seeds base, base + 1, ...; every pod scheduler by default; mean ± sd over seeds") {
    const ResultSet results = run_all(s, 2);
    REQUIRE(results.schedulers.size() == 9);
    const SchedulerResult& fgd = *results.scheduler("fgd");
    REQUIRE(fgd.runs.size() == 3);
    CHECK(fgd.runs[0].seed == 11);
    CHECK(fgd.runs[2].seed == 13);
    CHECK(fgd.runs[0].workload != fgd.runs[1].workload);  // another seed, other draws
    const MetricSummary* alloc = fgd.metric("gpu_alloc_ratio.final");
    REQUIRE(alloc);
    CHECK(alloc->over_seeds.mean ==
          Approx((metric(fgd.runs[0], "gpu_alloc_ratio.final") + metric(fgd.runs[1], "gpu_alloc_ratio.final") +
                  metric(fgd.runs[2], "gpu_alloc_ratio.final")) /
                 3));
    const std::string text = render_text(results);
    CHECK_THAT(text, Catch::Contains("\nfgd ") && Catch::Contains("\nrandom ") && Catch::Contains(" ± "));
    CHECK_THAT(text, Catch::Contains("rejected at submission: p5: gpu_milli 0 is below the minimum 1"));
  }
}

TEST_CASE("sim::fill scenario errors name the JSON pointer", "[sim][fill]") {
  const SmallTrace trace;
  const std::string dir = trace.dir.path.string();
  CHECK_THAT(load_error(trace.json(R"(, "schedulers": ["binpack", "fdg"])"), dir),
             Catch::Contains("test.json: /schedulers/1: unknown scheduler 'fdg'") && Catch::Contains("did you mean 'fgd'?"));
  CHECK_THAT(load_error(trace.json(R"(, "seeds": 0)"), dir), Catch::Contains("/seeds: must be an integer in 1..100000, got 0"));
  CHECK_THAT(load_error(trace.json(R"(, "target_load": 0)"), dir),
             Catch::Contains("/target_load: must be a number in 0.01..10, got 0"));
  CHECK_THAT(load_error(trace.json(R"(, "seed_count": 3)"), dir), Catch::Contains("/seed_count: unknown key"));
  CHECK_THAT(load_error(trace.json(R"(, "queue": {"backfill": false})"), dir),
             Catch::Contains("/queue: does not apply to a fill experiment"));
  CHECK_THAT(
      load_error(
          R"({"mode": "gang", "cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"}})",
          dir),
      Catch::Contains("/mode: 'gang' is not one of replay, fill"));
  CHECK_THAT(
      load_error(
          R"({"target_load": 1.3, "cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"}})",
          dir),
      Catch::Contains("/target_load: applies to \"mode\": \"fill\" only"));
  CHECK_THAT(
      load_error(R"({"mode": "fill", "cluster": {"nodes": [{"model": "dgx1-v100"}]}, "workload": {"kind": "jobs", "jobs": []}})",
                 dir),
      Catch::Contains("/workload/kind: a fill experiment draws pods from a trace's pod list"));
}

TEST_CASE("sim::fill on the Alibaba default trace", "[sim][fill][shared]") {
  if (shared_file("traces").empty()) return;
  auto s = load_scenario(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/fgd-openb-default.json");
  REQUIRE(s.ok());
  SECTION("the shipped scenario: the GPU node list, all pod schedulers, 10 seeds, 130%") {
    CHECK(s->seeds == 10);
    CHECK(s->target_load == 1.3);
    CHECK(s->schedulers.size() == 8);
  }
  SECTION("one seed: fgd allocates more than random and above 90% of the GPUs (the FGD table's seed 1)") {
    Scenario one = *s;
    one.seeds = 1;
    one.schedulers = {"fgd", "random"};
    const ResultSet results = run_all(one, 2);
    CHECK(results.scenario.gpus == 6212);
    const RunResult& fgd = results.scheduler("fgd")->runs.front();
    const RunResult& random = results.scheduler("random")->runs.front();
    CHECK(metric(fgd, "arrived_load") >= 1.3);
    CHECK(metric(fgd, "gpu_alloc_ratio.final") > 0.9);
    CHECK(metric(fgd, "gpu_alloc_ratio.final") > metric(random, "gpu_alloc_ratio.final"));
  }
}

TEST_CASE("sim::fill shipped scenarios load", "[sim][fill][shared]") {
  if (shared_file("traces").empty()) return;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TOPSIM_SOURCE_DIR) + "/scenarios")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("fgd-openb-", 0) != 0) continue;
    INFO(name);
    const auto scenario = load_scenario(entry.path().string());
    CHECK(scenario.ok());
    CHECK((scenario.ok() && scenario->mode == ExperimentMode::Fill));
    ++count;
  }
  CHECK(count == 10);
}
