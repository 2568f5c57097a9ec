// The NCCL topology XML importer: CPUs, PCI trees, described GPUs, NICs and NVLinks
// (formats/hardware/nccl_xml_importer.h); hint files' gaps are in nccl_xml_hints.cpp.
#include <algorithm>
#include <map>

#include "core/builtin_models.h"
#include "formats/hardware/nccl_xml_common.h"
#include "formats/hardware/nccl_xml_importer.h"
#include "util/text.h"

namespace topsim::nccl_xml_detail {

NodeModel NcclXmlImporter::run(pugi::xml_node system) {
  check_system(system);
  for (pugi::xml_node cpu : system.children("cpu")) read_cpu(cpu);
  if (model_.numa_nodes.empty()) fail(system, "no <cpu> elements");
  number_unknown_numa_nodes();
  if (options_.cpu && !cpu_used_) fail(system, "--cpu applies only to <cpu> elements without arch, and every <cpu> here has one");
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

void NcclXmlImporter::check_system(pugi::xml_node system) {
  if (system.attribute("version") && std::string_view(system.attribute("version").value()) != "1")
    fail(system, std::string("version ") + system.attribute("version").value() + " is not supported (expected 1)");
  std::set<std::string> hosts;
  for (pugi::xml_node cpu : system.children("cpu"))
    if (cpu.attribute("host_hash")) hosts.insert(cpu.attribute("host_hash").value());
  if (hosts.size() > 1)
    fail(system, "the file describes " + std::to_string(hosts.size()) + " hosts (host_hash); import one node at a time");
}

int NcclXmlImporter::add_bridge(BridgeKind kind, int numa, int parent, PcieLink link) {
  model_.bridges.push_back({kind, numa, parent, link.gen, link.width});
  return static_cast<int>(model_.bridges.size()) - 1;
}

void NcclXmlImporter::lack(pugi::xml_node node, const std::string& piece) {
  for (const auto& [where, what] : lacking_)
    if (what == piece) return;
  lacking_.emplace_back(node, piece);
}

void NcclXmlImporter::hint_note(const std::string& note) {
  if (std::find(hint_notes_.begin(), hint_notes_.end(), note) == hint_notes_.end()) hint_notes_.push_back(note);
}

CpuKind NcclXmlImporter::cpu_kind(pugi::xml_node cpu) {
  if (cpu.attribute("arch")) return read_cpu_kind(cpu);
  if (!options_.cpu) {
    lack(cpu, "the CPU kind (<cpu> without arch): give --cpu KIND (e.g. --cpu amd)");
    return CpuKind::IntelSkylake;  // a stand-in until the import fails for what is lacking
  }
  cpu_used_ = true;
  hint_note("no arch on <cpu>: CPU kind " + std::string(enum_name(*options_.cpu)) + " taken from --cpu");
  return *options_.cpu;
}

void NcclXmlImporter::number_unknown_numa_nodes() {
  for (NumaNode& node : model_.numa_nodes) {
    if (node.id >= 0) continue;
    int id = 0;
    while (std::any_of(model_.numa_nodes.begin(), model_.numa_nodes.end(), [&](const NumaNode& n) { return n.id == id; })) ++id;
    node.id = id;
  }
}

void NcclXmlImporter::read_cpu(pugi::xml_node cpu) {
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

void NcclXmlImporter::read_pci(pugi::xml_node pci, int numa, int parent) {
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

void NcclXmlImporter::read_gpu(pugi::xml_node pci, int bridge, PcieLink link) {
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

const GpuModel& NcclXmlImporter::gpu_model_for(pugi::xml_node pci, int sm) {
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

void NcclXmlImporter::read_nvlink(pugi::xml_node nvlink, int found_gpu, Gpu& gpu) {
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

void NcclXmlImporter::read_nic(pugi::xml_node pci, int bridge, PcieLink link) {
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

void NcclXmlImporter::read_nets(pugi::xml_node nic, int bridge, PcieLink link, bool infiniband, const std::string& bus_id) {
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

std::vector<int> NcclXmlImporter::gpu_order() {
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

void NcclXmlImporter::resolve_nvlinks(const std::vector<int>& order) {
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
}  // namespace topsim::nccl_xml_detail
