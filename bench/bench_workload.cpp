// Workload benchmark: time to load the Philly trace, time to generate a 1,000,000-job synthetic
// workload (without and with tenants and priority classes), and the memory a job takes.
//
//   build/bench/bench_workload [--jobs N] [--philly PATH]
//
// Times are the best of 3 runs, wall clock. "bytes/job" counts the job vector's storage
// (sizeof(JobSpec) x capacity / jobs; trace and synthetic jobs own no heap memory of their own).
// Peak RSS is the process's high-water mark after all runs (getrusage).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "formats/traces/philly_trace.h"
#include "sim/workload/synthetic_workload.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

// Best of `runs` wall-clock times of `work`, in ms.
double best_ms(int runs, const std::function<void()>& work) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    work();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return best;
}

double bytes_per_job(const Workload& workload) {
  return static_cast<double>(sizeof(JobSpec) * workload.jobs.capacity()) / std::max<size_t>(1, workload.jobs.size());
}

void bench_philly(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    std::printf("philly: skipped, %s not found\n", path.c_str());
    return;
  }
  Expected<Workload> workload = Error{"not loaded"};
  const double ms = best_ms(3, [&] { workload = load_philly(path); });
  if (!workload.ok()) {
    std::printf("philly: %s\n", workload.error().message.c_str());
    return;
  }
  std::printf("philly: %zu jobs loaded in %.1f ms (%.2f us/job), %.0f bytes/job\n", workload->jobs.size(), ms,
              ms * 1000 / workload->jobs.size(), bytes_per_job(*workload));
}

// `label`: what the options add to the defaults ("" for none).
void bench_synthetic(uint32_t jobs, const SyntheticOptions& base, const char* label) {
  SyntheticOptions options = base;
  options.jobs = jobs;
  Workload workload;
  const double ms = best_ms(3, [&] { workload = generate_synthetic(options); });
  std::printf("synthetic%s: %u jobs generated in %.1f ms (%.0f ns/job), %.0f bytes/job (sizeof(JobSpec) = %zu)\n", label, jobs,
              ms, ms * 1e6 / jobs, bytes_per_job(workload), sizeof(JobSpec));
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t jobs = 1'000'000;
  std::string philly = std::string(TOPSIM_SHARED_DIR) + "/traces/philly/philly.csv";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--jobs") == 0)
      jobs = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (std::strcmp(argv[i], "--philly") == 0)
      philly = argv[i + 1];
  }
  bench_philly(philly);
  bench_synthetic(std::max<uint32_t>(1, jobs), {}, "");
  SyntheticOptions tenants;  // one more draw per job each, from streams of their own
  tenants.tenants = {{"team-a", 0.5}, {"team-b", 0.3}, {"team-c", 0.2}};
  tenants.priority_classes = {{"low", 0.7}, {"high", 0.3}};
  bench_synthetic(std::max<uint32_t>(1, jobs), tenants, " with 3 tenants and 2 priority classes");
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS: %.1f MB\n", usage.ru_maxrss / 1024.0);
  return 0;
}
