// The built-in node models (`topsim topo models`): DGX-1 V100, DGX A100, HGX H100, an 8-GPU
// PCIe box and DGX-2, each laid out after the vendor's published topology.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hardware.h"
#include "core/node_model.h"

namespace topsim {

struct BuiltinModelInfo {
  std::string name;
  std::string summary;  // one line
};

std::vector<BuiltinModelInfo> builtin_models();
std::vector<std::string> builtin_model_names();  // in the order of builtin_models()
// nullopt when `name` is not a built-in model.
std::optional<NodeModel> builtin_model(std::string_view name);

// The node a job's reference throughput is measured on for a reference GPU (sim/job_timing.h):
// the first built-in model of that GPU, else an 8-GPU PCIe server of it ("pcie-8x<gpu>").
NodeModel reference_node_model(const GpuModel& gpu);
// Name of the first built-in model whose GPUs are `gpu`; empty when none.
std::string reference_node_name(const GpuModel& gpu);

// What a built-in node costs to run and draws, for plans (a plan file's node type overrides
// both); 0 = not known. nullopt for a model without figures.
struct NodeEconomics {
  double cost_per_hour = 0;  // USD per node-hour
  double watts = 0;          // maximum power per node
  std::string_view source;
};
std::optional<NodeEconomics> builtin_economics(std::string_view name);

// Nodes per multi-node NVLink domain of a built-in model that comes in one (gb200-nvl72-tray and
// gb300-nvl72-tray: the 18 trays of an NVL72 rack); 0 for a node that is its own NVLink domain or a
// name not built in.
int builtin_nvlink_domain_nodes(std::string_view name);

// A synthetic NVSwitch domain of `gpus` GPUs of `gpu_model` (e.g. 72 x "b200", NVL72-like),
// `gpus_per_numa` to a NUMA node; used by benchmarks and large-domain tests.
NodeModel nvswitch_domain_model(int gpus, std::string_view gpu_model, int gpus_per_numa);

// Helpers for building models in code (used by the catalog and the importers).
class NodeModelBuilder {
 public:
  explicit NodeModelBuilder(std::string name, std::string description = "");
  int numa(CpuKind cpu, std::string cpu_affinity = "");              // returns NUMA index
  int host_bridge(int numa, int pcie_gen = 3, int pcie_width = 16);  // returns bridge index
  int pcie_switch(int parent, int pcie_gen = 3, int pcie_width = 16);
  // REQUIRES: find_gpu_model(gpu_model) != nullptr
  int gpu(int bridge, std::string_view gpu_model, int nvswitch_links = 0);
  int nic(int bridge, std::string name, double speed_gbit, NicTransport transport, int pcie_gen = 3);
  void nvlink(int a, int b, int count);
  NodeModel take() { return std::move(model_); }

 private:
  NodeModel model_;
};

}  // namespace topsim
