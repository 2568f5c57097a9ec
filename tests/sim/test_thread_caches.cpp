// Node types kept per thread across runs (sim/thread_caches.h): a thread gets back the type it built
// for an equal model on an equal network, other threads and other models get their own, large
// nodes are built each time, a workload's reference type is kept beside the cluster's, and runs
// over kept (warm) types give what fresh types give.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "sim/experiment.h"
#include "sim/target_workloads.h"
#include "sim/thread_caches.h"
#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

NodeGroupSpec group_of(NodeModel model) {
  NodeGroupSpec group;
  group.model = std::move(model);
  group.count = 2;
  return group;
}

// Two experiments of `nodes` and `jobs` (durations measured on V100) under two schedulers and two
// seeds over one set of kept types: each gives what fresh types give. The types kept after each.
std::vector<size_t> kept_types_over_two_passes(const std::string& nodes, const std::string& jobs) {
  std::string json = scenario_json(nodes, jobs, R"(, "schedulers": ["topology-aware", "default"], "seeds": 2)");
  json.replace(json.find(R"("kind": "jobs")"), 14, R"("kind": "jobs", "reference_gpu": "v100")");
  const Scenario s = scenario_from(json);
  const ResultSet fresh = run_all(s);
  ThreadCaches types;
  ExperimentOptions options;
  options.caches = &types;
  std::vector<size_t> kept;
  for (int pass = 0; pass < 2; ++pass) {
    auto runs = run_experiment(s, options);
    REQUIRE(runs.ok());
    check_same_runs(fresh, *runs);
    kept.push_back(types.node_types());
  }
  return kept;
}

}  // namespace

TEST_CASE("sim::thread_caches one type per thread and model, rebuilt for large nodes", "[sim][thread-caches]") {
  ThreadCaches types;
  const NodeGroupSpec dgx1 = group_of(*builtin_model("dgx1-v100")), a100 = group_of(*builtin_model("dgx-a100"));
  NetworkSpec ib, tcp;
  ib.transport = NetworkTransport::InfiniBand;
  tcp.transport = NetworkTransport::Tcp;
  auto first = types.node_type(dgx1, ib);
  REQUIRE(first.ok());
  CHECK((*first)->name == "dgx1-v100");
  CHECK((*first)->gpus == 8);
  // Asked again for an equal model on an equal network: the same type.
  CHECK(*types.node_type(dgx1, ib) == *first);
  NodeGroupSpec relabelled = dgx1;  // what is not the model (label, count) does not matter
  relabelled.label = NodeMode::Default;
  relabelled.count = 5;
  CHECK(*types.node_type(relabelled, ib) == *first);
  // Another model, or the same model with other NICs (TCP makes them Ethernet): another type.
  CHECK(*types.node_type(a100, ib) != *first);
  auto on_tcp = types.node_type(dgx1, tcp);
  REQUIRE(on_tcp.ok());
  CHECK(*on_tcp != *first);
  CHECK((*on_tcp)->topology->model().nics.front().transport == NicTransport::Ethernet);
  NodeGroupSpec changed = dgx1;
  changed.model.gpus[3].memory_gib = 32;
  CHECK(*types.node_type(changed, ib) != *first);
  CHECK(types.node_types() == 4);
  // Another thread builds its own (allocators are not thread-safe), and keeps it.
  std::shared_ptr<const NodeType> other, other_again;
  std::thread([&] {
    other = *types.node_type(dgx1, ib);
    other_again = *types.node_type(dgx1, ib);
  }).join();
  CHECK(other != *first);
  CHECK(other == other_again);
  CHECK(types.node_types() == 5);
  // A node of more than kMaxKeptGpus GPUs (its memo tables have no bound) is built each time.
  const NodeGroupSpec domain = group_of(nvswitch_domain_model(ThreadCaches::kMaxKeptGpus + 8, "b200", 4));
  auto big = types.node_type(domain, ib);
  REQUIRE(big.ok());
  CHECK((*big)->gpus == ThreadCaches::kMaxKeptGpus + 8);
  CHECK(*types.node_type(domain, ib) != *big);
  CHECK(types.node_types() == 5);
  // A model that does not validate: the error, nothing kept.
  NodeGroupSpec broken = dgx1;
  broken.model.gpus[0].bridge = 99;
  CHECK_FALSE(types.node_type(broken, ib).ok());
  CHECK(types.node_types() == 5);
}

