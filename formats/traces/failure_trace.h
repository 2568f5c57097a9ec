// A failure trace (docs/failures.md): incidents to replay, one per line of a CSV file
//   node,start_s,duration_s[,cause]
// `node` names a node of the cluster (its kubectl name, or node-<index>), `start_s` is seconds
// from the run's first submission, `duration_s` how long the node stays down, and `cause` one
// of gpu, hbm, network, host, software (empty or absent: replayed).
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "sim/failures.h"
#include "util/expected.h"

namespace topsim {

// REQUIRES: `node_names` are the cluster's nodes by index. Errors name the source, the line and
// the column: a header other than the one above, a node the cluster does not have, a negative or
// non-numeric time, an unknown cause, a file without incidents. Rows are returned by start time
// (ties in file order).
[[nodiscard]] Expected<std::vector<ReplayedFailure>> read_failure_trace(std::istream& in, const std::string& source,
                                                                        const std::vector<std::string>& node_names);
[[nodiscard]] Expected<std::vector<ReplayedFailure>> load_failure_trace(const std::string& path,
                                                                        const std::vector<std::string>& node_names);

}  // namespace topsim
