// A KAI-Scheduler cluster for tests, built as KAI's test harness builds one
// (NVIDIA/KAI-Scheduler 72de64fc pkg/scheduler/test_utils/test_utils_builder.go): queues with
// deserved GPUs, over-quota weight (0 unless given), limit (none unless given) and priority; a
// queue without a department goes under a `default` department of unlimited quota and limit; a
// department's over-quota weight is its deserved quota. Jobs are given in GPUs (fractions
// allowed); a job's timestamp is its id, so jobs listed earlier are older.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/tenancy/kai_admission.h"

namespace topsim::test {

// KAI pkg/scheduler/constants/priorities.go.
inline constexpr int32_t kTrain = 50, kInteractivePreemptible = 75, kBuild = 100, kInference = 125;

struct KaiFixture {
  using Ids = std::vector<uint32_t>;
  using Cycle = std::pair<Ids, Ids>;  // admitted, evicted (each sorted)

  QueueConfig config;
  std::optional<KaiAdmission> admission;
  bool requeue = false;                 // victims wait in their queue again (as the engine does)
  std::vector<Preemption> preemptions;  // every eviction of cycles(), in order
  int64_t now_ms = 0;

  KaiFixture& department(const std::string& name, double deserved, double limit = -1) {
    KaiQueueSpec q;
    q.name = name;
    q.gpu = {deserved, deserved < 0 ? 1 : deserved, limit};  // the default department: weight 1
    config.kai_queues.push_back(q);
    return *this;
  }
  KaiFixture& queue(const std::string& name, double deserved, double weight = 0, double limit = -1,
                    const std::string& parent = "default", int32_t priority = 100) {
    if (parent == "default" && std::none_of(config.kai_queues.begin(), config.kai_queues.end(),
                                            [](const KaiQueueSpec& q) { return q.name == "default"; }))
      department("default", -1);
    KaiQueueSpec q;
    q.name = name;
    q.parent = parent;
    q.gpu = {deserved, weight, limit};
    q.priority = priority;
    config.kai_queues.push_back(q);
    return *this;
  }
  KaiFixture& build(double cluster_gpus) {
    admission.emplace(config, std::llround(cluster_gpus * kKaiMilliPerGpu));
    return *this;
  }
  KaiWorkload job(uint32_t id, const std::string& queue, int32_t priority, double gpus) const {
    return {id, admission->queue(queue), priority, static_cast<int64_t>(id), std::llround(gpus * kKaiMilliPerGpu)};
  }
  void running(uint32_t id, const std::string& queue, int32_t priority, double gpus) {
    jobs[id] = job(id, queue, priority, gpus);
    admission->admit_now(jobs[id], now_ms);
  }
  void pending(uint32_t id, const std::string& queue, int32_t priority, double gpus) {
    jobs[id] = job(id, queue, priority, gpus);
    admission->enqueue(jobs[id]);
  }
  // Runs `cycles` cycles (-1: until one changes nothing) at `now_ms`.
  Cycle cycles(int cycles = -1) {
    Cycle out;
    auto evict = [&](const Preemption& p) {
      const uint32_t id = p.victim;
      preemptions.push_back(p);
      out.second.push_back(id);
      if (!requeue) return;
      KaiWorkload again = jobs.at(id);
      again.timestamp_ms = now_ms;  // timestamped by its eviction
      admission->enqueue(again);
    };
    admission->run(
        now_ms, [&](uint32_t id) { out.first.push_back(id); }, evict, cycles);
    std::sort(out.first.begin(), out.first.end());
    std::sort(out.second.begin(), out.second.end());
    return out;
  }
  int64_t milli(const std::string& queue) const { return admission->allocated_milli(admission->queue(queue)); }
  int64_t fair_share(const std::string& queue) const { return admission->fair_share_milli(admission->queue(queue)); }

  std::map<uint32_t, KaiWorkload> jobs;  // every job given, by id
};

}  // namespace topsim::test
