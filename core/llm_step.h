// Step time of a large-language-model training job under 3D (tensor, pipeline, data) parallelism,
// with context and expert parallelism, from the mechanism: each piece of work and each collective
// timed on the links the job's placement gives its parallel groups (core/llm_links.h).
//
// Per micro-batch and pipeline stage (L/PP layers; tokens t = micro_batch x sequence / CP):
// - Compute: the layers' FLOPs (core/llm_catalog.h; backward = 2 x forward) at the GPU's dense
//   peak x kLlmComputeEfficiency: weight GEMMs at the precision's peak (FP8 when the job trains in
//   FP8), the attention core at the BF16 peak (FP8 recipes keep attention in BF16: Transformer
//   Engine's fp8_autocast covers Linear layers). Recomputation adds a forward pass: full, all of
//   it; selective, the attention core (Korthikanti et al., MLSys'23, section 4.2). The last stage
//   adds the output layer's logits.
// - Tensor parallelism: per layer 2 all-reduces of t x h BF16 activations forward and 2 backward
//   (Narayanan et al., SC'21, section 3.2), 2 more forward under full recomputation; with sequence
//   parallelism each is a reduce-scatter plus an all-gather, the same bytes and the same time on a
//   ring (Korthikanti section 4.2.2). Timed by allreduce_time on the slowest TP group's path. With
//   tp_overlap (Megatron-Core --tp-comm-overlap) only what outlasts the layer's GEMMs is exposed.
// - Pipeline: the 1F1B schedule runs m micro-batches through p stages; the bubble is (p-1)/v
//   micro-batch slots of forward + backward (Narayanan section 2.2: (p-1)/m of the ideal time,
//   divided by v virtual stages when interleaved). Each chunk sends t x h / TP BF16 activations
//   forward and their gradient back (Megatron's scatter/gather) on the slowest stage-to-stage link:
//   2 (p-1) sends fill and drain the pipeline, 2 m v in the steady state, which the interleaved
//   schedule overlaps with compute (only what outlasts a chunk's forward is exposed).
// - Data parallelism over DP x CP ranks: gradients reduce-scattered in FP32 (Megatron's
//   accumulate-allreduce-grads-in-fp32 under BF16) and BF16 parameters all-gathered for the
//   distributed optimizer (ZeRO 1/2), or one FP32 all-reduce (ZeRO 0), on the slowest DP group's
//   path. With overlap (Megatron's --overlap-grad-reduce / --overlap-param-gather) the
//   reduce-scatter hides behind the last micro-batch's backward and the all-gather behind the first
//   micro-batch's forward, as far as they last; without it both are exposed. ZeRO-3 / FSDP also
//   all-gathers the parameters before every micro-batch's forward and backward (Rajbhandari et al.,
//   SC'20, section 5.3: 1.5x the communication volume), each hidden behind that pass.
// - Expert parallelism (MoE): per MoE layer a dispatch and a combine all-to-all of t x top_k x h
//   BF16 forward, the same backward; (EP-1)/EP of the bytes leave each GPU at the EP group's
//   per-GPU rate (its ring bus bandwidth: on NVSwitch the GPU's NVLink rate, across nodes its NIC).
// - Context parallelism: ring attention passes the K/V blocks (2 x t x kv_heads x head_dim BF16)
//   CP-1 times per layer forward and twice that backward, overlapped with the attention core; only
//   what outlasts it is exposed.
// - Element-wise kernels (norms, activation functions, residuals, casts) are memory-bound: each
//   activation tensor (Korthikanti's per-layer count) written and read once, FP32 logits written
//   and read by the loss, at the GPU's memory bandwidth, added to the tensor-core time. An unfused
//   attention core (Megatron before FlashAttention) also materialises the score tensors, 5 a s^2 b
//   bytes per layer (Korthikanti Table 2: softmax output, dropout mask and output), written and read
//   forward, again when selective recomputation reruns the core, and held for the backward pass
//   when nothing is recomputed; a fused one (FlashAttention, cuDNN / Transformer Engine fused
//   attention) keeps them on chip.
// - The optimizer: Adam reads and writes 30 bytes per parameter of the GPU's shard (FP32 parameter,
//   gradient, two moments; the BF16 copy), at the memory bandwidth.
// Step = pipeline (m + (p-1)/v slots, each forward + backward of one micro-batch) + PP sends + DP
// exposed + optimizer. Not modelled: the embedding gradients' all-reduce between the first and
// last stage, stragglers, GEMM efficiency varying with the matrix sizes (docs/llm-training.md
// shows the residual it leaves).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/hardware.h"
#include "core/llm_catalog.h"
#include "core/node_model.h"
#include "core/throughput.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

