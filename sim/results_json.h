// Reading back a results folder written by `topsim run` (docs/results-format.md): results.json
// (schema "topsim.results/1") and, when present, jobs.jsonl, into the ResultSet they came from,
// so reports can be made from saved runs (`topsim report DIR...`).
//
// Every figure comes back as written (rounded to 1e-6); per-job records come back with what
// the reports read (state, times, pods, transport, ring bandwidth, throughput, shares' sizes).
// Errors name the file and the JSON pointer or line: "out/results.json: /schema: ...".
#pragma once

#include <string>

#include "core/expected.h"
#include "sim/results.h"

namespace topsim {

// `dir` holds results.json; jobs.jsonl is read when it exists (runs keep no jobs otherwise).
[[nodiscard]] Expected<ResultSet> load_results(const std::string& dir);

}  // namespace topsim
