#include "formats/hardware/node_source.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/builtin_models.h"
#include "formats/hardware/nccl_xml.h"
#include "formats/hardware/node_json.h"
#include "util/input_file.h"
#include "util/suggest.h"

namespace topsim {
namespace {

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// A spec with a '/' or a '.' was meant as a file; anything else may be a mistyped model name.
bool looks_like_path(std::string_view spec) {
  return spec.find('/') != std::string_view::npos || spec.find('.') != std::string_view::npos;
}

Error unknown_model(std::string_view spec) {
  const std::vector<std::string> names = builtin_model_names();
  const std::string suggestion = did_you_mean(spec, names);
  return Error{"unknown node model '" + std::string(spec) + "' (not a built-in model nor a file)" +
               (suggestion.empty() ? ";" : suggestion) + " built-in models: " + join_names(names)};
}

Expected<NodeModel> load_file(const std::string& path, const NodeLoadOptions& options, NodeSourceInfo& info) {
  Expected<std::string> text = read_text_file(path);
  if (!text) return text.error();
  const std::string ext = lower_extension(path);
  if (ext == ".json") {
    info.kind = NodeSourceKind::NodeJson;
    return node_from_json(*text, path);
  }
  if (ext == ".xml") {
    info.kind = NodeSourceKind::NcclXml;
    Expected<NcclXmlImportResult> imported = parse_nccl_xml(*text, path, options.nccl_xml);
    if (!imported) return imported.error();
    info.notes = std::move(imported->notes);
    info.fabric = imported->fabric;
    info.fabric_inferred = imported->fabric_inferred;
    return std::move(imported->model);
  }
  info.kind = NodeSourceKind::TopoM;
  Expected<TopoImportResult> imported = parse_topo_m(*text, path, options.topo_m);
  if (!imported) return imported.error();
  info.notes = std::move(imported->notes);
  return std::move(imported->model);
}

}  // namespace

Expected<NodeModel> load_node(std::string_view spec, const NodeLoadOptions& options, NodeSourceInfo* info) {
  NodeSourceInfo local;
  NodeSourceInfo& out = info ? *info : local;
  out = {};
  if (std::optional<NodeModel> builtin = builtin_model(spec)) {
    out.kind = NodeSourceKind::Builtin;
    return std::move(*builtin);
  }
  const std::string path(spec);
  std::error_code ec;
  if (std::filesystem::exists(path, ec) || looks_like_path(spec)) return load_file(path, options, out);
  return unknown_model(spec);
}

}  // namespace topsim
