// The LLM step model's mechanisms on small cases (core/llm_step.h, core/llm_links.h).
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/builtin_models.h"
#include "core/llm_estimate.h"
#include "core/topology.h"
#include "tests/core/llm_published.h"
#include "tests/core/model_fixture.h"

namespace topsim {
namespace {

const LlmModel& llm(const char* name) {
  auto found = find_llm_model(name);
  REQUIRE(found.ok());
  return **found;
}

ParallelConfig config(int tp, int pp, int dp, int gbs = 0) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.global_batch = gbs;
  c.sequence_parallel = true;
  return c;
}

LlmStep estimate(const LlmModel& model, const ParallelConfig& c, const char* node = "hgx-h100") {
  auto estimate = estimate_llm_idle(model, c, *builtin_model(node));
  INFO((estimate ? "" : estimate.error().message));
  REQUIRE(estimate.ok());
  return estimate->step;
}

}  // namespace

TEST_CASE("core::llm catalog parameter counts reproduce the published ones", "[core][llm]") {
  CHECK(llm("llama3-8b").parameters() == Approx(8.030e9).epsilon(0.001));
  CHECK(llm("llama3-70b").parameters() == Approx(70.554e9).epsilon(0.001));
  CHECK(llm("llama3.1-405b").parameters() == Approx(405.853e9).epsilon(0.001));
  CHECK(llm("llama2-7b").parameters() == Approx(6.738e9).epsilon(0.001));
  CHECK(llm("mixtral-8x7b").parameters() == Approx(46.70e9).epsilon(0.002));
  CHECK(llm("mixtral-8x7b").parameters(true) == Approx(12.88e9).epsilon(0.002));
  // Narayanan et al. Table 1 (Eq. 2): 1.7B (1.652 unrounded), 145.6B, 529.6B, 1008.0B.
  CHECK(llm("megatron-1.7b").parameters() == Approx(1.652e9).epsilon(0.001));
  CHECK(llm("megatron-146b").parameters() == Approx(145.6e9).epsilon(0.001));
  CHECK(llm("megatron-530b").parameters() == Approx(529.6e9).epsilon(0.001));
  CHECK(llm("megatron-1t").parameters() == Approx(1008.0e9).epsilon(0.001));
  CHECK(find_llm_model("Llama-3-70B").ok());
  CHECK_THAT(find_llm_model("llama4-70b").error().message, Catch::Contains("did you mean"));
}

TEST_CASE("core::llm pipeline bubble is (p-1)/v micro-batch slots", "[core][llm]") {
  // 8 stages, 8 micro-batches: the bubble is 7 of 15 slots; interleaving over 2 halves it.
  ParallelConfig c = config(8, 8, 1, 8);
  const LlmStep plain = estimate(llm("gpt3-175b"), c);
  const double slot = (plain.step_ms - plain.pp_bubble_ms - plain.pp_p2p_ms - plain.dp_exposed_ms - plain.optimizer_ms) / 8;
  CHECK(plain.pp_bubble_ms == Approx(7 * slot));
  c.vpp = 2;
  const LlmStep interleaved = estimate(llm("gpt3-175b"), c);
  CHECK(interleaved.pp_bubble_ms == Approx(plain.pp_bubble_ms / 2).epsilon(0.01));
}

