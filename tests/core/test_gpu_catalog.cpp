// The GPU catalog and the throughput of every catalog GPU, checked against measured ratios of
// public sources (none of which the model was fitted to, except the one pair each constant was
// calibrated on, which is named beside it in core/model_catalog.h).
#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "core/model_catalog.h"
#include "tests/core/model_fixture.h"

using namespace topsim;

namespace {

double rate(const char* gpu_name, const char* model_name = "resnet50", TrainingFramework fw = TrainingFramework::PyTorch) {
  auto t = single_gpu_throughput(model(model_name), *gpu(gpu_name), fw);
  REQUIRE(t.ok());
  return t->samples_per_sec;
}

double ratio(const char* faster, const char* slower) { return rate(faster) / rate(slower); }

}  // namespace

TEST_CASE("core::gpu catalog: every GPU has its data-sheet figures, a label, and a node to measure on", "[core][catalog]") {
  for (const std::string& name : gpu_model_names()) {
    INFO(name);
    const GpuModel& g = *find_gpu_model(name);
    CHECK(g.fp32_tflops > 0);
    CHECK(g.memory_gbps > 0);
    CHECK(g.tdp_w > 0);
    CHECK(gpu_at(g.catalog_index) == &g);
    CHECK((g.sm < 80 || g.tf32_tflops > 0));
    CHECK(training_gpu(name).ok());
    const NodeModel node = reference_node_model(g);
    REQUIRE_FALSE(node.gpus.empty());
    CHECK(node.gpus.front().model == g.name);
  }
  // Expectation: feature discovery's labels, both spellings, with sharing and MIG suffixes.
  CHECK(find_gpu_by_product_label("NVIDIA-A100-SXM4-80GB") == gpu("a100-80g"));
  CHECK(find_gpu_by_product_label("A100-SXM4-80GB") == gpu("a100-80g"));
  CHECK(find_gpu_by_product_label("NVIDIA-H100-80GB-HBM3") == gpu("h100"));
  CHECK(find_gpu_by_product_label("Tesla-P40-SHARED") == gpu("p40"));
  CHECK(find_gpu_by_product_label("NVIDIA-A100-80GB-PCIe-MIG-1g.10gb") == gpu("a100-pcie-80g"));
  CHECK(find_gpu_by_product_label("NVIDIA-H200") == gpu("h200"));
  CHECK(find_gpu_by_product_label("NVIDIA-A10G") == nullptr);  // AWS's A10G is not the A10
  CHECK(reference_node_name(*gpu("p40")) == "pcie-p40");
  CHECK(reference_node_name(*gpu("t4")).empty());
  CHECK(reference_node_model(*gpu("t4")).name == "pcie-8xt4");
}

TEST_CASE("core::gpu catalog: anchors keep their given figures", "[core][catalog]") {
  // Expectation: V100, A100 and H100 are the measured anchors: unchanged by the derivation.
  CHECK(rate("v100", "resnet50", TrainingFramework::TensorFlow) == 368.0);
  CHECK(rate("a100") == 938.0);
  CHECK(rate("h100") == 1800.0);
  CHECK(rate("v100-32g") == Approx(330.0));  // same rates and bandwidth as the 16 GB card
  auto derived = single_gpu_throughput(model("resnet50"), *gpu("l40s"), TrainingFramework::PyTorch);
  REQUIRE(derived.ok());
  CHECK(derived->derived);
  CHECK(derived->derivation.find("roofline") != std::string_view::npos);
}

TEST_CASE("core::gpu catalog: generation ratios agree with measured ones within 20%", "[core][catalog]") {
  SECTION("CUDA-core FP32: Gavel's measured P100 / V100 (not used to build the model)") {
    // stanford-futuredata/gavel scheduler/simulation_throughputs.json (2020-06-18), PyTorch FP32,
    // one GPU, steps/s: ResNet-50 b64 2.6195 / 4.3948 = 0.596; Transformer b64 5.0918 / 8.6178 =
    // 0.591. Gavel's P100 is a cloud PCIe card.
    CHECK(ratio("p100-pcie", "v100") == Approx(0.596).epsilon(0.20));
    CHECK(ratio("p100-pcie", "v100") == Approx(0.591).epsilon(0.20));
  }
  SECTION("tensor cores: MLPerf Training and Lambda's benchmarks (the calibration pair excluded)") {
    // MLPerf Training v3.0 ResNet-50, ASUSTeK ESC8000A-E12 8 x H100 PCIe 20.764 min vs Dell
    // XE9680 8 x H100 SXM5 13.410 min: 0.646.
    CHECK(ratio("h100-pcie", "h100") == Approx(0.646).epsilon(0.20));
    // lambdal/deeplearning-benchmark pytorch-train-throughput-fp32.csv (2024-07-24), ResNet-50
    // TF32, one GPU: H100 PCIe 1197 / H100 SXM 1753 = 0.683; A10 349 / A100 80 GB SXM 1066 =
    // 0.327; A100 40 GB PCIe 882 / A100 80 GB SXM 1066 = 0.827; A100 80 GB PCIe 1014 / 1066 = 0.951.
    CHECK(ratio("h100-pcie", "h100") == Approx(0.683).epsilon(0.20));
    CHECK(ratio("a10", "a100-80g") == Approx(0.327).epsilon(0.20));
    CHECK(ratio("a100-pcie", "a100-80g") == Approx(0.827).epsilon(0.20));
    CHECK(ratio("a100-pcie-80g", "a100-80g") == Approx(0.951).epsilon(0.20));
    // MLPerf Training v4.0, NVIDIA: ResNet-50 8 x H200 12.027 min vs 8 x H100 (eos, 1 node)
    // 13.270 min: 1.103.
    CHECK(ratio("h200", "h100") == Approx(1.103).epsilon(0.20));
    // MLPerf Training v4.0 NVIDIA l40s_n2 (2 x 4 L40S) ResNet-50 50.592 min vs 1 x DGX H100 13.270
    // min, times Dell v3.0's H100 / A100 2.017: L40S / A100 80 GB = 0.529.
    CHECK(rate("l40s") / rate("a100-80g") == Approx(0.529).epsilon(0.20));
  }
  SECTION("Blackwell: Lambda's BERT-large (its calibration was MLPerf's BERT)") {
    // lambdal/deeplearning-benchmark pytorch-train-throughput-v2-fp16.csv (2025-12): BERT-large
    // B200 523 vs H100 SXM 310-321 seq/s, 1.66.
    CHECK(ratio("b200", "h100") == Approx(1.66).epsilon(0.20));
  }
  SECTION("the order of generations") {
    CHECK(rate("p40") < rate("v100"));
    CHECK(rate("v100") < rate("a100"));
    CHECK(rate("a100") < rate("a100-80g"));
    CHECK(rate("a100-80g") < rate("h100"));
    CHECK(rate("h100") < rate("h200"));
    CHECK(rate("h200") < rate("b200"));
    CHECK(rate("l4") < rate("a10"));
  }
}
