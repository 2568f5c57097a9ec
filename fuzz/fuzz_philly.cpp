// The Philly trace CSV (formats/traces/philly_trace.h).
#include <sstream>

#include "formats/traces/philly_trace.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  std::istringstream in{std::string(fuzz::text_of(data, size))};
  fuzz::check(read_philly(in, "fuzz.csv", PhillyOptions{}));
  return 0;
}
