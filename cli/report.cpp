// `topsim report RESULTS_DIR... [-o DIR] [--label A,B...]`: the report of saved results (folders
// written by `topsim run`), or, with several folders, a comparison of the runs: every chart
// overlays them, and a delta table gives each metric in each run with its % change against the
// first, worse cells marked.
#include <algorithm>
#include <filesystem>
#include <ostream>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "formats/results/results_json.h"
#include "reports/report_files.h"
#include "reports/report_model.h"
#include "scenario/other_inputs.h"
#include "util/digest.h"
#include "util/file_names.h"

namespace topsim::cli {
namespace {

namespace fs = std::filesystem;

// "a,b,c" -> {"a", "b", "c"}.
std::vector<std::string> split_labels(const std::string& text) {
  std::vector<std::string> labels;
  size_t start = 0;
  for (size_t comma = text.find(',');; comma = text.find(',', start)) {
    labels.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return labels;
    start = comma + 1;
  }
}

// The run a report renders: the run's own for one, a digest of the labelled runs for a comparison.
std::string report_run_id(const std::vector<LabelledResults>& inputs, const std::vector<std::string>& run_ids) {
  if (run_ids.size() == 1) return run_ids.front();
  std::string runs;
  for (size_t i = 0; i < inputs.size(); ++i) runs += inputs[i].label + "\n" + run_ids[i] + "\n";
  return hex64(digest64(runs));
}

class Report : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("results", &dirs_, -1);
    options.visible.add_options()("output,o", po::value(&output_dir_),
                                  "folder for the report (default: the results folder; several: results/compare-<labels>)")(
        "label", po::value(&labels_text_), "names of the runs, comma-separated, in order (default: each run's scenario name)");
  }

  Status finish(const po::variables_map& values) override {
    if (dirs_.empty()) return Error{"give at least one results folder (written by `topsim run`)"};
    if (values.count("output") && output_dir_.empty()) return Error{"-o: the output folder is empty"};
    if (values.count("label") && labels_text_.empty()) return Error{"--label is empty"};
    if (labels_text_.empty()) return {};
    labels_ = split_labels(labels_text_);
    if (labels_.size() != dirs_.size())
      return Error{"--label names " + std::to_string(labels_.size()) + " runs, " + std::to_string(dirs_.size()) +
                   " results folders are given"};
    for (size_t i = 0; i < labels_.size(); ++i) {
      if (labels_[i].empty()) return Error{"--label: label " + std::to_string(i + 1) + " is empty"};
      if (std::any_of(labels_[i].begin(), labels_[i].end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        return Error{"--label: label " + std::to_string(i + 1) + " '" + labels_[i] + "' holds a control character"};
      for (size_t k = 0; k < i; ++k)
        if (labels_[k] == labels_[i]) return Error{"--label: '" + labels_[i] + "' is given twice"};
    }
    return {};
  }

  Outcome execute(Streams io) override {
    std::vector<ResultSet> results;
    std::vector<std::string> run_ids(dirs_.size());
    for (size_t i = 0; i < dirs_.size(); ++i) {
      auto loaded = load_results(dirs_[i], &run_ids[i]);
      if (!loaded) return Outcome::bad_input(other_input(dirs_[i], Wanted::Results).value_or(loaded.error().message));
      results.push_back(std::move(loaded).value());
    }
    std::vector<LabelledResults> inputs;
    for (size_t i = 0; i < results.size(); ++i)
      inputs.push_back({labels_.empty() ? default_label(results, i) : labels_[i], &results[i]});
    DirectorySink sink(output_dir_.empty() ? default_output(inputs) : output_dir_, report_file_names(), "report.html");
    sink.identify_run(report_run_id(inputs, run_ids));
    if (Status s = sink.prepare(); !s) return Outcome::bad_input(s.error().message);
    if (Status s = write_report(inputs, sink); !s) return Outcome::bad_input(s.error().message);
    if (Status s = sink.commit(); !s) return Outcome::bad_input(s.error().message);
    io.out << "report: " << sink.path("report.html") << "\n";
    for (const std::string& warning : comparison_warnings(inputs)) io.notes << "topsim: warning: " << warning << "\n";
    return Outcome::ok();
  }

 private:
  // The scenario's name; runs of one scenario are told apart by their folder's name.
  std::string default_label(const std::vector<ResultSet>& results, size_t i) const {
    const std::string& name = results[i].scenario.name;
    for (size_t k = 0; k < results.size(); ++k)
      if (k != i && results[k].scenario.name == name)
        return fs::path(dirs_[i]).lexically_normal().filename().string() + "/" + name;
    return name;
  }

  std::string default_output(const std::vector<LabelledResults>& inputs) const {
    if (inputs.size() == 1) return dirs_.front();
    std::string name = "compare";
    for (const LabelledResults& in : inputs) name += "-" + in.label;
    return (fs::path("results") / safe_file_name(name)).string();
  }

  std::vector<std::string> dirs_;
  std::string output_dir_;
  std::string labels_text_;
  std::vector<std::string> labels_;
};

const Registrar registered{{
    "report",
    "make the report of saved results, or compare several runs",
    "RESULTS_DIR... [-o DIR] [--label A,B...]",
    "Reads results folders written by `topsim run` (results.json, and jobs.jsonl when present)\n"
    "and writes report.html (charts with Chart.js embedded: opens offline), summary.md (for a PR\n"
    "comment or $GITHUB_STEP_SUMMARY), summary.csv, jobs.csv, timeseries.csv, tenant_timeseries.csv,\n"
    "uplink_timeseries.csv, fill_curves.csv and metrics.prom (Prometheus text format). With several folders the charts overlay "
    "the runs (one\n"
    "colour per scheduler, later runs dashed) and a delta table gives every key metric per run with\n"
    "its % change against the first run, worse changes marked. Files: docs/reports.md.",
    [] { return std::make_unique<Report>(); },
}};

}  // namespace
}  // namespace topsim::cli
