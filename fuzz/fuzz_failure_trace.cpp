// A failure trace CSV (formats/traces/failure_trace.h), read against a cluster of eight nodes,
// two of them with kubectl names: an accepted trace's incidents are in start order, on nodes the
// cluster has, with durations of zero or more.
#include <cstdlib>
#include <sstream>

#include "formats/traces/failure_trace.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  static const std::vector<std::string> names = {"gpu-a", "gpu-b", "node-2", "node-3", "node-4", "node-5", "node-6", "node-7"};
  std::istringstream in{std::string(fuzz::text_of(data, size))};
  const auto rows = read_failure_trace(in, "fuzz.csv", names);
  fuzz::check(rows);
  if (!rows) return 0;
  for (size_t i = 0; i < rows->size(); ++i) {
    const ReplayedFailure& f = (*rows)[i];
    if (f.node < 0 || f.node >= static_cast<int>(names.size()) || f.down_ms < 0 || f.at_ms < 0 ||
        (i > 0 && (*rows)[i - 1].at_ms > f.at_ms))
      std::abort();
  }
  return 0;
}
