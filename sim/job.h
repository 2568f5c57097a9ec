// A job as the simulator sees it: when it arrives, its pods and what they ask of a node, what
// it trains (for the throughput model) and how much work it carries.
//
// Three kinds, one record:
// - a training job: `workers` pods of `gpus_per_worker` whole GPUs on modelled nodes, running a
//   model whose speed depends on where its GPUs are;
// - a GPU share (BRIEF section 3): one pod asking `aliyun.com/gpu-mem` GiB of one card and
//   optionally `gpu-core.percentage`, on `share` / `core_mem` nodes;
// - a trace pod (Alibaba 2023 trace, FGD): one pod asking CPU, memory and `gpu_milli`
//   thousandths of each of `gpus_per_worker` cards (0 cards: CPU-only), of allowed GPU types, on
//   nodes read from the trace's node list.
// Shares and trace pods run their recorded duration: the speed of a share is not modelled.
//
// Kept compact (a million-job workload must fit in well under 2 GB): names and unequal pod
// lists only exist for scenario-embedded jobs.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/fragmentation.h"
#include "core/gpu_share.h"
#include "core/llm_step.h"
#include "core/model_catalog.h"
#include "util/enum_names.h"

namespace topsim {

// The throughput model's framework type (core/model_catalog.h), used as is.
using Framework = TrainingFramework;

enum class JobKind : uint8_t { Training, Share, TracePod };
template <>
struct EnumNames<JobKind> {
  static constexpr std::array<EnumName<JobKind>, 3> table{
      {{JobKind::Training, "training"}, {JobKind::Share, "share"}, {JobKind::TracePod, "trace-pod"}}};
};

inline constexpr uint16_t kNoModel = 0xFFFF;
// JobSpec::llm of a job that is not an LLM training job.
inline constexpr uint16_t kNoLlm = 0xFFFF;
// A duration that never ends (fill experiments: nothing departs).
inline constexpr int64_t kForeverMs = -1;
// The longest run the engine times, 10^15 ms (about 31,700 years): longer estimates are cut here.
inline constexpr int64_t kMaxRunMs = 1'000'000'000'000'000;

inline constexpr uint8_t kWorkloadReference = 255;
// JobSpec::queue of a job that names no queue (tenant), and ::priority_class of one without a class.
inline constexpr uint16_t kNoQueue = 0xFFFF;
inline constexpr uint8_t kNoPriorityClass = 0xFF;
// JobSpec::gpu_models of a job that runs on any GPU model, and its name in a GPU model mix.
inline constexpr uint8_t kAnyGpuModel = 0xFF;
inline constexpr const char* kAnyGpuModelName = "any";

struct JobSpec {
  uint32_t id = 0;  // its index in Workload::jobs (0..N-1, in submission order)
  // An elastic training job (docs/failures.md): the fewest workers it trains on; 0, not elastic.
  // A failure of one of its nodes shrinks it to the workers left when at least this many are
  // (restarting from its last checkpoint); a repaired node grows it back.
  uint16_t min_workers = 0;  // (beside `id`: it fills its padding)
  int64_t submit_ms = 0;     // arrival time, ms from the start of the simulation
  JobKind kind = JobKind::Training;
  // The GPU models a training job may run on (a `nvidia.com/gpu.product` node selector or
  // required node affinity): an index into Workload::gpu_model_sets, or kAnyGpuModel. (Beside
  // `kind`: it fills its padding.)
  uint8_t gpu_models = kAnyGpuModel;
  uint16_t workers = 1;          // pods (master + workers), all requesting gpus_per_worker
  uint16_t gpus_per_worker = 1;  // GPUs per pod (trace pods: cards, 0 for CPU-only pods)
  Framework framework = Framework::PyTorch;
  // Set while a Kueue ResourceFlavor naming a GPU model holds its admission (nodeLabels'
  // nvidia.com/gpu.product, which become its pods' node selector): that model's catalog index; a
  // training job then runs on nodes of that model only. kAnyGpuModel otherwise. Only the engine's
  // copy of an admitted job has it (OpenJobs). (Beside `framework`: it fills its padding.)
  uint8_t flavor_gpu = kAnyGpuModel;
  uint16_t model = 0;  // index into the model catalog, or kNoModel (shares, trace pods)
  uint16_t batch_per_gpu = 64;
  // Share: aliyun.com/gpu-mem GiB and gpu-core.percentage (0 = memory only).
  uint16_t gpu_mem_gib = 0;
  uint8_t gpu_core_percent = 0;
  // The GPU a duration was measured on (a GPU catalog index), or kWorkloadReference: the
  // workload's (sim/job_timing.h).
  uint8_t reference_gpu = kWorkloadReference;
  // An LLM training job under 3D parallelism: its index in Workload::llm_jobs (model and
  // parallel configuration; core/llm_step.h), else kNoLlm. Such a job has no `model`; its
  // iterations are training steps and its throughput is in tokens/s.
  uint16_t llm = kNoLlm;
  // Its tenant: an index into Workload::queue_names (the queue the job names: a Kueue LocalQueue,
  // a KAI queue, or a trace's virtual cluster), or kNoQueue; and its priority class, an index into
  // Workload::priority_class_names, or kNoPriorityClass (priority 0).
  uint16_t queue = kNoQueue;
  uint8_t priority_class = kNoPriorityClass;
  // Trace pod: allowed GPU types (bit t, 0 = any), thousandths of each card, CPU and memory.
  uint8_t gpu_type_mask = 0;
  uint16_t gpu_milli = 0;
  int32_t cpu_milli = 0;
  int32_t memory_mib = 0;
  // Work, one of the two (the other 0): iterations to run, or the job's duration in ms under
  // an ideal placement (a trace duration, or kForeverMs); the actual run time of a training job
  // stretches with the placement's throughput relative to the ideal one.
  int64_t iterations = 0;
  int64_t ideal_duration_ms = 0;
  // Non-empty only when pods request different counts: GPUs of each of the `workers` pods
  // (gpus_per_worker then holds the largest).
  std::vector<uint16_t> unequal_pod_gpus;

