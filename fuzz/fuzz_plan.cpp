// Plan files (docs/planning.md).
#include "fuzz/fuzz_support.h"
#include "plan/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  fuzz::check(parse_plan(fuzz::text_of(data, size), "fuzz.json", "/nonexistent-topsim-fuzz"));
  return 0;
}
