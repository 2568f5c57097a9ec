// Reading jobs.jsonl back (docs/results-format.md): each line a job of one run of results.json,
// with the fields the reports read (state, times, pods, transport, ring bandwidth, throughput,
// shares' sizes, the LLM step). Used by load_results (formats/results/results_json.h), which
// first checks the file against results.json's run identity.
#pragma once

#include <string>

#include "sim/results.h"
#include "util/expected.h"

namespace topsim {

// Reads `dir`/jobs.jsonl, when present, into the runs of `results` it belongs to (by scheduler
// and seed); each run gets its own workload. Errors name the file and line:
// "out/jobs.jsonl:12: /pods: expected ...", "out/jobs.jsonl:3: a job of no run in results.json".
[[nodiscard]] Status read_jobs_jsonl(const std::string& dir, ResultSet& results);

}  // namespace topsim
