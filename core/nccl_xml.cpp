// NCCL topology XML: export by string building, import with pugixml (see nccl_xml.h).
//
// Sources for the format and its semantics: NCCL src/graph/xml.cc (what a dump holds),
// src/graph/topo.cc (how NCCL reads it back: kvDictPciClass, kvDictPciGen, ncclTopoAddCpu,
// ncclTopoAddPci, ncclTopoAddNvLinks) and the real files in ../shared/topologies/.
#include "core/nccl_xml.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <pugixml.hpp>

namespace topsim {
namespace {

// ---------------------------------------------------------------------------------------------
// Facts shared by export and import.

// PCI class codes (PCI SIG class code list). NCCL topo.cc kvDictPciClass matches "0x03" (GPU) and
// "0x02" (NIC) as prefixes; 0x068000 is an NVSwitch, 0x068001 NCCL's class for an NVLink to the
// CPU (POWER9); anything else is a PCI bridge to NCCL.
constexpr std::string_view kClassBridge = "0x060400";
constexpr std::string_view kClassGpu = "0x030200";
constexpr std::string_view kClassEthernetNic = "0x020000";
constexpr std::string_view kClassInfiniBandNic = "0x020700";
constexpr std::string_view kClassNvSwitch = "0x068000";
constexpr std::string_view kClassCpu = "0x068001";
constexpr std::string_view kClassPrefixGpu = "0x03";
constexpr std::string_view kClassPrefixNic = "0x02";
constexpr std::string_view kClassPrefixInfiniBand = "0x0207";

// NVIDIA (vendor 0x10de) PCI device ids of the catalog GPUs, from the public PCI ID database
// (pci-ids.ucw.cz). Import maps an id back to the first model listing it.
struct GpuDeviceId {
  std::string_view model;
  unsigned device_id;
};
constexpr GpuDeviceId kGpuDeviceIds[] = {
    {"p100", 0x15f9},     {"v100", 0x1db1},      {"v100-32g", 0x1db5}, {"v100-sxm3", 0x1db8},
    {"t4", 0x1eb8},       {"a100", 0x20b0},      {"a100-80g", 0x20b2}, {"a100-pcie", 0x20f1},
    {"a10", 0x2236},      {"l40s", 0x26b9},      {"rtx4090", 0x2684},  {"rtx4090-48g", 0x2684},
    {"h100", 0x2330},     {"b200", 0x2901},
};

// NCCL topo.cc kvDictPciGen: the link_speed strings Linux >= 5.7 writes; index = PCIe generation.
constexpr std::string_view kLinkSpeeds[] = {"",
                                            "2.5 GT/s PCIe",
                                            "5.0 GT/s PCIe",
                                            "8.0 GT/s PCIe",
                                            "16.0 GT/s PCIe",
                                            "32.0 GT/s PCIe",
                                            "64.0 GT/s PCIe"};
// NCCL topo.cc: a missing link width means x16, an unknown link speed Gen3.
constexpr int kDefaultPcieGen = 3;
constexpr int kDefaultPcieWidth = 16;

// What NCCL reads from <cpu> (topo.cc ncclTopoAddCpu): arch; on x86_64 also vendor, and for Intel
// familyid/modelid, from which it picks the inter-socket bandwidth (see intel_cpu_kind).
struct CpuIdentity {
  std::string_view arch;
  std::string_view vendor;  // empty: not written (non-x86)
  int family_id = 0;
  int model_id = 0;
};

// CPUID family / model of a representative part of each kind (Intel SDM; AMD Zen 2 = 23/49).
CpuIdentity cpu_identity(CpuKind kind) {
  switch (kind) {
    case CpuKind::IntelBroadwell: return {"x86_64", "GenuineIntel", 6, 79};
    case CpuKind::IntelSkylake: return {"x86_64", "GenuineIntel", 6, 85};
    case CpuKind::IntelSapphireRapids: return {"x86_64", "GenuineIntel", 6, 143};
    case CpuKind::IntelEmeraldRapids: return {"x86_64", "GenuineIntel", 6, 207};
    case CpuKind::Amd: return {"x86_64", "AuthenticAMD", 23, 49};
    case CpuKind::Arm: return {"arm64", "", 0, 0};
    case CpuKind::Power9: return {"ppc64", "", 0, 0};
  }
  return {"x86_64", "GenuineIntel", 6, 85};
}

// NCCL topo.cc: family 6 with model >= 0xCF is Emerald Rapids, >= 0x8F Sapphire Rapids,
// >= 0x55 Skylake; every other Intel CPU is treated as Broadwell (QPI).
CpuKind intel_cpu_kind(int family_id, int model_id) {
  if (family_id != 6) return CpuKind::IntelBroadwell;
  if (model_id >= 0xCF) return CpuKind::IntelEmeraldRapids;
  if (model_id >= 0x8F) return CpuKind::IntelSapphireRapids;
  if (model_id >= 0x55) return CpuKind::IntelSkylake;
  return CpuKind::IntelBroadwell;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Decimal, or hexadecimal after "0x" (NCCL reads numbers with strtol(..., 0)); the whole text
// must be the number.
std::optional<long long> parse_integer(std::string_view text) {
  int base = 10;
  if (starts_with(text, "0x") || starts_with(text, "0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// ---------------------------------------------------------------------------------------------
// CPU affinity: the model's list form ("0-11,24-35") and NCCL's cpumask form (32-bit groups as
// 8 hex digits, most significant first, comma-separated: "00000000,0fff0fff").

constexpr int kMaxCpuNumber = 1 << 16;  // bounds the masks built from untrusted text

std::optional<std::vector<int>> parse_cpu_list(std::string_view list) {
  std::vector<int> cpus;
  size_t pos = 0;
  while (!list.empty() && pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view token = list.substr(pos, comma - pos);
    const size_t dash = token.find('-');
    const auto first = parse_integer(token.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_integer(token.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last >= kMaxCpuNumber) return std::nullopt;
    for (long long cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    pos = comma + 1;
  }
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& sorted_cpus) {
  std::string out;
  for (size_t i = 0; i < sorted_cpus.size();) {
    size_t j = i;
    while (j + 1 < sorted_cpus.size() && sorted_cpus[j + 1] == sorted_cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted_cpus[i]);
    if (j > i) out += "-" + std::to_string(sorted_cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string cpu_mask(const std::vector<int>& cpus) {
  std::vector<uint32_t> words(static_cast<size_t>(*std::max_element(cpus.begin(), cpus.end()) / 32 + 1), 0);
  for (int cpu : cpus) words[cpu / 32] |= 1u << (cpu % 32);
  std::string out;
  for (size_t i = words.size(); i-- > 0;) {
    char group[9];
    std::snprintf(group, sizeof group, "%08x", static_cast<unsigned>(words[i]));
    out += out.empty() ? "" : ",";
    out += group;
  }
  return out;
}

// nullopt when `mask` is not comma-separated groups of 1-8 hex digits.
std::optional<std::string> cpu_list_from_mask(std::string_view mask) {
  std::vector<uint32_t> words;  // most significant group first
  for (size_t pos = 0; pos <= mask.size();) {
    const size_t comma = std::min(mask.find(',', pos), mask.size());
    const std::string_view group = mask.substr(pos, comma - pos);
    uint32_t word = 0;
    const auto [end, error] = std::from_chars(group.data(), group.data() + group.size(), word, 16);
    if (group.empty() || group.size() > 8 || error != std::errc() || end != group.data() + group.size())
      return std::nullopt;
    words.push_back(word);
    pos = comma + 1;
  }
  if (words.size() * 32 > kMaxCpuNumber) return std::nullopt;
  std::vector<int> cpus;
  for (size_t w = 0; w < words.size(); ++w)
    for (int bit = 0; bit < 32; ++bit)
      if ((words[words.size() - 1 - w] >> bit) & 1u) cpus.push_back(static_cast<int>(w * 32) + bit);
  return format_cpu_list(cpus);
}

// ---------------------------------------------------------------------------------------------
// Export.

struct PcieLink {
  int gen = kDefaultPcieGen;
  int width = kDefaultPcieWidth;
};

PcieLink narrower(PcieLink a, PcieLink b) { return pcie_gbps(b.gen, b.width) < pcie_gbps(a.gen, a.width) ? b : a; }

using Attributes = std::vector<std::pair<std::string_view, std::string>>;

std::string escape_xml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

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
    for (const auto& [name, value] : attributes) out_.append(" ").append(name).append("=\"").append(escape_xml(value)).append("\"");
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

std::optional<unsigned> gpu_device_id(std::string_view model) {
  for (const GpuDeviceId& entry : kGpuDeviceIds)
    if (entry.model == model) return entry.device_id;
  return std::nullopt;
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
  // bridges first, skipping ids the model uses, so a GPU's id does not depend on the subset.
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
    bridge_bus_.resize(model_.bridges.size());
    for (std::string& id : bridge_bus_) id = next();
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
      if (model_.nics[n].bridge == bridge) write_nic(static_cast<int>(n), link(model_.nics[n].pcie_gen, model_.nics[n].pcie_width));
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
      by_peer_dev[dev_of_gpu_[peer]] = {{"target", gpu_bus_[peer]}, {"count", std::to_string(bond.count)},
                                        {"tclass", std::string(kClassGpu)}};
    }
    std::vector<Attributes> links;
    for (auto& [dev, attributes] : by_peer_dev) links.push_back(std::move(attributes));
    const int nvswitch_links = model_.gpus[gpu].nvswitch_links;
    if (nvswitch_links > 0)
      links.push_back({{"target", nvswitch_bus_}, {"count", std::to_string(nvswitch_links)},
                       {"tclass", std::string(kClassNvSwitch)}});
    return links;
  }

  // InfiniBand HCAs report class 0x0207 (as in the Azure hint files), Ethernet NICs 0x0200;
  // gdr="0" marks a NIC without GPUDirect RDMA, which import reads back as plain Ethernet.
  void write_nic(int nic, PcieLink link) {
    const Nic& n = model_.nics[nic];
    const bool infiniband = n.transport == NicTransport::InfiniBand;
    Attributes pci{{"busid", nic_bus_[nic]},
                   {"class", std::string(infiniband ? kClassInfiniBandNic : kClassEthernetNic)}};
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

// ---------------------------------------------------------------------------------------------
// Import.

constexpr int kMaxDeviceIndex = 1 << 16;  // bounds `dev` / `numaid` numbers read from a file

// Raised inside the importer only; import_nccl_xml turns it into an Error with the line number.
struct XmlFault {
  pugi::xml_node node;
  std::string what;
};

[[noreturn]] void fail(pugi::xml_node node, std::string what) { throw XmlFault{node, std::move(what)}; }

// "<pci busid=0000:a4:00.0>"; an element inside a device is prefixed with its ancestors up to
// the pci or cpu: "<pci busid=0000:a4:00.0> <gpu dev=0> <nvlink target=0000:f5:00.0>".
std::string describe(pugi::xml_node node) {
  static const std::map<std::string_view, const char*> kKeyAttribute = {
      {"pci", "busid"}, {"cpu", "numaid"}, {"gpu", "dev"}, {"net", "name"}, {"nvlink", "target"}};
  const std::string_view tag = node.name();
  std::string out = "<" + std::string(tag);
  if (auto key = kKeyAttribute.find(tag); key != kKeyAttribute.end() && node.attribute(key->second))
    out += std::string(" ") + key->second + "=" + node.attribute(key->second).value();
  out += ">";
  const pugi::xml_node parent = node.parent();
  if (tag == "pci" || tag == "cpu" || tag == "system" || parent.type() != pugi::node_element ||
      parent.name() == std::string_view("system"))
    return out;
  return describe(parent) + " " + out;
}

std::pair<long, long> line_and_column(std::string_view text, std::ptrdiff_t offset) {
  if (offset < 0) return {0, 0};
  const std::string_view before = text.substr(0, static_cast<size_t>(offset));
  const size_t last_newline = before.rfind('\n');
  const long column = static_cast<long>(offset) - (last_newline == std::string_view::npos ? -1 : static_cast<long>(last_newline));
  return {1 + static_cast<long>(std::count(before.begin(), before.end(), '\n')), column};
}

std::string required_attribute(pugi::xml_node node, const char* name) {
  const pugi::xml_attribute attribute = node.attribute(name);
  if (!attribute) fail(node, std::string("missing attribute '") + name + "'");
  return attribute.value();
}

int integer_attribute(pugi::xml_node node, const char* name, long long min, long long max) {
  const std::string text = required_attribute(node, name);
  const auto value = parse_integer(text);
  if (!value) fail(node, std::string(name) + " '" + text + "' is not a number");
  if (*value < min || *value > max)
    fail(node, std::string(name) + " " + text + " is out of range (" + std::to_string(min) + "-" + std::to_string(max) + ")");
  return static_cast<int>(*value);
}

// link_speed as NCCL writes it ("16.0 GT/s PCIe", older kernels "16 GT/s"); empty or "Unknown"
// means NCCL's fallback, Gen3. Anything else that is not a PCIe rate is an error.
int pcie_gen_from_speed(pugi::xml_node pci, std::string_view speed) {
  if (speed.empty() || starts_with(speed, "Unknown")) return kDefaultPcieGen;
  const std::string_view number = speed.substr(0, speed.find(' '));
  double gt_per_s = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), gt_per_s);
  const std::string_view rest = speed.substr(std::min(speed.size(), number.size() + 1));
  if (error == std::errc() && end == number.data() + number.size() && starts_with(rest, "GT/s")) {
    constexpr double kRates[] = {0, 2.5, 5, 8, 16, 32, 64};
    for (int gen = 1; gen <= 6; ++gen)
      if (gt_per_s == kRates[gen]) return gen;
  }
  fail(pci, "link_speed '" + std::string(speed) + "' is not a PCIe rate (2.5, 5, 8, 16, 32 or 64 GT/s)");
}

PcieLink read_link(pugi::xml_node pci) {
  PcieLink link;
  link.gen = pcie_gen_from_speed(pci, pci.attribute("link_speed").value());
  const int width = pci.attribute("link_width") ? integer_attribute(pci, "link_width", 0, 32) : 0;
  link.width = width == 0 ? kDefaultPcieWidth : width;
  return link;
}

CpuKind read_cpu_kind(pugi::xml_node cpu) {
  if (!cpu.attribute("arch")) fail(cpu, "no arch attribute: hint files without CPU details cannot be imported");
  const std::string arch = cpu.attribute("arch").value();
  if (arch == "arm64") return CpuKind::Arm;
  if (arch == "ppc64") return CpuKind::Power9;
  if (arch != "x86_64") fail(cpu, "arch '" + arch + "' is not x86_64, arm64 or ppc64");
  const std::string vendor = required_attribute(cpu, "vendor");
  if (vendor == "AuthenticAMD") return CpuKind::Amd;
  if (vendor != "GenuineIntel") fail(cpu, "vendor '" + vendor + "' is not GenuineIntel or AuthenticAMD");
  return intel_cpu_kind(integer_attribute(cpu, "familyid", 0, 0xffff), integer_attribute(cpu, "modelid", 0, 0xffff));
}

enum class PciKind { Bridge, Gpu, Nic, NvSwitch };

PciKind pci_kind(pugi::xml_node pci) {
  if (!pci.attribute("class")) fail(pci, "no class attribute: hint files without device classes cannot be imported");
  const std::string pci_class = lower(pci.attribute("class").value());
  if (starts_with(pci_class, kClassPrefixGpu)) return PciKind::Gpu;
  if (starts_with(pci_class, kClassPrefixNic)) return PciKind::Nic;
  if (pci_class == kClassNvSwitch) return PciKind::NvSwitch;
  return PciKind::Bridge;
}

bool leads_to_device(pugi::xml_node pci) {
  const PciKind kind = pci_kind(pci);
  if (kind == PciKind::Gpu || kind == PciKind::Nic) return true;
  if (kind == PciKind::NvSwitch) return false;
  for (pugi::xml_node child : pci.children("pci"))
    if (leads_to_device(child)) return true;
  return false;
}

class NcclXmlImporter {
 public:
  NodeModel run(pugi::xml_node system) {
    check_system(system);
    for (pugi::xml_node cpu : system.children("cpu")) read_cpu(cpu);
    if (model_.numa_nodes.empty()) fail(system, "no <cpu> elements");
    if (found_gpus_.empty()) fail(system, "no GPUs (<pci class=\"0x03....\"> holding <gpu>)");
    const std::vector<int> order = gpu_order();
    for (int found : order) model_.gpus.push_back(found_gpus_[found].gpu);
    resolve_nvlinks(order);
    std::stable_sort(found_nics_.begin(), found_nics_.end(),
                     [](const FoundNic& a, const FoundNic& b) { return a.dev < b.dev; });
    for (const FoundNic& found : found_nics_) model_.nics.push_back(found.nic);
    return std::move(model_);
  }
  const std::set<std::string>& notes() const { return notes_; }

 private:
  struct FoundGpu {
    Gpu gpu;
    int dev;
    pugi::xml_node element;
  };
  struct FoundNic {
    Nic nic;
    long long dev;  // NCCL's net index; nets without one keep document order after the others
  };
  struct FoundNvLink {
    int from;            // index into found_gpus_
    std::string target;  // lower-case bus id
    int count;
    pugi::xml_node element;
  };

  static void check_system(pugi::xml_node system) {
    if (system.attribute("version") && std::string_view(system.attribute("version").value()) != "1")
      fail(system, std::string("version ") + system.attribute("version").value() + " is not supported (expected 1)");
    std::set<std::string> hosts;
    for (pugi::xml_node cpu : system.children("cpu"))
      if (cpu.attribute("host_hash")) hosts.insert(cpu.attribute("host_hash").value());
    if (hosts.size() > 1) fail(system, "the file describes " + std::to_string(hosts.size()) + " hosts (host_hash); import one node at a time");
  }

  int add_bridge(BridgeKind kind, int numa, int parent, PcieLink link) {
    model_.bridges.push_back({kind, numa, parent, link.gen, link.width});
    return static_cast<int>(model_.bridges.size()) - 1;
  }

  void read_cpu(pugi::xml_node cpu) {
    const int numaid = integer_attribute(cpu, "numaid", -1, kMaxDeviceIndex);
    for (const NumaNode& node : model_.numa_nodes)
      if (node.id == numaid) fail(cpu, "numaid " + std::to_string(numaid) + " appears twice");
    NumaNode node{numaid, read_cpu_kind(cpu), ""};
    if (cpu.attribute("affinity")) {
      const auto list = cpu_list_from_mask(cpu.attribute("affinity").value());
      if (!list) fail(cpu, std::string("affinity '") + cpu.attribute("affinity").value() + "' is not a CPU mask (comma-separated hex groups)");
      node.cpu_affinity = *list;
    }
    model_.numa_nodes.push_back(node);
    const int numa = static_cast<int>(model_.numa_nodes.size()) - 1;
    for (pugi::xml_node child : cpu.children()) {
      // NCCL hangs NICs without a PCI path (e.g. socket interfaces) directly off the CPU.
      if (child.name() == std::string_view("nic"))
        read_nets(child, add_bridge(BridgeKind::HostBridge, numa, -1, PcieLink{}), PcieLink{}, false, "");
      else if (child.name() == std::string_view("pci"))
        read_pci(child, numa, -1);
    }
  }

  // A pci directly under a cpu (`parent` -1) gets a host bridge of its own; a bridge becomes a
  // switch holding its children. PCI subtrees without GPUs or NICs and NVSwitches are skipped.
  void read_pci(pugi::xml_node pci, int numa, int parent) {
    if (!leads_to_device(pci)) return;
    const PciKind kind = pci_kind(pci);
    const PcieLink link = read_link(pci);
    if (parent < 0) parent = add_bridge(BridgeKind::HostBridge, numa, -1, link);
    if (kind == PciKind::Gpu) return read_gpu(pci, parent, link);
    if (kind == PciKind::Nic) return read_nic(pci, parent, link);
    const int bridge = add_bridge(BridgeKind::Switch, numa, parent, link);
    for (pugi::xml_node child : pci.children("pci")) read_pci(child, numa, bridge);
  }

  void read_gpu(pugi::xml_node pci, int bridge, PcieLink link) {
    const pugi::xml_node element = pci.child("gpu");
    if (!element || !element.attribute("sm"))
      fail(pci, "GPU has no <gpu sm=...> child: hint files without GPU details cannot be imported");
    const int sm = integer_attribute(element, "sm", 10, 10000);
    const GpuModel& spec = gpu_model_for(pci, sm);
    Gpu gpu{spec.name, sm, spec.memory_gib, bridge, link.gen, link.width, 0, required_attribute(pci, "busid")};
    const int found = static_cast<int>(found_gpus_.size());
    for (pugi::xml_node nvlink : element.children("nvlink")) read_nvlink(nvlink, found, gpu);
    found_gpus_.push_back({gpu, integer_attribute(element, "dev", 0, kMaxDeviceIndex), element});
  }

  // The catalog model of a GPU: by PCI device id when the table knows it (its sm must agree),
  // else the first catalog model with this sm (recorded in the notes).
  const GpuModel& gpu_model_for(pugi::xml_node pci, int sm) {
    const std::string device = lower(pci.attribute("device").value());
    const auto device_id = parse_integer(device);
    for (const GpuDeviceId& entry : kGpuDeviceIds) {
      if (!device_id || *device_id != entry.device_id) continue;
      const GpuModel* spec = find_gpu_model(entry.model);
      if (spec->sm != sm)
        fail(pci, "device " + device + " is a " + spec->name + " (sm " + std::to_string(spec->sm) + ") but <gpu> says sm " + std::to_string(sm));
      return *spec;
    }
    for (const std::string& name : gpu_model_names()) {
      const GpuModel* spec = find_gpu_model(name);
      if (spec->sm != sm) continue;
      notes_.insert("GPU device " + (device.empty() ? std::string("id absent") : device) + " (sm " + std::to_string(sm) +
                    ") is not in the device table: imported as " + spec->name);
      return *spec;
    }
    fail(pci, "no catalog GPU model has sm " + std::to_string(sm) + (device.empty() ? "" : " (device " + device + ")"));
  }

  void read_nvlink(pugi::xml_node nvlink, int found_gpu, Gpu& gpu) {
    const std::string target = lower(required_attribute(nvlink, "target"));
    const std::string target_class = lower(required_attribute(nvlink, "tclass"));
    const int count = integer_attribute(nvlink, "count", 1, 1000);
    if (starts_with(target_class, kClassPrefixGpu)) {
      found_nvlinks_.push_back({found_gpu, target, count, nvlink});
    } else if (target_class == kClassNvSwitch) {
      gpu.nvswitch_links += count;  // NCCL merges all NVSwitches into one node
    } else if (target_class == kClassCpu) {
      notes_.insert("NVLinks to the CPU (tclass 0x068001) are not modelled and were left out");
    } else {
      fail(nvlink, "tclass '" + target_class + "' is not a GPU (0x03...), an NVSwitch (0x068000) or a CPU (0x068001)");
    }
  }

  void read_nic(pugi::xml_node pci, int bridge, PcieLink link) {
    const pugi::xml_node nic = pci.child("nic");
    if (!nic || !nic.child("net"))
      fail(pci, "NIC has no <nic><net name=... speed=...> child: hint files without NIC details cannot be imported");
    const bool infiniband = starts_with(lower(pci.attribute("class").value()), kClassPrefixInfiniBand);
    read_nets(nic, bridge, link, infiniband, pci.attribute("busid").value());
  }

  // Transport: class 0x0207 is InfiniBand; otherwise a net with GPUDirect RDMA (gdr="1") is
  // RDMA over Ethernet (RoCE; AWS EFA reads as RoCE too), one without is plain Ethernet.
  void read_nets(pugi::xml_node nic, int bridge, PcieLink link, bool infiniband, const std::string& bus_id) {
    for (pugi::xml_node net : nic.children("net")) {
      const std::string name = required_attribute(net, "name");
      const double speed_gbit = integer_attribute(net, "speed", 1, 100'000'000) / 1000.0;  // Mb/s
      const bool gdr = net.attribute("gdr") && integer_attribute(net, "gdr", 0, 1) == 1;
      const NicTransport transport = infiniband ? NicTransport::InfiniBand : gdr ? NicTransport::RoCE : NicTransport::Ethernet;
      const long long dev = net.attribute("dev") ? integer_attribute(net, "dev", 0, kMaxDeviceIndex) : std::numeric_limits<long long>::max();
      found_nics_.push_back({Nic{name, speed_gbit, transport, bridge, link.gen, link.width, bus_id}, dev});
    }
  }

  // Found GPU indices ordered by dev: model GPU i is the GPU with the i-th smallest dev.
  std::vector<int> gpu_order() {
    std::vector<int> order(found_gpus_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return found_gpus_[a].dev < found_gpus_[b].dev; });
    for (size_t i = 0; i < order.size(); ++i) {
      const FoundGpu& gpu = found_gpus_[order[i]];
      if (i > 0 && gpu.dev == found_gpus_[order[i - 1]].dev) fail(gpu.element, "dev " + std::to_string(gpu.dev) + " is used by two GPUs");
      if (gpu.dev != static_cast<int>(i))
        notes_.insert("GPU dev numbers are not 0.." + std::to_string(order.size() - 1) + ": GPUs renumbered in dev order");
    }
    return order;
  }

  // Bonds appear at both ends: one bond per pair, whose two ends must agree on the count.
  void resolve_nvlinks(const std::vector<int>& order) {
    std::vector<int> index_of_found(order.size());
    std::map<std::string, int> gpu_by_bus;
    for (size_t i = 0; i < order.size(); ++i) {
      index_of_found[order[i]] = static_cast<int>(i);
      if (!gpu_by_bus.emplace(lower(model_.gpus[i].bus_id), static_cast<int>(i)).second)
        fail(found_gpus_[order[i]].element.parent(), "busid is used by two GPUs");
    }
    std::map<std::pair<int, int>, std::pair<int, pugi::xml_node>> directed;  // (from, to) -> count, element
    for (const FoundNvLink& link : found_nvlinks_) {
      const auto target = gpu_by_bus.find(link.target);
      if (target == gpu_by_bus.end()) fail(link.element, "target " + link.target + " is not the busid of a GPU in this file");
      const int from = index_of_found[link.from];
      if (target->second == from) fail(link.element, "a GPU cannot have an NVLink to itself");
      auto& entry = directed[{from, target->second}];
      entry = {entry.first + link.count, link.element};
    }
    for (const auto& [pair, entry] : directed) {
      const auto reverse = directed.find({pair.second, pair.first});
      if (reverse != directed.end() && reverse->second.first != entry.first)
        fail(entry.second, "GPU " + std::to_string(pair.first) + " lists " + std::to_string(entry.first) + " NVLinks to GPU " +
                               std::to_string(pair.second) + ", which lists " + std::to_string(reverse->second.first) + " back");
      if (pair.first < pair.second || reverse == directed.end())
        model_.nvlinks.push_back({std::min(pair.first, pair.second), std::max(pair.first, pair.second), entry.first});
    }
  }

  NodeModel model_;
  std::vector<FoundGpu> found_gpus_;
  std::vector<FoundNic> found_nics_;
  std::vector<FoundNvLink> found_nvlinks_;
  std::set<std::string> notes_;
};

// "dir/ibm-hgx-h100.xml" -> "ibm-hgx-h100".
std::string model_name_from_source(std::string_view source) {
  source = source.substr(source.rfind('/') == std::string_view::npos ? 0 : source.rfind('/') + 1);
  source = source.substr(0, source.rfind('.'));
  return source.empty() ? "nccl-topo" : std::string(source);
}

}  // namespace

std::string export_nccl_xml(const NodeModel& model, const std::vector<int>& gpus) {
  return NcclXmlExporter(model, gpus).run();
}

Expected<NodeModel> import_nccl_xml(std::string_view text, std::string_view source_name) {
  const std::string source(source_name);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    const auto [line, column] = line_and_column(text, parsed.offset);
    return Error{source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": XML parse error: " +
                 parsed.description() + " (byte offset " + std::to_string(parsed.offset) + ")"};
  }
  const pugi::xml_node system = doc.child("system");
  if (!system) return Error{source + ": no <system> element: not an NCCL topology file"};
  NcclXmlImporter importer;
  NodeModel model;
  try {
    model = importer.run(system);
  } catch (const XmlFault& fault) {
    const long line = line_and_column(text, fault.node.offset_debug()).first;
    return Error{source + ":" + std::to_string(line) + ": " + describe(fault.node) + ": " + fault.what};
  }
  model.name = model_name_from_source(source);
  model.description = "imported from NCCL topology XML " + source;
  for (const std::string& note : importer.notes()) model.description += "; " + note;
  if (Status status = validate(model); !status) return Error{source + ": the imported node is not valid: " + status.error().message};
  return model;
}

}  // namespace topsim
