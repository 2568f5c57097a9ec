#include "sim/tenancy/admission.h"

#include <algorithm>

#include "sim/tenancy/kai_admission.h"
#include "sim/tenancy/kueue_admission.h"

namespace topsim {
namespace {

// What both admission models answer alike: the passes, finishes and waits of `Core`
// (KueueAdmission or KaiAdmission), and the tenants the subclass lists.
template <class Core>
class QuotaOver : public Admission {
 public:
  template <class... Args>
  explicit QuotaOver(TenancyBinding binding, Args&&... core)
      : binding_(std::move(binding)), admission_(std::forward<Args>(core)...) {}

  const std::vector<TenantQuota>& tenants() const override { return tenants_; }
  void run(int64_t now_ms, const std::function<void(uint32_t)>& admit, const Evict& evict) override {
    admission_.run(now_ms, admit, evict);
  }
  void finish(uint32_t id, int64_t now_ms) override { admission_.finish(id, now_ms); }
  std::string wait_reason(uint32_t id) const override { return admission_.wait_reason(id); }
  size_t waiting() const override { return admission_.waiting(); }
  // The core's borrowing by queue, on the queues' tenants.
  std::vector<int64_t> borrowed_gpu_ms(int64_t now_ms) const override {
    const std::vector<int64_t> by_queue = admission_.borrowed_gpu_ms(now_ms);
    std::vector<int64_t> out(tenants_.size(), 0);
    for (size_t q = 0; q < by_queue.size(); ++q)
      if (tenant_of_queue_[q] >= 0) out[static_cast<size_t>(tenant_of_queue_[q])] = by_queue[q];
    return out;
  }

 protected:
  TenancyBinding binding_;
  Core admission_;
  std::vector<TenantQuota> tenants_;
  std::vector<int> tenant_of_queue_;  // by the core's queue: its tenant, or -1 (a KAI parent; a Kueue ClusterQueue whose
                                      // LocalQueues are the tenants)
};

// Kueue: tenants are the ClusterQueues, or the LocalQueues of one ordered by Admission Fair
// Sharing; a job asks its resources of the quota tree.
class KueueQuota final : public QuotaOver<KueueAdmission> {
 public:
  KueueQuota(QuotaTree tree, const QueueConfig& config, TenancyBinding binding, std::vector<uint64_t> gpu_model_sets)
      : QuotaOver(std::move(binding), std::move(tree), config) {
    admission_.set_gpu_model_sets(std::move(gpu_model_sets));
    const QuotaTree& t = admission_.tree();
    const int gpu = t.resource(kResourceGpu);
    const size_t locals = config.local_queues.size();
    tenant_of_local_.assign(locals + static_cast<size_t>(t.cluster_queues()), -1);
    for (int q = 0; q < t.cluster_queues(); ++q) {
      const ClusterQueueSpec& cq = config.cluster_queues[static_cast<size_t>(q)];
      if (!config.admission_fair_sharing || !cq.admission_fair_sharing) {
        tenant_of_queue_.push_back(static_cast<int>(tenants_.size()));
        tenants_.push_back({t.name(q), gpu >= 0 ? t.nominal_all_flavors(q, gpu) : 0});
        continue;
      }
      tenant_of_queue_.push_back(-1);
      for (size_t l = 0; l < locals; ++l) {
        const LocalQueueSpec& lq = config.local_queues[l];
        if (lq.cluster_queue != cq.name) continue;
        // Named as the jobs name it, or "namespace/name" where another LocalQueue or a ClusterQueue has that name.
        const bool shared_name = std::count_if(config.local_queues.begin(), config.local_queues.end(),
                                               [&](const LocalQueueSpec& other) { return other.name == lq.name; }) > 1 ||
                                 std::any_of(config.cluster_queues.begin(), config.cluster_queues.end(),
                                             [&](const ClusterQueueSpec& other) { return other.name == lq.name; });
        tenant_of_local_[l] = static_cast<int>(tenants_.size());
        tenants_.push_back({shared_name ? lq.namespace_name + "/" + lq.name : lq.name, 0, false});
      }
      const size_t direct = locals + static_cast<size_t>(q);  // jobs naming the ClusterQueue itself
      const auto& used = binding_.local_queue_of;
      if (std::find(used.begin(), used.end(), static_cast<int>(direct)) != used.end() ||
          binding_.default_local_queue == static_cast<int>(direct)) {
        tenant_of_local_[direct] = static_cast<int>(tenants_.size());
        tenants_.push_back({cq.name, 0, false});
      }
    }
  }

  int tenant(const JobSpec& job) const override {
    const int cq = binding_.queue(job);
    if (cq < 0) return -1;
    const int by_queue = tenant_of_queue_[static_cast<size_t>(cq)];
    const int local = binding_.local_queue(job);
    return by_queue >= 0 || local < 0 ? by_queue : tenant_of_local_[static_cast<size_t>(local)];
  }

