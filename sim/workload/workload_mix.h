// What generated and trace jobs look like when the source does not say: the gang rule that
// splits a GPU count into pods, and the seeded draw of model, framework and batch size.
// Shared by the Philly loader and the synthetic generator (docs/workloads.md).
//
// Random draws are made from std::mt19937_64 (fully specified by the standard) with this
// file's own arithmetic rather than the standard distributions, whose output differs between
// standard libraries: the same seed gives the same workload everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"
#include "sim/seeds.h"
#include "util/expected.h"

namespace topsim {

// ---- Model catalog access (core/model_catalog.h) ----
// Index of a training model by catalog name, as stored in JobSpec::model; matching is the
// catalog's (case-insensitive, '-' and '_' ignored: "ResNet-50" is resnet50).
std::optional<uint16_t> workload_model_index(std::string_view name);
// Catalog names, in index order.
const std::vector<std::string>& workload_model_names();

// ---- Gang rule ----
struct PodShape {
  uint16_t workers = 1;
  uint16_t gpus_per_worker = 1;
};

// Pods for a job of `total_gpus` GPUs on nodes of `gpus_per_node`: up to a node's worth is one
// pod with all of them; above that, pods of the largest divisor of `total_gpus` that is at most
// `gpus_per_node` GPUs (8 per node: 16 -> 2 x 8, 12 -> 2 x 6, 24 -> 3 x 8, 13 -> 13 x 1), so
// every pod asks the same count (gang pods must be identical) and none exceeds a node.
// REQUIRES: 1 <= total_gpus <= 65535, gpus_per_node >= 1.
PodShape gang_shape(int total_gpus, int gpus_per_node);

// ---- Model and framework mix ----
struct ModelShare {
  std::string model;            // catalog name
  double weight = 0;            // relative share, >= 0; a mix is normalised by its sum
  uint16_t batch_per_gpu = 64;  // per-GPU batch of jobs drawn with this model
};

// The documented default: resnet50 40%, vgg16 15%, resnet101 15%, bert-large 15%,
// inceptionv3 10%, gpt2-small 5% (a CNN-heavy 2017-era mix, the Philly trace's period, with a
// share of transformer jobs); batch 64 per GPU for the CNNs (the brief's benchmark batch), 32
// for bert-large and 16 for gpt2-small, whose activations are larger (a documented choice,
// not a measurement).
const std::vector<ModelShare>& default_model_mix();
// The batch the default mix uses for `model`; 64 for models it does not list.
uint16_t default_batch_per_gpu(std::string_view model);

// OK when every model is in the catalog, weights are finite and >= 0 with a positive sum and
// batches are >= 1. Errors start with "model mix: ".
Status validate_model_mix(const std::vector<ModelShare>& mix);

// Picks index i with probability weight[i] / sum(weights) from one uniform draw.
class WeightedPick {
 public:
  // REQUIRES: weights non-empty, each >= 0, positive sum.
  explicit WeightedPick(const std::vector<double>& weights);
  size_t pick(std::mt19937_64& rng) const;

 private:
  std::vector<double> cumulative_;  // running sums, last == total
};

// Assigns model, batch and framework to jobs: two draws per job (model, then framework).
class TrainingDraw {
 public:
  // REQUIRES: validate_model_mix(mix).ok(), 0 <= tensorflow_share <= 1.
  TrainingDraw(const std::vector<ModelShare>& mix, double tensorflow_share);
  void assign(JobSpec& job, std::mt19937_64& rng) const;

 private:
  WeightedPick model_pick_;
  std::vector<uint16_t> model_index_;  // kNoModel for an LLM
  std::vector<uint16_t> llm_index_;    // its index in llm_mix_table(mix), else kNoLlm
  std::vector<uint16_t> batch_per_gpu_;
  double tensorflow_share_;
};

// The LLM jobs of a mix naming large language models (core/llm_catalog.h), in mix order, each
// configured by its job's size (LlmJob::automatic) with the micro-batch chosen per node type
// (LlmJob::micro_batch_auto): Workload::llm_jobs of a workload drawn with
// the mix. Null when the mix names none.
std::shared_ptr<const std::vector<LlmJob>> llm_mix_table(const std::vector<ModelShare>& mix);

// Sets the workload's reference GPU (`gpu`, a catalog name: the hardware its durations were
// measured on) and chooses the layouts of its automatic LLM jobs to fit it (LlmJob::fit_gpu,
// core/llm_step.h default_parallel): the runs the durations came from were configured for it.
void set_reference_gpu(Workload& workload, const std::string& gpu);

// Draws what every training job trains, in job order, from std::mt19937_64(seed) (two draws
// per job, TrainingDraw::assign); other jobs draw nothing. Loading a trace with one seed and
// redrawing with another gives the same jobs as loading it with the other seed.
void draw_training(std::vector<JobSpec>& jobs, const TrainingDraw& draw, uint64_t seed);

}  // namespace topsim
