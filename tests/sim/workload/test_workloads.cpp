#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "core/llm_catalog.h"
#include "core/llm_step.h"
#include "sim/workload/synthetic_workload.h"
#include "sim/workload/workload_mix.h"
#include "tests/sim/workload/workload_fixture.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

TEST_CASE("sim::gang_shape splits jobs above a node into equal pods", "[sim][workload]") {
  SECTION("up to a node's worth of GPUs is one pod") {
    CHECK(gang_shape(1, 8).workers == 1);
    CHECK(gang_shape(8, 8).workers == 1);
    CHECK(gang_shape(8, 8).gpus_per_worker == 8);
  }
  SECTION("above it, pods of the largest divisor <= gpus_per_node") {
    auto shape = [](int gpus, int per_node) {
      const PodShape s = gang_shape(gpus, per_node);
      return std::to_string(s.workers) + "x" + std::to_string(s.gpus_per_worker);
    };
    CHECK(shape(16, 8) == "2x8");
    CHECK(shape(128, 8) == "16x8");
    CHECK(shape(12, 8) == "2x6");
    CHECK(shape(24, 8) == "3x8");
    CHECK(shape(13, 8) == "13x1");  // a prime: single-GPU pods
    CHECK(shape(12, 4) == "3x4");
  }
}

