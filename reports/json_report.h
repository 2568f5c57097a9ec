// The ResultSet as JSON (docs/results-format.md): results.json (schema "topsim.results/1": the
// scenario's identity, every metric per scheduler over seeds and per run, samples over time,
// fill curves) and jobs.jsonl (one JSON object per line: a job of one run, with its placement,
// transport, ring bandwidth, throughput, wait and JCT). Deterministic: fixed key order,
// numbers rounded to 1e-6, no paths, no timestamps.
#pragma once

#include <iosfwd>

#include "sim/results.h"

namespace topsim {

void write_results_json(const ResultSet& results, std::ostream& out);
// jobs.jsonl: every per-job record of every run, runs in the order of results.json, jobs by id
// (reports/job_line.h). When a run's records on disk cannot be read back, the stream is set bad.
void write_jobs_jsonl(const ResultSet& results, std::ostream& out);
// The same, returning that error.
[[nodiscard]] Status stream_jobs_jsonl(const ResultSet& results, std::ostream& out);

}  // namespace topsim
