// Renderers of a share-replay result (sim/share_replay.h): a text table with one row per policy
// (queueing and fragmentation over time) and a JSON document with the time curves.
//
// Both are deterministic functions of the ShareReplayResult (no wall clock); numbers in the
// JSON are rounded to 1e-6.
#pragma once

#include <string>

#include "sim/share_replay.h"

namespace topsim {

struct ShareReplaySummary {
  double mean_alloc_ratio = 0;  // mean of the sampled GPU allocation ratio
  double mean_frag_rate = 0;    // mean of the sampled fragmentation rate
  double mean_frag_gpus = 0;    // mean of the sampled F, GPUs
  double peak_alloc_ratio = 0;  // largest sampled GPU allocation ratio
};
// Means over the run's samples (all 0 when it has none).
ShareReplaySummary summarize_share_replay(const ShareReplayRun& run);

// Text: scenario and cluster facts, then per policy: mean and p95 wait (s), never placed, peak
// pending, rejected, mean and peak allocation ratio and mean fragmentation rate over time, and
// the replayed time span. Ends with "\n".
std::string render_share_replay_text(const ShareReplayResult& result);

// JSON (2-space indent): "scenario", "cluster", "pods", and "policies": per policy the queueing
// figures, the time means and "curve" as parallel arrays (time_s, gpu_alloc_ratio, frag_gpus,
// frag_rate, pending, running).
std::string render_share_replay_json(const ShareReplayResult& result);

}  // namespace topsim
