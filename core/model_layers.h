// Layer by layer, what each catalog model (core/model_catalog.h) holds and computes: its
// parameter tensors in the order the model defines them (PyTorch's `model.parameters()` order)
// and the forward multiply-accumulates of the layer that owns them. The data-parallel pipeline
// (core/throughput.h) reads two things from it: when, during the backward pass, each gradient
// is ready (layers run backward in reverse order, each taking time in proportion to its MACs),
// and how DistributedDataParallel groups the gradients into buckets.
//
// Architectures (their definitions, not anyone's code): torchvision's VGG16, ResNet-50/101
// (v1.5: stride on the 3x3 convolution), Inception v3 (with its auxiliary classifier, as
// torchvision trains it) and AlexNet at 224 x 224 (299 x 299 for Inception v3); BERT-large as
// BertModel with its pooler (sequence 128); GPT-2 with its output projection tied to the token
// embedding (context 1024). Each model's tensors sum to the catalog's parameter count exactly
// (tests/core/test_model_layers.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace topsim {

struct ModelLayer {
  double forward_macs = 0;       // per sample; backward time is taken in proportion to it
  std::vector<int64_t> tensors;  // parameters of each tensor the layer owns, in definition order
};

// Layers of catalog model `model` in forward order; empty for an index outside the catalog.
const std::vector<ModelLayer>& model_layers(int model);

// One DistributedDataParallel gradient bucket.
struct GradientBucket {
  double bytes = 0;        // FP32 gradient bytes
  double ready_share = 0;  // share of the backward pass elapsed when its last gradient is ready, 0..1
};

// DistributedDataParallel's default bucket sizes (torch.nn.parallel.DistributedDataParallel:
// bucket_cap_mb = 25; the first bucket is capped at 1 MiB, dist._DEFAULT_FIRST_BUCKET_BYTES, so
// that the first all-reduce starts early).
inline constexpr double kDdpFirstBucketBytes = 1024.0 * 1024;
inline constexpr double kDdpBucketBytes = 25.0 * 1024 * 1024;

// The buckets of catalog model `model` in the order DDP all-reduces them. DDP walks the
// parameters in reverse definition order (the order the backward pass produces gradients) and
// closes a bucket once it holds at least its cap (kDdpFirstBucketBytes for the first,
// kDdpBucketBytes after), so a tensor larger than the cap is a bucket of its own. A bucket is
// ready when the layer of its last tensor has finished its backward step; layers run backward
// in reverse order, each for a share of the pass equal to its share of the MACs. Empty for an
// index outside the catalog.
const std::vector<GradientBucket>& ddp_buckets(int model);

}  // namespace topsim
