// The ResultSet as files (docs/results-format.md): results.json (schema "topsim.results/1": the
// scenario's identity, every metric per scheduler over seeds and per run, samples over time,
// fill curves) and jobs.jsonl (one JSON object per line: a job of one run, with its placement,
// transport, ring bandwidth, throughput, wait and JCT), written and read back.
//
// Writing is deterministic: fixed key order, numbers rounded to 1e-6, no paths, no timestamps.
// Reading a folder written by `topsim run` gives the ResultSet it came from, so reports can be
// made from saved runs (`topsim report DIR...`). Every figure comes back as written (rounded
// to 1e-6); per-job records come back with what the reports read (state, times, pods, transport, ring bandwidth, throughput,
// shares' sizes). Errors name the file and the JSON pointer or line: "out/results.json: /schema: ...".
#pragma once

#include <iosfwd>
#include <string>

#include "sim/results.h"
#include "util/expected.h"

namespace topsim {

// What binds jobs.jsonl to its results.json: its line count and the digest of its bytes
// (util/digest.h).
struct JobsDigest {
  uint64_t lines = 0;
  uint64_t digest = 0;
};

// results.json. With `jobs` (the digest of the jobs.jsonl written beside it; nullptr: none is)
// it carries the run's identity, "run": {"id", "jobs_jsonl": {"lines", "digest"} or null}, the
// id a digest of everything else in both files: the same run gives the same id. Returns the id
// ("" without `jobs`).
std::string write_results_json(const ResultSet& results, std::ostream& out, const JobsDigest* jobs = nullptr);
// jobs.jsonl: every per-job record of every run, runs in the order of results.json, jobs by id
// (formats/results/job_line.h). When a run's records on disk cannot be read back, the stream is set bad.
void write_jobs_jsonl(const ResultSet& results, std::ostream& out);
// The same, returning that error; fills `digest` when given.
[[nodiscard]] Status stream_jobs_jsonl(const ResultSet& results, std::ostream& out, JobsDigest* digest = nullptr);

// `dir` holds results.json; jobs.jsonl is read when it exists (runs keep no jobs otherwise).
// When results.json carries its run's identity, jobs.jsonl must be the one written with it
// (present exactly when it names one, same lines, same digest): a mixture of two runs, or a set
// cut short, is refused naming jobs.jsonl. When the folder holds its set's record
// (formats/results/set_record.h), every file it names must be intact and results.json of its run.
// `run_id` (when given) gets the run's identity: results.json's id, or the digest of its bytes
// when it has none.
[[nodiscard]] Expected<ResultSet> load_results(const std::string& dir, std::string* run_id = nullptr);

}  // namespace topsim
