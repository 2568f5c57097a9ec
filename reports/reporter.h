// Reporters: renderings of a ResultSet (sim/results.h). A reporter writes its files through an
// OutputSink, which decides where they go (a folder, memory in tests) and writes each whole or
// not at all. Every output of `topsim` about a run is a reporter's: text on stdout, results.json
// and jobs.jsonl (docs/results-format.md), and the reports built on them.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/results.h"
#include "util/expected.h"

namespace topsim {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Writes the file `name` (a plain file name) with what `fill` streams into it.
  [[nodiscard]] virtual Status write(std::string_view name, const std::function<void(std::ostream&)>& fill) = 0;
  // Names the run that the files belong to (16 hexadecimal digits, derived from their content:
  // the same inputs and seed give the same id), for the set's record; a sink keeping no record
  // ignores it.
  virtual void identify_run(std::string_view run_id) { static_cast<void>(run_id); }
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual std::string_view name() const = 0;
  // The files it writes, for messages ("results.json, jobs.jsonl").
  virtual std::vector<std::string> files() const = 0;
  [[nodiscard]] virtual Status write(const ResultSet& results, OutputSink& sink) const = 0;
};

// summary.txt: render_text.
std::unique_ptr<Reporter> make_text_reporter();
// results.json (schema topsim.results/1) and, with `jobs`, jobs.jsonl (one line per job per run).
std::unique_ptr<Reporter> make_json_reporter(bool jobs);

}  // namespace topsim
