// The large-language-model catalog of the parallel training model (core/llm_step.h): decoder-only
// transformers by their published dimensions, what they weigh and how many FLOPs a token costs.
//
// Dimensions (layers, hidden, FFN hidden, attention heads, KV heads, vocabulary), per family:
// - Llama 2 7B/13B/70B, Llama 3 8B/70B, Llama 3.1 405B: the Llama 3 paper (arXiv:2407.21783,
//   Table 3) and Meta's model cards (meta-llama/llama-models models/llama2, llama3, llama3_1
//   MODEL_CARD.md; vocabulary sizes from models/sku_list.py: 32,000 and 128,256); Llama 2 uses
//   grouped-query attention only at 70B (model card). SwiGLU feed-forward (3 matrices), RMSNorm,
//   no biases, untied input and output embeddings.
// - Mixtral 8x7B: 8 experts, top-2 routing, 32 layers, hidden 4096, FFN 14336 per expert, 32
//   heads, 8 KV heads, vocabulary 32,000 (Jiang et al., arXiv:2401.04088, Table 1).
// - GPT-3 175B (Brown et al., arXiv:2005.14165, Table 2.1) and the GPT configurations of the
//   Megatron-LM papers: Narayanan et al., SC'21 (arXiv:2104.04473) Table 1 (1.7B ... 1T) and
//   Korthikanti et al., MLSys'23 (arXiv:2205.05198) Table 3 (22B). GELU feed-forward of 4 x hidden,
//   learned position embeddings tied to nothing, input and output embeddings tied, biases; the
//   vocabulary 51,200 (50,257 padded to a multiple of 1,024, as both papers train).
// Parameter counts reproduce the papers' (Narayanan Eq. 2 for GPT; Llama 3 8B 8.03 B, 70B
// 70.55 B, 405B 405.85 B; Mixtral 46.7 B total, 12.9 B active) - tests pin them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace topsim {

struct LlmModel {
  std::string name;          // catalog key, lower case, e.g. "llama3-70b"
  std::string display_name;  // e.g. "Llama 3 70B"
  int layers = 0;
  int hidden = 0;      // model dimension h
  int ffn_hidden = 0;  // feed-forward inner dimension (per expert)
  int heads = 0;       // attention heads a
  int kv_heads = 0;    // key/value heads (grouped-query attention); == heads for multi-head
  int vocab = 0;
  int experts = 1;               // feed-forward experts per layer (1: dense)
  int top_k = 1;                 // experts each token is routed to
  bool gated_mlp = false;        // SwiGLU (3 matrices) rather than GELU (2)
  bool tied_embeddings = false;  // output layer shares the input embedding
  bool biases = false;           // linear-layer biases and LayerNorm (GPT) rather than RMSNorm
  int position_embeddings = 0;   // learned position table rows (GPT: the sequence length); 0: rotary
  int default_sequence = 0;      // the sequence length the model was pre-trained at (a job's default)

  int head_dim() const { return hidden / heads; }
  bool moe() const { return experts > 1; }
  // Parameters of one transformer layer: all experts, or the experts a token uses (`active`).
  double layer_parameters(bool active = false) const;
  // Input embedding (and position table), output layer (0 when tied) and final norm.
  double embedding_parameters() const;
  double output_parameters() const;
  // Every trainable parameter; `active`: those a token uses (MoE: top_k experts).
  double parameters(bool active = false) const;

  // Forward FLOPs per token (a multiply-add is 2 FLOPs), split by what runs them: the weight
  // matrices of one layer (attention projections, feed-forward of the routed experts and the
  // router), and that layer's attention core at `sequence` tokens (QK^T and AV with a causal mask:
  // each token attends to half the sequence on average, as FlashAttention computes it).
  double layer_gemm_flops_per_token() const;
  double layer_attention_flops_per_token(int sequence) const;
  // The output layer's logits, 2 x hidden x vocab.
  double logit_flops_per_token() const;
  // Model FLOPs of training one token (forward + backward = 3 x forward, no recomputation).
  double training_flops_per_token(int sequence) const;
};

const std::vector<LlmModel>& llm_catalog();
std::vector<std::string> llm_model_names();
// The model named `name` (case-insensitive; '-', '_', '.' and spaces ignored, so "Llama-3-70B"
// matches "llama3-70b"). Error: "unknown model '<name>'" with a did-you-mean and the known ones.
Expected<const LlmModel*> find_llm_model(std::string_view name);

}  // namespace topsim