TEST_CASE("core::llm a TP group split across nodes is slower by the link ratio", "[core][llm]") {
  auto node = builtin_model("hgx-h100");
  auto topology = Topology::build(*node);
  REQUIRE(topology.ok());
  const Allocator allocator(*topology);
  const std::vector<LinkNode> nodes(2, LinkNode{&allocator, 400});
  ParallelConfig c = config(8, 1, 2);
  std::vector<RankSite> packed, split;
  for (int r = 0; r < 16; ++r) packed.push_back({r / 8, r % 8, r / 8});
  // Each TP group: 4 GPUs on one node, 4 on the other.
  for (int r = 0; r < 16; ++r) split.push_back({(r / 4) % 2, (r % 4) + 4 * (r / 8), (r / 4) % 2});
  auto inside = llm_links(c, packed, nodes);
  auto across = llm_links(c, split, nodes);
  REQUIRE(inside.ok());
  REQUIRE(across.ok());
  CHECK(inside->tp.hosts == 1);
  CHECK(across->tp.hosts == 2);
  // 4 GPUs' NICs (4 x 400 Gb/s InfiniBand, 177 GB/s) against NVLS over 8 on the NVSwitch (490.3):
  // across, NCCL's Tree over the 2 hosts, 0.92 x 177 x 2 x 7/8 = 285.0 (core/nccl_algo.h).
  CHECK(across->tp.algorithm == NcclAlgorithm::Tree);
  CHECK(across->tp.bus_bandwidth_gbps == Approx(0.92 * 4 * 50 * kInfiniBandEfficiency * 2 * 7 / 8));
  CHECK(across->tp.bus_bandwidth_gbps < inside->tp.bus_bandwidth_gbps * 0.6);
  const LlmModel& model = llm("llama3-70b");
  auto fast = llm_step(model, c, *gpu("h100"), *inside);
  auto slow = llm_step(model, c, *gpu("h100"), *across);
  REQUIRE(fast.ok());
  REQUIRE(slow.ok());
  // The TP time grows with the bandwidth ratio (latency terms aside).
  const double ratio = inside->tp.bus_bandwidth_gbps / across->tp.bus_bandwidth_gbps;
  CHECK(slow->tp_ms / fast->tp_ms == Approx(ratio).epsilon(0.1));
  CHECK(slow->tokens_per_sec < fast->tokens_per_sec);
}

TEST_CASE("core::llm a middle pipeline stage's NICs carry one neighbour at a time under 1F1B and both when interleaved",
          "[core][llm]") {
  // TP 8 x PP 3 on three HGX H100 nodes, a stage a node: GPU g of the middle node exchanges with
  // GPU g of the node before and of the node after, through its own 400G NIC.
  auto node = builtin_model("hgx-h100");
  auto topology = Topology::build(*node);
  REQUIRE(topology.ok());
  const Allocator allocator(*topology);
  const std::vector<LinkNode> nodes(3, LinkNode{&allocator, 400});
  std::vector<RankSite> sites;
  for (int r = 0; r < 24; ++r) sites.push_back({r / 8, r % 8, r / 8});
  ParallelConfig c = config(8, 3, 1);
  const double nic = 50 * kInfiniBandEfficiency;  // one 400 Gb/s NIC's achieved GB/s
  auto plain = llm_links(c, sites, nodes);
  REQUIRE(plain.ok());
  CHECK(plain->pp.hosts == 2);
  CHECK(plain->pp.bus_bandwidth_gbps == Approx(nic));  // one pair at a time per NIC
  c.vpp = 2;
  auto interleaved = llm_links(c, sites, nodes);
  REQUIRE(interleaved.ok());
  CHECK(interleaved->pp.bus_bandwidth_gbps == Approx(nic / 2));  // both pairs at once
  // The other kinds are counted as before: every TP group inside its node either way.
  CHECK(plain->tp.bus_bandwidth_gbps == interleaved->tp.bus_bandwidth_gbps);
}

TEST_CASE("core::llm reduce-scatter and all-gather run on the ring, all-reduce may take NVLS", "[core][llm]") {
  // DP 8 on one HGX H100: the group's path offers NVLS (490 GB/s) beside the ring (370.8). NCCL
  // runs an all-reduce on NVLS, the distributed optimizer's reduce-scatter and all-gather on the
  // ring: the same DP traffic as on a ring-only path with ZeRO 1, less with ZeRO 0.
  ParallelConfig c = config(1, 1, 8, 64);
  c.sequence = 4096;
  c.overlap_dp = false;
  auto placed = estimate_llm_idle(llm("llama3-8b"), c, *builtin_model("hgx-h100"));
  INFO((placed ? "" : placed.error().message));
  REQUIRE(placed.ok());
  const LlmLinks nvls = placed->links;
  REQUIRE(nvls.dp.algorithm == NcclAlgorithm::NVLS);
  LlmLinks ring = nvls;
  ring.dp.algorithm = NcclAlgorithm::Ring;
  ring.dp.bus_bandwidth_gbps = nvls.dp.algos().ring_bus_gbps;
  ring.dp.nvls_bus_gbps = 0;
  const GpuModel& h100 = *placed->gpu;
  auto step = [&](const LlmLinks& links, int zero) {
    c.zero = zero;
    auto s = llm_step(llm("llama3-8b"), c, h100, links);
    REQUIRE(s.ok());
    return *s;
  };
  CHECK(step(nvls, 1).dp_comm_ms == Approx(step(ring, 1).dp_comm_ms));
  CHECK(step(nvls, 0).dp_comm_ms < 0.8 * step(ring, 0).dp_comm_ms);
}

