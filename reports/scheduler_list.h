// `topsim schedulers`: the scheduler registry as a table and as JSON (for scripts).
#pragma once

#include <string>

namespace topsim {

// NAME, WHAT IT PLACES, NODES (the label its training jobs use) and the one-line summary.
std::string render_scheduler_table();
// {"schedulers": [{"name", "summary", "handles": [...], "serves_label", "source"}]}, 2-space indent.
std::string render_scheduler_json();

}  // namespace topsim
