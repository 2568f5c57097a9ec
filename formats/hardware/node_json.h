// The node JSON format (docs/node-format.md): a hand-editable description of one GPU node that
// `topsim` reads wherever it takes a `<model|file>`, and that `topsim topo import` writes.
//
// The reader checks types, ranges, references and unknown keys and then runs `validate()`; every
// error is one line naming the source and the JSON pointer ("node.json: /gpus/0/count: must be
// a positive integer, got -2") or, for syntax errors, the line and column ("node.json:3:15:").
// No exception escapes: nlohmann's are caught and turned into errors.
#pragma once

#include <string>
#include <string_view>

#include "core/node_model.h"
#include "util/expected.h"

namespace topsim {

// Parses node JSON. `source` (usually the file path) prefixes every error message.
Expected<NodeModel> node_from_json(std::string_view text, std::string_view source);

// Writes `model` as node JSON: 2-space indent, one line per list entry, keys in schema order,
// optional keys only when they differ from their default, consecutive identical GPUs folded
// into one entry with "count". Deterministic; node_from_json(node_to_json(m)) gives back m
// (a switch's NUMA node, which the format derives from its parent, excepted).
// REQUIRES: validate(model).ok() and every GPU model is a catalog name.
std::string node_to_json(const NodeModel& model);

}  // namespace topsim
