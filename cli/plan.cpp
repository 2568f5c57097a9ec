// `topsim plan PLAN.json [-o DIR] [--threads N] [--shard I/N | --shards N]` and
// `topsim merge PART... -o DIR`: capacity planning against SLOs (plan/plan.h,
// docs/planning.md), whole or sharded over a batch system (docs/distributed.md).
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "plan/plan_parts.h"
#include "reports/plan_report.h"
#include "util/file_names.h"
#include "util/workers.h"

namespace topsim::cli {
namespace {

namespace fs = std::filesystem;

void attach_plan_progress(PlanRunOptions& options, std::ostream& err, const ProgressOptions& progress) {
  const bool live = progress.terminal && !progress.quiet;
  if (progress.timing)
    options.chain_done = [&err, live](const PlanChain& chain, double wall_s) {
      if (live) err << "\r\033[K";
      err << fmt::format("{} / {} / x{}: {} sizes in {:.2f} s\n", chain.scheduler, chain.candidate, chain.growth,
                         chain.evaluations.size(), wall_s);
      err.flush();
    };
  if (live)
    options.live = [&err, label = progress.label](const PlanProgress& p) {
      err << "\r\033[K";
      if (!p.finished) {
        const double rate = p.elapsed_s > 0 ? static_cast<double>(p.events) / p.elapsed_s : 0;
        std::string eta = "--:--:--";
        if (p.chains_done > 0)
          eta = format_duration(p.elapsed_s / static_cast<double>(p.chains_done) * static_cast<double>(p.chains - p.chains_done));
        err << fmt::format("{}: {}/{} searches done, {} sizes evaluated, {:.0f} events/s, ETA {}", label, p.chains_done, p.chains,
                           p.evaluations, rate, eta);
      }
      err.flush();
    };
}

// The result set of a plan or a merge in `dir`.
DirectorySink plan_sink(const std::string& dir) { return DirectorySink(dir, plan_file_names(true), "plan.json"); }

// Writes the plan's files and says where; exit 1 when some growth step has no configuration.
// REQUIRES: sink.prepare() succeeded.
Outcome finish_plan(const PlanResult& result, DirectorySink& sink, bool report, Streams io) {
  if (Status s = write_plan_reports(result, sink, report); !s) return Outcome::bad_input(s.error().message);
  if (Status s = sink.commit(); !s) return Outcome::bad_input(s.error().message);
  io.out << render_plan_text(result);
  io.out << "\nplan: " << sink.path("plan.json") << "\n";
  if (report) io.out << "report: " << sink.path("report.html") << "\n";
  if (plan_feasible(result)) return Outcome::ok();
  std::string steps;
  const auto headlines = plan_headlines(result);
  for (size_t g = 0; g < result.info.growth.size(); ++g) {
    const auto best = cheapest_per_scheduler(result, g);
    if (std::none_of(best.begin(), best.end(), [](const PlanChain* c) { return c != nullptr; }))
      steps += (steps.empty() ? "" : ", ") + fmt::format("x{}", result.info.growth[g]);
  }
  return Outcome::slos_not_met("no configuration within the bounds meets every SLO at growth " + steps +
                               " (the report says which SLO binds)");
}

class Plan : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("plan", &plan_path_);
    options.visible.add_options()("output,o", po::value(&output_dir_), "folder for the results (default: results/<plan name>)")(
        "threads", po::value(&threads_)->default_value(0),
        "searches at once (default 0 = all cores); results do not depend on it")(
        "shard", po::value(&shard_), "I/N: run only shard I of N (0 <= I < N) and write its part for `topsim merge`")(
        "shards", po::value(&shards_)->default_value(0),
        "N shards, this one JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs); a Slurm job array needs neither option")(
        "no-report", po::bool_switch(&no_report_), "leave report.html and summary.md out")(
        "timing", po::bool_switch(&timing_), "print each search's sizes and wall time on stderr")(
        "quiet,q", po::bool_switch(&quiet_), "no live progress line on stderr")(
        "check-invariants", po::bool_switch(&check_invariants_),
        "verify the run invariants after every event (no resource over-allocated, gangs whole, every job accounted for); on in "
        "Debug builds")("list-slos", po::bool_switch(&list_slos_),
                        "print every metric an SLO can bound (unit, better direction), and exit");
  }

  Status finish(const po::variables_map& values) override {
    if (list_slos_) return {};
    if (values.count("output") && output_dir_.empty()) return Error{"-o: the output folder is empty"};
    if (values.count("shard") && shard_.empty()) return Error{"--shard is empty: expected I/N with 0 <= I < N, e.g. 0/4"};
    if (plan_path_.empty()) return Error{"give a plan file (docs/planning.md)"};
    if (threads_ < 0) return Error{"--threads must be 0 (all cores) or more, got " + std::to_string(threads_)};
    if (shards_ < 0) return Error{"--shards must be 1 or more, got " + std::to_string(shards_)};
    if (!shard_.empty() && shards_ > 0) return Error{"--shard I/N and --shards N contradict each other (give one)"};
    return {};
  }

