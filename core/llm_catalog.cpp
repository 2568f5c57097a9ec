#include "core/llm_catalog.h"

#include <cctype>

#include "util/suggest.h"

namespace topsim {
namespace {

LlmModel llama(std::string name, std::string display, int layers, int hidden, int ffn, int heads, int kv, int vocab,
               int sequence) {
  LlmModel m;
  m.name = std::move(name);
  m.display_name = std::move(display);
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = ffn;
  m.heads = heads;
  m.kv_heads = kv;
  m.vocab = vocab;
  m.gated_mlp = true;
  m.default_sequence = sequence;
  return m;
}

// Megatron-LM's GPT: multi-head attention, 4h GELU feed-forward, tied embeddings, biases, learned
// positions; vocabulary 51,200 and sequence 2,048 (Narayanan et al. section 5.1).
LlmModel gpt(std::string name, std::string display, int layers, int hidden, int heads) {
  LlmModel m;
  m.name = std::move(name);
  m.display_name = std::move(display);
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = 4 * hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.vocab = 51200;
  m.tied_embeddings = true;
  m.biases = true;
  m.position_embeddings = 2048;
  m.default_sequence = 2048;
  return m;
}

std::vector<LlmModel> make_catalog() {
  std::vector<LlmModel> c;
  // Llama 2 (model card: 4k context; GQA only at 70B), Llama 3 (8k), Llama 3.1 405B (trained at
  // 8k before the long-context stage: Llama 3 paper Table 4).
  c.push_back(llama("llama2-7b", "Llama 2 7B", 32, 4096, 11008, 32, 32, 32000, 4096));
  c.push_back(llama("llama2-13b", "Llama 2 13B", 40, 5120, 13824, 40, 40, 32000, 4096));
  c.push_back(llama("llama2-70b", "Llama 2 70B", 80, 8192, 28672, 64, 8, 32000, 4096));
  c.push_back(llama("llama3-8b", "Llama 3 8B", 32, 4096, 14336, 32, 8, 128256, 8192));
  c.push_back(llama("llama3-70b", "Llama 3 70B", 80, 8192, 28672, 64, 8, 128256, 8192));
  c.push_back(llama("llama3.1-405b", "Llama 3.1 405B", 126, 16384, 53248, 128, 8, 128256, 8192));
  LlmModel mixtral = llama("mixtral-8x7b", "Mixtral 8x7B", 32, 4096, 14336, 32, 8, 32000, 4096);
  mixtral.experts = 8;
  mixtral.top_k = 2;
  c.push_back(mixtral);
  // Narayanan et al. Table 1 (heads, hidden, layers) and Korthikanti et al. Table 3 (22B).
  c.push_back(gpt("megatron-1.7b", "Megatron GPT 1.7B", 24, 2304, 24));
  c.push_back(gpt("megatron-3.6b", "Megatron GPT 3.6B", 30, 3072, 32));
  c.push_back(gpt("megatron-7.5b", "Megatron GPT 7.5B", 36, 4096, 32));
  c.push_back(gpt("megatron-18b", "Megatron GPT 18.4B", 40, 6144, 48));
  c.push_back(gpt("megatron-22b", "Megatron GPT 22B", 48, 6144, 64));
  c.push_back(gpt("megatron-39b", "Megatron GPT 39.1B", 48, 8192, 64));
  c.push_back(gpt("megatron-76b", "Megatron GPT 76.1B", 60, 10240, 80));
  c.push_back(gpt("megatron-146b", "Megatron GPT 145.6B", 80, 12288, 96));
  c.push_back(gpt("gpt3-175b", "GPT-3 175B", 96, 12288, 96));
  c.push_back(gpt("megatron-310b", "Megatron GPT 310.1B", 96, 16384, 128));
  c.push_back(gpt("megatron-530b", "Megatron-Turing NLG 530B", 105, 20480, 128));
  c.push_back(gpt("megatron-1t", "Megatron GPT 1T", 128, 25600, 160));
  return c;
}

std::string normalized(std::string_view name) {
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_' && c != '.' && c != ' ') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

}  // namespace

double LlmModel::layer_parameters(bool active) const {
  const double h = hidden, kv = static_cast<double>(kv_heads) * head_dim(), f = ffn_hidden;
  double attention = 2 * h * h + 2 * h * kv;
  double expert = (gated_mlp ? 3 : 2) * h * f;
  double norms = 2 * h;
  if (biases) {
    attention += 2 * h + 2 * kv;
    expert += f + h;
    norms *= 2;
  }
  const double router = moe() ? h * experts : 0;
  return attention + expert * (active ? top_k : experts) + router + norms;
}

double LlmModel::embedding_parameters() const {
  return (static_cast<double>(vocab) + position_embeddings) * hidden + (biases ? 2.0 : 1.0) * hidden;
}

double LlmModel::output_parameters() const { return tied_embeddings ? 0 : static_cast<double>(vocab) * hidden; }

double LlmModel::parameters(bool active) const {
  return layers * layer_parameters(active) + embedding_parameters() + output_parameters();
}

double LlmModel::layer_gemm_flops_per_token() const {
  const double h = hidden, kv = static_cast<double>(kv_heads) * head_dim();
  const double attention = 2 * h * h + 2 * h * kv;
  const double mlp = (gated_mlp ? 3 : 2) * h * ffn_hidden * top_k + (moe() ? h * experts : 0);
  return 2 * (attention + mlp);
}

double LlmModel::layer_attention_flops_per_token(int sequence) const {
  // QK^T and AV: 2 x (2 x s x h) with every key, half of it under the causal mask.
  return 2.0 * sequence * hidden;
}

double LlmModel::logit_flops_per_token() const { return 2.0 * hidden * vocab; }

double LlmModel::training_flops_per_token(int sequence) const {
  return 3 * (layers * (layer_gemm_flops_per_token() + layer_attention_flops_per_token(sequence)) + logit_flops_per_token());
}

const std::vector<LlmModel>& llm_catalog() {
  static const std::vector<LlmModel> catalog = make_catalog();
  return catalog;
}

std::vector<std::string> llm_model_names() {
  std::vector<std::string> names;
  for (const LlmModel& m : llm_catalog()) names.push_back(m.name);
  return names;
}

Expected<const LlmModel*> find_llm_model(std::string_view name) {
  const std::string key = normalized(name);
  for (const LlmModel& m : llm_catalog())
    if (normalized(m.name) == key) return &m;
  return Error{unknown_name("model", name, llm_model_names())};
}

}  // namespace topsim
