// Generated workloads: jobs made on demand must be the jobs a workload in memory holds, and a
// run over them must come out the same.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/job.h"
#include "sim/metrics.h"
#include "sim/run_summary.h"
#include "sim/workload/synthetic_workload.h"
#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

std::vector<JobSpec> read_all(const Workload& workload) {
  std::vector<JobSpec> jobs;
  JobCursor cursor(workload);
  while (const JobSpec* job = cursor.next()) jobs.push_back(*job);
  return jobs;
}

void check_same_jobs(const std::vector<JobSpec>& a, const std::vector<JobSpec>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("job " << i);
    CHECK(a[i].id == b[i].id);
    CHECK(a[i].submit_ms == b[i].submit_ms);
    CHECK(a[i].kind == b[i].kind);
    CHECK(a[i].workers == b[i].workers);
    CHECK(a[i].gpus_per_worker == b[i].gpus_per_worker);
    CHECK(a[i].framework == b[i].framework);
    CHECK(a[i].model == b[i].model);
    CHECK(a[i].batch_per_gpu == b[i].batch_per_gpu);
    CHECK(a[i].ideal_duration_ms == b[i].ideal_duration_ms);
    CHECK(a[i].iterations == b[i].iterations);
  }
}

void check_same_span(const WorkloadSpan& a, const WorkloadSpan& b) {
  CHECK(a.jobs == b.jobs);
  CHECK(a.first_submit_ms == b.first_submit_ms);
  CHECK(a.expected_end_ms == b.expected_end_ms);
  CHECK(a.has_shares == b.has_shares);
}

}  // namespace

TEST_CASE("sim::workload a streamed synthetic workload is the generated one, job for job", "[sim][workload][stream]") {
  SyntheticOptions options;
  options.jobs = 3000;
  for (uint64_t seed : {1, 7, 42, 123456789}) {
    for (double rate : {5.0, 600.0}) {
      INFO("seed " << seed << ", rate " << rate);
      options.seed = seed;
      options.arrival_rate_per_hour = rate;
      options.size_mix = {{1, 0.3}, {4, 0.3}, {24, 0.4}};  // 24 GPUs: a gang of 3 pods of 8
      const Workload held = generate_synthetic(options);
      const Workload streamed = stream_synthetic(options);
      CHECK(streamed.jobs.empty());  // nothing held
      CHECK(streamed.size() == options.jobs);
      CHECK(streamed.source == held.source);
      check_same_jobs(read_all(streamed), held.jobs);
      check_same_span(workload_span(streamed), workload_span(held));
      // Every reader starts the sequence again.
      check_same_jobs(read_all(streamed), held.jobs);
    }
  }
}

TEST_CASE("sim::workload change_jobs changes jobs in memory and jobs made on demand alike", "[sim][workload][stream]") {
  SyntheticOptions options;
  options.jobs = 500;
  Workload held = generate_synthetic(options);
  Workload streamed = stream_synthetic(options);
  const auto halve_arrivals = [](JobSpec& job) { job.submit_ms /= 2; };
  const auto one_gpu_pods = [](JobSpec& job) {
    job.workers = static_cast<uint16_t>(job.total_gpus());
    job.gpus_per_worker = 1;
  };
  for (Workload* w : {&held, &streamed}) {
    change_jobs(*w, halve_arrivals);
    change_jobs(*w, one_gpu_pods);
  }
  check_same_jobs(read_all(streamed), held.jobs);
  check_same_span(workload_span(streamed), workload_span(held));
  // The changes were applied: arrivals halved, one GPU per pod.
  const Workload original = generate_synthetic(options);
  const std::vector<JobSpec> changed = read_all(streamed);
  for (size_t i = 0; i < changed.size(); ++i) {
    CHECK(changed[i].submit_ms == original.jobs[i].submit_ms / 2);
    CHECK(changed[i].gpus_per_worker == 1);
    CHECK(changed[i].total_gpus() == original.jobs[i].total_gpus());
  }
}

TEST_CASE("sim::workload OpenJobs reuses the slots of closed jobs", "[sim][workload][stream]") {
  OpenJobs open(4);
  JobSpec a, b, c;
  a.id = 0, a.workers = 1;
  b.id = 1, b.workers = 2;
  c.id = 3, c.workers = 3;
  open.open(a);
  open.open(b);
  CHECK(open[0].workers == 1);
  CHECK(open[1].workers == 2);
  open.close(0);
  open.open(c);  // takes job 0's slot
  CHECK(open[1].workers == 2);
  CHECK(open[3].workers == 3);
}

TEST_CASE("sim::engine a run over jobs made on demand equals the run over the same jobs held", "[sim][engine][stream]") {
  // Overloaded, with gangs: jobs wait, partial placements and backfill all happen.
  const Scenario scenario = scenario_from(
      R"({"cluster": {"nodes": [{"model": "dgx-a100", "count": 3}, {"model": "dgx1-v100", "count": 2}]},
          "workload": {"kind": "synthetic", "jobs": 4000, "arrival_rate_per_hour": 400, "seed": 5}})");
  REQUIRE(scenario.workload->generator);
  auto cluster = ClusterState::build(scenario.cluster);
  REQUIRE(cluster.ok());
  Workload held = *scenario.workload;
  held.jobs = read_all(*scenario.workload);
  held.generator = nullptr;
  for (const char* name : {"topology-aware", "default", "binpack"}) {
    INFO(name);
    RunConfig config;
    config.scheduler = find_scheduler(name);
    const RunOutput streamed = simulate(*cluster, *scenario.workload, config);
    const RunOutput kept = simulate(*cluster, held, config);
    REQUIRE(streamed.jobs.size() == kept.jobs.size());
    for (size_t id = 0; id < kept.jobs.size(); ++id) {
      INFO("job " << id);
      CHECK(streamed.jobs[id].state == kept.jobs[id].state);
      CHECK(streamed.jobs[id].start_ms == kept.jobs[id].start_ms);
      CHECK(streamed.jobs[id].finish_ms == kept.jobs[id].finish_ms);
      CHECK(streamed.jobs[id].pods.size() == kept.jobs[id].pods.size());
    }
    CHECK(streamed.samples.size() == kept.samples.size());
    CHECK(streamed.events == kept.events);
    const Metrics a = summarize_run(streamed, *scenario.workload, true, false);
    const Metrics b = summarize_run(kept, held, true, false);
    for (const Metric& m : b.all()) CHECK(a.value_or(m.name, -1) == m.value);
  }
}
