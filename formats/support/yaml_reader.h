// Reading YAML streams safely, shared by the YAML readers of formats/ (Kubernetes manifests,
// queue configurations). Internal to formats/: it exposes yaml-cpp's Node.
#pragma once

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "util/expected.h"

namespace topsim {

// One document of a YAML stream and the line of the file it starts on (1-based): the line of a
// node is first_line + node.Mark().line.
struct YamlDocument {
  YAML::Node root;
  int64_t first_line = 1;
};

// The documents of `text` (split at "---" lines), each parsed on its own, and refused when nested
// deeper than kMaxNestingDepth (util/nesting.h; looked for in the text before yaml-cpp parses
// it, and again in the parsed document), when aliases expand it far beyond its text (an alias
// bomb), or when a mapping repeats a key (YAML 1.2 section 3.2.1.1). Merge keys (`<<: *base`,
// `<<: [*a, *b]`; yaml.org/type/merge.html) are resolved in the returned documents: a mapping
// gets the merged mappings' keys it does not give itself (the earlier source first). Errors name `source`
// and the line: "<source>:12:3: invalid YAML: ...", "<source>:40: duplicate key 'name' ...".
[[nodiscard]] Expected<std::vector<YamlDocument>> parse_yaml_stream(const std::string& text, const std::string& source);

// A parsed YAML document as JSON, for readers written over JSON (kubectl's `-o yaml` is its
// `-o json` written in YAML): mappings become objects, sequences arrays, every scalar a string
// as written ("8", "true"; YAML does not say whether 8 was meant as a number), null and empty
// values null. Aliases are expanded.
// REQUIRES: the document comes from parse_yaml_stream (bounded depth and size).
nlohmann::json yaml_to_json(const YAML::Node& node);

}  // namespace topsim
