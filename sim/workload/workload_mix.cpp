#include "sim/workload/workload_mix.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/hardware.h"
#include "core/llm_catalog.h"
#include "core/llm_step.h"
#include "core/model_catalog.h"
#include "util/number_format.h"
#include "util/text.h"

namespace topsim {

std::optional<uint16_t> workload_model_index(std::string_view name) {
  const Expected<int> index = find_model(name);
  if (!index.ok()) return std::nullopt;
  return static_cast<uint16_t>(index.value());
}

const std::vector<std::string>& workload_model_names() {
  static const std::vector<std::string> names = model_names();
  return names;
}

PodShape gang_shape(int total_gpus, int gpus_per_node) {
  assert(total_gpus >= 1 && total_gpus <= 65535 && gpus_per_node >= 1 && "gang_shape: bad sizes");
  if (total_gpus <= gpus_per_node) return {1, static_cast<uint16_t>(total_gpus)};
  int per_pod = gpus_per_node;
  while (total_gpus % per_pod != 0) --per_pod;
  return {static_cast<uint16_t>(total_gpus / per_pod), static_cast<uint16_t>(per_pod)};
}

const std::vector<ModelShare>& default_model_mix() {
  static const std::vector<ModelShare> mix = {
      {"resnet50", 0.40, 64},   {"vgg16", 0.15, 64},       {"resnet101", 0.15, 64},
      {"bert-large", 0.15, 32}, {"inceptionv3", 0.10, 64}, {"gpt2-small", 0.05, 16},
  };
  return mix;
}

uint16_t default_batch_per_gpu(std::string_view model) {
  const auto index = workload_model_index(model);
  for (const ModelShare& share : default_model_mix())
    if (index && workload_model_index(share.model) == index) return share.batch_per_gpu;
  return 64;
}

Status validate_model_mix(const std::vector<ModelShare>& mix) {
  if (mix.empty()) return Error{"model mix: is empty"};
  double total = 0;
  for (const ModelShare& share : mix) {
    if (!workload_model_index(share.model) && !find_llm_model(share.model))
      return Error{"model mix: unknown model '" + share.model + "'"};
    if (!std::isfinite(share.weight) || share.weight < 0)
      return Error{"model mix: weight of '" + share.model + "' must be a finite number >= 0"};
    if (share.batch_per_gpu < 1) return Error{"model mix: batch_per_gpu of '" + share.model + "' must be >= 1"};
    total += share.weight;
  }
  if (!(total > 0)) return Error{"model mix: weights sum to 0"};
  return Status::success();
}

WeightedPick::WeightedPick(const std::vector<double>& weights) {
  double total = 0;
  for (double weight : weights) cumulative_.push_back(total += weight);
  if (!std::isfinite(total)) {
    // Finite weights whose sum overflows (1e308 + 1e308): the same shares over the largest
    // weight, whose sum is at most their count. Sums that fit are left as they are (same draws).
    const double largest = *std::max_element(weights.begin(), weights.end());
    cumulative_.clear();
    total = 0;
    for (double weight : weights) cumulative_.push_back(total += weight / largest);
  }
  assert(!cumulative_.empty() && total > 0 && "WeightedPick: weights must have a positive sum");
}

size_t WeightedPick::pick(std::mt19937_64& rng) const {
  const double target = uniform01(rng) * cumulative_.back();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), target);
  // A zero-weight tail can leave `target` at the total only through rounding: take the last
  // positive-weight entry.
  size_t index = static_cast<size_t>(it - cumulative_.begin());
  if (index >= cumulative_.size()) index = cumulative_.size() - 1;
  while (index > 0 && cumulative_[index] == cumulative_[index - 1]) --index;
  return index;
}

namespace {
std::vector<double> mix_weights(const std::vector<ModelShare>& mix) {
  std::vector<double> weights;
  for (const ModelShare& share : mix) weights.push_back(share.weight);
  return weights;
}
}  // namespace

TrainingDraw::TrainingDraw(const std::vector<ModelShare>& mix, double tensorflow_share, const GpuModel* reference_gpu)
    : weights_(mix_weights(mix)), model_pick_(weights_), tensorflow_share_(tensorflow_share) {
  assert(validate_model_mix(mix).ok() && "TrainingDraw: invalid model mix");
  uint16_t next_llm = 0;
  for (const ModelShare& share : mix) {
    const auto index = workload_model_index(share.model);
    model_index_.push_back(index.value_or(kNoModel));
    llm_index_.push_back(index ? kNoLlm : next_llm++);
    const LlmModel* llm = nullptr;
    if (!index)
      if (auto found = find_llm_model(share.model)) llm = *found;
    llm_models_.push_back(llm);
    batch_per_gpu_.push_back(share.batch_per_gpu);
  }
  if (next_llm > 0) reference_gpu_ = reference_gpu;
}

