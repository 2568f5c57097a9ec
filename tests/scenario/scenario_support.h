// Helpers for the simulator tests: scenarios from JSON text, runs as `topsim run` makes them
// (through run_experiment), and job records by name.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "scenario/scenario_loader.h"
#include "sim/experiment.h"

namespace topsim::test {

// A scenario from its JSON text; REQUIREs that it loads. Relative paths resolve against `dir`.
inline Scenario scenario_from(const std::string& json, const std::string& dir = "") {
  auto scenario = parse_scenario(json, "test.json", dir);
  INFO((scenario.ok() ? std::string() : scenario.error().message));
  REQUIRE(scenario.ok());
  return std::move(scenario).value();
}

// `nodes` and `jobs` are JSON arrays; `extra` adds top-level members (", \"queue\": ..."),
// `network` members of "cluster" (", \"network\": ...").
inline std::string scenario_json(const std::string& nodes, const std::string& jobs, const std::string& extra = "",
                                 const std::string& network = "") {
  return R"({"cluster": {"nodes": )" + nodes + network + R"(}, "workload": {"kind": "jobs", "jobs": )" + jobs + "}" + extra + "}";
}

// Every scheduler of the scenario, every seed, as `topsim run` runs them.
inline ResultSet run_all(const Scenario& scenario, int threads = 1) {
  ExperimentOptions options;
  options.threads = threads;
  auto results = run_experiment(scenario, options);
  INFO((results.ok() ? std::string() : results.error().message));
  REQUIRE(results.ok());
  return std::move(results).value();
}

// An 8-GPU V100 node without a NIC (its pods have no path to another node), as `topo import`
// makes from a `topo -m` listing that shows none; a scenario names it "no-nic.json".
inline constexpr const char* kNodeWithoutNicJson = R"({"name": "no-nic", "numa_nodes": [{"id": 0, "cpu": "intel-skylake"}],
  "bridges": [{"kind": "host-bridge", "numa": 0, "pcie_gen": 3}, {"kind": "switch", "parent": 0, "pcie_gen": 3}],
  "gpus": [{"model": "v100", "bridge": 1, "count": 8}], "nics": []})";

// Two nodes without NICs (in `dir`), a 16-GPU gang "big" that needs both and a 2-GPU job "small":
// the gang can never be placed.
inline Scenario gang_without_nic_path(const std::string& dir, const std::string& schedulers = R"(["topology-aware"])") {
  std::ofstream((std::filesystem::path(dir) / "no-nic.json").string()) << kNodeWithoutNicJson;
  const std::string jobs =
      R"([{"name": "big", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "iterations": 100},
          {"name": "small", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}])";
  return scenario_from(scenario_json(R"([{"model": "no-nic.json", "count": 2}])", jobs, R"(, "schedulers": )" + schedulers), dir);
}

// The scenario run under one scheduler, with its seed unless `seed` is given.
inline RunResult run(const Scenario& scenario, const std::string& scheduler, std::optional<uint64_t> seed = std::nullopt) {
  Scenario one = scenario;
  one.schedulers = {scheduler};
  one.seeds = 1;
  if (seed) one.seed = *seed;
  return std::move(run_all(one).schedulers.front().runs.front());
}

inline uint32_t job_id(const Scenario& scenario, const std::string& name) {
  for (const JobSpec& job : scenario.workload->jobs)
    if (scenario.workload->job_name(job.id) == name) return job.id;
  FAIL("no job named " << name);
  return 0;
}

inline const JobRecord& record(const RunResult& result, const Scenario& scenario, const std::string& name) {
  return result.jobs.at(job_id(scenario, name));
}

// Every run of `b` has the metrics (names and values, bit for bit) and samples of `a`'s run.
inline void check_same_runs(const ResultSet& a, const ResultSet& b) {
  REQUIRE(a.schedulers.size() == b.schedulers.size());
  for (size_t i = 0; i < a.schedulers.size(); ++i) {
    REQUIRE(a.schedulers[i].runs.size() == b.schedulers[i].runs.size());
    for (size_t r = 0; r < a.schedulers[i].runs.size(); ++r) {
      const RunResult &x = a.schedulers[i].runs[r], &y = b.schedulers[i].runs[r];
      CHECK(x.metrics.all().size() == y.metrics.all().size());
      for (const Metric& m : x.metrics.all()) CHECK(y.metrics.get(m.name) == m.value);
      CHECK(x.samples.size() == y.samples.size());
    }
  }
}

inline double metric(const RunResult& result, const std::string& name) {
  const auto value = result.metrics.get(name);
  INFO("metric " << name);
  REQUIRE(value.has_value());
  return *value;
}

}  // namespace topsim::test
