// The order of starts under contention, pinned: every job's start time and placement on small,
// overloaded workloads, for each scheduler, with backfill on and off, whole-GPU gangs, default
// pods (partial placements), GPU shares and trace pods. The pending queue indexes waiting jobs by
// shape and retries only those a release could now fit; these files were written by the plain
// FIFO scan it replaced, so they hold the queue to the exact same semantics.
// Regenerate (only for a meant change of semantics) with
//   TOPSIM_UPDATE_GOLDEN=1 build/tests/topsim_tests "[queue-order]"
#include <cstdlib>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using nlohmann::ordered_json;

namespace {

// "name start_s node:gpu,gpu node:gpu" per job, in the workload's order, for the first seed.
ordered_json starts(const ResultSet& results) {
  ordered_json out = ordered_json::object();
  for (const SchedulerResult& s : results.schedulers) {
    const RunResult& run = s.runs.front();
    ordered_json jobs = ordered_json::array();
    for (uint32_t id = 0; id < run.jobs.size(); ++id) {
      const JobRecord& job = run.jobs[id];
      std::string line = run.workload->job_name(id) + " " + std::string(enum_name(job.state));
      if (job.start_ms >= 0) line += " " + std::to_string(job.start_ms);
      for (const PodPlacement& pod : job.pods) {
        line += " " + std::to_string(pod.node) + ":";
        for (size_t i = 0; i < pod.gpus.size(); ++i) line += (i ? "," : "") + std::to_string(pod.gpus[i]);
        if (pod.placed_ms != job.start_ms) line += "@" + std::to_string(pod.placed_ms);
      }
      jobs.push_back(line);
    }
    out[s.name] = jobs;
  }
  return out;
}

void check_order(const std::string& name, const Scenario& scenario) {
  const ordered_json actual = starts(test::run_all(scenario, 2));
  const auto pinned = test::golden("queue-order-" + name, actual, 1);
  if (!pinned) return;
  const ordered_json& expected = *pinned;
  REQUIRE(expected.size() == actual.size());
  for (const auto& [scheduler, jobs] : expected.items()) {
    INFO("scheduler " << scheduler);
    REQUIRE(actual.contains(scheduler));
    REQUIRE(jobs.size() == actual[scheduler].size());
    for (size_t i = 0; i < jobs.size(); ++i) CHECK(jobs[i].get<std::string>() == actual[scheduler][i].get<std::string>());
  }
}

// Two DGX-1s and arrivals far above what they serve: a deep queue of 1-16 GPU jobs.
std::string synthetic(bool backfill) {
  return R"({"seed": 5, "cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}], "network": {"transport": "ib"}},
  "workload": {"kind": "synthetic", "jobs": 120, "arrival_rate_per_hour": 240,
               "size_mix": {"1": 3, "2": 2, "3": 1, "4": 2, "8": 1, "16": 1}, "median_duration_minutes": 20},
  "schedulers": ["topology-aware", "default", "binpack"],
  "queue": {"backfill": )" +
         std::string(backfill ? "true" : "false") + "}}";
}

}  // namespace

TEST_CASE("queue order: whole-GPU jobs under overload, backfill on", "[sim][queue-order]") {
  check_order("synthetic-backfill", test::scenario_from(synthetic(true)));
}

TEST_CASE("queue order: whole-GPU jobs under overload, strict FIFO", "[sim][queue-order]") {
  check_order("synthetic-fifo", test::scenario_from(synthetic(false)));
}

TEST_CASE("queue order: GPU shares and whole-GPU jobs competing", "[sim][queue-order]") {
  // Shares of several sizes on one share node (8 x 16 GiB), whole-GPU jobs on one DGX-1: both
  // queues back up, and a release of one kind must not wake the other.
  const std::string jobs = R"([
    {"name": "big", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 900, "count": 3},
    {"name": "s12", "submit_s": 1, "gpu_mem_gib": 12, "duration_s": 700, "count": 10},
    {"name": "s4", "submit_s": 2, "gpu_mem_gib": 4, "duration_s": 300, "count": 30},
    {"name": "pair", "submit_s": 3, "workers": 2, "gpus_per_worker": 1, "model": "vgg16", "duration_s": 400, "count": 6},
    {"name": "s8", "submit_s": 5, "gpu_mem_gib": 8, "duration_s": 500, "count": 20},
    {"name": "one", "submit_s": 8, "workers": 1, "gpus_per_worker": 1, "model": "bert-large", "duration_s": 200, "count": 10},
    {"name": "s16", "submit_s": 9, "gpu_mem_gib": 16, "duration_s": 650, "count": 8},
    {"name": "quad", "submit_s": 12, "workers": 1, "gpus_per_worker": 4, "model": "resnet101", "duration_s": 350, "count": 4}
  ])";
  for (const std::string policy : {"binpack", "spread"}) {
    INFO("share policy " << policy);
    const std::string extra = R"(, "schedulers": ["topology-aware", "default"], "share_policy": ")" + policy + R"(")";
    check_order(
        "shares-" + policy,
        test::scenario_from(test::scenario_json(
            R"([{"model": "dgx1-v100", "count": 1}, {"model": "dgx1-v100", "count": 1, "label": "share"}])", jobs, extra)));
  }
}

TEST_CASE("queue order: Alibaba trace pods on a few nodes, every share policy", "[sim][queue-order][shared]") {
  const std::string dir = test::shared_file("traces/alibaba-gpu-v2023");
  if (dir.empty()) return;
  const std::string json = R"({"seed": 2, "cluster": {"node_list": ")" + dir +
                           R"(/openb_node_list_gpu_node.csv", "node_fraction": 0.004},
    "workload": {"kind": "alibaba-pods", "path": ")" +
                           dir + R"(/openb_pod_list_default.csv", "max_pods": 400},
    "schedulers": ["binpack", "spread", "best-fit", "dot-product", "gpu-packing", "gpu-clustering", "random", "fgd"]})";
  check_order("alibaba-pods", test::scenario_from(json));
}
