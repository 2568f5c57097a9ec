// The scheduler plug-in interface (sim/scheduler.h): schedulers decide on a hand-built cluster
// state without the engine, through a Binder that applies and records their decisions; the
// registry; and binpack, the scheduler added as one file plus one registry line.
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "sim/schedulers/registry.h"
#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// A cluster, jobs and their records built by hand, and a Binder that applies what a scheduler
// decides to them (as the engine would) and keeps a log of it.
class HandBuiltState final : public Binder {
 public:
  // `nodes` DGX-1 V100 nodes labelled `label`, every node's GPUs in `taken[node]` already used.
  HandBuiltState(int nodes, NodeMode label, const std::map<int, std::vector<int>>& taken = {})
      : HandBuiltState(std::vector<std::pair<int, NodeMode>>{{nodes, label}}, taken) {}
  // Groups of DGX-1 V100 nodes, each (count, label), numbered in that order.
  HandBuiltState(const std::vector<std::pair<int, NodeMode>>& groups, const std::map<int, std::vector<int>>& taken,
                 const std::vector<std::string>& models = {}) {
    ClusterSpec spec;
    for (size_t g = 0; g < groups.size(); ++g)
      spec.groups.push_back(
          {*builtin_model(models.empty() ? "dgx1-v100" : models[g]), groups[g].first, groups[g].second, true, {}, {}});
    spec.network.nic_speed_gbit = 100;
    cluster = std::move(ClusterState::build(spec)).value();
    cluster.prepare(groups.front().second, nullptr);
    for (const auto& [node, gpus] : taken) cluster.bind(node, pod_request(training(1, static_cast<int>(gpus.size()))), gpus);
  }

  // A training job of `workers` pods of `gpus` GPUs; returns its id.
  uint32_t add_job(int workers, int gpus) {
    JobSpec job = training(workers, gpus);
    job.id = static_cast<uint32_t>(workload.jobs.size());
    workload.jobs.push_back(job);
    records.emplace_back();
    return job.id;
  }

  // One attempt at every job not yet started, in id order; without backfill, up to the first
  // that cannot start.
  void pass(Scheduler& scheduler) {
    const SchedulingView view(cluster, workload, records, now);
    for (uint32_t id = 0; id < records.size(); ++id)
      if (records[id].start_ms < 0 && !scheduler.try_place(view, id, *this) && scheduler.blocks_queue()) return;
  }

  std::string wait_reason(Scheduler& scheduler, uint32_t job) const {
    return scheduler.wait_reason(SchedulingView(cluster, workload, records, now), job);
  }

  std::string admission(Scheduler& scheduler, uint32_t job) const {
    return scheduler.admission_problem(SchedulingView(cluster, workload, records, now), job);
  }

  void bind(uint32_t job, PodBinding pod) override {
    cluster.bind(pod.node, pod_request(workload.jobs[job], records[job].pods.size()), pod.gpus);
    records[job].pods.push_back({pod.node, pod.gpus, now});
  }
  void start(uint32_t job, JobStart start) override {
    records[job].start_ms = now;
    records[job].comm = start.comm;
    started.push_back(job);
  }

  ClusterState cluster;
  Workload workload;
  std::vector<JobRecord> records;
  std::vector<uint32_t> started;
  int64_t now = 0;

 private:
  static JobSpec training(int workers, int gpus) {
    JobSpec job;
    job.workers = static_cast<uint16_t>(workers);
    job.gpus_per_worker = static_cast<uint16_t>(gpus);
    job.model = 0;
    job.ideal_duration_ms = 1000;
    return job;
  }
};

std::unique_ptr<Scheduler> make(const std::string& name, bool backfill = true) {
  SchedulerContext context;
  context.backfill = backfill;
  return find_scheduler(name)->make(context);
}

std::vector<int> ids(std::initializer_list<int> list) { return list; }

}  // namespace

