#include "core/model_layers.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/model_catalog.h"

namespace topsim {
namespace {

// Builds a model's layers in forward order.
class Layers {
 public:
  enum class Norm { Bias, BatchNorm };  // a convolution's bias, or a batch norm's weight and bias

  // A convolution of `in` -> `out` channels with a kh x kw kernel producing an oh x ow map.
  void conv(int64_t in, int64_t out, int kh, int kw, int oh, int ow, Norm norm) {
    const int64_t weights = in * out * kh * kw;
    layers_.push_back({static_cast<double>(weights) * oh * ow, {weights}});
    if (norm == Norm::Bias) {
      layers_.back().tensors.push_back(out);
    } else {
      layers_.back().tensors.insert(layers_.back().tensors.end(), {out, out});
    }
  }
  // A fully connected layer applied to `rows` vectors per sample (tokens; 1 for a classifier).
  void linear(int64_t in, int64_t out, double rows = 1) {
    layers_.push_back({static_cast<double>(in * out) * rows, {in * out, out}});
  }
  void layer_norm(int64_t width) { layers_.push_back({0, {width, width}}); }
  void embedding(int64_t rows, int64_t width) { layers_.push_back({0, {rows * width}}); }
  // Work without parameters of its own (attention scores, a tied output projection).
  void compute(double macs) { layers_.push_back({macs, {}}); }

  std::vector<ModelLayer> take() { return std::move(layers_); }

 private:
  std::vector<ModelLayer> layers_;
};

using Norm = Layers::Norm;

std::vector<ModelLayer> vgg16() {
  Layers l;
  int64_t in = 3;
  int side = 224;
  constexpr std::array<std::array<int, 2>, 5> kStages = {{{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}}};
  for (const auto& [channels, convs] : kStages) {
    for (int i = 0; i < convs; ++i, in = channels) l.conv(in, channels, 3, 3, side, side, Norm::Bias);
    side /= 2;  // 2 x 2 max pool
  }
  l.linear(512 * 7 * 7, 4096);
  l.linear(4096, 4096);
  l.linear(4096, 1000);
  return l.take();
}

// torchvision's ResNet v1.5 with bottleneck blocks: `blocks` per stage.
std::vector<ModelLayer> resnet(const std::array<int, 4>& blocks) {
  Layers l;
  l.conv(3, 64, 7, 7, 112, 112, Norm::BatchNorm);
  int64_t in = 64;
  int side = 56;  // after the 3 x 3 max pool
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = int64_t{64} << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const int out_side = (b == 0 && stage > 0) ? side / 2 : side;
      l.conv(in, width, 1, 1, side, side, Norm::BatchNorm);
      l.conv(width, width, 3, 3, out_side, out_side, Norm::BatchNorm);
      l.conv(width, 4 * width, 1, 1, out_side, out_side, Norm::BatchNorm);
      if (b == 0) l.conv(in, 4 * width, 1, 1, out_side, out_side, Norm::BatchNorm);  // the projection shortcut
      in = 4 * width;
      side = out_side;
    }
  }
  l.linear(2048, 1000);
  return l.take();
}

