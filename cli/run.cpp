// `topsim run [<scenario>] [-o DIR]`: runs a scenario (every scheduler it lists, every seed),
// prints the side-by-side comparison and writes the results through the reporters.
#include <filesystem>
#include <ostream>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "reports/report_files.h"
#include "reports/reporter.h"
#include "reports/text_report.h"
#include "scenario/scenario_loader.h"
#include "sim/experiment.h"
#include "util/file_names.h"
#include "util/text.h"
#include "util/workers.h"

namespace topsim::cli {
namespace {

namespace fs = std::filesystem;

// The built-in default scenario: the copy installed beside this topsim (cmake --install puts it
// in <prefix>/share/topsim/scenarios), else the source tree's it was built from.
std::string default_scenario() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::string installed = default_scenario_path((exe.parent_path() / TOPSIM_DATA_FROM_BIN).lexically_normal().string());
    if (fs::is_regular_file(installed, ec)) return installed;
  }
  return default_scenario_path(TOPSIM_SOURCE_DIR);
}

class Run : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("scenario", &scenario_);
    options.visible.add_options()("output,o", po::value(&output_dir_),
                                  "folder for the results and the report (default: results/<scenario name>)")(
        "summary-only", po::bool_switch(&summary_only_), "leave the per-job records (jobs.jsonl) out")(
        "jobs", po::bool_switch(&jobs_), "fill experiments: write jobs.jsonl too (every drawn pod of every run; large)")(
        "threads", po::value(&threads_)->default_value(0), "runs (scheduler x seed) at once (default 0 = all cores)")(
        "timing", po::bool_switch(&timing_), "print wall time and events/s of each run on stderr (any mode)")(
        "quiet,q", po::bool_switch(&quiet_),
        "no live progress line (on a terminal, stderr shows simulated time, jobs done, events/s, ETA)")(
        "report", po::bool_switch(&report_)->default_value(true),
        "write the report: report.html, summary.md, CSV files, metrics.prom (the default)")(
        "no-report", po::bool_switch(&no_report_), "leave the report out")(
        "check-invariants", po::bool_switch(&check_invariants_),
        "verify the run invariants after every event (no resource over-allocated, gangs whole, every job accounted for); on in "
        "Debug builds")(
        "cluster", po::value(&cluster_)->value_name("FILE"),
        "instead of a scenario: the cluster, a file as a scenario's \"cluster\" takes (`kubectl get nodes -o json` too)")(
        "workload", po::value(&workload_)->value_name("PATH"),
        "with --cluster: the workload, a file or folder as a scenario's \"workload\" takes (Kubernetes manifests, sacct, "
        "Helios, a job list)")(
        "network", po::value(&network_)->value_name("ib|roce|tcp"),
        "with --cluster from kubectl: the transport between nodes (default: ib when every GPU node shows an RDMA device - "
        "rdma/*, nvidia.com/hostdev or a Mellanox NIC label - else tcp; the run says which)")(
        "share-card-gib", po::value(&share_card_gib_)->value_name("GIB"),
        "with --workload manifests: the card memory a share given as a fraction of a card is read against (KAI "
        "gpu-fraction, alibabacloud.com/gpu-milli, HAMi gpumem-percentage)")(
        "topology-labels", po::value(&topology_labels_)->value_name("A,B,..."),
        "with --cluster from kubectl: node labels that name fabric levels, top level first, beyond those read anyway (AWS "
        "network-node-layer-N, GKE gce-topology-*, Topograph, nvidia.com/gpu.clique; docs/fabric.md)");
  }

  Status finish(const po::variables_map& values) override {
    // An empty argument (an unset "$SCENARIO") is not "no argument": it must not run the default.
    if (values.count("scenario") && scenario_.empty()) return Error{"the scenario argument is empty"};
    if (values.count("output") && output_dir_.empty()) return Error{"-o: the output folder is empty"};
    if (no_report_ && values.count("report") && !values["report"].defaulted())
      return Error{"--report and --no-report contradict each other"};
    if (summary_only_ && jobs_) return Error{"--summary-only and --jobs contradict each other"};
    if (threads_ < 0) return Error{"--threads must be 0 (all cores) or more, got " + std::to_string(threads_)};
    if (cluster_.empty() != workload_.empty()) return Error{"--cluster and --workload go together (a scenario needs both)"};
    if (!cluster_.empty() && !scenario_.empty()) return Error{"give a scenario or --cluster and --workload, not both"};
    if (values.count("topology-labels") && cluster_.empty()) return Error{"--topology-labels goes with --cluster"};
    if (values.count("network") && cluster_.empty()) return Error{"--network goes with --cluster"};
    if (values.count("network") && network_ != "ib" && network_ != "roce" && network_ != "tcp")
      return Error{"--network: '" + network_ + "' is not one of ib, roce, tcp"};
    if (values.count("share-card-gib") && cluster_.empty()) return Error{"--share-card-gib goes with --cluster and --workload"};
    if (values.count("share-card-gib") && (share_card_gib_ < 1 || share_card_gib_ > 1024))
      return Error{"--share-card-gib: the card's memory in GiB (1-1024), got " + std::to_string(share_card_gib_)};
    if (values.count("topology-labels") && split_list(topology_labels_).empty())
      return Error{"--topology-labels: give node label names separated by commas"};
    return {};
  }

  Outcome execute(Streams io) override {
    if (scenario_.empty() && cluster_.empty()) scenario_ = default_scenario();
    auto scenario = cluster_.empty()
                        ? load_scenario(scenario_)
                        : scenario_from_files(cluster_, workload_, {split_list(topology_labels_), network_, share_card_gib_});
    if (!scenario) return Outcome::bad_input(scenario.error().message);
    std::vector<std::string> set_files = {"results.json", "jobs.jsonl", "summary.txt"};
    for (const std::string& name : report_file_names()) set_files.push_back(name);
    DirectorySink sink(output_dir_.empty() ? (fs::path("results") / safe_file_name(scenario->name)).string() : output_dir_,
                       set_files, "results.json");
    if (Status s = sink.prepare(); !s) return Outcome::bad_input(s.error().message);
    ExperimentOptions options;
    options.check_invariants = options.check_invariants || check_invariants_;
    options.threads = threads_or_all_cores(threads_);
    options.keep_jobs = scenario->mode == ExperimentMode::Fill ? jobs_ : !summary_only_;
    options.spill_dir = sink.staging_dir();  // per-job records wait on disk, unnamed, until the reporters write them
    attach_progress(options, io.err, {timing_, quiet_, stderr_is_terminal(), scenario->name});
    auto results = run_experiment(*scenario, options);
    if (!results) return Outcome::failed(results.error());
    std::vector<std::unique_ptr<Reporter>> reporters;
    reporters.push_back(make_json_reporter(options.keep_jobs));
    reporters.push_back(make_text_reporter());
    if (!no_report_) reporters.push_back(make_report_reporter());
    for (const auto& reporter : reporters)
      if (Status s = reporter->write(*results, sink); !s) return Outcome::bad_input(s.error().message);
    if (Status s = sink.commit(); !s) return Outcome::bad_input(s.error().message);
    for (const std::string& note : scenario->notes) io.out << note << "\n";
    io.out << render_text(*results);
    io.out << "\nresults: " << sink.path("results.json") << "\n";
    if (!no_report_) io.out << "report: " << sink.path("report.html") << "\n";
    return Outcome::ok();
  }

 private:
  std::string scenario_;
  std::string output_dir_;
  bool summary_only_ = false;
  bool jobs_ = false;
  bool report_ = true;
  bool no_report_ = false;
  bool timing_ = false;
  bool quiet_ = false;
  bool check_invariants_ = false;
  std::string cluster_, workload_, topology_labels_, network_;
  int threads_ = 0;
  int share_card_gib_ = 0;
};

