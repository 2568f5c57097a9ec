// Queue configurations read from files in a temporary folder (formats/queues/queue_yaml.h).
#include <catch2/catch.hpp>

#include "formats/queues/queue_yaml.h"
#include "tests/test_support.h"

using namespace topsim;
using topsim::test::TempDir;

namespace {

// Writes `files` (path under the folder -> text) into a fresh folder `q` of `dir` and reads it.
Expected<QueueConfig> read(const TempDir& dir, const std::map<std::string, std::string>& files) {
  for (const auto& [name, text] : files) {
    const std::filesystem::path path = dir.path / "q" / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  return read_queue_config(dir.file("q"));
}

QueueConfig good(const std::map<std::string, std::string>& files) {
  TempDir dir;
  auto r = read(dir, files);
  INFO((r ? "" : r.error().message));
  REQUIRE(r.ok());
  return std::move(r).value();
}

// The error of reading `yaml` as q/queues.yaml.
std::string error_of(const std::string& yaml) {
  TempDir dir;
  auto r = read(dir, {{"queues.yaml", yaml}});
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

const char* kFlavor = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
)";

// A ClusterQueue `team-a` (v1beta2) whose spec is `spec`, after the flavor (its line 1 is line 5 of the file).
std::string queue(const std::string& spec) {
  return std::string(kFlavor) + "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: team-a}\nspec:\n" +
         spec;
}

const char* kGroups = R"(  resourceGroups:
  - coveredResources: [nvidia.com/gpu, cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8}
      - {name: cpu, nominalQuota: "500m"}
      - {name: memory, nominalQuota: 1.5Gi}
)";

const std::string kExamples = std::string(TOPSIM_SOURCE_DIR) + "/scenarios/queues/";

}  // namespace

