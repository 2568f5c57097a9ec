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
  // jobs.jsonl first: results.json carries its digest and the run's identity, which the sink is told.
  Status write(const ResultSet& results, OutputSink& sink) const override {
    JobsDigest digest;
    if (jobs_) {
      Status read = Status::success();
      const Status written =
          sink.write("jobs.jsonl", [&](std::ostream& out) { read = stream_jobs_jsonl(results, out, &digest); });
      if (!read) return read;
      if (!written) return written;
    }
    std::string run_id;
    const Status written =
        sink.write("results.json", [&](std::ostream& out) { run_id = write_results_json(results, out, &digest); });
    if (written) sink.identify_run(run_id);
    return written;
  }

 private:
  bool jobs_;
};

}  // namespace

std::unique_ptr<Reporter> make_text_reporter() { return std::make_unique<TextReporter>(); }
std::unique_ptr<Reporter> make_json_reporter(bool jobs) { return std::make_unique<JsonReporter>(jobs); }

}  // namespace topsim
