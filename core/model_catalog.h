// The DNN model catalog of the training-throughput model: what each model weighs on the wire
// (FP32 gradient bytes) and how fast one GPU trains it, per GPU generation and framework.
//
// Single-GPU figures (samples/sec at a reference batch, each GPU's default full-precision mode:
// FP32 on V100, TF32 on A100/H100; never AMP):
// - Given (REFERENCE.md, "Single-GPU training throughput"): V100 TensorFlow b64 VGG16 248 /
//   ResNet50 368, V100 PyTorch b64 205 / 330, A100 TensorFlow 364 / 572, A100 PyTorch (TF32,
//   b256) ResNet50 938, H100 PyTorch (TF32) ResNet50 1800. "Large batch" is taken as 256.
// - Derived anchors (VGG16 / ResNet50 where REFERENCE.md has no figure), by ratios measured
//   between given figures, assuming throughput factors into (model) x (GPU, framework):
//   A100 / H100 PyTorch VGG16 = that GPU's PyTorch ResNet50 x 205/330 (V100 PyTorch
//   VGG16/ResNet50); H100 TensorFlow ResNet50 = 1800 x 572/938 (A100 TensorFlow/PyTorch);
//   H100 TensorFlow VGG16 = that x 364/572 (A100 TensorFlow VGG16/ResNet50).
// - Other models, from an anchor of the same kind on the same GPU and framework, by training
//   FLOPs per sample: T(m) = T(anchor) x F(anchor) / F(m). Plain conv + FC stacks (AlexNet)
//   use VGG16; everything else uses ResNet50 (transformers assume the GPU sustains the FLOP rate
//   it sustains on ResNet50 - an approximation: large GEMMs usually do somewhat better).
//   Each model's F and its source are in model_catalog.cpp.
// - Reference batch of a derived entry: the anchor's reference batch scaled to the same work
//   per step, ceil(b_anchor x F(anchor) / F(m)) (the GPU saturates at the same FLOPs per step).
// Batch scaling (compute_step_ms): at or above the reference batch the time per sample is the
// reference one (throughput flat); below it, a fixed 10% of the reference step does not shrink
// with the batch (kFixedStepShare), so small batches lose throughput (half the batch: -9%).
//
// GPU generations measured: V100 (SM70), A100 (SM80), H100 (SM90) - the anchors. Every other
// catalog GPU (core/hardware.h) is derived from the anchor of its kind by its data sheet, in the
// job's default precision (FP32 before Ampere, TF32 from it):
// - CUDA-core FP32 (Pascal, Volta variants, Turing), from V100 SXM2: the FP32 peak ratio. FP32
//   training on CUDA cores is compute-bound (V100's ridge point is 15.7 TFLOPS / 900 GB/s = 17
//   FLOP/byte; convolutions and GEMMs run far above it), so time per sample follows the peak.
// - Tensor-core TF32 (Ampere, Ada from A100 SXM4 40 GB; Hopper, Blackwell from H100 SXM5): a
//   two-term roofline, time per sample = s x (peak_anchor / peak) + (1 - s) x (bw_anchor / bw)
//   in units of the anchor's time, where s (kTensorComputeShare) is the share of the step bound
//   by tensor math and the rest by memory traffic (BN, activations, optimizer, all far below the
//   tensor cores' ridge point of ~100 FLOP/byte).
// - Blackwell: the roofline times kBlackwellRealisedShare (see below).
// docs/throughput-model.md "Other GPUs" has the cross-checks against measured ratios.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

// Enumerators in the order of sim's Framework (sim/job.h), so the two convert by value.
enum class TrainingFramework : uint8_t { TensorFlow, PyTorch };
template <>
struct EnumNames<TrainingFramework> {
  static constexpr std::array<EnumName<TrainingFramework>, 2> table{
      {{TrainingFramework::TensorFlow, "tensorflow"}, {TrainingFramework::PyTorch, "pytorch"}}};
};
// Lenient: the name in any letter case, '-', '_' and spaces ignored ("Py-Torch"), or the
// alias "tf" / "torch"; nullopt for any other text.
std::optional<TrainingFramework> parse_training_framework(std::string_view name);

enum class SampleUnit : uint8_t { Images, Samples };
template <>
struct EnumNames<SampleUnit> {
  static constexpr std::array<EnumName<SampleUnit>, 2> table{{{SampleUnit::Images, "images"}, {SampleUnit::Samples, "samples"}}};
};

struct DnnModel {
  std::string name;                      // catalog key, lower case, e.g. "resnet50"
  std::string display_name;              // e.g. "ResNet-50"
  int64_t parameters = 0;                // trainable parameters (REFERENCE.md)
  SampleUnit unit = SampleUnit::Images;  // what one sample is: an image, or a sequence
  int sequence_length = 0;               // tokens per sample (transformers), 0 for images
  double training_gflop_per_sample = 0;  // forward + backward GFLOP per sample (F above)
  // FP32 gradient bytes all-reduced every step: 4 x parameters (REFERENCE.md).
  double gradient_bytes() const { return 4.0 * static_cast<double>(parameters); }
};

