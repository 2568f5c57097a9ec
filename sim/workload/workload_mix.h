// What generated and trace jobs look like when the source does not say: the gang rule that
// splits a GPU count into pods, and the seeded draw of model, framework and batch size.
// Shared by the Philly loader and the synthetic generator (docs/workloads.md).
//
// Random draws are made from std::mt19937_64 (fully specified by the standard) with this
// file's own arithmetic rather than the standard distributions, whose output differs between
// standard libraries: the same seed gives the same workload everywhere.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
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
// With a reference GPU (the hardware the jobs' durations were measured on) an LLM of the mix is
// drawn only for jobs whose GPU count has a layout that fits that GPU's memory
// (core/llm_step.h default_parallel_too_large): a 1-GPU job measured on an H100 was no Llama 3 8B
// run. A job of such a size draws from the other models, their weights in the same proportions;
// a job no model of the mix fits draws from the whole mix (the scenario reader then refuses it,
// naming the size). The draws are the same in number, so a job's size changes no other job's
// models, and sizes every model fits draw exactly as without a reference GPU. A draw keeps the
// picks it made per job size: one instance draws for one thread at a time.
class TrainingDraw {
 public:
  // REQUIRES: validate_model_mix(mix).ok(), 0 <= tensorflow_share <= 1.
  TrainingDraw(const std::vector<ModelShare>& mix, double tensorflow_share, const GpuModel* reference_gpu = nullptr);
  void assign(JobSpec& job, std::mt19937_64& rng);

 private:
  // The pick for a job of `gpus` GPUs: model_pick_ unless an LLM of the mix does not fit it.
  const WeightedPick& pick_for(int gpus);

  std::vector<double> weights_;
  WeightedPick model_pick_;
  std::vector<uint16_t> model_index_;        // kNoModel for an LLM
  std::vector<uint16_t> llm_index_;          // its index in llm_mix_table(mix), else kNoLlm
  std::vector<const LlmModel*> llm_models_;  // the LLM of each entry, else null
  std::vector<uint16_t> batch_per_gpu_;
  double tensorflow_share_;
  const GpuModel* reference_gpu_ = nullptr;           // null, or no LLM in the mix: every size draws from the whole mix
  std::unordered_map<int, WeightedPick> size_picks_;  // by job size, where some LLM does not fit
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

// What a workload's model mix leaves an LLM out of (TrainingDraw): the workload's training jobs
// of the sizes no layout of which fits the LLM's reference GPU (LlmJob::fit_gpu).
struct MixLlmLimit {
  const LlmJob* llm = nullptr;
  std::map<int, size_t> left_out;  // job size in GPUs -> the workload's training jobs of that size
  size_t jobs_left_out = 0;        // the sum of left_out
  size_t training_jobs = 0;        // the workload's training jobs
};
// Per automatic LLM of the workload (Workload::llm_jobs) with a reference GPU, in mix order, when
// it leaves some job out; one pass over the jobs.
std::vector<MixLlmLimit> mix_llm_limits(const Workload& workload);
// The limits in words (ScenarioInfo::model_mix): "llama3-8b is left out of the 252 jobs of 1 GPU
// (no layout of theirs fits h100, 80 GiB)", one clause per LLM joined by "; "; empty without.
std::string describe_mix_limits(const std::vector<MixLlmLimit>& limits);

// Draws what every training job trains, in job order, from std::mt19937_64(seed) (two draws
// per job, TrainingDraw::assign); other jobs draw nothing. Loading a trace with one seed and
// redrawing with another gives the same jobs as loading it with the other seed.
void draw_training(std::vector<JobSpec>& jobs, TrainingDraw draw, uint64_t seed);

}  // namespace topsim
