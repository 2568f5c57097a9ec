// Node JSON (docs/node-format.md): load, and a node it accepts must round-trip unchanged.
#include "fuzz/fuzz_support.h"
#include "sim/node_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto model = node_from_json(fuzz::text_of(data, size), "fuzz.json");
  fuzz::check(model);
  if (!model) return 0;
  const std::string json = node_to_json(*model);
  const auto again = node_from_json(json, "exported.json");
  if (!again) {
    std::fprintf(stderr, "%s\n%s\n", again.error().message.c_str(), json.c_str());
    fuzz::finding("an accepted node exports to JSON its loader rejects");
  }
  if (node_to_json(*again) != json) fuzz::finding("node JSON round trip changed the node");
  return 0;
}
