#include "core/model_catalog.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/hardware.h"
#include "util/suggest.h"
#include "util/text.h"

namespace topsim {
namespace {

// Training FLOPs per image of a CNN: forward multiply-adds x 2 FLOP x 3 (backward = 2 x forward,
// REFERENCE.md: backward is ~2/3 of compute).
constexpr double cnn_training_gflop(double forward_gmac) { return 6.0 * forward_gmac; }

// Training FLOPs per sequence of a transformer (Kaplan et al. 2020, "Scaling Laws for Neural
// Language Models", Table 1: forward 2N + 2 n_layer n_ctx d per token, training 3 x forward).
// N counts every parameter: the token embedding stands in for the (tied) output projection.
constexpr double transformer_training_gflop(double params, int layers, int d_model, int seq) {
  const double per_token = 6.0 * params + 6.0 * layers * static_cast<double>(seq) * d_model;
  return per_token * seq / 1e9;
}

// Forward GMAC per image from the torchvision model documentation ("GFLOPS" column, which counts
// multiply-adds; 224 x 224 input, 299 x 299 for Inception v3).
constexpr double kVgg16ForwardGmac = 15.47;
constexpr double kResnet50ForwardGmac = 4.09;
constexpr double kResnet101ForwardGmac = 7.80;
constexpr double kInceptionV3ForwardGmac = 5.71;
constexpr double kAlexnetForwardGmac = 0.71;

// Parameters: REFERENCE.md "Models". GPT-2 counts are the exact sizes of the released
// checkpoints (12 d^2 + 13 d per layer + embeddings), matching REFERENCE.md's 124.4 / 774.0 /
// 1,557.6 M and 497.8 / 3,096 / 6,230 MB. Architectures: BERT-large 24 x 1024, sequence 128
// (pre-training phase 1); GPT-2 small 12 x 768, large 36 x 1280, XL 48 x 1600, context 1024.
const std::vector<DnnModel>& catalog() {
  static const std::vector<DnnModel> models = {
      {"vgg16", "VGG16", 138357544, SampleUnit::Images, 0, cnn_training_gflop(kVgg16ForwardGmac)},
      {"resnet50", "ResNet-50", 25557032, SampleUnit::Images, 0, cnn_training_gflop(kResnet50ForwardGmac)},
      {"resnet101", "ResNet-101", 44549160, SampleUnit::Images, 0, cnn_training_gflop(kResnet101ForwardGmac)},
      {"inceptionv3", "Inception v3", 27161264, SampleUnit::Images, 0, cnn_training_gflop(kInceptionV3ForwardGmac)},
      {"alexnet", "AlexNet", 61100840, SampleUnit::Images, 0, cnn_training_gflop(kAlexnetForwardGmac)},
      {"bert-large", "BERT-large", 335141888, SampleUnit::Samples, 128, transformer_training_gflop(335141888, 24, 1024, 128)},
      {"gpt2-small", "GPT-2 small", 124439808, SampleUnit::Samples, 1024, transformer_training_gflop(124439808, 12, 768, 1024)},
      {"gpt2-large", "GPT-2 large", 774030080, SampleUnit::Samples, 1024, transformer_training_gflop(774030080, 36, 1280, 1024)},
      {"gpt2-xl", "GPT-2 XL", 1557611200, SampleUnit::Samples, 1024, transformer_training_gflop(1557611200, 48, 1600, 1024)},
  };
  return models;
}

enum ModelIndex { kVgg16 = 0, kResnet50 = 1, kAlexnet = 4 };

// The GPU generations with figures, by SM version.
constexpr int kGenerations = 3;
constexpr std::array<const char*, kGenerations> kGenerationName = {"V100", "A100", "H100"};

constexpr std::array<const char*, kGenerations> kAnchorGpu = {"v100", "a100", "h100"};

// The anchor generation a GPU is derived from: V100 for CUDA-core FP32 (before SM80), A100 for
// Ampere and Ada, H100 for Hopper and Blackwell.
int generation_of(int sm) {
  if (sm >= 90) return 2;
  if (sm >= 80) return 1;
  return 0;
}

// REFERENCE.md, "Single-GPU training throughput", images/sec.
constexpr double kV100TfVgg16 = 248, kV100TfResnet50 = 368;  // tf_cnn_benchmarks, b64, FP32
constexpr double kV100PtVgg16 = 205, kV100PtResnet50 = 330;  // PyTorch 1.6 Horovod synthetic, b64, FP32
constexpr double kA100TfVgg16 = 364, kA100TfResnet50 = 572;  // TensorFlow, large batch
constexpr double kA100PtResnet50 = 938;                      // PyTorch TF32, b256
constexpr double kH100PtResnet50 = 1800;                     // PyTorch TF32, large batch
constexpr int kV100ReferenceBatch = 64;
constexpr int kLargeBatch = 256;  // "large batch" read as 256, the A100 PyTorch figure's batch

struct Entry {
  double samples_per_sec = 0;  // 0: none
  int reference_batch = 0;
  bool derived = false;
  std::string derivation;
};

using AnchorTable = std::vector<std::array<std::array<Entry, 2>, kGenerations>>;  // [model][gen][fw]
using Table = std::vector<std::vector<std::array<Entry, 2>>>;                     // [model][gpu][fw]

constexpr int kTf = static_cast<int>(TrainingFramework::TensorFlow);
constexpr int kPt = static_cast<int>(TrainingFramework::PyTorch);

void set_anchors(AnchorTable& t) {
  const auto given = [](double v, int batch, const char* what) {
    return Entry{v, batch, false, std::string("given: REFERENCE.md ") + what};
  };
  const auto derived = [](double v, const char* how) { return Entry{v, kLargeBatch, true, std::string("derived: ") + how}; };
  t[kVgg16][0][kTf] = given(kV100TfVgg16, kV100ReferenceBatch, "V100 SXM2 TensorFlow tf_cnn_benchmarks b64 FP32");
  t[kResnet50][0][kTf] = given(kV100TfResnet50, kV100ReferenceBatch, "V100 SXM2 TensorFlow tf_cnn_benchmarks b64 FP32");
  t[kVgg16][0][kPt] = given(kV100PtVgg16, kV100ReferenceBatch, "V100 SXM2 PyTorch 1.6 Horovod synthetic b64 FP32");
  t[kResnet50][0][kPt] = given(kV100PtResnet50, kV100ReferenceBatch, "V100 SXM2 PyTorch 1.6 Horovod synthetic b64 FP32");
  t[kVgg16][1][kTf] = given(kA100TfVgg16, kLargeBatch, "A100 SXM4 TensorFlow large batch (taken as b256)");
  t[kResnet50][1][kTf] = given(kA100TfResnet50, kLargeBatch, "A100 SXM4 TensorFlow large batch (taken as b256)");
  t[kResnet50][1][kPt] = given(kA100PtResnet50, kLargeBatch, "A100 PyTorch TF32 b256");
  t[kResnet50][2][kPt] = given(kH100PtResnet50, kLargeBatch, "H100 SXM5 PyTorch TF32 large batch (taken as b256)");
  t[kVgg16][1][kPt] = derived(kA100PtResnet50 * kV100PtVgg16 / kV100PtResnet50,
                              "A100 PyTorch ResNet50 938 x V100 PyTorch VGG16/ResNet50 205/330");
  t[kVgg16][2][kPt] = derived(kH100PtResnet50 * kV100PtVgg16 / kV100PtResnet50,
                              "H100 PyTorch ResNet50 1800 x V100 PyTorch VGG16/ResNet50 205/330");
  t[kResnet50][2][kTf] = derived(kH100PtResnet50 * kA100TfResnet50 / kA100PtResnet50,
                                 "H100 PyTorch ResNet50 1800 x A100 TensorFlow/PyTorch ResNet50 572/938");
  t[kVgg16][2][kTf] = derived(kH100PtResnet50 * kA100TfResnet50 / kA100PtResnet50 * kA100TfVgg16 / kA100TfResnet50,
                              "H100 TensorFlow ResNet50 (1800 x 572/938) x A100 TensorFlow VGG16/ResNet50 364/572");
}

int anchor_of(int model) { return model == kAlexnet ? kVgg16 : kResnet50; }

std::string describe_flops_derivation(int model, int anchor, int gen, int fw, const Entry& base, int batch) {
  const auto& m = catalog();
  const std::string framework(enum_name(static_cast<TrainingFramework>(fw)));
  char text[320];
  std::snprintf(text, sizeof text,
                "derived: %s on %s %s (%.1f/s at b%d) x F(%s)/F(%s) = %.2f/%.2f GFLOP per sample; reference batch %d",
                m[anchor].name.c_str(), kGenerationName[gen], framework.c_str(), base.samples_per_sec, base.reference_batch,
                m[anchor].name.c_str(), m[model].name.c_str(), m[anchor].training_gflop_per_sample,
                m[model].training_gflop_per_sample, batch);
  return text;
}

void derive_by_flops(AnchorTable& t) {
  const auto& m = catalog();
  for (int model = 0; model < static_cast<int>(m.size()); ++model) {
    if (model == kVgg16 || model == kResnet50) continue;
    const int anchor = anchor_of(model);
    const double ratio = m[anchor].training_gflop_per_sample / m[model].training_gflop_per_sample;
    for (int gen = 0; gen < kGenerations; ++gen)
      for (int fw : {kTf, kPt}) {
        const Entry& base = t[anchor][gen][fw];
        const int batch = std::max(1, static_cast<int>(std::ceil(base.reference_batch * ratio - 1e-9)));
        t[model][gen][fw] =
            Entry{base.samples_per_sec * ratio, batch, true, describe_flops_derivation(model, anchor, gen, fw, base, batch)};
      }
  }
}

const AnchorTable& anchor_table() {
  static const AnchorTable t = [] {
    AnchorTable built(catalog().size());
    set_anchors(built);
    derive_by_flops(built);
    return built;
  }();
  return t;
}

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// Every catalog GPU's entries: the anchor's, times the GPU's speed ratio.
const Table& table() {
  static const Table t = [] {
    const AnchorTable& anchors = anchor_table();
    Table built(catalog().size());
    for (size_t model = 0; model < built.size(); ++model)
      for (int g = 0; const GpuModel* gpu = gpu_at(g); ++g) {
        std::array<Entry, 2> entries{};
        if (auto speed = gpu_speed(*gpu)) {
          const int gen = generation_of(gpu->sm);
          for (int fw : {kTf, kPt}) {
            const Entry& base = anchors[model][gen][fw];
            entries[fw] = gpu->name == kAnchorGpu[gen]
                              ? base
                              : Entry{base.samples_per_sec * speed->ratio, base.reference_batch, true,
                                      "derived: " + fixed(base.samples_per_sec, 1) + "/s on " + kAnchorGpu[gen] + " (" +
                                          base.derivation + ") x " + speed->derivation};
          }
        }
        built[model].push_back(entries);
      }
    return built;
  }();
  return t;
}

std::string covered_gpus() {
  std::string out;
  for (int g = 0; const GpuModel* gpu = gpu_at(g); ++g)
    if (gpu_speed(*gpu)) out += (out.empty() ? "" : ", ") + gpu->name;
  return out;
}

const GpuModel* catalog_gpu(const GpuModel& gpu) {
  if (gpu_at(gpu.catalog_index) != nullptr) return gpu_at(gpu.catalog_index);
  return find_gpu_model(gpu.name);
}

}  // namespace

std::optional<TrainingFramework> parse_training_framework(std::string_view name) {
  const std::string key = normalized_name(name);
  if (const auto framework = parse_enum<TrainingFramework>(key)) return framework;
  if (key == "tf") return TrainingFramework::TensorFlow;
  if (key == "torch") return TrainingFramework::PyTorch;
  return std::nullopt;
}

const std::vector<DnnModel>& model_catalog() { return catalog(); }

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& m : catalog()) names.push_back(m.name);
  return names;
}

