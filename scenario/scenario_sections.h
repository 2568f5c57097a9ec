// The scenario loader's section readers (sim/scenario.h), private to sim: the cluster
// (scenario_cluster.cpp) and the workload (scenario_workload.cpp). Each reports its first
// problem through `errors` (file + JSON pointer), or, for errors that already carry their
// context (a trace's file, line and column), through `verbatim`.
#pragma once

#include <optional>
#include <string>

#include "formats/support/json_reader.h"
#include "sim/scenario.h"

namespace topsim {

// "cluster": node groups with a network, or a trace's node list.
void read_cluster(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, Scenario& scenario);
// One node group ({"model", "count", "label", "gpu_model"}), appended to `cluster`. `extra_keys`
// are allowed beside those (and left to the caller).
void read_node_group(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, ClusterSpec& cluster,
                     const std::vector<std::string>& extra_keys = {});
// "network": transport, NIC speed and efficiencies, racks.
void read_network(JsonErrors& errors, const JsonAt& at, NetworkSpec& net, NetworkModel& model);
// "measured" of "network": node pairs or a matrix of bus bandwidth and latency (scenario_measured.cpp).
void read_measured(JsonErrors& errors, const JsonAt& at, NetworkSpec& net);
// "workload": every kind; a fill experiment's draws need the cluster read first.
void read_workload(JsonErrors& errors, std::optional<Error>& verbatim, const JsonAt& at, const std::string& source,
                   const std::string& base_dir, Scenario& scenario);
// "tenancy": the queue folder, the jobs' queues mapped onto it, checkpoints; after the workload.
void read_tenancy(JsonErrors& errors, std::optional<Error>& verbatim, const JsonObject& top, const std::string& base_dir,
                  Scenario& scenario);
// "checkpoints": every, write and restart times; after "tenancy" (which may say the same).
void read_checkpoints(JsonErrors& errors, const JsonObject& top, Scenario& scenario);
// "failures": rates, their scale and overrides, a failure trace; after the cluster.
void read_failures(JsonErrors& errors, std::optional<Error>& verbatim, const JsonObject& top, const std::string& base_dir,
                   Scenario& scenario);
// Empty, or why the cluster cannot keep `spares` (a group with no node left to run jobs).
std::string check_spares(const SpareSpec& spares, const ClusterState& cluster);
// A whole scenario from its parsed document, `check_jobs_fit`: a job the empty cluster can never
// hold is an input error (a plan leaves it to the SLOs: such a job is rejected when it runs).
[[nodiscard]] Expected<Scenario> read_scenario(const nlohmann::json& document, std::string_view source,
                                               const std::string& base_dir, bool check_jobs_fit);
// A path as written in the scenario, resolved against the scenario's folder.
std::string resolve_path(const std::string& base_dir, const std::string& path);

}  // namespace topsim
