// One line of jobs.jsonl (docs/results-format.md): a job of one run as a JSON object, keys in
// the documented order, numbers rounded to 1e-6 as results.json rounds them. Written by hand for
// speed (a million lines a second): the bytes are exactly what nlohmann::json's dump() gives
// for the same object (tests/formats/results/test_job_line.cpp compares them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"
#include "sim/job_record.h"

namespace topsim {

// An LLM job's layout as results name it (jobs.jsonl "parallelism", jobs.csv): "tp8 pp2 dp2 cp1 ep1".
std::string parallelism_text(const ParallelConfig& config);

// Appends `job` of `workload` with its final `record`, run by `scheduler` with `seed`, as one
// JSON object and a newline to `out`; `flavors` are the run's Kueue ResourceFlavors
// (JobRecord::flavor indexes them).
void append_job_line(std::string& out, std::string_view scheduler, uint64_t seed, const Workload& workload, const JobSpec& job,
                     const JobRecord& record, const std::vector<std::string>& flavors = {});

}  // namespace topsim
