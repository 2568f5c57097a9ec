// NCCL topology XML: import; a node it accepts must round-trip through node JSON, and its XML
// export must import again and export to the same file.
#include "formats/hardware/nccl_xml.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto model = parse_nccl_xml(fuzz::text_of(data, size), "fuzz.xml");
  fuzz::check(model);
  if (!model) return 0;
  fuzz::check_node_round_trip(*model, "NCCL XML import");
  const std::string xml = export_nccl_xml(*model);
  const auto again = parse_nccl_xml(xml, "exported.xml");
  if (!again) {
    std::fprintf(stderr, "%s\n", again.error().message.c_str());
    fuzz::finding("export_nccl_xml wrote XML the importer rejects");
  }
  return 0;
}
