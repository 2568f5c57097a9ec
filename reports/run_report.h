// Results of `topsim run`: the machine-readable JSON (per job and per scheduler) and the
// plain-text side-by-side comparison printed on stdout. Both are deterministic: no wall-clock
// figures, fixed key order, rounded numbers.
#pragma once

#include <string>
#include <vector>

#include "sim/metrics.h"
#include "sim/scenario.h"
#include "sim/simulation.h"

namespace topsim {

struct SchedulerRun {
  SimResult result;
  RunSummary summary;
};

struct ReportOptions {
  bool job_details = true;      // per-job records in the JSON; default true
  size_t max_text_jobs = 20;    // per-job lines in the text summary when the workload is this small
  size_t max_text_samples = 12; // rows of the over-time table in the text summary (printed instead
                                // of the per-job lines when the workload is larger)
};

std::string render_run_json(const Scenario& scenario, const std::vector<SchedulerRun>& runs,
                            const ReportOptions& options = {});
std::string render_run_text(const Scenario& scenario, const std::vector<SchedulerRun>& runs,
                            const ReportOptions& options = {});

}  // namespace topsim
