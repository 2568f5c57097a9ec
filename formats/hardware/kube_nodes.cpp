#include "formats/hardware/kube_nodes.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <nlohmann/json.hpp>

#include "core/builtin_models.h"
#include "core/gpu_share.h"
#include "core/hardware.h"
#include "formats/support/json_reader.h"
#include "util/text.h"

namespace topsim {
namespace {

using Json = nlohmann::json;

// A product as GPU feature discovery writes it ("NVIDIA-A100-SXM4-40GB", "Tesla-V100-SXM2-16GB"),
// reduced for comparison: upper case, spaces as dashes, no vendor prefix.
std::string product_key(std::string_view product) {
  std::string key;
  for (char c : product) key += c == ' ' ? '-' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* prefix : {"NVIDIA-", "TESLA-"})
    if (key.rfind(prefix, 0) == 0) key.erase(0, std::string_view(prefix).size());
  return key;
}

// The catalog GPU of a product label: the label GPU feature discovery writes for it, or its
// nvidia-smi product string written the same way.
const GpuModel* catalog_gpu(std::string_view product) {
  if (const GpuModel* labelled = find_gpu_by_product_label(product)) return labelled;
  const std::string key = product_key(product);
  for (const std::string& name : gpu_model_names()) {
    const GpuModel* gpu = find_gpu_model(name);
    if (product_key(gpu->product) == key) return gpu;
  }
  return nullptr;
}

// The built-in node model with `gpus` GPUs of `gpu`, if any.
std::string builtin_for(const GpuModel& gpu, int gpus) {
  for (const BuiltinModelInfo& info : builtin_models()) {
    const NodeModel m = *builtin_model(info.name);
    if (static_cast<int>(m.gpus.size()) == gpus && m.gpus.front().model == gpu.name) return info.name;
  }
  return "";
}

// A member of an object if it has that type, else empty: kubectl's output is read leniently,
// never through nlohmann's value(), which throws when a key holds another type.
std::string string_member(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : "";
}
Json object_member(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_object() ? j.at(key) : Json::object();
}

// A Kubernetes quantity of whole devices ("8"): 0 when absent; an error naming `pointer` (the
// allocatable object's) when present but not a plain count of at most kMaxGpusPerNode: "8k",
// "1e1", "-8", "0.5" and numbers written without quotes are what no device plugin reports.
Expected<int> device_count(const Json& resources, const char* name, const std::string& at) {
  if (!resources.is_object() || !resources.contains(name)) return 0;
  const Json& value = resources.at(name);
  const std::string where = at + "/status/allocatable/" + name + ": ";  // the key as written (util/one_line.h)
  if (!value.is_string())
    return Error{where + "must be a string quantity such as \"8\" (as kubectl writes it), got " + describe_json(value)};
  const std::string text = value.get<std::string>();
  const bool digits =
      !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoi(text) > static_cast<int>(kMaxGpusPerNode))
    return Error{where + "'" + text + "' is not a count of whole devices (0-" + std::to_string(kMaxGpusPerNode) + ")"};
  return std::stoi(text);
}

// Fabric labels clouds and NVIDIA set, by family, top level first (docs/fabric.md).
const std::vector<std::vector<std::string>> kKnownFabricLabels = {
    {"topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2", "topology.k8s.aws/network-node-layer-3",
     "topology.k8s.aws/network-node-layer-4"},
    {"cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock", "cloud.google.com/gce-topology-host"},
    {"network.topology.nvidia.com/core", "network.topology.nvidia.com/spine", "network.topology.nvidia.com/leaf"},
    {"nvidia.com/gpu.clique"},
};
constexpr const char* kCliqueLabel = "nvidia.com/gpu.clique";

// The fabric labels any node of `items` carries, top first, then `extra` (the caller's).
std::vector<std::string> fabric_labels_of(const std::vector<std::pair<std::string, const Json*>>& items,
                                          const std::vector<std::string>& extra) {
  std::vector<std::string> found;
  for (const auto& family : kKnownFabricLabels)
    for (const std::string& label : family)
      for (const auto& [pointer, node] : items) {
        const Json labels = node->is_object() ? object_member(object_member(*node, "metadata"), "labels") : Json();
        if (labels.is_object() && labels.contains(label)) {
          found.push_back(label);
          break;
        }
      }
  for (const std::string& label : extra)
    if (std::find(found.begin(), found.end(), label) == found.end()) found.push_back(label);
  // An NVLink domain sits below every switch level.
  if (auto clique = std::find(found.begin(), found.end(), kCliqueLabel); clique != found.end()) {
    found.erase(clique);
    found.push_back(kCliqueLabel);
  }
  return found;
}

}  // namespace

