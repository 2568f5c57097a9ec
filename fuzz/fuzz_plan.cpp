// Plan files (docs/planning.md).
#include "fuzz/fuzz_support.h"
#include "plan/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  fuzz::check(parse_plan(fuzz::text_of(data, size), "fuzz.json", "/nonexistent-topsim-fuzz"));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return topsim::fuzz::mutate_json(data, size, max_size, seed);
}
