// Allocator decision-time benchmark: best-fit on an 8-GPU node (dgx1-v100), a 16-GPU node
// (dgx2-v100) and a 72-GPU NVSwitch domain, over random free masks, against exhaustive search.
//
//   build/bench/bench_allocator [--samples N]
//
// "cold" = the first decision for a (free mask, k) on a fresh allocator (memo tables empty);
// "warm" = the same decisions again. Times are per decision, in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/builtin_models.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

struct Stats {
  double median_us = 0, p99_us = 0;
};

Stats summarize(std::vector<double> us) {
  if (us.empty()) return {};
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us[std::min(us.size() - 1, us.size() * 99 / 100)]};
}

// Random free masks of `gpus` GPUs with at least k free.
std::vector<GpuSet> random_masks(int gpus, int k, int samples, std::mt19937_64& rng) {
  std::vector<GpuSet> masks;
  std::bernoulli_distribution bit(0.6);
  while (static_cast<int>(masks.size()) < samples) {
    GpuSet m;
    for (int g = 0; g < gpus; ++g)
      if (bit(rng)) m.set(g);
    if (static_cast<int>(m.count()) >= k) masks.push_back(m);
  }
  return masks;
}

template <class Decide>
Stats time_decisions(const std::vector<GpuSet>& masks, const Decide& decide) {
  std::vector<double> us;
  us.reserve(masks.size());
  for (const GpuSet& m : masks) {
    const auto start = Clock::now();
    decide(m);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return summarize(us);
}

void bench_node(const NodeModel& model, int samples, int exhaustive_samples) {
  auto topo = Topology::build(model);
  if (!topo) {
    std::fprintf(stderr, "%s\n", topo.error().message.c_str());
    std::exit(2);
  }
  std::printf("\n%s (%d GPUs)\n", model.name.c_str(), topo->gpu_count());
  std::printf("  %2s  %22s  %22s  %22s\n", "k", "best-fit cold med/p99", "best-fit warm med/p99", "exhaustive med/p99");
  std::mt19937_64 rng(42);
  const Allocator warm_allocator(*topo);
  for (int k = 1; k <= 8; ++k) {
    const auto masks = random_masks(topo->gpu_count(), k, samples, rng);
    PlacementRequest r;
    r.gpus = k;
    const Allocator fresh(*topo);
    const Stats cold = time_decisions(masks, [&](const GpuSet& m) { (void)fresh.place(m, r); });
    const Stats warm = time_decisions(masks, [&](const GpuSet& m) { (void)fresh.place(m, r); });
    std::string exhaustive = "n/a (C(n,k) too large)";
    if (topo->gpu_count() <= 16) {
      const std::vector<GpuSet> few(masks.begin(), masks.begin() + std::min<size_t>(masks.size(), exhaustive_samples));
      const Stats ex = time_decisions(few, [&](const GpuSet& m) { (void)warm_allocator.best_fit_exhaustive(m, r); });
      char buf[64];
      std::snprintf(buf, sizeof buf, "%9.1f / %9.1f", ex.median_us, ex.p99_us);
      exhaustive = buf;
    }
    std::printf("  %2d  %10.2f / %9.2f  %10.3f / %9.3f  %22s\n", k, cold.median_us, cold.p99_us, warm.median_us, warm.p99_us,
                exhaustive.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 2000;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--samples") == 0) samples = std::atoi(argv[i + 1]);
  std::printf("best-fit decision time, microseconds per decision (%d random free masks per k, seed 42)\n", samples);
  bench_node(*builtin_model("dgx1-v100"), samples, samples);
  bench_node(*builtin_model("dgx2-v100"), samples, 20);
  bench_node(nvswitch_domain_model(72, "b200", 36), samples, 0);

  auto topo = Topology::build(*builtin_model("dgx2-v100"));
  const Allocator all(*topo);
  const auto start = Clock::now();
  for (uint32_t m = 1; m < (1u << 16); ++m)
    for (int k = 1; k <= 8 && k <= __builtin_popcount(m); ++k) {
      PlacementRequest r;
      r.gpus = k;
      (void)all.place(GpuSet(m), r);
    }
  std::printf("\nfilling the dgx2-v100 answer table for every free mask x k=1..8: %.2f s\n",
              std::chrono::duration<double>(Clock::now() - start).count());
  return 0;
}