TEST_CASE("core::llm ZeRO-3 adds the parameter all-gathers", "[core][llm]") {
  ParallelConfig c = config(1, 1, 16, 64);
  c.sequence = 4096;
  c.zero = 1;
  const LlmStep z1 = estimate(llm("llama3-8b"), c);
  c.zero = 3;
  const LlmStep z3 = estimate(llm("llama3-8b"), c);
  // Per micro-batch (4 of them) an all-gather before forward and before backward.
  CHECK(z3.dp_comm_ms > z1.dp_comm_ms * 2);
  CHECK(z3.memory.parameters_gib < z1.memory.parameters_gib);
  c.overlap_dp = false;
  c.zero = 1;
  const LlmStep exposed = estimate(llm("llama3-8b"), c);
  CHECK(exposed.dp_exposed_ms == Approx(exposed.dp_comm_ms));
  CHECK(z1.dp_exposed_ms < exposed.dp_exposed_ms);
}

TEST_CASE("core::llm configuration errors name the field", "[core][llm]") {
  const GpuModel& h100 = *gpu("h100");
  const LlmModel& model = llm("llama3-8b");
  auto error = [&](const ParallelConfig& c, int gpus) {
    auto status = validate_parallel(model, c, h100, gpus);
    REQUIRE_FALSE(status.ok());
    return status.error().message;
  };
  CHECK(error(config(3, 1, 1), 3) == "tp 3 does not divide the 32 attention heads of llama3-8b");
  // 16 divides the 32 attention heads but not the 8 KV heads: the error names the count it misses.
  CHECK_THAT(error(config(16, 1, 1), 16), Catch::StartsWith("tp 16 does not divide the 8 KV heads of llama3-8b"));
  CHECK_THAT(error(config(2, 2, 2), 16), Catch::Contains("but the job has 16 GPUs"));
  CHECK_THAT(error(config(0, 1, 1), 0), Catch::StartsWith("tp must be at least 1"));
  ParallelConfig c = config(1, 1, 8, 100);
  CHECK_THAT(error(c, 8), Catch::StartsWith("global_batch 100 is not a multiple"));
  c = config(1, 1, 1);
  c.recompute = Recompute::None;
  CHECK_THAT(error(c, 1), Catch::StartsWith("memory: llama3-8b needs") &&
                              Catch::EndsWith("; raise tp, pp or zero, recompute, or offload layers to host memory"));
  // The advice names only what this configuration can still change: offloading needs pp 1 and
  // no recomputation (Megatron-Core), ZeRO ends at stage 3, recomputation at full. (Before: every
  // way, with "(pp 1, no recomputation)" read as the job's own settings.)
  c = config(1, 2, 1);
  c.recompute = Recompute::Selective;
  c.zero = 3;
  c.sequence = 131072;
  CHECK_THAT(error(c, 2), Catch::EndsWith("; raise tp or pp, or recompute full"));
  c.recompute = Recompute::Full;
  CHECK_THAT(error(c, 2), Catch::EndsWith("; raise tp or pp"));
  // The same in parts (memory_shortfall): what validate_parallel says is the figures and advice.
  const auto shortfall = memory_shortfall(model, c, h100);
  REQUIRE(shortfall);
  CHECK(shortfall->need_gib == Approx(llm_memory_per_gpu(model, c).total_gib()));
  CHECK(shortfall->advice == "raise tp or pp");
  CHECK(error(c, 2) == "memory: llama3-8b needs " + shortfall->figures + "; raise tp or pp");
  CHECK_THAT(shortfall->figures, Catch::EndsWith(" activations), h100 has 80"));
  CHECK_FALSE(memory_shortfall(model, config(8, 1, 1), h100));
  c = config(8, 1, 1);
  c.ep = 2;
  CHECK_THAT(error(c, 8), Catch::Contains("needs a mixture-of-experts model"));
  c = config(8, 1, 1);
  c.precision = LlmPrecision::Fp8;
  CHECK_THAT(validate_parallel(model, c, *gpu("a100-80g")).error().message, Catch::Contains("fp8 needs FP8"));
  c = config(2, 8, 1, 4);
  c.vpp = 2;
  CHECK_THAT(error(c, 16), Catch::Contains("multiple of pp"));
  // Context parallelism runs in Transformer Engine's fused attention only.
  c = config(1, 1, 1);
  c.cp = 2;
  c.attention = LlmAttention::Unfused;
  CHECK(error(c, 2) ==
        "cp 2 needs fused attention (Megatron-Core runs context parallelism only in Transformer Engine's fused attention)");
  c.attention = LlmAttention::Fused;
  CHECK(validate_parallel_shape(model, c, 2).ok());
}

