// Writing a command's output file: atomically (to "<path>.tmp", then renamed over <path>), so
// a failure never leaves a half-written file; "-" means stdout.
#pragma once

#include <ostream>
#include <string>

#include "core/expected.h"

namespace topsim::cli {

// Writes `text` to `path`, or to `out` when `path` is "-". Error: "cannot write '<path>': <reason>".
Status write_output(const std::string& path, const std::string& text, std::ostream& out);

}  // namespace topsim::cli
