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

#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/node_model.h"

namespace topsim {

class Topology;

// Writes the node as NCCL topology XML. `gpus` selects GPUs by node index (empty = all), and
// they are numbered 0.. in that order as `dev`/`rank`; NVLinks to GPUs left out are dropped,
// NVSwitch links kept. All NICs are kept. Bus ids missing from the model are synthesized
// deterministically. Host bridges have no XML element: their children sit under `<cpu>`.
// REQUIRES: every index in `gpus` is a valid, distinct GPU index.
std::string export_nccl_xml(const NodeModel& model, const std::vector<int>& gpus = {});

// Reads NCCL topology XML into a node model. GPU models come from the `sm` attribute and the
// PCI device id when known; NVSwitch links (tclass 0x068000) of a GPU are summed into one
// fabric (NCCL merges NVSwitches the same way). Errors name the source and the element.
Expected<NodeModel> import_nccl_xml(std::string_view text, std::string_view source_name);

}  // namespace topsim
