#include "core/llm_step.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/ring.h"
#include "util/number_format.h"

namespace topsim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kActivationBytes = 2;  // BF16 activations and their gradients on the wire
constexpr double kGradientBytes = 4;    // FP32 main gradients (reduce-scattered in FP32)
constexpr double kParameterBytes = 2;   // BF16 parameters (all-gathered)
constexpr double kAdamBytesPerParameter = 30;

std::string itos(long long v) { return std::to_string(v); }

// Time of an all-reduce of `bytes` on `path`, ms; 0 for fewer than 2 ranks.
double allreduce_ms(double bytes, const CommPath& path) {
  if (path.ranks < 2 || bytes <= 0) return 0;
  return path_allreduce_time(bytes, path).time_us / 1e3;
}
// `path` as NCCL's ring runs it. NVLS and NVLSTree are all-reduce algorithms: NCCL runs
// reduce-scatter and all-gather on the ring (or PAT) across its nodes (an NVLS one is costed at
// zero bandwidth there, src/graph/tuning.cc ncclTopoTuneModel, unless a CollNet plugin serves it)
// and inside one NVLink domain an NVLS one moves (n-1)/n of the bytes through each GPU's link at
// nvlsEfficiency of it (0.85 x 370.8 = 315 GB/s on H100, 0.74 x 721.8 = 534 on B200), below the
// ring's 370.8 and 721.8; sends and all-to-all are point-to-point.
CommPath ring_of(CommPath path) {
  path.bus_bandwidth_gbps = path.algos().ring_bus_gbps;
  path.algorithm = NcclAlgorithm::Ring;
  path.nvls_bus_gbps = 0;
  path.tree_bus_gbps = 0;
  path.nvls_tuner_bus_gbps = path.tree_tuner_bus_gbps = -1;
  return path;
}
// A ring reduce-scatter or all-gather runs half of a ring all-reduce's steps (n-1 of 2(n-1)).
double half_allreduce_ms(double bytes, const CommPath& path) { return allreduce_ms(bytes, ring_of(path)) / 2; }
// A 2-rank all-reduce moves `bytes` once each way: the time of a point-to-point send.
double send_ms(double bytes, const CommPath& path) { return allreduce_ms(bytes, ring_of(path)); }
// All-to-all: (n-1)/n of `bytes` leave each GPU at the path's per-GPU rate, with a ring's latency.
double all_to_all_ms(double bytes, const CommPath& path) { return half_allreduce_ms(bytes, path); }

struct Work {
  double gemm = 0, attention = 0;  // FLOPs
  double memory_bytes = 0;         // element-wise traffic (memory-bound kernels)
  double score_bytes = 0;          // of it, an unfused attention core's score tensors
};

// Bytes per token of one layer's activations as Korthikanti et al. count them (Table 2,
// generalised to the FFN width as llm_memory_per_gpu does), per GPU.
double layer_activation_bytes_per_token(const LlmModel& model, const ParallelConfig& c) {
  const double f = static_cast<double>(model.ffn_hidden) * model.top_k / model.hidden;
  const double h = model.hidden;
  return c.sequence_parallel ? h * (18 + 4 * f) / c.tp : h * (10 + (8 + 4 * f) / c.tp);
}

// Bytes per token of one layer's attention score tensors an unfused core keeps in memory, per GPU:
// 5 a s (Korthikanti Table 2's 5 a s^2 b over the s b tokens: the softmax output and the dropout
// output in BF16, the dropout mask in bytes), the heads split over TP; 0 when fused.
double layer_score_bytes_per_token(const LlmModel& model, const ParallelConfig& c) {
  if (c.attention == LlmAttention::Fused) return 0;
  return 5.0 * model.heads / c.tp * c.seq(model);
}

// Per-GPU FLOPs of one micro-batch's forward through one stage of `layers` layers.
// Layers of the most loaded stage: chunks of ceil(L / (PP x VPP)) layers (Megatron splits layers
// unevenly when PP x VPP does not divide them, e.g. Llama 3.1 405B's 126 layers over 16 stages).
double stage_layers_of(const LlmModel& model, const ParallelConfig& c) {
  const int chunks = c.pp * c.vpp;
  return static_cast<double>((model.layers + chunks - 1) / chunks) * c.vpp;
}

