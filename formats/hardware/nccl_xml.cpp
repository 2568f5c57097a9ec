// NCCL topology XML export by string building (see nccl_xml.h). Import is in
// nccl_xml_import.cpp; the facts both share, and the format's sources, in nccl_xml_common.h.
#include "formats/hardware/nccl_xml.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "formats/hardware/nccl_xml_common.h"

namespace topsim {
namespace {

using namespace nccl_xml_detail;

// NCCL topo.cc kvDictPciGen: the link_speed strings Linux >= 5.7 writes; index = PCIe generation.
constexpr std::string_view kLinkSpeeds[] = {
    "", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"};

PcieLink narrower(PcieLink a, PcieLink b) { return pcie_gbps(b.gen, b.width) < pcie_gbps(a.gen, a.width) ? b : a; }

using Attributes = std::vector<std::pair<std::string_view, std::string>>;

// Indented XML text, two spaces per level, one element per line.
class XmlWriter {
 public:
  void open(std::string_view tag, const Attributes& attributes) {
    line(tag, attributes, ">");
    ++depth_;
  }
  void leaf(std::string_view tag, const Attributes& attributes) { line(tag, attributes, "/>"); }
  void close(std::string_view tag) {
    --depth_;
    out_.append(2 * depth_, ' ').append("</").append(tag).append(">\n");
  }
  std::string take() { return std::move(out_); }

 private:
  void line(std::string_view tag, const Attributes& attributes, std::string_view end) {
    out_.append(2 * depth_, ' ').append("<").append(tag);
    for (const auto& [name, value] : attributes)
      out_.append(" ").append(name).append("=\"").append(escape_xml(value)).append("\"");
    out_.append(end).append("\n");
  }
  std::string out_;
  size_t depth_ = 0;
};

std::string hex_id(unsigned value, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

class NcclXmlExporter {
 public:
  NcclXmlExporter(const NodeModel& model, const std::vector<int>& gpus) : model_(model) {
    dev_of_gpu_.assign(model.gpus.size(), -1);
    for (size_t dev = 0; dev < gpus.size(); ++dev) {
      assert(gpus[dev] >= 0 && gpus[dev] < static_cast<int>(model.gpus.size()) && dev_of_gpu_[gpus[dev]] < 0 &&
             "export_nccl_xml: GPU indices must be valid and distinct");
      dev_of_gpu_[gpus[dev]] = static_cast<int>(dev);
    }
    if (gpus.empty())
      for (size_t g = 0; g < model.gpus.size(); ++g) dev_of_gpu_[g] = static_cast<int>(g);
    assign_bus_ids();
    mark_used_bridges();
  }

  std::string run() {
    xml_.open("system", {{"version", "1"}});
    for (size_t numa = 0; numa < model_.numa_nodes.size(); ++numa) write_cpu(static_cast<int>(numa));
    xml_.close("system");
    return xml_.take();
  }

 private:
  // Model bus ids are kept when set and unique; the rest are "DDDD:BB:00.0" from a counter,
  // switches first, skipping ids the model uses, so a GPU's id does not depend on the subset.
  void assign_bus_ids() {
    std::set<std::string> taken;
    auto keep = [&](const std::string& id) { return !id.empty() && taken.insert(lower(id)).second ? id : ""; };
    for (const Gpu& g : model_.gpus) gpu_bus_.push_back(keep(g.bus_id));
    for (const Nic& n : model_.nics) nic_bus_.push_back(keep(n.bus_id));
    unsigned counter = 0;
    auto next = [&] {
      for (;;) {
        ++counter;
        std::string id = hex_id(counter >> 8, "%04x") + ":" + hex_id(counter & 0xffu, "%02x") + ":00.0";
        if (taken.insert(id).second) return id;
      }
    };
    // Host bridges have no element in NCCL's format: only switches take a bus number, so an
    // imported file (whose host bridges are its CPUs' root ports) exports to the same ids.
    bridge_bus_.resize(model_.bridges.size());
    for (size_t b = 0; b < model_.bridges.size(); ++b)
      if (model_.bridges[b].kind == BridgeKind::Switch) bridge_bus_[b] = next();
    for (std::string& id : gpu_bus_) id = id.empty() ? next() : id;
    for (std::string& id : nic_bus_) id = id.empty() ? next() : id;
    nvswitch_bus_ = next();
  }

  // A bridge is written when an included GPU or any NIC sits below it.
  void mark_used_bridges() {
    bridge_used_.assign(model_.bridges.size(), false);
    auto mark = [&](int bridge) {
      for (; bridge >= 0 && !bridge_used_[bridge]; bridge = model_.bridges[bridge].parent) bridge_used_[bridge] = true;
    };
    for (size_t g = 0; g < model_.gpus.size(); ++g)
      if (dev_of_gpu_[g] >= 0) mark(model_.gpus[g].bridge);
    for (const Nic& n : model_.nics) mark(n.bridge);
  }

  void write_cpu(int numa) {
    std::vector<int> hosts;
    for (size_t b = 0; b < model_.bridges.size(); ++b)
      if (bridge_used_[b] && model_.bridges[b].kind == BridgeKind::HostBridge && model_.bridges[b].numa == numa)
        hosts.push_back(static_cast<int>(b));
    if (hosts.empty()) return;
    const NumaNode& node = model_.numa_nodes[numa];
    Attributes attributes{{"numaid", std::to_string(node.id)}};
    // An affinity the model cannot spell as a CPU list is left out (NCCL then reads sysfs).
    if (const auto cpus = parse_cpu_list(node.cpu_affinity)) attributes.push_back({"affinity", cpu_mask(*cpus)});
    const CpuIdentity identity = cpu_identity(node.cpu);
    attributes.push_back({"arch", std::string(identity.arch)});
    if (!identity.vendor.empty()) {
      attributes.push_back({"vendor", std::string(identity.vendor)});
      attributes.push_back({"familyid", std::to_string(identity.family_id)});
      attributes.push_back({"modelid", std::to_string(identity.model_id)});
    }
    xml_.open("cpu", attributes);
    for (int host : hosts) write_children(host, PcieLink{model_.bridges[host].pcie_gen, model_.bridges[host].pcie_width});
    xml_.close("cpu");
  }

  // Children of `bridge`. Below a host bridge (`host_link` set) NCCL sees one link from each
  // child to the CPU, so it carries the narrower of the child's link and the host bridge's.
  void write_children(int bridge, std::optional<PcieLink> host_link) {
    auto link = [&](int gen, int width) { return host_link ? narrower({gen, width}, *host_link) : PcieLink{gen, width}; };
    for (size_t b = 0; b < model_.bridges.size(); ++b)
      if (bridge_used_[b] && model_.bridges[b].parent == bridge)
        write_switch(static_cast<int>(b), link(model_.bridges[b].pcie_gen, model_.bridges[b].pcie_width));
    for (size_t g = 0; g < model_.gpus.size(); ++g)
      if (dev_of_gpu_[g] >= 0 && model_.gpus[g].bridge == bridge)
        write_gpu(static_cast<int>(g), link(model_.gpus[g].pcie_gen, model_.gpus[g].pcie_width));
    for (size_t n = 0; n < model_.nics.size(); ++n)
      if (model_.nics[n].bridge == bridge)
        write_nic(static_cast<int>(n), link(model_.nics[n].pcie_gen, model_.nics[n].pcie_width));
  }

  static void add_link(Attributes& attributes, PcieLink link) {
    attributes.push_back({"link_speed", std::string(kLinkSpeeds[std::clamp(link.gen, 1, 6)])});
    attributes.push_back({"link_width", std::to_string(link.width)});
  }

  void write_switch(int bridge, PcieLink link) {
    Attributes attributes{{"busid", bridge_bus_[bridge]}, {"class", std::string(kClassBridge)}};
    add_link(attributes, link);
    xml_.open("pci", attributes);
    write_children(bridge, std::nullopt);
    xml_.close("pci");
  }

  void write_gpu(int gpu, PcieLink link) {
    const Gpu& g = model_.gpus[gpu];
    Attributes pci{{"busid", gpu_bus_[gpu]}, {"class", std::string(kClassGpu)}, {"vendor", "0x10de"}};
    if (const auto device_id = gpu_device_id(g.model)) pci.push_back({"device", hex_id(*device_id, "0x%04x")});
    add_link(pci, link);
    xml_.open("pci", pci);
    const std::string dev = std::to_string(dev_of_gpu_[gpu]);
    const Attributes attributes{{"dev", dev}, {"sm", std::to_string(g.sm)}, {"rank", dev}, {"gdr", "1"}};
    const std::vector<Attributes> links = nvlinks_of(gpu);
    if (links.empty()) {
      xml_.leaf("gpu", attributes);
    } else {
      xml_.open("gpu", attributes);
      for (const Attributes& nvlink : links) xml_.leaf("nvlink", nvlink);
      xml_.close("gpu");
    }
    xml_.close("pci");
  }

  // Direct bonds to included GPUs (by their dev), then one link into the merged NVSwitch.
  std::vector<Attributes> nvlinks_of(int gpu) const {
    std::map<int, Attributes> by_peer_dev;
    for (const NvLinkBond& bond : model_.nvlinks) {
      if (bond.gpu_a != gpu && bond.gpu_b != gpu) continue;
      const int peer = bond.gpu_a == gpu ? bond.gpu_b : bond.gpu_a;
      if (dev_of_gpu_[peer] < 0) continue;
      by_peer_dev[dev_of_gpu_[peer]] = {
          {"target", gpu_bus_[peer]}, {"count", std::to_string(bond.count)}, {"tclass", std::string(kClassGpu)}};
    }
    std::vector<Attributes> links;
    for (auto& [dev, attributes] : by_peer_dev) links.push_back(std::move(attributes));
    const int nvswitch_links = model_.gpus[gpu].nvswitch_links;
    if (nvswitch_links > 0)
      links.push_back(
          {{"target", nvswitch_bus_}, {"count", std::to_string(nvswitch_links)}, {"tclass", std::string(kClassNvSwitch)}});
    return links;
  }

  // InfiniBand HCAs report class 0x0207 (as in the Azure hint files), Ethernet NICs 0x0200;
  // gdr="0" marks a NIC without GPUDirect RDMA, which import reads back as plain Ethernet.
  void write_nic(int nic, PcieLink link) {
    const Nic& n = model_.nics[nic];
    const bool infiniband = n.transport == NicTransport::InfiniBand;
    Attributes pci{{"busid", nic_bus_[nic]}, {"class", std::string(infiniband ? kClassInfiniBandNic : kClassEthernetNic)}};
    if (starts_with(n.name, "mlx5")) pci.push_back({"vendor", "0x15b3"});  // Mellanox / NVIDIA Networking
    add_link(pci, link);
    xml_.open("pci", pci);
    xml_.open("nic", {});
    xml_.leaf("net", {{"name", n.name},
                      {"dev", std::to_string(nic)},
                      {"speed", std::to_string(std::llround(n.speed_gbit * 1000))},  // Mb/s
                      {"port", "1"},
                      {"latency", "0.000000"},
                      {"guid", hex_id(static_cast<unsigned>(nic + 1), "0x%x")},
                      {"maxconn", "131072"},
                      {"gdr", n.transport == NicTransport::Ethernet ? "0" : "1"}});
    xml_.close("nic");
    xml_.close("pci");
  }

  const NodeModel& model_;
  std::vector<int> dev_of_gpu_;  // per model GPU: its dev number, -1 when left out
  std::vector<std::string> gpu_bus_, nic_bus_, bridge_bus_;
  std::string nvswitch_bus_;
  std::vector<bool> bridge_used_;
  XmlWriter xml_;
};

}  // namespace

std::string export_nccl_xml(const NodeModel& model, const std::vector<int>& gpus) { return NcclXmlExporter(model, gpus).run(); }

}  // namespace topsim
