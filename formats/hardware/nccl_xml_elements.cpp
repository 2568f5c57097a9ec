// Reading one element of an NCCL topology XML file (formats/hardware/nccl_xml_importer.h).
#include <algorithm>
#include <charconv>
#include <map>

#include "formats/hardware/nccl_xml_common.h"
#include "formats/hardware/nccl_xml_importer.h"
#include "util/text.h"

namespace topsim::nccl_xml_detail {

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
}  // namespace topsim::nccl_xml_detail
