// KAI-Scheduler admission at replay scale, without placement: --jobs jobs (default 82,000, a
// Philly-size replay) arrive on a cluster of --gpus GPUs (default 2,490) split among two
// departments of five leaf queues; each job asks 0.5 to 32 GPUs (train or build priority), runs a
// drawn time once admitted, and every arrival or finish runs KaiAdmission::run as the engine would.
// Prints the wall time, the cycles' cost per event, the most jobs waiting at once and the evictions.
// --reclaim-min-runtime S gives both departments that reclaimMinRuntime (seconds): their jobs
// cannot be reclaimed before they have run that long, and the queues run again when a protection
// that kept a victim ends (wake-ups count as events).
//
//   build/bench/bench_kai [--jobs N] [--gpus N] [--reclaim-min-runtime S]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <queue>
#include <random>
#include <string>

#include "sim/tenancy/kai_admission.h"

using namespace topsim;
using Clock = std::chrono::steady_clock;

namespace {

// `reclaim_min_ms` > 0: the departments' reclaimMinRuntime, which protects every job of theirs.
QueueConfig queues(int64_t reclaim_min_ms) {
  QueueConfig config;
  for (const char* department : {"research", "product"}) {
    config.kai_queues.push_back({department, "", "", "", {600, 600, -1}, {}, {}, 100, {}, {}});
    if (reclaim_min_ms > 0) config.kai_queues.back().reclaim_min_runtime_ms = reclaim_min_ms;
  }
  for (int q = 0; q < 10; ++q) {
    KaiQueueSpec leaf;
    leaf.name = "team-" + std::to_string(q);
    leaf.parent = q < 5 ? "research" : "product";
    leaf.gpu = {100.0 + 20 * q, 1.0 + q % 3, q == 9 ? 400.0 : -1.0};
    leaf.priority = q == 4 ? 200 : 100;
    config.kai_queues.push_back(leaf);
  }
  return config;
}

struct Event {
  int64_t at_ms;
  uint32_t id;
  bool finish;
  bool operator>(const Event& other) const { return at_ms != other.at_ms ? at_ms > other.at_ms : id > other.id; }
};

}  // namespace

int main(int argc, char** argv) {
  uint32_t jobs = 82000;
  int64_t gpus = 2490;
  int64_t reclaim_min_ms = 0;  // --reclaim-min-runtime SECONDS
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--jobs") == 0) jobs = static_cast<uint32_t>(std::atol(argv[i + 1]));
    if (std::strcmp(argv[i], "--gpus") == 0) gpus = std::atol(argv[i + 1]);
    if (std::strcmp(argv[i], "--reclaim-min-runtime") == 0) reclaim_min_ms = std::atol(argv[i + 1]) * 1000;
  }
  std::mt19937_64 random(42);
  const double sizes[] = {0.5, 1, 1, 1, 2, 4, 8, 8, 16, 32};
  std::vector<KaiWorkload> workload(jobs);
  std::vector<int64_t> run_ms(jobs);
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  int64_t at_ms = 0;
  for (uint32_t id = 0; id < jobs; ++id) {
    at_ms += static_cast<int64_t>(std::exponential_distribution<double>(1.0 / 10000)(random));  // one every 10 s
    const int64_t milli = static_cast<int64_t>(sizes[random() % 10] * kKaiMilliPerGpu);
    const int32_t priority = random() % 5 == 0 ? 100 : 50;  // build 100 or train 50 (KAI priorities.go)
    workload[id] = {id, 2 + static_cast<int>(random() % 10), priority, at_ms, milli};
    run_ms[id] = static_cast<int64_t>(std::exponential_distribution<double>(1.0 / 3600000)(random));  // mean 1 h
    events.push({at_ms, id, false});
  }
  KaiAdmission admission(queues(reclaim_min_ms), gpus * kKaiMilliPerGpu);
  const uint32_t wake = jobs;  // the id of a wake-up event: a protection ends
  int64_t wake_at_ms = -1;
  size_t most_waiting = 0, evictions = 0, runs = 0;
  std::vector<uint32_t> epoch(jobs, 0), finish_epoch(jobs, 0);
  int64_t now_ms = 0;
  auto admit = [&](uint32_t id) { events.push({now_ms + run_ms[id], id, true}), finish_epoch[id] = ++epoch[id]; };
  auto evict = [&](const Preemption& p) {
    const uint32_t id = p.victim;
    ++evictions, ++epoch[id];
    KaiWorkload again = workload[id];
    again.timestamp_ms = now_ms;
    admission.enqueue(again);
  };
  const auto start = Clock::now();
  while (!events.empty()) {
    const Event e = events.top();
    events.pop();
    now_ms = e.at_ms;
    if (e.finish && finish_epoch[e.id] != epoch[e.id]) continue;  // evicted since
    if (e.finish) admission.finish(e.id, now_ms);
    if (!e.finish && e.id != wake) admission.enqueue(workload[e.id]);
    admission.run(now_ms, admit, evict);
    // As the engine does: run the queues again when a protection that kept a victim ends.
    if (const int64_t w = admission.wakeup_ms(); w != std::numeric_limits<int64_t>::max() && w != wake_at_ms)
      events.push({wake_at_ms = w, wake, false});
    ++runs;
    most_waiting = std::max(most_waiting, admission.waiting());
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (reclaim_min_ms > 0) std::printf("departments' reclaimMinRuntime %lld s\n", static_cast<long long>(reclaim_min_ms / 1000));
  std::printf("jobs %u, GPUs %lld: %.2f s, %.1f us per event (%zu events), at most %zu waiting, %zu evictions\n", jobs,
              static_cast<long long>(gpus), wall_s, wall_s * 1e6 / static_cast<double>(runs), runs, most_waiting, evictions);
  return 0;
}