enum class Recompute : uint8_t { None, Selective, Full };
template <>
struct EnumNames<Recompute> {
  static constexpr std::array<EnumName<Recompute>, 3> table{
      {{Recompute::None, "none"}, {Recompute::Selective, "selective"}, {Recompute::Full, "full"}}};
};

enum class LlmPrecision : uint8_t { Bf16, Fp8 };
template <>
struct EnumNames<LlmPrecision> {
  static constexpr std::array<EnumName<LlmPrecision>, 2> table{{{LlmPrecision::Bf16, "bf16"}, {LlmPrecision::Fp8, "fp8"}}};
};

// The attention core's kernels: fused (FlashAttention, Megatron-Core's default through Transformer
// Engine) or unfused (Megatron-LM before FlashAttention: QK^T, a fused scale-mask-softmax, dropout
// and AV as separate kernels, the s x s scores in memory; Narayanan et al. 2021, Korthikanti et
// al. 2022).
enum class LlmAttention : uint8_t { Fused, Unfused };
template <>
struct EnumNames<LlmAttention> {
  static constexpr std::array<EnumName<LlmAttention>, 2> table{
      {{LlmAttention::Fused, "fused"}, {LlmAttention::Unfused, "unfused"}}};
};

struct ParallelConfig {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  int vpp = 1;           // virtual pipeline stages per GPU (interleaved 1F1B)
  int sequence = 0;      // tokens per sequence (0: the model's default)
  int global_batch = 0;  // sequences per step (0: one micro-batch per DP rank, m = 1)
  int micro_batch = 1;   // sequences per micro-batch
  Recompute recompute = Recompute::Selective;
  bool sequence_parallel = false;  // Megatron --sequence-parallel (off by default there too)
  int zero = 1;                    // 0: replicated optimizer, 1/2: distributed optimizer (+ gradients), 3: parameters too
  LlmPrecision precision = LlmPrecision::Bf16;
  bool overlap_dp = true;   // overlap gradient reduce-scatter / parameter all-gather with compute
  bool tp_overlap = false;  // overlap TP collectives with the GEMMs (Megatron-Core --tp-comm-overlap)
  LlmAttention attention = LlmAttention::Fused;
  // Layers whose activations are kept in host memory between the forward and backward pass
  // (Megatron-Core cpu_offloading_num_layers, Transformer Engine's CPU offload): 0 none.
  int offload_layers = 0;

  int gpus() const { return tp * pp * dp * cp; }
  int seq(const LlmModel& model) const { return sequence > 0 ? sequence : model.default_sequence; }
  int batch() const { return global_batch > 0 ? global_batch : micro_batch * dp; }
  int microbatches() const { return batch() / (micro_batch * dp); }
  friend bool operator==(const ParallelConfig&, const ParallelConfig&) = default;
};

// Checks the configuration against the model and GPU: sizes at least 1 and multiplying to
// `gpus` (when > 0), TP dividing the heads and KV heads, PP x VPP at most the layers (stages
// may hold unequal layers), CP dividing the sequence, EP dividing the experts and DP x CP (experts of a dense model: EP 1),
// global batch a multiple of micro-batch x DP, VPP > 1 needs PP > 1 and m a multiple of PP (Narayanan 2.2), offloaded
// layers fewer than the layers, with PP 1 and no recomputation (Megatron-Core's TransformerConfig checks), FP8 only on GPUs with
// FP8 tensor cores, BF16 on SM80 or later, and the memory per GPU within the GPU's. Errors name the field: "tp 3 does not divide
// the 32 attention heads of llama3-8b".
Status validate_parallel(const LlmModel& model, const ParallelConfig& config, const GpuModel& gpu, int gpus = 0);
// The checks that need no GPU (everything but precision and memory).
Status validate_parallel_shape(const LlmModel& model, const ParallelConfig& config, int gpus = 0);
// validate_parallel's checks but memory: the shape and the GPU's precision.
Status validate_parallel_precision(const LlmModel& model, const ParallelConfig& config, const GpuModel& gpu, int gpus = 0);
// How far `config` is over the GPU's memory, in parts its callers word: `figures` "46.2 GiB per
// GPU (33.6 parameters and optimizer state, 12.6 activations), a100 has 40", `advice` the
// settings that would lower it from this configuration ("raise tp, pp or zero, or recompute"),
// which a job whose layout is chosen for it (a model mix's) cannot take. nullopt when it fits.
struct MemoryShortfall {
  double need_gib = 0;
  std::string figures, advice;
};
std::optional<MemoryShortfall> memory_shortfall(const LlmModel& model, const ParallelConfig& config, const GpuModel& gpu);

