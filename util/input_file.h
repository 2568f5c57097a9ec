// Opening what users name as input: only regular files (a device, FIFO or socket could block
// forever or never end), whole-file reads bounded in size, and one-line errors naming the path.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

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

// While one lives, every file this thread reads through the functions above is recorded: its
// bytes' digest (util/digest.h; a file opened for streaming is read once more for it). The
// record is the identity of a command's inputs, derived from their content only (not paths,
// not times, not the order they were read in): a plan's shards that read other trace files get
// other identities. Recorders nest; each records what is read while it lives.
class InputRecorder {
 public:
  InputRecorder();
  ~InputRecorder();
  InputRecorder(const InputRecorder&) = delete;
  InputRecorder& operator=(const InputRecorder&) = delete;

  // A digest of the digests of the files read so far, in sorted order.
  uint64_t digest() const;
  // Called by the readers above.
  static void record(uint64_t file_digest);
  static bool active();

 private:
  std::vector<uint64_t> files_;
  InputRecorder* outer_;
};

}  // namespace topsim
