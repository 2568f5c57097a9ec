// NCCL topology XML import with pugixml (see nccl_xml.h). Export is in nccl_xml.cpp; the facts
// both share, and the format's sources, in nccl_xml_common.h.
#include "formats/hardware/nccl_xml.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <pugixml.hpp>

#include "core/builtin_models.h"
#include "formats/hardware/nccl_xml_common.h"
#include "util/nesting.h"
#include "util/text.h"

namespace topsim {
namespace {

using namespace nccl_xml_detail;

constexpr int kMaxDeviceIndex = 1 << 16;  // bounds `dev` / `numaid` numbers read from a file

// Raised inside the importer only; parse_nccl_xml turns it into an Error with the line number.
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
  const std::string arch = cpu.attribute("arch").value();
  if (arch == "arm64") return CpuKind::Arm;
  if (arch == "ppc64") return CpuKind::Power9;
  if (arch != "x86_64") fail(cpu, "arch '" + arch + "' is not x86_64, arm64 or ppc64");
  const std::string vendor = required_attribute(cpu, "vendor");
  if (vendor == "AuthenticAMD") return CpuKind::Amd;
  if (vendor != "GenuineIntel") fail(cpu, "vendor '" + vendor + "' is not GenuineIntel or AuthenticAMD");
  return intel_cpu_kind(integer_attribute(cpu, "familyid", 0, 0xffff), integer_attribute(cpu, "modelid", 0, 0xffff));
}

enum class PciKind { Bridge, Gpu, Nic, NvSwitch, Unclassified };

// A pci without class (hint files: NCCL reads it from sysfs) is a bridge when it holds others,
// else a device of unknown class.
PciKind pci_kind(pugi::xml_node pci) {
  if (!pci.attribute("class")) return pci.child("pci") ? PciKind::Bridge : PciKind::Unclassified;
  const std::string pci_class = lower(pci.attribute("class").value());
  if (starts_with(pci_class, kClassPrefixGpu)) return PciKind::Gpu;
  if (starts_with(pci_class, kClassPrefixNic)) return PciKind::Nic;
  if (pci_class == kClassNvSwitch) return PciKind::NvSwitch;
  return PciKind::Bridge;
}

bool leads_to_device(pugi::xml_node pci) {
  const PciKind kind = pci_kind(pci);
  if (kind == PciKind::Gpu || kind == PciKind::Nic || kind == PciKind::Unclassified) return true;
  if (kind == PciKind::NvSwitch) return false;
  for (pugi::xml_node child : pci.children("pci"))
    if (leads_to_device(child)) return true;
  return false;
}

// The catalog model of an NVIDIA PCI device id ("0x20b0"); nullptr when absent or not in the table.
const GpuModel* device_model(std::string_view device) {
  const auto device_id = parse_integer(device);
  for (const GpuDeviceId& entry : kGpuDeviceIds)
    if (device_id && *device_id == entry.device_id) return find_gpu_model(entry.model);
  return nullptr;
}

bool has_nvlink(const NodeModel& model) {
  return !model.nvlinks.empty() ||
         std::any_of(model.gpus.begin(), model.gpus.end(), [](const Gpu& gpu) { return gpu.nvswitch_links > 0; });
}

// "NVSwitch, 12 links per GPU", "16 NVLink bonds" or "no NVLink".
std::string fabric_summary(const NodeModel& model) {
  if (!model.gpus.empty() && model.gpus.front().nvswitch_links > 0)
    return "NVSwitch, " + std::to_string(model.gpus.front().nvswitch_links) + " links per GPU";
  if (!model.nvlinks.empty()) return std::to_string(model.nvlinks.size()) + " NVLink bonds";
  return "no NVLink";
}

const char* const kFabricHint = "; give the GPU fabric with --fabric MODEL (`topsim topo models` lists them)";
const char* const kFabricOption = ": give the GPU fabric with --fabric MODEL (`topsim topo models` lists them)";

class NcclXmlImporter {
 public:
  explicit NcclXmlImporter(const NcclXmlImportOptions& options) : options_(options) {}

