// Published LLM training throughputs the parallel step model (core/llm_step.h) is calibrated on
// and validated against. Each row: the source, the model, the node type of the system measured,
// the configuration and the measured tokens/s per GPU (derived where the source gives time or
// FLOP/s, the arithmetic beside it).
#pragma once

#include <string>
#include <vector>

#include "core/llm_catalog.h"
#include "core/llm_step.h"

namespace topsim::published {

struct LlmRow {
  std::string source;
  LlmModel model;
  std::string node;  // built-in node model of the system measured
  ParallelConfig config;
  double tokens_per_sec_per_gpu = 0;
  // The source gives no micro-batch: the row runs the one a tuned run would, the fastest that
  // fits by the model (estimate_llm_idle_fastest_micro_batch, `topsim estimate --micro-batch
  // auto`); config.micro_batch is not read.
  bool micro_batch_unpublished = false;
};

inline LlmModel catalog_model(const char* name) { return **find_llm_model(name); }

// The GPT of Megatron-Core's 2024 weak-scaling table: vocabulary 131,072, sequence 4,096 (NVIDIA/
// Megatron-LM README @ c230e0d7, "All models use a vocabulary size of 131,072 and a sequence length
// of 4096"), otherwise Megatron's GPT (core/llm_catalog.cpp).
inline LlmModel mcore_gpt(int layers, int hidden, int heads) {
  LlmModel m = catalog_model("megatron-1.7b");
  m.name = "mcore-gpt-h" + std::to_string(hidden);
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = 4 * hidden;
  m.heads = m.kv_heads = heads;
  m.vocab = 131072;
  m.position_embeddings = 4096;
  m.default_sequence = 4096;
  return m;
}

// FLOPs per token of Megatron's GPT when its layers run `passes` forward-equivalents (3: forward
// and backward; 4: with full recomputation) and the logits 3: passes x 24 L h^2 (1 + s/(6h)) +
// 6 V h. With 3 it is Megatron's model FLOPs, 72 L h^2 (1 + s/(6h) + V/(12 L h)) (Korthikanti et
// al. Appendix A; Megatron-LM training.py num_floating_point_operations); with 4 Narayanan et
// al.'s count, 96 L h^2 (1 + s/(6h) + V/(16 L h)) (SC'21 section 5.1, Eq. 3).
inline double megatron_flops_per_token(const LlmModel& m, int seq, int passes) {
  const double L = m.layers, h = m.hidden;
  return passes * 24 * L * h * h * (1 + seq / (6 * h)) + 6 * m.vocab * h;
}
// A table's TFLOP/s per GPU in Megatron's model FLOPs as tokens/s per GPU.
inline double megatron_tokens_per_sec(double tflops, const LlmModel& m, int seq) {
  return tflops * 1e12 / megatron_flops_per_token(m, seq, 3);
}

inline ParallelConfig cfg(int tp, int pp, int dp, int cp, int vpp, int seq, int gbs, int mbs, Recompute recompute, bool sp,
                          int zero, LlmPrecision precision, bool overlap = true) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.cp = cp;
  c.vpp = vpp;
  c.sequence = seq;
  c.global_batch = gbs;
  c.micro_batch = mbs;
  c.recompute = recompute;
  c.sequence_parallel = sp;
  c.zero = zero;
  c.precision = precision;
  c.overlap_dp = overlap;
  return c;
}

// Rows of a source that gives no micro-batch (LlmRow::micro_batch_unpublished).
inline std::vector<LlmRow> micro_batch_unpublished(std::vector<LlmRow> rows) {
  for (LlmRow& row : rows) row.micro_batch_unpublished = true;
  return rows;
}

// Rows of a source that overlapped tensor-parallel communication with GEMMs (NeMo recipes and
// Megatron-Core's benchmarks run with --tp-comm-overlap; Korthikanti et al. did not).
inline std::vector<LlmRow> tp_overlapped(std::vector<LlmRow> rows) {
  for (LlmRow& row : rows) row.config.tp_overlap = true;
  return rows;
}

// Rows of a source whose attention core ran unfused, its score tensors in memory (Megatron-LM
// before FlashAttention: Narayanan et al. 2021, Korthikanti et al. 2022).
inline std::vector<LlmRow> unfused_attention(std::vector<LlmRow> rows) {
  for (LlmRow& row : rows) row.config.attention = LlmAttention::Unfused;
  return rows;
}

