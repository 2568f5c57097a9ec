// The Philly trace CSV (sim/philly_trace.h).
#include <sstream>

#include "fuzz/fuzz_support.h"
#include "sim/philly_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  std::istringstream in{std::string(fuzz::text_of(data, size))};
  fuzz::check(read_philly(in, "fuzz.csv", PhillyOptions{}));
  return 0;
}