// The catalog, in a fixed order: its indices are what JobSpec::model refers to.
const std::vector<DnnModel>& model_catalog();
std::vector<std::string> model_names();
// Index of the model named `name` (case-insensitive; "-" and "_" ignored, so "ResNet-50",
// "bert_large" and "GPT2-XL" all match). Error: "unknown model '<name>'; known: ...".
Expected<int> find_model(std::string_view name);
// nullptr when `index` is not a catalog index.
const DnnModel* model_at(int index);

struct GpuModel;

// The catalog GPU of `gpu_name` (core/hardware.h, aliases accepted) when the throughput model
// covers it. Errors: unknown GPU name (with a did-you-mean and the known ones); a GPU without figures.
Expected<const GpuModel*> training_gpu(std::string_view gpu_name);

// How much faster than its anchor a GPU trains (1 for the anchors), and why.
struct GpuSpeed {
  const GpuModel* anchor = nullptr;  // v100, a100 or h100
  double ratio = 0;                  // samples/sec on `gpu` over samples/sec on the anchor
  std::string derivation;            // the formula with its figures
};
Expected<GpuSpeed> gpu_speed(const GpuModel& gpu);

// Share of a tensor-core training step bound by tensor math (the rest: memory bandwidth).
// Calibrated on one pair: MLPerf Training v3.0 ResNet-50, Dell PowerEdge XE9680, 8 x A100 SXM4
// 80 GB 27.05 min vs 8 x H100 SXM5 13.41 min (same submitter, round and NGC 23.04 software;
// mlcommons/training_results_v3.0 Dell/results/XE9680x8{A100,H100}-SXM-80GB/resnet, olympic
// mean of the MLLOG run times): speed-up 2.017 = 1 / (s / 3.171 + (1 - s) / 1.643) with the FP16
// peak ratio 989.4/312 and the bandwidth ratio 3350/2039, so s = 0.385.
inline constexpr double kTensorComputeShare = 0.385;
// What Blackwell realises of its roofline against Hopper with the software of its first results.
// Calibrated on MLPerf Training v4.1 BERT: 1 x DGX B200 (preview) 3.795 min vs 1 x DGX H100
// (v4.0) 5.469 min = 1.441 against the roofline's 2.32; validated on lambdal/deeplearning-
// benchmark pytorch-train-throughput-v2-fp16.csv (2025-12): BERT-large 523 vs 310-321 seq/s.
inline constexpr double kBlackwellRealisedShare = 0.62;

struct SingleGpuThroughput {
  double samples_per_sec = 0;   // one GPU, at reference_batch
  int reference_batch = 0;      // samples per GPU per step the figure refers to
  bool derived = false;         // false: given in REFERENCE.md
  std::string_view derivation;  // how the figure was obtained (static storage)
};

// Single-GPU training throughput of catalog model `model` on `gpu`.
// Errors: model index out of range; a GPU without figures (no FP32 rate) or outside the catalog.
Expected<SingleGpuThroughput> single_gpu_throughput(int model, const GpuModel& gpu, TrainingFramework framework);

// Per-GPU compute time (forward + backward + update) of one step at `batch` samples, ms,
// under the batch-scaling model above. Errors: as single_gpu_throughput, or batch < 1.
Expected<double> compute_step_ms(int model, const GpuModel& gpu, TrainingFramework framework, int batch);

// Bytes per parameter a data-parallel job holds on every GPU, activations aside: FP32 weights,
// gradients and Adam's two moments, 4 + 4 + 4 + 4 (Rajbhandari et al., "ZeRO", SC'20, section
// 3.1, count 16 bytes per parameter for mixed-precision Adam as well).
inline constexpr double kStateBytesPerParameter = 16;
// GiB a GPU holds for a job of catalog model `model` (weights, gradients, optimizer state); 0
// for an index outside the catalog.
double training_state_gib(int model);
// Whether that state fits in `gpu`'s memory (true for an index outside the catalog: no model,
// nothing to check).
bool fits_gpu_memory(int model, const GpuModel& gpu);

// Share of the reference step that does not shrink with a smaller batch (batch scaling above).
// A modelling assumption of this project, not a measurement: per-step work independent of the
// batch (optimizer update, kernel launches, framework overhead); 0.1 makes ResNet50 at half its
// reference batch ~9% slower per sample, the order of the b32-vs-b64 gap of CNN benchmarks.
inline constexpr double kFixedStepShare = 0.1;

}  // namespace topsim
