// Builds Kueue configurations and admitted workloads in a few lines, for the admission tests
// that replay Kueue's own test cases (kubernetes-sigs/kueue v0.19.2) and hand-worked rules.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/hardware.h"
#include "sim/job.h"
#include "sim/tenancy/kueue_admission.h"

namespace topsim::test {

struct Quota {
  std::string resource;
  int64_t nominal;
  int64_t borrowing_limit = -1;  // -1: unset
  int64_t lending_limit = -1;
};

class KueueFixture {
 public:
  // One flavor "default" unless more are added.
  KueueFixture& flavor(const std::string& name) {
    config.flavors.push_back({name, "test", {}});
    return *this;
  }
  // A flavor of nodes of one GPU model (its nodeLabels' nvidia.com/gpu.product, as a catalog name).
  KueueFixture& gpu_flavor(const std::string& name, const std::string& gpu) {
    config.flavors.push_back({name, "test", {{kGpuProductLabel, gpu}}, find_gpu_model(gpu)->catalog_index});
    return *this;
  }
  // A ClusterQueue with one resource group over `quotas`' resources in flavor "default".
  ClusterQueueSpec& queue(const std::string& name, const std::string& cohort, const std::vector<Quota>& quotas) {
    return queue_flavors(name, cohort, {{"default", quotas}});
  }
  ClusterQueueSpec& queue_flavors(const std::string& name, const std::string& cohort,
                                  const std::vector<std::pair<std::string, std::vector<Quota>>>& flavors) {
    ClusterQueueSpec cq;
    cq.name = name;
    cq.where = "test";
    cq.cohort = cohort;
    ResourceGroup group;
    for (const Quota& q : flavors.front().second) group.covered.push_back(q.resource);
    for (const auto& [flavor, quotas] : flavors) group.flavors.push_back({flavor, resources(quotas)});
    cq.groups.push_back(group);
    config.cluster_queues.push_back(cq);
    return config.cluster_queues.back();
  }
  CohortSpec& cohort(const std::string& name, const std::string& parent, const std::vector<Quota>& quotas = {}) {
    CohortSpec c;
    c.name = name;
    c.where = "test";
    c.parent = parent;
    if (!quotas.empty()) {
      ResourceGroup group;
      for (const Quota& q : quotas) group.covered.push_back(q.resource);
      group.flavors.push_back({"default", resources(quotas)});
      c.groups.push_back(group);
    }
    config.cohorts.push_back(c);
    return config.cohorts.back();
  }

  // Builds the admission (call once the queues are declared).
  KueueAdmission& build() {
    if (config.flavors.empty()) flavor("default");
    admission.emplace(QuotaTree::build(config).value(), config);
    return *admission;
  }
  int queue_index(const std::string& name) const { return admission->tree().cluster_queue(name); }
  QueuedWorkload workload(uint32_t id, const std::string& queue, int32_t priority, int64_t amount, int64_t timestamp_ms = 0,
                          const std::string& resource = "cpu") const {
    return {id, queue_index(queue), priority, kAnyGpuModel, timestamp_ms, {{admission->tree().resource(resource), amount}}};
  }
  // An admitted workload (admitted at `admitted_ms`, default: its id, so later ids are newer).
  void running(uint32_t id, const std::string& queue, int32_t priority, int64_t amount, int64_t admitted_ms = -1,
               const std::string& flavor = "default", const std::string& resource = "cpu") {
    admission->admit_now(workload(id, queue, priority, amount, 0, resource), admitted_ms < 0 ? id : admitted_ms, {flavor});
  }
  // The victims Kueue picks for `w` on flavor `flavor`, with their reasons, by id.
  std::vector<KueueAdmission::Target> victims(const QueuedWorkload& w, const std::string& flavor = "default") const {
    std::vector<std::pair<int, int64_t>> needs;
    for (const auto& [resource, amount] : w.request)
      needs.emplace_back(admission->tree().fr(admission->tree().flavor(flavor), resource), amount);
    std::vector<KueueAdmission::Target> out = admission->preemption_targets(w, needs);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return out;
  }
  // Their ids; their reasons (by id).
  std::vector<std::pair<uint32_t, PreemptionReason>> why(const QueuedWorkload& w, const std::string& flavor = "default") const {
    std::vector<std::pair<uint32_t, PreemptionReason>> out;
    for (const KueueAdmission::Target& t : victims(w, flavor)) out.emplace_back(t.id, t.reason);
    return out;
  }
  std::vector<uint32_t> targets(const QueuedWorkload& w, const std::string& flavor = "default") const {
    std::vector<uint32_t> out;
    for (const KueueAdmission::Target& t : victims(w, flavor)) out.push_back(t.id);
    return out;
  }
  // One scheduling cycle (or all, with -1): what was admitted and evicted, in order.
  std::pair<std::vector<uint32_t>, std::vector<uint32_t>> cycles(int count = 1, int64_t now_ms = 1000) {
    std::vector<uint32_t> admitted, evicted;
    admission->run(
        now_ms, [&](uint32_t id) { admitted.push_back(id); },
        [&](const Preemption& p) {
          evicted.push_back(p.victim);
          preemptions.push_back(p);
        },
        count);
    return {admitted, evicted};
  }

  QueueConfig config;
  std::optional<KueueAdmission> admission;
  std::vector<Preemption> preemptions;  // every eviction of cycles(), in order

 private:
  static std::vector<ResourceQuota> resources(const std::vector<Quota>& quotas) {
    std::vector<ResourceQuota> out;
    for (const Quota& q : quotas) {
      ResourceQuota r{q.resource, q.nominal, {}, {}};
      if (q.borrowing_limit >= 0) r.borrowing_limit = q.borrowing_limit;
      if (q.lending_limit >= 0) r.lending_limit = q.lending_limit;
      out.push_back(r);
    }
    return out;
  }
};

}  // namespace topsim::test
