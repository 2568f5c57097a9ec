// Writing a command's output files. A single file is written into a new temporary file beside
// it, created exclusively under an unpredictable name (O_CREAT | O_EXCL, links never followed),
// then renamed over its path: a failure never leaves a half-written file, and nothing made in
// advance at a temporary name is written through. The "<file>.tmp" an older version left beside
// it is removed then. "-" means stdout.
//
// The files of one run are one result set (DirectorySink): written whole or not at all, by one
// topsim at a time (docs/results-format.md, "Result sets").
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "formats/results/set_record.h"
#include "reports/reporter.h"
#include "util/expected.h"

namespace topsim::cli {

// Writes `text` to `path`, or to `out` when `path` is "-". Error: "cannot write '<path>': <reason>".
[[nodiscard]] Status write_output(const std::string& path, const std::string& text, std::ostream& out);
// The same with the content streamed by `fill`.
[[nodiscard]] Status write_output_stream(const std::string& path, const std::function<void(std::ostream&)>& fill,
                                         std::ostream& out);

// Appends `text` to the regular file `path` (created when absent), as $GITHUB_STEP_SUMMARY asks;
// a FIFO, a device or a folder there is refused, never opened for writing. Error: "cannot append
// to '<path>': <reason>".
[[nodiscard]] Status append_output(const std::string& path, const std::string& text);
// Whether append_output could append to `path` (before the work).
[[nodiscard]] Status check_append_path(const std::string& path);

// Whether write_output could write `path` (before a long run, so that it does not fail at the
// end): the path is not empty, its folder exists and is writable, and `path` is absent, a regular
// file or a link.
[[nodiscard]] Status check_output_path(const std::string& path);

// The files of one result set in one folder, created when missing. prepare() takes the folder's
// lock (flock on the folder: a second topsim writing there is refused until this one ends),
// checks that each file of the set could be replaced (absent or a regular file), removes what
// killed runs left (.topsim-staging-* folders, and the "<file>.tmp" files of older versions)
// and makes a fresh staging folder inside it. write() creates each file there exclusively;
// nothing is visible in the folder until commit(): it removes the set's record
// (formats/results/set_record.h) and its commit record, moves every written file in, removes
// the set's files this run did not write (an older run's), moves the commit record in, and
// writes the set's record last: the run the files belong to (identify_run) and every file's
// size and digest. So a folder holding the commit record holds one whole set, and its record
// tells it from a mixture; a run that fails or is killed leaves the previous set without its
// records at worst. Files of another set in the folder that this one does not replace (a
// run's results.json beside a report) stay only when they are of the same run: a set of
// another run there is refused at prepare(). Destroying a sink that was not committed removes
// its staging folder (and the folder itself when it made it and it is empty).
class DirectorySink final : public OutputSink {
 public:
  // `set_files`: every file the command may write there; `commit_record` (one of them) is moved in
  // last, e.g. results.json.
  DirectorySink(std::string dir, std::vector<std::string> set_files, std::string commit_record);
  ~DirectorySink() override;
  DirectorySink(const DirectorySink&) = delete;
  DirectorySink& operator=(const DirectorySink&) = delete;

  // Before any work is done (after identify_run, when the run is known in advance). Error:
  // "cannot create '<dir>': <reason>", "cannot write in '<dir>': <reason>" (another topsim
  // writing there, a file of the set that is a folder or a FIFO, files of another run, ...).
  [[nodiscard]] Status prepare();
  // REQUIRES: prepare() succeeded; `name` is one of the set's files.
  [[nodiscard]] Status write(std::string_view name, const std::function<void(std::ostream&)>& fill) override;
  void identify_run(std::string_view run_id) override { run_id_ = run_id; }
  // Swaps the written files in (see above). Error: "cannot write '<path>': <reason>".
  [[nodiscard]] Status commit();
  // Where `name` is once committed.
  std::string path(std::string_view name) const;
  const std::string& dir() const { return dir_; }
  // The staging folder (for scratch files that must stay on the output's file system).
  const std::string& staging_dir() const { return staging_; }

 private:
  Status check_other_sets();
  void remove_leftovers() const;
  Status write_set_record();

  std::string dir_;
  std::vector<std::string> set_files_;
  std::string commit_record_;
  std::map<std::string, FileDigest> written_;
  std::map<std::string, FileDigest> kept_;  // files of the folder's previous record this set keeps
  std::string run_id_;
  std::string staging_;
  int lock_fd_ = -1;
  bool created_dir_ = false;
  bool committed_ = false;
};

}  // namespace topsim::cli
