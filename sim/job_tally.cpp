#include "sim/job_tally.h"

#include <algorithm>

#include "core/model_catalog.h"

namespace topsim {

bool trains_images(const JobSpec& job) {
  const DnnModel* model = model_at(job.model);
  return model && model->unit == SampleUnit::Images;
}

namespace {

void add_llm_step(JobTally::LlmStepSums& sums, const LlmStep& step) {
  ++sums.jobs;
  LlmStep& s = sums.sum;
  s.tokens_per_sec_per_gpu += step.tokens_per_sec_per_gpu;
  s.mfu += step.mfu;
  s.step_ms += step.step_ms;
  for (const auto& [name, part] : kLlmStepParts) s.*part += step.*part;
}

void count_placed(const Workload& workload, const JobSpec& job, const JobRecord& r, JobTally& t) {
  ++t.placed;
  if (!job.is_share()) ++t.topology_placed;  // placements with topology constraints to meet
  if (!r.relaxed.empty()) ++t.fallbacks;
  size_t gpus = 0;
  for (const PodPlacement& pod : r.pods) gpus += pod.gpus.size();
  if (gpus > 1) {
    ++t.multi_gpu;
    if (r.cross_numa) ++t.cross_numa;
    if (r.ideal_samples_per_sec > 0) {
      t.efficiency_sum += r.samples_per_sec / r.ideal_samples_per_sec;
      ++t.efficiency_jobs;
    }
  }
  if (r.contended_ms > 0) {
    ++t.contended;
    t.contended_gpu_ms += static_cast<double>(r.contended_ms) * static_cast<double>(gpus);
  }
  if (!job.is_training()) return;
  if (trains_images(job)) t.images_per_sec.push_back(r.samples_per_sec);
  if (r.comm.ranks > 1) t.ring_gbps.push_back(r.comm.bus_bandwidth_gbps);
  const LlmJob* llm = workload.llm_of(job);
  if (model_at(job.model) || llm) {
    const uint16_t key = llm ? llm_model_key(*llm->model) : job.model;
    JobTally::ModelSums& sums = t.by_model[{key, job.framework}];
    ++sums.jobs;
    sums.samples_per_sec += r.samples_per_sec;
    sums.ideal_samples_per_sec += r.ideal_samples_per_sec;
  }
  if (llm && r.llm) {
    add_llm_step(t.llm_steps[llm_model_key(*llm->model)], *r.llm);
    t.llm_mfus.push_back(r.llm->mfu);
  }
}

// A job's restarts, checkpoint writes and waits to restart; a finished training job's effective
// training time: its wall time from first start to finish less all of those and its recomputation.
void add_goodput(const JobSpec& job, const JobRecord& r, JobTally& t) {
  const double gpus = job.is_training() ? job.total_gpus() : 0;
  t.restart_gpu_ms += static_cast<double>(r.restart_ms) * gpus;
  t.checkpoint_gpu_ms += static_cast<double>(r.checkpoint_ms) * gpus;
  t.requeue_gpu_ms += static_cast<double>(r.requeue_ms) * gpus;
  if (!job.is_training() || r.state != JobState::Finished || r.finish_ms <= r.start_ms) return;
  const double wall = static_cast<double>(r.finish_ms - r.start_ms);
  const double productive = productive_ms(r);
  t.ettrs.push_back(productive / wall);
  if (r.interruptions > 0 && gpus > t.largest_interrupted.gpus) t.largest_interrupted = {gpus, wall, r.interruptions};
  t.wall_gpu_ms += wall * gpus;
  t.productive_gpu_ms += productive * gpus;
}

}  // namespace

uint16_t llm_model_key(const LlmModel& model) {
  const auto& catalog = llm_catalog();
  if (&model < catalog.data() || &model >= catalog.data() + catalog.size()) return kNoModel;  // not a catalog entry
  return static_cast<uint16_t>(kLlmModelKeyBit | static_cast<size_t>(&model - catalog.data()));
}

const LlmModel* llm_of_model_key(uint16_t key) {
  if (!(key & kLlmModelKeyBit) || key == kNoModel) return nullptr;
  const size_t index = key & ~kLlmModelKeyBit;
  return index < llm_catalog().size() ? &llm_catalog()[index] : nullptr;
}

void JobTally::add(const Workload& workload, const JobSpec& job, const JobRecord& r, const ClusterState* cluster, int tenant) {
  ++jobs;
  if (tenant >= 0) {
    TenantSums& t = by_tenant[tenant];
    ++t.jobs;
    t.started += r.start_ms >= 0;
    t.evictions += r.evictions;
    t.evicted_jobs += r.evictions > 0;
    t.lost_gpu_ms += static_cast<double>(r.lost_gpu_ms);
    if (r.state == JobState::Finished) {
      ++t.finished;
      t.waits.push_back(static_cast<double>(r.start_ms - r.submit_ms) / 1000.0);
      t.jcts.push_back(static_cast<double>(r.finish_ms - r.submit_ms) / 1000.0);
    }
  }
  add_goodput(job, r, *this);
  if (cluster && !r.pods.empty() && job.is_training() && r.start_ms >= 0) {
    const int first = cluster->node(r.pods.front().node).type;
    NodeTypeSums& sums = by_node_type[r.pace_type >= 0 ? r.pace_type : first];
    ++sums.jobs;
    const bool llm = workload.llm_of(job) != nullptr;
    sums.llm_jobs += llm;
    (llm ? sums.tokens_per_sec : sums.samples_per_sec) += r.samples_per_sec;
    if (r.finish_ms >= 0) {  // each pod's GPU time to its node's type
      const auto ms = static_cast<double>(r.finish_ms - r.start_ms);
      int type = first;
      NodeTypeSums* on = &by_node_type[first];
      for (const PodPlacement& pod : r.pods) {
        if (const int t = cluster->node(pod.node).type; t != type) on = &by_node_type[type = t];
        on->gpu_ms += ms * static_cast<double>(pod.gpus.size());
      }
    }
  }
  if (job.is_share()) ++shares;
  switch (r.state) {
    case JobState::Rejected:
      ++rejected;
      if (rejections.size() < kMaxRejections && rejection_reasons.insert(r.reason).second)
        rejections.push_back(workload.job_name(job.id) + ": " + r.reason);
      break;
    case JobState::Failed: ++failed; break;
    case JobState::Stuck: ++stuck; break;
    case JobState::Pending: ++never_placed; break;
    default: break;
  }
  if (r.start_ms < 0) return;
  count_placed(workload, job, r, *this);
  if (r.state != JobState::Finished) return;
  ++finished;
  waits.push_back(static_cast<double>(r.start_ms - r.submit_ms) / 1000.0);
  if (job.is_share()) share_waits.push_back(waits.back());
  jcts.push_back(static_cast<double>(r.finish_ms - r.submit_ms) / 1000.0);
}

}  // namespace topsim