Expected<KubeNodeImport> parse_kube_nodes(std::string_view text, std::string_view source,
                                          const std::map<std::string, std::string>& mapping,
                                          const std::vector<std::string>& topology_labels) {
  auto document = parse_json_text(text, source);
  if (!document) return document.error();
  const std::string src(source);
  std::vector<std::pair<std::string, const Json*>> items;  // (pointer, node)
  if (string_member(*document, "kind") == "Node") {
    items.emplace_back("", &*document);
  } else if (document->is_object() && document->contains("items") && document->at("items").is_array()) {
    const Json& list = document->at("items");
    for (size_t i = 0; i < list.size(); ++i) items.emplace_back("/items/" + std::to_string(i), &list[i]);
  } else {
    return Error{src + ": not `kubectl get nodes -o json` output (expected a List with \"items\", or a Node)"};
  }
  KubeNodeImport out;
  out.fabric_labels = fabric_labels_of(items, topology_labels);
  std::vector<std::string> unmapped;
  for (const auto& [pointer, node] : items) {
    const std::string at = src + ": " + (pointer.empty() ? "/" : pointer);
    const std::string kind = node->is_object() && node->contains("kind") ? string_member(*node, "kind") : "Node";
    if (!node->is_object() || kind != "Node")
      return Error{at + ": not a Node (kind " + (node->is_object() ? "'" + kind + "'" : describe_json(*node)) + ")"};
    const Json metadata = object_member(*node, "metadata");
    const std::string name = string_member(metadata, "name");
    if (name.empty()) return Error{at + "/metadata/name: missing"};
    const Json labels_json = object_member(metadata, "labels");
    std::map<std::string, std::string> labels;
    if (labels_json.is_object())
      for (const auto& [key, value] : labels_json.items())
        if (value.is_string()) labels[key] = value.get<std::string>();
    const Json allocatable = object_member(object_member(*node, "status"), "allocatable");
    auto nvidia = device_count(allocatable, "nvidia.com/gpu", at);
    if (!nvidia) return nvidia.error();
    auto aliyun = device_count(allocatable, "aliyun.com/gpu-count", at);
    if (!aliyun) return aliyun.error();
    const int gpus = *nvidia > 0 ? *nvidia : *aliyun;
    if (gpus <= 0) {
      out.skipped.push_back(name);
      continue;
    }
    const std::string where = at + " (" + name + ")";
    if (gpus > static_cast<int>(kMaxGpusPerNode))
      return Error{where + ": " + std::to_string(gpus) + " GPUs allocatable; a node has at most " +
                   std::to_string(kMaxGpusPerNode)};
    const auto product_it = labels.find("nvidia.com/gpu.product");
    if (product_it == labels.end())
      return Error{where + ": no nvidia.com/gpu.product label (GPU feature discovery sets it); label the node or drop it"};
    const std::string& product = product_it->second;
    auto mode = node_mode_from_labels(labels);
    if (!mode) return Error{where + ": " + mode.error().message};
    const auto label_it = labels.find("ack.node.gpu.schedule");
    const std::string label = label_it == labels.end() ? "" : std::string(enum_name(*mode));
    std::vector<std::string> places;
    for (const std::string& fabric_label : out.fabric_labels) {
      const auto it = labels.find(fabric_label);
      if (it == labels.end() || it->second.empty())
        return Error{where + "/metadata/labels: no " + fabric_label +
                     " label, which the fabric's levels read (other GPU nodes carry it); label every GPU node or drop the level"};
      places.push_back(it->second);
    }
    auto group = std::find_if(out.groups.begin(), out.groups.end(), [&](const KubeNodeGroup& g) {
      return g.product == product && g.gpus == gpus && g.label == label && g.places == places;
    });
    if (group == out.groups.end()) {
      KubeNodeGroup g{product, gpus, label, "", 0, {}, places};
      if (const auto m = mapping.find(product); m != mapping.end()) {
        g.model = m->second;
      } else if (const GpuModel* gpu = catalog_gpu(product)) {
        g.model = builtin_for(*gpu, gpus);
      }
      if (g.model.empty()) unmapped.push_back("'" + product + "' x" + std::to_string(gpus));
      out.groups.push_back(std::move(g));
      group = out.groups.end() - 1;
    }
    ++group->count;
    group->nodes.push_back(name);
  }
  if (!unmapped.empty()) {
    return Error{src + ": no built-in node model for " + join(unmapped, ", ") +
                 " (built-in: " + join(builtin_model_names(), ", ") +
                 "); map each with --map 'PRODUCT=MODEL' (a built-in model or a node file, e.g. from topo import)"};
  }
  if (out.groups.empty())
    return Error{src + ": no GPU node among " + std::to_string(items.size()) +
                 " nodes (none has nvidia.com/gpu or aliyun.com/gpu-count allocatable)"};
  return out;
}

namespace {

// A level's name from its label: the part after the prefix ("network-node-layer-3", "leaf").
std::string level_name(const std::string& label) {
  if (label == kCliqueLabel) return "nvlink-domain";
  const size_t slash = label.rfind('/');
  std::string name = slash == std::string::npos ? label : label.substr(slash + 1);
  if (name.rfind("gce-topology-", 0) == 0) name = name.substr(13);
  return name.empty() ? label : name;
}

}  // namespace

std::string kube_cluster_json(const KubeNodeImport& import) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const KubeNodeGroup& g : import.groups) {
    nlohmann::ordered_json group = {{"model", g.model}, {"count", g.count}};
    if (!g.label.empty()) group["label"] = g.label;
    group["names"] = g.nodes;
    if (!g.places.empty()) {
      nlohmann::ordered_json labels = nlohmann::ordered_json::object();
      for (size_t i = 0; i < g.places.size(); ++i) labels[import.fabric_labels[i]] = g.places[i];
      group["labels"] = std::move(labels);
    }
    nodes.push_back(std::move(group));
  }
  nlohmann::ordered_json cluster = {{"nodes", nodes}};
  if (!import.fabric_labels.empty()) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (auto label = import.fabric_labels.rbegin(); label != import.fabric_labels.rend(); ++label) {  // lowest first
      nlohmann::ordered_json level = {{"name", level_name(*label)}, {"label", *label}};
      if (*label == kCliqueLabel) level["links"] = "nvlink";
      levels.push_back(std::move(level));
    }
    cluster["network"] = {{"levels", std::move(levels)}};
  }
  return cluster.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
