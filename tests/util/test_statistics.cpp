// A run's distributions (wait, completion time, ...): the same figures whichever way the values
// are sorted, negative values, zeros of either sign and long runs of equal values included.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include "util/statistics.h"

using topsim::distribution_of;
using topsim::nearest_rank;

namespace {

// The figures from a plain std::sort, summed in sorted order as distribution_of sums them.
topsim::Distribution by_std_sort(std::vector<double> values) {
  topsim::Distribution d;
  d.count = values.size();
  std::sort(values.begin(), values.end());
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  d.p50 = nearest_rank(values, 0.50);
  d.p95 = nearest_rank(values, 0.95);
  d.p99 = nearest_rank(values, 0.99);
  d.max = values.back();
  return d;
}

}  // namespace

TEST_CASE("util::distribution_of matches a plain sort bit for bit, small and large", "[util][statistics]") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> wide(-1e6, 1e9);
  std::exponential_distribution<double> waits(1.0 / 600);
  for (const size_t n : {size_t{1}, size_t{7}, size_t{255}, size_t{256}, size_t{1000}, size_t{100000}}) {
    INFO(n);
    std::vector<double> values(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t kind = rng() % 4;  // a quarter zero (waits of jobs that started at once), some negative
      values[i] = kind == 0 ? 0.0 : kind == 1 ? -0.0 : kind == 2 ? wide(rng) : std::round(waits(rng) * 1000) / 1000;
    }
    const topsim::Distribution want = by_std_sort(values), got = distribution_of(values);
    CHECK(got.count == want.count);
    CHECK(got.mean == want.mean);  // exact: the same order of summation
    CHECK(got.p50 == want.p50);
    CHECK(got.p95 == want.p95);
    CHECK(got.p99 == want.p99);
    CHECK(got.max == want.max);
  }
}

TEST_CASE("util::distribution_of of equal values and of extremes", "[util][statistics]") {
  const std::vector<double> same(5000, 42.5);
  const topsim::Distribution d = distribution_of(same);
  CHECK(d.mean == 42.5);
  CHECK(d.p50 == 42.5);
  CHECK(d.max == 42.5);
  std::vector<double> extremes(1000, 1.0);
  extremes[3] = -1e308;
  extremes[500] = 1e308;
  extremes[999] = 4.9e-324;  // the smallest subnormal
  const topsim::Distribution e = distribution_of(extremes);
  CHECK(e.max == 1e308);
  CHECK(e.p50 == 1.0);
  CHECK(nearest_rank({-1e308, 4.9e-324, 1.0}, 0.0) == -1e308);
  CHECK(distribution_of({}).count == 0);
}

TEST_CASE("util::distribution_of counts zeros apart: percentiles below, among and above them", "[util][statistics]") {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> waits(1.0 / 600);
  for (const double zero_share : {0.0, 0.5, 0.9, 0.97, 1.0}) {
    for (const size_t n : {size_t{3}, size_t{300}, size_t{20000}}) {
      for (const bool negatives : {false, true}) {
        INFO(zero_share << " zeros, " << n << " values, negatives " << negatives);
        std::vector<double> values(n);
        for (double& v : values) {
          const bool zero = std::uniform_real_distribution<double>(0, 1)(rng) < zero_share;
          v = zero ? 0.0 : std::round(waits(rng) * 1000) / 1000 * (negatives && rng() % 2 ? -1 : 1);
        }
        const topsim::Distribution want = by_std_sort(values), got = distribution_of(values);
        CHECK(got.count == want.count);
        CHECK(got.mean == want.mean);
        CHECK(got.p50 == want.p50);
        CHECK(got.p95 == want.p95);
        CHECK(got.p99 == want.p99);
        CHECK(got.max == want.max);
      }
    }
  }
}