Work forward_work(const LlmModel& model, const ParallelConfig& c, double layers, bool last_stage) {
  const int seq = c.seq(model);
  const double tokens = static_cast<double>(c.micro_batch) * seq / c.cp;
  Work w;
  w.gemm = layers * tokens * model.layer_gemm_flops_per_token() / c.tp;
  w.attention = layers * tokens * model.layer_attention_flops_per_token(seq) / c.tp;
  // The element-wise kernels between the GEMMs (norms, activation functions, dropout, residual
  // adds, rotary embeddings, casts) are memory-bound: each activation tensor is written once and
  // read once, 2 x its bytes; the logits are FP32, written and read by the softmax and loss.
  w.memory_bytes = layers * tokens * 2 * layer_activation_bytes_per_token(model, c);
  w.score_bytes = layers * tokens * 2 * layer_score_bytes_per_token(model, c);
  w.memory_bytes += w.score_bytes;
  if (last_stage) {
    w.gemm += tokens * model.logit_flops_per_token() / c.tp;
    w.memory_bytes += tokens * 2 * 4.0 * model.vocab / c.tp;
  }
  return w;
}

// Tensor-core work at the achievable share of the peak, plus the memory-bound work at the memory
// bandwidth (a roofline: the element-wise kernels do not overlap the GEMMs).
double compute_ms(const Work& w, double gemm_tflops, double bf16_tflops, double efficiency, double memory_gbps) {
  const double tensor_ms = (w.gemm / gemm_tflops + w.attention / bf16_tflops) / (efficiency * 1e12) * 1e3;
  return tensor_ms + (memory_gbps > 0 ? w.memory_bytes / (memory_gbps * 1e9) * 1e3 : 0);
}

// Parameters one GPU holds: the first stage's layers and embedding (the last stage's output
// layer instead when it is larger), experts divided over EP, everything over TP.
double parameters_per_gpu(const LlmModel& model, const ParallelConfig& c) {
  const double stage_layers = stage_layers_of(model, c);
  double layer = model.layer_parameters(false);
  if (model.moe()) {
    const double expert = (model.layer_parameters(false) - model.layer_parameters(true)) / (model.experts - model.top_k);
    layer += expert * model.experts * (1.0 / c.ep - 1.0);
  }
  const double ends = c.pp == 1 ? model.embedding_parameters() + model.output_parameters()
                                : std::max(model.embedding_parameters(), model.output_parameters());
  return (stage_layers * layer + ends) / c.tp;
}

double state_bytes_per_parameter(int zero, double d) {
  switch (zero) {
    case 0: return 18;
    case 1: return 6 + 12 / d;
    case 2: return 2 + 16 / d;
    default: return 18 / d;
  }
}

// Whether `gpu` has tensor cores of the configuration's precision: FP8 (Ada, Hopper or later),
// BF16 (Ampere, SM80, or later).
bool has_precision(const ParallelConfig& c, const GpuModel& gpu) {
  if (c.precision == LlmPrecision::Fp8) return gpu.fp8_tflops > 0;
  return gpu.sm >= 80 && gpu.fp16_tflops > 0;
}

// Whether the configuration's memory per GPU (llm_memory_per_gpu) fits `gpu`'s.
bool fits_memory(const LlmModel& model, const ParallelConfig& c, const GpuModel& gpu) {
  return llm_memory_per_gpu(model, c).total_gib() <= gpu.memory_gib;
}

}  // namespace

double llm_compute_efficiency(const GpuModel& gpu, LlmPrecision precision) {
  const bool fp8 = precision == LlmPrecision::Fp8;
  if (gpu.sm >= 100) return fp8 ? kLlmEfficiencyBlackwellFp8 : kLlmEfficiencyBlackwellBf16;
  if (gpu.sm >= 90) return fp8 ? kLlmEfficiencyHopperFp8 : kLlmEfficiencyHopperBf16;
  return fp8 ? kLlmEfficiencyHopperFp8 : kLlmEfficiencyAmpereBf16;
}