constexpr auto kBf16 = LlmPrecision::Bf16;
constexpr auto kFp8 = LlmPrecision::Fp8;
constexpr auto kSel = Recompute::Selective;
constexpr auto kFull = Recompute::Full;
constexpr auto kNone = Recompute::None;

// A100 BF16, calibration: Korthikanti et al., "Reducing Activation Recomputation in Large
// Transformer Models" (arXiv:2205.05198), Tables 3 and 5: Selene (DGX A100 80 GB, 8 x HDR), TP 8,
// no data parallelism, sequence parallelism + selective recomputation; the interleaved schedule
// with 3 stages for 175B and 530B. tokens/s/GPU = batch x 2048 / (iteration time x GPUs).
inline std::vector<LlmRow> korthikanti_selective() {
  return unfused_attention({
      {"Korthikanti T5 22B sel", catalog_model("megatron-22b"), "dgx-a100-80g",
       cfg(8, 1, 1, 1, 1, 2048, 4, 4, kSel, true, 1, kBf16), 4 * 2048 / (1.10 * 8)},
      {"Korthikanti T5 175B sel", catalog_model("gpt3-175b"), "dgx-a100-80g",
       cfg(8, 8, 1, 1, 3, 2048, 64, 1, kSel, true, 1, kBf16), 2048 / 13.75},
      {"Korthikanti T5 530B sel", catalog_model("megatron-530b"), "dgx-a100-80g",
       cfg(8, 35, 1, 1, 3, 2048, 280, 1, kSel, true, 1, kBf16), 2048 / 37.83},
      {"Korthikanti T5 1T sel", catalog_model("megatron-1t"), "dgx-a100-80g",
       cfg(8, 64, 1, 1, 1, 2048, 512, 1, kSel, true, 1, kBf16), 2048 / 71.49},
  });
}

// A100 BF16, held out: the same paper's full-recomputation baseline (no sequence parallelism),
// and 530B with 8-way data parallelism on 2,240 GPUs without gradient overlap (section 6.3:
// 39.15 s per iteration).
inline std::vector<LlmRow> korthikanti_held_out() {
  return unfused_attention({
      {"Korthikanti T5 22B full", catalog_model("megatron-22b"), "dgx-a100-80g",
       cfg(8, 1, 1, 1, 1, 2048, 4, 4, kFull, false, 1, kBf16), 4 * 2048 / (1.42 * 8)},
      {"Korthikanti T5 175B full", catalog_model("gpt3-175b"), "dgx-a100-80g",
       cfg(8, 8, 1, 1, 3, 2048, 64, 1, kFull, false, 1, kBf16), 2048 / 18.13},
      {"Korthikanti T5 530B full", catalog_model("megatron-530b"), "dgx-a100-80g",
       cfg(8, 35, 1, 1, 3, 2048, 280, 1, kFull, false, 1, kBf16), 2048 / 49.05},
      {"Korthikanti T5 1T full", catalog_model("megatron-1t"), "dgx-a100-80g",
       cfg(8, 64, 1, 1, 1, 2048, 512, 1, kFull, false, 1, kBf16), 2048 / 94.42},
      {"Korthikanti 6.3 530B DP8", catalog_model("megatron-530b"), "dgx-a100-80g",
       cfg(8, 35, 8, 1, 3, 2048, 2240, 1, kSel, true, 1, kBf16, false), 2048 / 39.15},
  });
}

