#include "formats/hardware/kube_nodes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/builtin_models.h"
#include "core/gpu_share.h"
#include "core/hardware.h"
#include "core/node_model.h"
#include "formats/support/json_reader.h"
#include "formats/support/k8s_quantity.h"
#include "formats/support/yaml_reader.h"
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

// The catalog GPU of a product label: the label GPU feature discovery writes for it, a catalog
// name or alias (the FGD simulator's card models: "V100M16", "T4"), or its nvidia-smi product
// string written the same way.
const GpuModel* catalog_gpu(std::string_view product) {
  if (const GpuModel* labelled = find_gpu_by_product_label(product)) return labelled;
  if (const GpuModel* named = find_gpu_model(product)) return named;  // a card model label: "V100M16", "T4"
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

// A node's host memory in GiB, whole MiB (rounded down), from what the kubelet lets pods use
// (`allocatable` `memory`: capacity less system-reserved, kube-reserved and the eviction
// threshold; kubernetes.io/docs/tasks/administer-cluster/reserve-compute-resources), else its
// `capacity`: 0 when neither states it. Errors name the field: not a quantity, below 1 MiB, or
// above the kMaxHostMemoryGib a node model may state.
Expected<double> host_memory_of(const Json& status, const std::string& at) {
  for (const char* part : {"allocatable", "capacity"}) {
    const Json resources = object_member(status, part);
    if (!resources.contains("memory")) continue;
    const Json& value = resources.at("memory");
    const std::string where = at + "/status/" + part + "/memory: ";
    if (!value.is_string())
      return Error{where + "must be a string quantity such as \"2113515360Ki\" (as kubectl writes it), got " +
                   describe_json(value)};
    const std::string text = value.get<std::string>();
    auto bytes = parse_quantity(text);
    if (!bytes) return Error{where + "'" + text + "' is not a Kubernetes quantity"};
    constexpr int64_t kMiB = int64_t{1} << 20;
    if (*bytes < kMiB) return Error{where + "'" + text + "' is less than 1 MiB: not a node's memory"};
    const double gib = static_cast<double>(*bytes / kMiB) / 1024.0;
    if (gib > kMaxHostMemoryGib)
      return Error{where + "'" + text + "' is above the " + std::to_string(static_cast<int>(kMaxHostMemoryGib)) +
                   " GiB a node may have"};
    return gib;
  }
  return 0.0;
}

// The card model label of the FGD simulator's and open-simulator's node files.
constexpr const char* kCardModelLabel = "alibabacloud.com/gpu-card-model";

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

// The objects of a node file: kubectl's JSON or YAML (`-o json` / `-o yaml`: a List with items,
// or one Node), or a YAML stream of Node documents (the FGD and open-simulator node files), each
// with where it is: its JSON pointer, or "document N" in a stream.
struct NodeItems {
  std::unique_ptr<Json> document = std::make_unique<Json>();  // owns what `items` point to; moves keep its address
  std::vector<std::pair<std::string, const Json*>> items;
};

bool looks_like_json(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

Expected<NodeItems> node_items(std::string_view text, const std::string& src) {
  NodeItems out;
  if (looks_like_json(text)) {
    auto document = parse_json_text(text, src);
    if (!document) return document.error();
    *out.document = std::move(document).value();
  } else {
    auto documents = parse_yaml_stream(std::string(text), src);
    if (!documents) return documents.error();
    *out.document = Json::array();
    for (const YamlDocument& d : *documents)
      if (d.root && !d.root.IsNull()) out.document->push_back(yaml_to_json(d.root));
    if (out.document->size() == 1) {
      Json only = (*out.document)[0];
      *out.document = std::move(only);
    }
  }
  const Json& doc = *out.document;
  if (doc.is_array() && !doc.empty()) {  // a YAML stream of several documents
    for (size_t i = 0; i < doc.size(); ++i) out.items.emplace_back("document " + std::to_string(i + 1) + ": ", &doc[i]);
  } else if (string_member(doc, "kind") == "Node") {
    out.items.emplace_back("", &doc);
  } else if (doc.is_object() && doc.contains("items") && doc.at("items").is_array()) {
    const Json& list = doc.at("items");
    for (size_t i = 0; i < list.size(); ++i) out.items.emplace_back("/items/" + std::to_string(i), &list[i]);
  } else {
    return Error{src + ": not `kubectl get nodes -o json` (or `-o yaml`) output: expected a List with \"items\", or Nodes"};
  }
  return out;
}

// The GPU product of a node: GPU feature discovery's label, else the card model the FGD
// simulator and open-simulator write (alibabacloud.com/gpu-card-model: "V100M16", "T4").
std::string product_of(const std::map<std::string, std::string>& labels) {
  for (const char* key : {"nvidia.com/gpu.product", kCardModelLabel})
    if (const auto it = labels.find(key); it != labels.end() && !it->second.empty()) return it->second;
  return "";
}

// GPUs of a node: what its device plugin makes allocatable (nvidia.com/gpu; aliyun.com/gpu-count
// on ACK GPU-sharing nodes; alibabacloud.com/gpu-count in FGD and open-simulator files), else
// GPU feature discovery's nvidia.com/gpu.count label (`counted_by_label` set).
Expected<int> gpus_of(const Json& allocatable, const std::map<std::string, std::string>& labels, const std::string& at,
                      bool& counted_by_label) {
  for (const char* resource : {"nvidia.com/gpu", "aliyun.com/gpu-count", "alibabacloud.com/gpu-count"}) {
    auto count = device_count(allocatable, resource, at);
    if (!count || *count > 0) return count;
  }
  const auto label = labels.find("nvidia.com/gpu.count");
  if (label == labels.end()) return 0;
  const std::string& text = label->second;
  const bool digits =
      !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoi(text) > static_cast<int>(kMaxGpusPerNode))
    return Error{at + "/metadata/labels/nvidia.com/gpu.count: '" + text + "' is not a count of whole devices (0-" +
                 std::to_string(kMaxGpusPerNode) + ")"};
  const int count = std::stoi(text);
  counted_by_label = count > 0;
  return count;
}

// A node's GPU memory for shares (open-simulator's alibabacloud.com/gpu-mem, a Kubernetes
// quantity; ACK's aliyun.com/gpu-mem, GiB) over its cards must be the catalog card's, within 10%
// (a "16 GB" card reports about 15.9 GiB): a card model label names a family ("V100"), and the
// memory tells its 16 GB card from its 32 GB one. Success when absent or no catalog GPU matches.
Status check_card_memory(const Json& allocatable, const std::string& product, int gpus, const std::string& where) {
  const GpuModel* gpu = catalog_gpu(product);
  if (!gpu || gpus <= 0 || !allocatable.is_object()) return Status::success();
  double total_gib = 0;
  std::string resource;
  if (const std::string q = string_member(allocatable, "alibabacloud.com/gpu-mem"); !q.empty()) {
    auto bytes = parse_quantity(q);
    if (!bytes) return Error{where + "/status/allocatable/alibabacloud.com/gpu-mem: '" + q + "' is not a Kubernetes quantity"};
    total_gib = static_cast<double>(*bytes) / (1024.0 * 1024 * 1024), resource = "alibabacloud.com/gpu-mem " + q;
  } else if (const std::string g = string_member(allocatable, "aliyun.com/gpu-mem"); !g.empty()) {
    auto gib = parse_quantity(g);
    if (!gib) return Error{where + "/status/allocatable/aliyun.com/gpu-mem: '" + g + "' is not a count of GiB"};
    total_gib = static_cast<double>(*gib), resource = "aliyun.com/gpu-mem " + g + " GiB";
  } else {
    return Status::success();
  }
  const double per_card = total_gib / gpus;
  if (std::abs(per_card - gpu->memory_gib) <= 0.1 * gpu->memory_gib) return Status::success();
  char figures[96];
  std::snprintf(figures, sizeof figures, "%.1f GiB per card over %d cards", per_card, gpus);
  return Error{where + ": " + resource + " is " + figures + ", but '" + product + "' reads as the catalog's " + gpu->name + " (" +
               std::to_string(static_cast<int>(gpu->memory_gib)) +
               " GB): map the product with --map 'PRODUCT=MODEL' or label the node with its nvidia.com/gpu.product"};
}

// The RDMA device a node shows, "" when none: an allocatable rdma/* or nvidia.com/hostdev
// resource of at least 1, or NFD's label for a Mellanox (PCI vendor 15b3) device.
std::string rdma_evidence(const Json& allocatable, const std::map<std::string, std::string>& labels) {
  if (allocatable.is_object())
    for (const auto& [key, value] : allocatable.items()) {
      const bool rdma = key.rfind("rdma/", 0) == 0 || key == "nvidia.com/hostdev";
      if (rdma && value.is_string() && !value.get<std::string>().empty() && value.get<std::string>() != "0") return key;
    }
  if (const auto it = labels.find("feature.node.kubernetes.io/pci-15b3.present"); it != labels.end() && it->second == "true")
    return "feature.node.kubernetes.io/pci-15b3.present (a Mellanox NIC)";
  return "";
}

// The transport between nodes and why, from the RDMA evidence of each GPU node.
void choose_transport(KubeNodeImport& out, const std::vector<std::string>& evidence, const std::string& network) {
  const size_t with =
      static_cast<size_t>(std::count_if(evidence.begin(), evidence.end(), [](const auto& e) { return !e.empty(); }));
  const std::string first =
      with == 0 ? "" : *std::find_if(evidence.begin(), evidence.end(), [](const auto& e) { return !e.empty(); });
  const std::string seen = std::to_string(with) + " of " + std::to_string(evidence.size()) + " GPU nodes";
  if (!network.empty()) {
    out.transport = network;
    out.transport_reason = "as given; RDMA devices on " + seen;
  } else if (with > 0 && with == evidence.size()) {
    out.transport = "ib";
    out.transport_reason = first + " on " + seen + "; a RoCE fabric: give --network roce";
  } else {
    out.transport = "tcp";
    out.transport_reason = with == 0 ? "no RDMA device (rdma/*, nvidia.com/hostdev) or Mellanox NIC label on the GPU nodes"
                                     : first + " on only " + seen + ": NCCL falls back to sockets";
    out.transport_reason += "; give --network ib or roce when the fabric has RDMA";
  }
}

// Whether a node of `gib` host memory (0: not stated) joins group `g`: the group's nodes stay
// within 5% of each other (a few MiB apart is the kernels' own reservations; a DGX A100 320 GB's
// 1 TB against a 640 GB's 2 TB is another machine). A node stating none joins any group.
bool host_memory_alike(const KubeNodeGroup& g, double gib) {
  if (gib <= 0 || g.host_memory_gib <= 0) return true;
  return std::max(g.host_memory_max_gib, gib) <= 1.05 * std::min(g.host_memory_gib, gib);
}

}  // namespace

