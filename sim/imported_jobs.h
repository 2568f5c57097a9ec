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

// What a workload file or folder holds, from its name and first line: a folder or *.yaml / *.yml
// file is Kubernetes manifests; a '|'-separated header naming JobID is `sacct --parsable2`
// output; a CSV header starting with job_id and naming gpu_num a Helios cluster_log.csv;
// anything else is JSON (a topsim workload section, or Kubernetes objects: those have apiVersion).
enum class RecordFormat { Json, Manifests, Sacct, Helios };
RecordFormat record_format(const std::string& path);

}  // namespace topsim
