// Node JSON (docs/node-format.md): load, and a node it accepts must round-trip unchanged.
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto model = node_from_json(fuzz::text_of(data, size), "fuzz.json");
  fuzz::check(model);
  if (model) fuzz::check_node_round_trip(*model, "the node JSON loader");
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return topsim::fuzz::mutate_json(data, size, max_size, seed);
}