  bool is_share() const { return kind == JobKind::Share; }
  // Whether something holds it to some GPU models: its selection, or its Kueue flavor's.
  bool holds_gpu_models() const { return gpu_models != kAnyGpuModel || flavor_gpu != kAnyGpuModel; }
  bool is_training() const { return kind == JobKind::Training; }
  // workers x gpus_per_worker, or the sum of unequal_pod_gpus when pods differ.
  int total_gpus() const;
  // The unit of its throughput (JobRecord::samples_per_sec): "tokens/s" for an LLM job, else its
  // model's ("images/s" or "samples/s"), "samples/s" without a model.
  std::string throughput_unit() const;
  // GPUs of pod `pod` (rank order).
  int pod_gpus(size_t pod) const { return unequal_pod_gpus.empty() ? gpus_per_worker : unequal_pod_gpus[pod]; }
  // The GPU share the job asks, in thousandths of a card (whole GPUs 1000 each; a memory share
  // measured on a card of `card_mem_gib`).
  int64_t gpu_milli_total(int card_mem_gib = 0) const;
};

// What one pod of the job asks of a node, in the share accounting's terms (core/gpu_share.h):
// whole cards (marked topology-aware when `topology_aware`), a memory share, or the trace
// pod's CPU, memory and milli cards.
PodRequest pod_request(const JobSpec& job, size_t pod = 0, bool topology_aware = false);

// An LLM job's model and parallel configuration (shared by the jobs of one job-list entry).
struct LlmJob {
  const LlmModel* model = nullptr;  // a catalog entry (core/llm_catalog.h)
  ParallelConfig config;
  bool automatic = false;  // the configuration follows each job's size (default_parallel)
  // An automatic job's layout is the one that fits the GPU it runs on (config_for), and on this
  // GPU (the workload's reference GPU, the hardware its durations were measured on:
  // set_reference_gpu) the one its duration was measured with; none: TP alone, no pipelining.
  const GpuModel* fit_gpu = nullptr;
  // "micro_batch": "auto": on each node type the micro-batch a tuned run picks there, the fastest
  // that fits on idle nodes of it (core/llm_estimate.h estimate_llm_idle_fastest_micro_batch;
  // sim/job_timing.h); config.micro_batch holds 1, the least memory, for the checks that ask
  // whether any size runs on a GPU.
  bool micro_batch_auto = false;
  // False for a job read back from results that named only its layout (jobs.jsonl written before
  // llm_config): its other settings are not known, and reports do not state them.
  bool settings_known = true;
  // The configuration of a job of `gpus` GPUs running on `on` (null: the reference GPU, fit_gpu):
  // an automatic job's layout is the one a tuned run takes on that GPU (default_parallel).
  ParallelConfig config_for(int gpus, const GpuModel* on = nullptr) const {
    return automatic ? default_parallel(*model, gpus, on && fit_gpu ? on : fit_gpu) : config;
  }
  // The configuration a job of `gpus` GPUs ran with, whose step was `step` (null: it has not run,
  // the reference GPU's): an automatic job's layout is the one it was timed with.
  ParallelConfig config_ran(int gpus, const LlmStep* step) const {
    return automatic && step && step->tp > 0 ? default_layout(*model, gpus, step->tp, step->pp) : config_for(gpus);
  }
  friend bool operator==(const LlmJob&, const LlmJob&) = default;
};

// Extra per-job data only scenario-embedded jobs carry (kept out of JobSpec for size).
struct JobExtras {
  std::string name;                                // default "job-<id>"
  std::map<std::string, std::string> annotations;  // gpu.topology/* pod annotations
};

// Produces the jobs of a generated workload one at a time, in id order.
class JobSource {
 public:
  virtual ~JobSource() = default;
  // The next job into `job`; false after the last.
  virtual bool next(JobSpec& job) = 0;
};

// A workload whose jobs are made on demand instead of held (a synthetic workload of 10^7 jobs
// would take 720 MB): every open() starts the same sequence again.
class JobGenerator {
 public:
  virtual ~JobGenerator() = default;
  virtual std::unique_ptr<JobSource> open() const = 0;
};

// What a run needs to know of the whole workload before it starts.
struct WorkloadSpan {
  size_t jobs = 0;
  int64_t first_submit_ms = 0;
  int64_t expected_end_ms = 0;  // the latest submission, or submission + trace duration
  bool has_shares = false;
};

// Entries of a trace or of manifests the importer made no job of, for one reason: `topsim
// explain` names the reason when asked about one of them (formats/traces/alibaba_workload.cpp,
// formats/jobs/imported_jobs.h).
struct SkippedEntries {
  std::string why;                 // "a CPU-only pod (num_gpu 0)"
  std::vector<std::string> names;  // the entries' own names, in read order (none: unnamed, or counted)
};

struct Workload {
  std::vector<JobSpec> jobs;             // sorted by (submit_ms, id); empty when `generator` is set
  std::map<uint32_t, JobExtras> extras;  // by job id; most trace jobs have none
  std::string source;                    // e.g. "philly.csv", "synthetic(seed=7)"
  // The GPU catalog name the jobs' durations were measured on (sim/job_timing.h); empty: the
  // node type each job runs on (allowed only on a cluster of one GPU model).
  std::string reference_gpu;
  // The task specs FGD's fragmentation measure is derived from (a trace's whole pod list);
  // empty: derived from the jobs themselves.
  std::shared_ptr<const std::vector<TaskSpec>> fragmentation_specs;
  // Set: the jobs are made on demand (read them with a JobCursor) and `generated` describes them.
  std::shared_ptr<const JobGenerator> generator;
  WorkloadSpan generated;
  // The LLM jobs' models and configurations (JobSpec::llm indexes it); null when there are none.
  std::shared_ptr<const std::vector<LlmJob>> llm_jobs;
  // The queues (tenants) and priority classes the jobs name (JobSpec::queue, ::priority_class),
  // in order of first appearance; empty when no job names one.
  std::vector<std::string> queue_names;
  std::vector<std::string> priority_class_names;
  // The sets of GPU models jobs select (JobSpec::gpu_models): bit i is the GPU at catalog index i
  // (gpu_at). Distinct sets, in order of first appearance.
  std::vector<uint64_t> gpu_model_sets;
  // What the trace or manifests held that is not among `jobs`, by reason (empty: none).
  std::vector<SkippedEntries> skipped;
  std::string job_name(uint32_t id) const;
  // Whether `job` may run on GPUs of model `gpu`: its selector names it, or it names none; and it
  // is its Kueue flavor's model, when its flavor names one (JobSpec::flavor_gpu).
  bool selects_gpu(const JobSpec& job, const GpuModel& gpu) const {
    if (job.flavor_gpu != kAnyGpuModel && gpu.catalog_index != job.flavor_gpu) return false;
    if (job.gpu_models == kAnyGpuModel) return true;
    return gpu.catalog_index >= 0 && ((gpu_model_sets[job.gpu_models] >> gpu.catalog_index) & 1u) != 0;
  }
  // The catalog names of the GPU models `job` selects, in catalog order (none when it selects none),
  // and the same as text: "h100 or h200".
  std::vector<std::string> selected_gpu_names(const JobSpec& job) const;
  std::string selected_gpus_text(const JobSpec& job) const;
  // The LLM configuration of `job`, or nullptr for any other job.
  const LlmJob* llm_of(const JobSpec& job) const {
    return job.llm != kNoLlm && llm_jobs && job.llm < llm_jobs->size() ? &(*llm_jobs)[job.llm] : nullptr;
  }
  size_t size() const { return generator ? generated.jobs : jobs.size(); }
};

// The node label NVIDIA's GPU feature discovery writes with a node's GPU model
// ("NVIDIA-H100-80GB-HBM3"): what node selectors and Kueue ResourceFlavors name GPU models by.
inline constexpr const char* kGpuProductLabel = "nvidia.com/gpu.product";

// The catalog GPU a job may select by `name` (JobSpec::gpu_models): a catalog name or alias, or a
// nvidia.com/gpu.product label as GPU feature discovery writes it; nullptr for none.
const GpuModel* selectable_gpu_model(std::string_view name);
// The catalog names of the GPU models in `set` (bit i: catalog GPU i), in catalog order.
std::vector<std::string> gpu_model_names_in(uint64_t set);
// Why `values` (GPU model names or product labels, quoted in the text) name no catalog GPU, with
// what would: "'X' names no catalog GPU (a100, ...; product labels such as ...)".
std::string unknown_gpu_products(const std::vector<std::string>& values);

// Why training job `job` of `workload` cannot run on nodes of model `node` whose GPUs are `gpu`
// (a node type's slowest card), or no message when it can: a GPU model the job does not select
// (Workload::selects_gpu); an image model's weights, gradients
// and Adam state above the GPU's memory (core/model_catalog.h); an LLM job's configuration on the
// GPU (precision, memory: core/llm_step.h validate_parallel) or its offloaded activations above
// the node's host memory (validate_host_memory: `of_node`, the message is the node's, not the
// GPU's). A mixed cluster's schedulers place a job only on node types it can run on; the scenario
// loader refuses a job none can run.
struct NodeFitProblem {
  std::string message;   // empty: the job can run there
  bool of_node = false;  // the node's host memory, not its GPU
  // A model mix's LLM job (LlmJob::automatic) no layout of which fits the GPU's memory: the
  // least memory per GPU any of them needs, GiB (0 otherwise).
  double least_gib = 0;
  bool ok() const { return message.empty(); }
};
NodeFitProblem job_node_problem(const Workload& workload, const JobSpec& job, const GpuModel& gpu, const NodeModel& node);
// The same without the job's GPU model selector (what the GPU and node can hold): the same for
// every job of one model and size, so schedulers remember it per (LLM, GPUs).
NodeFitProblem job_capacity_problem(const Workload& workload, const JobSpec& job, const GpuModel& gpu, const NodeModel& node);

// Reads a workload's jobs in id order, from memory or from its generator.
class JobCursor {
 public:
  // REQUIRES: `workload` outlives the cursor.
  explicit JobCursor(const Workload& workload);
  // The next job, or nullptr after the last; valid until the next call.
  const JobSpec* next();