Expected<KubeNodeImport> parse_kube_nodes(std::string_view text, std::string_view source,
                                          const std::map<std::string, std::string>& mapping,
                                          const std::vector<std::string>& topology_labels, const std::string& network) {
  const std::string src(source);
  auto parsed = node_items(text, src);
  if (!parsed) return parsed.error();
  const auto& items = parsed->items;
  KubeNodeImport out;
  out.fabric_labels = fabric_labels_of(items, topology_labels);
  std::vector<std::string> unmapped;
  std::vector<std::string> evidence;  // per GPU node: its RDMA device, "" when none
  std::string unhealthy;              // the first node with GPUs in capacity but none allocatable
  size_t counted_by_label = 0;
  size_t without_memory = 0;  // GPU nodes stating no memory
  for (const auto& [pointer, node] : items) {
    const std::string at = src + ": " + pointer;  // "nodes.json: /items/3", "nodes.yaml: document 2: ", "nodes.json: "
    const std::string shown =
        pointer.size() > 2 && pointer.substr(pointer.size() - 2) == ": " ? pointer.substr(0, pointer.size() - 2) : pointer;
    const std::string kind = node->is_object() && node->contains("kind") ? string_member(*node, "kind") : "Node";
    if (!node->is_object() || kind != "Node")
      return Error{src + ": " + (shown.empty() ? "/" : shown) + ": not a Node (kind " +
                   (node->is_object() ? "'" + kind + "'" : describe_json(*node)) + ")"};
    const Json metadata = object_member(*node, "metadata");
    const std::string name = string_member(metadata, "name");
    if (name.empty()) return Error{at + "/metadata/name: missing"};
    const Json labels_json = object_member(metadata, "labels");
    std::map<std::string, std::string> labels;
    if (labels_json.is_object())
      for (const auto& [key, value] : labels_json.items())
        if (value.is_string()) labels[key] = value.get<std::string>();
    const Json allocatable = object_member(object_member(*node, "status"), "allocatable");
    bool by_label = false;
    auto counted = gpus_of(allocatable, labels, at, by_label);
    if (!counted) return counted.error();
    const int gpus = *counted;
    if (gpus <= 0) {
      out.skipped.push_back(name);
      const Json capacity = object_member(object_member(*node, "status"), "capacity");
      if (auto in_capacity = device_count(capacity, "nvidia.com/gpu", at); in_capacity && *in_capacity > 0 && unhealthy.empty())
        unhealthy = "; " + name + " has " + std::to_string(*in_capacity) +
                    " nvidia.com/gpu in capacity but 0 allocatable (its device plugin reports no healthy GPU)";
      continue;
    }
    counted_by_label += by_label ? 1 : 0;
    evidence.push_back(rdma_evidence(allocatable, labels));
    const std::string where = src + (shown.empty() ? "" : ": " + shown) + " (" + name + ")";
    const std::string product = product_of(labels);
    if (product.empty())
      return Error{where + ": " + std::to_string(gpus) +
                   " GPUs but no GPU product label: add nvidia.com/gpu.product (GPU feature discovery sets it, e.g. "
                   "NVIDIA-A100-SXM4-80GB) or map the node's GPUs by hand with --map"};
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
    if (!mapping.count(product))
      if (Status memory = check_card_memory(allocatable, product, gpus, where); !memory) return memory.error();
    auto memory = host_memory_of(object_member(*node, "status"), at);
    if (!memory) return memory.error();
    auto group = std::find_if(out.groups.begin(), out.groups.end(), [&](const KubeNodeGroup& g) {
      return g.product == product && g.gpus == gpus && g.label == label && g.places == places && host_memory_alike(g, *memory);
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
    if (*memory > 0) {
      group->host_memory_gib = group->host_memory_gib > 0 ? std::min(group->host_memory_gib, *memory) : *memory;
      group->host_memory_max_gib = std::max(group->host_memory_max_gib, *memory);
    } else {
      ++without_memory;
    }
  }
  if (!unmapped.empty()) {
    return Error{src + ": no built-in node model for " + join(unmapped, ", ") +
                 " (built-in: " + join(builtin_model_names(), ", ") +
                 "); map each with --map 'PRODUCT=MODEL' (a built-in model or a node file, e.g. from topo import)"};
  }
  if (out.groups.empty())
    return Error{src + ": no GPU node among " + std::to_string(items.size()) +
                 " nodes (none has nvidia.com/gpu, aliyun.com/gpu-count or alibabacloud.com/gpu-count allocatable, nor an "
                 "nvidia.com/gpu.count label)" +
                 unhealthy};
  choose_transport(out, evidence, network);
  if (counted_by_label > 0)
    out.notes.push_back(counted(counted_by_label, "node") +
                        " without GPUs allocatable counted by their nvidia.com/gpu.count label");
  if (without_memory > 0)
    out.notes.push_back(counted(without_memory, "GPU node") + (without_memory == 1 ? " states" : " state") +
                        " no memory (status allocatable or capacity): their host memory is the other "
                        "nodes' of their group, or the model's when none states it");
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
    if (g.host_memory_gib > 0) group["host_memory_gib"] = g.host_memory_gib;
    if (!g.places.empty()) {
      nlohmann::ordered_json labels = nlohmann::ordered_json::object();
      for (size_t i = 0; i < g.places.size(); ++i) labels[import.fabric_labels[i]] = g.places[i];
      group["labels"] = std::move(labels);
    }
    nodes.push_back(std::move(group));
  }
  nlohmann::ordered_json cluster = {{"nodes", nodes}, {"network", {{"transport", import.transport}}}};
  if (!import.fabric_labels.empty()) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (auto label = import.fabric_labels.rbegin(); label != import.fabric_labels.rend(); ++label) {  // lowest first
      nlohmann::ordered_json level = {{"name", level_name(*label)}, {"label", *label}};
      if (*label == kCliqueLabel) level["links"] = "nvlink";
      levels.push_back(std::move(level));
    }
    cluster["network"]["levels"] = std::move(levels);
  }
  return cluster.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