TEST_CASE("sim::synthetic generates a seeded workload", "[sim][workload]") {
  SyntheticOptions options;
  options.jobs = 100'000;
  options.seed = 7;
  options.arrival_rate_per_hour = 120;
  REQUIRE(validate(options).ok());
  const Workload w = generate_synthetic(options);

  SECTION("the requested count, sorted, numbered, the first at 0") {
    CHECK(w.jobs.size() == 100'000);
    CHECK(sorted_and_numbered(w));
    CHECK(w.jobs.front().submit_ms == 0);
    CHECK(w.source == "synthetic(seed=7)");
  }
  SECTION("same seed -> identical; another seed -> different") {
    CHECK(fingerprint(generate_synthetic(options)) == fingerprint(w));
    SyntheticOptions other = options;
    other.seed = 8;
    CHECK(fingerprint(generate_synthetic(other)) != fingerprint(w));
  }
  SECTION("the arrival rate over 100k jobs is within 2% of 120/hour") {
    const double hours = w.jobs.back().submit_ms / 3.6e6;
    CHECK(std::abs((w.jobs.size() - 1) / hours / 120.0 - 1.0) < 0.02);
  }
  SECTION("size shares within 1 point of the mix; 16-GPU jobs are 2 x 8 gangs") {
    std::map<int, double> shares;
    std::map<std::string, int> shapes;  // distinct "workers x per-worker"
    for (const JobSpec& job : w.jobs) {
      shares[job.total_gpus()] += 1.0 / w.jobs.size();
      shapes[std::to_string(job.workers) + "x" + std::to_string(job.gpus_per_worker)] = 1;
    }
    for (const SizeShare& size : options.size_mix) CHECK(std::abs(shares[size.gpus] - size.weight) < 0.01);
    CHECK(shapes == std::map<std::string, int>{{"1x1", 1}, {"1x2", 1}, {"1x4", 1}, {"1x8", 1}, {"2x8", 1}});
  }
  SECTION("model and framework shares follow the mix; the median duration is within 3% of 60 minutes") {
    const auto shares = model_shares(w);
    for (const ModelShare& share : default_model_mix()) CHECK(std::abs(shares.at(share.model) - share.weight) < 0.01);
    CHECK(std::abs(tensorflow_share(w) - 0.5) < 0.01);
    std::vector<int64_t> durations;
    for (const JobSpec& job : w.jobs) durations.push_back(job.ideal_duration_ms);
    std::nth_element(durations.begin(), durations.begin() + durations.size() / 2, durations.end());
    CHECK(std::abs(durations[durations.size() / 2] / 3.6e6 - 1.0) < 0.03);
  }
  SECTION("invalid options are reported by validate") {
    SyntheticOptions bad = options;
    bad.size_mix = {{0, 1.0}};
    CHECK(validate(bad).error().message == "synthetic options: size mix: 0 GPUs is out of range (1-65535)");
    bad = options;
    bad.arrival_rate_per_hour = 0;
    CHECK(validate(bad).error().message == "synthetic options: arrival_rate_per_hour must be a positive number");
  }
}

TEST_CASE("sim::WeightedPick: weights whose sum overflows keep their shares (none dropped)", "[sim][workload]") {
  // 1e308 + 1e308 is infinite: every draw then fell on the first size.
  const WeightedPick pick({1e308, 1e308, 0.0, 1e308});
  std::mt19937_64 rng(7);
  std::vector<int> counts(4);
  for (int i = 0; i < 3000; ++i) ++counts[pick.pick(rng)];
  CHECK(counts[2] == 0);
  for (size_t i : {size_t{0}, size_t{1}, size_t{3}}) {
    INFO(i);
    CHECK(counts[i] > 800);
  }
}

namespace {
// Training jobs of the given sizes (one pod each), ids in order.
std::vector<JobSpec> jobs_of_sizes(const std::vector<int>& sizes) {
  std::vector<JobSpec> jobs;
  for (int gpus : sizes) {
    JobSpec job;
    job.id = static_cast<uint32_t>(jobs.size());
    job.workers = 1;
    job.gpus_per_worker = static_cast<uint16_t>(gpus);
    job.ideal_duration_ms = 60000;
    jobs.push_back(job);
  }
  return jobs;
}
}  // namespace

TEST_CASE("sim::TrainingDraw draws a mix's LLM only for job sizes it fits on the reference GPU", "[sim][workload][llm]") {
  const GpuModel* h100 = find_gpu_model("h100");
  REQUIRE(h100 != nullptr);
  const LlmModel* llama = *find_llm_model("llama3-8b");
  REQUIRE(default_parallel_too_large(*llama, 1, *h100));  // 170.66 GiB at TP 1
  REQUIRE_FALSE(default_parallel_too_large(*llama, 8, *h100));
  const std::vector<ModelShare> mix = {{"resnet50", 1, 64}, {"vgg16", 1, 64}, {"llama3-8b", 2, 1}};
  std::vector<int> sizes;
  for (int i = 0; i < 4000; ++i) sizes.push_back(i % 2 == 0 ? 1 : 8);
  std::vector<JobSpec> free = jobs_of_sizes(sizes), fitted = jobs_of_sizes(sizes);
  draw_training(free, TrainingDraw(mix, 0.5), 11);
  draw_training(fitted, TrainingDraw(mix, 0.5, h100), 11);
  std::map<std::string, int> one_gpu;
  for (size_t i = 0; i < sizes.size(); ++i) {
    // As many draws per job either way: every framework draw is the same.
    CHECK(fitted[i].framework == free[i].framework);
    if (sizes[i] == 8) {  // every model fits: drawn exactly as without a reference
      CHECK(fitted[i].model == free[i].model);
      CHECK(fitted[i].llm == free[i].llm);
    } else {
      CHECK(fitted[i].llm == kNoLlm);
      ++one_gpu[workload_model_names()[fitted[i].model]];
    }
  }
  // The other models keep their proportions (1 : 1) among the 2,000 jobs of 1 GPU.
  CHECK(one_gpu.size() == 2);
  CHECK(std::abs(one_gpu["resnet50"] - 1000) < 100);
  CHECK(std::abs(one_gpu["vgg16"] - 1000) < 100);
  // Without the reference the LLM takes half of them.
  int free_llm = 0;
  for (size_t i = 0; i < sizes.size(); i += 2) free_llm += free[i].llm != kNoLlm;
  CHECK(std::abs(free_llm - 1000) < 100);

  SECTION("a size no model of the mix fits draws from the whole mix (the scenario reader refuses it)") {
    std::vector<JobSpec> only = jobs_of_sizes({1, 1, 1});
    draw_training(only, TrainingDraw({{"llama3-8b", 1, 1}}, 0.5, h100), 3);
    for (const JobSpec& job : only) CHECK(job.llm == 0);
  }
  SECTION("a GPU without the LLM's precision leaves no size out (the reader names one that runs it)") {
    const GpuModel* v100 = find_gpu_model("v100");
    CHECK_FALSE(default_parallel_too_large(*llama, 1, *v100));
    std::vector<JobSpec> on_v100 = jobs_of_sizes(sizes);
    draw_training(on_v100, TrainingDraw(mix, 0.5, v100), 11);
    for (size_t i = 0; i < sizes.size(); ++i) CHECK(on_v100[i].llm == free[i].llm);
  }
}

TEST_CASE("sim::mix_llm_limits counts the jobs a mix's LLM is left out of, and says so", "[sim][workload][llm]") {
  SyntheticOptions options;
  options.jobs = 300;
  options.size_mix = {{1, 0.5}, {2, 0.2}, {8, 0.3}};
  options.model_mix = {{"resnet50", 1, 64}, {"llama3-8b", 1, 1}, {"llama3-70b", 1, 1}};
  Workload w = generate_synthetic(options);
  set_reference_gpu(w, "h100");
  std::map<int, size_t> by_size;
  for (const JobSpec& job : w.jobs) ++by_size[job.total_gpus()];
  const std::vector<MixLlmLimit> limits = mix_llm_limits(w);
  REQUIRE(limits.size() == 2);
  // Llama 3 8B: no layout of 1 GPU fits 80 GiB; 2 GPUs (TP 2) do.
  const LlmModel* llama8 = *find_llm_model("llama3-8b");
  const bool two_fit = !default_parallel_too_large(*llama8, 2, *find_gpu_model("h100"));
  CHECK(limits[0].llm->model->name == "llama3-8b");
  CHECK(limits[0].training_jobs == 300);
  CHECK(limits[0].left_out.count(1) == 1);
  CHECK(limits[0].left_out.count(2) == (two_fit ? 0 : 1));
  CHECK(limits[0].left_out.count(8) == 0);
  CHECK(limits[0].jobs_left_out == by_size[1] + (two_fit ? 0 : by_size[2]));
  // Llama 3 70B fits none of them (8 GPUs: TP 8 needs 82 GiB and no pipelining is left).
  CHECK(limits[1].llm->model->name == "llama3-70b");
  CHECK(limits[1].jobs_left_out == 300);
  const std::string words = describe_mix_limits(limits);
  CHECK(words.find("llama3-8b is left out of the " + std::to_string(limits[0].jobs_left_out) + " jobs of 1") == 0);
  CHECK_THAT(words, Catch::Contains("; llama3-70b is left out of the 300 jobs of 1, 2 or 8 GPUs (no layout of theirs fits "
                                    "h100, 80 GiB)"));
  // A workload without a reference GPU for its LLMs, or with none, has no limits.
  Workload plain = generate_synthetic(SyntheticOptions{});
  set_reference_gpu(plain, "h100");
  CHECK(mix_llm_limits(plain).empty());
  CHECK(describe_mix_limits({}).empty());
}
