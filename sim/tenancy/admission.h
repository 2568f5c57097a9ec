// Admission in front of placement, whichever system a scenario's queue folder describes: Kueue's
// ClusterQueues (kueue_admission.h) or KAI-Scheduler's Queues (kai_admission.h). The engine sees
// only this interface: a job enters its queue, cycles admit and evict, an ended job returns its
// quota; tenants are the queues results are kept for.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/job.h"
#include "sim/tenancy/preemption.h"
#include "sim/tenancy/tenancy.h"
#include "util/expected.h"

namespace topsim {

// A tenant of a run with quota: a Kueue ClusterQueue or a KAI leaf queue, and its nominal GPUs
// (Kueue: nvidia.com/gpu over every flavor; KAI: the deserved quota in whole cards). The
// ClusterQueues ordered by Admission Fair Sharing have their LocalQueues as tenants instead: they
// hold no quota of their own (no nominal GPUs, nothing borrowed).
struct TenantQuota {
  std::string name;
  int64_t nominal_gpus = 0;
  bool holds_quota = true;
};

class Admission {
 public:
  virtual ~Admission() = default;

  // The tenants in the order results index them, and a job's tenant (-1: it has none).
  virtual const std::vector<TenantQuota>& tenants() const = 0;
  virtual int tenant(const JobSpec& job) const = 0;
  // `job` now waits for its queue, in its queue's order from `timestamp_ms` (its submission, or
  // its last eviction); or why it can never be admitted (nothing was enqueued).
  virtual std::string enqueue(const JobSpec& job, int64_t timestamp_ms) = 0;
  // Runs the scheduling cycles of the instant `now_ms`: `evict(p)` for each victim after its
  // quota is released (the caller stops it and may enqueue it again), naming the job it was
  // evicted for and why; `admit(id)` for each job whose quota is reserved.
  virtual void run(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict) = 0;
  // An admitted job ended: its quota returns.
  virtual void finish(uint32_t id, int64_t now_ms) = 0;
  // A later instant at which run() may admit what it could not before with nothing else
  // happening (KAI: a victim's min-runtime protection ends); INT64_MAX when there is none.
  virtual int64_t wakeup_ms() const { return std::numeric_limits<int64_t>::max(); }
  // Kueue's ResourceFlavors: the flavor an admitted job's nvidia.com/gpu was assigned (an index
  // into flavor_names()), or -1; and the GPU model that flavor's nodes carry (a catalog index,
  // from its nodeLabels' nvidia.com/gpu.product), or -1: its pods then run on nodes of that model
  // only. KAI has no flavors.
  struct AdmittedFlavor {
    int flavor = -1;
    int gpu = -1;
  };
  virtual AdmittedFlavor admitted_flavor(uint32_t /*id*/) const { return {}; }
  virtual std::vector<std::string> flavor_names() const { return {}; }
  // Why a waiting job is not admitted, in the system's words.
  virtual std::string wait_reason(uint32_t id) const = 0;
  virtual size_t waiting() const = 0;
  // GPU time each tenant held above its nominal quota, up to `now_ms` (card-ms, by tenant; 0 for
  // tenants that hold no quota), and over every queue.
  virtual std::vector<int64_t> borrowed_gpu_ms(int64_t now_ms) const = 0;
  // Per tenant, what the queue system divides, as of its last cycle, into the two vectors
  // (cleared first; left empty when it has no such figure): KAI, the fair share of its last
  // division (GPUs) and, with time-aware fairness, the usage of the snapshot it last fetched (a
  // share of the cluster over the window, 0 to 1). Kueue: none.
  virtual void tenant_shares(std::vector<double>& fair_share_gpus, std::vector<double>& usage_share) const {
    fair_share_gpus.clear();
    usage_share.clear();
  }
  virtual int64_t borrowed_total_gpu_ms(int64_t now_ms) const {
    int64_t total = 0;
    for (int64_t borrowed : borrowed_gpu_ms(now_ms)) total += borrowed;
    return total;
  }
};

// The admission of `spec`'s queues for `workload` on a cluster of `total_gpus`: Kueue's when the
// folder holds ClusterQueues, KAI's when it holds KAI Queues. Errors as bind_tenancy's.
Expected<std::unique_ptr<Admission>> make_admission(const TenancySpec& spec, const Workload& workload, int total_gpus);

}  // namespace topsim
