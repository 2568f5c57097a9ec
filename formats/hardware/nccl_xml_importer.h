// Internal to formats: the NCCL topology XML importer's parts, shared by nccl_xml_import.cpp (the
// entry points: parse, shape checks, errors with line numbers), nccl_xml_elements.cpp (reading
// one element), nccl_xml_importer.cpp (CPUs, PCI trees, described GPUs, NICs and NVLinks) and
// nccl_xml_hints.cpp (what hint files leave out). It exposes pugixml's types, so it is one of the
// internal headers the layering check names (ci/check_layers.sh); the public API is nccl_xml.h.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pugixml.hpp>

#include "core/hardware.h"
#include "formats/hardware/nccl_xml.h"
#include "formats/hardware/nccl_xml_common.h"

namespace topsim::nccl_xml_detail {

inline constexpr int kMaxDeviceIndex = 1 << 16;  // bounds `dev` / `numaid` numbers read from a file

// Raised inside the importer only; parse_nccl_xml turns it into an Error with the line number.
struct XmlFault {
  pugi::xml_node node;
  std::string what;
};

[[noreturn]] void fail(pugi::xml_node node, std::string what);

// "<pci busid=0000:a4:00.0>"; an element inside a device is prefixed with its ancestors up to
// the pci or cpu: "<pci busid=0000:a4:00.0> <gpu dev=0> <nvlink target=0000:f5:00.0>".
std::string describe(pugi::xml_node node);

// A required attribute's text; an integer attribute within [min, max].
std::string required_attribute(pugi::xml_node node, const char* name);
int integer_attribute(pugi::xml_node node, const char* name, long long min, long long max);

// link_speed as NCCL writes it ("16.0 GT/s PCIe", older kernels "16 GT/s"); empty or "Unknown"
// means NCCL's fallback, Gen3. Anything else that is not a PCIe rate is an error.
int pcie_gen_from_speed(pugi::xml_node pci, std::string_view speed);
PcieLink read_link(pugi::xml_node pci);
CpuKind read_cpu_kind(pugi::xml_node cpu);

enum class PciKind { Bridge, Gpu, Nic, NvSwitch, Unclassified };

// A pci without class (hint files: NCCL reads it from sysfs) is a bridge when it holds others,
// else a device of unknown class.
PciKind pci_kind(pugi::xml_node pci);
bool leads_to_device(pugi::xml_node pci);

// The catalog model of an NVIDIA PCI device id ("0x20b0"); nullptr when absent or not in the table.
const GpuModel* device_model(std::string_view device);
bool has_nvlink(const NodeModel& model);
// "NVSwitch, 12 links per GPU", "16 NVLink bonds" or "no NVLink".
std::string fabric_summary(const NodeModel& model);

inline constexpr const char* kFabricHint = "; give the GPU fabric with --fabric MODEL (`topsim topo models` lists them)";
inline constexpr const char* kFabricOption = ": give the GPU fabric with --fabric MODEL (`topsim topo models` lists them)";

class NcclXmlImporter {
 public:
  explicit NcclXmlImporter(const NcclXmlImportOptions& options) : options_(options) {}

  NodeModel run(pugi::xml_node system);
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

  static void check_system(pugi::xml_node system);
  int add_bridge(BridgeKind kind, int numa, int parent, PcieLink link);

  // A piece a hint file lacks that an option gives ("the NIC speed: --nic-speed GBIT"): the import
  // goes on without it and fails at the end naming every such piece at once.
  void lack(pugi::xml_node node, const std::string& piece);
  void hint_note(const std::string& note);
  CpuKind cpu_kind(pugi::xml_node cpu);

  // NCCL writes numaid="-1" for a CPU whose NUMA node the kernel does not report (VMs, NUMA
  // off: NVIDIA/nccl src/graph/xml.cc copies sysfs numa_node, -1 there, and files devices it finds
  // no root complex for under a numaid="-1" CPU). Such
  // CPUs get the lowest ids the file leaves free, in file order (ids name the nodes; placement
  // refers to them by position).
  void number_unknown_numa_nodes();
  void read_cpu(pugi::xml_node cpu);

  // A pci directly under a cpu (`parent` -1) gets a host bridge of its own; a bridge becomes a
  // switch holding its children. PCI subtrees without GPUs or NICs and NVSwitches are skipped.
  void read_pci(pugi::xml_node pci, int numa, int parent);
  void read_gpu(pugi::xml_node pci, int bridge, PcieLink link);

  // The catalog model of a GPU: by PCI device id when the table knows it (its sm must agree),
  // else the first catalog model with this sm (recorded in the notes).
  const GpuModel& gpu_model_for(pugi::xml_node pci, int sm);
  void read_nvlink(pugi::xml_node nvlink, int found_gpu, Gpu& gpu);
  void read_nic(pugi::xml_node pci, int bridge, PcieLink link);

  // Transport: class 0x0207 is InfiniBand; otherwise a net with GPUDirect RDMA (gdr="1") is
  // RDMA over Ethernet (RoCE; AWS EFA reads as RoCE too), one without is plain Ethernet.
  void read_nets(pugi::xml_node nic, int bridge, PcieLink link, bool infiniband, const std::string& bus_id);

  // Found GPU indices ordered by dev: model GPU i is the GPU with the i-th smallest dev.
  std::vector<int> gpu_order();

  // Bonds appear at both ends: one bond per pair, whose two ends must agree on the count.
  void resolve_nvlinks(const std::vector<int>& order);

  // ---- hint files: the GPUs (and their fabric) and NICs the file leaves out or half-describes.

  void read_hint_gpus(pugi::xml_node system);
  std::optional<NodeModel> choose_fabric(pugi::xml_node system);

  // Inferred only from real evidence: every GPU has the same PCI device id, the table names its
  // model, and exactly one built-in model with NVLink has that many GPUs of that model; without
  // that evidence the fabric is lacking (nullopt).
  std::optional<NodeModel> infer_fabric(pugi::xml_node system);

  // GPUs without <gpu dev> are numbered in bus id order, as CUDA_DEVICE_ORDER=PCI_BUS_ID does.
  std::vector<HintDevice> sorted_hint_gpus(pugi::xml_node system, const NodeModel& fabric);

  // A file with no GPU at all (AWS p5): the fabric's GPUs go one per PCIe switch holding devices,
  // in file order, when there are as many such switches as GPUs; its class-less leaves are NICs.
  std::vector<HintDevice> place_on_switches(pugi::xml_node system, const NodeModel& fabric);

  // The model comes from the PCI device id when the table knows it (its sm must be the fabric
  // GPU's), else from the fabric; the NVSwitch links from the fabric.
  Gpu hint_gpu(const HintDevice& hint, const Gpu& fabric_gpu);

  // NICs without <net> get names nic0.. (file order) and the --nic-speed port speed.
  void add_nics(pugi::xml_node system);

  // --nic-transport for the NICs whose transport the file does not name.
  void apply_nic_transport(pugi::xml_node system);

  // "4 NICs have no <nic><net>: named nic0..nic3 in file order, 100 Gb/s from --nic-speed, 4 roce
  // (Amazon EFA, vendor 0x1d0f)".
  void hint_nics_note();
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

}  // namespace topsim::nccl_xml_detail
