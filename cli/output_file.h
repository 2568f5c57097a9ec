// Writing a command's output files: atomically (to "<path>.tmp", then renamed over <path>), so
// a failure never leaves a half-written file; "-" means stdout.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "reports/reporter.h"
#include "util/expected.h"

namespace topsim::cli {

// Writes `text` to `path`, or to `out` when `path` is "-". Error: "cannot write '<path>': <reason>".
[[nodiscard]] Status write_output(const std::string& path, const std::string& text, std::ostream& out);
// The same with the content streamed by `fill`.
[[nodiscard]] Status write_output_stream(const std::string& path, const std::function<void(std::ostream&)>& fill,
                                         std::ostream& out);

// Whether write_output could write `path` (before a long run, so that it does not fail at the
// end): its folder exists and is writable, and `path` is absent, a regular file or a link.
[[nodiscard]] Status check_output_path(const std::string& path);

// Reporters' files in one folder, created when missing.
class DirectorySink final : public OutputSink {
 public:
  explicit DirectorySink(std::string dir) : dir_(std::move(dir)) {}
  // Creates the folder and checks it can be written in, before any work is done.
  // Error: "cannot create '<dir>': <reason>" or "cannot write in '<dir>': <reason>".
  [[nodiscard]] Status prepare() const;
  [[nodiscard]] Status write(std::string_view name, const std::function<void(std::ostream&)>& fill) override;
  std::string path(std::string_view name) const;
  const std::string& dir() const { return dir_; }
  // Removes a file an earlier run left that this one does not write (no error when absent).
  void remove_stale(std::string_view name) const;

 private:
  std::string dir_;
};

}  // namespace topsim::cli
