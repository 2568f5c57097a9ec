// The one vocabulary of result metrics: every figure a run produces has a name from this
// catalog, a unit carried in the name where it has one (`wait_s`, `ring_gbps`), a direction
// (which way is better) and a description. Reporters, the CI check and capacity planning all
// refer to metrics by these names; docs/results-format.md lists them.
//
// A full name is "<base>[.<statistic>]": distributions over jobs have .mean .p50 .p95 .p99
// .max (nearest rank); quantities over time have .mean (time-weighted) and .max; fill
// experiments' state after the last arrival has .final, and at 100% and 130% arrived load .at_100
// and .at_130.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/enum_names.h"
#include "util/statistics.h"

namespace topsim {

enum class Better : uint8_t { Higher, Lower, Neither };
template <>
struct EnumNames<Better> {
  static constexpr std::array<EnumName<Better>, 3> table{
      {{Better::Higher, "higher"}, {Better::Lower, "lower"}, {Better::Neither, "neither"}}};
};

enum class MetricShape : uint8_t {
  Scalar,    // one value, no statistic
  OverJobs,  // .mean .p50 .p95 .p99 .max over jobs
  ByCause,   // .gpu .hbm .network .host .software .replayed: per failure cause (sim/failures.h)
  OverTime,  // .mean (time-weighted) .max
  Final,     // .final (fill: after the last arrival)
  AtLoad,    // .at_100 .at_130 (fill: at that arrived load, when the run reached it)
};

// What a run must have for its metrics to hold a metric at all (summarize_run leaves it out
// otherwise); a metric over jobs is also left out when no job of its kind finished or started.
enum class MetricNeeds : uint8_t {
  Nothing,
  ImageJobs,      // a job training an image model
  LlmJobs,        // an LLM training job
  ShareJobs,      // a GPU-share job
  MultiGpuJobs,   // a training job of more than one GPU
  TopologyAware,  // a scheduler serving topology-aware nodes
  Failures,       // node failures (the scenario's "failures")
  Queues,         // tenants: queues the jobs name, or the scenario's "tenancy"
  Quota,          // quota: the scenario's "tenancy"
};

struct MetricInfo {
  std::string_view name;  // base name
  std::string_view unit;  // "s", "GPUs", "ratio", "jobs", ...
  Better better = Better::Neither;
  MetricShape shape = MetricShape::Scalar;
  std::string_view description;
  MetricNeeds needs = MetricNeeds::Nothing;
};

const std::vector<MetricInfo>& metric_catalog();
// The catalog entry of a full name ("wait_s.p95" -> wait_s), nullptr for a name outside it.
const MetricInfo* find_metric(std::string_view full_name);
// Every full name of one base name ("wait_s" -> wait_s.mean, wait_s.p50, ...).
std::vector<std::string> full_metric_names(const MetricInfo& info);

struct Metric {
  std::string name;  // full name
  double value = 0;
};

// Named values of one run, in the order they were set.
class Metrics {
 public:
  // REQUIRES: find_metric(name) != nullptr.
  void set(std::string name, double value);
  void set(std::string_view base, const Distribution& d);
  std::optional<double> get(std::string_view name) const;
  double value_or(std::string_view name, double fallback) const { return get(name).value_or(fallback); }
  const std::vector<Metric>& all() const { return values_; }

 private:
  std::vector<Metric> values_;
};

// Mean throughput of the jobs that trained one model with one framework, per scheduler run.
struct ModelThroughput {
  std::string model;
  std::string framework;            // "tensorflow", "pytorch"
  std::string unit;                 // "images", "samples"
  uint64_t jobs = 0;                // started jobs training it
  double mean_samples_per_sec = 0;  // mean over those jobs of their whole-job throughput
  double mean_ideal_samples_per_sec = 0;
};

// The mean step of one LLM's jobs in a run (core/llm_step.h), over the jobs that started: seconds
// per step and its parts, tokens/s per GPU, MFU.
struct LlmModelStep {
  std::string model;
  uint64_t jobs = 0;
  double tokens_per_sec_per_gpu = 0, mfu = 0, step_s = 0;
  double compute_s = 0, tp_s = 0, ep_s = 0, cp_s = 0, pp_bubble_s = 0, pp_p2p_s = 0, dp_exposed_s = 0, optimizer_s = 0;
  double offload_s = 0;  // host copies of offloaded activations not hidden
  // The parts in report order with their names (the sum is step_s).
  std::vector<std::pair<const char*, double>> parts() const {
    return {{"compute", compute_s},
            {"tensor-parallel", tp_s},
            {"expert all-to-all", ep_s},
            {"context exchange", cp_s},
            {"pipeline bubble", pp_bubble_s},
            {"pipeline sends", pp_p2p_s},
            {"data-parallel exposed", dp_exposed_s},
            {"optimizer", optimizer_s},
            {"host offload exposed", offload_s}};
  }
};

// What the training jobs did on one node type of the cluster, per scheduler run.
struct NodeTypeUsage {
  std::string node_type;            // the node model's name
  uint64_t jobs = 0;                // training jobs started there
  double gpu_hours = 0;             // GPU time of those that finished
  double mean_samples_per_sec = 0;  // mean whole-job throughput of the started ones that train no LLM
  uint64_t llm_jobs = 0;            // started ones that train an LLM (tokens/s are not samples/s)
  double mean_tokens_per_sec = 0;   // their mean whole-job throughput
};

// Everything `topsim` reports about one run, in the vocabulary above. `topology_aware`: the
// run's scheduler has topology constraints to meet (topology_success_rate applies).

}  // namespace topsim