  Outcome execute(Streams io) override {
    if (list_slos_) return list_slos(io);
    auto shard = choose_shard(shard_, shards_, std::getenv);
    if (!shard) return Outcome::bad_input(shard.error().message);
    auto plan = load_plan(plan_path_);
    if (!plan) return Outcome::bad_input(plan.error().message);
    const std::string dir = output_dir_.empty() ? (fs::path("results") / safe_file_name(plan->name)).string() : output_dir_;
    // Before any work: a whole plan takes the folder as its result set; a shard only adds its part
    // (shards share the folder), written as one file.
    DirectorySink sink = plan_sink(dir);
    const std::string part = *shard ? (fs::path(dir) / plan_part_name((*shard)->index, (*shard)->count)).string() : "";
    if (*shard && !dir.empty()) {
      std::error_code ignored;  // check_output_path names what is wrong
      fs::create_directories(dir, ignored);
    }
    if (Status s = *shard ? check_output_path(part) : sink.prepare(); !s) return Outcome::bad_input(s.error().message);
    PlanRunOptions options;
    options.threads = threads_or_all_cores(threads_);
    options.check_invariants = options.check_invariants || check_invariants_;
    const size_t chains = plan_chains(*plan).size();
    if (*shard) options.chains = plan_shard(plan_groups(*plan), (*shard)->index, (*shard)->count);
    attach_plan_progress(options, io.err, {timing_, quiet_, stderr_is_terminal(), plan->name});
    if (*shard && options.chains->empty())
      io.notes << fmt::format(
          "topsim: note: shard {} of {} has no search to run (the plan's {} searches make {} groups, and a group runs in one "
          "shard)\n",
          (*shard)->index, (*shard)->count, chains, plan_groups(*plan).size());
    auto result = run_plan(*plan, options);
    if (!result) return Outcome::failed(result.error());
    if (!*shard) return finish_plan(*result, sink, !no_report_, io);
    if (Status s = write_output(part, render_plan_part(*result, (*shard)->index, (*shard)->count), io.out); !s)
      return Outcome::bad_input(s.error().message);
    io.out << fmt::format("shard {} of {} ({}): {} of {} searches -> {}\n", (*shard)->index, (*shard)->count, (*shard)->from,
                          options.chains->size(), chains, part);
    return Outcome::ok();
  }

 private:
  std::string plan_path_, output_dir_, shard_;
  int threads_ = 0, shards_ = 0;
  bool no_report_ = false, timing_ = false, quiet_ = false, list_slos_ = false, check_invariants_ = false;

  static Outcome list_slos(Streams io) {
    for (const std::string& name : slo_metric_names()) {
      const MetricInfo& info = *find_metric(name);
      const std::string_view better = info.better == Better::Lower ? "lower" : info.better == Better::Higher ? "higher" : "-";
      io.out << fmt::format("{:<28} {:<10} {:<7} {}\n", name, info.unit, better, info.description);
    }
    return Outcome::ok();
  }
};

class Merge : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("parts", &inputs_, -1);
    options.visible.add_options()("output,o", po::value(&output_dir_), "folder for the merged results (required)")(
        "no-report", po::bool_switch(&no_report_), "leave report.html and summary.md out");
  }

  Status finish(const po::variables_map& values) override {
    if (values.count("output") && output_dir_.empty()) return Error{"-o: the output folder is empty"};
    if (inputs_.empty()) return Error{"give the shards' output folders or their plan-part-*.json files"};
    for (const std::string& input : inputs_)
      if (input.empty()) return Error{"an empty part argument (give the shards' folders or plan-part-*.json files)"};
    if (output_dir_.empty()) return Error{"-o DIR is required: the folder for the merged results"};
    return {};
  }

  Outcome execute(Streams io) override {
    std::vector<PlanPart> parts;
    for (const std::string& input : inputs_) {
      auto files = find_plan_parts(input);
      if (!files) return Outcome::bad_input(files.error().message);
      for (const std::string& file : *files) {
        auto part = load_plan_part(file);
        if (!part) return Outcome::bad_input(part.error().message);
        parts.push_back(std::move(part).value());
      }
    }
    auto merged = merge_plan_parts(std::move(parts));
    if (!merged) return Outcome::bad_input(merged.error().message);
    DirectorySink sink = plan_sink(output_dir_);
    if (Status s = sink.prepare(); !s) return Outcome::bad_input(s.error().message);
    return finish_plan(*merged, sink, !no_report_, io);
  }

 private:
  std::vector<std::string> inputs_;
  std::string output_dir_;
  bool no_report_ = false;
};

const Registrar plan_registered{{
    "plan",
    "find the smallest cluster meeting SLOs, per scheduler, node type and growth step",
    "<plan.json> [-o DIR] [--threads N] [--shard I/N | --shards N]",
    "For every scheduler x candidate (a node type, or a mix of types) x growth step of the plan,\n"
    "replays the workload (arrivals compressed by the growth factor) on clusters of doubling size,\n"
    "then bisects, to find the smallest one meeting every SLO (p95 / p99 wait, mean / p95 JCT,\n"
    "placement efficiency, GPU allocation, rejected jobs, ... any metric of --list-slos) within\n"
    "the bounds, and its cost. Writes DIR/plan.json (every evaluated configuration with its\n"
    "metrics), summary.txt, plan.csv, summary.md and report.html (the cost vs p95 wait frontier\n"
    "per scheduler). Exit 0 when every growth step has a configuration meeting the SLOs, 1 when\n"
    "one has none within the bounds, 2 on a bad plan.\n"
    "Sharded: --shard I/N (or a Slurm job array, or --shards N in a Kubernetes Indexed Job) runs\n"
    "1/N of the searches and writes DIR/plan-part-I-of-N.json; `topsim merge` joins the parts.\n"
    "Formats: docs/planning.md; batch systems: docs/distributed.md.",
    [] { return std::make_unique<Plan>(); },
}};

const Registrar merge_registered{{
    "merge",
    "join the parts of a sharded plan into its results and report",
    "<folder|part.json>... -o DIR",
    "Reads every plan-part-*.json in the given folders (or the given part files), checks that\n"
    "they are the parts of one plan (same plan file, same shard count, each shard once), and\n"
    "writes what the unsharded `topsim plan` writes, byte for byte. Exit codes as `topsim plan`.",
    [] { return std::make_unique<Merge>(); },
}};

}  // namespace
}  // namespace topsim::cli
