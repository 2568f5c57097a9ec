#include "formats/traces/alibaba_workload.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <iterator>
#include <optional>
#include <random>

#include "core/hardware.h"
#include "formats/traces/alibaba_trace.h"
#include "sim/tenant_names.h"
#include "sim/workload/workload_mix.h"

namespace topsim {

std::pair<int, int> alibaba_share_units(int gpu_milli, int share_card_gib, bool share_core) {
  const int gib = std::max(1, (gpu_milli * share_card_gib + 999) / 1000);
  const int core = share_core ? std::clamp((gpu_milli + 49) / 50 * 5, 5, 100) : 0;
  return {gib, core};
}

namespace {

// The GPU a pod's duration was measured on, from its gpu_spec: the first model it names that the
// catalog knows (T4, P100 - the trace's P100 nodes hold 1-2 PCIe cards -, V100M16, V100M32, A10);
// kWorkloadReference for a pod that names none or only G2/G3 ("undisclosed internal GPU codes",
// the trace's README): the workload's reference GPU then applies.
uint8_t reference_of(uint32_t gpu_type_mask) {
  static const auto kReference = [] {  // catalog index per trace model, looked up once
    static const char* const kCatalogName[] = {nullptr, nullptr, "t4", "p100-pcie", "v100", "v100-32g", "a10"};
    static_assert(std::size(kCatalogName) == kAlibabaGpuModels.size());
    std::array<uint8_t, kAlibabaGpuModels.size()> index{};
    for (size_t t = 0; t < index.size(); ++t) {
      const GpuModel* gpu = kCatalogName[t] ? find_gpu_model(kCatalogName[t]) : nullptr;
      index[t] = gpu ? static_cast<uint8_t>(gpu->catalog_index) : kWorkloadReference;
    }
    return index;
  }();
  for (size_t t = 0; t < kReference.size(); ++t)
    if ((gpu_type_mask >> t) & 1u && kReference[t] != kWorkloadReference) return kReference[t];
  return kWorkloadReference;
}

}  // namespace

TrainingDraw alibaba_training_draw() { return TrainingDraw(default_model_mix(), 0.5); }

Expected<Workload> load_alibaba_jobs(const std::string& path, const AlibabaJobOptions& options) {
  Workload workload;
  size_t whole = 0, shared = 0, skipped_shared = 0, cpu_only = 0, untimed = 0;
  NameTable queues(kMaxQueueNames);
  std::vector<std::string> names;  // the pods' own names, by read order (JobSpec::id until sorted)
  // The pods made no job of, by reason (in this order, the counts' order in `source`).
  std::array<SkippedEntries, 3> skips = {
      SkippedEntries{"a shared-GPU pod (gpu_milli below 1000): shares are replayed only when the workload gives "
                     "share_card_gib",
                     {}},
      SkippedEntries{"a CPU-only pod (num_gpu 0): the replay takes GPU pods only", {}},
      SkippedEntries{"a pod without creation and deletion times: it cannot arrive or end in a replay over time", {}}};
  const auto skip = [&skips](size_t reason, size_t& count, std::string& name) {
    ++count;
    if (!name.empty()) skips[reason].names.push_back(std::move(name));
  };
  std::optional<Error> failure;
  const Status read = load_pod_list(path, [&](TracePod&& pod) {
    if (failure) return;
    if (pod.num_gpu == 0) return skip(1, cpu_only, pod.name);
    const bool share = pod.gpu_milli < 1000;
    if (share && options.share_card_gib <= 0) return skip(0, skipped_shared, pod.name);
    const int64_t begin_s = pod.scheduled_time_s >= 0 ? pod.scheduled_time_s : pod.creation_time_s;
    if (pod.creation_time_s < 0 || pod.deletion_time_s < begin_s || begin_s < 0) return skip(2, untimed, pod.name);
    JobSpec job;
    job.submit_ms = pod.creation_time_s * 1000;
    job.workers = 1;
    job.gpus_per_worker = share ? 1 : static_cast<uint16_t>(pod.num_gpu);
    job.ideal_duration_ms = std::max<int64_t>(1, (pod.deletion_time_s - begin_s) * 1000);
    if (share) {
      const auto [gib, core] = alibaba_share_units(pod.gpu_milli, options.share_card_gib, options.share_core);
      job.kind = JobKind::Share;
      job.gpu_mem_gib = static_cast<uint16_t>(gib);
      job.gpu_core_percent = static_cast<uint8_t>(core);
      job.model = kNoModel;
    } else {
      job.reference_gpu = reference_of(pod.gpu_type_mask);
    }
    const auto queue = trace_pod_queue(pod, path, queues);
    if (!queue) return void(failure.emplace(queue.error()));
    job.queue = *queue;
    ++(share ? shared : whole);
    job.id = static_cast<uint32_t>(names.size());
    names.push_back(std::move(pod.name));
    workload.jobs.push_back(job);
  });
  if (!read) return read.error();
  if (failure) return *failure;
  if (workload.jobs.empty() && untimed > 0)
    return Error{path + ": no pod has creation and deletion times (the 5-column variants cannot be replayed over time)"};
  std::stable_sort(workload.jobs.begin(), workload.jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_ms < b.submit_ms; });
  const int64_t start_ms = workload.jobs.empty() ? 0 : workload.jobs.front().submit_ms;
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    // A job is named by its pod (jobs.jsonl, the report, `topsim explain`), as a fill
    // experiment's draws are.
    if (std::string& name = names[workload.jobs[i].id]; !name.empty())
      workload.extras[static_cast<uint32_t>(i)].name = std::move(name);
    workload.jobs[i].id = static_cast<uint32_t>(i);
    workload.jobs[i].submit_ms -= start_ms;
  }
  for (SkippedEntries& entries : skips)
    if (!entries.names.empty()) workload.skipped.push_back(std::move(entries));
  draw_training(workload.jobs, alibaba_training_draw(), options.seed);
  set_tenant_names(workload, queues.names(), {});
  const std::string shares = options.share_card_gib > 0
                                 ? ", " + std::to_string(shared) + " shared-GPU pods as gpu-mem shares of " +
                                       std::to_string(options.share_card_gib) + " GiB cards"
                                 : "";
  workload.source = std::filesystem::path(path).filename().string() + " (" + std::to_string(whole) + " whole-GPU pods" + shares +
                    "; skipped: " + (options.share_card_gib > 0 ? "" : std::to_string(skipped_shared) + " shared-GPU, ") +
                    std::to_string(cpu_only) + " CPU-only, " + std::to_string(untimed) + " without times)";
  return workload;
}

}  // namespace topsim
