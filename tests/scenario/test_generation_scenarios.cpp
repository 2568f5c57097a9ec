// The shipped generation scenarios: the same V100-measured workload on 16 DGX-1 V100, 16 DGX
// A100 and 16 HGX H100 nodes, at a load where queueing does not hide the GPU.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::TempDir;

namespace {

double mean_jct_s(const TempDir& dir, const std::string& model) {
  const std::string out = dir.file(model);
  const CliResult r = run_cli("run '" + std::string(TOPSIM_SOURCE_DIR) + "/scenarios/generation-" + model + ".json' -o '" + out +
                              "' --no-report --quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto results = nlohmann::json::parse(read_text(out + "/results.json"));
  return results.at("schedulers").at(0).at("metrics").at("jct_s.mean").at("mean").get<double>();
}

}  // namespace

TEST_CASE("scenario::generations: mean JCT falls with the GPU generation by the model mix's throughput ratio", "[scenario]") {
  // Expectation: the default synthetic mix (ResNet-50 40%, VGG16, ResNet-101, BERT-large 15%
  // each, Inception v3 10%, GPT-2 small 5%; half TensorFlow) trains 1.66x faster per GPU on an
  // A100 and 3.19x on an H100 than on a V100 at the mix's batches (single-GPU figures of
  // core/model_catalog.h, equal weight per job). Communication and the few waits move the
  // measured ratio by a few percent at most.
  TempDir dir;
  const double v100 = mean_jct_s(dir, "dgx1-v100"), a100 = mean_jct_s(dir, "dgx-a100"), h100 = mean_jct_s(dir, "hgx-h100");
  CHECK(v100 / a100 == Approx(1.66).epsilon(0.05));
  CHECK(v100 / h100 == Approx(3.19).epsilon(0.05));
}