const Registrar registered{{
    "run",
    "run a scenario under each scheduler and compare them",
    "[<scenario.json> | --cluster FILE --workload PATH] [-o DIR]",
    "Runs every scheduler the scenario lists (`topsim schedulers`) on its cluster and workload,\n"
    "once per seed, prints a side-by-side summary and writes DIR/results.json (schema\n"
    "topsim.results/1: per scheduler wait/JCT distributions, makespan, utilisation, images/sec,\n"
    "ring bandwidth, cross-NUMA ratio, topology success rate, fallbacks; over time: GPUs\n"
    "allocated, FGD fragmentation, running and pending jobs, sampled and time-weighted),\n"
    "DIR/jobs.jsonl (per job: placement, ring bandwidth, transport, throughput, wait, JCT) and\n"
    "DIR/summary.txt, and the report: DIR/report.html (charts, opens offline), summary.md,\n"
    "summary.csv, jobs.csv, the time series (timeseries.csv, tenant_timeseries.csv,\n"
    "uplink_timeseries.csv), fill_curves.csv and metrics.prom (docs/reports.md;\n"
    "`topsim report` makes one from saved results, or compares several). Shared-GPU jobs\n"
    "(gpu_mem_gib, gpu_core_percent) run on nodes labelled share / core_mem beside whole-GPU jobs.\n"
    "Without a scenario it runs the built-in default, scenarios/ack-v100-benchmark.json.\n"
    "--cluster and --workload make a scenario of your own files: `kubectl get nodes -o json` output\n"
    "(or a cluster JSON) and a folder of Kubernetes manifests, sacct output, a Helios log or a job\n"
    "list, e.g. `topsim run --cluster nodes.json --workload manifests/` (docs/importers.md).\n"
    "Scenarios with \"mode\": \"fill\" run the FGD fragmentation experiment (pods arrive until a\n"
    "target load, nothing departs). Formats: docs/scenarios.md, docs/results-format.md.",
    [] { return std::make_unique<Run>(); },
}};

}  // namespace
}  // namespace topsim::cli
