// `topsim import queues`: what topsim understood of a queue configuration (sim/tenancy/
// queue_config.h), in words: the cohort tree with each ClusterQueue's quota per flavor and
// resource, LocalQueues, priority classes, the KAI queue tree, Fair Sharing, skipped kinds.
#pragma once

#include <string>

#include "sim/tenancy/queue_config.h"

namespace topsim {

// Deterministic: trees and lists in name order. Units: GPUs (resources named */gpu) as cards, cpu
// in cores, memory in Gi; KAI's figures in KAI's units (GPUs, cores, MB of 10^6 bytes).
std::string render_queue_config(const QueueConfig& config);

}  // namespace topsim