// Inception v3 modules (Szegedy et al. 2016, torchvision's InceptionA..E), every convolution
// with a batch norm and no bias, on a `side` x `side` map.
void inception_a(Layers& l, int64_t in, int64_t pool, int side) {
  const auto c = [&](int64_t a, int64_t b, int k) { l.conv(a, b, k, k, side, side, Norm::BatchNorm); };
  c(in, 64, 1);
  c(in, 48, 1), c(48, 64, 5);
  c(in, 64, 1), c(64, 96, 3), c(96, 96, 3);
  c(in, pool, 1);
}
void inception_b(Layers& l, int64_t in) {  // 35 x 35 -> 17 x 17
  l.conv(in, 384, 3, 3, 17, 17, Norm::BatchNorm);
  l.conv(in, 64, 1, 1, 35, 35, Norm::BatchNorm);
  l.conv(64, 96, 3, 3, 35, 35, Norm::BatchNorm);
  l.conv(96, 96, 3, 3, 17, 17, Norm::BatchNorm);
}
void inception_c(Layers& l, int64_t in, int64_t c7) {  // 17 x 17, factorised 7 x 7
  const auto c = [&](int64_t a, int64_t b, int kh, int kw) { l.conv(a, b, kh, kw, 17, 17, Norm::BatchNorm); };
  c(in, 192, 1, 1);
  c(in, c7, 1, 1), c(c7, c7, 1, 7), c(c7, 192, 7, 1);
  c(in, c7, 1, 1), c(c7, c7, 7, 1), c(c7, c7, 1, 7), c(c7, c7, 7, 1), c(c7, 192, 1, 7);
  c(in, 192, 1, 1);
}
void inception_d(Layers& l, int64_t in) {  // 17 x 17 -> 8 x 8
  l.conv(in, 192, 1, 1, 17, 17, Norm::BatchNorm);
  l.conv(192, 320, 3, 3, 8, 8, Norm::BatchNorm);
  l.conv(in, 192, 1, 1, 17, 17, Norm::BatchNorm);
  l.conv(192, 192, 1, 7, 17, 17, Norm::BatchNorm);
  l.conv(192, 192, 7, 1, 17, 17, Norm::BatchNorm);
  l.conv(192, 192, 3, 3, 8, 8, Norm::BatchNorm);
}
void inception_e(Layers& l, int64_t in) {  // 8 x 8
  const auto c = [&](int64_t a, int64_t b, int kh, int kw) { l.conv(a, b, kh, kw, 8, 8, Norm::BatchNorm); };
  c(in, 320, 1, 1);
  c(in, 384, 1, 1), c(384, 384, 1, 3), c(384, 384, 3, 1);
  c(in, 448, 1, 1), c(448, 384, 3, 3), c(384, 384, 1, 3), c(384, 384, 3, 1);
  c(in, 192, 1, 1);
}

std::vector<ModelLayer> inception_v3() {
  Layers l;
  l.conv(3, 32, 3, 3, 149, 149, Norm::BatchNorm);
  l.conv(32, 32, 3, 3, 147, 147, Norm::BatchNorm);
  l.conv(32, 64, 3, 3, 147, 147, Norm::BatchNorm);
  l.conv(64, 80, 1, 1, 73, 73, Norm::BatchNorm);
  l.conv(80, 192, 3, 3, 71, 71, Norm::BatchNorm);
  inception_a(l, 192, 32, 35), inception_a(l, 256, 64, 35), inception_a(l, 288, 64, 35);
  inception_b(l, 288);
  inception_c(l, 768, 128), inception_c(l, 768, 160), inception_c(l, 768, 160), inception_c(l, 768, 192);
  l.conv(768, 128, 1, 1, 5, 5, Norm::BatchNorm);  // auxiliary classifier, on a 5 x 5 average pool
  l.conv(128, 768, 5, 5, 1, 1, Norm::BatchNorm);
  l.linear(768, 1000);
  inception_d(l, 768);
  inception_e(l, 1280), inception_e(l, 2048);
  l.linear(2048, 1000);
  return l.take();
}

std::vector<ModelLayer> alexnet() {
  Layers l;
  l.conv(3, 64, 11, 11, 55, 55, Norm::Bias);
  l.conv(64, 192, 5, 5, 27, 27, Norm::Bias);
  l.conv(192, 384, 3, 3, 13, 13, Norm::Bias);
  l.conv(384, 256, 3, 3, 13, 13, Norm::Bias);
  l.conv(256, 256, 3, 3, 13, 13, Norm::Bias);
  l.linear(256 * 6 * 6, 4096);
  l.linear(4096, 4096);
  l.linear(4096, 1000);
  return l.take();
}

// Attention scores and the weighted sum of values: 2 x tokens^2 x width MACs per layer.
double attention_macs(int64_t tokens, int64_t width) { return 2.0 * static_cast<double>(tokens * tokens * width); }