ParallelConfig default_layout(const LlmModel& model, int gpus, int tp, int pp) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  c.dp = std::max(1, gpus / (tp * pp));
  c.sequence_parallel = tp > 1;
  constexpr double kTokensPerStep = 4.0 * 1024 * 1024;
  const int sequences = static_cast<int>(std::ceil(kTokensPerStep / model.default_sequence));
  c.global_batch = (sequences + c.dp - 1) / c.dp * c.dp;
  return c;
}

ParallelConfig default_parallel(const LlmModel& model, int gpus, const GpuModel* fit_on) {
  const auto layout = [&](int tp, int pp) { return default_layout(model, gpus, tp, pp); };
  // TP the largest of 8, 4, 2, 1 dividing `m` and the (KV) heads.
  const auto tensor_parallel = [&](int m) {
    for (int t : {8, 4, 2})
      if (m % t == 0 && model.heads % t == 0 && model.kv_heads % t == 0) return t;
    return 1;
  };
  if (!fit_on) return layout(tensor_parallel(gpus), 1);
  ParallelConfig least = layout(1, 1);  // the largest model-parallel size tried: the least memory
  for (int m = 1; m <= gpus; ++m) {
    if (gpus % m != 0) continue;
    const int tp = tensor_parallel(m);
    if (m / tp > model.layers) continue;
    const ParallelConfig c = layout(tp, m / tp);
    // validate_parallel's precision and memory checks (the shape is valid by construction),
    // without its messages: a job's layout is asked for at every scheduling pass.
    if (has_precision(c, *fit_on) && fits_memory(model, c, *fit_on)) return c;
    least = c;
  }
  return least;
}

bool default_parallel_too_large(const LlmModel& model, int gpus, const GpuModel& gpu) {
  const ParallelConfig c = default_parallel(model, gpus, &gpu);
  return has_precision(c, gpu) && !fits_memory(model, c, gpu);
}

LlmMemory llm_memory_per_gpu(const LlmModel& model, const ParallelConfig& c) {
  LlmMemory m;
  const double d = static_cast<double>(c.dp) * c.cp;
  m.parameters_gib = parameters_per_gpu(model, c) * state_bytes_per_parameter(c.zero, d) / kGiB;
  const double sbh = static_cast<double>(c.seq(model)) / c.cp * c.micro_batch * model.hidden;
  const double ffn_ratio = static_cast<double>(model.ffn_hidden) * model.top_k / model.hidden;
  // Under FP8 the linear layers keep their inputs for the backward pass as FP8 (Transformer
  // Engine caches the cast): the QKV, projection and two MLP inputs, (6 + 2 ffn/h) s b h bytes in
  // BF16, take half.
  const double fp8_saving = c.precision == LlmPrecision::Fp8 ? 3 + ffn_ratio : 0;
  double per_layer = 0;
  if (c.recompute == Recompute::Full)
    per_layer = 2 * sbh / (c.sequence_parallel ? c.tp : 1);
  else if (c.sequence_parallel)
    per_layer = sbh * (18 + 4 * ffn_ratio - fp8_saving) / c.tp;
  else
    per_layer = sbh * (10 + (8 + 4 * ffn_ratio - fp8_saving) / c.tp);
  // Selective recomputation reruns the attention core and keeps none of its scores.
  if (c.recompute == Recompute::None)
    per_layer += static_cast<double>(c.seq(model)) / c.cp * c.micro_batch * layer_score_bytes_per_token(model, c);
  const int m_count = c.microbatches();
  double layers_held = (stage_layers_of(model, c) - c.offload_layers) * std::min(m_count, c.pp);
  if (c.vpp > 1) layers_held *= 1 + static_cast<double>(c.pp - 1) / (c.pp * c.vpp);
  double activations = per_layer * layers_held;
  if (c.pp == 1) activations += 4 * sbh * (1 + static_cast<double>(model.vocab) / model.hidden) / c.tp;
  m.activations_gib = activations / kGiB;
  m.activation_layer_bytes = per_layer;
  return m;
}

