// Slurm accounting records as a topsim job list (docs/importers.md), from
//   sacct --allocations --parsable2 --starttime=... --endtime=...
//         --format=JobID,JobName,Submit,Start,End,Elapsed,AllocTRES,NNodes,State
// ('|'-separated with a header line; columns in any order, others ignored). Each allocation that
// ran and used GPUs (gres/gpu in AllocTRES) becomes one job: NNodes pods sharing its GPUs, arriving
// at Submit (relative to the earliest), running End - Start seconds.
#pragma once

#include <istream>
#include <string_view>

#include "core/expected.h"
#include "sim/imported_jobs.h"

namespace topsim {

[[nodiscard]] Expected<ImportedJobs> read_sacct(std::istream& in, std::string_view source);
[[nodiscard]] Expected<ImportedJobs> load_sacct(const std::string& path);

}  // namespace topsim
