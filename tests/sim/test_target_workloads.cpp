// FGD's target workload shared by the runs over one workload (sim/target_workloads.h): derived
// once per workload and scheduler label, the same as deriving it for each run, and the runs that
// share it give what runs that derive their own give.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/experiment.h"
#include "sim/target_workloads.h"
#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// Whole-GPU gangs beside memory shares, on a topology node, a default node and a share node.
Scenario mixed_scenario() {
  return scenario_from(scenario_json(
      R"([{"model": "dgx1-v100"}, {"model": "dgx1-v100", "label": "default"}, {"model": "dgx1-v100", "label": "share"}])",
      R"([{"name": "a", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 100},
          {"name": "b", "submit_s": 1, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 50},
          {"name": "c", "submit_s": 2, "workers": 1, "gpus_per_worker": 2, "model": "vgg16", "duration_s": 80},
          {"name": "m", "submit_s": 3, "gpu_mem_gib": 4, "duration_s": 60, "count": 3}])",
      R"(, "schedulers": ["topology-aware", "default"], "seeds": 2)"));
}

bool same(const TargetWorkload& a, const TargetWorkload& b) {
  return a.specs == b.specs && a.weights == b.weights && a.weight_total == b.weight_total && a.tasks_seen == b.tasks_seen;
}

}  // namespace

TEST_CASE("sim::target_workloads derived once per workload and label, equal to deriving it per run", "[sim][fragmentation]") {
  const Scenario s = mixed_scenario();
  auto cluster = ClusterState::build(s.cluster);
  REQUIRE(cluster.ok());
  const Workload& workload = *s.workload;
  TargetWorkloads cache;
  const auto topology = cache.get(*cluster, workload, NodeMode::Topology, 0.95);
  const auto plain = cache.get(*cluster, workload, NodeMode::Default, 0.95);
  REQUIRE(topology);
  REQUIRE(plain);
  CHECK(same(*topology, target_workload(*cluster, workload, NodeMode::Topology, 0.95)));
  CHECK(same(*plain, target_workload(*cluster, workload, NodeMode::Default, 0.95)));
  CHECK(topology->tasks_seen == 1 + 2 + 1 + 3);  // a pod per worker (a, b, c) and per share (m)
  // Asked again: the same object, not a second derivation.
  CHECK(cache.get(*cluster, workload, NodeMode::Topology, 0.95) == topology);
  CHECK(cache.get(*cluster, workload, NodeMode::Default, 0.95) == plain);
  // A topology-aware pod asks differently from a default one; another coverage or another
  // workload (a copy, at another address) is another target.
  CHECK(topology != plain);
  CHECK_FALSE(same(*topology, *plain));
  const auto narrower = cache.get(*cluster, workload, NodeMode::Topology, 0.5);
  CHECK(narrower != topology);
  CHECK(same(*narrower, target_workload(*cluster, workload, NodeMode::Topology, 0.5)));
  const Workload copy = workload;
  CHECK(cache.get(*cluster, copy, NodeMode::Topology, 0.95) != topology);
  // From several threads at once: every caller gets the one stored.
  TargetWorkloads shared;
  std::vector<std::shared_ptr<const TargetWorkload>> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = shared.get(*cluster, workload, NodeMode::Topology, 0.95); });
  for (std::thread& t : threads) t.join();
  for (const auto& g : got) CHECK(g == got.front());
}

TEST_CASE("sim::target_workloads a shared cache changes no run's result", "[sim][fragmentation]") {
  const Scenario s = mixed_scenario();
  const ResultSet own = run_all(s);
  TargetWorkloads cache;
  ExperimentOptions options;
  options.targets = &cache;
  auto shared = run_experiment(s, options);
  REQUIRE(shared.ok());
  check_same_runs(own, *shared);
  // Both schedulers' targets, derived once each for their two seeds.
  CHECK(cache.size() == 2);
}