double llm_offload_host_gib(const LlmModel& model, const ParallelConfig& c, int gpus_on_node) {
  if (c.offload_layers <= 0) return 0;
  return c.offload_layers * llm_memory_per_gpu(model, c).activation_layer_bytes * gpus_on_node / kGiB;
}

Status validate_host_memory(const LlmModel& model, const ParallelConfig& c, const NodeModel& node) {
  if (c.offload_layers <= 0 || !(node.host_memory_gib > 0)) return Status::success();
  const int gpus = llm_gpus_on_node(c, static_cast<int>(node.gpus.size()));
  const double need = llm_offload_host_gib(model, c, gpus);
  if (need <= node.host_memory_gib) return Status::success();
  return Error{"host memory: offload_layers " + std::to_string(c.offload_layers) + " keeps " + format_number(need / gpus) +
               " GiB of " + model.name + "'s activations per GPU in host memory, " + format_number(need) + " GiB for " +
               std::to_string(gpus) + " GPUs on a node of " + node.name + ", which has " + format_number(node.host_memory_gib) +
               " GiB; offload fewer layers"};
}

Status validate_parallel_shape(const LlmModel& model, const ParallelConfig& c, int gpus) {
  const std::pair<const char*, int> sizes[] = {
      {"tp", c.tp}, {"pp", c.pp}, {"dp", c.dp}, {"cp", c.cp}, {"ep", c.ep}, {"vpp", c.vpp}, {"micro_batch", c.micro_batch}};
  for (const auto& [field, value] : sizes)
    if (value < 1) return Error{std::string(field) + " must be at least 1, got " + itos(value)};
  if (c.sequence < 0) return Error{"sequence must be positive, got " + itos(c.sequence)};
  if (c.global_batch < 0) return Error{"global_batch must be positive, got " + itos(c.global_batch)};
  if (c.zero < 0 || c.zero > 3) return Error{"zero must be 0, 1, 2 or 3, got " + itos(c.zero)};
  const std::string of = " of " + model.name;
  // Megatron-LM splits both the attention heads and the KV heads (query groups) over the
  // tensor-parallel ranks and refuses a tp that does not divide either.
  if (model.heads % c.tp != 0)
    return Error{"tp " + itos(c.tp) + " does not divide the " + itos(model.heads) + " attention heads" + of};
  if (model.kv_heads % c.tp != 0)
    return Error{"tp " + itos(c.tp) + " does not divide the " + itos(model.kv_heads) + " KV heads" + of +
                 " (Megatron-LM splits them over the tensor-parallel ranks)"};
  if (c.pp * c.vpp > model.layers)
    return Error{"pp x vpp = " + itos(c.pp * c.vpp) + " is more than the " + itos(model.layers) + " layers" + of};
  if (c.seq(model) % c.cp != 0)
    return Error{"cp " + itos(c.cp) + " does not divide the sequence of " + itos(c.seq(model)) + " tokens"};
  // Megatron-Core's own attention refuses context parallelism ("only supported by
  // TEDotProductAttention", megatron/core/transformer/dot_product_attention.py): ring attention
  // runs inside Transformer Engine's fused kernels.
  if (c.cp > 1 && c.attention == LlmAttention::Unfused)
    return Error{"cp " + itos(c.cp) + " needs fused attention (Megatron-Core runs context parallelism only in Transformer " +
                 "Engine's fused attention)"};
  if (!model.moe() && c.ep != 1)
    return Error{"ep " + itos(c.ep) + " needs a mixture-of-experts model; " + model.name + " is dense"};
  if (model.experts % c.ep != 0 || (c.dp * c.cp) % c.ep != 0)
    return Error{"ep " + itos(c.ep) + " must divide the " + itos(model.experts) + " experts" + of +
                 " and dp x cp = " + itos(c.dp * c.cp)};
  const long long product = 1LL * c.tp * c.pp * c.dp * c.cp;
  if (gpus > 0 && product != gpus)
    return Error{"tp x pp x dp x cp = " + itos(c.tp) + " x " + itos(c.pp) + " x " + itos(c.dp) + " x " + itos(c.cp) + " = " +
                 itos(product) + ", but the job has " + itos(gpus) + " GPUs"};
  if (c.batch() % (c.micro_batch * c.dp) != 0)
    return Error{"global_batch " + itos(c.batch()) + " is not a multiple of micro_batch x dp = " + itos(c.micro_batch * c.dp)};
  if (c.vpp > 1 && c.pp == 1) return Error{"vpp " + itos(c.vpp) + " needs pipeline parallelism (pp > 1)"};
  if (c.offload_layers < 0 || c.offload_layers >= model.layers)
    return Error{"offload_layers " + itos(c.offload_layers) + " must be from 0 to " + itos(model.layers - 1) +
                 " (fewer than the " + itos(model.layers) + " layers" + of + ")"};
  // Megatron-Core refuses CPU offloading with pipeline parallelism and with any recomputation
  // (megatron/core/transformer/transformer_config.py, __post_init__).
  if (c.offload_layers > 0 && c.pp > 1)
    return Error{"offload_layers " + itos(c.offload_layers) + " needs pp 1 (Megatron-Core offloads no pipelined model)"};
  if (c.offload_layers > 0 && c.recompute != Recompute::None)
    return Error{"offload_layers " + itos(c.offload_layers) +
                 " needs recompute none (Megatron-Core offloads no recomputed layer)"};
  if (c.vpp > 1 && c.microbatches() % c.pp != 0)
    return Error{"vpp " + itos(c.vpp) + ": the interleaved schedule needs micro-batches per step (" + itos(c.microbatches()) +
                 ") to be a multiple of pp " + itos(c.pp)};
  return Status::success();
}