TEST_CASE("core::llm offloaded layers hold no activations, their copies cost what outlasts a layer", "[core][llm]") {
  const LlmModel& model = llm("llama3-70b");
  ParallelConfig c = config(1, 1, 64, 128);
  c.sequence_parallel = false;
  c.micro_batch = 1;
  c.zero = 3;
  c.recompute = Recompute::None;
  c.precision = LlmPrecision::Fp8;
  const LlmMemory kept = llm_memory_per_gpu(model, c);
  c.offload_layers = 20;
  const LlmMemory offloaded = llm_memory_per_gpu(model, c);
  // 20 of the 80 layers' activations leave the GPU; parameters and the logits stay.
  CHECK(offloaded.activation_layer_bytes == Approx(kept.activation_layer_bytes));
  CHECK(kept.activations_gib - offloaded.activations_gib == Approx(20 * kept.activation_layer_bytes / (1 << 30)));
  CHECK(offloaded.parameters_gib == Approx(kept.parameters_gib));

  // Host copies: 192 GB/s per direction into a GB200's Grace memory (half its LPDDR5X, the
  // superchip's two GPUs copying at once), 48 over a B200's PCIe Gen5 x16.
  CHECK(host_copy_gbps(*gpu("gb200")) == Approx(192));
  CHECK(host_copy_gbps(*gpu("b200")) == Approx(48));
  CHECK(host_copy_gbps(*gpu("a100")) == Approx(24));

  // On B200's PCIe a layer's copy (1.7 GB, 35.6 ms) outlasts its forward (~9 ms) and backward:
  // each offloaded layer adds (copy - forward) + (copy - backward) per micro-batch, by hand.
  c.offload_layers = 0;
  const LlmStep none = estimate(model, c, "hgx-b200");
  c.offload_layers = 5;
  const LlmStep five = estimate(model, c, "hgx-b200");
  const double copy = five.memory.activation_layer_bytes / 48e9 * 1e3;
  // A layer's forward from the step's compute (forward + 2 x forward per micro-batch, no
  // recomputation); it includes the logits' share, ~1.5% of a forward, hence the 2% margin.
  const double layer_fwd = none.compute_ms / c.microbatches() / 3 / model.layers;
  REQUIRE(copy > 2 * layer_fwd);
  CHECK(five.offload_ms == Approx(c.microbatches() * 5 * (2 * copy - 3 * layer_fwd)).epsilon(0.02));
  CHECK(five.step_ms == Approx(none.step_ms + five.offload_ms).epsilon(1e-6));
  CHECK(five.memory.activations_gib < none.memory.activations_gib);
  // Twice the layers, twice the exposed copies.
  c.offload_layers = 10;
  CHECK(estimate(model, c, "hgx-b200").offload_ms == Approx(2 * five.offload_ms));

  // Into a GB200's Grace memory, NVIDIA's recipe (micro-batch 2, 40 layers): a layer's copy
  // (3.4 GB, 17.8 ms) just outlasts its forward (16.9 ms) and hides behind its backward, so only
  // the forward's differences show. The layer's forward is bracketed between the step's forward
  // per layer with the logits' share and 3% below it.
  c.micro_batch = 2;
  c.offload_layers = 40;
  const LlmStep gb200 = estimate(model, c, "gb200-nvl72-tray");
  const double c2c_copy = gb200.memory.activation_layer_bytes / 192e9 * 1e3;
  const double fwd_bound = gb200.compute_ms / c.microbatches() / 3 / model.layers;
  CHECK(gb200.offload_ms >= c.microbatches() * 40 * (c2c_copy - fwd_bound));
  CHECK(gb200.offload_ms <= c.microbatches() * 40 * (c2c_copy - 0.97 * fwd_bound));
  CHECK(gb200.offload_ms < 0.01 * gb200.step_ms);
  CHECK(gb200.memory.total_gib() < gpu("gb200")->memory_gib);
  c.offload_layers = 0;
  CHECK_FALSE(validate_parallel(model, c, *gpu("gb200"), 64).ok());  // 281.8 GiB without the offload
}

