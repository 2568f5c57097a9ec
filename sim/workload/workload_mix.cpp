#include "sim/workload/workload_mix.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/hardware.h"
#include "core/llm_catalog.h"
#include "core/model_catalog.h"

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

TrainingDraw::TrainingDraw(const std::vector<ModelShare>& mix, double tensorflow_share)
    : model_pick_(mix_weights(mix)), tensorflow_share_(tensorflow_share) {
  assert(validate_model_mix(mix).ok() && "TrainingDraw: invalid model mix");
  uint16_t next_llm = 0;
  for (const ModelShare& share : mix) {
    const auto index = workload_model_index(share.model);
    model_index_.push_back(index.value_or(kNoModel));
    llm_index_.push_back(index ? kNoLlm : next_llm++);
    batch_per_gpu_.push_back(share.batch_per_gpu);
  }
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

void TrainingDraw::assign(JobSpec& job, std::mt19937_64& rng) const {
  const size_t choice = model_pick_.pick(rng);
  job.model = model_index_[choice];
  job.llm = llm_index_[choice];
  job.batch_per_gpu = batch_per_gpu_[choice];
  job.framework = uniform01(rng) < tensorflow_share_ ? Framework::TensorFlow : Framework::PyTorch;
}

void draw_training(std::vector<JobSpec>& jobs, const TrainingDraw& draw, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (JobSpec& job : jobs)
    if (job.is_training()) draw.assign(job, rng);
}

}  // namespace topsim