Status validate_parallel_precision(const LlmModel& model, const ParallelConfig& c, const GpuModel& gpu, int gpus) {
  if (Status shape = validate_parallel_shape(model, c, gpus); !shape) return shape;
  if (!has_precision(c, gpu))
    return Error{c.precision == LlmPrecision::Fp8
                     ? "precision fp8 needs FP8 tensor cores (Ada, Hopper or later); " + gpu.name + " has none"
                     : "precision bf16 needs BF16 tensor cores (Ampere or later); " + gpu.name + " has none"};
  return Status::success();
}

std::optional<MemoryShortfall> memory_shortfall(const LlmModel& model, const ParallelConfig& c, const GpuModel& gpu) {
  const LlmMemory memory = llm_memory_per_gpu(model, c);
  if (memory.total_gib() <= gpu.memory_gib) return std::nullopt;
  // What would lower it from this configuration: recomputation only when not already full,
  // ZeRO below stage 3, offloading only where Megatron-Core allows it (pp 1, no recomputation).
  std::vector<std::string> ways{c.zero < 3 ? "raise tp, pp or zero" : "raise tp or pp"};
  if (c.recompute != Recompute::Full) ways.push_back(c.recompute == Recompute::None ? "recompute" : "recompute full");
  if (c.pp == 1 && c.recompute == Recompute::None) ways.push_back("offload layers to host memory");
  std::string advice = ways.front();
  for (size_t i = 1; i < ways.size(); ++i) advice += (i + 1 == ways.size() ? ", or " : ", ") + ways[i];
  return MemoryShortfall{memory.total_gib(),
                         format_number(memory.total_gib()) + " GiB per GPU (" + format_number(memory.parameters_gib) +
                             " parameters and optimizer state, " + format_number(memory.activations_gib) + " activations), " +
                             gpu.name + " has " + format_number(gpu.memory_gib),
                         advice};
}

Status validate_parallel(const LlmModel& model, const ParallelConfig& c, const GpuModel& gpu, int gpus) {
  if (Status valid = validate_parallel_precision(model, c, gpu, gpus); !valid) return valid;
  if (const auto shortfall = memory_shortfall(model, c, gpu))
    return Error{"memory: " + model.name + " needs " + shortfall->figures + "; " + shortfall->advice};
  return Status::success();
}

Expected<LlmStep> llm_step(const LlmModel& model, const ParallelConfig& c, const GpuModel& gpu, const LlmLinks& links) {
  return llm_step(model, c, gpu, links, llm_compute_efficiency(gpu, c.precision));
}

