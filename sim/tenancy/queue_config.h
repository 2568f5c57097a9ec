// The tenants of a cluster and how their quota is shared, as platform teams keep it in git:
// Kueue's ClusterQueues, Cohorts, LocalQueues, ResourceFlavors and WorkloadPriorityClasses
// (kueue.x-k8s.io/v1beta1 and v1beta2), and KAI-Scheduler's Queues (scheduling.run.ai/v2).
// Data only: formats/queues/ reads it from YAML, sim/tenancy/ admits and preempts by it.
//
// Quantities are integers in Kueue's units (pkg/resources/requests.go ResourceValue): `cpu` in
// thousandths of a core, every other resource in plain units (memory in bytes, GPUs in cards).
// Every object remembers where it was read (`where`: "file:line") so that a problem found when
// the objects are put together names the file and the object.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/enum_names.h"

namespace topsim {

// The resource names jobs request of a quota (Kueue counts a pod's requests by these names).
inline constexpr const char* kResourceGpu = "nvidia.com/gpu";
inline constexpr const char* kResourceGpuMem = "aliyun.com/gpu-mem";  // GPU shares, GiB of one card
inline constexpr const char* kResourceCpu = "cpu";
inline constexpr const char* kResourceMemory = "memory";
inline constexpr const char* kResourcePods = "pods";

// One resource of one flavor in a ClusterQueue or Cohort (`resourceGroups[].flavors[].resources[]`).
struct ResourceQuota {
  std::string resource;                    // e.g. "nvidia.com/gpu", "cpu"
  int64_t nominal = 0;                     // nominalQuota
  std::optional<int64_t> borrowing_limit;  // borrowingLimit; unset: unlimited
  std::optional<int64_t> lending_limit;    // lendingLimit; unset: all unused nominal quota may be lent
};

struct FlavorQuotas {
  std::string flavor;  // a ResourceFlavor's name
  std::vector<ResourceQuota> resources;
};

// `resourceGroups[]`: the resources it covers and the flavors tried for them, in order.
struct ResourceGroup {
  std::vector<std::string> covered;  // coveredResources
  std::vector<FlavorQuotas> flavors;
};

enum class QueueingStrategy : uint8_t { BestEffortFIFO, StrictFIFO };
// preemption.withinClusterQueue
enum class WithinQueuePreemption : uint8_t { Never, LowerPriority, LowerOrNewerEqualPriority };
// preemption.reclaimWithinCohort
enum class ReclaimPreemption : uint8_t { Never, LowerPriority, Any };
// preemption.borrowWithinCohort.policy
enum class BorrowWithinCohort : uint8_t { Never, LowerPriority };
// flavorFungibility.whenCanBorrow / whenCanPreempt (`Borrow` / `Preempt`: the v1beta1 names of MayStopSearch)
enum class FungibilityChoice : uint8_t { MayStopSearch, TryNextFlavor };
// flavorFungibility.preference
enum class FlavorPreference : uint8_t { BorrowingOverPreemption, PreemptionOverBorrowing };
// Fair Sharing's rules for preempting another ClusterQueue's workload (Kueue Configuration
// fairSharing.preemptionStrategies; pkg/scheduler/preemption/fairsharing/strategy.go): the
// preemptor's share with its workload at most the target's share after the preemption, or below
// the target's share before it.
enum class FairStrategy : uint8_t { LessThanOrEqualToFinalShare, LessThanInitialShare };

// The names Kueue's YAML uses (kueue v0.19.2 apis/kueue/v1beta2/clusterqueue_types.go).
template <>
struct EnumNames<QueueingStrategy> {
  static constexpr std::array<EnumName<QueueingStrategy>, 2> table{
      {{QueueingStrategy::BestEffortFIFO, "BestEffortFIFO"}, {QueueingStrategy::StrictFIFO, "StrictFIFO"}}};
};
template <>
struct EnumNames<WithinQueuePreemption> {
  static constexpr std::array<EnumName<WithinQueuePreemption>, 3> table{
      {{WithinQueuePreemption::Never, "Never"},
       {WithinQueuePreemption::LowerPriority, "LowerPriority"},
       {WithinQueuePreemption::LowerOrNewerEqualPriority, "LowerOrNewerEqualPriority"}}};
};
template <>
struct EnumNames<ReclaimPreemption> {
  static constexpr std::array<EnumName<ReclaimPreemption>, 3> table{{{ReclaimPreemption::Never, "Never"},
                                                                     {ReclaimPreemption::LowerPriority, "LowerPriority"},
                                                                     {ReclaimPreemption::Any, "Any"}}};
};
template <>
struct EnumNames<BorrowWithinCohort> {
  static constexpr std::array<EnumName<BorrowWithinCohort>, 2> table{
      {{BorrowWithinCohort::Never, "Never"}, {BorrowWithinCohort::LowerPriority, "LowerPriority"}}};
};
template <>
struct EnumNames<FungibilityChoice> {
  static constexpr std::array<EnumName<FungibilityChoice>, 2> table{
      {{FungibilityChoice::MayStopSearch, "MayStopSearch"}, {FungibilityChoice::TryNextFlavor, "TryNextFlavor"}}};
};
template <>
struct EnumNames<FlavorPreference> {
  static constexpr std::array<EnumName<FlavorPreference>, 2> table{
      {{FlavorPreference::BorrowingOverPreemption, "BorrowingOverPreemption"},
       {FlavorPreference::PreemptionOverBorrowing, "PreemptionOverBorrowing"}}};
};

template <>
struct EnumNames<FairStrategy> {
  static constexpr std::array<EnumName<FairStrategy>, 2> table{
      {{FairStrategy::LessThanOrEqualToFinalShare, "LessThanOrEqualToFinalShare"},
       {FairStrategy::LessThanInitialShare, "LessThanInitialShare"}}};
};

struct ClusterQueueSpec {
  std::string name;
  std::string where;   // file:line of the object
  std::string cohort;  // spec.cohort (v1beta1) / spec.cohortName (v1beta2); empty: none
  QueueingStrategy queueing = QueueingStrategy::BestEffortFIFO;
  std::vector<ResourceGroup> groups;
  WithinQueuePreemption within_queue = WithinQueuePreemption::Never;
  ReclaimPreemption reclaim = ReclaimPreemption::Never;
  BorrowWithinCohort borrow_within_cohort = BorrowWithinCohort::Never;
  std::optional<int32_t> borrow_max_priority;  // borrowWithinCohort.maxPriorityThreshold
  FungibilityChoice when_can_borrow = FungibilityChoice::MayStopSearch;
  FungibilityChoice when_can_preempt = FungibilityChoice::TryNextFlavor;
  FlavorPreference preference = FlavorPreference::BorrowingOverPreemption;
  double fair_weight = 1;  // fairSharing.weight
  // spec.admissionScope.admissionMode UsageBasedAdmissionFairSharing: its workloads are ordered by
  // their LocalQueues' past usage first (with QueueConfig::admission_fair_sharing set).
  bool admission_fair_sharing = false;
};

// A Cohort object (kueue.x-k8s.io v1alpha1 `spec.parent`, v1beta1+ `spec.parentName`). A cohort
// named by a ClusterQueue or another cohort but never declared exists with no quota of its own.
struct CohortSpec {
  std::string name;
  std::string where;
  std::string parent;                 // empty: a root
  std::vector<ResourceGroup> groups;  // quota of the cohort itself, shared by its subtree
  double fair_weight = 1;
};

struct ResourceFlavorSpec {
  std::string name;
  std::string where;
  std::map<std::string, std::string> node_labels;  // spec.nodeLabels: the nodes of this flavor
  // The GPU model its nodes carry (a catalog index), from nodeLabels' nvidia.com/gpu.product; -1:
  // the flavor names none. An admitted training job runs on nodes of that model only, and a job
  // selecting GPU models is admitted only on flavors of one of them (kueue_admission.h).
  int gpu = -1;
};

// A LocalQueue: what jobs name (label kueue.x-k8s.io/queue-name), pointing at a ClusterQueue.
struct LocalQueueSpec {
  std::string name;
  std::string where;
  std::string namespace_name;  // metadata.namespace ("default" when absent)
  std::string cluster_queue;   // spec.clusterQueue
  double fair_weight = 1;      // spec.fairSharing.weight (Admission Fair Sharing; 0: always last)
  // status.fairSharing.admissionFairSharingStatus.consumedResources of a live queue (`kubectl get
  // localqueues -o yaml`), by resource name in Kueue's units (cpu in cores, memory in bytes,
  // devices as counts): the decayed usage Admission Fair Sharing starts the replay from.
  std::map<std::string, double> consumed = {};
};

// Kueue's Configuration admissionFairSharing (apis/config/v1beta2/configuration_types.go): a
// LocalQueue's usage decays by half every `half_life_ms` (0: no history, every usage 0),
// sampled every `sampling_ms` (default 5m); a resource counts `resource_weights[name]` times its
// amount (Kueue's units: cores, bytes, devices; 1 when not listed).
struct AdmissionFairSharingSpec {
  int64_t half_life_ms = 0;
  int64_t sampling_ms = 5 * 60 * 1000;
  std::map<std::string, double> resource_weights;
};

// A WorkloadPriorityClass (label kueue.x-k8s.io/priority-class) or a Kubernetes PriorityClass
// (scheduling.k8s.io/v1, priorityClassName): a name and its value.
struct PriorityClassSpec {
  std::string name;
  std::string where;
  int32_t value = 0;
  bool workload_class = true;   // false: a scheduling.k8s.io PriorityClass
  bool global_default = false;  // PriorityClass globalDefault: the priority of pods naming no class
  bool preempts = true;         // PriorityClass preemptionPolicy: PreemptLowerPriority (default); Never: false
};

// One resource of a KAI Queue (spec.resources.gpu / cpu / memory), in KAI's units (NVIDIA/KAI-Scheduler
// pkg/apis/scheduling/v2/resources.go): GPUs in devices (0.5: half a GPU), cpu in thousandths of a
// core, memory in megabytes of 10^6 bytes. formats/queues/ sets every field: a field absent from
// the YAML is KAI's zero (quota 0, overQuotaWeight 0, limit 0 = nothing beyond 0; docs/tenancy.md).
struct KaiResource {
  double quota = 0;              // deserved; -1: unlimited (the whole of the parent's)
  double over_quota_weight = 1;  // share of what is left once every queue has its deserved
  double limit = -1;             // at most this much; -1: no limit
};

// A KAI-Scheduler Queue (label kai.scheduler/queue on jobs).
struct KaiQueueSpec {
  std::string name;
  std::string where;
  std::string parent;        // spec.parentQueue; empty: a top-level queue (department)
  std::string display_name;  // spec.displayName ("" when absent)
  KaiResource gpu, cpu, memory;
  int32_t priority = 100;  // spec.priority: higher queues take over-quota first
  // spec.preemptMinRuntime / spec.reclaimMinRuntime in ms; unset: the parent's (KAI's minruntime
  // plugin, kai_admission.h).
  std::optional<int64_t> preempt_min_runtime_ms, reclaim_min_runtime_ms;
};

// KAI-Scheduler's usage window (SchedulingShard spec.usageDBConfig.usageParams.windowType): the
// last window_ms (sliding), or windows of window_ms one after another (tumbling).
enum class KaiUsageWindow : uint8_t { Sliding, Tumbling };

// KAI-Scheduler's time-aware fairness (v0.10+; NVIDIA/KAI-Scheduler docs/time-based-fairshare/
// README.md, usagedb/api/defaults.go): a queue's historical GPU usage, over `window_ms`, each
// moment weighed by 0.5^(age / half_life_ms) (0: no decay), fetched every `fetch_ms`, lowers its
// over-quota share (kai_usage.h, kai_division.h).
struct KaiTimeAwareSpec {
  int64_t window_ms = 7LL * 24 * 3600 * 1000;  // default 1 week
  KaiUsageWindow window = KaiUsageWindow::Sliding;
  int64_t half_life_ms = 0;
  int64_t fetch_ms = 60 * 1000;  // default 1 minute
};

// A KAI-Scheduler SchedulingShard (kai.scheduler/v1): the scheduler's settings topsim models.
struct KaiSchedulerSpec {
  std::string name;
  std::string where;
  double k_value = 1.0;                        // the proportion plugin's kValue (default 1)
  std::optional<KaiTimeAwareSpec> time_aware;  // spec.usageDBConfig present: time-aware fairness on
  // spec.minRuntime: the min runtimes of a queue tree that sets none (the minruntime plugin's
  // defaultPreemptMinRuntime / defaultReclaimMinRuntime; 0 when unset).
  int64_t default_preempt_min_runtime_ms = 0;
  int64_t default_reclaim_min_runtime_ms = 0;
};

// Everything read from a queue folder.
struct QueueConfig {
  std::string source;  // the folder (or file) it was read from
  std::vector<ResourceFlavorSpec> flavors;
  std::vector<ClusterQueueSpec> cluster_queues;
  std::vector<CohortSpec> cohorts;
  std::vector<LocalQueueSpec> local_queues;
  std::vector<PriorityClassSpec> priority_classes;
  std::vector<KaiQueueSpec> kai_queues;
  std::optional<KaiSchedulerSpec> kai_scheduler;  // a SchedulingShard in the folder
  // Kueue's Configuration turns Fair Sharing on (config v1beta1 fairSharing.enable, v1beta2 the
  // fairSharing struct present); topsim reads it from a kueue Configuration object in the
  // folder or from the scenario.
  bool fair_sharing = false;
  // Kueue's default when the Configuration names none (preemption.go parseStrategies).
  std::vector<FairStrategy> fair_strategies{FairStrategy::LessThanOrEqualToFinalShare, FairStrategy::LessThanInitialShare};
  // Kueue's Configuration admissionFairSharing, when present (it turns Admission Fair Sharing on
  // for the ClusterQueues whose admissionScope asks for it).
  std::optional<AdmissionFairSharingSpec> admission_fair_sharing;
  // Objects read but not modelled, by kind (Namespace, Deployment, Topology, AdmissionCheck, ...).
  std::map<std::string, int> skipped_kinds;

  bool kueue() const { return !cluster_queues.empty(); }
  bool kai() const { return !kai_queues.empty(); }
};

}  // namespace topsim
