// The GPU models a Kubernetes workload's GPU pods select: a `nvidia.com/gpu.product` node selector
// and required node affinity (the label GPU feature discovery sets on each GPU node), as the job
// list's "gpu_models" (docs/importers.md). Internal to formats/ (kube_manifests.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "formats/jobs/kube_workloads.h"

namespace topsim {

// The catalog names (in catalog order) of the GPU models every GPU pod of the job may run on,
// from each GPU pod template's spec.nodeSelector and
// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution (terms ORed, a term's
// expressions ANDed; In, NotIn, Exists and DoesNotExist on the label; the pods of several templates
// must share a model: the sets intersect). An empty array when no pod constrains the GPU model.
// `why_not`: set when the pods' selections leave no catalog model (the job is then not read).
// Notes what is not modelled (preferred affinity; values that name no catalog GPU beside some that
// do). Throws ManifestFault naming the field on a malformed selector or one naming only unknown
// products.
nlohmann::ordered_json gpu_model_selection(const std::vector<PodGroup>& groups, const std::string& job_name,
                                           std::vector<std::string>& notes, std::string& why_not);

}  // namespace topsim
