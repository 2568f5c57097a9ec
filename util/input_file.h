// Opening what users name as input: only regular files (a device, FIFO or socket could block
// forever or never end), whole-file reads bounded in size, and one-line errors naming the path.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include "util/expected.h"

namespace topsim {

// The largest file read whole (JSON, XML, topo -m text): 256 MiB. Traces are streamed.
inline constexpr uint64_t kMaxWholeFileBytes = uint64_t{256} << 20;

// Ok when `path` names a regular file (symbolic links followed); otherwise
// "cannot open '<path>': No such file or directory" / "it is a directory" / "not a regular file (a FIFO)".
[[nodiscard]] Status check_input_file(const std::string& path);

// Opens a regular file for streaming (binary mode).
[[nodiscard]] Expected<std::ifstream> open_input_file(const std::string& path);

// Reads a whole regular file of at most kMaxWholeFileBytes; the error is "cannot open '<path>':
// <reason>" or names the limit.
[[nodiscard]] Expected<std::string> read_text_file(const std::string& path);

}  // namespace topsim
