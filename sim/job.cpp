#include "sim/job.h"

#include "core/hardware.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "util/text.h"

namespace topsim {

int JobSpec::total_gpus() const {
  if (unequal_pod_gpus.empty()) return int{workers} * gpus_per_worker;
  int total = 0;
  for (uint16_t gpus : unequal_pod_gpus) total += gpus;
  return total;
}

std::string JobSpec::throughput_unit() const {
  if (llm != kNoLlm) return "tokens/s";
  const DnnModel* catalog_model = model_at(model);
  return (catalog_model ? std::string(enum_name(catalog_model->unit)) : "samples") + "/s";
}

int64_t JobSpec::gpu_milli_total(int card_mem_gib) const {
  switch (kind) {
    case JobKind::Training: return int64_t{kMilliPerGpu} * total_gpus();
    case JobKind::Share: return ask_total_milli(pod_request(*this).gpu, card_mem_gib);
    case JobKind::TracePod: return int64_t{gpus_per_worker} * gpu_milli;
  }
  return 0;
}

PodRequest pod_request(const JobSpec& job, size_t pod, bool topology_aware) {
  PodRequest request;
  switch (job.kind) {
    case JobKind::Training: request.gpu = GpuAsk::whole(job.pod_gpus(pod), topology_aware); break;
    case JobKind::Share:
      request.gpu =
          GpuAsk::mem(job.gpu_mem_gib, job.gpu_core_percent > 0 ? std::optional<int>(job.gpu_core_percent) : std::nullopt);
      break;
    case JobKind::TracePod:
      request.cpu_milli = job.cpu_milli;
      request.memory_mib = job.memory_mib;
      request.gpu_type_mask = job.gpu_type_mask;
      if (job.gpus_per_worker > 0) request.gpu = GpuAsk::milli_share(job.gpu_milli, job.gpus_per_worker);
      break;
  }
  return request;
}

std::string Workload::job_name(uint32_t id) const {
  const auto it = extras.find(id);
  if (it != extras.end() && !it->second.name.empty()) return it->second.name;
  return "job-" + std::to_string(id);
}

const GpuModel* selectable_gpu_model(std::string_view name) {
  const GpuModel* gpu = find_gpu_model(name);
  if (gpu == nullptr) gpu = find_gpu_by_product_label(name);
  return gpu != nullptr && gpu->catalog_index >= 0 && gpu->catalog_index < 64 ? gpu : nullptr;
}

std::vector<std::string> gpu_model_names_in(uint64_t set) {
  std::vector<std::string> names;
  for (int i = 0; i < 64; ++i)
    if ((set >> i) & 1u)
      if (const GpuModel* gpu = gpu_at(i)) names.push_back(gpu->name);
  return names;
}

std::string unknown_gpu_products(const std::vector<std::string>& values) {
  return join(values, ", ", [](const std::string& v) { return "'" + v + "'"; }) + (values.size() == 1 ? " names" : " name") +
         " no catalog GPU (" + join(gpu_model_names(), ", ") + "; product labels such as NVIDIA-H100-80GB-HBM3)";
}

std::vector<std::string> Workload::selected_gpu_names(const JobSpec& job) const {
  if (job.gpu_models == kAnyGpuModel || job.gpu_models >= gpu_model_sets.size()) return {};
  return gpu_model_names_in(gpu_model_sets[job.gpu_models]);
}

std::string Workload::selected_gpus_text(const JobSpec& job) const { return join_alternatives(selected_gpu_names(job)); }

NodeFitProblem job_node_problem(const Workload& workload, const JobSpec& job, const GpuModel& gpu, const NodeModel& node) {
  if (job.is_training() && job.flavor_gpu != kAnyGpuModel && gpu.catalog_index != job.flavor_gpu)
    return {"its Kueue flavor holds it to GPU model " + gpu_at(job.flavor_gpu)->name +
                " (the ResourceFlavor's nodeLabels nvidia.com/gpu.product, its pods' node selector)",
            false};
  if (job.is_training() && !workload.selects_gpu(job, gpu))
    return {
        "it selects GPU model " + workload.selected_gpus_text(job) + " (\"gpu_models\", a nvidia.com/gpu.product node selector)",
        false};
  return job_capacity_problem(workload, job, gpu, node);
}

NodeFitProblem job_capacity_problem(const Workload& workload, const JobSpec& job, const GpuModel& gpu, const NodeModel& node) {
  if (!job.is_training()) return {};
  if (const LlmJob* llm = workload.llm_of(job)) {
    const ParallelConfig config = llm->config_for(job.total_gpus(), &gpu);
    // A job list's layout gets validate_parallel's advice. A model mix's job takes the layout of
    // least memory that fits (config_for): when none does, it has no setting of its own to change.
    if (const Status valid = llm->automatic ? validate_parallel_precision(*llm->model, config, gpu, job.total_gpus())
                                            : validate_parallel(*llm->model, config, gpu, job.total_gpus());
        !valid)
      return {valid.error().message};
    if (const auto shortfall = llm->automatic ? memory_shortfall(*llm->model, config, gpu) : std::nullopt) {
      NodeFitProblem none{"memory: no layout of its " + counted(job.total_gpus(), "GPU") + " fits: the least memory, TP " +
                          std::to_string(config.tp) + " x PP " + std::to_string(config.pp) + ", needs " + shortfall->figures};
      none.least_gib = shortfall->need_gib;
      return none;
    }
    if (const Status fits = validate_host_memory(*llm->model, config, node); !fits) return {fits.error().message, true};
    return {};
  }
  if (fits_gpu_memory(job.model, gpu)) return {};
  const DnnModel* model = model_at(job.model);
  char text[200];
  std::snprintf(text, sizeof text,
                "%s needs %.1f GiB per GPU for weights, gradients and Adam state (16 B x %.0f M parameters), a %s has %.0f GiB",
                model->name.c_str(), training_state_gib(job.model), static_cast<double>(model->parameters) / 1e6,
                gpu.name.c_str(), gpu.memory_gib);
  return {text, false};
}

JobCursor::JobCursor(const Workload& workload)
    : workload_(workload), source_(workload.generator ? workload.generator->open() : nullptr) {}

const JobSpec* JobCursor::next() {
  if (!source_) return index_ < workload_.jobs.size() ? &workload_.jobs[index_++] : nullptr;
  return source_->next(current_) ? &current_ : nullptr;
}

namespace {

void extend(WorkloadSpan& span, const JobSpec& job) {
  if (span.jobs++ == 0) span.first_submit_ms = span.expected_end_ms = job.submit_ms;
  span.expected_end_ms = std::max(span.expected_end_ms, job.submit_ms + std::max<int64_t>(0, job.ideal_duration_ms));
  span.has_shares = span.has_shares || job.is_share();
}

}  // namespace

WorkloadSpan workload_span(const Workload& workload) {
  if (workload.generator) return workload.generated;
  WorkloadSpan span;
  for (const JobSpec& job : workload.jobs) extend(span, job);
  return span;
}

WorkloadSpan measure_span(const JobGenerator& generator) {
  WorkloadSpan span;
  const std::unique_ptr<JobSource> source = generator.open();
  JobSpec job;
  while (source->next(job)) extend(span, job);
  return span;
}

namespace {

// A generated workload's jobs, each changed as it is made.
class ChangedJobs final : public JobGenerator {
 public:
  ChangedJobs(std::shared_ptr<const JobGenerator> jobs, std::function<void(JobSpec&)> change)
      : jobs_(std::move(jobs)), change_(std::move(change)) {}
  std::unique_ptr<JobSource> open() const override { return std::make_unique<Source>(jobs_->open(), change_); }

 private:
  struct Source final : JobSource {
    Source(std::unique_ptr<JobSource> jobs, const std::function<void(JobSpec&)>& change)
        : jobs(std::move(jobs)), change(change) {}
    bool next(JobSpec& job) override {
      if (!jobs->next(job)) return false;
      change(job);
      return true;
    }
    std::unique_ptr<JobSource> jobs;
    const std::function<void(JobSpec&)>& change;
  };
  std::shared_ptr<const JobGenerator> jobs_;
  std::function<void(JobSpec&)> change_;
};

}  // namespace

void change_jobs(Workload& workload, std::function<void(JobSpec&)> change) {
  for (JobSpec& job : workload.jobs) change(job);
  if (!workload.generator) return;
  workload.generator = std::make_shared<const ChangedJobs>(workload.generator, std::move(change));
  workload.generated = measure_span(*workload.generator);
}

void OpenJobs::open(const JobSpec& job) {
  uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(specs_.size());
    specs_.push_back(job);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    specs_[slot] = job;
  }
  slot_of_[job.id] = slot;
}

void OpenJobs::close(uint32_t id) {
  free_slots_.push_back(slot_of_[id]);
  slot_of_[id] = kNone;
}

}  // namespace topsim
