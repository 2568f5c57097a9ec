// Kueue's multi-layer slice annotation (sim/schedulers/slice_layers.h): an accepted value's
// topologies are label-like text (no quote, backslash or control byte), and writing its layers
// back as JSON reads the same layers again.
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/schedulers/slice_layers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto layers = parse_slice_constraints(std::string(fuzz::text_of(data, size)));
  fuzz::check(layers);
  if (!layers) return 0;
  std::string again = "[";
  for (const SliceConstraint& layer : *layers) {
    for (const char c : layer.topology)
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) fuzz::finding("a topology with a byte JSON escapes");
    again += (again.size() > 1 ? ", " : "") + std::string("{\"topology\": \"") + layer.topology +
             "\", \"size\": " + std::to_string(layer.size) + "}";
  }
  const auto reread = parse_slice_constraints(again + "]");
  if (!reread || reread->size() != layers->size()) fuzz::finding("the layers written back do not read again");
  for (size_t i = 0; i < layers->size(); ++i)
    if ((*reread)[i].topology != (*layers)[i].topology || (*reread)[i].size != (*layers)[i].size)
      fuzz::finding("the layers written back read differently");
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return topsim::fuzz::mutate_json(data, size, max_size, seed);
}
