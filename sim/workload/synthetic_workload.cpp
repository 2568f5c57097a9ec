#include "sim/workload/synthetic_workload.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <random>
#include <string>

#include "sim/seeds.h"
#include "sim/tenant_names.h"

namespace topsim {
namespace {

constexpr double kMsPerHour = 3'600'000.0;
constexpr double kMsPerMinute = 60'000.0;
constexpr double kMaxDurationMs = 365.0 * 24 * kMsPerHour;
constexpr double kMaxSubmitMs = 1e15;  // ~31,700 years: keeps absurd rates from overflowing int64

// Exponential gap of mean `mean_ms` by inversion; 1 - u lies in (0, 1].
double exponential_ms(std::mt19937_64& rng, double mean_ms) { return -std::log(1.0 - uniform01(rng)) * mean_ms; }

// A standard normal by Box-Muller from two uniforms (the cosine branch only).
double standard_normal(std::mt19937_64& rng) {
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform01(rng)));
  return radius * std::cos(2.0 * std::numbers::pi * uniform01(rng));
}

std::vector<double> size_weights(const std::vector<SizeShare>& mix) {
  std::vector<double> weights;
  for (const SizeShare& share : mix) weights.push_back(share.weight);
  return weights;
}

Status check_size_mix(const std::vector<SizeShare>& mix) {
  if (mix.empty()) return Error{"synthetic options: size mix is empty"};
  double total = 0;
  for (const SizeShare& share : mix) {
    if (share.gpus < 1 || share.gpus > 65535)
      return Error{"synthetic options: size mix: " + std::to_string(share.gpus) + " GPUs is out of range (1-65535)"};
    if (!std::isfinite(share.weight) || share.weight < 0)
      return Error{"synthetic options: size mix: weight of " + std::to_string(share.gpus) + " GPUs must be a finite number >= 0"};
    total += share.weight;
  }
  if (!(total > 0)) return Error{"synthetic options: size mix: weights sum to 0"};
  return Status::success();
}

bool positive_finite(double value) { return value > 0 && std::isfinite(value); }

}  // namespace

Status validate(const SyntheticOptions& options) {
  if (options.jobs < 1) return Error{"synthetic options: jobs must be >= 1"};
  if (!positive_finite(options.arrival_rate_per_hour))
    return Error{"synthetic options: arrival_rate_per_hour must be a positive number"};
  if (!positive_finite(options.median_duration_minutes))
    return Error{"synthetic options: median_duration_minutes must be a positive number"};
  if (!(options.duration_sigma >= 0) || !std::isfinite(options.duration_sigma))
    return Error{"synthetic options: duration_sigma must be a number >= 0"};
  if (options.gpus_per_node < 1) return Error{"synthetic options: gpus_per_node must be >= 1"};
  if (!(options.tensorflow_share >= 0 && options.tensorflow_share <= 1))
    return Error{"synthetic options: tensorflow_share must be within [0, 1]"};
  if (const Status sizes = check_size_mix(options.size_mix); !sizes.ok()) return sizes;
  if (const Status mix = validate_model_mix(options.model_mix); !mix.ok())
    return Error{"synthetic options: " + mix.error().message};
  if (const Status mix = validate_share_mix(options.tenants, "tenants", kMaxQueueNames); !mix.ok())
    return Error{"synthetic options: " + mix.error().message};
  if (const Status mix = validate_share_mix(options.priority_classes, "priority_classes", kMaxPriorityClassNames); !mix.ok())
    return Error{"synthetic options: " + mix.error().message};
  if (const Status mix = validate_share_mix(options.gpu_models, "gpu_model_mix", 64); !mix.ok())
    return Error{"synthetic options: " + mix.error().message};
  for (const NamedShare& share : options.gpu_models)
    if (share.name != kAnyGpuModelName && !selectable_gpu_model(share.name))
      return Error{"synthetic options: gpu_model_mix: '" + share.name + "' is no catalog GPU model (nor \"any\")"};
  return Status::success();
}

namespace {

// The GPU model each job selects: one draw per job, in id order, from a stream of its own (the
// workload seed XOR kGpuModelStream), so a mix changes no other draw. Entry e of the mix is
// set e of Workload::gpu_model_sets, "any" none.
class GpuModelDraw {
 public:
  GpuModelDraw(const std::vector<NamedShare>& mix, uint64_t seed) : rng_(seed ^ kGpuModelStream) {
    if (mix.empty()) return;
    std::vector<double> weights;
    uint8_t set = 0;
    for (const NamedShare& share : mix) {
      weights.push_back(share.weight);
      index_.push_back(share.name == kAnyGpuModelName ? kAnyGpuModel : set++);
    }
    pick_.emplace(weights);
  }
  void assign(JobSpec& job) {
    if (pick_) job.gpu_models = index_[pick_->pick(rng_)];
  }
  // Workload::gpu_model_sets for the mix.
  static std::vector<uint64_t> sets(const std::vector<NamedShare>& mix) {
    std::vector<uint64_t> out;
    for (const NamedShare& share : mix)
      if (share.name != kAnyGpuModelName) out.push_back(uint64_t{1} << selectable_gpu_model(share.name)->catalog_index);
    return out;
  }