TEST_CASE("sim::Scheduler decides on a hand-built state, without the engine", "[sim][scheduler]") {
  SECTION("topology-aware puts a 4 x 1 job on one DGX-1 over NVLink, GPUs 0-3, and starts it") {
    HandBuiltState state(1, NodeMode::Topology);
    const uint32_t job = state.add_job(4, 1);
    auto scheduler = make("topology-aware");
    CHECK(state.admission(*scheduler, job).empty());
    state.pass(*scheduler);
    REQUIRE(state.started == std::vector<uint32_t>{job});
    REQUIRE(state.records[job].pods.size() == 4);
    std::vector<int> gpus;
    for (const PodPlacement& pod : state.records[job].pods) gpus.insert(gpus.end(), pod.gpus.begin(), pod.gpus.end());
    std::sort(gpus.begin(), gpus.end());
    CHECK(gpus == ids({0, 1, 2, 3}));
    CHECK(state.records[job].comm.transport == CommTransport::NvLinkP2p);
    CHECK(state.cluster.free_gpus() == 4);  // the binder applied it
  }

  SECTION("topology-aware takes the NVLink pair 5,6 of free 0,5,6,7; binpack takes the lowest ids 0,5 (topology-blind)") {
    const std::map<int, std::vector<int>> taken{{0, {1, 2, 3, 4}}};
    HandBuiltState topo(1, NodeMode::Topology, taken), packed(1, NodeMode::Default, taken);
    topo.add_job(1, 2);
    packed.add_job(1, 2);
    auto topology_aware = make("topology-aware");
    auto binpack = make("binpack");
    topo.pass(*topology_aware);
    packed.pass(*binpack);
    CHECK(topo.records[0].pods.at(0).gpus == ids({5, 6}));
    CHECK(packed.records[0].pods.at(0).gpus == ids({0, 5}));
    CHECK(topo.records[0].comm.bus_bandwidth_gbps > packed.records[0].comm.bus_bandwidth_gbps);
  }

  SECTION("a scheduler serves only its label: topology-aware rejects a job when no node is labelled topology") {
    HandBuiltState state(1, NodeMode::Default);
    const uint32_t job = state.add_job(1, 1);
    CHECK_THAT(state.admission(*make("topology-aware"), job), Catch::Contains("no node serves aliyun.com/gpu requests"));
    CHECK(state.admission(*make("default"), job).empty());
    CHECK(state.admission(*make("binpack"), job).empty());
  }
}

TEST_CASE("sim::wait reason: too few GPUs free, or free in a shape the job cannot take", "[sim][scheduler]") {
  // Two DGX-1 with 6 of 8 GPUs taken on each: 4 GPUs free, 2 per node.
  const std::map<int, std::vector<int>> taken{{0, {0, 1, 2, 3, 4, 5}}, {1, {0, 1, 2, 3, 4, 5}}};
  HandBuiltState topo(2, NodeMode::Topology, taken), plain(2, NodeMode::Default, taken);
  auto topology_aware = make("topology-aware"), kube_default = make("default");
  SECTION("a 2 x 8 gang: 16 needed, 4 free") {
    const uint32_t job = topo.add_job(2, 8);
    CHECK(topo.wait_reason(*topology_aware, job) == "needs 16 GPUs, 4 free on the nodes serving it");
    plain.add_job(2, 8);
    CHECK(plain.wait_reason(*kube_default, job) == "needs 16 GPUs, 4 free on the nodes serving it");
  }
  SECTION("one pod of 4 GPUs: 4 free, but 2 per node") {
    const uint32_t job = topo.add_job(1, 4);
    topo.pass(*topology_aware);
    REQUIRE(topo.started.empty());
    CHECK(topo.wait_reason(*topology_aware, job) ==
          "4 GPUs free on the nodes serving it, none in the shape of its 1 pod of 4 GPUs");
  }
}