TEST_CASE("sim::thread_caches runs over kept types give what runs over fresh types give", "[sim][thread-caches]") {
  // Gangs across nodes and odd sizes on one node: the allocator's memo tables fill in the first
  // experiment and are read warm by the second. One type per model on this thread (the runs of
  // run_all's single thread): nothing more is built on the second pass.
  const std::vector<size_t> kept = kept_types_over_two_passes(
      R"([{"model": "dgx1-v100", "count": 3}, {"model": "pcie-8gpu", "label": "default"}])",
      R"([{"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 3, "model": "resnet50", "duration_s": 100},
          {"name": "b", "submit_s": 1, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 50},
          {"name": "c", "submit_s": 2, "workers": 1, "gpus_per_worker": 5, "model": "vgg16", "duration_s": 80},
          {"name": "d", "submit_s": 3, "workers": 3, "gpus_per_worker": 2, "model": "vgg16", "duration_s": 70},
          {"name": "e", "submit_s": 4, "workers": 1, "gpus_per_worker": 1, "model": "resnet50", "duration_s": 30}])");
  CHECK(kept == std::vector<size_t>{2, 2});
}

TEST_CASE("sim::thread_caches a workload's reference node type is kept with the cluster's", "[sim][thread-caches]") {
  // Durations measured on V100 replayed on A100 nodes: each job's work is its duration at the ideal
  // rate of a reference V100 node, a type no node of the cluster has. It is this thread's kept
  // type too (dgx-a100 and the V100 reference, built once), so later runs find its allocator warm
  // instead of building it per run.
  const std::vector<size_t> kept = kept_types_over_two_passes(
      R"([{"model": "dgx-a100", "count": 2}])",
      R"([{"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 3, "model": "resnet50", "duration_s": 100},
          {"name": "b", "submit_s": 1, "workers": 2, "gpus_per_worker": 8, "model": "vgg16", "duration_s": 50}])");
  CHECK(kept == std::vector<size_t>{2, 2});
}

TEST_CASE("sim::thread_caches fragmentation memos kept across runs give the same results", "[sim][thread-caches]") {
  // Memory shares placed by fgd on a share node beside whole-GPU gangs: every run tracks
  // fragmentation against its scheduler's target; the second experiment starts from the first's memos.
  const Scenario s = scenario_from(scenario_json(
      R"([{"model": "dgx1-v100"}, {"model": "dgx1-v100", "label": "default"}, {"model": "dgx1-v100", "label": "share"}])",
      R"([{"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 100},
          {"name": "b", "submit_s": 1, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 50},
          {"name": "m", "submit_s": 3, "gpu_mem_gib": 4, "duration_s": 60, "count": 5},
          {"name": "n", "submit_s": 5, "gpu_mem_gib": 10, "duration_s": 40, "count": 3}])",
      R"(, "schedulers": ["topology-aware", "default"], "seeds": 2, "share_policy": "fgd")"));
  const ResultSet fresh = run_all(s);
  ThreadCaches caches;
  TargetWorkloads targets;
  ExperimentOptions options;
  options.caches = &caches;
  options.targets = &targets;
  for (int pass = 0; pass < 2; ++pass) {
    auto kept = run_experiment(s, options);
    REQUIRE(kept.ok());
    check_same_runs(fresh, *kept);
    // One memo per target (the two schedulers ask for pods their own way), on this one thread.
    CHECK(caches.fragmentation_memos() == targets.size());
    CHECK(targets.size() == 2);
  }
}
