// The reporters of reports/reporter.h over the renderers of this folder.
#include <ostream>

#include "formats/results/results_json.h"
#include "reports/reporter.h"
#include "reports/text_report.h"

namespace topsim {
namespace {

class TextReporter final : public Reporter {
 public:
  std::string_view name() const override { return "text"; }
  std::vector<std::string> files() const override { return {"summary.txt"}; }
  Status write(const ResultSet& results, OutputSink& sink) const override {
    return sink.write("summary.txt", [&](std::ostream& out) { out << render_text(results); });
  }
};

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(bool jobs) : jobs_(jobs) {}
  std::string_view name() const override { return "json"; }
  std::vector<std::string> files() const override {
    if (jobs_) return {"results.json", "jobs.jsonl"};
    return {"results.json"};
  }
  // jobs.jsonl first: results.json carries its digest (the run's identity).
  Status write(const ResultSet& results, OutputSink& sink) const override {
    JobsDigest digest;
    if (jobs_) {
      Status read = Status::success();
      const Status written =
          sink.write("jobs.jsonl", [&](std::ostream& out) { read = stream_jobs_jsonl(results, out, &digest); });
      if (!read) return read;
      if (!written) return written;
    }
    return sink.write("results.json", [&](std::ostream& out) { write_results_json(results, out, &digest); });
  }

 private:
  bool jobs_;
};

}  // namespace

std::unique_ptr<Reporter> make_text_reporter() { return std::make_unique<TextReporter>(); }
std::unique_ptr<Reporter> make_json_reporter(bool jobs) { return std::make_unique<JsonReporter>(jobs); }

}  // namespace topsim
