// Workload facts the workload tests compare: a fingerprint of every job, order and numbering,
// the model and framework mix, the jobs' queues and priority classes.
#pragma once

#include <algorithm>
#include <map>
#include <sstream>
#include <string>

#include "sim/job.h"
#include "sim/workload/workload_mix.h"

namespace topsim::test {

// Every field of every job, one line per job: equal workloads give equal strings.
inline std::string fingerprint(const Workload& workload) {
  std::ostringstream out;
  for (const JobSpec& j : workload.jobs) {
    out << j.id << ' ' << j.submit_ms << ' ' << j.workers << 'x' << j.gpus_per_worker << ' ' << enum_name(j.framework) << ' '
        << j.model << ' ' << j.batch_per_gpu << ' ' << j.iterations << ' ' << j.ideal_duration_ms << ' '
        << j.unequal_pod_gpus.size() << ' ' << workload.job_name(j.id) << '\n';
  }
  return out.str();
}

// Each job's queue and priority class by name ("-" for none), one line per job.
inline std::string tenants_of(const Workload& workload) {
  std::ostringstream out;
  for (const JobSpec& j : workload.jobs)
    out << (j.queue == kNoQueue ? "-" : workload.queue_names.at(j.queue)) << ' '
        << (j.priority_class == kNoPriorityClass ? "-" : workload.priority_class_names.at(j.priority_class)) << '\n';
  return out.str();
}

// Jobs per queue name ("" for jobs naming none).
inline std::map<std::string, size_t> queue_counts(const Workload& workload) {
  std::map<std::string, size_t> counts;
  for (const JobSpec& j : workload.jobs) ++counts[j.queue == kNoQueue ? "" : workload.queue_names.at(j.queue)];
  return counts;
}

inline bool sorted_and_numbered(const Workload& workload) {
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    if (workload.jobs[i].id != i) return false;
    if (i > 0 && workload.jobs[i].submit_ms < workload.jobs[i - 1].submit_ms) return false;
  }
  return true;
}

// Share of jobs per model name.
inline std::map<std::string, double> model_shares(const Workload& workload) {
  std::map<std::string, double> shares;
  for (const JobSpec& job : workload.jobs) shares[workload_model_names().at(job.model)] += 1.0 / workload.jobs.size();
  return shares;
}

inline double tensorflow_share(const Workload& workload) {
  const auto tf = std::count_if(workload.jobs.begin(), workload.jobs.end(),
                                [](const JobSpec& j) { return j.framework == Framework::TensorFlow; });
  return static_cast<double>(tf) / workload.jobs.size();
}

}  // namespace topsim::test