TEST_CASE("sim::wait reason: GPUs free only on node types the job does not select", "[sim][scheduler]") {
  // An HGX H100 node with every GPU taken and an idle DGX A100 node; a job of one 8-GPU pod that
  // selects H100 waits, and says the A100's GPUs do not count and why. A job that selects none
  // starts on the A100 in the same pass.
  for (const char* name : {"default", "binpack", "best-fit"}) {
    INFO(name);
    HandBuiltState run({{1, NodeMode::Default}, {1, NodeMode::Default}}, {{0, {0, 1, 2, 3, 4, 5, 6, 7}}},
                       {"hgx-h100", "dgx-a100"});
    run.workload.gpu_model_sets = {uint64_t{1} << find_gpu_model("h100")->catalog_index};
    const uint32_t pinned = run.add_job(1, 8);
    run.workload.jobs[pinned].gpu_models = 0;
    const uint32_t free = run.add_job(1, 8);
    auto scheduler = make(name);
    CHECK(run.admission(*scheduler, pinned).empty());
    run.pass(*scheduler);
    CHECK(run.started == std::vector<uint32_t>{free});
    CHECK(run.records[free].pods.at(0).node == 1);
    CHECK(run.wait_reason(*scheduler, pinned) ==
          "needs 8 GPUs, 0 free on the nodes serving it that it can run on (it cannot run on dgx-a100: it selects GPU model "
          "h100 (\"gpu_models\", a nvidia.com/gpu.product node selector))");
  }
}

TEST_CASE("sim::wait reason and admission: GPUs free only on nodes of the other label are a label mismatch", "[sim][scheduler]") {
  // A DGX-1 labelled default with every GPU taken, and a free one labelled topology.
  HandBuiltState state({{1, NodeMode::Default}, {1, NodeMode::Topology}}, {{0, {0, 1, 2, 3, 4, 5, 6, 7}}});
  auto kube_default = make("default");
  SECTION("waiting: 8 needed, none free on its label's node, 8 on the other's") {
    const uint32_t job = state.add_job(1, 8);
    CHECK(state.wait_reason(*kube_default, job) ==
          "label mismatch: needs 8 GPUs, 0 free on the nodes serving it; 8 more are free on nodes labelled "
          "ack.node.gpu.schedule=topology, which do not serve it");
  }
  SECTION("never runs: 16 needed, 8 on its label's nodes, 8 on the other's; 24 are more than either gives") {
    const uint32_t pair = state.add_job(2, 8), three = state.add_job(3, 8);
    CHECK(state.admission(*kube_default, pair) ==
          "label mismatch: needs 16 GPUs, the nodes serving it have 8; 8 more are on nodes labelled "
          "ack.node.gpu.schedule=topology, which do not serve it");
    CHECK(state.admission(*kube_default, three) == "needs 24 GPUs, the nodes serving it have 8");
  }
}

TEST_CASE("sim::binpack places gangs all or nothing on the most allocated node", "[sim][scheduler][binpack]") {
  SECTION("a 1 x 2 job goes to the fuller of two nodes (6 of 8 GPUs taken), on its lowest free ids") {
    HandBuiltState state(2, NodeMode::Default, {{1, {0, 1, 2, 3, 4, 5}}});
    state.add_job(1, 2);
    auto binpack = make("binpack");
    state.pass(*binpack);
    REQUIRE(state.records[0].pods.size() == 1);
    CHECK(state.records[0].pods[0].node == 1);
    CHECK(state.records[0].pods[0].gpus == ids({6, 7}));
  }

  SECTION("the most allocated node is judged as a share of its GPUs, after the pod: ties go to the lowest index") {
    HandBuiltState state(3, NodeMode::Default, {{1, {0, 1}}, {2, {0, 1}}});
    state.add_job(1, 4);
    auto binpack = make("binpack");
    state.pass(*binpack);
    CHECK(state.records[0].pods.at(0).node == 1);
    CHECK(state.records[0].pods[0].gpus == ids({2, 3, 4, 5}));
  }

  SECTION("a gang's pods fill one node before the next: 3 x 4 GPUs on two empty nodes are 2 + 1, over sockets") {
    HandBuiltState state(2, NodeMode::Default);
    state.add_job(3, 4);
    auto binpack = make("binpack");
    state.pass(*binpack);
    REQUIRE(state.records[0].pods.size() == 3);
    CHECK(state.records[0].pods[0].node == state.records[0].pods[1].node);
    CHECK(state.records[0].pods[2].node != state.records[0].pods[0].node);
    CHECK(state.records[0].comm.transport == CommTransport::Tcp);  // pods are separate containers
    CHECK(state.records[0].comm.hosts == 3);
  }

  SECTION("a gang that does not fit whole binds nothing (default scheduling would hold some pods)") {
    HandBuiltState packed(2, NodeMode::Default, {{0, {0, 1, 2, 3, 4}}}), spread(2, NodeMode::Default, {{0, {0, 1, 2, 3, 4}}});
    packed.add_job(3, 4);  // 12 GPUs wanted, 11 free, and only 2 pods of 4 fit
    spread.add_job(3, 4);
    auto binpack = make("binpack");
    auto kube = make("default");
    packed.pass(*binpack);
    spread.pass(*kube);
    CHECK(packed.records[0].pods.empty());
    CHECK(packed.started.empty());
    CHECK(packed.cluster.free_gpus() == 11);
    CHECK(spread.records[0].pods.size() == 2);  // the contrast: partially placed
    CHECK(spread.started.empty());
  }

  SECTION("queue: with backfill a small job starts behind a waiting gang; without, it waits too") {
    for (bool backfill : {true, false}) {
      INFO("backfill " << backfill);
      HandBuiltState state(1, NodeMode::Default, {{0, {0, 1, 2, 3}}});
      state.add_job(2, 4);  // needs 8, 4 free
      state.add_job(1, 2);
      auto binpack = make("binpack", backfill);
      state.pass(*binpack);
      CHECK(state.records[0].pods.empty());
      CHECK(state.records[1].pods.size() == (backfill ? 1u : 0u));
    }
  }
}

