#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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