 private:
  const Workload& workload_;
  size_t index_ = 0;
  std::unique_ptr<JobSource> source_;
  JobSpec current_;
};

// Applies `change` to every job of `workload`: to its jobs in memory, or, for a generated
// workload, to each job as it is made (and measures the span again). `change` keeps ids and the
// order of submissions.
void change_jobs(Workload& workload, std::function<void(JobSpec&)> change);

// The workload's span: `generated` for a generated workload, else read from its jobs.
WorkloadSpan workload_span(const Workload& workload);
// One pass over `generator`'s jobs.
WorkloadSpan measure_span(const JobGenerator& generator);

// The specs of the jobs a run has submitted and not yet closed, by id, in reused slots: a run
// holds the specs of its open jobs only.
class OpenJobs {
 public:
  explicit OpenJobs(size_t jobs) : slot_of_(jobs, kNone) {}
  // REQUIRES: `id` is open.
  const JobSpec& operator[](uint32_t id) const {
    assert(slot_of_[id] != kNone && "OpenJobs: the job is not open");
    return specs_[slot_of_[id]];
  }
  void open(const JobSpec& job);
  // REQUIRES: open.
  void close(uint32_t id);
  // An elastic job's current size (its spec here only; the workload keeps the submitted one).
  // REQUIRES: open.
  void set_workers(uint32_t id, uint16_t workers) { specs_[slot_of_[id]].workers = workers; }
  // The GPU model its Kueue flavor holds it to (JobSpec::flavor_gpu). REQUIRES: open.
  void set_flavor_gpu(uint32_t id, uint8_t gpu) { specs_[slot_of_[id]].flavor_gpu = gpu; }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFF;
  std::vector<uint32_t> slot_of_;
  std::vector<JobSpec> specs_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace topsim
