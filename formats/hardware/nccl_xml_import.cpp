// NCCL topology XML import with pugixml (see nccl_xml.h): parsing, the document's shape and errors
// with line numbers; the importer's parts are in nccl_xml_importer.h. Export is in nccl_xml.cpp;
// the facts both share, and the format's sources, in nccl_xml_common.h.
#include "formats/hardware/nccl_xml.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include <pugixml.hpp>

#include "formats/hardware/nccl_xml_importer.h"
#include "util/nesting.h"

namespace topsim {
namespace {

using namespace nccl_xml_detail;

std::pair<long, long> line_and_column(std::string_view text, std::ptrdiff_t offset) {
  if (offset < 0) return {0, 0};
  const std::string_view before = text.substr(0, static_cast<size_t>(offset));
  const size_t last_newline = before.rfind('\n');
  const long column = static_cast<long>(offset) - (last_newline == std::string_view::npos ? -1 : static_cast<long>(last_newline));
  return {1 + static_cast<long>(std::count(before.begin(), before.end(), '\n')), column};
}

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
