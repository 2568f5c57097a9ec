#include "formats/traces/trace_pods.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>

#include "formats/traces/alibaba_trace.h"
#include "sim/tenant_names.h"

namespace topsim {
namespace {

constexpr int64_t kMaxSmall = 65535;
constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();

Expected<JobSpec> trace_job(const TracePod& pod, const std::string& path) {
  auto too_large = [&](const char* column, int64_t value) {
    return Error{path + ": pod '" + pod.name + "': " + column + " " + std::to_string(value) + " is out of range"};
  };
  if (pod.num_gpu > kMaxSmall) return too_large("num_gpu", pod.num_gpu);
  if (pod.gpu_milli > kMaxSmall) return too_large("gpu_milli", pod.gpu_milli);
  if (pod.cpu_milli > kMaxInt32) return too_large("cpu_milli", pod.cpu_milli);
  if (pod.memory_mib > kMaxInt32) return too_large("memory_mib", pod.memory_mib);
  JobSpec job;
  job.kind = JobKind::TracePod;
  job.model = kNoModel;
  job.workers = 1;
  job.gpus_per_worker = static_cast<uint16_t>(pod.num_gpu);
  job.gpu_milli = static_cast<uint16_t>(pod.gpu_milli);
  job.cpu_milli = static_cast<int32_t>(pod.cpu_milli);
  job.memory_mib = static_cast<int32_t>(pod.memory_mib);
  job.gpu_type_mask = static_cast<uint8_t>(pod.gpu_type_mask);
  return job;
}

// The pods' names, and their queues' names in the order the jobs name them.
void name_jobs(Workload& workload, const TracePodList& list, const std::vector<size_t>& pods) {
  for (size_t i = 0; i < pods.size(); ++i) workload.extras[static_cast<uint32_t>(i)].name = list.names[pods[i]];
  set_tenant_names(workload, list.queue_names, {});
}

}  // namespace

Expected<TracePodList> load_trace_pods(const std::string& path) {
  TracePodList list;
  list.file = std::filesystem::path(path).filename().string();
  auto specs = std::make_shared<std::vector<TaskSpec>>();
  std::optional<Error> failure;
  NameTable queues(kMaxQueueNames);
  const Status read = load_pod_list(path, [&](TracePod&& pod) {
    if (failure) return;
    auto job = trace_job(pod, path);
    if (!job) return failure.emplace(job.error()), void();
    const auto queue = trace_pod_queue(pod, path, queues);
    if (!queue) return failure.emplace(queue.error()), void();
    job->queue = *queue;
    specs->push_back(task_spec(trace_pod_request(pod)));
    const int64_t start = pod.scheduled_time_s >= 0 ? pod.scheduled_time_s : pod.creation_time_s;
    const bool timed = pod.creation_time_s >= 0 && pod.deletion_time_s >= 0;
    list.arrival_s.push_back(timed ? pod.creation_time_s : -1);
    list.run_s.push_back(timed ? std::max<int64_t>(0, pod.deletion_time_s - start) : -1);
    list.names.push_back(std::move(pod.name));
    list.pods.push_back(*job);
  });
  if (!read) return read.error();
  if (failure) return *failure;
  if (list.pods.empty()) return Error{path + ": no pods"};
  list.specs = std::move(specs);
  list.queue_names = queues.names();
  return list;
}

Expected<Workload> replay_trace_pods(const TracePodList& list, int64_t max_pods) {
  std::vector<size_t> timed;
  for (size_t i = 0; i < list.pods.size(); ++i)
    if (list.arrival_s[i] >= 0 && (max_pods <= 0 || static_cast<int64_t>(timed.size()) < max_pods)) timed.push_back(i);
  if (timed.empty())
    return Error{list.file + ": no pod has creation and deletion times (the 5-column variants cannot be replayed over time)"};
  std::stable_sort(timed.begin(), timed.end(), [&](size_t a, size_t b) { return list.arrival_s[a] < list.arrival_s[b]; });
  const int64_t origin_s = list.arrival_s[timed.front()];
  Workload workload;
  for (size_t i = 0; i < timed.size(); ++i) {
    JobSpec job = list.pods[timed[i]];
    job.id = static_cast<uint32_t>(i);
    job.submit_ms = (list.arrival_s[timed[i]] - origin_s) * 1000;
    job.ideal_duration_ms = list.run_s[timed[i]] * 1000;
    workload.jobs.push_back(job);
  }
  name_jobs(workload, list, timed);
  workload.fragmentation_specs = list.specs;
  workload.source = list.file + " (" + std::to_string(timed.size()) + " timed pods, " +
                    std::to_string(list.pods.size() - timed.size()) + " without times skipped)";
  return workload;
}

Workload sample_trace_pods(const TracePodList& list, uint64_t run_seed, int64_t capacity_milli, double target_load) {
  std::mt19937_64 sampler(run_seed);
  const auto target_milli = static_cast<int64_t>(std::ceil(target_load * static_cast<double>(capacity_milli)));
  Workload workload;
  std::vector<size_t> drawn;
  for (int64_t arrived = 0; arrived < target_milli;) {
    const size_t index = static_cast<size_t>(sampler() % list.pods.size());
    JobSpec job = list.pods[index];
    job.id = static_cast<uint32_t>(drawn.size());
    job.submit_ms = static_cast<int64_t>(drawn.size());
    job.ideal_duration_ms = kForeverMs;
    arrived += job.gpu_milli_total();
    workload.jobs.push_back(job);
    drawn.push_back(index);
  }
  name_jobs(workload, list, drawn);
  workload.fragmentation_specs = list.specs;
  workload.source = list.file + " (" + std::to_string(list.pods.size()) + " pods, drawn with replacement to " +
                    std::to_string(static_cast<int>(std::lround(target_load * 100))) + "% of GPU capacity, seed " +
                    std::to_string(run_seed) + ")";
  return workload;
}

Workload artifact_trace_pods(const TracePodList& list, uint64_t run_seed, int64_t capacity_milli, double target_load) {
  std::mt19937_64 engine(run_seed);
  std::vector<size_t> order(list.pods.size());
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(engine() % i)]);
  const double target = target_load * static_cast<double>(capacity_milli);
  int64_t total = 0;
  for (size_t index : order) total += list.pods[index].gpu_milli_total();
  const bool trim = static_cast<double>(total) > target, top_up = static_cast<double>(total) < target;
  while (trim && static_cast<double>(total) > target && !order.empty()) {
    const size_t at = static_cast<size_t>(engine() % order.size());
    total -= list.pods[order[at]].gpu_milli_total();
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(at));
  }
  while (top_up) {
    const JobSpec& pod = list.pods[static_cast<size_t>(engine() % list.pods.size())];
    const int64_t card_share = pod.gpus_per_worker == 0 ? 0 : pod.gpu_milli;
    if (static_cast<double>(total + card_share) > target) break;
    total += pod.gpu_milli_total();
    order.push_back(static_cast<size_t>(&pod - list.pods.data()));
  }
  Workload workload;
  for (size_t i = 0; i < order.size(); ++i) {
    JobSpec job = list.pods[order[i]];
    job.id = static_cast<uint32_t>(i);
    job.submit_ms = static_cast<int64_t>(i);
    job.ideal_duration_ms = kForeverMs;
    workload.jobs.push_back(job);
  }
  name_jobs(workload, list, order);
  workload.fragmentation_specs = list.specs;
  workload.source = list.file + " (" + std::to_string(list.pods.size()) +
                    " pods, the FGD artifact's arrivals: the list shuffled, then topped up or trimmed to " +
                    std::to_string(static_cast<int>(std::lround(target_load * 100))) + "% of GPU capacity, seed " +
                    std::to_string(run_seed) + ")";
  return workload;
}

}  // namespace topsim
