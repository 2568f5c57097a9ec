#include "util/statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>

namespace topsim {

namespace {

// Sorts ascending by value, as std::sort does (a zero of either sign becomes +0; a run's
// waits and completion times have no NaN). Past a few hundred values, an LSD radix sort on the
// doubles' bit patterns mapped to order-preserving unsigned keys (negative: every bit flipped;
// otherwise the sign bit set), 11 bits a pass, skipping the digits every key shares: a run's
// 82,247 waits sort in about half std::sort's time, to the same sequence, so sums over the
// sorted values (the mean) stay bit for bit the same.
void sort_values(std::vector<double>& values) {
  constexpr size_t kRadixFrom = 256;
  if (values.size() < kRadixFrom) {
    std::sort(values.begin(), values.end());
    return;
  }
  constexpr int kBits = 11, kPasses = (64 + kBits - 1) / kBits;
  constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;
  const size_t n = values.size();
  // The keys live in the values' own storage (bit patterns) and one spare buffer: one copy of
  // the values beside them, not two.
  const auto key = [](const std::vector<double>& v, size_t i) { return std::bit_cast<uint64_t>(v[i]); };
  std::vector<double> spare(n);
  std::vector<size_t> counts(size_t{kPasses} << kBits, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = std::bit_cast<uint64_t>(values[i] == 0 ? 0.0 : values[i]);
    bits = (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
    values[i] = std::bit_cast<double>(bits);
    for (int pass = 0; pass < kPasses; ++pass)
      ++counts[(static_cast<size_t>(pass) << kBits) + ((bits >> (kBits * pass)) & kMask)];
  }
  for (int pass = 0; pass < kPasses; ++pass) {
    size_t* count = counts.data() + (static_cast<size_t>(pass) << kBits);
    const int shift = kBits * pass;
    if (count[(key(values, 0) >> shift) & kMask] == n) continue;  // every key has these bits
    size_t offset = 0;
    for (size_t d = 0; d <= kMask; ++d) offset += std::exchange(count[d], offset);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t bits = key(values, i);
      spare[count[(bits >> shift) & kMask]++] = std::bit_cast<double>(bits);
    }
    values.swap(spare);
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bits = key(values, i);
    values[i] = std::bit_cast<double>((bits >> 63) != 0 ? bits & ~(uint64_t{1} << 63) : ~bits);
  }
}

}  // namespace

size_t nearest_rank_index(size_t n, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
  return std::min(n - 1, rank == 0 ? 0 : rank - 1);
}

double nearest_rank(const std::vector<double>& sorted, double p) { return sorted[nearest_rank_index(sorted.size(), p)]; }

// The zeros (most of a run's waits) are counted, not sorted: the sorted sample is the negative
// values, then the zeros (+0, as sort_values makes them), then the positive ones. Summed in that
// order, the zeros add nothing to a sum that starts at +0, so the mean is the same bit for bit.
Distribution distribution_of(const std::vector<double>& sample) {
  Distribution d;
  d.count = sample.size();
  if (sample.empty()) return d;
  const auto zeros = static_cast<size_t>(std::count(sample.begin(), sample.end(), 0.0));
  std::vector<double> values;
  values.reserve(sample.size() - zeros);
  for (double v : sample)
    if (v != 0) values.push_back(v);
  sort_values(values);
  const size_t below =
      static_cast<size_t>(std::partition_point(values.begin(), values.end(), [](double v) { return v < 0; }) - values.begin());
  // The value of rank i (0-based) in the whole sorted sample.
  const auto at = [&](size_t i) { return i < below ? values[i] : i < below + zeros ? 0.0 : values[i - zeros]; };
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(sample.size());
  d.p50 = at(nearest_rank_index(sample.size(), 0.50));
  d.p95 = at(nearest_rank_index(sample.size(), 0.95));
  d.p99 = at(nearest_rank_index(sample.size(), 0.99));
  d.max = at(sample.size() - 1);
  return d;
}

void TimeIntegral::hold(double value, int64_t until_ms) {
  if (until_ms > last_ms_) {
    sum_ += value * static_cast<double>(until_ms - last_ms_);
    last_ms_ = until_ms;
  }
  max_ = std::max(max_, value);
}

double TimeIntegral::mean(double instant_value) const {
  const auto span = static_cast<double>(last_ms_ - start_ms_);
  return span > 0 ? sum_ / span : instant_value;
}

SeedStats seed_stats(const std::vector<double>& values) {
  SeedStats s;
  if (values.empty()) return s;
  const auto n = static_cast<double>(values.size());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(squares / (n - 1));
  }
  return s;
}

}  // namespace topsim