// Memory one GPU holds (the first pipeline stage, which stores the most activations), GiB.
// Model state per parameter (Megatron-LM docs/user-guide/features/dist_optimizer.md, BF16
// parameters with FP32 main gradients and Adam state): ZeRO 0 18 bytes; 1 (distributed
// optimizer) 6 + 12/d; 2: 2 + 16/d; 3: 18/d, with d = DP x CP. Activations per layer and
// micro-batch: s b h (18 + 4 ffn/h) bytes with sequence parallelism and selective recomputation
// (Megatron-LM megatron/training/theoretical_memory_usage.py, Korthikanti Table 2 generalised to
// the FFN width), divided by TP; without sequence parallelism 10 s b h of it is not split; full
// recomputation keeps 2 s b h (the layer's input); FP8 halves the linear layers' saved inputs
// ((6 + 2 ffn/h) s b h, kept as FP8 by Transformer Engine). 1F1B holds p micro-batches on the first stage,
// so L layers' worth; interleaved x (1 + (p-1)/(p v)); fewer micro-batches than stages x m/p. A
// single stage adds the output layer's logits, 4 s b h (1 + V/h) / TP. Offloaded layers hold none:
// their activations go to host memory as the next layer runs. An unfused attention core without
// recomputation also holds its score tensors, 5 a s^2 b / TP (Korthikanti Table 2).
struct LlmMemory {
  double parameters_gib = 0;  // weights, gradients and optimizer state
  double activations_gib = 0;
  double activation_layer_bytes = 0;  // one layer's activations of one micro-batch, bytes
  double total_gib() const { return parameters_gib + activations_gib; }
};
LlmMemory llm_memory_per_gpu(const LlmModel& model, const ParallelConfig& config);

// Host memory the offloaded activations take on one node holding `gpus_on_node` of the job's
// GPUs, GiB: each GPU's offload_layers layers of its one micro-batch in flight (offloading needs
// PP 1, so micro-batches run one after another). Pinned staging buffers, the data loader and the
// rest of the host's use are not counted.
double llm_offload_host_gib(const LlmModel& model, const ParallelConfig& config, int gpus_on_node);
// The job's GPUs on a node of `node_gpus` it fills: the node's, at most the job's.
inline int llm_gpus_on_node(const ParallelConfig& config, int node_gpus) { return std::min(config.gpus(), node_gpus); }
// An error naming host memory when `node` states its host memory (NodeModel::host_memory_gib)
// and the offloaded activations of a node full of the job's GPUs (the node's GPUs, at most the
// job's) do not fit in it; success when nothing is offloaded or the node does not state it.
Status validate_host_memory(const LlmModel& model, const ParallelConfig& config, const NodeModel& node);

// The configuration a job of `gpus` GPUs gets when only its model is known (synthetic mixes):
// the smallest model-parallel size M = TP x PP (a divisor of the GPUs) with which the job fits in
// the memory of `fit_on` at micro-batch 1 (validate_parallel's precision and memory checks), TP
// the largest of 8, 4, 2, 1 dividing M and the (KV) heads, PP = M / TP (at most the layers), the
// rest data-parallel; sequence parallelism when TP > 1. This is Narayanan et al., SC'21
// (Efficient Large-Scale Language Model Training on GPU Clusters), takeaways #1 and #2: tensor
// parallelism within a server, then pipelining, with a model-parallel size just large enough that
// the model fits and data parallelism for the rest, since model-parallel collectives sit on the
// step's critical path while data-parallel traffic overlaps the backward pass. When no size fits
// `fit_on` (or it cannot run the precision), the largest tried, the least memory per GPU; without
// `fit_on`, TP the largest that divides the GPUs and the heads, no pipelining. The model's
// sequence; a global batch of 4M tokens (Llama 2's, model card: "global batch-size of 4M
// tokens"), rounded up to a multiple of DP; selective recomputation, distributed optimizer, BF16.
ParallelConfig default_parallel(const LlmModel& model, int gpus, const GpuModel* fit_on = nullptr);
// default_parallel's configuration of `gpus` GPUs at TP `tp` and PP `pp` (DP the rest).
ParallelConfig default_layout(const LlmModel& model, int gpus, int tp, int pp);
// Whether a model mix leaves `model` out of jobs of `gpus` GPUs measured on `gpu`
// (sim/workload/workload_mix.h TrainingDraw): `gpu` runs the layouts' precision but no layout
// default_parallel tries fits its memory at micro-batch 1. A GPU without the precision leaves no
// size out: such jobs are drawn, and the scenario reader refuses them, naming a GPU that runs them.
bool default_parallel_too_large(const LlmModel& model, int gpus, const GpuModel& gpu);

