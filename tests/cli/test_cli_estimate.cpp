// `topsim estimate`'s micro-batch choice as a user meets it: --micro-batch auto times each size
// dividing the sequences a data-parallel rank takes per step and keeps the fastest that fits.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::run_cli;

TEST_CASE("cli::estimate --micro-batch auto keeps the fastest that fits and says so", "[cli][llm]") {
  // Llama 3 8B on 16 H100 (TP 2, DP 8), 128 sequences a step: 16 per data-parallel rank.
  const std::string job = "estimate --node hgx-h100 --gpus 16 --model llama3-8b --tp 2 --global-batch 128 --sequence-parallel";
  const CliResult chosen = run_cli(job + " --micro-batch auto --json");
  INFO(chosen.err);
  REQUIRE(chosen.exit_code == 0);
  const auto json = nlohmann::json::parse(chosen.out);
  CHECK(json["config"]["micro_batch_chosen"] == true);
  const int size = json["config"]["micro_batch"].get<int>();
  CHECK(16 % size == 0);
  CHECK(json["config"]["microbatches"].get<int>() == 16 / size);
  // Every size dividing 16, given by hand, is at most as fast, or does not fit.
  int runnable = 0;
  for (int other : {1, 2, 4, 8, 16}) {
    const CliResult given = run_cli(job + " --micro-batch " + std::to_string(other) + " --json");
    if (given.exit_code == 2) {
      CHECK(given.err.find("memory: ") != std::string::npos);
      CHECK(other > size);
      continue;
    }
    REQUIRE(given.exit_code == 0);
    ++runnable;
    const auto figures = nlohmann::json::parse(given.out);
    CHECK(figures["config"]["micro_batch_chosen"] == false);
    CHECK(figures["tokens_per_s"].get<double>() <= json["tokens_per_s"].get<double>());
    if (other == size) CHECK(figures["step_s"] == json["step_s"]);
  }
  CHECK(runnable >= 2);
  // The text names the choice.
  const CliResult text = run_cli(job + " --micro-batch auto");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("micro-batch " + std::to_string(size) + " (the fastest that fits, " + std::to_string(16 / size) +
                      " per step)") != std::string::npos);
  check_bad_input(run_cli(job + " --micro-batch 0"), "--micro-batch: must be at least 1, got 0");
}
