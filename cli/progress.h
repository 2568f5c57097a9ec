// Progress of run_experiment on stderr, for every command that runs scenarios (run, check):
// - on a terminal, unless --quiet: one live line rewritten in place — simulated time, jobs done,
//   events/s and the time left — cleared when the runs end;
// - with --timing (terminal or not): one line per finished run (wall time, events/s);
// - otherwise nothing, so logs and pipes stay clean.
#pragma once

#include <ostream>
#include <string>

#include "sim/experiment.h"

namespace topsim::cli {

struct ProgressOptions {
  bool timing = false;    // --timing
  bool quiet = false;     // --quiet
  bool terminal = false;  // stderr is a terminal
  std::string label;      // what runs, e.g. the scenario name
};

// Whether stderr is a terminal (TOPSIM_PROGRESS=always forces a live line, for tests).
bool stderr_is_terminal();

// Sets options.progress / options.live to draw on `err`. `err` must outlive the runs.
void attach_progress(ExperimentOptions& options, std::ostream& err, const ProgressOptions& progress);

// "2d 04:10:05", "04:10:05" — a duration of simulated or remaining time.
std::string format_duration(double seconds);

}  // namespace topsim::cli
