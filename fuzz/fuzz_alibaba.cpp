// The Alibaba GPU trace 2023 CSVs (formats/traces/alibaba_trace.h): the first byte picks the node list or
// the pod list, the rest is the file.
#include <sstream>

#include "formats/traces/alibaba_trace.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  if (size == 0) return 0;
  std::istringstream in{std::string(fuzz::text_of(data + 1, size - 1))};
  if (data[0] & 1)
    fuzz::check(read_node_list(in, "fuzz_node_list.csv", [](TraceNode&&) {}));
  else
    fuzz::check(read_pod_list(in, "fuzz_pod_list.csv", [](TracePod&&) {}));
  return 0;
}