const WeightedPick& TrainingDraw::pick_for(int gpus) {
  if (reference_gpu_ == nullptr) return model_pick_;
  auto it = size_picks_.find(gpus);
  if (it == size_picks_.end()) {
    std::vector<double> weights = weights_;
    bool every = true;
    for (size_t i = 0; i < weights.size(); ++i)
      if (llm_models_[i] && default_parallel_too_large(*llm_models_[i], gpus, *reference_gpu_)) {
        weights[i] = 0;
        every = false;
      }
    const bool some = std::any_of(weights.begin(), weights.end(), [](double w) { return w > 0; });
    it = size_picks_.emplace(gpus, every || !some ? model_pick_ : WeightedPick(weights)).first;
  }
  return it->second;
}

void TrainingDraw::assign(JobSpec& job, std::mt19937_64& rng) {
  const size_t choice = pick_for(job.total_gpus()).pick(rng);
  job.model = model_index_[choice];
  job.llm = llm_index_[choice];
  job.batch_per_gpu = batch_per_gpu_[choice];
  job.framework = uniform01(rng) < tensorflow_share_ ? Framework::TensorFlow : Framework::PyTorch;
}

std::shared_ptr<const std::vector<LlmJob>> llm_mix_table(const std::vector<ModelShare>& mix) {
  auto table = std::make_shared<std::vector<LlmJob>>();
  for (const ModelShare& share : mix)
    if (!workload_model_index(share.model))
      if (auto model = find_llm_model(share.model)) {
        // Configured by size; the micro-batch a tuned run picks on each node type (the fastest
        // that fits on idle nodes of it, as a job list's "micro_batch": "auto").
        LlmJob llm{*model, {}, true};
        llm.micro_batch_auto = true;
        table->push_back(llm);
      }
  return table->empty() ? nullptr : table;
}

void set_reference_gpu(Workload& workload, const std::string& name) {
  workload.reference_gpu = name;
  const GpuModel* gpu = find_gpu_model(name);
  if (!workload.llm_jobs || !gpu) return;
  auto fitted = std::make_shared<std::vector<LlmJob>>(*workload.llm_jobs);
  for (LlmJob& llm : *fitted)
    if (llm.automatic) llm.fit_gpu = gpu;
  workload.llm_jobs = std::move(fitted);
}

std::vector<MixLlmLimit> mix_llm_limits(const Workload& workload) {
  std::vector<MixLlmLimit> limits;
  if (!workload.llm_jobs) return limits;
  std::vector<const LlmJob*> limited;
  for (const LlmJob& llm : *workload.llm_jobs)
    if (llm.automatic && llm.fit_gpu) limited.push_back(&llm);
  if (limited.empty()) return limits;
  std::map<int, size_t> sizes;  // training jobs by GPUs
  size_t training = 0;
  JobCursor cursor(workload);
  while (const JobSpec* job = cursor.next())
    if (job->is_training()) {
      ++sizes[job->total_gpus()];
      ++training;
    }
  for (const LlmJob* llm : limited) {
    MixLlmLimit limit{llm, {}, 0, training};
    for (const auto& [gpus, jobs] : sizes)
      if (default_parallel_too_large(*llm->model, gpus, *llm->fit_gpu)) {
        limit.left_out.emplace(gpus, jobs);
        limit.jobs_left_out += jobs;
      }
    if (limit.jobs_left_out > 0) limits.push_back(std::move(limit));
  }
  return limits;
}

std::string describe_mix_limits(const std::vector<MixLlmLimit>& limits) {
  std::string out;
  for (const MixLlmLimit& limit : limits) {
    // The sizes ascending, the first 6 named: "1, 2 or 4 GPUs", "1, 2, 3, 5, 6, 7 GPUs and 4 more sizes".
    std::vector<std::string> named;
    for (const auto& [gpus, jobs] : limit.left_out) {
      if (named.size() == 6) break;
      named.push_back(std::to_string(gpus));
    }
    const size_t more = limit.left_out.size() - named.size();
    std::string sizes = more == 0 ? join_alternatives(named) : join(named, ", ");
    sizes += limit.left_out.size() == 1 && limit.left_out.begin()->first == 1 ? " GPU" : " GPUs";
    if (more > 0) sizes += " and " + counted(static_cast<long long>(more), "more size");
    const GpuModel& gpu = *limit.llm->fit_gpu;
    out += (out.empty() ? "" : "; ") + limit.llm->model->name + " is left out of the " +
           counted(static_cast<long long>(limit.jobs_left_out), "job") + " of " + sizes + " (no layout of theirs fits " +
           gpu.name + ", " + format_number(gpu.memory_gib) + " GiB)";
  }
  return out;
}

void draw_training(std::vector<JobSpec>& jobs, TrainingDraw draw, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (JobSpec& job : jobs)
    if (job.is_training()) draw.assign(job, rng);
}

}  // namespace topsim