// A100 FP16, held out: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
// Clusters Using Megatron-LM" (SC'21, arXiv:2104.04473), Table 1: weak scaling from 1.7B to 1T on
// Selene (DGX A100 80 GB), full recomputation (their FLOPs count, 4 passes, assumes it), unfused
// attention, data-parallel gradients all-reduced after the step's last backward pass, not
// overlapped (no distributed optimizer then; Megatron-LM @ a8d172b3, April 2021: --DDP-impl
// defaults to 'local', whose allreduce_gradients() train_step calls after forward_backward). The
// table gives no micro-batch or interleaving: plain 1F1B assumed, the micro-batch the fastest that
// fits (for the pipelined rows 1, the smallest bubble).
inline std::vector<LlmRow> narayanan_weak_scaling() {
  std::vector<LlmRow> rows;
  struct Row {
    const char* model;
    int tp, pp, gpus, batch;
    double tflops;
  };
  for (const Row& r : {Row{"megatron-1.7b", 1, 1, 32, 512, 137}, Row{"megatron-3.6b", 2, 1, 64, 512, 138},
                       Row{"megatron-7.5b", 4, 1, 128, 512, 142}, Row{"megatron-18b", 8, 1, 256, 1024, 135},
                       Row{"megatron-39b", 8, 2, 512, 1536, 138}, Row{"megatron-76b", 8, 4, 1024, 1792, 140},
                       Row{"megatron-146b", 8, 8, 1536, 2304, 148}, Row{"megatron-310b", 8, 16, 1920, 2160, 155},
                       Row{"megatron-530b", 8, 35, 2520, 2520, 163}, Row{"megatron-1t", 8, 64, 3072, 3072, 163}}) {
    const LlmModel m = catalog_model(r.model);
    const int dp = r.gpus / (r.tp * r.pp);
    rows.push_back({"Narayanan T1 " + m.display_name.substr(m.display_name.rfind(' ') + 1) + " " + std::to_string(r.gpus), m,
                    "dgx-a100-80g", cfg(r.tp, r.pp, dp, 1, 1, 2048, r.batch, 1, kFull, false, 0, kBf16, false),
                    r.tflops * 1e12 / megatron_flops_per_token(m, 2048, 4)});
  }
  return micro_batch_unpublished(unfused_attention(rows));
}

// H100 FP8, calibration: NVIDIA NeMo 24.07 performance summary, pre-training on DGX H100
// (NVIDIA/NeMo @ 9c5c5e97 docs/source/performance/performance_summary.md): tokens/s/GPU as
// published; no activation recomputation, sequence parallelism, distributed optimizer.
inline std::vector<LlmRow> nemo_2407_h100_fp8() {
  return tp_overlapped({
      {"NeMo 24.07 Llama2-7B 8", catalog_model("llama2-7b"), "hgx-h100", cfg(1, 1, 8, 1, 1, 4096, 128, 1, kNone, true, 1, kFp8),
       16934},
      {"NeMo 24.07 Llama2-13B 16", catalog_model("llama2-13b"), "hgx-h100",
       cfg(1, 4, 4, 1, 10, 4096, 128, 1, kNone, true, 1, kFp8), 8715},
      {"NeMo 24.07 Llama2-70B 64", catalog_model("llama2-70b"), "hgx-h100",
       cfg(4, 4, 4, 1, 20, 4096, 128, 1, kNone, true, 1, kFp8), 1728},
      {"NeMo 24.07 Llama3-8B 8", catalog_model("llama3-8b"), "hgx-h100", cfg(1, 1, 4, 2, 1, 8192, 128, 1, kNone, true, 1, kFp8),
       12273},
      {"NeMo 24.07 Llama3-70B 64", catalog_model("llama3-70b"), "hgx-h100",
       cfg(4, 4, 2, 2, 5, 8192, 128, 1, kNone, true, 1, kFp8), 1524},
      {"NeMo 24.07 GPT3-175B 128", catalog_model("gpt3-175b"), "hgx-h100", cfg(4, 8, 4, 1, 6, 2048, 256, 1, kNone, true, 1, kFp8),
       716},
      {"NeMo 24.07 GPT3-175B 512", catalog_model("gpt3-175b"), "hgx-h100",
       cfg(4, 8, 16, 1, 6, 2048, 2048, 2, kNone, true, 1, kFp8), 825},
  });
}