// BERT-large as BertModel: embeddings (word 30522, position 512, segment 2) and their layer
// norm, 24 post-norm layers of width 1024 (feed-forward 4096), the pooler; sequence 128.
std::vector<ModelLayer> bert_large() {
  constexpr int64_t kWidth = 1024, kTokens = 128;
  Layers l;
  l.embedding(30522, kWidth), l.embedding(512, kWidth), l.embedding(2, kWidth);
  l.layer_norm(kWidth);
  for (int layer = 0; layer < 24; ++layer) {
    for (int qkv = 0; qkv < 3; ++qkv) l.linear(kWidth, kWidth, kTokens);
    l.compute(attention_macs(kTokens, kWidth));
    l.linear(kWidth, kWidth, kTokens);
    l.layer_norm(kWidth);
    l.linear(kWidth, 4 * kWidth, kTokens);
    l.linear(4 * kWidth, kWidth, kTokens);
    l.layer_norm(kWidth);
  }
  l.linear(kWidth, kWidth);  // pooler, on the first token
  return l.take();
}

// GPT-2 (vocabulary 50257, context 1024): token and position embeddings, pre-norm layers, the
// final layer norm, and the output projection tied to the token embedding (no tensor of its own).
std::vector<ModelLayer> gpt2(int layers, int64_t width) {
  constexpr int64_t kVocabulary = 50257, kTokens = 1024;
  Layers l;
  l.embedding(kVocabulary, width), l.embedding(kTokens, width);
  for (int layer = 0; layer < layers; ++layer) {
    l.layer_norm(width);
    l.linear(width, 3 * width, kTokens);
    l.compute(attention_macs(kTokens, width));
    l.linear(width, width, kTokens);
    l.layer_norm(width);
    l.linear(width, 4 * width, kTokens);
    l.linear(4 * width, width, kTokens);
  }
  l.layer_norm(width);
  l.compute(static_cast<double>(kVocabulary * width * kTokens));
  return l.take();
}

std::vector<ModelLayer> build(std::string_view name) {
  if (name == "vgg16") return vgg16();
  if (name == "resnet50") return resnet({3, 4, 6, 3});
  if (name == "resnet101") return resnet({3, 4, 23, 3});
  if (name == "inceptionv3") return inception_v3();
  if (name == "alexnet") return alexnet();
  if (name == "bert-large") return bert_large();
  if (name == "gpt2-small") return gpt2(12, 768);
  if (name == "gpt2-large") return gpt2(36, 1280);
  if (name == "gpt2-xl") return gpt2(48, 1600);
  return {};
}

std::vector<GradientBucket> assign_buckets(const std::vector<ModelLayer>& layers) {
  double total_macs = 0;
  for (const ModelLayer& layer : layers) total_macs += layer.forward_macs;
  std::vector<GradientBucket> buckets;
  GradientBucket open;
  double elapsed = 0;
  for (auto layer = layers.rbegin(); layer != layers.rend(); ++layer) {
    elapsed += total_macs > 0 ? layer->forward_macs / total_macs : 0;
    for (auto tensor = layer->tensors.rbegin(); tensor != layer->tensors.rend(); ++tensor) {
      open.bytes += 4.0 * static_cast<double>(*tensor);
      open.ready_share = std::min(1.0, elapsed);
      if (open.bytes >= (buckets.empty() ? kDdpFirstBucketBytes : kDdpBucketBytes)) {
        buckets.push_back(open);
        open = GradientBucket{};
      }
    }
  }
  if (open.bytes > 0) buckets.push_back(open);
  return buckets;
}

}  // namespace

const std::vector<ModelLayer>& model_layers(int model) {
  static const std::vector<std::vector<ModelLayer>> all = [] {
    std::vector<std::vector<ModelLayer>> out;
    for (const DnnModel& m : model_catalog()) out.push_back(build(m.name));
    return out;
  }();
  static const std::vector<ModelLayer> none;
  return model_at(model) ? all[static_cast<size_t>(model)] : none;
}

const std::vector<GradientBucket>& ddp_buckets(int model) {
  static const std::vector<std::vector<GradientBucket>> all = [] {
    std::vector<std::vector<GradientBucket>> out;
    for (size_t m = 0; m < model_catalog().size(); ++m) out.push_back(assign_buckets(model_layers(static_cast<int>(m))));
    return out;
  }();
  static const std::vector<GradientBucket> none;
  return model_at(model) ? all[static_cast<size_t>(model)] : none;
}

}  // namespace topsim
