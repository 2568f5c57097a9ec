// Quality-gate suites (docs/ci.md).
#include "fuzz/fuzz_support.h"
#include "gate/quality_gate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  fuzz::check(parse_suite(fuzz::text_of(data, size), "/nonexistent-topsim-fuzz/suite.json"));
  return 0;
}
