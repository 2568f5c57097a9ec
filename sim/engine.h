// Internal to sim: the event engine behind `simulate` (simulation.h), split over
// simulation.cpp (events, lifecycle, throughput), topology_scheduler.cpp and
// default_scheduler.cpp (the two schedulers' passes).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "core/fragmentation.h"
#include "core/gpu_share.h"
#include "core/share_policies.h"
#include "sim/node_index.h"
#include "sim/simulation.h"

namespace topsim {

class Engine {
 public:
  Engine(const ClusterState& cluster, const Workload& workload, const SimOptions& options);
  SimResult run();

 private:
  struct Event {
    int64_t time_ms;
    uint64_t seq;
    uint32_t job;  // finish of this job
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time_ms != b.time_ms ? a.time_ms > b.time_ms : a.seq > b.seq;
    }
  };
  // Job shapes that failed in the current pass (the cluster only fills up within a pass).
  using FailedShapes = std::set<std::pair<int, int>>;

  // lifecycle (simulation.cpp)
  void submit(uint32_t job);
  void finish(uint32_t job);
  void schedule_pass();
  void start(uint32_t job);
  void set_state(uint32_t job, JobState state);
  void reject(uint32_t job, std::string reason);
  std::string admission_problem(const JobSpec& job) const;
  // Whole GPUs of a job: the cluster, the node index and the share mirror.
  void take(int node, const std::vector<int>& gpus);
  void release(int node, const std::vector<int>& gpus);
  // The cluster and the node index only (cards a share makes busy / idle).
  void occupy(int node, const std::vector<int>& gpus);
  void vacate(int node, const std::vector<int>& gpus);
  Expected<ThroughputEstimate> throughput(const JobSpec& job, int node_type, const CommPath& path) const;
  double ideal_samples_per_sec(const JobSpec& job, int node_type);
  bool cross_numa(const std::vector<PodPlacement>& pods) const;
  // True when the nodes sit in more than one rack (rack level configured).
  bool spans_racks(const std::vector<int>& nodes) const;

  // shared-GPU jobs and the share / fragmentation mirror of the cluster (share_scheduler.cpp)
  void build_share_state();
  std::string share_admission_problem(const JobSpec& job) const;
  bool place_share(uint32_t job);
  void release_share(const PodPlacement& pod, const JobSpec& job);
  // Whole-GPU placements change the mirror too.
  void mirror_whole(int node, const std::vector<int>& gpus, bool take);
  // Integrates the sampled quantities up to `time_ms` and records samples before it.
  void advance_to(int64_t time_ms);
  SimSample sample_now(int64_t time_ms) const;
  // Appends a sample at next_sample_ms_ (halving an automatic grid beyond kMaxAutoSamples).
  void record_sample(const SimSample& now);
  static constexpr size_t kMaxAutoSamples = 1000;
  void finish_averages();

  // topology-aware scheduler (topology_scheduler.cpp)
  bool place_topology(uint32_t job);
  bool place_on_one_node(uint32_t job, const PlacementRequest& request);
  bool place_gang_across_nodes(uint32_t job, const GangRequest& request);
  PlacementRequest node_request(uint32_t job) const;

  // default scheduler (default_scheduler.cpp)
  bool place_default_pods(uint32_t job);
  int pick_spreading_node(int gpus);
  CommPath default_comm_path(const JobRecord& record) const;

  ClusterState cluster_;
  const Workload& workload_;
  SimOptions options_;
  NodeIndex index_;
  NodeLabel serving_ = NodeLabel::Topology;  // label of the nodes this scheduler uses
  SimResult result_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  uint64_t seq_ = 0;
  int64_t now_ms_ = 0;
  std::vector<uint32_t> pending_;  // FIFO by submission
  std::mt19937_64 rng_;
  std::map<std::tuple<int, int, int, int, int, int>, double> ideal_cache_;
  // Share accounting: one ShareNode per node (mode from its label, cards with their memory).
  ShareCluster shares_;
  TargetWorkload target_;
  std::unique_ptr<FragmentationTracker> tracker_;  // null when the workload has no pods
  std::unique_ptr<SharePolicy> share_policy_;
  std::array<int, kNodeLabelCount> label_card_mem_{};  // largest card memory per label, GiB
  int64_t running_ = 0;
  // Sampling and time-weighted integration.
  int64_t last_ms_ = 0;
  int64_t first_ms_ = 0;
  int64_t next_sample_ms_ = 0;
  double sum_allocated_ = 0, sum_fragmentation_ = 0, sum_rate_ = 0, sum_pending_ = 0, sum_running_ = 0;
};

}  // namespace topsim
