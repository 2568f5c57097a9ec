// What every fuzz target checks beyond "no crash, no sanitizer report, no hang": an input that
// is refused gets one error line, without raw control bytes the reader did not escape. And the
// JSON targets' structure-aware mutation (mutate_json).
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/node_model.h"
#include "formats/hardware/node_json.h"
#include "util/expected.h"
#include "util/nesting.h"

// libFuzzer's own mutations, for a custom mutator to fall back on.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace topsim::fuzz {

inline std::string_view text_of(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// Aborts (a finding) when an error message spans lines or is empty.
inline void check_error(const Error& error) {
  const std::string& m = error.message;
  if (m.empty() || m.find('\n') != std::string::npos || m.find('\r') != std::string::npos) {
    std::fprintf(stderr, "fuzz: error message is empty or not one line: [%s]\n", m.c_str());
    std::abort();
  }
}

template <typename T>
void check(const Expected<T>& result) {
  if (!result.ok()) check_error(result.error());
}

inline void check(const Status& status) {
  if (!status.ok()) check_error(status.error());
}

[[noreturn]] inline void finding(const char* what) {
  std::fprintf(stderr, "fuzz: %s\n", what);
  std::abort();
}

// A node an importer accepted must export to node JSON that the node loader accepts and that
// exports to the same bytes again (what `topo import` writes, its own loader reads).
inline void check_node_round_trip(const NodeModel& model, const char* importer) {
  const std::string json = node_to_json(model);
  const auto again = node_from_json(json, "exported.json");
  if (!again) {
    std::fprintf(stderr, "%s\n%s\n", again.error().message.c_str(), json.c_str());
    std::fprintf(stderr, "fuzz: %s accepted a node its JSON export does not load\n", importer);
    std::abort();
  }
  if (node_to_json(*again) != json) finding("node JSON round trip changed the node");
}

// The parts of `text` between NUL bytes, as [begin, end) offsets: always at least one (the text
// before the first NUL, or all of it). Inputs that carry several files use NUL as separator.
inline std::vector<std::pair<size_t, size_t>> nul_separated_parts(std::string_view text) {
  std::vector<std::pair<size_t, size_t>> parts;
  for (size_t begin = 0;;) {
    const size_t nul = text.find('\0', begin);
    parts.emplace_back(begin, nul == std::string_view::npos ? text.size() : nul);
    if (nul == std::string_view::npos) return parts;
    begin = nul + 1;
  }
}

// Structure-aware mutation for the JSON readers (each JSON target's LLVMFuzzerCustomMutator).
// Byte mutations seldom keep a document valid JSON while changing the type of a field deep in
// it, which is where a reader that checks the syntax but not a field's type fails. Half the
// mutations here take the input as JSON (the whole input; or, when it has NUL bytes, one part
// between them; or, when that part does not parse, one of its lines, as in jobs.jsonl), choose
// one of its values uniformly and put in its place a value of another type, a copy of another of
// its values, or nothing (the key or element removed); the other half, and any input that does
// not parse, get libFuzzer's byte mutations.
inline size_t mutate_json(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  using nlohmann::json;
  std::minstd_rand rng(seed);
  const auto pick = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  if (pick(2) == 0) return LLVMFuzzerMutate(data, size, max_size);
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::pair<size_t, size_t>> parts = nul_separated_parts(text);
  auto [begin, end] = parts[pick(parts.size())];
  const auto parse = [&text](size_t from, size_t to) {
    const std::string_view span(text.data() + from, to - from);
    return first_too_deep_bracket(span) ? json(json::value_t::discarded) : json::parse(span, nullptr, false);
  };
  json doc = parse(begin, end);
  if (doc.is_discarded()) {  // one line of the part
    std::vector<std::pair<size_t, size_t>> lines;
    for (size_t at = begin; at < end;) {
      const size_t newline = std::min(end, text.find('\n', at));
      if (newline > at) lines.emplace_back(at, newline);
      at = newline + 1;
    }
    if (lines.empty()) return LLVMFuzzerMutate(data, size, max_size);
    std::tie(begin, end) = lines[pick(lines.size())];
    doc = parse(begin, end);
    if (doc.is_discarded()) return LLVMFuzzerMutate(data, size, max_size);
  }
  struct Place {
    json* value;
    json* parent;  // nullptr for the document itself
    std::string key;
    size_t index;
  };
  std::vector<Place> places;
  const auto walk = [&places](auto& self, json& value, json* parent, std::string key, size_t index) -> void {
    places.push_back({&value, parent, key, index});
    if (value.is_object())
      for (auto& [k, v] : value.items()) self(self, v, &value, k, 0);
    else if (value.is_array())
      for (size_t i = 0; i < value.size(); ++i) self(self, value[i], &value, "", i);
  };
  walk(walk, doc, nullptr, "", 0);
  static const json kOthers[] = {nullptr,
                                 true,
                                 false,
                                 0,
                                 -1,
                                 1.5,
                                 1e300,
                                 -1e300,
                                 std::numeric_limits<uint64_t>::max(),
                                 std::numeric_limits<int64_t>::min(),
                                 "",
                                 "x",
                                 json::array(),
                                 json::object(),
                                 json::array({0}),
                                 json::object({{"", 0}})};
  const Place& at = places[pick(places.size())];
  const size_t others = std::size(kOthers), choice = pick(others + 2);
  if (choice < others) {
    *at.value = kOthers[choice];
  } else if (choice == others) {
    *at.value = json(*places[pick(places.size())].value);  // a copy: the source may be inside the target
  } else if (at.parent && at.parent->is_object()) {
    at.parent->erase(at.key);
  } else if (at.parent) {
    at.parent->erase(at.index);
  } else {
    *at.value = json::object();
  }
  const std::string mutated = text.substr(0, begin) + doc.dump() + text.substr(end);
  if (mutated.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, mutated.data(), mutated.size());
  return mutated.size();
}

}  // namespace topsim::fuzz
