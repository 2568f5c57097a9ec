// The readers of the single objects of a queue configuration (formats/queues/queue_yaml.h): one
// function per kind, each adding what it read to a QueueConfig and throwing a Fault (queue_fields.h)
// on bad input. Cross-object rules (references, cycles, duplicates) are in check_queue_config.
#pragma once

#include <string>

#include "formats/queues/queue_fields.h"
#include "sim/tenancy/queue_config.h"
#include "util/expected.h"

namespace topsim::queue_yaml {

// One object: its document node, its apiVersion's version ("v1beta2") and where it was read.
struct Object {
  YAML::Node node;
  std::string version;
  Site site;
};

// kueue.x-k8s.io (formats/queues/kueue_objects.cpp).
void read_cluster_queue(const Object& object, QueueConfig& config);
void read_cohort(const Object& object, QueueConfig& config);
void read_resource_flavor(const Object& object, QueueConfig& config);
void read_local_queue(const Object& object, QueueConfig& config);
void read_workload_priority_class(const Object& object, QueueConfig& config);
// scheduling.k8s.io/v1 PriorityClass.
void read_priority_class(const Object& object, QueueConfig& config);
// config.kueue.x-k8s.io Configuration: its fairSharing only.
void read_configuration(const Object& object, QueueConfig& config);
// scheduling.run.ai/v2 Queue (formats/queues/kai_queue.cpp).
void read_kai_queue(const Object& object, QueueConfig& config);
// kai.scheduler/v1 SchedulingShard: its kValue, usage database, min runtimes (kai_queue.cpp).
void read_kai_scheduling_shard(const Object& object, QueueConfig& config);

// The rules that span objects: names unique per kind (LocalQueues per namespace), every
// LocalQueue's ClusterQueue and every flavor a queue or cohort names exists, no cycle among Cohort
// parents nor among KAI parent queues, every KAI parent exists, at most one global default
// PriorityClass (formats/queues/queue_checks.cpp). Errors name the object's file:line.
[[nodiscard]] Status check_queue_config(const QueueConfig& config);

}  // namespace topsim::queue_yaml