Expected<int> find_model(std::string_view name) {
  const std::string key = normalized_name(name);
  const auto& m = catalog();
  for (int i = 0; i < static_cast<int>(m.size()); ++i)
    if (normalized_name(m[i].name) == key) return i;
  if (key == "gpt2") return find_model("gpt2-small");  // the released checkpoint's name
  return Error{"unknown model '" + std::string(name) +
               "'; known: " + join(m, ", ", [](const DnnModel& model) { return model.name; })};
}

const DnnModel* model_at(int index) {
  const auto& m = catalog();
  return index >= 0 && index < static_cast<int>(m.size()) ? &m[index] : nullptr;
}

Expected<GpuSpeed> gpu_speed(const GpuModel& gpu) {
  const GpuModel* anchor = find_gpu_model(kAnchorGpu[generation_of(gpu.sm)]);
  const double peak = gpu.default_precision_tflops(), anchor_peak = anchor->default_precision_tflops();
  if (!(peak > 0) || !(gpu.memory_gbps > 0))
    return Error{"no training-throughput figures for GPU '" + gpu.name + "': its catalog entry has no peak rate"};
  if (gpu.sm < 80)
    return GpuSpeed{anchor, peak / anchor_peak,
                    "FP32 peak " + fixed(peak, 2) + "/" + fixed(anchor_peak, 2) + " TFLOPS (CUDA cores, compute-bound)"};
  const double s = kTensorComputeShare;
  double ratio = 1.0 / (s * anchor_peak / peak + (1 - s) * anchor->memory_gbps / gpu.memory_gbps);
  std::string how = "roofline 1/(" + fixed(s, 3) + " x " + fixed(anchor_peak, 1) + "/" + fixed(peak, 1) + " TF32 TFLOPS + " +
                    fixed(1 - s, 3) + " x " + fixed(anchor->memory_gbps, 0) + "/" + fixed(gpu.memory_gbps, 0) + " GB/s)";
  if (gpu.sm >= 100) {
    ratio *= kBlackwellRealisedShare;
    how += " x Blackwell realised share " + fixed(kBlackwellRealisedShare, 2);
  }
  return GpuSpeed{anchor, ratio, how + " = " + fixed(ratio, 3)};
}

