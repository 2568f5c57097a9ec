#include "sim/experiment.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "sim/engine.h"
#include "sim/job_store.h"
#include "sim/run_summary.h"
#include "sim/seeds.h"
#include "sim/target_workloads.h"
#include "sim/workload/workload_mix.h"
#include "util/number_format.h"
#include "util/periodic_call.h"
#include "util/workers.h"

namespace topsim {
namespace {

std::string seconds_text(int64_t ms) { return format_number(static_cast<double>(ms) / 1000) + " s"; }

// "hgx-h100: 3.79 failures per 1,000 node-days (Llama 3 ...); 12 incidents from f.csv; checkpoints
// every 1800 s, 10 s to write, 300 s to restart"; empty without failures or checkpoint writes.
std::string describe_failures(const Scenario& s, const ClusterState& cluster) {
  if (!s.failures && s.checkpoint.write_ms == 0) return {};
  std::vector<std::string> parts;
  if (s.failures) {
    for (int t = 0; t < cluster.type_count() && s.failures->draw; ++t) {
      const FailureRates rates = resolve_failure_rates(*s.failures, cluster.type(t).gpu);
      parts.push_back(cluster.type(t).name + ": " + format_number(rates.per_node_hour(cluster.type(t).gpus) * 24 * 1000) +
                      " failures per 1,000 node-days (" + rates.source + ")");
    }
    if (!s.failures->trace.empty())
      parts.push_back(std::to_string(s.failures->trace.size()) + " incidents from " + s.failures->trace_source);
    if (const auto& spares = s.failures->spares)
      parts.push_back(std::to_string(spares->nodes) + " spare node" + (spares->nodes == 1 ? "" : "s") + " per " +
                      (spares->level < 0 ? "cluster" : spares->per));
  }
  const CheckpointPolicy& c = s.checkpoint;
  if (c.every_ms > 0 || c.restart_overhead_ms > 0)
    parts.push_back("checkpoints " + (c.every_ms > 0 ? "every " + seconds_text(c.every_ms) : std::string("never")) +
                    (c.write_ms > 0 ? ", " + seconds_text(c.write_ms) + " to write" : "") + ", " +
                    seconds_text(c.restart_overhead_ms) + " to restart");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

ScenarioInfo scenario_info(const Scenario& s, const ClusterState& cluster) {
  ScenarioInfo info;
  info.name = s.name;
  info.description = s.description;
  info.mode = std::string(enum_name(s.mode));
  info.seed = s.seed;
  info.seeds = s.seeds;
  info.workload = s.workload->source;
  info.skipped = s.workload->skipped;
  info.jobs = s.workload->size();
  info.nodes = cluster.node_count();
  info.gpus = cluster.total_gpus();
  info.network = std::string(enum_name(s.cluster.network.transport));
  info.fabric = describe_fabric(s.cluster.network.fabric);
  info.failures = describe_failures(s, cluster);
  info.model_mix = describe_mix_limits(mix_llm_limits(*s.workload));
  info.fabric_view = view_fabric(s.cluster, cluster, s.network);
  if (std::any_of(s.cluster.groups.begin(), s.cluster.groups.end(), [](const NodeGroupSpec& g) { return !g.names.empty(); }))
    for (int n = 0; n < cluster.node_count(); ++n) info.node_names.push_back(cluster.node_name(n));
  for (const FabricLevelSpec& level : s.cluster.network.fabric.levels) info.fabric_levels.push_back(level.name);
  info.share_scheduler = s.share_scheduler;
  info.fragmentation_coverage = s.fragmentation_coverage;
  if (s.mode == ExperimentMode::Fill) info.target_load = s.target_load;
  if (s.mode == ExperimentMode::Fill && s.protocol != FillProtocol::Topsim) info.protocol = std::string(enum_name(s.protocol));
  for (const NodeGroupSpec& g : s.cluster.groups)
    info.node_groups.push_back(
        {g.model.name, g.count, static_cast<int>(g.model.gpus.size()), g.label_pinned ? std::string(enum_name(g.label)) : ""});
  std::map<int, size_t> group_of_type;  // trace nodes: one group per node type, in order of appearance
  for (int n = 0; s.cluster.groups.empty() && n < cluster.node_count(); ++n) {
    const int type = cluster.node(n).type;
    auto [it, fresh] = group_of_type.emplace(type, info.node_groups.size());
    if (fresh) info.node_groups.push_back({cluster.type(type).name, 0, cluster.type(type).gpus, "milli"});
    ++info.node_groups[it->second].count;
  }
  return info;
}

struct RunTask {
  size_t scheduler = 0;
  int seed_index = 0;
};

class Experiment {
 public:
  Experiment(const Scenario& scenario, const ExperimentOptions& options) : scenario_(scenario), options_(options) {}

  Expected<ResultSet> run() {
    auto cluster = ClusterState::build(scenario_.cluster, caches());
    if (!cluster) return Error{scenario_.name + ": " + cluster.error().message};
    if (Status s = resolve_schedulers(); !s) return s.error();
    build_workloads();
    ResultSet results;
    results.scenario = scenario_info(scenario_, *cluster);
    for (const SchedulerInfo* info : schedulers_) {
      SchedulerResult r;
      r.name = std::string(info->name);
      if (!(info->handles & kHandlesShares) && workload_span(*scenario_.workload).has_shares)
        r.share_scheduler = scenario_.share_scheduler;
      r.runs.resize(static_cast<size_t>(scenario_.seeds));
      results.schedulers.push_back(std::move(r));
    }
    run_all(results);
    if (violation_) return Error::bug(*violation_);
    if (failure_) return *failure_;
    for (SchedulerResult& r : results.schedulers) summarize_over_seeds(r);
    return results;
  }

 private:
  Status resolve_schedulers() {
    for (const std::string& name : scenario_.schedulers) {
      const SchedulerInfo* info = find_scheduler(name);
      if (!info) return Error{scenario_.name + ": unknown scheduler '" + name + "'"};
      schedulers_.push_back(info);
    }
    share_ = find_scheduler(scenario_.share_scheduler);
    if (!share_) return Error{scenario_.name + ": unknown share scheduler '" + scenario_.share_scheduler + "'"};
    return Status::success();
  }

  void build_workloads() {
    if (!options_.workloads.empty()) {
      workloads_ = options_.workloads;
      return;
    }
    workloads_.push_back(scenario_.workload);
    for (int i = 1; i < scenario_.seeds; ++i)
      workloads_.push_back(scenario_.workload_for_seed
                               ? std::make_shared<const Workload>(scenario_.workload_for_seed(run_seed(scenario_.seed, i)))
                               : scenario_.workload);
  }

  RunResult run_one(const RunTask& task) {
    const SchedulerInfo& info = *schedulers_[task.scheduler];
    RunConfig config;
    config.scheduler = &info;
    config.share_scheduler = share_;
    config.seed = run_seed(scenario_.seed, task.seed_index);
    config.backfill = scenario_.backfill;
    config.jobs_wait = scenario_.mode != ExperimentMode::Fill;
    config.network = scenario_.network;
    config.overlap = scenario_.overlap;
    const std::shared_ptr<JobStore> store = open_store();
    if (spills() && !store) return {};
    config.keep_jobs = options_.keep_jobs && !store;
    config.record_transitions = scenario_.record_transitions && config.keep_jobs;
    config.job_store = store.get();
    config.sample_every_ms = scenario_.sample_every_ms;
    config.fragmentation_coverage = scenario_.fragmentation_coverage;
    config.targets = options_.targets ? options_.targets : &targets_;
    config.caches = caches();
    if (scenario_.mode == ExperimentMode::Fill) config.fill_last_percent = static_cast<int>(scenario_.target_load * 100 + 1e-9);
    config.fgd_artifact = scenario_.protocol == FillProtocol::FgdArtifact;
    if (options_.live || options_.monitor) config.monitor = monitor();
    config.check_invariants = options_.check_invariants;
    config.stop_when = options_.stop_when;
    config.tenancy = scenario_.tenancy;
    config.checkpoint = scenario_.checkpoint;
    config.failures = scenario_.failures;
    const auto& workload = workloads_[static_cast<size_t>(task.seed_index)];
    // One per run; its node types are this thread's (allocators are not thread-safe).
    auto cluster = ClusterState::build(scenario_.cluster, caches());
    RunOutput out = simulate(*cluster, *workload, config);
    RunResult result;
    if (!out.invariant_violation.empty()) {
      const std::lock_guard lock(failure_mutex_);
      if (!violation_)
        violation_ = std::string(info.name) + " seed " + std::to_string(config.seed) + ": " + out.invariant_violation;
    }
    result.seed = config.seed;
    result.decided = out.decided;
    const bool fill = scenario_.mode == ExperimentMode::Fill;
    if (!out.decided) {  // a run stopped early has no figures of its own: it answers which bound it lost
      result.metrics = summarize_run(out, *workload, info.serves == NodeMode::Topology, fill);
      result.by_model = throughput_by_model(out);
      result.llm_steps = llm_steps_by_model(out);
      result.by_node_type = usage_by_node_type(out, *cluster);
    }
    result.target_specs = out.target_specs;
    result.sample_every_ms = out.sample_every_ms;
    if (!fill) result.samples = std::move(out.samples);
    result.load_curve = std::move(out.load_curve);
    result.rejections = out.tally.rejections;
    result.flavors = out.flavors;
    result.workload = workload;
    if (store) {
      if (Status s = store->finish(); !s) fail(s.error());
      result.job_store = store;
    }
    if (config.keep_jobs) {
      result.jobs = std::move(out.jobs);
      result.transitions = std::move(out.transitions);
    }
    result.failures = std::move(out.failure_log);
    result.preemptions = std::move(out.preemption_log);
    return result;
  }

  bool spills() const { return options_.keep_jobs && !options_.spill_dir.empty(); }

  // A run's store of per-job records on disk; null when they stay in memory, or on an error
  // (which fails the experiment).
  std::shared_ptr<JobStore> open_store() {
    if (!spills()) return nullptr;
    auto store = JobStore::create(options_.spill_dir);
    if (store) return std::move(*store);
    fail(store.error());
    return nullptr;
  }

  void fail(const Error& error) {
    const std::lock_guard lock(failure_mutex_);
    if (!failure_) failure_ = error;
  }

  void run_all(ResultSet& results) {
    std::vector<RunTask> tasks;
    for (size_t s = 0; s < schedulers_.size(); ++s)
      for (int i = 0; i < scenario_.seeds; ++i) tasks.push_back({s, i});
    std::atomic<size_t> next{0}, done{0};
    std::mutex progress_mutex;
    auto worker = [&]() {
      for (size_t t = next++; t < tasks.size(); t = next++) {
        const auto start = std::chrono::steady_clock::now();
        RunResult& run = results.schedulers[tasks[t].scheduler].runs[static_cast<size_t>(tasks[t].seed_index)];
        run = run_one(tasks[t]);
        const size_t finished = ++done;
        if (!options_.progress) continue;
        RunProgress p{finished,
                      tasks.size(),
                      results.schedulers[tasks[t].scheduler].name,
                      run.seed,
                      static_cast<size_t>(run.metrics.value_or("jobs", 0)),
                      static_cast<uint64_t>(run.metrics.value_or("events", 0)),
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
        std::lock_guard<std::mutex> lock(progress_mutex);
        options_.progress(p);
      }
    };
    const auto start = std::chrono::steady_clock::now();
    std::function<void(bool)> tick;
    if (options_.live)
      tick = [&](bool finished) {
        LiveProgress p = live_progress(tasks.size(), done, start);
        p.finished = finished;
        std::lock_guard<std::mutex> lock(progress_mutex);
        options_.live(p);
      };
    const PeriodicCall ticker(std::move(tick), options_.live_every_s);
    run_workers(options_.threads, tasks.size(), worker);
  }

  LiveProgress live_progress(size_t runs, size_t runs_done, std::chrono::steady_clock::time_point start) const {
    uint64_t jobs = 0;
    for (const auto& workload : workloads_) jobs += workload->size();
    jobs *= schedulers_.size();
    const RunMonitor& m = *monitor();
    LiveProgress p;
    p.runs_done = runs_done;
    p.runs = runs;
    p.jobs_done = m.jobs_done;
    p.jobs = jobs;
    p.events = m.events;
    p.expected_events = scenario_.mode == ExperimentMode::Fill ? jobs : 2 * jobs;
    p.simulated_s = static_cast<double>(m.sim_ms.load()) / 1000.0;
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return p;
  }

  RunMonitor* monitor() const { return options_.monitor ? options_.monitor : &monitor_; }
  ThreadCaches* caches() { return options_.caches ? options_.caches : &caches_; }

  const Scenario& scenario_;
  const ExperimentOptions& options_;
  std::vector<const SchedulerInfo*> schedulers_;
  const SchedulerInfo* share_ = nullptr;
  std::vector<std::shared_ptr<const Workload>> workloads_;
  mutable RunMonitor monitor_;
  TargetWorkloads targets_;  // when the options bring none (workloads_ outlive it)
  ThreadCaches caches_;      // when the options bring none
  std::mutex failure_mutex_;
  std::optional<std::string> violation_;  // the first run invariant violated (check_invariants)
  std::optional<Error> failure_;          // the first run that could not keep its per-job records
};

}  // namespace

Expected<ResultSet> run_experiment(const Scenario& scenario, const ExperimentOptions& options) {
  return Experiment(scenario, options).run();
}

}  // namespace topsim
