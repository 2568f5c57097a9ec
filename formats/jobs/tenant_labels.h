// INTERNAL to formats/jobs: the queue (tenant) and priority class a job names through the labels
// Kueue and KAI-Scheduler read, for the Kubernetes manifest importer and the job list reader
// (docs/workloads.md "Tenants").
//
// Queue labels, all of which must agree when several are given:
// - kueue.x-k8s.io/queue-name: the Kueue LocalQueue (kubernetes-sigs/kueue,
//   site/content/en/docs/concepts/local_queue.md);
// - kai.scheduler/queue: the KAI-Scheduler queue, and runai/queue, the key it read before v0.6.0
//   and still reads when pinned to the old settings (NVIDIA/KAI-Scheduler, now
//   kai-scheduler/KAI-Scheduler, docs/migrationguides/v0.6.0/README.md, "Scheduling queue
//   label key").
// Priority class labels, the first given wins:
// - kueue.x-k8s.io/priority-class: a WorkloadPriorityClass, which sets the workload's priority
//   over any pod PriorityClass (kubernetes-sigs/kueue,
//   site/content/en/docs/concepts/workload_priority_class.md);
// - priorityClassName: KAI-Scheduler's workload label (kai-scheduler/KAI-Scheduler,
//   docs/priority/README.md: the label on the workload, then pod.spec.priorityClassName).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace topsim {

inline constexpr const char* kKueueQueueLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kKaiQueueLabel = "kai.scheduler/queue";
inline constexpr const char* kKaiLegacyQueueLabel = "runai/queue";
inline constexpr const char* kKueuePriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kKaiPriorityClassLabel = "priorityClassName";

// A name and the label it was read from ("" for either: none).
struct LabelledName {
  std::string value;
  std::string label;
};

struct TenantLabels {
  LabelledName queue;
  LabelledName priority_class;
};

// The queue and priority class the labels name; `label_value(key)` gives a label's value, ""
// when absent. Error: two queue labels naming different queues ("kueue.x-k8s.io/queue-name
// 'a' and kai.scheduler/queue 'b' name different queues").
[[nodiscard]] Expected<TenantLabels> tenant_labels(const std::function<std::string(const char* key)>& label_value);

class JsonErrors;  // formats/support/json_reader.h
class JsonObject;

// A job list entry's queue and priority class, each with the JSON pointer it was read at ("":
// none).
struct EntryTenant {
  std::string queue, queue_pointer;
  std::string priority_class, class_pointer;
};

// An entry's "queue" and "priority_class" (non-empty strings) and "labels" (an object of
// strings; the labels above are read, others kept out of the way). Fails on a queue that differs
// from a queue label's, a class that differs from the Kueue class label's ("... naming both"),
// and queue labels that disagree.
EntryTenant read_entry_tenant(JsonErrors& errors, const JsonObject& entry);

}  // namespace topsim