// H100 FP8, held out: Megatron-Bridge 25.09 (NVIDIA-NeMo/Megatron-Bridge @ 4ab94dfa
// docs/performance-summary-archive.md, DGX-H100 rows; FSDP 8 read as ZeRO-3 over the 8 GPUs) and
// NeMo 24.07's supervised fine-tuning table (same file as above, SQuAD packed to 4,096 tokens; the
// 13B and 70B rows are left out: the table gives no virtual stages or recomputation for them).
inline std::vector<LlmRow> h100_fp8_held_out() {
  return tp_overlapped({
      {"Bridge 25.09 Llama3-8B FSDP 8", catalog_model("llama3-8b"), "hgx-h100",
       cfg(1, 1, 8, 1, 1, 8192, 128, 1, kNone, true, 3, kFp8), 14079},
      {"Bridge 25.09 Llama3-70B 64", catalog_model("llama3-70b"), "hgx-h100",
       cfg(4, 8, 2, 1, 5, 8192, 128, 1, kNone, true, 1, kFp8), 1619},
      {"Bridge 25.09 Llama3.1-405B 1024", catalog_model("llama3.1-405b"), "hgx-h100",
       cfg(8, 8, 8, 2, 8, 8192, 512, 1, kNone, true, 1, kFp8), 302},
      {"NeMo 24.07 SFT Llama2-7B 8", catalog_model("llama2-7b"), "hgx-h100",
       cfg(1, 1, 8, 1, 1, 4096, 32, 1, kNone, true, 1, kFp8), 16891},
  });
}

// H100 BF16, calibration: Megatron-Core r0.8 weak scaling (NVIDIA/Megatron-LM README @ c230e0d7,
// images/model_table.png), the rows without pipeline parallelism (data parallelism 48, batch 192,
// gradient reduce and parameter gather overlapped: --overlap-grad-reduce --overlap-param-gather,
// as the README says). The table gives no micro-batch: the fastest that fits (LlmRow). TFLOP/s
// per GPU converted with Megatron's FLOPs per token.
inline std::vector<LlmRow> mcore_h100_bf16() {
  const LlmModel m17 = mcore_gpt(24, 2048, 16), m71 = mcore_gpt(30, 4096, 32), m16 = mcore_gpt(32, 6144, 48),
                 m32 = mcore_gpt(48, 7168, 56);
  return micro_batch_unpublished(tp_overlapped({
      {"Megatron-Core 1.7B 48", m17, "hgx-h100", cfg(1, 1, 48, 1, 1, 4096, 192, 1, kSel, true, 1, kBf16),
       megatron_tokens_per_sec(408.8, m17, 4096)},
      {"Megatron-Core 7.1B 96", m71, "hgx-h100", cfg(2, 1, 48, 1, 1, 4096, 192, 1, kSel, true, 1, kBf16),
       megatron_tokens_per_sec(465.9, m71, 4096)},
      {"Megatron-Core 16B 192", m16, "hgx-h100", cfg(4, 1, 48, 1, 1, 4096, 192, 1, kSel, true, 1, kBf16),
       megatron_tokens_per_sec(489.1, m16, 4096)},
      {"Megatron-Core 32B 384", m32, "hgx-h100", cfg(8, 1, 48, 1, 1, 4096, 192, 1, kSel, true, 1, kBf16),
       megatron_tokens_per_sec(459.6, m32, 4096)},
  }));
}

// B200 FP8, calibration: NeMo 25.02 performance summary, DGX-B200 (docs.nvidia.com nemo-framework
// performance_summary, 25.02 section).
inline std::vector<LlmRow> nemo_2502_b200_fp8() {
  return tp_overlapped({
      {"NeMo 25.02 B200 Llama3-8B 8", catalog_model("llama3-8b"), "hgx-b200",
       cfg(1, 1, 8, 1, 1, 8192, 128, 2, kNone, true, 1, kFp8), 26006},
      {"NeMo 25.02 B200 Llama3-70B 64", catalog_model("llama3-70b"), "hgx-b200",
       cfg(2, 4, 4, 2, 5, 8192, 128, 1, kNone, true, 1, kFp8), 3062},
      {"NeMo 25.02 B200 Llama3.1-405B 128", catalog_model("llama3.1-405b"), "hgx-b200",
       cfg(4, 8, 2, 2, 8, 8192, 64, 1, kNone, true, 1, kFp8), 625},
      {"NeMo 25.02 B200 GPT3-175B 512", catalog_model("gpt3-175b"), "hgx-b200",
       cfg(4, 4, 32, 1, 6, 2048, 2048, 2, kNone, true, 1, kFp8), 1600},
  });
}

