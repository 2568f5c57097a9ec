// What every fuzz target checks beyond "no crash, no sanitizer report, no hang": an input that
// is refused gets one error line, without raw control bytes the reader did not escape.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/node_model.h"
#include "formats/hardware/node_json.h"
#include "util/expected.h"

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

}  // namespace topsim::fuzz