TEST_CASE("core::llm offloading errors name the field", "[core][llm]") {
  const LlmModel& model = llm("llama3-8b");
  ParallelConfig c = config(1, 1, 8, 8);
  c.recompute = Recompute::None;
  c.offload_layers = 32;
  CHECK(validate_parallel_shape(model, c, 8).error().message ==
        "offload_layers 32 must be from 0 to 31 (fewer than the 32 layers of llama3-8b)");
  c.offload_layers = -1;
  CHECK_THAT(validate_parallel_shape(model, c, 8).error().message, Catch::StartsWith("offload_layers -1 must be from 0"));
  c.offload_layers = 4;
  CHECK(validate_parallel_shape(model, c, 8).ok());
  c.recompute = Recompute::Selective;
  CHECK(validate_parallel_shape(model, c, 8).error().message ==
        "offload_layers 4 needs recompute none (Megatron-Core offloads no recomputed layer)");
  c = config(1, 2, 4, 8);
  c.recompute = Recompute::None;
  c.offload_layers = 4;
  CHECK(validate_parallel_shape(model, c, 8).error().message ==
        "offload_layers 4 needs pp 1 (Megatron-Core offloads no pipelined model)");
}

TEST_CASE("core::llm mixture of experts: EP all-to-all on the EP group's links", "[core][llm]") {
  ParallelConfig c = config(1, 1, 8, 64);
  c.ep = 8;
  c.precision = LlmPrecision::Bf16;
  const LlmStep step = estimate(llm("mixtral-8x7b"), c);
  CHECK(step.ep_ms > 0);
  CHECK(step.memory.total_gib() < 80);
  // Active parameters drive the compute: Mixtral trains at roughly a 13B dense model's rate.
  CHECK(step.model_tflops_per_gpu > 0);
}

