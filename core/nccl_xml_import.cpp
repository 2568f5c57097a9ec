// NCCL topology XML import with pugixml (see nccl_xml.h). Export is in nccl_xml.cpp; the facts
// both share, and the format's sources, in nccl_xml_common.h.
#include "core/nccl_xml.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <pugixml.hpp>

#include "core/nccl_xml_common.h"

namespace topsim {
namespace {

using namespace nccl_xml_detail;

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
    std::stable_sort(found_nics_.begin(), found_nics_.end(), [](const FoundNic& a, const FoundNic& b) { return a.dev < b.dev; });
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
    if (hosts.size() > 1)
      fail(system, "the file describes " + std::to_string(hosts.size()) + " hosts (host_hash); import one node at a time");
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
      if (!list)
        fail(cpu,
             std::string("affinity '") + cpu.attribute("affinity").value() + "' is not a CPU mask (comma-separated hex groups)");
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
        fail(pci, "device " + device + " is a " + spec->name + " (sm " + std::to_string(spec->sm) + ") but <gpu> says sm " +
                      std::to_string(sm));
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
      const long long dev =
          net.attribute("dev") ? integer_attribute(net, "dev", 0, kMaxDeviceIndex) : std::numeric_limits<long long>::max();
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
      if (i > 0 && gpu.dev == found_gpus_[order[i - 1]].dev)
        fail(gpu.element, "dev " + std::to_string(gpu.dev) + " is used by two GPUs");
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
// Real NCCL topology files nest 6-8 deep; the importer walks the tree recursively, so a deeper
// file is refused first (its walk could exhaust the stack).
constexpr int kMaxXmlDepth = 64;

// The first element deeper than kMaxXmlDepth (pugixml's traversal is not recursive).
struct DepthLimit final : pugi::xml_tree_walker {
  pugi::xml_node too_deep;
  bool for_each(pugi::xml_node& node) override {
    if (depth() <= kMaxXmlDepth) return true;
    too_deep = node;
    return false;
  }
};

std::string model_name_from_source(std::string_view source) {
  source = source.substr(source.rfind('/') == std::string_view::npos ? 0 : source.rfind('/') + 1);
  source = source.substr(0, source.rfind('.'));
  return source.empty() ? "nccl-topo" : std::string(source);
}

}  // namespace

Expected<NodeModel> import_nccl_xml(std::string_view text, std::string_view source_name) {
  const std::string source(source_name);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    const auto [line, column] = line_and_column(text, parsed.offset);
    return Error{source + ":" + std::to_string(line) + ":" + std::to_string(column) +
                 ": XML parse error: " + parsed.description() + " (byte offset " + std::to_string(parsed.offset) + ")"};
  }
  if (DepthLimit limit; !doc.traverse(limit) && limit.too_deep) {
    const long line = line_and_column(text, limit.too_deep.offset_debug()).first;
    return Error{source + ":" + std::to_string(line) + ": elements nested more than " + std::to_string(kMaxXmlDepth) +
                 " deep (an NCCL topology file nests fewer than 10)"};
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
  if (Status status = validate(model); !status)
    return Error{source + ": the imported node is not valid: " + status.error().message};
  return model;
}

}  // namespace topsim
