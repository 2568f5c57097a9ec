// Structure-aware mutation for the YAML readers (Kubernetes manifests and node lists, queue
// configurations): what mutate_json (fuzz_support.h) does for JSON, over YAML documents. Byte
// mutations seldom keep a manifest valid YAML while turning a replica count into a mapping or a
// GPU limit into "1e300"; these do, so the mutated input reaches the code that reads the field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "util/nesting.h"
#include "util/yaml_stream.h"

namespace topsim::fuzz {

// Half the mutations take the input after its first `prefix` bytes (a byte that picks the reader)
// as a YAML stream, choose one of its documents (split at "---" lines, as the readers split them)
// and, in it, one node uniformly, and put in its place a scalar or collection of another kind
// (numbers out of every field's range, Kubernetes quantities, YAML's special floats, empty and
// one-element collections), a deep copy of another node of the document, or nothing (the
// mapping's key or the sequence's item removed). The other half, and any document yaml-cpp does
// not parse, is nested too deep (util/nesting.h) or expands through aliases beyond its text, get
// libFuzzer's byte mutations.
inline size_t mutate_yaml(uint8_t* data, size_t size, size_t max_size, unsigned seed, size_t prefix = 0) {
  std::minstd_rand rng(seed);
  const auto pick = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  if (size <= prefix || pick(2) == 0) return LLVMFuzzerMutate(data, size, max_size);
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<YamlDocumentSpan> documents = yaml_document_spans(text, prefix);
  const YamlDocumentSpan chosen = documents[pick(documents.size())];
  const size_t begin = chosen.begin, end = chosen.end;
  const std::string document = text.substr(begin, end - begin);
  if (first_too_deep_yaml_line(document)) return LLVMFuzzerMutate(data, size, max_size);
  YAML::Node root;
  struct Place {
    YAML::Node node, parent, key;  // parent: null for the root; key: the mapping's key of node
    size_t index = 0;              // in a sequence parent
  };
  std::vector<Place> places;
  try {
    root = YAML::Load(document);
    // Aliases share a node: a walk that follows them may repeat a subtree many times over. Stop
    // at what the text could hold, as the readers refuse (formats/support/yaml_reader.cpp).
    const size_t max_places = 8 * document.size() + 4096;
    std::vector<std::pair<Place, size_t>> stack{{{root, YAML::Node(), YAML::Node(), 0}, 1}};
    while (!stack.empty()) {
      auto [place, depth] = stack.back();
      stack.pop_back();
      places.push_back(place);
      if (places.size() > max_places || depth > kMaxNestingDepth) return LLVMFuzzerMutate(data, size, max_size);
      if (place.node.IsSequence())
        for (size_t i = 0; i < place.node.size(); ++i) stack.push_back({{place.node[i], place.node, YAML::Node(), i}, depth + 1});
      else if (place.node.IsMap())
        for (auto pair : place.node) stack.push_back({{pair.second, place.node, pair.first, 0}, depth + 1});
    }
    static const char* const kOthers[] = {"~",
                                          "true",
                                          "0",
                                          "-1",
                                          "1.5",
                                          "1e300",
                                          "-1e300",
                                          "18446744073709551615",
                                          "-9223372036854775808",
                                          ".nan",
                                          ".inf",
                                          "'1e300'",
                                          "'-1'",
                                          "'0.5'",
                                          "1Ki",
                                          "100m",
                                          "''",
                                          "x",
                                          "[]",
                                          "{}",
                                          "[0]",
                                          "{'': 0}"};
    const Place& at = places[pick(places.size())];
    const size_t others = std::size(kOthers), choice = pick(others + 2);
    YAML::Node target = at.node;  // a handle: assigning through it changes the document
    if (choice < others) {
      target = YAML::Load(kOthers[choice]);
    } else if (choice == others) {
      target = YAML::Clone(places[pick(places.size())].node);  // a copy: the source may hold the target
    } else if (at.parent.IsMap()) {
      YAML::Node parent = at.parent;
      parent.remove(at.key);
    } else if (at.parent.IsSequence()) {
      YAML::Node rest(YAML::NodeType::Sequence);
      for (size_t i = 0; i < at.parent.size(); ++i)
        if (i != at.index) rest.push_back(at.parent[i]);
      YAML::Node parent = at.parent;
      parent = rest;
    } else {
      target = YAML::Node(YAML::NodeType::Map);
    }
    YAML::Emitter out;
    out << root;
    if (!out.good()) return LLVMFuzzerMutate(data, size, max_size);
    const std::string mutated = text.substr(0, begin) + out.c_str() + "\n" + text.substr(end);
    if (mutated.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memcpy(data, mutated.data(), mutated.size());
    return mutated.size();
  } catch (const YAML::Exception&) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
}

}  // namespace topsim::fuzz
