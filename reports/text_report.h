// The plain-text summary of a ResultSet, as `topsim run` prints it: scenario facts, then the
// schedulers side by side (a replay: queueing, JCT, utilisation, placement quality, the
// cluster over time; a fill experiment: the state after the last arrival, mean ± sd over
// seeds). Deterministic: no wall-clock figures.
#pragma once

#include <string>

#include "sim/results.h"

namespace topsim {

struct TextOptions {
  size_t max_job_lines = 20;  // per-job lines when the workload has at most this many jobs; default 20
  size_t max_time_rows = 12;  // rows of the over-time table otherwise; default 12
};

// Ends with a newline.
std::string render_text(const ResultSet& results, const TextOptions& options = {});

}  // namespace topsim
