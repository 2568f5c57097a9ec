// `topsim explain RESULTS_DIR JOB`: why a job waited, where it ran and how fast, under each
// scheduler of saved results (reports/job_explain.h).
#include <ostream>

#include "cli/command_table.h"
#include "formats/results/results_json.h"
#include "reports/job_explain.h"
#include "scenario/other_inputs.h"

namespace topsim::cli {
namespace {

class Explain : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("results", &dir_);
    options.argument("job", &job_);
  }

  Status finish(const po::variables_map&) override {
    if (dir_.empty() || job_.empty()) return Error{"give a results folder (written by `topsim run`) and a job name"};
    return {};
  }

  Outcome execute(Streams io) override {
    auto results = load_results(dir_);
    if (!results) return Outcome::bad_input(other_input(dir_, Wanted::Results).value_or(results.error().message));
    auto text = explain_job(*results, job_);
    if (!text) return Outcome::bad_input(dir_ + ": " + text.error().message);
    io.out << *text;
    return Outcome::ok();
  }

 private:
  std::string dir_, job_;
};

const Registrar registered{{
    "explain",
    "explain one job of saved results: placement, ring, throughput, why it waited",
    "RESULTS_DIR JOB",
    "Reads a results folder written by `topsim run` (with its jobs.jsonl) and prints, for each\n"
    "scheduler's first seed, what became of the job: its state, wait and run time, its GPUs node by\n"
    "node, its ring's transport and bus bandwidth, its throughput against the ideal placement's,\n"
    "the constraints the allocator dropped, and the reason the scheduler gave when it rejected the\n"
    "job, left it stuck or never placed it (e.g. \"no NIC path\"). A record the workload skipped (a\n"
    "shared-GPU or CPU-only Alibaba pod, a manifest that is no GPU workload) is named with the\n"
    "reason it was not replayed. An unknown job name is refused with the closest names. JOB may\n"
    "also be '#ID', the job's \"id\" in jobs.jsonl: a fill experiment (--jobs) draws a trace's pods\n"
    "with replacement, so a name may name several jobs; the first is explained and the others' ids\n"
    "are listed.",
    [] { return std::make_unique<Explain>(); },
}};

}  // namespace
}  // namespace topsim::cli
