// "share-replay" mode: the Alibaba 2023 pod list replayed with time. Each pod with a creation
// and a deletion time arrives at its creation time and holds its share until it has run for its
// recorded run time (deletion - scheduled, or deletion - creation when scheduled is absent);
// the GPU allocation ratio and FGD's fragmentation are sampled over time next to queueing.
//
// Engine: integer seconds; events ordered by (time, sequence number). All arrivals are queued
// first (by creation time, then file order), so at equal times arrivals precede departures.
// - an arriving pod is placed at once by the policy (node + cards, exactly as fill mode does) or
//   joins a FIFO wait queue; an invalid pod (validate_request) is rejected and counted;
// - after each departure the wait queue is retried front to back; every waiting pod that now
//   fits starts (pods behind one that does not fit may start: no head-of-line blocking);
// - pods without a creation or deletion time (5-column pod lists) are skipped and counted;
// - the state is sampled at every multiple of `sample_every_s` from the first arrival's
//   multiple to the last event: a sample at T reflects every event with time <= T.
//
// Scenario JSON:
//   { "mode": "share-replay", "name": "...", "description": "...", "node_list": "...",
//     "pod_list": "...", "policies": [...], "max_pods": 0, "node_fraction": 1, "sample_every_s": 3600 }
// Relative trace paths resolve against the scenario file's folder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/fragmentation.h"
#include "core/gpu_share.h"
#include "core/share_policies.h"

namespace topsim {

struct ShareReplayScenario {
  std::string name;                       // "name", default the file's stem
  std::string description;                // default ""
  std::string node_list;                  // resolved path (required)
  std::string pod_list;                   // resolved path (required)
  std::string node_list_source;           // as written in the scenario
  std::string pod_list_source;            // as written in the scenario
  std::vector<SharePolicyKind> policies;  // default: all share policies, in enum order
  int64_t max_pods = 0;                   // first N timed pods of the list; default 0 = all
  // Share of the node list kept, evenly over it (node i is kept when floor((i+1) x f) >
  // floor(i x f)), so the mix of GPU models stays; default 1 = every node. Scales the cluster
  // down against the trace's arrivals to study queueing.
  double node_fraction = 1;
  int64_t sample_every_s = 3600;          // sampling period, seconds; default 3600
};

// Errors: one line naming the file and the JSON pointer, e.g.
// "replay.json: /pod_list: missing required key".
Expected<ShareReplayScenario> load_share_replay_scenario(const std::string& path);

// The loaded trace, shared read-only by all runs (GPU nodes only).
struct ShareReplayInputs {
  std::vector<ShareNode> nodes;
  std::vector<PodRequest> pods;     // timed pods, in file order
  std::vector<std::string> names;   // pod names
  std::vector<int64_t> arrival_s;   // creation time
  std::vector<int64_t> run_s;       // recorded run time (>= 0)
  std::vector<char> rejected;       // 1 when validate_request rejects the pod
  size_t untimed_pods = 0;          // skipped: no creation or deletion time
  TargetWorkload workload;          // from the whole pod list, 95% coverage
  int64_t capacity_milli = 0;
  int gpus = 0;
};
Expected<ShareReplayInputs> load_share_replay_inputs(const ShareReplayScenario& scenario);

struct ShareReplaySample {
  int64_t time_s = 0;
  double gpu_alloc_ratio = 0;  // allocated GPU share / capacity
  double frag_gpus = 0;        // FGD's F, GPUs
  double frag_rate = 0;        // F / unallocated GPU share
  int64_t pending = 0;         // pods in the wait queue
  int64_t running = 0;         // pods placed and not yet departed
};

struct ShareReplayRun {
  SharePolicyKind policy = SharePolicyKind::Fgd;
  std::vector<ShareReplaySample> curve;
  std::vector<int64_t> start_s;  // per pod: start time, -1 when rejected or never placed
  int64_t pods_placed = 0;
  int64_t pods_rejected = 0;
  int64_t never_placed = 0;      // still waiting when the last pod departed
  int64_t peak_pending = 0;
  double mean_wait_s = 0;        // over placed pods
  double p95_wait_s = 0;         // nearest rank over placed pods
  int64_t end_s = 0;             // time of the last event
};

// One policy over the whole pod list. REQUIRES: inputs from load_share_replay_inputs,
// sample_every_s > 0.
ShareReplayRun run_share_replay_once(const ShareReplayInputs& inputs, SharePolicyKind policy, int64_t sample_every_s);

struct ShareReplayResult {
  ShareReplayScenario scenario;
  int nodes = 0;
  int gpus = 0;
  size_t pods = 0;          // timed pods replayed
  size_t untimed_pods = 0;
  std::vector<ShareReplayRun> runs;  // scenario policy order
};
Expected<ShareReplayResult> run_share_replay(const ShareReplayScenario& scenario);

}  // namespace topsim
