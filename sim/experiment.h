// run_experiment: the one way a scenario runs, for the CLI, the tests and the benchmarks
// alike. Every scheduler of the scenario runs once per seed, each run on its own copy of the
// cluster; runs go to `threads` worker threads and are independent, so the results do not
// depend on the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sim/engine.h"
#include "sim/invariants.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/thread_caches.h"
#include "util/expected.h"

namespace topsim {

// One finished run, for progress and timing lines (never part of the results).
struct RunProgress {
  size_t done = 0, total = 0;  // runs finished so far, runs in all
  std::string scheduler;
  uint64_t seed = 0;
  size_t jobs = 0;
  uint64_t events = 0;
  double wall_s = 0;  // wall-clock time of this run
};

// The whole experiment while it runs, for a live progress line (never part of the results).
struct LiveProgress {
  size_t runs_done = 0, runs = 0;
  uint64_t jobs_done = 0, jobs = 0;          // over all runs (replays: final; fill: arrived)
  uint64_t events = 0, expected_events = 0;  // over all runs; expected: 2 a job in replays, 1 in fill
  double simulated_s = 0;                    // simulated time of the run that reported last
  double elapsed_s = 0;                      // wall-clock time since the experiment started
  bool finished = false;                     // the last call: every run is done
};

struct ExperimentOptions {
  int threads = 1;        // runs at once; <= 1: the calling thread only; default 1
  bool keep_jobs = true;  // per-job records in the results; default true
  // With keep_jobs: each run's per-job records go, as each becomes final, to an unnamed file in
  // this folder (RunResult::job_store, sim/job_store.h) instead of memory, and lifecycle
  // transitions are not recorded; default "" (records in memory).
  std::string spill_dir;
  // Called after each run, one call at a time, from the thread that finished it.
  std::function<void(const RunProgress&)> progress;
  // Called at the start, every `live_every_s` seconds and at the end (`finished`), one call at a
  // time (never at once with `progress`), from a thread of its own.
  std::function<void(const LiveProgress&)> live;
  double live_every_s = 0.5;
  // Counters every run adds to (events, jobs done, simulated time), for a caller's own progress
  // line; null: the experiment's own (which `live` reads).
  RunMonitor* monitor = nullptr;
  // Verify the run invariants after every instant (sim/invariants.h); a violation fails the
  // experiment with an internal error. Default: on in Debug builds or with TOPSIM_CHECK_INVARIANTS=1.
  bool check_invariants = invariants_on_by_default();
  // The workload of each seed index when given (all `seeds` of them); else the scenario's.
  std::vector<std::shared_ptr<const Workload>> workloads;
  // Replays: each run stops once one of these upper bounds is lost for good (sim/verdict_watch.h,
  // RunResult::decided; its metrics then describe the partial run). Default: none.
  std::vector<StopBound> stop_when;
  // FGD's target workloads, shared with other experiments over the same workloads (a plan's
  // replays); null: the experiment's own, shared by its seeds and schedulers.
  TargetWorkloads* targets = nullptr;
  // Node types and fragmentation memos, each thread's kept across experiments (a plan's replays);
  // null: the experiment's own, kept across its seeds and schedulers.
  ThreadCaches* caches = nullptr;
};

[[nodiscard]] Expected<ResultSet> run_experiment(const Scenario& scenario, const ExperimentOptions& options = {});

}  // namespace topsim
