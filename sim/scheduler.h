// The scheduler plug-in interface. A scheduler reads a const view of the cluster and of the
// jobs, and decides: for each pending job, which pods go where now, or that it waits. It changes
// nothing itself: it hands its decisions to a Binder, which applies them at once (so the view
// shows them before the next decision of the same pass, as kube-scheduler's cache "assumes" a
// pod). The engine is one Binder; a test can be another, over a hand-built ClusterState.
//
// A scheduler is one file under sim/schedulers/ and one line in the registry
// (sim/schedulers/registry.cpp); docs/schedulers.md walks through adding one.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/fragmentation.h"
#include "core/network_model.h"
#include "core/throughput.h"
#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/job_record.h"

namespace topsim {

// What a scheduler may read: the cluster, the jobs with what is placed of them, the time.
class SchedulingView {
 public:
  // REQUIRES: every argument outlives the view; `records` is indexed by job id.
  SchedulingView(const ClusterState& cluster, const Workload& workload, const std::vector<JobRecord>& records,
                 const int64_t& now_ms)
      : cluster_(cluster), workload_(workload), records_(&records), now_ms_(now_ms) {}
  // A run's view: the specs of open jobs from `open` (the workload may be generated, holding none).
  SchedulingView(const ClusterState& cluster, const Workload& workload, const OpenJobs& open, const JobBook& book,
                 const int64_t& now_ms)
      : cluster_(cluster), workload_(workload), open_(&open), book_(&book), now_ms_(now_ms) {}

  const ClusterState& cluster() const { return cluster_; }
  const Workload& workload() const { return workload_; }
  // REQUIRES: in a run, `id` is open (submitted, record not final).
  const JobSpec& job(uint32_t id) const { return open_ ? (*open_)[id] : workload_.jobs[id]; }
  const JobRecord& record(uint32_t id) const { return book_ ? (*book_)[id] : (*records_)[id]; }
  // The job's gpu.topology/* annotations, or nullptr when it has none.
  const std::map<std::string, std::string>* annotations(uint32_t id) const;
  int64_t now_ms() const { return now_ms_; }
  // Admission checks' answers that depend only on a job's shape and the cluster's node types
  // and labels (fixed for the view's life), by a key the checker packs: one check per shape.
  // `restricted`: some serving node type cannot run jobs of the shape (sim/schedulers/support.h).
  struct ShapeVerdict {
    std::string problem;
    bool restricted = false;
  };
  std::unordered_map<uint64_t, ShapeVerdict>& shape_problems() const { return shape_problems_; }
  // Whether LLM job `job` can run on nodes of type `type` (sim/job.h job_capacity_problem: its GPU
  // model selector is type_fits_job's), found once
  // per LLM configuration and size for every type (the view's cluster and jobs are fixed).
  bool llm_runs_on(const JobSpec& job, int type) const;

 private:
  const ClusterState& cluster_;
  const Workload& workload_;
  const OpenJobs* open_ = nullptr;
  const std::vector<JobRecord>* records_ = nullptr;
  const JobBook* book_ = nullptr;
  const int64_t& now_ms_;
  mutable std::unordered_map<uint64_t, ShapeVerdict> shape_problems_;
  mutable std::unordered_map<uint64_t, std::vector<char>> llm_types_;  // (llm, GPUs) -> runs on type t
  mutable uint64_t last_llm_key_ = ~uint64_t{0};                       // the last one asked (pod_slots asks per node)
  mutable std::vector<char> last_llm_types_;
};

struct PodBinding {
  int node = -1;
  std::vector<int> gpus;  // cards of the node, ascending
};

// How a job whose pods are all bound starts.
struct JobStart {
  CommPath comm;                     // its communication path (core/throughput.h)
  std::vector<std::string> relaxed;  // constraints the allocator dropped, if any
  std::vector<size_t> rank_order;    // bound pods in rank order (indices in bind order); empty: bind order
  bool host_network = false;         // pods use host networking and IPC (NCCL sees nodes, not pods)
  std::string placement_note{};      // JobRecord::placement_note
};

// Applies a scheduler's decisions. Bindings take effect at once.
class Binder {
 public:
  virtual ~Binder() = default;
  // Binds the job's next pod (rank order of binding); the record takes the pod's GPU list. REQUIRES:
  // the pod fits there now.
  virtual void bind(uint32_t job, PodBinding pod) = 0;
  // Starts the job. REQUIRES: every pod of the job is bound.
  virtual void start(uint32_t job, JobStart start) = 0;
};

// What a scheduler is built with, per run.
struct SchedulerContext {
  uint64_t seed = 1;                              // the run's seed (sim/seeds.h derives streams)
  NetworkModel network;                           // NIC efficiency per transport
  bool backfill = true;                           // a job that cannot start does not block later ones
  FragmentationTracker* fragmentation = nullptr;  // FGD's measure of the run's cluster (may be null)
  bool fgd_artifact = false;                      // share policies: the FGD artifact's versions (core/artifact_policies.h)
  OverlapModel overlap;                           // for predicting a job's throughput on a placement
};

// Jobs of one shape succeed or fail alike against one cluster state (and a cluster that only
// fills up): once one has failed, the others need not be tried until resources are released.
// A job whose attempt depends on more than its shape (annotations) has a shape of its own.
struct ShapeKey {
  std::array<int64_t, 4> values{};
  auto operator<=>(const ShapeKey&) const = default;
  static ShapeKey of_job(uint32_t job) { return {{-1, int64_t{job}, 0, 0}}; }
};

// The queue is the engine's (sim/pending_queue.h): it offers each scheduler its waiting jobs in
// submission order, one attempt at a time, and skips jobs whose shape failed since the last
// release, so a pass costs what it tries, not the length of the queue.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Why this job can never run under this scheduler on this cluster, or "" when it can: asked
  // once, at submission; the engine rejects the job with this reason.
  virtual std::string admission_problem(const SchedulingView& view, uint32_t job) const = 0;
  // The shape of the job's next attempt (above).
  virtual ShapeKey shape(const SchedulingView& view, uint32_t job) const = 0;
  // Places the job now if it can: binds its pods (all of them; schedulers without gangs bind as
  // many as fit) and starts it once all are bound. True when it started.
  virtual bool try_place(const SchedulingView& view, uint32_t job, Binder& binder) = 0;
  // True when a job that cannot start holds back every job behind it (FIFO without backfill).
  virtual bool blocks_queue() const { return false; }
  // Why the job cannot start now, in words a user can act on ("its 2 pods of 8 GPUs need
  // several nodes and no node serving it has a NIC"); asked for each job still waiting when the
  // run ends. "" when the scheduler can say no more than that no node had room.
  virtual std::string wait_reason(const SchedulingView& /*view*/, uint32_t /*job*/) const { return ""; }
};

}  // namespace topsim