Expected<const GpuModel*> training_gpu(std::string_view gpu_name) {
  const GpuModel* gpu = find_gpu_model(gpu_name);
  if (gpu == nullptr)
    return Error{"unknown GPU '" + std::string(gpu_name) + "'" + did_you_mean(gpu_name, gpu_model_names()) +
                 " (known: " + join(gpu_model_names(), ", ") + ")"};
  if (auto speed = gpu_speed(*gpu); !speed) return speed.error();
  return gpu;
}

Expected<SingleGpuThroughput> single_gpu_throughput(int model, const GpuModel& gpu, TrainingFramework framework) {
  if (model_at(model) == nullptr) return Error{"model index " + std::to_string(model) + " is not in the model catalog"};
  const GpuModel* known = catalog_gpu(gpu);
  if (known == nullptr) return Error{"GPU '" + gpu.name + "' is not in the GPU catalog; covered: " + covered_gpus()};
  const Entry& e = table()[static_cast<size_t>(model)][static_cast<size_t>(known->catalog_index)][static_cast<int>(framework)];
  if (!(e.samples_per_sec > 0))
    return Error{"no training-throughput figures for " + model_at(model)->name + " on " + gpu.name + " (" +
                 sm_architecture(gpu.sm) + "); covered: " + covered_gpus()};
  return SingleGpuThroughput{e.samples_per_sec, e.reference_batch, e.derived, e.derivation};
}

double training_state_gib(int model) {
  const DnnModel* m = model_at(model);
  return m ? kStateBytesPerParameter * static_cast<double>(m->parameters) / (1024.0 * 1024 * 1024) : 0;
}

bool fits_gpu_memory(int model, const GpuModel& gpu) { return training_state_gib(model) <= gpu.memory_gib; }

Expected<double> compute_step_ms(int model, const GpuModel& gpu, TrainingFramework framework, int batch) {
  if (batch < 1) return Error{"batch per GPU must be at least 1, got " + std::to_string(batch)};
  auto single = single_gpu_throughput(model, gpu, framework);
  if (!single) return single.error();
  const double per_sample_ms = 1e3 / single->samples_per_sec;
  if (batch >= single->reference_batch) return batch * per_sample_ms;
  const double reference_step_ms = single->reference_batch * per_sample_ms;
  return reference_step_ms * (kFixedStepShare + (1.0 - kFixedStepShare) * batch / single->reference_batch);
}

}  // namespace topsim
