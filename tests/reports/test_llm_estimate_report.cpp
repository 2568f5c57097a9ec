// `topsim estimate`'s renderers (reports/llm_estimate_report.h).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/builtin_models.h"
#include "reports/llm_estimate_report.h"

namespace topsim {
namespace {

// The step's parts in the JSON, seconds: they add up to step_s.
double breakdown_sum(const nlohmann::json& json) {
  double parts = 0;
  for (const auto& [key, value] : json["breakdown_s"].items()) parts += value.get<double>();
  return parts;
}

}  // namespace

TEST_CASE("reports::llm estimate JSON and text carry the figures with units", "[reports][llm]") {
  ParallelConfig c;
  c.tp = 8;
  c.pp = 2;
  c.dp = 2;
  c.global_batch = 32;
  c.sequence_parallel = true;
  const LlmModel* model = *find_llm_model("llama3-70b");
  auto estimate = estimate_llm_idle(*model, c, *builtin_model("hgx-h100"));
  REQUIRE(estimate.ok());
  const LlmEstimateReport report{"hgx-h100", 8, 2048, model, c, *estimate};
  const auto json = nlohmann::json::parse(render_llm_estimate_json(report));
  CHECK(json["model"] == "llama3-70b");
  CHECK(json["nodes"] == 4);
  CHECK(json["config"]["microbatches"] == 16);
  CHECK(json["step_s"].get<double>() == Approx(estimate->step.step_ms / 1e3).margin(1e-6));
  CHECK(json["tokens_per_s"].get<double>() == Approx(32.0 * 8192 / (estimate->step.step_ms / 1e3)).epsilon(1e-6));
  CHECK(json["links"]["tp"]["hosts"] == 1);
  CHECK(json["links"]["pp"]["transport"] == "rdma");
  CHECK(breakdown_sum(json) == Approx(json["step_s"].get<double>()).epsilon(1e-4));
  const std::string text = render_llm_estimate_text(report);
  CHECK_THAT(text, Catch::Contains("4 nodes of hgx-h100"));
  CHECK_THAT(text, Catch::Contains("tokens/s per GPU"));
  CHECK_THAT(text, Catch::Contains("GiB of 80"));
  CHECK_THAT(text, Catch::Contains("pipeline bubble"));
  CHECK(json["nvlink_domain_nodes"] == 0);
  CHECK_THAT(text, !Catch::Contains("NVLink domain"));
  // Without offloading the text has no offload line or row; the JSON keeps its keys at 0.
  CHECK_THAT(text, !Catch::Contains("offload"));
  CHECK(json["config"]["offload_layers"] == 0);
  CHECK(json["breakdown_s"]["offload_exposed"] == 0.0);
}

TEST_CASE("reports::llm estimate shows offloaded layers, the host link and the exposed copies", "[reports][llm]") {
  ParallelConfig c;
  c.dp = 64;
  c.zero = 3;
  c.global_batch = 128;
  c.recompute = Recompute::None;
  c.precision = LlmPrecision::Fp8;
  c.offload_layers = 5;
  const LlmModel* model = *find_llm_model("llama3-70b");
  auto estimate = estimate_llm_idle(*model, c, *builtin_model("hgx-b200"));
  REQUIRE(estimate.ok());
  REQUIRE(estimate->step.offload_ms > 0);
  const LlmEstimateReport report{"hgx-b200", 8, 2048, model, c, *estimate};
  const auto json = nlohmann::json::parse(render_llm_estimate_json(report));
  CHECK(json["config"]["offload_layers"] == 5);
  CHECK(json["breakdown_s"]["offload_exposed"].get<double>() == Approx(estimate->step.offload_ms / 1e3).margin(1e-6));
  CHECK(breakdown_sum(json) == Approx(json["step_s"].get<double>()).epsilon(1e-4));
  const std::string text = render_llm_estimate_text(report);
  CHECK_THAT(text, Catch::Contains("the activations of 5 layers wait in host memory (48 GB/s per direction)"));
  CHECK_THAT(text, Catch::Contains("host offload exposed"));
  // 5 layers on each of the node's 8 GPUs, a layer of micro-batch 1 under FP8:
  // 8192 x 8192 x (18 + 14 - 6.5) bytes = 1.59375 GiB.
  CHECK_THAT(text, Catch::Contains("host memory     63.75 GiB offloaded per node (8 GPUs x 7.969) of 2,048 GiB\n"));
  CHECK(json["memory_gib"]["host_offload_per_node"] == 63.75);
  CHECK(json["memory_gib"]["host"] == 2048.0);
  const LlmEstimateReport unstated{"hgx-b200", 8, 0, model, c, *estimate};
  CHECK_THAT(render_llm_estimate_text(unstated), Catch::Contains("hgx-b200 states no host memory: not checked"));
  CHECK(nlohmann::json::parse(render_llm_estimate_json(unstated))["memory_gib"]["host"].is_null());
}

TEST_CASE("reports::llm estimate names the NVLink domains the nodes fill", "[reports][llm]") {
  ParallelConfig c;
  c.tp = 4;
  c.dp = 40;  // 160 GPUs: 40 trays, 3 racks of 18 (the last partly)
  const LlmModel* model = *find_llm_model("llama3-8b");
  auto estimate = estimate_llm_idle(*model, c, *builtin_model("gb200-nvl72-tray"), NetworkModel{}, std::nullopt, 18);
  REQUIRE(estimate.ok());
  const LlmEstimateReport report{"gb200-nvl72-tray", 4, 960, model, c, *estimate};
  CHECK(nlohmann::json::parse(render_llm_estimate_json(report))["nvlink_domain_nodes"] == 18);
  CHECK_THAT(render_llm_estimate_text(report),
             Catch::Contains("40 nodes of gb200-nvl72-tray (4 GPUs each) in 3 NVLink domains of 18 nodes"));
}

}  // namespace topsim
