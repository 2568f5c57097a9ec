// NCCL topology XML (the format of `NCCL_TOPO_FILE` / `NCCL_TOPO_DUMP_FILE`): export of a node,
// or of a subset of its GPUs, and import of a full dump into a NodeModel.
//
// Format (NCCL src/graph/xml.cc, topo.cc; REFERENCE.md): `<system version="1">` holding
// `<cpu numaid affinity arch vendor familyid modelid>` elements, under which `<pci busid class
// link_speed link_width>` elements nest (bridges class 0x060400, GPUs 0x030200, NICs 0x020000
// or 0x020700); a GPU's pci holds `<gpu dev sm rank gdr>` with `<nvlink target count tclass>`
// children (tclass 0x030200 for a peer GPU, 0x068000 for an NVSwitch); a NIC's pci holds
// `<nic>` with `<net name dev speed port latency guid maxconn gdr>` (speed in Mb/s).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hardware.h"
#include "core/node_model.h"
#include "util/expected.h"

namespace topsim {

// Writes the node as NCCL topology XML, deterministically, indented by two spaces.
// - `gpus` selects GPUs by node index (empty = all), numbered 0.. in that order as `dev`/`rank`;
//   NVLinks to GPUs left out are dropped, NVSwitch links kept (one `<nvlink>` per GPU to a
//   synthetic NVSwitch bus id, tclass 0x068000, count = nvswitch_links). All NICs are kept.
// - One `<cpu>` per NUMA node holding included devices; the CPU kind is written as arch, vendor,
//   familyid and modelid (x86 only) that NCCL maps back to the same inter-socket bandwidth; the
//   affinity list becomes NCCL's hex cpumask, and is left out when empty or not a CPU list.
// - Host bridges have no XML element: their children sit under `<cpu>`, and each such child's
//   link carries the narrower of its own and its host bridge's link (NCCL sees one link from it
//   to the CPU). Only bridges leading to included devices are written.
// - Bus ids missing from the model are synthesized deterministically ("0000:01:00.0", ...).
// - InfiniBand NICs are class 0x020700, others 0x020000; Ethernet NICs have gdr="0".
// REQUIRES: validate(model).ok(); every index in `gpus` is a valid, distinct GPU index.
std::string export_nccl_xml(const NodeModel& model, const std::vector<int>& gpus = {});

// Reads NCCL topology XML (a full dump) into a node model named after the source's file stem.
// - `<cpu>` -> NumaNode (id = numaid); the CPU kind follows NCCL topo.cc: AMD -> amd, arm64 ->
//   arm, ppc64 -> power9, Intel family 6 by modelid (>= 207 emerald-rapids, >= 143
//   sapphire-rapids, >= 85 skylake, else broadwell, as NCCL treats every older Intel as QPI).
// - A `<pci>` directly under `<cpu>` gets a host bridge of its own (so devices under different
//   such elements are NODE apart); a bridge element becomes a switch. Subtrees without GPUs or
//   NICs, and NVSwitch pci elements, are skipped. link_width 0 or missing means x16 and a missing
//   or "Unknown" link_speed Gen3 (NCCL topo.cc).
// - GPUs are ordered by `dev`. The model comes from the PCI device id (table in nccl_xml_common.h,
//   sm must agree), else the first catalog model with that `sm`; memory from the catalog.
// - NVLinks to GPUs (tclass 0x03...) become bonds (both ends must agree on the count); links to
//   NVSwitches (0x068000) are summed into nvswitch_links (NCCL merges NVSwitches the same way);
//   links to the CPU (0x068001) are not modelled and are left out.
// - Each `<net>` is a NIC (speed Mb/s -> Gb/s), ordered by its `dev`. Transport: class 0x0207..
//   -> InfiniBand; else gdr="1" -> RoCE (RDMA over Ethernet), else Ethernet.
// Anything inferred (unknown device id, renumbered devs, dropped CPU NVLinks) is appended to the
// model's description. Errors read "<source>:<line>: <pci busid=...> <gpu dev=...>: <what>".
// Hint files (below) are read with no options: they import only when the fabric can be inferred.
Expected<NodeModel> parse_nccl_xml(std::string_view text, std::string_view source_name);

// Hint files (NCCL_TOPO_FILE as AWS and Azure ship them) give the PCI tree, NUMA nodes and device
// classes but leave out what NCCL detects at run time: `<gpu sm>` and `<nvlink>`, `<nic><net>`,
// sometimes the CPU arch, device classes or the GPUs themselves. What the file lacks comes from
// these options, each named in a note; an option the file does not need is an error.
struct NcclXmlImportOptions {
  // A built-in node model (builtin_models()) whose GPU fabric -- GPU model, NVLink bonds or
  // NVSwitch links, by GPU index -- is grafted onto the file's GPUs. Empty: inferred when the
  // GPUs' PCI device id names a catalog GPU and exactly one built-in model with NVLink has that
  // many of it (e.g. 8 x 0x20b0 -> dgx-a100); otherwise the import fails naming --fabric.
  std::string fabric;
  std::string gpu_model;                 // for GPUs without a known device id (the fabric's sm), e.g. v100-32g
  std::optional<CpuKind> cpu;            // for <cpu> elements without arch
  std::optional<double> nic_speed_gbit;  // for NICs without <nic><net speed=...>
  // For NICs without <net> whose class or vendor names no transport (e.g. AWS p5's EFA ports,
  // listed without class); default: Ethernet, said in a note. Refused when no NIC needs it.
  std::optional<NicTransport> nic_transport;
};

struct NcclXmlImportResult {
  NodeModel model;
  std::vector<std::string> notes;  // "<source>: <what the file lacks and where it came from>"
  std::string fabric;              // the built-in model grafted ("" for a full dump)
  bool fabric_inferred = false;
};

// As above, with the hint-file rules:
// - GPUs are `<pci class="0x03...">` elements; without `<gpu sm=...>` (all of them, or none)
//   they are ordered by bus id (CUDA_DEVICE_ORDER=PCI_BUS_ID) and their count must equal the
//   fabric's; the model comes from the device id (its sm must equal the fabric GPU's), else
//   from `gpu_model` (same rule), else from the fabric. A file with no GPU at all (AWS p5)
//   gets the fabric's GPUs one per PCIe switch holding devices, in file order, when the
//   counts are equal.
// - A leaf `<pci>` without class, in a file listing no GPUs, is a NIC; a `<pci>` without class
//   holding others is a bridge.
// - NICs without `<net>` are named nic0.. in file order at `nic_speed_gbit`: class 0x0207 ->
//   InfiniBand, Amazon EFA (vendor 0x1d0f) -> RoCE, else Ethernet.
// - `fabric` on a file whose GPUs carry `<gpu sm=...>` is an error (it has its own fabric).
Expected<NcclXmlImportResult> parse_nccl_xml(std::string_view text, std::string_view source_name,
                                             const NcclXmlImportOptions& options);

}  // namespace topsim
