#include "formats/support/yaml_reader.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "util/nesting.h"
#include "util/yaml_stream.h"

namespace topsim {
namespace {

// Refuses a document nested deeper than kMaxNestingDepth, or whose aliases expand it to more nodes
// than its text could hold (an alias bomb: each alias repeats a whole subtree), before anything
// walks it recursively, or repeating a key in a mapping (YAML 1.2 section 3.2.1.1: keys are
// unique). `text_bytes`: the document's size; `first_line`: the file's line the document starts at.
Status check_yaml_shape(const YAML::Node& root, size_t text_bytes, const std::string& where, int64_t first_line) {
  const auto line = [&](const YAML::Node& node) { return std::to_string(first_line + std::max(0, node.Mark().line)); };
  // A node takes at least a byte of text; aliases may repeat a template a few times, not a billion.
  const size_t max_nodes = 8 * text_bytes + 4096;
  std::vector<std::pair<YAML::Node, size_t>> stack = {{root, 1}};
  for (size_t visited = 0; !stack.empty(); ++visited) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxNestingDepth)
      return Error{where + ":" + line(node) + ": nested more than " + std::to_string(kMaxNestingDepth) + " levels deep"};
    if (visited > max_nodes)
      return Error{where + ": aliases expand the document to more than " + std::to_string(max_nodes) + " nodes (an alias bomb?)"};
    if (node.IsSequence())
      for (const YAML::Node& child : node) stack.emplace_back(child, depth + 1);
    if (!node.IsMap()) continue;
    std::set<std::string> keys;
    for (const auto& pair : node) {
      if (pair.first.IsScalar() && !keys.insert(pair.first.Scalar()).second)
        return Error{where + ":" + line(pair.first) + ": duplicate key '" + pair.first.Scalar() +
                     "' (a key may appear once per mapping)"};
      stack.emplace_back(pair.first, depth + 1), stack.emplace_back(pair.second, depth + 1);
    }
  }
  return Status::success();
}

bool is_merge_key(const YAML::Node& key) { return key.IsScalar() && key.Scalar() == "<<" && key.Tag() != "!"; }

// Resolves the merge keys of `node` and below in place (yaml-cpp 0.7 reads `<<` as a plain key).
// The walk is bounded: check_yaml_shape refused documents whose aliases expand too far.
void resolve_merge_keys(YAML::Node node) {
  if (node.IsSequence())
    for (YAML::Node item : node) resolve_merge_keys(item);
  if (!node.IsMap()) return;
  std::vector<YAML::Node> sources;
  for (auto pair : node) {
    if (!is_merge_key(pair.first)) {
      resolve_merge_keys(pair.second);
    } else if (pair.second.IsSequence()) {
      for (YAML::Node source : pair.second) sources.push_back(source);
    } else {
      sources.push_back(pair.second);
    }
  }
  if (sources.empty()) return;
  node.remove("<<");
  const YAML::Node& own = node;  // const: operator[] does not insert
  for (YAML::Node source : sources) {
    resolve_merge_keys(source);
    if (!source.IsMap()) continue;
    for (auto pair : source)
      if (pair.first.IsScalar() && !own[pair.first.Scalar()]) node[pair.first.Scalar()] = pair.second;
  }
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node) {
  if (!node || node.IsNull()) return nullptr;
  if (node.IsScalar()) return node.Scalar();
  nlohmann::json out = node.IsSequence() ? nlohmann::json::array() : nlohmann::json::object();
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) out.push_back(yaml_to_json(item));
  } else {
    for (const auto& pair : node)
      if (pair.first.IsScalar()) out[pair.first.Scalar()] = yaml_to_json(pair.second);
  }
  return out;
}

Expected<std::vector<YamlDocument>> parse_yaml_stream(const std::string& text, const std::string& source) {
  std::vector<YamlDocument> documents;
  for (const YamlDocumentSpan& span : yaml_document_spans(text)) {
    const int64_t first_line = span.first_line;
    std::string part = text.substr(span.begin, span.end - span.begin);
    if (!part.empty() && part.back() != '\n') part += '\n';  // every line ends as yaml-cpp has always read it
    // yaml-cpp's parser recurses per level: a document too deep is refused before it runs.
    if (const auto deep = first_too_deep_yaml_line(part))
      return Error{source + ":" + std::to_string(first_line + static_cast<int64_t>(*deep)) + ": nested more than " +
                   std::to_string(kMaxNestingDepth) + " levels deep"};
    try {
      documents.push_back({YAML::Load(part), first_line});
      if (Status shape = check_yaml_shape(documents.back().root, part.size(), source, first_line); !shape) return shape.error();
      resolve_merge_keys(documents.back().root);
    } catch (const YAML::Exception& e) {
      return Error{source + ":" + std::to_string(first_line + e.mark.line) + ":" + std::to_string(e.mark.column + 1) +
                   ": invalid YAML: " + e.msg};
    }
  }
  return documents;
}

}  // namespace topsim
