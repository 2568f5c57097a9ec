// `nvidia-smi topo -m` text: import, and a node it accepts must survive export -> node JSON
// loader -> export unchanged (what `topo import` writes, its own loader reads).
#include "core/topo_m_import.h"
#include "fuzz/fuzz_support.h"
#include "sim/node_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto result = import_topo_m(fuzz::text_of(data, size), "fuzz.txt");
  fuzz::check(result);
  if (!result) return 0;
  const std::string json = node_to_json(result->model);
  const auto again = node_from_json(json, "exported.json");
  if (!again) {
    std::fprintf(stderr, "%s\n%s\n", again.error().message.c_str(), json.c_str());
    fuzz::finding("topo -m import wrote a node its own loader rejects");
  }
  if (node_to_json(*again) != json) fuzz::finding("node JSON round trip changed the node");
  return 0;
}