TEST_CASE("sim::binpack runs in a replay scenario like any scheduler", "[sim][scheduler][binpack]") {
  // 2 x dgx1-v100. a: 1 x 2 at 0 s for 100 s; b: 1 x 4 at 1 s for 100 s; c: 2 x 4 at 2 s for 50 s.
  // binpack stacks a and b on node 0 (6 of 8) and must give c node 1 whole, both pods; default
  // spreads a and b over the two nodes (6 + 4 free), so c's pods go 4 + 4 on two nodes.
  const std::string jobs = R"([
    {"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 100},
    {"name": "b", "submit_s": 1, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 100},
    {"name": "c", "submit_s": 2, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 50}])";
  const Scenario s =
      scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 2}])", jobs, R"(, "schedulers": ["binpack", "default"])"));
  const ResultSet results = run_all(s);
  const RunResult& packed = results.scheduler("binpack")->runs.front();
  CHECK(record(packed, s, "a").pods.at(0).node == 0);
  CHECK(record(packed, s, "b").pods.at(0).node == 0);
  const JobRecord& c = record(packed, s, "c");
  CHECK(c.start_ms == 2000);
  REQUIRE(c.pods.size() == 2);
  CHECK(c.pods[0].node == 1);
  CHECK(c.pods[1].node == 1);
  CHECK(c.comm.transport == CommTransport::PodSockets);  // one node, but pods do not share host IPC
  CHECK(metric(packed, "finished") == 3);
  CHECK_FALSE(packed.metrics.get("topology_success_rate").has_value());
}

TEST_CASE("sim::registry names every scheduler once, each with a factory and what it places", "[sim][scheduler]") {
  const std::vector<std::string> expected = {"topology-aware", "default",        "binpack", "kueue-tas", "volcano-topology",
                                             "kube-tas",       "kai-topology",   "spread",  "best-fit",  "dot-product",
                                             "gpu-packing",    "gpu-clustering", "random",  "fgd",       "fgd-pack"};
  CHECK(scheduler_names() == expected);
  for (const SchedulerInfo& info : scheduler_registry()) {
    INFO(info.name);
    CHECK(info.make != nullptr);
    CHECK(info.handles != 0);
    CHECK_FALSE(info.summary.empty());
    CHECK(find_scheduler(info.name) == &info);
  }
  CHECK(find_scheduler("kube") == nullptr);
  CHECK(handles_text(find_scheduler("binpack")->handles) == "whole-GPU gangs, GPU shares, trace pods");
  CHECK(find_scheduler("topology-aware")->serves == NodeMode::Topology);
}
