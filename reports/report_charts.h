// The charts of a report (reports/report_model.h), each with the table of its numbers:
// - a replay: throughput per model, wait and JCT CDFs, allocated GPUs, fragmentation and pending
//   jobs over time, ring bandwidth by transport, waits by share size (when there are shares);
// - a fill experiment: the GPU allocation ratio against arrived load (mean with a ±sd band over
//   seeds) and fragmented GPUs against arrived load.
// Charts read the first seed's run of each series, except the fill curves (every seed). A chart
// whose data no series has (no per-job records, no samples) is left out.
#pragma once

#include <vector>

#include "reports/report_model.h"

namespace topsim {

// `status`: set to the error when a series' per-job records cannot be read back.
std::vector<Chart> replay_charts(const ReportModel& model, Status& status);
std::vector<Chart> fill_charts(const ReportModel& model);

}  // namespace topsim
