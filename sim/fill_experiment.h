// "fill" mode: the FGD experiment ("Beware of Fragmentation", USENIX ATC '23) on the
// Alibaba 2023 trace, exactly as published:
// - the cluster is the node list's GPU nodes (CPU-only rows only when `include_cpu_nodes`);
// - pods are drawn from the pod list uniformly with replacement, in random order, until the
//   arrived GPU request (sum of num_gpu x gpu_milli) reaches `target_load` x GPU capacity (the
//   pod that crosses the target is the last one); nothing departs;
// - a pod that no node fits fails and is skipped; a pod whose request is invalid
//   (validate_request) is rejected and skipped; both are counted and both count as arrived;
// - for each policy and seed the GPU allocation ratio (allocated share / capacity) and the
//   fragmentation (FGD's F in GPUs and the rate F / unallocated share) are recorded when the
//   arrived load first reaches 0%, 1%, ..., floor(100 x target_load)%;
// - the target workload of the fragmentation measure is derived from the whole pod list
//   (derive_target_workload, 95% coverage).
//
// Randomness: seed i (0-based) of a scenario is `seed + i`. Pod draws come from
// std::mt19937_64(seed + i), index = engine() % pod_count, so every policy sees the same pod
// sequence for a seed. The `random` policy uses its own std::mt19937_64 seeded with
// (seed + i) XOR 0x9E3779B97F4A7C15. Runs are independent: results do not depend on the
// number of threads.
//
// Scenario JSON (docs/fill-scenarios.md):
//   { "mode": "fill", "node_list": "...", "pod_list": "...", "policies": [...], "seeds": 10,
//     "target_load": 1.3, "seed": 1, "include_cpu_nodes": false, "workload_coverage": 0.95,
//     "name": "...", "description": "..." }
// Relative trace paths resolve against the nearest `shared/traces` folder found in the
// scenario file's directory or one of its parents (for <repo>/scenarios/x.json that is the
// repository's ../shared/traces), or against `traces_dir` when given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/fragmentation.h"
#include "core/gpu_share.h"
#include "core/share_policies.h"

namespace topsim {

struct FillScenario {
  std::string name;                        // "name", default the file's stem
  std::string description;                 // default ""
  std::string node_list;                   // resolved path (required)
  std::string pod_list;                    // resolved path (required)
  std::string node_list_source;            // "node_list" as written in the scenario
  std::string pod_list_source;             // "pod_list" as written in the scenario
  bool include_cpu_nodes = false;          // default false: GPU nodes only
  std::vector<SharePolicyKind> policies;   // default: all share policies, in enum order
  int seeds = 10;                          // default 10
  double target_load = 1.3;                // arrived GPU request / GPU capacity; default 1.3
  uint64_t seed = 1;                       // base seed; default 1
  double workload_coverage = 0.95;         // target workload coverage (FGD); default 0.95
};

// Reads a fill scenario. Errors: one line naming the file and the JSON path, e.g.
// "fgd.json: /seeds: must be a positive integer, got 0", or a missing trace file.
// `traces_dir` (optional) overrides the folder relative trace paths resolve against.
Expected<FillScenario> load_fill_scenario(const std::string& path, const std::string& traces_dir = "");
// True when the JSON file's "mode" is "fill" (false when absent, unreadable or other).
bool is_fill_scenario(const std::string& path);

// The loaded trace, shared read-only by all runs.
struct FillInputs {
  std::vector<ShareNode> nodes;        // the cluster, empty
  std::vector<PodRequest> pods;        // the pod list, in file order
  std::vector<int64_t> pod_gpu_milli;  // each pod's total GPU request (num_gpu x gpu_milli)
  std::vector<char> pod_rejected;      // 1 when validate_request rejects the pod
  std::vector<std::string> rejections; // distinct rejection reasons, first line each ("name: reason")
  TargetWorkload workload;
  int64_t capacity_milli = 0;
  int gpus = 0;
};
Expected<FillInputs> load_fill_inputs(const FillScenario& scenario);

struct FillPoint {
  int load_percent = 0;         // arrived GPU request as % of capacity (the curve's x)
  double gpu_alloc_ratio = 0;   // allocated GPU share / capacity
  double frag_gpus = 0;         // FGD's F, GPUs
  double frag_rate = 0;         // F / unallocated GPU share
  double unusable_gpus = 0;     // free share no target-workload spec can use
  int idle_cards = 0;           // cards without any pod
  int64_t pods_failed = 0;      // failed so far
};

struct FillRun {
  SharePolicyKind policy = SharePolicyKind::Fgd;
  uint64_t seed = 0;
  std::vector<FillPoint> curve;  // load 0..floor(100 x target)%, every 1%
  FillPoint final;               // after the last pod (load_percent = floor of the arrived %)
  int64_t pods_arrived = 0;
  int64_t pods_placed = 0;
  int64_t pods_failed = 0;       // no node fits
  int64_t pods_rejected = 0;     // invalid request
  int64_t arrived_milli = 0;     // total GPU request of the arrived pods
  int64_t last_pod_milli = 0;    // GPU request of the last arrived pod
};

// One policy, one seed. REQUIRES: inputs from load_fill_inputs.
FillRun run_fill_once(const FillInputs& inputs, SharePolicyKind policy, uint64_t seed, double target_load);

struct FillResult {
  FillScenario scenario;
  int nodes = 0;
  int gpus = 0;
  size_t pod_list_size = 0;
  size_t workload_specs = 0;       // specs kept in the target workload
  size_t pods_invalid = 0;         // pods of the list that validate_request rejects
  std::vector<std::string> rejections;
  std::vector<FillRun> runs;       // policy-major (scenario order), seeds ascending
};

// Every policy x seed of the scenario on `threads` threads (<= 1: the calling thread only).
Expected<FillResult> run_fill(const FillScenario& scenario, int threads);

}  // namespace topsim
