// Kueue's objects (kubernetes-sigs/kueue v0.19.2, apis/kueue/v1beta1 and v1beta2, v1alpha1 of
// v0.12.0 for Cohort `spec.parent`), the Kubernetes PriorityClass and Kueue's Configuration. The
// validation rules are those of Kueue's CRDs (CEL) and webhooks (pkg/webhooks/clusterqueue_webhook.go,
// cohort_webhook.go, common.go); each is cited where it is checked.
//
// Accepted and not modelled (read, type not checked, no effect): ClusterQueue namespaceSelector,
// stopPolicy, admissionChecks (v1beta1), admissionChecksStrategy, concurrentAdmissionPolicy
// (v1beta2); LocalQueue stopPolicy; ResourceFlavor nodeTaints, tolerations, topologyName;
// WorkloadPriorityClass and PriorityClass description; Configuration keys other than fairSharing
// and admissionFairSharing, and fairSharing.preemptionStrategies beyond their names.
#include <cmath>
#include <optional>
#include <set>

#include "formats/queues/queue_objects.h"
#include "formats/support/k8s_quantity.h"
#include "sim/job.h"

namespace topsim::queue_yaml {
namespace {

constexpr int64_t kInt32Min = -2147483648LL, kInt32Max = 2147483647LL;

// What a quota's limits may be (validateLimit / validateLendingLimit of clusterqueue_webhook.go):
// borrowingLimit and lendingLimit need a cohort (ClusterQueue) or a parent (Cohort), and a
// ClusterQueue's lendingLimit is at most its nominalQuota.
struct LimitRule {
  bool has_parent = false;
  const char* parent_field = "";  // "spec.cohortName", "spec.parentName", ...
  bool lending_within_nominal = false;
};

std::string indexed(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::optional<int64_t> limit(const Site& site, const YAML::Node& node, const std::string& path, int scale,
                             const LimitRule& rule) {
  if (!present(node)) return std::nullopt;
  const int64_t value = quantity(site, node, path, scale);
  if (!rule.has_parent)
    site.fail(node, path, std::string("must not be set without ") + rule.parent_field + " (Kueue's webhook rule)");
  return value;
}

ResourceQuota read_quota(const Site& site, const YAML::Node& node, const std::string& path, const std::string& covered,
                         const LimitRule& rule) {
  check_map(site, node, path, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"});
  ResourceQuota quota;
  quota.resource = required_text(site, node, "name", path + ".name");
  if (quota.resource != covered)
    site.fail(member(node, "name"), path + ".name",
              "'" + quota.resource + "' must be '" + covered + "': each flavor lists the coveredResources in their order");
  const int scale = kueue_scale(quota.resource);
  const YAML::Node nominal = member(node, "nominalQuota");
  if (!present(nominal)) site.fail(node, path + ".nominalQuota", "missing");
  quota.nominal = quantity(site, nominal, path + ".nominalQuota", scale);
  quota.borrowing_limit = limit(site, member(node, "borrowingLimit"), path + ".borrowingLimit", scale, rule);
  quota.lending_limit = limit(site, member(node, "lendingLimit"), path + ".lendingLimit", scale, rule);
  if (rule.lending_within_nominal && quota.lending_limit && *quota.lending_limit > quota.nominal)
    site.fail(member(node, "lendingLimit"), path + ".lendingLimit", "must be less than or equal to the nominalQuota");
  return quota;
}

FlavorQuotas read_flavor(const Site& site, const YAML::Node& node, const std::string& path,
                         const std::vector<std::string>& covered, const LimitRule& rule) {
  check_map(site, node, path, {"name", "resources"});
  FlavorQuotas flavor;
  flavor.flavor = required_text(site, node, "name", path + ".name");
  const std::vector<YAML::Node> resources = list_items(site, member(node, "resources"), path + ".resources");
  if (resources.size() != covered.size())  // the CEL rule of ResourceGroup
    site.fail(present(member(node, "resources")) ? member(node, "resources") : node, path + ".resources",
              "lists " + std::to_string(resources.size()) + " resources; the group covers " + std::to_string(covered.size()));
  for (size_t r = 0; r < resources.size(); ++r)
    flavor.resources.push_back(read_quota(site, resources[r], indexed(path + ".resources", r), covered[r], rule));
  return flavor;
}

// spec.resourceGroups of a ClusterQueue or Cohort. A resource or a flavor is in one group only,
// once (validateResourceGroups).
std::vector<ResourceGroup> read_groups(const Site& site, const YAML::Node& node, const std::string& path, const LimitRule& rule) {
  std::vector<ResourceGroup> groups;
  std::set<std::string> resources, flavors;
  const std::vector<YAML::Node> items = list_items(site, node, path);
  for (size_t g = 0; g < items.size(); ++g) {
    const std::string at = indexed(path, g);
    check_map(site, items[g], at, {"coveredResources", "flavors"});
    ResourceGroup group;
    const std::vector<YAML::Node> covered = list_items(site, member(items[g], "coveredResources"), at + ".coveredResources");
    if (covered.empty()) site.fail(items[g], at + ".coveredResources", "must list at least one resource");
    for (size_t c = 0; c < covered.size(); ++c) {
      group.covered.push_back(text(site, covered[c], indexed(at + ".coveredResources", c)));
      if (!resources.insert(group.covered.back()).second)
        site.fail(covered[c], indexed(at + ".coveredResources", c),
                  "'" + group.covered.back() + "' is covered twice (a resource belongs to one group of a queue)");
    }
    const std::vector<YAML::Node> flavor_nodes = list_items(site, member(items[g], "flavors"), at + ".flavors");
    if (flavor_nodes.empty()) site.fail(items[g], at + ".flavors", "must list at least one flavor");
    for (size_t f = 0; f < flavor_nodes.size(); ++f) {
      group.flavors.push_back(read_flavor(site, flavor_nodes[f], indexed(at + ".flavors", f), group.covered, rule));
      if (!flavors.insert(group.flavors.back().flavor).second)
        site.fail(member(flavor_nodes[f], "name"), indexed(at + ".flavors", f) + ".name",
                  "flavor '" + group.flavors.back().flavor + "' is listed twice (a flavor belongs to one group of a queue)");
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// fairSharing.weight (fairsharing_types.go: default 1; common.go validateFairSharing: not
// negative, and when not 0 above 1e-9).
double read_fair_weight(const Site& site, const YAML::Node& node, const std::string& path) {
  check_map(site, node, path, {"weight"});
  const YAML::Node weight = member(node, "weight");
  if (!present(weight)) return 1;
  const double value = quantity_number(site, weight, path + ".weight");
  if (value > 0 && value <= 1e-9) site.fail(weight, path + ".weight", "when not 0, must be above 1e-9 (Kueue's webhook rule)");
  return value;
}

void read_preemption(const Site& site, const YAML::Node& node, ClusterQueueSpec& cq) {
  check_map(site, node, "spec.preemption", {"withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"});
  cq.within_queue =
      choice(site, member(node, "withinClusterQueue"), "spec.preemption.withinClusterQueue", WithinQueuePreemption::Never);
  cq.reclaim = choice(site, member(node, "reclaimWithinCohort"), "spec.preemption.reclaimWithinCohort", ReclaimPreemption::Never);
  const YAML::Node borrow = member(node, "borrowWithinCohort");
  check_map(site, borrow, "spec.preemption.borrowWithinCohort", {"policy", "maxPriorityThreshold"});
  cq.borrow_within_cohort =
      choice(site, member(borrow, "policy"), "spec.preemption.borrowWithinCohort.policy", BorrowWithinCohort::Never);
  if (const YAML::Node threshold = member(borrow, "maxPriorityThreshold"); present(threshold))
    cq.borrow_max_priority = static_cast<int32_t>(
        integer(site, threshold, "spec.preemption.borrowWithinCohort.maxPriorityThreshold", kInt32Min, kInt32Max));
  // The CEL rule of ClusterQueuePreemption.
  if (cq.reclaim == ReclaimPreemption::Never && cq.borrow_within_cohort != BorrowWithinCohort::Never)
    site.fail(node, "spec.preemption", "borrowWithinCohort.policy other than Never needs reclaimWithinCohort other than Never");
}

void read_fungibility(const Site& site, const YAML::Node& node, bool v1beta1, ClusterQueueSpec& cq) {
  check_map(site, node, "spec.flavorFungibility", {"whenCanBorrow", "whenCanPreempt", "preference"});
  using F = FungibilityChoice;
  // v1beta1 still takes the old names Borrow and Preempt for MayStopSearch; v1beta2 does not.
  const YAML::Node borrow = member(node, "whenCanBorrow"), preempt = member(node, "whenCanPreempt");
  cq.when_can_borrow =
      v1beta1 ? choice(site, borrow, "spec.flavorFungibility.whenCanBorrow", F::MayStopSearch, {{"Borrow", F::MayStopSearch}})
              : choice(site, borrow, "spec.flavorFungibility.whenCanBorrow", F::MayStopSearch);
  cq.when_can_preempt =
      v1beta1 ? choice(site, preempt, "spec.flavorFungibility.whenCanPreempt", F::TryNextFlavor, {{"Preempt", F::MayStopSearch}})
              : choice(site, preempt, "spec.flavorFungibility.whenCanPreempt", F::TryNextFlavor);
  const YAML::Node preference = member(node, "preference");
  cq.preference = choice(site, preference, "spec.flavorFungibility.preference", FlavorPreference::BorrowingOverPreemption);
  // The CEL rule of FlavorFungibility.
  if (present(preference) && (cq.when_can_borrow != F::TryNextFlavor || cq.when_can_preempt != F::TryNextFlavor))
    site.fail(preference, "spec.flavorFungibility.preference",
              "may be set only when whenCanBorrow and whenCanPreempt are both TryNextFlavor");
}

std::string name_of(const Object& object) {
  return text(object.site, member(member(object.node, "metadata"), "name"), "metadata.name");
}

// Configuration admissionFairSharing (apis/config/v1beta2/configuration_types.go; defaults.go:
// sampling 5m; pkg/config/validation.go: half-life not negative, sampling above 0, weights not
// negative). Present: Admission Fair Sharing is on (its feature gate is on by default from v0.15).
void read_admission_fair_sharing(const Site& site, const YAML::Node& node, QueueConfig& config) {
  if (!present(node)) return;
  const std::string path = "admissionFairSharing";
  check_map(site, node, path, {"usageHalfLifeTime", "usageSamplingInterval", "resourceWeights"});
  constexpr double kMaxMs = 100000.0 * 3600e3;  // 100,000 h: beyond any trace
  AdmissionFairSharingSpec afs;
  if (const YAML::Node half = member(node, "usageHalfLifeTime"); present(half))
    afs.half_life_ms = duration_ms(site, half, path + ".usageHalfLifeTime", kMaxMs, "100000h");
  if (const YAML::Node sampling = member(node, "usageSamplingInterval"); present(sampling)) {
    afs.sampling_ms = duration_ms(site, sampling, path + ".usageSamplingInterval", kMaxMs, "100000h");
    if (afs.sampling_ms <= 0) site.fail(sampling, path + ".usageSamplingInterval", "must be greater than 0 (at least 1ms)");
  }
  const YAML::Node weights = member(node, "resourceWeights");
  if (present(weights) && !weights.IsMap())
    site.fail(weights, path + ".resourceWeights", "must be a map of resource names to weights");
  if (present(weights))
    for (const auto& entry : weights) {
      const std::string resource = text(site, entry.first, path + ".resourceWeights");
      const std::string field = path + ".resourceWeights." + resource;
      const double weight = number(site, entry.second, field);
      if (!(weight >= 0) || !std::isfinite(weight))
        site.fail(entry.second, field, "must be a number, not negative, got " + entry.second.Scalar());
      afs.resource_weights[resource] = weight;
    }
  config.admission_fair_sharing = std::move(afs);
}

}  // namespace

void read_cluster_queue(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  const bool v1beta1 = object.version == "v1beta1";
  const char* cohort_key = v1beta1 ? "cohort" : "cohortName";
  const YAML::Node spec = member(object.node, "spec");
  std::vector<std::string> keys = {
      cohort_key,          "resourceGroups", "queueingStrategy",        "preemption",    "flavorFungibility", "fairSharing",
      "namespaceSelector", "stopPolicy",     "admissionChecksStrategy", "admissionScope"};
  keys.push_back(v1beta1 ? "admissionChecks" : "concurrentAdmissionPolicy");
  check_map(site, spec, "spec", keys);
  ClusterQueueSpec cq;
  cq.name = name_of(object);
  cq.where = site.where(object.node);
  cq.cohort = text(site, member(spec, cohort_key), std::string("spec.") + cohort_key);
  cq.queueing = choice(site, member(spec, "queueingStrategy"), "spec.queueingStrategy", QueueingStrategy::BestEffortFIFO);
  const std::string parent_field = std::string("spec.") + cohort_key;
  cq.groups =
      read_groups(site, member(spec, "resourceGroups"), "spec.resourceGroups", {!cq.cohort.empty(), parent_field.c_str(), true});
  read_preemption(site, member(spec, "preemption"), cq);
  read_fungibility(site, member(spec, "flavorFungibility"), v1beta1, cq);
  cq.fair_weight = read_fair_weight(site, member(spec, "fairSharing"), "spec.fairSharing");
  // admissionScope.admissionMode (fairsharing_types.go AdmissionScope: required, an enum).
  const YAML::Node scope = member(spec, "admissionScope");
  check_map(site, scope, "spec.admissionScope", {"admissionMode"});
  if (present(scope)) {
    const YAML::Node mode = member(scope, "admissionMode");
    if (!present(mode))
      site.fail(scope, "spec.admissionScope.admissionMode", "missing (UsageBasedAdmissionFairSharing or NoAdmissionFairSharing)");
    cq.admission_fair_sharing =
        one_of(site, mode, "spec.admissionScope.admissionMode", {"UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"}) ==
        "UsageBasedAdmissionFairSharing";
  }
  config.cluster_queues.push_back(std::move(cq));
}

void read_cohort(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  const char* parent_key = object.version == "v1alpha1" ? "parent" : "parentName";
  const YAML::Node spec = member(object.node, "spec");
  check_map(site, spec, "spec", {parent_key, "resourceGroups", "fairSharing"});
  CohortSpec cohort;
  cohort.name = name_of(object);
  cohort.where = site.where(object.node);
  const std::string parent_field = std::string("spec.") + parent_key;
  cohort.parent = text(site, member(spec, parent_key), parent_field);
  cohort.groups = read_groups(site, member(spec, "resourceGroups"), "spec.resourceGroups",
                              {!cohort.parent.empty(), parent_field.c_str(), false});
  cohort.fair_weight = read_fair_weight(site, member(spec, "fairSharing"), "spec.fairSharing");
  config.cohorts.push_back(std::move(cohort));
}

void read_resource_flavor(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  const YAML::Node spec = member(object.node, "spec");
  check_map(site, spec, "spec", {"nodeLabels", "nodeTaints", "tolerations", "topologyName"});
  ResourceFlavorSpec flavor;
  flavor.name = name_of(object);
  flavor.where = site.where(object.node);
  const YAML::Node labels = member(spec, "nodeLabels");
  if (present(labels) && !labels.IsMap()) site.fail(labels, "spec.nodeLabels", "must be a map of label names to values");
  if (present(labels))
    for (const auto& entry : labels) {
      const std::string key = text(site, entry.first, "spec.nodeLabels");
      const std::string& value = flavor.node_labels[key] = text(site, entry.second, "spec.nodeLabels." + key);
      if (key != kGpuProductLabel) continue;
      const GpuModel* gpu = selectable_gpu_model(value);
      if (gpu == nullptr) site.fail(entry.second, "spec.nodeLabels." + key, unknown_gpu_products({value}));
      flavor.gpu = gpu->catalog_index;
    }
  config.flavors.push_back(std::move(flavor));
}

void read_local_queue(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  const YAML::Node spec = member(object.node, "spec");
  check_map(site, spec, "spec", {"clusterQueue", "stopPolicy", "fairSharing"});
  LocalQueueSpec queue;
  queue.name = name_of(object);
  queue.where = site.where(object.node);
  queue.namespace_name = text(site, member(member(object.node, "metadata"), "namespace"), "metadata.namespace");
  if (queue.namespace_name.empty()) queue.namespace_name = "default";
  queue.cluster_queue = required_text(site, spec, "clusterQueue", "spec.clusterQueue");
  queue.fair_weight = read_fair_weight(site, member(spec, "fairSharing"), "spec.fairSharing");
  // A live queue's Admission Fair Sharing usage; the rest of its status (conditions, counts of
  // workloads, flavor usage) is the controller's view of the moment and not read.
  const std::string path = "status.fairSharing.admissionFairSharingStatus.consumedResources";
  const YAML::Node consumed =
      member(member(member(member(object.node, "status"), "fairSharing"), "admissionFairSharingStatus"), "consumedResources");
  if (present(consumed) && !consumed.IsMap()) site.fail(consumed, path, "must be a map of resource names to quantities");
  if (present(consumed))
    for (const auto& entry : consumed) {
      const std::string resource = text(site, entry.first, path);
      queue.consumed[resource] = quantity_number(site, entry.second, path + "." + resource);
    }
  config.local_queues.push_back(std::move(queue));
}

void read_workload_priority_class(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  check_map(site, object.node, "", {"apiVersion", "kind", "metadata", "value", "description"});
  const YAML::Node value = member(object.node, "value");
  if (!present(value)) site.fail(object.node, "value", "missing (the priority, an integer)");
  text(site, member(object.node, "description"), "description");
  config.priority_classes.push_back({name_of(object), site.where(object.node),
                                     static_cast<int32_t>(integer(site, value, "value", kInt32Min, kInt32Max)), true});
}

void read_priority_class(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  check_map(site, object.node, "",
            {"apiVersion", "kind", "metadata", "value", "globalDefault", "preemptionPolicy", "description"});
  const YAML::Node value = member(object.node, "value");
  if (!present(value)) site.fail(object.node, "value", "missing (the priority, an integer)");
  text(site, member(object.node, "description"), "description");
  PriorityClassSpec priority{name_of(object), site.where(object.node),
                             static_cast<int32_t>(integer(site, value, "value", kInt32Min, kInt32Max)), false};
  if (const YAML::Node global = member(object.node, "globalDefault"); present(global))
    priority.global_default = boolean(site, global, "globalDefault");
  priority.preempts =
      one_of(site, member(object.node, "preemptionPolicy"), "preemptionPolicy", {"PreemptLowerPriority", "Never"}) != "Never";
  config.priority_classes.push_back(std::move(priority));
}

void read_configuration(const Object& object, QueueConfig& config) {
  const Site& site = object.site;
  const YAML::Node fair = member(object.node, "fairSharing");
  const bool v1beta1 = object.version == "v1beta1";
  if (v1beta1)
    check_map(site, fair, "fairSharing", {"enable", "preemptionStrategies"});
  else
    check_map(site, fair, "fairSharing", {"preemptionStrategies"});
  const std::vector<YAML::Node> strategies =
      list_items(site, member(fair, "preemptionStrategies"), "fairSharing.preemptionStrategies");
  std::vector<FairStrategy> chosen;
  for (size_t s = 0; s < strategies.size(); ++s)
    chosen.push_back(one_of(site, strategies[s], indexed("fairSharing.preemptionStrategies", s),
                            {"LessThanOrEqualToFinalShare", "LessThanInitialShare"}) == "LessThanInitialShare"
                         ? FairStrategy::LessThanInitialShare
                         : FairStrategy::LessThanOrEqualToFinalShare);
  // Kueue accepts one strategy, or LessThanOrEqualToFinalShare then LessThanInitialShare
  // (apis/config/v1beta2/configuration_types.go PreemptionStrategies; validation.go).
  const bool valid = chosen.size() <= 1 || (chosen.size() == 2 && chosen[0] == FairStrategy::LessThanOrEqualToFinalShare &&
                                            chosen[1] == FairStrategy::LessThanInitialShare);
  if (!valid)
    site.fail(member(fair, "preemptionStrategies"), "fairSharing.preemptionStrategies",
              "Kueue accepts one strategy, or LessThanOrEqualToFinalShare followed by LessThanInitialShare");
  if (!chosen.empty()) config.fair_strategies = chosen;
  // config v1beta1: fairSharing.enable (default false); v1beta2: the fairSharing struct present
  // (apis/config/v1beta1|v1beta2/configuration_types.go).
  if (v1beta1)
    config.fair_sharing = present(member(fair, "enable")) && boolean(site, member(fair, "enable"), "fairSharing.enable");
  else
    config.fair_sharing = present(fair);
  read_admission_fair_sharing(site, member(object.node, "admissionFairSharing"), config);
}

}  // namespace topsim::queue_yaml
