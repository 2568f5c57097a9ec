// NCCL topology XML: import, and a node it accepts must export to XML it imports again.
#include "core/nccl_xml.h"
#include "fuzz/fuzz_support.h"
#include "sim/node_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto model = import_nccl_xml(fuzz::text_of(data, size), "fuzz.xml");
  fuzz::check(model);
  if (!model) return 0;
  const std::string json = node_to_json(*model);
  const auto loaded = node_from_json(json, "exported.json");
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
    fuzz::finding("NCCL XML import gave a node its own JSON loader rejects");
  }
  const auto again = import_nccl_xml(export_nccl_xml(*model), "exported.xml");
  if (!again) {
    std::fprintf(stderr, "%s\n", again.error().message.c_str());
    fuzz::finding("export_nccl_xml wrote XML the importer rejects");
  }
  return 0;
}