TEST_CASE("core::llm offloaded activations must fit in the node's host memory", "[core][llm]") {
  const LlmModel& model = **find_llm_model("llama3-70b");
  ParallelConfig c;
  c.dp = 64;
  c.zero = 3;
  c.micro_batch = 2;
  c.global_batch = 128;
  c.recompute = Recompute::None;
  // One layer of one micro-batch, sequence parallelism off and TP 1: s b h (18 + 4 ffn/h) bytes
  // = 8192 x 2 x 8192 x (18 + 4 x 28672/8192) = 4 GiB.
  c.offload_layers = 76;
  CHECK(llm_offload_host_gib(model, c, 8) == Approx(76 * 4 * 8));  // 2432 GiB on 8 GPUs
  const NodeModel h100 = *builtin_model("hgx-h100");               // 2048 GiB
  const Status over = validate_host_memory(model, c, h100);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().message ==
        "host memory: offload_layers 76 keeps 304 GiB of llama3-70b's activations per GPU in host memory, 2,432 GiB for 8 "
        "GPUs on a node of hgx-h100, which has 2,048 GiB; offload fewer layers");
  c.offload_layers = 64;  // 2048 GiB: just fits
  CHECK(validate_host_memory(model, c, h100).ok());
  c.offload_layers = 76;
  CHECK(validate_host_memory(model, c, *builtin_model("pcie-h100")).ok());  // states none: not checked
  // A GB200 tray holds 4 of the job's GPUs: 4 x 76 x 4 = 1216 GiB against its 960.
  CHECK_FALSE(validate_host_memory(model, c, *builtin_model("gb200-nvl72-tray")).ok());
  c.offload_layers = 60;  // 960 GiB
  CHECK(validate_host_memory(model, c, *builtin_model("gb200-nvl72-tray")).ok());
  // The estimate refuses what the host cannot hold.
  c.offload_layers = 76;
  const auto estimate = estimate_llm_idle(model, c, h100);
  REQUIRE_FALSE(estimate.ok());
  CHECK_THAT(estimate.error().message, Catch::StartsWith("host memory: "));
}

TEST_CASE("core::llm an unfused attention core moves its scores through memory", "[core][llm]") {
  // Megatron GPT 1.7B on one DGX A100 (2,039 GB/s), TP 1 x DP 8, one sequence of 2,048 tokens per
  // micro-batch: each layer's scores are 5 a s^2 b = 5 x 24 x 2048^2 bytes (Korthikanti Table 2),
  // written and read once per forward pass of the attention core.
  const LlmModel& model = llm("megatron-1.7b");
  ParallelConfig c = config(1, 1, 8, 16);
  c.sequence_parallel = false;
  const double score_bytes = 5.0 * 24 * 2048 * 2048;
  const double pass_ms = model.layers * 2 * score_bytes / 2039e9 * 1e3;  // one forward of every layer
  const int m = c.microbatches();
  REQUIRE(m == 2);
  for (const auto& [recompute, forward_passes] :
       {std::pair{Recompute::None, 3}, std::pair{Recompute::Selective, 4}, std::pair{Recompute::Full, 4}}) {
    INFO("recompute " << enum_name(recompute));
    c.recompute = recompute;
    c.attention = LlmAttention::Fused;
    const LlmStep fused = estimate(model, c, "dgx-a100-80g");
    c.attention = LlmAttention::Unfused;
    const LlmStep unfused = estimate(model, c, "dgx-a100-80g");
    // Forward, backward (twice the forward's traffic) and the recomputed forward, where the
    // recomputation reruns the core (selective) or the whole layer (full).
    CHECK(unfused.compute_ms - fused.compute_ms == Approx(m * forward_passes * pass_ms).epsilon(1e-9));
    CHECK(unfused.tp_ms == fused.tp_ms);
    // Without recomputation the scores wait in memory for the backward pass; recomputation keeps
    // none of them.
    const double held_gib = recompute == Recompute::None ? model.layers * score_bytes / (1 << 30) : 0;
    CHECK(unfused.memory.activations_gib - fused.memory.activations_gib == Approx(held_gib).margin(1e-9));
  }
  // Split over 8 tensor-parallel ranks, each GPU holds and moves an eighth of the heads' scores.
  c = config(8, 1, 1, 2);
  c.recompute = Recompute::None;
  const LlmMemory fused = llm_memory_per_gpu(model, c);
  c.attention = LlmAttention::Unfused;
  CHECK(llm_memory_per_gpu(model, c).activations_gib - fused.activations_gib ==
        Approx(model.layers * score_bytes / 8 / (1 << 30)));
}

