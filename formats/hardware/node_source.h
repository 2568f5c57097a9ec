// Resolution of a `<model|file>` argument into a node model: a built-in model name, a node JSON
// file (.json), an NCCL topology XML file (.xml), or `nvidia-smi topo -m` text (any other file).
//
// Built-in names win over files of the same name. File reading lives here: `core` does no I/O.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/node_model.h"
#include "formats/hardware/nccl_xml.h"
#include "formats/hardware/topo_m_import.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

enum class NodeSourceKind { Builtin, NodeJson, NcclXml, TopoM };
// Names are phrases for messages ("'x.json' is node JSON").
template <>
struct EnumNames<NodeSourceKind> {
  static constexpr std::array<EnumName<NodeSourceKind>, 4> table{{{NodeSourceKind::Builtin, "built-in model"},
                                                                  {NodeSourceKind::NodeJson, "node JSON"},
                                                                  {NodeSourceKind::NcclXml, "NCCL topology XML"},
                                                                  {NodeSourceKind::TopoM, "nvidia-smi topo -m text"}}};
};

struct NodeLoadOptions {
  // Used only for `nvidia-smi topo -m` text (see formats/hardware/topo_m_import.h for each default).
  TopoImportOptions topo_m;
  // Used only for NCCL topology XML hint files (see formats/hardware/nccl_xml.h).
  NcclXmlImportOptions nccl_xml;
};

// What load_node found besides the model.
struct NodeSourceInfo {
  NodeSourceKind kind = NodeSourceKind::Builtin;
  std::vector<std::string> notes;  // what an importer inferred or assumed, one line each
  std::string fabric;              // NCCL XML hint files: the built-in model whose fabric was grafted
  bool fabric_inferred = false;
};

// Loads the node named by `spec`. Errors are one line, e.g.
//   unknown node model 'dgx-1' (not a built-in model nor a file); did you mean 'dgx1-v100'? ...
//   cannot open 'x.json': No such file or directory
// `info`, when given, receives the source kind and the importer's notes.
Expected<NodeModel> load_node(std::string_view spec, const NodeLoadOptions& options = {}, NodeSourceInfo* info = nullptr);

}  // namespace topsim
