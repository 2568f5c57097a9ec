// Reading Kubernetes objects parsed by yaml-cpp, shared by the manifest readers of formats/jobs
// (kube_manifests.cpp, kube_workloads.cpp, kube_gpu_asks.cpp). Internal to formats/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

namespace topsim {

// One failure reading a document: the message after "<file> document N: ".
struct ManifestFault {
  std::string what;
};

// `node[key]`, or an undefined node when `node` is no map or lacks the key (yaml-cpp throws when
// a missing node is indexed again).
YAML::Node child(const YAML::Node& node, const char* key);

// A scalar as written; "" when absent or null. Throws ManifestFault "<field>: must be a string"
// for a map or a list.
std::string text_of(const YAML::Node& node, const std::string& field);

// A count in the manifest (replicas, parallelism), 0..65535; `fallback` when absent. Throws
// ManifestFault naming `field` otherwise.
int64_t count_of(const YAML::Node& node, const std::string& field, int64_t fallback);

}  // namespace topsim