TEST_CASE("core::llm the fastest micro-batch that fits", "[core][llm]") {
  // Megatron-Core's 32B on 384 H100 (TP 8, DP 48, batch 192: 4 sequences per data-parallel rank).
  const published::LlmRow row = published::mcore_h100_bf16().back();
  const NodeModel h100 = *builtin_model("hgx-h100");
  auto chosen = estimate_llm_idle_fastest_micro_batch(row.model, row.config, h100);
  REQUIRE(chosen.ok());
  // Each size dividing 4 by itself: the choice is the fastest of them.
  double fastest = 0;
  for (int size : {1, 2, 4}) {
    ParallelConfig c = row.config;
    c.micro_batch = size;
    auto e = estimate_llm_idle(row.model, c, h100);
    REQUIRE(e.ok());
    CHECK(e->micro_batch == size);
    fastest = std::max(fastest, e->step.tokens_per_sec);
    CHECK(chosen->step.tokens_per_sec >= e->step.tokens_per_sec);
  }
  CHECK(chosen->step.tokens_per_sec == fastest);
  // At micro-batch 1 the FP32 gradients' reduce-scatter outlasts one micro-batch's backward
  // pass; at 4 one backward pass of the whole batch hides it.
  CHECK(chosen->micro_batch == 4);
  CHECK(chosen->step.dp_exposed_ms == 0);
  ParallelConfig one = row.config;
  one.micro_batch = 1;
  CHECK(estimate_llm_idle(row.model, one, h100)->step.dp_exposed_ms > 100);
  // Sizes whose activations exceed the GPU are passed over: Llama 3 8B, TP 2 x DP 8 on 16 H100,
  // 128 sequences of 8,192 tokens a step (16 per rank), selective recomputation: 1 and 2 fit, 4
  // (100 GiB) does not.
  const LlmModel& l8 = llm("llama3-8b");
  ParallelConfig c = config(2, 1, 8, 128);
  c.micro_batch = 4;
  REQUIRE_FALSE(estimate_llm_idle(l8, c, h100).ok());
  auto passed_over = estimate_llm_idle_fastest_micro_batch(l8, c, h100);
  REQUIRE(passed_over.ok());
  CHECK(passed_over->micro_batch <= 2);
  // None fits (TP 1, no recomputation: 92 GiB at micro-batch 1): micro-batch 1's error. No global
  // batch, or one dp does not divide: refused.
  ParallelConfig none = config(1, 1, 8, 32);
  none.recompute = Recompute::None;
  auto refused = estimate_llm_idle_fastest_micro_batch(l8, none, h100);
  REQUIRE_FALSE(refused.ok());
  none.micro_batch = 1;
  CHECK(refused.error().message == estimate_llm_idle(l8, none, h100).error().message);
  CHECK_THAT(refused.error().message, Catch::StartsWith("memory: llama3-8b needs 92.13 GiB"));
  CHECK_FALSE(estimate_llm_idle_fastest_micro_batch(l8, config(2, 1, 8, 0), h100).ok());
  CHECK(estimate_llm_idle_fastest_micro_batch(l8, config(2, 1, 8, 100), h100).error().message ==
        "global_batch 100 is not a multiple of dp = 8");
}