  NodeModel run(pugi::xml_node system) {
    check_system(system);
    for (pugi::xml_node cpu : system.children("cpu")) read_cpu(cpu);
    if (model_.numa_nodes.empty()) fail(system, "no <cpu> elements");
    number_unknown_numa_nodes();
    if (options_.cpu && !cpu_used_)
      fail(system, "--cpu applies only to <cpu> elements without arch, and every <cpu> here has one");
    if (found_gpus_.empty() || !hint_gpus_.empty()) {
      read_hint_gpus(system);
    } else {
      if (!options_.fabric.empty())
        fail(system, "--fabric applies only to hint files, and this file's GPUs carry <gpu sm=...> with their own NVLinks");
      if (!unclassified_.empty())
        fail(unclassified_.front().pci, "no class attribute: a device of unknown class cannot be placed beside described GPUs");
      const std::vector<int> order = gpu_order();
      for (int found : order) model_.gpus.push_back(found_gpus_[found].gpu);
      resolve_nvlinks(order);
    }
    add_nics(system);
    if (!lacking_.empty()) {
      std::string what;
      for (const auto& [node, piece] : lacking_) what += (what.empty() ? "" : "; ") + piece;
      fail(lacking_.front().first,
           "the hint file lacks " + (lacking_.size() > 1 ? std::to_string(lacking_.size()) + " pieces: " : std::string()) + what);
    }
    if (!options_.gpu_model.empty() && !gpu_model_used_)
      fail(system, "--gpu-model applies only to hint-file GPUs without a known PCI device id, and this file has none");
    return std::move(model_);
  }
  const std::set<std::string>& notes() const { return notes_; }
  // What a hint file lacked and where it came from, and quirks of the file skipped (an NVLink from
  // a GPU to itself), in the order found, each once: printed beside the import.
  const std::vector<std::string>& hint_notes() const { return hint_notes_; }
  const std::string& fabric() const { return fabric_name_; }
  bool fabric_inferred() const { return fabric_inferred_; }

 private:
  // A device of a hint file: a GPU without <gpu sm>, a NIC without <net>, or a pci without class.
  struct HintDevice {
    int bridge;
    PcieLink link;
    std::string bus_id;
    std::string device;  // lower-case PCI device id, "" when absent
    NicTransport transport;
    pugi::xml_node pci;
    bool transport_named = false;  // the file's class or vendor names the transport
  };
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

  // A piece a hint file lacks that an option gives ("the NIC speed: --nic-speed GBIT"): the import
  // goes on without it and fails at the end naming every such piece at once.
  void lack(pugi::xml_node node, const std::string& piece) {
    for (const auto& [where, what] : lacking_)
      if (what == piece) return;
    lacking_.emplace_back(node, piece);
  }

  void hint_note(const std::string& note) {
    if (std::find(hint_notes_.begin(), hint_notes_.end(), note) == hint_notes_.end()) hint_notes_.push_back(note);
  }

  CpuKind cpu_kind(pugi::xml_node cpu) {
    if (cpu.attribute("arch")) return read_cpu_kind(cpu);
    if (!options_.cpu) {
      lack(cpu, "the CPU kind (<cpu> without arch): give --cpu KIND (e.g. --cpu amd)");
      return CpuKind::IntelSkylake;  // a stand-in until the import fails for what is lacking
    }
    cpu_used_ = true;
    hint_note("no arch on <cpu>: CPU kind " + std::string(enum_name(*options_.cpu)) + " taken from --cpu");
    return *options_.cpu;
  }