// Blackwell FP8, held out: NeMo 25.04 performance summary, DGX-GB200 (docs.nvidia.com
// nemo-framework user-guide, performance/archive/25.04-performance-summary.html, "Pre-Training
// Performance", System: DGX-GB200): tokens/s/GPU as published. The jobs fill trays of one or two
// NVL72 racks (the node model's 18-tray NVLink domains): their DP, PP and EP groups span trays at
// NVLink speed. FSDP 1 is ZeRO 3 here; no recomputation and TP overlap, as the B200 rows.
inline std::vector<LlmRow> gb200_fp8_held_out() {
  ParallelConfig mixtral = cfg(1, 1, 64, 1, 1, 4096, 256, 2, kNone, true, 1, kFp8);
  mixtral.ep = 8;
  return tp_overlapped({
      {"NeMo 25.04 GB200 Llama3-8B 8", catalog_model("llama3-8b"), "gb200-nvl72-tray",
       cfg(1, 1, 8, 1, 1, 8192, 128, 2, kNone, true, 1, kFp8), 33099},
      {"NeMo 25.04 GB200 Llama3-70B FSDP 64", catalog_model("llama3-70b"), "gb200-nvl72-tray",
       cfg(1, 1, 64, 1, 1, 8192, 128, 1, kNone, true, 3, kFp8), 4035},
      {"NeMo 25.04 GB200 Llama3.1-405B 128", catalog_model("llama3.1-405b"), "gb200-nvl72-tray",
       cfg(4, 8, 2, 2, 8, 8192, 64, 1, kNone, true, 1, kFp8), 665},
      {"NeMo 25.04 GB200 GPT3-175B 128", catalog_model("gpt3-175b"), "gb200-nvl72-tray",
       cfg(4, 4, 8, 1, 12, 2048, 256, 2, kNone, true, 1, kFp8), 1804},
      {"NeMo 25.04 GB200 Mixtral-8x7B 64", catalog_model("mixtral-8x7b"), "gb200-nvl72-tray", mixtral, 19275},
  });
}

// Blackwell FP8 with activations offloaded to the Grace CPU's memory, held out: Megatron-Bridge's
// DGX-GB200 rows (NVIDIA-NeMo/Megatron-Bridge @ 067f987d docs/performance-summary-archive.md: the
// 25.09, 25.11, 26.02 and 26.04 containers, FP8 current scaling), run with their recipes'
// cpu_offloading_num_layers (scripts/performance/configs/llama/llama3_workload_base_configs.py and
// llama31_workload_base_configs.py @ b7b4e11b: Llama 3 70B, FSDP 64, micro-batch 2, 40 layers;
// Llama 3.1 405B, TP 2 x FSDP 64, 92 layers; sequence parallelism with TP > 1, utils.py). Without
// the offload neither fits a GB200 by the model (281.8 and 250.3 GiB per GPU).
inline std::vector<LlmRow> gb200_offload_held_out() {
  const auto offload = [](ParallelConfig c, int layers) {
    c.offload_layers = layers;
    return c;
  };
  const LlmModel l70 = catalog_model("llama3-70b");
  return tp_overlapped({
      {"Bridge 25.09 GB200 Llama3-70B FSDP 64", l70, "gb200-nvl72-tray",
       offload(cfg(1, 1, 64, 1, 1, 8192, 128, 2, kNone, false, 3, kFp8), 40), 3986},
      {"Bridge 25.11 GB200 Llama3-70B FSDP 64", l70, "gb200-nvl72-tray",
       offload(cfg(1, 1, 64, 1, 1, 8192, 256, 2, kNone, false, 3, kFp8), 40), 4312},
      {"Bridge 26.02 GB200 Llama3-70B FSDP 64", l70, "gb200-nvl72-tray",
       offload(cfg(1, 1, 64, 1, 1, 8192, 256, 2, kNone, false, 3, kFp8), 40), 4040},
      {"Bridge 26.04 GB200 Llama3-70B FSDP 64", l70, "gb200-nvl72-tray",
       offload(cfg(1, 1, 64, 1, 1, 8192, 256, 2, kNone, false, 3, kFp8), 40), 4143},
      {"Bridge 25.09 GB200 Llama3.1-405B FSDP 128", catalog_model("llama3.1-405b"), "gb200-nvl72-tray",
       offload(cfg(2, 1, 64, 1, 1, 8192, 64, 1, kNone, true, 3, kFp8), 92), 729},
  });
}

}  // namespace topsim::published