TEST_CASE("core::llm a job known only by its model gets the smallest model-parallel size that fits its GPU", "[core][llm]") {
  // Narayanan et al., SC'21, takeaways #1 and #2: TP within a server, then PP, model parallelism
  // just large enough to fit, data parallelism for the rest. Every candidate of every other size
  // (M = TP x PP, TP as large as the size allows, up to 8) is estimated on idle nodes of the GPU
  // at its fastest micro-batch: smaller sizes do not fit, larger ones are slower.
  struct Case {
    const char* model;
    int gpus;
    const char* node;
    const char* gpu;
    int tp, pp;
  };
  for (const Case& k : {Case{"llama3-8b", 8, "hgx-h100", "h100", 2, 1}, Case{"llama3-8b", 16, "hgx-h100", "h100", 2, 1},
                        Case{"llama3-8b", 16, "hgx-h200", "h200", 1, 1}, Case{"llama3-8b", 16, "dgx-a100", "a100", 4, 1},
                        Case{"llama2-7b", 16, "hgx-h100", "h100", 1, 1}, Case{"llama2-13b", 64, "hgx-h100", "h100", 2, 1},
                        Case{"mixtral-8x7b", 64, "hgx-h100", "h100", 4, 1}, Case{"llama3-70b", 64, "hgx-h100", "h100", 8, 2},
                        Case{"llama3-70b", 128, "dgx-a100", "a100", 8, 4}}) {
    INFO(k.model << " on " << k.gpus << " " << k.gpu);
    const LlmModel& model = llm(k.model);
    const GpuModel* gpu = find_gpu_model(k.gpu);
    REQUIRE(gpu != nullptr);
    const ParallelConfig chosen = default_parallel(model, k.gpus, gpu);
    CHECK(chosen.tp == k.tp);
    CHECK(chosen.pp == k.pp);
    CHECK(chosen.gpus() == k.gpus);
    CHECK(chosen.sequence_parallel == (k.tp > 1));
    CHECK(chosen.global_batch % chosen.dp == 0);
    CHECK(static_cast<double>(chosen.global_batch) * model.default_sequence >= 4.0 * 1024 * 1024);
    CHECK(validate_parallel(model, chosen, *gpu, k.gpus).ok());
    const auto best = estimate_llm_idle_fastest_micro_batch(model, chosen, *builtin_model(k.node));
    REQUIRE(best.ok());
    for (int m = 1; m <= k.gpus; m *= 2) {
      if (m == k.tp * k.pp) continue;
      ParallelConfig other = chosen;
      other.tp = std::min(m, 8);
      other.pp = m / other.tp;
      other.dp = k.gpus / m;
      other.sequence_parallel = other.tp > 1;
      other.global_batch = (chosen.global_batch + other.dp - 1) / other.dp * other.dp;
      if (!validate_parallel_shape(model, other, k.gpus)) continue;
      const auto e = estimate_llm_idle_fastest_micro_batch(model, other, *builtin_model(k.node));
      INFO("tp " << other.tp << " pp " << other.pp);
      if (m < k.tp * k.pp) CHECK_FALSE(e.ok());  // smaller ones do not fit
      if (e.ok()) CHECK(e->step.tokens_per_sec < best->step.tokens_per_sec);
    }
  }
  // Llama 3 8B on 16 H100: TP 2 runs 7,902.6 tokens/s per GPU, 19.3% above TP 8's 6,623.4.
  const ParallelConfig l8 = default_parallel(llm("llama3-8b"), 16, find_gpu_model("h100"));
  CHECK(estimate_llm_idle_fastest_micro_batch(llm("llama3-8b"), l8, *builtin_model("hgx-h100"))->step.tokens_per_sec / 16 ==
        Approx(7902.6).margin(0.05));
  // Without a GPU: the largest TP that divides, no pipelining. When nothing fits (Llama 3 70B on
  // 8 H100 needs 157 GiB at TP 8; V100 has no BF16): the largest size tried, the least memory.
  CHECK(default_parallel(llm("llama3-8b"), 16).tp == 8);
  CHECK(default_parallel(llm("llama3-8b"), 12).tp == 4);  // 8 does not divide 12
  const ParallelConfig v100 = default_parallel(llm("llama3-8b"), 16, find_gpu_model("v100"));
  CHECK((v100.tp == 8 && v100.pp == 2 && v100.dp == 1));
  const ParallelConfig none = default_parallel(llm("llama3-70b"), 8, find_gpu_model("h100"));
  CHECK((none.tp == 8 && none.pp == 1));
  CHECK_FALSE(validate_parallel(llm("llama3-70b"), none, *find_gpu_model("h100"), 8).ok());
  // 3 GPUs: M of 1 or 3, TP 1; neither fits (111 and 82 GiB), so PP 3.
  const ParallelConfig odd = default_parallel(llm("llama3-8b"), 3, find_gpu_model("h100"));
  CHECK((odd.tp == 1 && odd.pp == 3 && odd.dp == 1));
}

}  // namespace topsim
