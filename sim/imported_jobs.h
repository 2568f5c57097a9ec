// What an importer of other tools' job records produces (Kubernetes manifests, Slurm sacct,
// Helios logs): entries of the native job list (docs/workloads.md), checked by its loader.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace topsim {

struct ImportedJobs {
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();  // native job list entries
  std::vector<std::string> skipped;                               // what was left out and why, one line each
  std::vector<std::string> notes;                                 // defaults assumed, once each
};

}  // namespace topsim