  std::string enqueue(const JobSpec& job, int64_t timestamp_ms) override {
    const int cq = binding_.queue(job);
    if (cq < 0) return "it names no queue and the scenario's tenancy has no default_queue";
    std::string missing;
    QuotaRequest request = quota_request(job, admission_.tree(), missing);
    if (!missing.empty()) return "no ClusterQueue has quota for " + missing;
    // A training job's GPU model selection is its pods' node selector, matched against flavors.
    QueuedWorkload workload{job.id,
                            cq,
                            binding_.priority(job),
                            job.is_training() ? job.gpu_models : kAnyGpuModel,
                            timestamp_ms,
                            std::move(request),
                            binding_.local_queue(job)};
    if (std::string never = admission_.never_admitted(cq, workload.request, admission_.gpu_models_of(workload)); !never.empty())
      return never;
    admission_.enqueue(std::move(workload));
    return {};
  }
  AdmittedFlavor admitted_flavor(uint32_t id) const override {
    const int flavor = admission_.gpu_flavor(id);
    return {flavor, flavor < 0 ? -1 : admission_.flavor_gpu(flavor)};
  }
  std::vector<std::string> flavor_names() const override {
    std::vector<std::string> names;
    for (int f = 0; f < admission_.tree().flavors(); ++f) names.push_back(admission_.tree().flavor_name(f));
    return names;
  }
  int64_t borrowed_total_gpu_ms(int64_t now_ms) const override {
    int64_t total = 0;
    for (int64_t borrowed : admission_.borrowed_gpu_ms(now_ms)) total += borrowed;
    return total;
  }

 private:
  std::vector<int> tenant_of_local_;  // by LocalQueue id (TenancyBinding::local_queue): its tenant, or -1
};

// KAI: tenants are the leaf queues; a job asks GPUs in milli-GPU (whole cards x 1000, a trace
// pod's share of a card as its gpu_milli).
class KaiQuota final : public QuotaOver<KaiAdmission> {
 public:
  KaiQuota(const QueueConfig& config, TenancyBinding binding, int total_gpus)
      : QuotaOver(std::move(binding), config, int64_t{total_gpus} * kKaiMilliPerGpu) {
    tenant_of_queue_.assign(static_cast<size_t>(admission_.queues()), -1);
    for (int q = 0; q < admission_.queues(); ++q) {
      bool leaf = true;
      for (const KaiQueueSpec& other : config.kai_queues) leaf = leaf && other.parent != admission_.name(q);
      if (!leaf) continue;
      tenant_of_queue_[static_cast<size_t>(q)] = static_cast<int>(tenants_.size());
      tenants_.push_back({admission_.name(q), admission_.nominal_gpus(q)});
    }
  }

  int tenant(const JobSpec& job) const override {
    const int q = binding_.queue(job);
    return q < 0 ? -1 : tenant_of_queue_[static_cast<size_t>(q)];
  }
  int64_t wakeup_ms() const override { return admission_.wakeup_ms(); }

  void tenant_shares(std::vector<double>& fair_share_gpus, std::vector<double>& usage_share) const override {
    fair_share_gpus.assign(tenants_.size(), 0);
    usage_share.assign(admission_.time_aware() ? tenants_.size() : 0, 0);
    for (size_t q = 0; q < tenant_of_queue_.size(); ++q) {
      const int t = tenant_of_queue_[q];
      if (t < 0) continue;
      fair_share_gpus[static_cast<size_t>(t)] =
          static_cast<double>(admission_.fair_share_milli(static_cast<int>(q))) / kKaiMilliPerGpu;
      if (!usage_share.empty()) usage_share[static_cast<size_t>(t)] = admission_.usage_share(static_cast<int>(q));
    }
  }

  std::string enqueue(const JobSpec& job, int64_t timestamp_ms) override {
    const int q = binding_.queue(job);
    if (q < 0) return "it names no queue and the scenario's tenancy has no default_queue";
    const int64_t milli = gpu_milli(job);
    if (milli <= 0)
      return "KAI queues count GPUs as devices or fractions of one; a share asking GPU memory (aliyun.com/gpu-mem) has no "
             "fraction before it is placed";
    const int32_t priority = binding_.priority(job);
    if (std::string never = admission_.never_admitted(q, milli, priority); !never.empty()) return never;
    admission_.enqueue({job.id, q, priority, timestamp_ms, milli});
    return {};
  }

 private:
  static int64_t gpu_milli(const JobSpec& job) {
    switch (job.kind) {
      case JobKind::Training: return int64_t{kKaiMilliPerGpu} * job.total_gpus();
      case JobKind::TracePod:
        return job.gpu_milli >= kKaiMilliPerGpu ? int64_t{kKaiMilliPerGpu} * job.gpus_per_worker
                                                : int64_t{job.gpu_milli} * job.gpus_per_worker;
      case JobKind::Share: return 0;
    }
    return 0;
  }
};

}  // namespace

Expected<std::unique_ptr<Admission>> make_admission(const TenancySpec& spec, const Workload& workload, int total_gpus) {
  Expected<TenancyBinding> binding = bind_tenancy(spec, workload);
  if (!binding) return binding.error();
  if (!spec.queues.kueue())
    return std::unique_ptr<Admission>(std::make_unique<KaiQuota>(spec.queues, std::move(*binding), total_gpus));
  Expected<QuotaTree> tree = QuotaTree::build(spec.queues);
  if (!tree) return tree.error();
  return std::unique_ptr<Admission>(
      std::make_unique<KueueQuota>(std::move(*tree), spec.queues, std::move(*binding), workload.gpu_model_sets));
}

}  // namespace topsim
