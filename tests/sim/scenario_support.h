// Helpers for the simulator tests: scenarios from JSON text, runs as `topsim run` makes them,
// and job records by name.
#pragma once

#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "sim/cluster.h"
#include "sim/scenario.h"
#include "sim/simulation.h"

namespace topsim::test {

// A scenario from its JSON text; REQUIREs that it loads.
inline Scenario scenario_from(const std::string& json) {
  auto scenario = parse_scenario(json, "test.json", "");
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

// Runs the scenario as `topsim run` does: its options, the given scheduler, its seed unless
// `seed` is given.
inline SimResult run(const Scenario& scenario, SchedulerKind scheduler, std::optional<uint64_t> seed = std::nullopt) {
  auto cluster = ClusterState::build(scenario.cluster);
  REQUIRE(cluster.ok());
  SimOptions options = scenario.options;
  options.scheduler = scheduler;
  options.seed = seed.value_or(scenario.seed);
  return simulate(*cluster, scenario.workload, options);
}

inline uint32_t job_id(const Scenario& scenario, const std::string& name) {
  for (const JobSpec& job : scenario.workload.jobs)
    if (scenario.workload.job_name(job.id) == name) return job.id;
  FAIL("no job named " << name);
  return 0;
}

inline const JobRecord& record(const SimResult& result, const Scenario& scenario, const std::string& name) {
  return result.jobs.at(job_id(scenario, name));
}

}  // namespace topsim::test
