// `kubectl get nodes -o json` (or `-o yaml`, or a YAML stream of Nodes as the FGD simulator and
// open-simulator keep them) as a topsim cluster (docs/importers.md): GPU nodes grouped by GPU
// product (the GPU feature discovery label `nvidia.com/gpu.product`, else
// `alibabacloud.com/gpu-card-model`), GPU count (`allocatable` `nvidia.com/gpu`, or
// `aliyun.com/gpu-count` / `alibabacloud.com/gpu-count` on GPU-sharing nodes, else the label
// `nvidia.com/gpu.count`) and scheduling label
// (`ack.node.gpu.schedule`), each group mapped to a built-in node model. Fabric tiers from the
// topology labels clouds and NVIDIA set (docs/fabric.md): AWS `topology.k8s.aws/network-node-
// layer-1..4`, GKE `cloud.google.com/gce-topology-block / -subblock / -host`, Topograph
// `network.topology.nvidia.com/core / spine / leaf`, NVLink domains `nvidia.com/gpu.clique`, and
// labels the caller names: nodes are grouped by their values too, and the cluster gets a fabric
// level per label (links from the labels' own semantics; oversubscription 1 unless the scenario
// says otherwise). Host memory: what the kubelet lets pods use (`allocatable` `memory`, else
// `capacity` `memory`), nodes more than 5% apart in separate groups, a group taking its smallest
// node's.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace topsim {

struct KubeNodeGroup {
  std::string product;              // the GPU product label, as written
  int gpus = 0;                     // per node
  std::string label;                // ack.node.gpu.schedule value ("" when absent)
  std::string model;                // built-in model name, or what --map gave
  int count = 0;                    // nodes
  std::vector<std::string> nodes;   // their names, in file order
  std::vector<std::string> places;  // the value of each fabric label (KubeNodeImport::fabric_labels)
  // Host memory per node, GiB: the smallest of the group's nodes that state it (an LLM's offload
  // must fit on any of them); 0 when none does. `host_memory_max_gib`: the largest, within 5%
  // (nodes further apart form groups of their own).
  double host_memory_gib = 0;
  double host_memory_max_gib = 0;
};

struct KubeNodeImport {
  std::vector<KubeNodeGroup> groups;       // in order of first appearance
  std::vector<std::string> skipped;        // nodes without GPUs, by name
  std::vector<std::string> fabric_labels;  // the fabric's levels, top first (empty: no fabric labels)
  std::vector<std::string> notes;          // what was assumed, one line each
  // Between nodes: "ib" (RDMA: the nodes' own NICs, InfiniBand on the HGX and DGX models), "roce"
  // or "tcp" (NCCL sockets), and the line saying why ("rdma/rdma_shared_device_a on 4 of 4 GPU nodes").
  std::string transport = "tcp";
  std::string transport_reason;
};

// `mapping`: product label -> model (built-in name or node file), consulted first. Errors name
// the source and the node ("nodes.json: /items/3 (gpu-7): ..."); products no model matches are
// listed together, with how to map them. `network` ("ib", "roce", "tcp"; "" = read it from the
// nodes) sets the transport between nodes. Read from the nodes, it is "ib" when every GPU node
// has an RDMA device: an allocatable `rdma/*` resource (k8s-rdma-shared-dev-plugin) or
// `nvidia.com/hostdev` (NVIDIA network operator), or the Mellanox NIC label NFD sets
// (`feature.node.kubernetes.io/pci-15b3.present`); else "tcp".
[[nodiscard]] Expected<KubeNodeImport> parse_kube_nodes(std::string_view text, std::string_view source,
                                                        const std::map<std::string, std::string>& mapping = {},
                                                        const std::vector<std::string>& topology_labels = {},
                                                        const std::string& network = "");

// The import as a scenario `cluster` section: {"nodes": [{"model", "count", "label"?, "names",
// "labels"?, "host_memory_gib"?}, ...], "network": {"transport", "levels"?: [...]}} (levels lowest first, each
// placed by its label).
std::string kube_cluster_json(const KubeNodeImport& import);

}  // namespace topsim
