// `topsim explain`: one job of saved results, under each scheduler (its first seed's run): what
// became of it, when it was submitted and started, how long it waited and ran, its GPUs node by
// node, its ring's transport and bandwidth, its throughput against the ideal placement's, and the
// reason the scheduler gave when it was rejected, stuck or never placed.
#pragma once

#include <string>

#include "sim/results.h"
#include "util/expected.h"

namespace topsim {

// `job_name` is a job's name, or "#ID" for the job of that id (jobs.jsonl's "id"). A name that
// several jobs share (a fill experiment draws a trace's pods with replacement) explains the first
// and lists the others' ids. Error: no job of that name (with a did-you-mean) or id, or records
// that cannot be read back, or results written without per-job records (--summary-only).
[[nodiscard]] Expected<std::string> explain_job(const ResultSet& results, const std::string& job_name);

}  // namespace topsim