// The links the placement gives each kind of group: its slowest group's path (core/llm_links.h).
// A path with ranks 1 costs nothing. `pp` is the slowest stage-to-stage pair (ranks 2).
struct LlmLinks {
  CommPath tp, cp, dp, ep, pp;
};

// Achievable share of the dense peak a GPU sustains on the layers' GEMMs and attention, per
// generation and precision (Ampere and earlier tensor-core GPUs use Ampere's; FP8 before Hopper
// (Ada) uses Hopper's). Each value is the least-squares fit (in log throughput) of this model to
// the rows of one published table; the other tables are held out for validation
// (docs/llm-training.md, tests/core/test_llm_validation.cpp).
// Ampere BF16: Korthikanti et al. Table 5 (4 rows, A100 80 GB; their attention unfused).
inline constexpr double kLlmEfficiencyAmpereBf16 = 0.688;
// Hopper FP8: NeMo 24.07 pre-training table (7 rows, DGX H100).
inline constexpr double kLlmEfficiencyHopperFp8 = 0.443;
// Hopper BF16: Megatron-Core r0.8 weak scaling, rows without pipelining (4 rows, H100; the table
// gives no micro-batch: each row runs the fastest that fits, estimate_llm_idle_fastest_micro_batch).
inline constexpr double kLlmEfficiencyHopperBf16 = 0.483;
// Blackwell FP8: NeMo 25.02 DGX-B200 table (4 rows).
inline constexpr double kLlmEfficiencyBlackwellFp8 = 0.410;
// Blackwell BF16: no published table with a full configuration; Hopper's value, unvalidated.
inline constexpr double kLlmEfficiencyBlackwellBf16 = kLlmEfficiencyHopperBf16;
double llm_compute_efficiency(const GpuModel& gpu, LlmPrecision precision);

struct LlmStep {
  double step_ms = 0;
  double compute_ms = 0;      // m micro-batches of forward + backward (+ recomputation) compute
  double tp_ms = 0;           // tensor-parallel collectives of those micro-batches
  double ep_ms = 0;           // expert all-to-alls
  double cp_ms = 0;           // ring-attention K/V exchange not hidden by the attention core
  double pp_bubble_ms = 0;    // pipeline fill and drain
  double pp_p2p_ms = 0;       // stage-to-stage sends on the critical path
  double dp_exposed_ms = 0;   // data-parallel gradient / parameter collectives not hidden
  double dp_comm_ms = 0;      // all of them, hidden or not
  double optimizer_ms = 0;    // Adam's update of the GPU's shard (memory-bound)
  double offload_ms = 0;      // host copies of offloaded activations that outlast the layer they overlap
  double tokens_per_sec = 0;  // whole job
  double tokens_per_sec_per_gpu = 0;
  double model_tflops_per_gpu = 0;  // model FLOPs (no recomputation) per second per GPU
  double mfu = 0;                   // model_tflops_per_gpu over the GPU's dense BF16 peak
  int micro_batch = 0;              // sequences per micro-batch (the configuration's)
  int tp = 0, pp = 0;               // the configuration's tensor- and pipeline-parallel sizes
  LlmMemory memory;
};

// The step's parts in report order with the names reports give them; they add up to step_ms.
inline constexpr std::pair<const char*, double LlmStep::*> kLlmStepParts[] = {{"compute", &LlmStep::compute_ms},
                                                                              {"tensor-parallel", &LlmStep::tp_ms},
                                                                              {"expert all-to-all", &LlmStep::ep_ms},
                                                                              {"context exchange", &LlmStep::cp_ms},
                                                                              {"pipeline bubble", &LlmStep::pp_bubble_ms},
                                                                              {"pipeline sends", &LlmStep::pp_p2p_ms},
                                                                              {"data-parallel exposed", &LlmStep::dp_exposed_ms},
                                                                              {"optimizer", &LlmStep::optimizer_ms},
                                                                              {"host offload exposed", &LlmStep::offload_ms}};

// REQUIRES: validate_parallel(model, config, gpu) succeeded. Errors: a group of several ranks
// whose path has no bandwidth.
Expected<LlmStep> llm_step(const LlmModel& model, const ParallelConfig& config, const GpuModel& gpu, const LlmLinks& links);
// The same at a given compute efficiency instead of llm_compute_efficiency (calibration).
Expected<LlmStep> llm_step(const LlmModel& model, const ParallelConfig& config, const GpuModel& gpu, const LlmLinks& links,
                           double efficiency);

}  // namespace topsim