 private:
  std::optional<WeightedPick> pick_;
  std::vector<uint8_t> index_;
  std::mt19937_64 rng_;
};

}  // namespace

namespace {

// The synthetic jobs one at a time: the same draws, in the same order, as one loop over the jobs.
class SyntheticSource final : public JobSource {
 public:
  SyntheticSource(const SyntheticOptions& options, TenantDraw tenants)
      : gpu_models_(options.gpu_models, options.seed),
        jobs_(options.jobs),
        size_pick_(size_weights(options.size_mix)),
        draw_(options.model_mix, options.tensorflow_share, options.reference_gpu),
        mean_gap_ms_(kMsPerHour / options.arrival_rate_per_hour),
        log_median_ms_(std::log(options.median_duration_minutes * kMsPerMinute)),
        sigma_(options.duration_sigma),
        tenants_(std::move(tenants)),
        rng_(options.seed) {
    for (const SizeShare& share : options.size_mix) shapes_.push_back(gang_shape(share.gpus, options.gpus_per_node));
  }

  bool next(JobSpec& job) override {
    if (next_id_ >= jobs_) return false;
    job = JobSpec{};
    if (next_id_ > 0) clock_ms_ += exponential_ms(rng_, mean_gap_ms_);
    job.id = next_id_++;
    job.submit_ms = std::llround(std::min(clock_ms_, kMaxSubmitMs));
    const PodShape shape = shapes_[size_pick_.pick(rng_)];
    job.workers = shape.workers;
    job.gpus_per_worker = shape.gpus_per_worker;
    draw_.assign(job, rng_);
    const double duration_ms = std::exp(log_median_ms_ + sigma_ * standard_normal(rng_));
    job.ideal_duration_ms = std::llround(std::clamp(duration_ms, 1.0, kMaxDurationMs));
    tenants_.assign(job);
    gpu_models_.assign(job);
    return true;
  }

 private:
  GpuModelDraw gpu_models_;
  uint32_t jobs_;
  std::vector<PodShape> shapes_;
  WeightedPick size_pick_;
  TrainingDraw draw_;
  double mean_gap_ms_, log_median_ms_, sigma_;
  TenantDraw tenants_;
  std::mt19937_64 rng_;
  double clock_ms_ = 0;
  uint32_t next_id_ = 0;
};

class SyntheticJobs final : public JobGenerator {
 public:
  SyntheticJobs(SyntheticOptions options, TenantDraw tenants) : options_(std::move(options)), tenants_(std::move(tenants)) {}
  std::unique_ptr<JobSource> open() const override { return std::make_unique<SyntheticSource>(options_, tenants_); }

 private:
  SyntheticOptions options_;
  TenantDraw tenants_;  // before its first draw: each source draws from a copy
};

std::string source_name(const SyntheticOptions& options) { return "synthetic(seed=" + std::to_string(options.seed) + ")"; }

// The workload's name, models and tenant names, without its jobs.
Workload synthetic_shell(const SyntheticOptions& options, const TenantDraw& tenants) {
  Workload workload;
  workload.source = source_name(options);
  workload.llm_jobs = llm_mix_table(options.model_mix);
  workload.queue_names = tenants.queue_names();
  workload.priority_class_names = tenants.class_names();
  workload.gpu_model_sets = GpuModelDraw::sets(options.gpu_models);
  return workload;
}

TenantDraw tenant_draw(const SyntheticOptions& options) {
  return TenantDraw(options.tenants, options.priority_classes, options.seed, options.jobs);
}

}  // namespace

Workload generate_synthetic(const SyntheticOptions& options) {
  assert(validate(options).ok() && "generate_synthetic: invalid options (check validate() first)");
  const TenantDraw tenants = tenant_draw(options);
  Workload workload = synthetic_shell(options, tenants);
  workload.jobs.resize(options.jobs);
  SyntheticSource source(options, tenants);
  for (JobSpec& job : workload.jobs) source.next(job);
  return workload;
}

Workload stream_synthetic(const SyntheticOptions& options) {
  assert(validate(options).ok() && "stream_synthetic: invalid options (check validate() first)");
  TenantDraw tenants = tenant_draw(options);
  Workload workload = synthetic_shell(options, tenants);
  workload.generator = std::make_shared<const SyntheticJobs>(options, std::move(tenants));
  workload.generated = measure_span(*workload.generator);
  return workload;
}

}  // namespace topsim
