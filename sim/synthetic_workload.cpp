#include "sim/synthetic_workload.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>
#include <random>

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
  return Status::success();
}

Workload generate_synthetic(const SyntheticOptions& options) {
  assert(validate(options).ok() && "generate_synthetic: invalid options (check validate() first)");
  std::vector<PodShape> shapes;
  for (const SizeShare& share : options.size_mix) shapes.push_back(gang_shape(share.gpus, options.gpus_per_node));
  const WeightedPick size_pick(size_weights(options.size_mix));
  const TrainingDraw draw(options.model_mix, options.tensorflow_share);
  const double mean_gap_ms = kMsPerHour / options.arrival_rate_per_hour;
  const double log_median_ms = std::log(options.median_duration_minutes * kMsPerMinute);
  std::mt19937_64 rng(options.seed);

  Workload workload;
  workload.source = "synthetic(seed=" + std::to_string(options.seed) + ")";
  workload.jobs.resize(options.jobs);
  double clock_ms = 0;
  for (uint32_t i = 0; i < options.jobs; ++i) {
    JobSpec& job = workload.jobs[i];
    if (i > 0) clock_ms += exponential_ms(rng, mean_gap_ms);
    job.id = i;
    job.submit_ms = std::llround(std::min(clock_ms, kMaxSubmitMs));
    const PodShape shape = shapes[size_pick.pick(rng)];
    job.workers = shape.workers;
    job.gpus_per_worker = shape.gpus_per_worker;
    draw.assign(job, rng);
    const double duration_ms = std::exp(log_median_ms + options.duration_sigma * standard_normal(rng));
    job.ideal_duration_ms = std::llround(std::clamp(duration_ms, 1.0, kMaxDurationMs));
  }
  return workload;
}

}  // namespace topsim