Expected<LlmStep> llm_step(const LlmModel& model, const ParallelConfig& c, const GpuModel& gpu, const LlmLinks& links,
                           double efficiency) {
  for (const CommPath* path : {&links.tp, &links.cp, &links.dp, &links.ep, &links.pp})
    if (path->ranks > 1 && !(path->bus_bandwidth_gbps > 0))
      return Error{"a parallel group of " + itos(path->ranks) + " ranks has no bandwidth between its GPUs"};
  LlmStep s;
  s.memory = llm_memory_per_gpu(model, c);
  const double gemm_peak = c.precision == LlmPrecision::Fp8 ? gpu.fp8_tflops : gpu.fp16_tflops;
  const double stage_layers = stage_layers_of(model, c);
  const int seq = c.seq(model);
  const double tokens = static_cast<double>(c.micro_batch) * seq / c.cp;
  const int m = c.microbatches();

  // One micro-batch through the (last, slowest) stage.
  const Work fwd = forward_work(model, c, stage_layers, true);
  const Work layers_only = forward_work(model, c, stage_layers, false);
  const double fwd_compute = compute_ms(fwd, gemm_peak, gpu.fp16_tflops, efficiency, gpu.memory_gbps);
  double recompute = 0;
  if (c.recompute == Recompute::Full)
    recompute = compute_ms(layers_only, gemm_peak, gpu.fp16_tflops, efficiency, gpu.memory_gbps);
  if (c.recompute == Recompute::Selective)
    recompute = compute_ms({0, layers_only.attention, layers_only.score_bytes, 0}, gemm_peak, gpu.fp16_tflops, efficiency,
                           gpu.memory_gbps);
  const double bwd_compute = 2 * fwd_compute + recompute;

  // With tp_overlap each collective is split into chunks pipelined with the GEMM it feeds or
  // follows (Megatron-Core --tp-comm-overlap, Transformer Engine userbuffers): only what outlasts
  // the layer's GEMMs is exposed.
  const double tp_one = allreduce_ms(tokens * model.hidden * kActivationBytes, links.tp);
  const double layer_gemm_fwd =
      compute_ms({layers_only.gemm / stage_layers, 0, 0, 0}, gemm_peak, gpu.fp16_tflops, efficiency, gpu.memory_gbps);
  const double tp_layer_fwd = c.tp_overlap ? std::max(0.0, 2 * tp_one - layer_gemm_fwd) : 2 * tp_one;
  const double tp_layer_bwd = c.tp_overlap ? std::max(0.0, 2 * tp_one - 2 * layer_gemm_fwd) : 2 * tp_one;
  const double tp_fwd = stage_layers * tp_layer_fwd;
  const double tp_bwd = stage_layers * (tp_layer_bwd + (c.recompute == Recompute::Full ? tp_layer_fwd : 0));

  double ep_fwd = 0;
  if (model.moe() && c.ep > 1) {
    const double bytes = tokens * model.top_k * model.hidden * kActivationBytes / (c.sequence_parallel ? c.tp : 1);
    ep_fwd = stage_layers * 2 * all_to_all_ms(bytes, links.ep);
  }

  double cp_fwd = 0, cp_bwd = 0;
  if (c.cp > 1) {
    const double kv = 2 * tokens * model.kv_heads * model.head_dim() * kActivationBytes / c.tp;
    const double exchange = (c.cp - 1) * send_ms(kv, links.cp);
    const double attention =
        compute_ms({0, layers_only.attention / stage_layers, 0, 0}, gemm_peak, gpu.fp16_tflops, efficiency, gpu.memory_gbps);
    cp_fwd = stage_layers * std::max(0.0, exchange - attention);
    cp_bwd = stage_layers * std::max(0.0, 2 * exchange - 2 * attention);
  }

  // Offloaded activations (Transformer Engine's CPU offload, which Megatron-Core's
  // cpu_offloading_num_layers drives: transformer_engine/pytorch/cpu_offload.py, a double-buffered
  // handler): a layer's saved tensors are copied to host memory on a side stream while the next
  // layer's forward runs, and copied back while the layer after it runs its backward. Each copy
  // that outlasts the layer it overlaps delays the pass by the difference.
  double offload_fwd = 0, offload_bwd = 0;
  if (c.offload_layers > 0) {
    const double copy = s.memory.activation_layer_bytes / (host_copy_gbps(gpu) * 1e9) * 1e3;
    const double layer_fwd = compute_ms(layers_only, gemm_peak, gpu.fp16_tflops, efficiency, gpu.memory_gbps) / stage_layers;
    offload_fwd = c.offload_layers * std::max(0.0, copy - layer_fwd);
    offload_bwd = c.offload_layers * std::max(0.0, copy - 2 * layer_fwd);
  }

  const double t_f = fwd_compute + tp_fwd + ep_fwd + cp_fwd + offload_fwd;
  const double t_b = bwd_compute + tp_bwd + ep_fwd + cp_bwd + offload_bwd;
  const double slot = t_f + t_b;
  s.compute_ms = m * (fwd_compute + bwd_compute);
  s.tp_ms = m * (tp_fwd + tp_bwd);
  s.ep_ms = m * 2 * ep_fwd;
  s.cp_ms = m * (cp_fwd + cp_bwd);
  s.offload_ms = m * (offload_fwd + offload_bwd);
  s.pp_bubble_ms = static_cast<double>(c.pp - 1) / c.vpp * slot;
  if (c.pp > 1) {
    // Fill and drain: the first micro-batch's activations cross p - 1 boundaries before the last
    // stage starts, its gradient p - 1 back. In the steady state each chunk sends forward and back;
    // the interleaved schedule overlaps those sends with the next chunk's compute (Megatron-Core
    // overlap_p2p_comm, on with virtual stages), so only what outlasts a chunk's forward is exposed.
    const double send = send_ms(tokens * model.hidden * kActivationBytes / c.tp, links.pp);
    const double chunk_forward = t_f / c.vpp;
    const double steady = c.vpp > 1 ? std::max(0.0, send - chunk_forward) : send;
    s.pp_p2p_ms = 2.0 * (c.pp - 1) * send + 2.0 * m * c.vpp * steady;
  }

  const double params = parameters_per_gpu(model, c);
  if (c.zero == 0) {
    s.dp_comm_ms = allreduce_ms(params * kGradientBytes, links.dp);
    s.dp_exposed_ms = c.overlap_dp ? std::max(0.0, s.dp_comm_ms - t_b) : s.dp_comm_ms;
  } else {
    const double rs = half_allreduce_ms(params * kGradientBytes, links.dp);
    const double ag = half_allreduce_ms(params * kParameterBytes, links.dp);
    s.dp_comm_ms = rs + ag;
    s.dp_exposed_ms = c.overlap_dp ? std::max(0.0, rs - t_b) + std::max(0.0, ag - t_f) : rs + ag;
    if (c.zero == 3) {
      s.dp_comm_ms += 2.0 * m * ag;
      s.dp_exposed_ms += m * (std::max(0.0, ag - t_f) + std::max(0.0, ag - t_b));
    }
  }

  // Adam's step is memory-bound: per parameter of its shard it reads the FP32 parameter, gradient
  // and two moments and writes them back with the BF16 copy (16 + 14 bytes).
  const double shard = c.zero == 0 ? params : params / (static_cast<double>(c.dp) * c.cp);
  s.optimizer_ms = gpu.memory_gbps > 0 ? shard * kAdamBytesPerParameter / (gpu.memory_gbps * 1e9) * 1e3 : 0;

  s.step_ms = m * slot + s.pp_bubble_ms + s.pp_p2p_ms + s.dp_exposed_ms + s.optimizer_ms;
  const double step_tokens = static_cast<double>(c.batch()) * seq;
  s.tokens_per_sec = step_tokens / (s.step_ms / 1e3);
  s.tokens_per_sec_per_gpu = s.tokens_per_sec / c.gpus();
  s.micro_batch = c.micro_batch;
  s.tp = c.tp;
  s.pp = c.pp;
  s.model_tflops_per_gpu = s.tokens_per_sec_per_gpu * model.training_flops_per_token(seq) / 1e12;
  s.mfu = s.model_tflops_per_gpu / gpu.fp16_tflops;
  return s;
}

}  // namespace topsim