TEST_CASE("formats::queue_yaml: the example folders", "[formats][queues]") {
  SECTION("example-kueue: a cohort of three teams, their LocalQueues and two priority classes") {
    auto r = read_queue_config(kExamples + "example-kueue");
    INFO((r ? "" : r.error().message));
    REQUIRE(r.ok());
    REQUIRE(r->cluster_queues.size() == 3);
    REQUIRE(r->flavors.size() == 1);
    REQUIRE(r->cohorts.size() == 1);
    CHECK(r->cohorts[0].name == "research");
    const ClusterQueueSpec& b = r->cluster_queues[1];  // files in sorted order, documents in file order
    CHECK(b.name == "team-b");
    CHECK(b.cohort == "research");
    CHECK(b.within_queue == WithinQueuePreemption::LowerPriority);
    CHECK(b.reclaim == ReclaimPreemption::Any);
    const ResourceQuota& gpu = b.groups.at(0).flavors.at(0).resources.at(0);
    CHECK(gpu.resource == "nvidia.com/gpu");
    CHECK(gpu.nominal == 32);
    CHECK(gpu.borrowing_limit == 32);
    CHECK_FALSE(gpu.lending_limit);
    CHECK(r->cluster_queues[2].groups[0].flavors[0].resources[0].lending_limit == 16);
    CHECK(r->cluster_queues[0].groups[0].flavors[0].resources[1].nominal == 1024000);  // 1024 cores in thousandths
    CHECK(r->cluster_queues[0].groups[0].flavors[0].resources[2].nominal == int64_t{8} << 40);
    REQUIRE(r->local_queues.size() == 3);
    CHECK(r->local_queues[0].namespace_name == "default");
    CHECK(r->local_queues[0].cluster_queue == "team-a");
    REQUIRE(r->priority_classes.size() == 2);
    CHECK(r->priority_classes[0].name == "low");
    CHECK(r->priority_classes[0].value == 100);
    CHECK(r->priority_classes[1].value == 1000);
    CHECK(r->priority_classes[1].workload_class);
    CHECK_FALSE(r->fair_sharing);
    CHECK(r->skipped_kinds.empty());
  }
  SECTION("example-kai: a department and two leaf queues") {
    auto r = read_queue_config(kExamples + "example-kai");
    REQUIRE(r.ok());
    REQUIRE(r->kai_queues.size() == 3);
    CHECK(r->kai_queues[0].parent.empty());
    CHECK(r->kai_queues[0].display_name == "Research department");
    CHECK(r->kai_queues[1].parent == "research");
    CHECK(r->kai_queues[1].gpu.quota == 64);
    CHECK(r->kai_queues[1].gpu.over_quota_weight == 2);
    CHECK(r->kai_queues[2].gpu.limit == 48);
    CHECK(r->kai_queues[2].priority == 50);
    CHECK(r->kai_queues[1].priority == 100);
    CHECK(r->kai_queues[0].reclaim_min_runtime_ms == 900'000);
    CHECK_FALSE(r->kai_queues[1].reclaim_min_runtime_ms);
    CHECK(r->kai_queues[2].preempt_min_runtime_ms == 1'800'000);
    CHECK_FALSE(r->kueue());
  }
}

TEST_CASE("formats::queue_yaml: ClusterQueue fields, both API versions, and Kueue's defaults", "[formats][queues]") {
  SECTION("defaults: BestEffortFIFO, no preemption, MayStopSearch / TryNextFlavor, weight 1") {
    const QueueConfig c = good({{"q.yaml", queue(kGroups)}});
    const ClusterQueueSpec& cq = c.cluster_queues.at(0);
    CHECK(cq.queueing == QueueingStrategy::BestEffortFIFO);
    CHECK(cq.within_queue == WithinQueuePreemption::Never);
    CHECK(cq.reclaim == ReclaimPreemption::Never);
    CHECK(cq.borrow_within_cohort == BorrowWithinCohort::Never);
    CHECK(cq.when_can_borrow == FungibilityChoice::MayStopSearch);
    CHECK(cq.when_can_preempt == FungibilityChoice::TryNextFlavor);
    CHECK(cq.fair_weight == 1);
    CHECK(cq.cohort.empty());
    CHECK_THAT(cq.where, Catch::EndsWith("/q/q.yaml:5"));
    const auto& resources = cq.groups.at(0).flavors.at(0).resources;
    CHECK(resources[0].nominal == 8);
    CHECK(resources[1].nominal == 500);  // "500m" cpu in thousandths
    CHECK(resources[2].nominal == 1610612736);
  }
  SECTION("every modelled field of v1beta2") {
    const QueueConfig c = good({{"q.yaml", queue(std::string(kGroups) + R"(  cohortName: research
  queueingStrategy: StrictFIFO
  preemption:
    withinClusterQueue: LowerOrNewerEqualPriority
    reclaimWithinCohort: LowerPriority
    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 50}
  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: PreemptionOverBorrowing}
  fairSharing: {weight: 500m}
  namespaceSelector: {matchLabels: {team: a}}
  stopPolicy: None
  admissionChecksStrategy: {admissionChecks: [{name: prov}]}
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
)")}});
    const ClusterQueueSpec& cq = c.cluster_queues.at(0);
    CHECK(cq.cohort == "research");
    CHECK(cq.queueing == QueueingStrategy::StrictFIFO);
    CHECK(cq.within_queue == WithinQueuePreemption::LowerOrNewerEqualPriority);
    CHECK(cq.reclaim == ReclaimPreemption::LowerPriority);
    CHECK(cq.borrow_within_cohort == BorrowWithinCohort::LowerPriority);
    CHECK(cq.borrow_max_priority == 50);
    CHECK(cq.when_can_borrow == FungibilityChoice::TryNextFlavor);
    CHECK(cq.preference == FlavorPreference::PreemptionOverBorrowing);
    CHECK(cq.fair_weight == Approx(0.5));
  }
  SECTION("v1beta1: `cohort`, the old names Borrow and Preempt, admissionChecks") {
    const QueueConfig c = good({{"q.yaml", R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: old}
spec:
  cohort: research
  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}
  admissionChecks: [prov]
)"}});
    const ClusterQueueSpec& cq = c.cluster_queues.at(0);
    CHECK(cq.cohort == "research");
    CHECK(cq.when_can_borrow == FungibilityChoice::MayStopSearch);
    CHECK(cq.when_can_preempt == FungibilityChoice::MayStopSearch);
    CHECK(cq.groups.empty());
  }
}

TEST_CASE("formats::queue_yaml: Cohorts, LocalQueues, flavors, priorities, Configuration, KAI", "[formats][queues]") {
  SECTION("Cohort: v1alpha1 `parent`, v1beta1 and v1beta2 `parentName`, quota of its own") {
    const QueueConfig c = good({{"q.yaml", queue("  cohortName: leaf\n") + R"(---
apiVersion: kueue.x-k8s.io/v1alpha1
kind: Cohort
metadata: {name: leaf}
spec: {parent: mid}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: mid}
spec:
  parentName: root
  fairSharing: {weight: 2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: root}
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: default-flavor, resources: [{name: nvidia.com/gpu, nominalQuota: 16}]}]
)"}});
    REQUIRE(c.cohorts.size() == 3);
    CHECK(c.cohorts[0].parent == "mid");
    CHECK(c.cohorts[1].parent == "root");
    CHECK(c.cohorts[1].fair_weight == 2);
    CHECK(c.cohorts[2].parent.empty());
    CHECK(c.cohorts[2].groups.at(0).flavors.at(0).resources.at(0).nominal == 16);
  }
  SECTION("LocalQueue namespace defaults to default; ResourceFlavor node labels; PriorityClass fields") {
    const QueueConfig c = good({{"q.yaml", queue("") + R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq}
spec: {clusterQueue: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a100}
spec:
  nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
  nodeTaints: [{key: gpu, value: a100, effect: NoSchedule}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-high}
value: 1000000
globalDefault: true
preemptionPolicy: Never
description: pods
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: low}
value: -5
)"}});
    REQUIRE(c.local_queues.size() == 2);
    CHECK(c.local_queues[0].namespace_name == "default");
    CHECK(c.local_queues[1].namespace_name == "ml");
    CHECK(c.flavors.at(1).node_labels.at("nvidia.com/gpu.product") == "NVIDIA-A100-SXM4-80GB");
    REQUIRE(c.priority_classes.size() == 2);
    CHECK_FALSE(c.priority_classes[0].workload_class);
    CHECK(c.priority_classes[0].value == 1000000);
    CHECK(c.priority_classes[0].global_default);
    CHECK_FALSE(c.priority_classes[0].preempts);
    CHECK(c.priority_classes[1].workload_class);
    CHECK(c.priority_classes[1].value == -5);
  }
  SECTION("Configuration: v1beta1 fairSharing.enable, v1beta2 fairSharing present; other keys ignored") {
    const std::string v1beta1 =
        "---\napiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nmanageJobsWithoutQueueName: true\n";
    CHECK(good({{"q.yaml", queue("") + v1beta1 + "fairSharing: {enable: true}\n"}}).fair_sharing);
    CHECK_FALSE(good({{"q.yaml", queue("") + v1beta1 + "fairSharing: {enable: false}\n"}}).fair_sharing);
    const std::string v1beta2 = "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system\n";
    CHECK(good({{"q.yaml", queue("") + v1beta2 + "fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n"}}).fair_sharing);
    CHECK(good({{"q.yaml", queue("") + v1beta2 + "fairSharing: {}\n"}}).fair_sharing);
    CHECK_FALSE(good({{"q.yaml", queue("") + v1beta2}}).fair_sharing);
  }
  SECTION(
      "Admission Fair Sharing: the Configuration's admissionFairSharing, a ClusterQueue's admissionScope, LocalQueue weights") {
    const std::string config =
        "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing:\n  usageHalfLifeTime: 168h\n"
        "  resourceWeights: {cpu: 0, nvidia.com/gpu: 2.5}\n";
    const std::string local =
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: ml}\nspec:\n"
        "  clusterQueue: team-a\n  fairSharing: {weight: \"2\"}\n";
    const QueueConfig c =
        good({{"q.yaml", queue(std::string(kGroups) + "  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n") +
                             config + local}});
    REQUIRE(c.admission_fair_sharing);
    CHECK(c.admission_fair_sharing->half_life_ms == 168 * 3600 * 1000LL);
    CHECK(c.admission_fair_sharing->sampling_ms == 300'000);  // Kueue's default, 5m
    CHECK(c.admission_fair_sharing->resource_weights.at("cpu") == 0);
    CHECK(c.admission_fair_sharing->resource_weights.at("nvidia.com/gpu") == 2.5);
    CHECK(c.cluster_queues.at(0).admission_fair_sharing);
    CHECK(c.local_queues.at(0).fair_weight == 2);
    CHECK(c.local_queues.at(0).consumed.empty());
    // A live queue (kubectl get localqueues -o yaml): its consumedResources read, the rest of its status not.
    const QueueConfig live =
        good({{"q.yaml", queue(std::string(kGroups)) + config + local +
                             "status:\n  pendingWorkloads: 3\n  conditions: [{type: Active, status: \"True\"}]\n  fairSharing:\n"
                             "    weightedShare: 0\n    admissionFairSharingStatus:\n      consumedResources: {cpu: 31999m, "
                             "nvidia.com/gpu: \"4\", memory: 2Gi}\n      lastUpdate: \"2025-06-03T14:25:15Z\"\n"}});
    const std::map<std::string, double> consumed = live.local_queues.at(0).consumed;
    CHECK(consumed.size() == 3);
    CHECK(consumed.at("cpu") == Approx(31.999));
    CHECK(consumed.at("nvidia.com/gpu") == 4);
    CHECK(consumed.at("memory") == 2.0 * 1024 * 1024 * 1024);
    // NoAdmissionFairSharing, no admissionScope, no Configuration: off
    CHECK_FALSE(good({{"q.yaml", queue("  admissionScope: {admissionMode: NoAdmissionFairSharing}\n") + config}})
                    .cluster_queues.at(0)
                    .admission_fair_sharing);
    CHECK_FALSE(good({{"q.yaml", queue("") + config}}).cluster_queues.at(0).admission_fair_sharing);
    CHECK_FALSE(good({{"q.yaml", queue("")}}).admission_fair_sharing);
    CHECK(good({{"q.yaml", queue("") + "---\napiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
                                       "admissionFairSharing: {usageHalfLifeTime: 0s, usageSamplingInterval: 30s}\n"}})
              .admission_fair_sharing->sampling_ms == 30'000);
  }
  SECTION("KAI Queue: what is left out is KAI's zero; priority 100") {
    const QueueConfig c = good({{"kai.yaml", R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec:
  preemptMinRuntime: 10m
  resources:
    gpu: {quota: 0.5}
)"}});
    const KaiQueueSpec& q = c.kai_queues.at(0);
    CHECK(q.preempt_min_runtime_ms == 600'000);
    CHECK_FALSE(q.reclaim_min_runtime_ms);  // unset: its parent's, else 0
    CHECK(q.priority == 100);
    CHECK(q.gpu.quota == 0.5);
    CHECK(q.gpu.over_quota_weight == 0);
    CHECK(q.gpu.limit == 0);
    CHECK(q.cpu.quota == 0);
    CHECK(q.memory.limit == 0);
  }
  SECTION("KAI Queue: min runtimes in Go's duration forms") {
    const auto reclaim_ms = [](const std::string& text) {
      return good({{"kai.yaml",
                    "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\nspec:\n  reclaimMinRuntime: " + text +
                        "\n  resources: {gpu: {quota: 1}}\n"}})
          .kai_queues.at(0)
          .reclaim_min_runtime_ms;
    };
    CHECK(reclaim_ms("0") == 0);
    CHECK(reclaim_ms("90s") == 90'000);
    CHECK(reclaim_ms("\"1h30m\"") == 5'400'000);
    CHECK(reclaim_ms("1.5h") == 5'400'000);
    CHECK(reclaim_ms(".5m") == 30'000);
    CHECK(reclaim_ms("+2m0.5s") == 120'500);
    CHECK(reclaim_ms("1500ms") == 1'500);
    CHECK(reclaim_ms("2500us") == 3);  // rounded to whole ms
    CHECK(reclaim_ms("0s") == 0);
  }
  SECTION("KAI SchedulingShard: kValue, the usage database, min runtime defaults; plugin arguments replace them") {
    const std::string kai =
        "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: q}\nspec:\n  resources: {gpu: {quota: 1}}\n";
    const std::string shard = "---\napiVersion: kai.scheduler/v1\nkind: SchedulingShard\nmetadata: {name: default}\nspec:\n";
    CHECK_FALSE(good({{"kai.yaml", kai}}).kai_scheduler);
    const QueueConfig plain = good({{"kai.yaml", kai + shard + "  kValue: 0.5\n  minRuntime: {reclaimMinRuntime: 15m}\n"}});
    REQUIRE(plain.kai_scheduler);
    CHECK(plain.kai_scheduler->name == "default");
    CHECK(plain.kai_scheduler->k_value == 0.5);
    CHECK_FALSE(plain.kai_scheduler->time_aware);  // no usageDBConfig: off
    CHECK(plain.kai_scheduler->default_reclaim_min_runtime_ms == 900'000);
    CHECK(plain.kai_scheduler->default_preempt_min_runtime_ms == 0);
    // KAI's defaults (usagedb/api/defaults.go): 1 week sliding, no decay, fetched every minute.
    const QueueConfig on = good({{"kai.yaml", kai + shard + "  usageDBConfig: {clientType: prometheus}\n"}});
    REQUIRE(on.kai_scheduler->time_aware);
    CHECK(on.kai_scheduler->k_value == 1);
    CHECK(on.kai_scheduler->time_aware->window_ms == 7 * 24 * 3600 * 1000LL);
    CHECK(on.kai_scheduler->time_aware->window == KaiUsageWindow::Sliding);
    CHECK(on.kai_scheduler->time_aware->half_life_ms == 0);
    CHECK(on.kai_scheduler->time_aware->fetch_ms == 60'000);
    const QueueConfig set = good(
        {{"kai.yaml", kai + shard +
                          "  kValue: 3\n  minRuntime: {preemptMinRuntime: 1m}\n  usageDBConfig:\n    clientType: prometheus\n"
                          "    connectionString: http://prometheus:9090\n    usageParams:\n      windowSize: 24h\n"
                          "      windowType: tumbling\n      halfLifePeriod: 10m\n      fetchInterval: 30s\n"
                          "  plugins:\n    proportion: {arguments: {kValue: \"2\"}}\n"
                          "    minruntime: {arguments: {defaultReclaimMinRuntime: 5m}}\n    gpupack: {enabled: false}\n"}});
    const KaiSchedulerSpec& s = *set.kai_scheduler;
    CHECK(s.k_value == 2);                         // the plugin's arguments replace spec.kValue
    CHECK(s.default_preempt_min_runtime_ms == 0);  // and spec.minRuntime: the arguments name only reclaim
    CHECK(s.default_reclaim_min_runtime_ms == 300'000);
    CHECK(s.time_aware->window_ms == 24 * 3600 * 1000LL);
    CHECK(s.time_aware->window == KaiUsageWindow::Tumbling);
    CHECK(s.time_aware->half_life_ms == 600'000);
    CHECK(s.time_aware->fetch_ms == 30'000);
  }
}

TEST_CASE("formats::queue_yaml: files, documents, Lists and skipped kinds", "[formats][queues]") {
  SECTION("subfolders in sorted order, .yml too, hidden folders and other extensions left out; Lists; kinds counted") {
    const QueueConfig c = good({{"b/queue.yml", queue("")},
                                {"a/list.yaml", R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: team-a}}
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: WorkloadPriorityClass, metadata: {name: p}, value: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
)"},
                                {".github/workflow.yml", "on: push\n"},
                                {"notes.txt", "not yaml: ["}});
    CHECK_THAT(c.priority_classes.at(0).where, Catch::EndsWith("/q/a/list.yaml:5"));
    CHECK_THAT(c.cluster_queues.at(0).where, Catch::EndsWith("/q/b/queue.yml:5"));
    CHECK(c.skipped_kinds == std::map<std::string, int>{{"Deployment", 1}, {"Namespace", 2}, {"Topology", 1}});
  }
  SECTION("a typed list as the API server writes it (ClusterQueueList)") {
    const QueueConfig c = good({{"q.yaml", std::string(kFlavor) + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueueList
items:
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ClusterQueue, metadata: {name: a}}
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ClusterQueue, metadata: {name: b}}
)"}});
    CHECK(c.cluster_queues.size() == 2);
  }
  SECTION("one file instead of a folder") {
    TempDir dir;
    std::ofstream(dir.file("one.yaml")) << queue("");
    auto r = read_queue_config(dir.file("one.yaml"));
    REQUIRE(r.ok());
    CHECK(r->source == dir.file("one.yaml"));
    CHECK(r->cluster_queues.size() == 1);
  }
  SECTION("files are read in sorted path order: the later definition is the one refused") {
    TempDir dir;
    auto first =
        read(dir, {{"z.yaml", queue("")}, {"m.yaml", kFlavor + std::string("---\n") + "apiVersion: v1\nkind: Namespace\n"}});
    REQUIRE_FALSE(first.ok());  // the flavor is defined twice
    CHECK_THAT(first.error().message,
               Catch::StartsWith(dir.file("q/z.yaml") + ":1: ResourceFlavor default-flavor: defined twice"));
  }
}

TEST_CASE("formats::queue_yaml: each bad input is one line naming file:line, object and field", "[formats][queues]") {
  const auto check = [](const std::string& yaml, const std::string& at, const std::string& object, const std::string& field,
                        const std::string& what) {
    const std::string message = error_of(yaml);
    INFO(message);
    CHECK_THAT(message, Catch::Contains("q/queues.yaml:" + at + ": " + object + ": " + field) && Catch::Contains(what));
  };
  SECTION("unknown fields at every level of a spec") {
    check(queue("  cohortNme: x\n"), "9", "ClusterQueue team-a", "spec.cohortNme", "unknown field (fields: cohortName,");
    check(queue("  cohort: x\n"), "9", "ClusterQueue team-a", "spec.cohort", "unknown field");  // v1beta1's name in v1beta2
    check(queue("  preemption: {reclaim: Any}\n"), "9", "ClusterQueue team-a", "spec.preemption.reclaim", "unknown field");
    std::string groups = kGroups;
    check(queue(groups.replace(groups.find("1.5Gi}"), 6, "1.5Gi, borrowLimit: 2}")), "16", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources[2].borrowLimit", "unknown field");
    check(queue("").replace(queue("").find("spec:"), 5, "specs: {}"), "8", "ClusterQueue team-a", "specs", "unknown field");
  }
  SECTION("wrong types") {
    check(queue("  resourceGroups: {}\n"), "9", "ClusterQueue team-a", "spec.resourceGroups", "must be a list");
    check(queue("  cohortName: [a]\n"), "9", "ClusterQueue team-a", "spec.cohortName", "must be a string");
    check(std::string(kFlavor) +
              "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p}\nvalue: \"100\"\n",
          "8", "WorkloadPriorityClass p", "value", "must be an integer");
    check(queue("  preemption:\n    borrowWithinCohort: {policy: Never, maxPriorityThreshold: 1.5}\n"), "10",
          "ClusterQueue team-a", "spec.preemption.borrowWithinCohort.maxPriorityThreshold", "must be an integer");
  }
  SECTION("malformed and negative quantities") {
    std::string groups = kGroups;
    check(queue(groups.replace(groups.find("\"500m\""), 6, "5 cores")), "15", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota", "'5 cores' is not a Kubernetes quantity");
    groups = kGroups;
    check(queue(groups.replace(groups.find("8}"), 1, "-8")), "14", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota", "'-8' must not be negative");
    check(queue("  fairSharing: {weight: -1}\n"), "9", "ClusterQueue team-a", "spec.fairSharing.weight", "must not be negative");
  }
  SECTION("unknown enum values name the allowed ones") {
    check(queue("  queueingStrategy: FIFO\n"), "9", "ClusterQueue team-a", "spec.queueingStrategy",
          "'FIFO' is not one of BestEffortFIFO, StrictFIFO");
    check(queue("  flavorFungibility: {whenCanBorrow: Borrow}\n"), "9", "ClusterQueue team-a",
          "spec.flavorFungibility.whenCanBorrow",
          "is not one of MayStopSearch, TryNextFlavor");  // Borrow is v1beta1 only
    check(queue("  preemption: {withinClusterQueue: Lower}\n"), "9", "ClusterQueue team-a", "spec.preemption.withinClusterQueue",
          "LowerOrNewerEqualPriority");
  }
  SECTION("Kueue's rules on one queue") {
    std::string groups = kGroups;
    check(queue(groups.replace(groups.find("name: cpu"), 9, "name: mem")), "15", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources[1].name", "must be 'cpu'");
    groups = kGroups;
    check(queue(groups.substr(0, groups.rfind("      - {name: memory"))), "14", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources", "lists 2 resources; the group covers 3");
    check(queue(std::string(kGroups) +
                "  - coveredResources: [cpu]\n    flavors: [{name: f2, resources: [{name: cpu, nominalQuota: 1}]}]\n"),
          "17", "ClusterQueue team-a", "spec.resourceGroups[1].coveredResources[0]", "'cpu' is covered twice");
    check(
        queue(
            std::string(kGroups) +
            "  - coveredResources: [pods]\n    flavors: [{name: default-flavor, resources: [{name: pods, nominalQuota: 1}]}]\n"),
        "18", "ClusterQueue team-a", "spec.resourceGroups[1].flavors[0].name", "listed twice");
    groups = kGroups;
    check(queue(groups.replace(groups.find("8}"), 2, "8, borrowingLimit: 4}")), "14", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit", "must not be set without spec.cohortName");
    groups = kGroups;
    check(queue(groups.replace(groups.find("8}"), 2, "8, lendingLimit: 4}")), "14", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit", "must not be set without spec.cohortName");
    groups = kGroups;
    check(queue(groups.replace(groups.find("8}"), 2, "8, lendingLimit: 9}") + "  cohortName: c\n"), "14", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit", "less than or equal to the nominalQuota");
    check(queue("  preemption: {borrowWithinCohort: {policy: LowerPriority}}\n"), "9", "ClusterQueue team-a", "spec.preemption",
          "needs reclaimWithinCohort");
    check(queue("  flavorFungibility: {preference: BorrowingOverPreemption}\n"), "9", "ClusterQueue team-a",
          "spec.flavorFungibility.preference", "both TryNextFlavor");
  }
  SECTION("references and cycles across objects") {
    check(queue("") +
              "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: ml}\nspec: "
              "{clusterQueue: team-x}\n",
          "10", "LocalQueue ml/lq", "spec.clusterQueue", "no ClusterQueue 'team-x' (ClusterQueues: team-a)");
    std::string groups = kGroups;
    check(queue(groups.replace(groups.find("name: default-flavor"), 20, "name: a100")), "5", "ClusterQueue team-a",
          "spec.resourceGroups[0].flavors[0].name", "no ResourceFlavor 'a100' (ResourceFlavors: default-flavor)");
    const std::string cohort = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: ";
    check(queue("") + cohort + "a}\nspec: {parentName: b}\n" + cohort + "b}\nspec: {parentName: c}\n" + cohort +
              "c}\nspec: {parentName: b}\n",
          "15", "Cohort b", "spec.parentName", "form a cycle: b -> c -> b");
    const std::string kai = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: ";
    check(kai + "a}\nspec: {parentQueue: x, resources: {}}\n", "1", "Queue a", "spec.parentQueue", "no Queue 'x' (Queues: a)");
    check(kai + "a}\nspec: {parentQueue: b, resources: {}}\n---\n" + kai + "b}\nspec: {parentQueue: a, resources: {}}\n", "1",
          "Queue a", "spec.parentQueue", "form a cycle: a -> b -> a");
    check(queue("") + "---\n" + queue("").substr(queue("").find("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cluster")), "10",
          "ClusterQueue team-a", "defined twice (also at", "q/queues.yaml:5");
  }
  SECTION("KAI fields") {
    const std::string kai = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\nspec:\n";
    check(kai + "  priority: 1\n", "5", "Queue a", "spec.resources", "missing (KAI requires it)");
    check(kai + "  resources: {gpu: {quota: -2}}\n", "5", "Queue a", "spec.resources.gpu.quota",
          "must be -1 (unlimited) or at least 0");
    check(kai + "  resources: {gpu: {quota: \"4\"}}\n", "5", "Queue a", "spec.resources.gpu.quota", "must be a number");
    check(kai + "  resources: {tpu: {quota: 4}}\n", "5", "Queue a", "spec.resources.tpu",
          "unknown field (fields: gpu, cpu, memory)");
    const std::string gpu = "  resources: {gpu: {quota: 1}}\n";
    for (const char* text : {"10", "5 m", "1h30", "m", ".m", "10x", "1.5.2h", "--5m", ""})
      check(kai + gpu + "  preemptMinRuntime: \"" + text + "\"\n", "6", "Queue a", "spec.preemptMinRuntime",
            "not a duration (Go's form, e.g. \"90s\", \"15m\", \"1h30m\"), got \"" + std::string(text) + "\"");
    check(kai + gpu + "  reclaimMinRuntime: -5m\n", "6", "Queue a", "spec.reclaimMinRuntime",
          "must not be negative, got \"-5m\"");
    check(kai + gpu + "  reclaimMinRuntime: 10001h\n", "6", "Queue a", "spec.reclaimMinRuntime", "at most 10000h");
    check(kai + gpu + "  reclaimMinRuntime: 1" + std::string(400, '0') + "h\n", "6", "Queue a", "spec.reclaimMinRuntime",
          "at most 10000h");
    check(kai + gpu + "  reclaimMinRuntime: [5m]\n", "6", "Queue a", "spec.reclaimMinRuntime", "");
  }
  SECTION("Admission Fair Sharing fields") {
    check(queue("  admissionScope: {admissionMode: Usage}\n"), "9", "ClusterQueue team-a", "spec.admissionScope.admissionMode",
          "'Usage' is not one of UsageBasedAdmissionFairSharing, NoAdmissionFairSharing");
    check(queue("  admissionScope: {}\n"), "9", "ClusterQueue team-a", "spec.admissionScope.admissionMode", "missing");
    const std::string config = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing:\n";
    check(config + "  usageHalfLifeTime: 1 week\n", "4", "Configuration", "admissionFairSharing.usageHalfLifeTime",
          "not a duration");
    check(config + "  usageHalfLifeTime: -1h\n", "4", "Configuration", "admissionFairSharing.usageHalfLifeTime",
          "must not be negative");
    check(config + "  usageSamplingInterval: 0s\n", "4", "Configuration", "admissionFairSharing.usageSamplingInterval",
          "must be greater than 0");
    check(config + "  resourceWeights: {cpu: -1}\n", "4", "Configuration", "admissionFairSharing.resourceWeights.cpu",
          "not negative");
    check(config + "  halfLife: 1h\n", "4", "Configuration", "admissionFairSharing.halfLife", "unknown field");
    check(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq}\nspec:\n  clusterQueue: x\n"
        "  fairSharing: {weight: -2}\n",
        "6", "LocalQueue default/lq", "spec.fairSharing.weight", "must not be negative");
    const std::string live =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq}\nspec:\n  clusterQueue: x\n"
        "status:\n  fairSharing:\n    admissionFairSharingStatus:\n      consumedResources:";
    check(live + " {cpu: -2}\n", "9", "LocalQueue default/lq",
          "status.fairSharing.admissionFairSharingStatus.consumedResources.cpu", "must not be negative");
    check(live + " {nvidia.com/gpu: lots}\n", "9", "LocalQueue default/lq",
          "status.fairSharing.admissionFairSharingStatus.consumedResources.nvidia.com/gpu", "");
    check(live + " [cpu]\n", "9", "LocalQueue default/lq", "status.fairSharing.admissionFairSharingStatus.consumedResources",
          "must be a map of resource names to quantities");
  }
  SECTION("KAI SchedulingShard fields") {
    const std::string kai =
        "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\nspec:\n  resources: {gpu: {quota: 1}}\n";
    const std::string shard = "---\napiVersion: kai.scheduler/v1\nkind: SchedulingShard\nmetadata: {name: s}\nspec:\n";
    const std::string usage = "  usageDBConfig:\n    clientType: prometheus\n    usageParams:\n";
    check(kai + shard + "  kValue: -1\n", "11", "SchedulingShard s", "spec.kValue", "not negative");
    check(kai + shard + "  kValues: 1\n", "11", "SchedulingShard s", "spec.kValues", "unknown field");
    check(kai + shard + usage + "      windowType: cron\n", "14", "SchedulingShard s",
          "spec.usageDBConfig.usageParams.windowType", "cron windows are not modelled");
    check(kai + shard + usage + "      windowSize: 7d\n", "14", "SchedulingShard s", "spec.usageDBConfig.usageParams.windowSize",
          "not a duration");
    check(kai + shard + usage + "      windowSize: 0s\n", "14", "SchedulingShard s", "spec.usageDBConfig.usageParams.windowSize",
          "greater than 0");
    check(kai + shard + usage + "      halfLifePeriod: -1h\n", "14", "SchedulingShard s",
          "spec.usageDBConfig.usageParams.halfLifePeriod", "must not be negative");
    check(kai + shard + "  usageDBConfig: {clientType: fake}\n", "11", "SchedulingShard s", "spec.usageDBConfig.clientType",
          "'fake' is not one of prometheus");
    check(kai + shard + "  plugins: {proportion: {enabled: false}}\n", "11", "SchedulingShard s",
          "spec.plugins.proportion.enabled", "not modelled");
    check(kai + shard + "  plugins: {gpupack: {enabled: maybe}}\n", "11", "SchedulingShard s", "spec.plugins.gpupack.enabled",
          "");
    check(kai + shard + "  plugins: {gpupack: {priority: high}}\n", "11", "SchedulingShard s", "spec.plugins.gpupack.priority",
          "");
    check(kai + shard + "  plugins: {proportion: {arguments: {kValue: lots}}}\n", "11", "SchedulingShard s",
          "spec.plugins.proportion.arguments.kValue", "must be a number, got 'lots'");
    check(kai + shard + "  plugins: {minruntime: {arguments: {reclaimResolveMethod: queue}}}\n", "11", "SchedulingShard s",
          "spec.plugins.minruntime.arguments.reclaimResolveMethod", "not modelled");
    const std::string kueue_only = queue("") + shard;
    CHECK_THAT(error_of(kueue_only),
               Catch::Contains("SchedulingShard s: configures KAI-Scheduler, but the folder has no KAI Queue"));
  }
  SECTION("API versions and kinds of Kueue's groups") {
    check("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: ClusterQueue\nmetadata: {name: x}\n", "1", "document", "apiVersion",
          "has no ClusterQueue topsim reads (versions: v1beta1, v1beta2)");
    check("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueues\nmetadata: {name: x}\n", "2", "document", "kind",
          "'ClusterQueues' is no kind of kueue.x-k8s.io");
    check("apiVersion: v1\nkind: Namespace\n---\n- a\n", "4", "document", "", "not a Kubernetes object");
  }
}

TEST_CASE("formats::queue_yaml: folders and files that cannot be read", "[formats][queues]") {
  TempDir dir;
  SECTION("a path that is not there") {
    const auto r = read_queue_config(dir.file("missing"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("cannot open") && Catch::Contains("missing"));
  }
  SECTION("an empty folder") {
    std::filesystem::create_directories(dir.path / "q");
    const auto r = read_queue_config(dir.file("q"));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("no *.yaml or *.yml file under the folder"));
  }
  SECTION("a folder without a ClusterQueue or KAI Queue names what it skipped") {
    const auto r = read(dir, {{"ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"}, {"f.yaml", kFlavor}});
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("no Kueue ClusterQueue") && Catch::Contains("skipped: 1 Namespace"));
  }
  SECTION("a file that is not YAML") {
    const auto r = read(dir, {{"bad.yaml", "a: [1, 2\n"}});
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("q/bad.yaml:") && Catch::Contains("invalid YAML"));
  }
}
