// `nvidia-smi topo -m` text: import, and a node it accepts must survive export -> node JSON
// loader -> export unchanged.
#include "formats/hardware/topo_m_import.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto result = parse_topo_m(fuzz::text_of(data, size), "fuzz.txt");
  fuzz::check(result);
  if (result) fuzz::check_node_round_trip(result->model, "topo -m import");
  return 0;
}