  // NCCL writes numaid="-1" for a CPU whose NUMA node the kernel does not report (VMs, NUMA
  // off: NVIDIA/nccl src/graph/xml.cc copies sysfs numa_node, -1 there, and files devices it finds
  // no root complex for under a numaid="-1" CPU). Such
  // CPUs get the lowest ids the file leaves free, in file order (ids name the nodes; placement
  // refers to them by position).
  void number_unknown_numa_nodes() {
    for (NumaNode& node : model_.numa_nodes) {
      if (node.id >= 0) continue;
      int id = 0;
      while (std::any_of(model_.numa_nodes.begin(), model_.numa_nodes.end(), [&](const NumaNode& n) { return n.id == id; })) ++id;
      node.id = id;
    }
  }

  void read_cpu(pugi::xml_node cpu) {
    const int numaid = integer_attribute(cpu, "numaid", -1, kMaxDeviceIndex);
    for (const NumaNode& node : model_.numa_nodes)
      if (numaid >= 0 && node.id == numaid) fail(cpu, "numaid " + std::to_string(numaid) + " appears twice");
    NumaNode node{numaid, cpu_kind(cpu), ""};
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
    if (kind == PciKind::Unclassified)
      return unclassified_.push_back({parent, link, pci.attribute("busid").value(), "", NicTransport::Ethernet, pci});
    const int bridge = add_bridge(BridgeKind::Switch, numa, parent, link);
    for (pugi::xml_node child : pci.children("pci")) read_pci(child, numa, bridge);
  }

