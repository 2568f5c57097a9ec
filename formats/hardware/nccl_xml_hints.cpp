// What an NCCL topology hint file leaves out (formats/hardware/nccl_xml_importer.h): its GPUs
// without <gpu sm> and their NVLink fabric, its NICs without <net>.
#include <algorithm>
#include <cstdio>
#include <map>

#include "core/builtin_models.h"
#include "formats/hardware/nccl_xml_common.h"
#include "formats/hardware/nccl_xml_importer.h"
#include "util/text.h"

namespace topsim::nccl_xml_detail {

void NcclXmlImporter::read_hint_gpus(pugi::xml_node system) {
  if (!found_gpus_.empty()) fail(hint_gpus_.front().pci, "GPU has no <gpu sm=...> child while other GPUs in the file have one");
  const std::optional<NodeModel> chosen = choose_fabric(system);
  if (!chosen) {  // lacking: named at the end, with what else lacks (a GPU-less file's leaves are its NICs)
    if (hint_gpus_.empty()) hint_nics_.insert(hint_nics_.end(), unclassified_.begin(), unclassified_.end());
    return;
  }
  const NodeModel& fabric = *chosen;
  const std::vector<HintDevice> gpus = hint_gpus_.empty() ? place_on_switches(system, fabric) : sorted_hint_gpus(system, fabric);
  for (size_t g = 0; g < gpus.size(); ++g) model_.gpus.push_back(hint_gpu(gpus[g], fabric.gpus[g]));
  model_.nvlinks = fabric.nvlinks;
  const std::string summary = fabric_name_ + " (" + fabric_summary(fabric) + ")";
  const std::string lack = "no <nvlink> elements (NCCL detects NVLink at run time): GPU fabric ";
  if (!fabric_inferred_) return hint_note(lack + "taken from --fabric " + summary);
  hint_note(lack + "inferred as " + summary + " from " + std::to_string(gpus.size()) + " GPUs of PCI device " +
            gpus.front().device + " (" + model_.gpus.front().model + "); give --fabric to choose another");
}

std::optional<NodeModel> NcclXmlImporter::choose_fabric(pugi::xml_node system) {
  if (options_.fabric.empty()) return infer_fabric(system);
  std::optional<NodeModel> fabric = builtin_model(options_.fabric);
  if (!fabric) {
    fail(system, "--fabric: unknown built-in model '" + options_.fabric +
                     "' (built-in models: " + join(builtin_model_names(), ", ") + ")");
  }
  fabric_name_ = options_.fabric;
  return std::move(*fabric);
}

std::optional<NodeModel> NcclXmlImporter::infer_fabric(pugi::xml_node system) {
  if (hint_gpus_.empty())
    return lack(system, "the GPUs and their fabric (no GPUs listed: NCCL finds them at run time)" + std::string(kFabricOption)),
           std::nullopt;
  const std::string& device = hint_gpus_.front().device;
  for (const HintDevice& gpu : hint_gpus_)
    if (gpu.device != device)
      fail(gpu.pci, "device " + gpu.device + " differs from the first GPU's (" + device + "): no fabric to infer" + kFabricHint);
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
    const bool same = model.gpus.size() == hint_gpus_.size() &&
                      std::all_of(model.gpus.begin(), model.gpus.end(), [&](const Gpu& gpu) { return gpu.model == spec->name; });
    if (same && has_nvlink(model)) matches.push_back(info.name);
  }
  if (matches.size() != 1)
    return lack(system, "the GPU fabric (" + std::to_string(hint_gpus_.size()) + " GPUs of device " + device + ", " + spec->name +
                            ", match " + std::to_string(matches.size()) + " built-in models with NVLink)" + kFabricOption),
           std::nullopt;
  fabric_name_ = matches.front();
  fabric_inferred_ = true;
  return *builtin_model(fabric_name_);
}

std::vector<NcclXmlImporter::HintDevice> NcclXmlImporter::sorted_hint_gpus(pugi::xml_node system, const NodeModel& fabric) {
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

std::vector<NcclXmlImporter::HintDevice> NcclXmlImporter::place_on_switches(pugi::xml_node system, const NodeModel& fabric) {
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
  hint_note("no GPUs listed: the " + std::to_string(gpus.size()) + " " + fabric.gpus.front().model + " GPUs of " + fabric_name_ +
            " placed one per PCIe switch holding devices, in file order");
  if (!unclassified_.empty())
    hint_note(std::to_string(unclassified_.size()) + " <pci> leaves have no class and the file lists no GPUs: read as NICs");
  hint_nics_.insert(hint_nics_.end(), unclassified_.begin(), unclassified_.end());
  unclassified_.clear();
  return gpus;
}

Gpu NcclXmlImporter::hint_gpu(const HintDevice& hint, const Gpu& fabric_gpu) {
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
    hint_note("GPUs have no <gpu sm=...>" + std::string(hint.device.empty() ? " and no device id" : " and an unknown device id") +
              ": model " + spec->name + " taken from " + fabric_name_);
  }
  return Gpu{spec->name,    spec->sm,        spec->memory_gib,          hint.bridge,
             hint.link.gen, hint.link.width, fabric_gpu.nvswitch_links, hint.bus_id};
}

void NcclXmlImporter::add_nics(pugi::xml_node system) {
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

void NcclXmlImporter::apply_nic_transport(pugi::xml_node system) {
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

void NcclXmlImporter::hint_nics_note() {
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
            (n == 1 ? "" : "..nic" + std::to_string(n - 1)) + " in file order, " + speed + " Gb/s from --nic-speed" + transports);
}
}  // namespace topsim::nccl_xml_detail
