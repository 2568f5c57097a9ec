// Slurm accounting records as a topsim job list (docs/importers.md), from
//   sacct --allocations --parsable2 --starttime=... --endtime=...
//         --format=JobID,JobName,Submit,Start,End,Elapsed,AllocTRES,NNodes,State,Account,QOS
// (or as it comes: formats/jobs/sacct_table.h; columns in any order, others ignored). Each allocation that
// ran and used GPUs (gres/gpu in AllocTRES) becomes one job: NNodes pods sharing its GPUs, arriving
// at Submit (relative to the earliest), running End - Start seconds, in the queue its Account
// names with the priority class its QOS names (both optional columns; empty: none).
#pragma once

#include <istream>
#include <string_view>

#include "formats/jobs/imported_jobs.h"
#include "util/expected.h"

namespace topsim {

// `format`: the --format of output written with --noheader ("" when it has its header). Output
// as it comes is read (formats/jobs/sacct_table.h): --parsable2 with or without its header, the
// fixed-width table, comment lines; without the columns read, the error says what to run.
[[nodiscard]] Expected<ImportedJobs> read_sacct(std::istream& in, std::string_view source, const std::string& format = "");
[[nodiscard]] Expected<ImportedJobs> load_sacct(const std::string& path, const std::string& format = "");

// The Helios traces (SenseTime, SC '21 / NSDI '21 data release): a cluster's cluster_log.csv,
// columns job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,
// queue (the ones used: job_id, gpu_num, node_num and the three times; vc, the virtual cluster,
// optional, as the queue name; `queue` is the time spent queueing, not a name), read the same way.
[[nodiscard]] Expected<ImportedJobs> read_helios(std::istream& in, std::string_view source);
[[nodiscard]] Expected<ImportedJobs> load_helios(const std::string& path);

}  // namespace topsim