  void read_gpu(pugi::xml_node pci, int bridge, PcieLink link) {
    const pugi::xml_node element = pci.child("gpu");
    if (!element || !element.attribute("sm")) {
      hint_gpus_.push_back(
          {bridge, link, required_attribute(pci, "busid"), lower(pci.attribute("device").value()), NicTransport::Ethernet, pci});
      return;
    }
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
    const bool infiniband = starts_with(lower(pci.attribute("class").value()), kClassPrefixInfiniBand);
    if (!nic || !nic.child("net")) {
      // Amazon EFA (vendor 0x1d0f) is RDMA over Ethernet with GPUDirect RDMA on p4d/p5.
      const bool efa = lower(pci.attribute("vendor").value()) == "0x1d0f";
      const NicTransport transport = infiniband ? NicTransport::InfiniBand : efa ? NicTransport::RoCE : NicTransport::Ethernet;
      hint_nics_.push_back({bridge, link, pci.attribute("busid").value(), "", transport, pci, infiniband || efa});
      return;
    }
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
      if (target->second == from) {  // Azure's NC A100 v4 file lists one per GPU (Azure/azhpc-images topology/ncv4-topo.xml)
        hint_note("NVLinks from a GPU to itself (as Azure's NC A100 v4 topology file lists) are no links: skipped");
        continue;
      }
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

  // ---- hint files: the GPUs (and their fabric) and NICs the file leaves out or half-describes.

  void read_hint_gpus(pugi::xml_node system) {
    if (!found_gpus_.empty()) fail(hint_gpus_.front().pci, "GPU has no <gpu sm=...> child while other GPUs in the file have one");
    const std::optional<NodeModel> chosen = choose_fabric(system);
    if (!chosen) {  // lacking: named at the end, with what else lacks (a GPU-less file's leaves are its NICs)
      if (hint_gpus_.empty()) hint_nics_.insert(hint_nics_.end(), unclassified_.begin(), unclassified_.end());
      return;
    }
    const NodeModel& fabric = *chosen;
    const std::vector<HintDevice> gpus =
        hint_gpus_.empty() ? place_on_switches(system, fabric) : sorted_hint_gpus(system, fabric);
    for (size_t g = 0; g < gpus.size(); ++g) model_.gpus.push_back(hint_gpu(gpus[g], fabric.gpus[g]));
    model_.nvlinks = fabric.nvlinks;
    const std::string summary = fabric_name_ + " (" + fabric_summary(fabric) + ")";
    const std::string lack = "no <nvlink> elements (NCCL detects NVLink at run time): GPU fabric ";
    if (!fabric_inferred_) return hint_note(lack + "taken from --fabric " + summary);
    hint_note(lack + "inferred as " + summary + " from " + std::to_string(gpus.size()) + " GPUs of PCI device " +
              gpus.front().device + " (" + model_.gpus.front().model + "); give --fabric to choose another");
  }

  std::optional<NodeModel> choose_fabric(pugi::xml_node system) {
    if (options_.fabric.empty()) return infer_fabric(system);
    std::optional<NodeModel> fabric = builtin_model(options_.fabric);
    if (!fabric) {
      fail(system, "--fabric: unknown built-in model '" + options_.fabric +
                       "' (built-in models: " + join(builtin_model_names(), ", ") + ")");
    }
    fabric_name_ = options_.fabric;
    return std::move(*fabric);
  }

  // Inferred only from real evidence: every GPU has the same PCI device id, the table names its
  // model, and exactly one built-in model with NVLink has that many GPUs of that model; without
  // that evidence the fabric is lacking (nullopt).
  std::optional<NodeModel> infer_fabric(pugi::xml_node system) {
    if (hint_gpus_.empty())
      return lack(system, "the GPUs and their fabric (no GPUs listed: NCCL finds them at run time)" + std::string(kFabricOption)),
             std::nullopt;
    const std::string& device = hint_gpus_.front().device;
    for (const HintDevice& gpu : hint_gpus_)
      if (gpu.device != device)
        fail(gpu.pci,
             "device " + gpu.device + " differs from the first GPU's (" + device + "): no fabric to infer" + kFabricHint);
    const GpuModel* spec = device_model(device);
    if (!spec)
      return lack(hint_gpus_.front().pci, "the GPU model and its NVLink fabric (" +
                                              (device.empty() ? std::string("GPUs with neither <gpu sm=...> nor a device id")
                                                              : "device " + device + " is not in the GPU device table") +
                                              ")" + kFabricOption),
             std::nullopt;
    std::vector<std::string> matches;
    for (const BuiltinModelInfo& info : builtin_models()) {
      const NodeModel model = *builtin_model(info.name);
      const bool same =
          model.gpus.size() == hint_gpus_.size() &&
          std::all_of(model.gpus.begin(), model.gpus.end(), [&](const Gpu& gpu) { return gpu.model == spec->name; });
      if (same && has_nvlink(model)) matches.push_back(info.name);
    }
    if (matches.size() != 1)
      return lack(system, "the GPU fabric (" + std::to_string(hint_gpus_.size()) + " GPUs of device " + device + ", " +
                              spec->name + ", match " + std::to_string(matches.size()) + " built-in models with NVLink)" +
                              kFabricOption),
             std::nullopt;
    fabric_name_ = matches.front();
    fabric_inferred_ = true;
    return *builtin_model(fabric_name_);
  }

  // GPUs without <gpu dev> are numbered in bus id order, as CUDA_DEVICE_ORDER=PCI_BUS_ID does.
  std::vector<HintDevice> sorted_hint_gpus(pugi::xml_node system, const NodeModel& fabric) {
    if (!unclassified_.empty())
      fail(unclassified_.front().pci, "no class attribute: a device of unknown class cannot be placed beside listed GPUs");
    if (hint_gpus_.size() != fabric.gpus.size())
      fail(system, "the file lists " + std::to_string(hint_gpus_.size()) + " GPUs but the " + fabric_name_ + " fabric has " +
                       std::to_string(fabric.gpus.size()));
    std::vector<HintDevice> gpus = hint_gpus_;
    std::stable_sort(gpus.begin(), gpus.end(),
                     [](const HintDevice& a, const HintDevice& b) { return lower(a.bus_id) < lower(b.bus_id); });
    for (size_t g = 1; g < gpus.size(); ++g)
      if (lower(gpus[g].bus_id) == lower(gpus[g - 1].bus_id)) fail(gpus[g].pci, "busid is used by two GPUs");
    for (size_t g = 0; g < gpus.size(); ++g)
      if (gpus[g].pci != hint_gpus_[g].pci) hint_note("GPUs have no <gpu dev=...>: numbered in bus id order, not file order");
    return gpus;
  }

  // A file with no GPU at all (AWS p5): the fabric's GPUs go one per PCIe switch holding devices,
  // in file order, when there are as many such switches as GPUs; its class-less leaves are NICs.
  std::vector<HintDevice> place_on_switches(pugi::xml_node system, const NodeModel& fabric) {
    std::set<int> holders;
    for (const FoundNic& nic : found_nics_) holders.insert(nic.nic.bridge);
    for (const HintDevice& device : hint_nics_) holders.insert(device.bridge);
    for (const HintDevice& device : unclassified_) holders.insert(device.bridge);
    std::vector<int> switches;
    for (int bridge : holders)
      if (model_.bridges[static_cast<size_t>(bridge)].kind == BridgeKind::Switch) switches.push_back(bridge);
    if (switches.size() != fabric.gpus.size())
      fail(system, "no GPUs listed, and the file's " + std::to_string(switches.size()) +
                       " PCIe switches holding devices do not pair one to one with the " + std::to_string(fabric.gpus.size()) +
                       " GPUs of " + fabric_name_);
    std::vector<HintDevice> gpus;
    for (size_t g = 0; g < switches.size(); ++g)
      gpus.push_back(
          {switches[g], PcieLink{fabric.gpus[g].pcie_gen, fabric.gpus[g].pcie_width}, "", "", NicTransport::Ethernet, system});
    hint_note("no GPUs listed: the " + std::to_string(gpus.size()) + " " + fabric.gpus.front().model + " GPUs of " +
              fabric_name_ + " placed one per PCIe switch holding devices, in file order");
    if (!unclassified_.empty())
      hint_note(std::to_string(unclassified_.size()) + " <pci> leaves have no class and the file lists no GPUs: read as NICs");
    hint_nics_.insert(hint_nics_.end(), unclassified_.begin(), unclassified_.end());
    unclassified_.clear();
    return gpus;
  }

  // The model comes from the PCI device id when the table knows it (its sm must be the fabric
  // GPU's), else from the fabric; the NVSwitch links from the fabric.
  Gpu hint_gpu(const HintDevice& hint, const Gpu& fabric_gpu) {
    const GpuModel* spec = device_model(hint.device);
    if (spec && spec->sm != fabric_gpu.sm)
      fail(hint.pci, "device " + hint.device + " (" + spec->name + ", sm " + std::to_string(spec->sm) + ") does not match the " +
                         fabric_name_ + " fabric's " + fabric_gpu.model + " GPUs (sm " + std::to_string(fabric_gpu.sm) + ")");
    if (!spec && !options_.gpu_model.empty()) {
      spec = find_gpu_model(options_.gpu_model);
      if (!spec || spec->sm != fabric_gpu.sm)
        fail(hint.pci, "--gpu-model " + options_.gpu_model + (spec ? " (sm " + std::to_string(spec->sm) + ")" : "") +
                           " does not match the " + fabric_name_ + " fabric's " + fabric_gpu.model + " GPUs (sm " +
                           std::to_string(fabric_gpu.sm) + ")");
      gpu_model_used_ = true;
      hint_note("GPUs have no <gpu sm=...> and no known device id: model " + spec->name + " from --gpu-model");
    } else if (hint.bus_id.empty()) {  // placed by place_on_switches: its note names the model
      spec = find_gpu_model(fabric_gpu.model);
    } else if (spec) {
      hint_note("GPUs have no <gpu sm=...>: model " + spec->name + " from PCI device " + hint.device);
    } else {
      spec = find_gpu_model(fabric_gpu.model);
      hint_note("GPUs have no <gpu sm=...>" +
                std::string(hint.device.empty() ? " and no device id" : " and an unknown device id") + ": model " + spec->name +
                " taken from " + fabric_name_);
    }
    return Gpu{spec->name,    spec->sm,        spec->memory_gib,          hint.bridge,
               hint.link.gen, hint.link.width, fabric_gpu.nvswitch_links, hint.bus_id};
  }

  // NICs without <net> get names nic0.. (file order) and the --nic-speed port speed.
  void add_nics(pugi::xml_node system) {
    if (!hint_nics_.empty() && !options_.nic_speed_gbit)
      return lack(hint_nics_.front().pci,
                  "the NIC port speed (<pci> NICs without <nic><net speed=...>): give it with --nic-speed GBIT");
    if (hint_nics_.empty() && options_.nic_speed_gbit && lacking_.empty())  // lacking a fabric, its leaves are unread
      fail(system, "--nic-speed applies only to NICs without <nic><net>, and this file has none");
    apply_nic_transport(system);
    for (size_t n = 0; n < hint_nics_.size(); ++n) {
      const HintDevice& hint = hint_nics_[n];
      found_nics_.push_back({Nic{"nic" + std::to_string(n), *options_.nic_speed_gbit, hint.transport, hint.bridge, hint.link.gen,
                                 hint.link.width, hint.bus_id},
                             std::numeric_limits<long long>::max()});
    }
    if (!hint_nics_.empty()) hint_nics_note();
    std::stable_sort(found_nics_.begin(), found_nics_.end(), [](const FoundNic& a, const FoundNic& b) { return a.dev < b.dev; });
    for (const FoundNic& found : found_nics_) model_.nics.push_back(found.nic);
  }

  // --nic-transport for the NICs whose transport the file does not name.
  void apply_nic_transport(pugi::xml_node system) {
    if (!options_.nic_transport) return;
    bool applied = false;
    for (HintDevice& nic : hint_nics_)
      if (!nic.transport_named) {
        nic.transport = *options_.nic_transport;
        applied = true;
      }
    if (!applied)
      fail(system,
           "--nic-transport applies only to NICs without <nic><net> whose class or vendor names no transport, and this "
           "file has none");
  }

  // "4 NICs have no <nic><net>: named nic0..nic3 in file order, 100 Gb/s from --nic-speed, 4 roce
  // (Amazon EFA, vendor 0x1d0f)".
  void hint_nics_note() {
    std::map<std::pair<bool, NicTransport>, int> by_source;  // (named by the file, transport)
    for (const HintDevice& nic : hint_nics_) ++by_source[{nic.transport_named, nic.transport}];
    std::string transports;
    for (const auto& [key, count] : by_source) {
      const auto [named, transport] = key;
      transports += ", " + std::to_string(count) + " " + std::string(enum_name(transport)) +
                    (named && transport == NicTransport::InfiniBand ? " (class 0x0207)"
                     : named                                        ? " (Amazon EFA, vendor 0x1d0f)"
                     : options_.nic_transport                       ? " (from --nic-transport)"
                                              : " (no class or vendor naming RDMA; --nic-transport sets it)");
    }
    const size_t n = hint_nics_.size();
    char speed[32];
    std::snprintf(speed, sizeof speed, "%g", *options_.nic_speed_gbit);
    hint_note(std::to_string(n) + (n == 1 ? " NIC has" : " NICs have") + " no <nic><net>: named nic0" +
              (n == 1 ? "" : "..nic" + std::to_string(n - 1)) + " in file order, " + speed + " Gb/s from --nic-speed" +
              transports);
  }

  const NcclXmlImportOptions& options_;
  NodeModel model_;
  std::vector<FoundGpu> found_gpus_;
  std::vector<FoundNic> found_nics_;
  std::vector<FoundNvLink> found_nvlinks_;
  std::set<std::string> notes_;
  std::vector<HintDevice> hint_gpus_, hint_nics_, unclassified_;
  std::vector<std::string> hint_notes_;
  std::vector<std::pair<pugi::xml_node, std::string>> lacking_;  // (where, "what: --option") in the order found
  bool cpu_used_ = false, gpu_model_used_ = false;
  std::string fabric_name_;
  bool fabric_inferred_ = false;
};

// "dir/ibm-hgx-h100.xml" -> "ibm-hgx-h100".
// Real NCCL topology files nest 6-8 deep; the importer walks the tree recursively, so a deeper
// file is refused first (its walk could exhaust the stack).
constexpr int kMaxXmlDepth = static_cast<int>(kMaxNestingDepth);

// The first element deeper than kMaxXmlDepth (pugixml's traversal is not recursive), or holding
// an attribute twice (pugixml keeps both; XML 1.0 section 3.1 forbids it).
struct ShapeCheck final : pugi::xml_tree_walker {
  pugi::xml_node too_deep, repeated;
  std::string attribute;
  bool for_each(pugi::xml_node& node) override {
    if (depth() > kMaxXmlDepth) {
      too_deep = node;
      return false;
    }
    std::set<std::string_view> names;
    for (pugi::xml_attribute a = node.first_attribute(); a; a = a.next_attribute())
      if (!names.insert(a.name()).second) {
        repeated = node, attribute = a.name();
        return false;
      }
    return true;
  }
};

std::string model_name_from_source(std::string_view source) {
  source = source.substr(source.rfind('/') == std::string_view::npos ? 0 : source.rfind('/') + 1);
  source = source.substr(0, source.rfind('.'));
  return source.empty() ? "nccl-topo" : std::string(source);
}

}  // namespace

Expected<NcclXmlImportResult> parse_nccl_xml(std::string_view text, std::string_view source_name,
                                             const NcclXmlImportOptions& options) {
  const std::string source(source_name);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    const auto [line, column] = line_and_column(text, parsed.offset);
    return Error{source + ":" + std::to_string(line) + ":" + std::to_string(column) +
                 ": XML parse error: " + parsed.description() + " (byte offset " + std::to_string(parsed.offset) + ")"};
  }
  if (ShapeCheck shape; !doc.traverse(shape)) {
    const pugi::xml_node at = shape.too_deep ? shape.too_deep : shape.repeated;
    const long line = line_and_column(text, at.offset_debug()).first;
    if (shape.too_deep)
      return Error{source + ":" + std::to_string(line) + ": elements nested more than " + std::to_string(kMaxXmlDepth) +
                   " deep (an NCCL topology file nests fewer than 10)"};
    return Error{source + ":" + std::to_string(line) + ": <" + at.name() + ">: attribute '" + shape.attribute + "' given twice"};
  }
  int roots = 0;
  for (pugi::xml_node child = doc.first_child(); child; child = child.next_sibling())
    if (child.type() == pugi::node_element && ++roots == 2)
      return Error{source + ":" + std::to_string(line_and_column(text, child.offset_debug()).first) +
                   ": a second root element <" + child.name() + "> (an XML document has one)"};
  const pugi::xml_node system = doc.child("system");
  if (!system) return Error{source + ": no <system> element: not an NCCL topology file"};
  NcclXmlImporter importer(options);
  NcclXmlImportResult result;
  try {
    result.model = importer.run(system);
  } catch (const XmlFault& fault) {
    const long line = line_and_column(text, fault.node.offset_debug()).first;
    return Error{source + ":" + std::to_string(line) + ": " + describe(fault.node) + ": " + fault.what};
  }
  NodeModel& model = result.model;
  model.name = model_name_from_source(source);
  model.description = "imported from NCCL topology XML " + source;
  for (const std::string& note : importer.notes()) model.description += "; " + note;
  for (const std::string& note : importer.hint_notes()) {
    model.description += "; " + note;
    result.notes.push_back(source + ": " + note);
  }
  if (Status status = validate(model); !status)
    return Error{source + ": the imported node is not valid: " + status.error().message};
  result.fabric = importer.fabric();
  result.fabric_inferred = importer.fabric_inferred();
  return result;
}

Expected<NodeModel> parse_nccl_xml(std::string_view text, std::string_view source_name) {
  Expected<NcclXmlImportResult> result = parse_nccl_xml(text, source_name, NcclXmlImportOptions{});
  if (!result) return result.error();
  return std::move(result->model);
}

}  // namespace topsim
