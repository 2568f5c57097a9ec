// Embedded job lists (`"kind": "jobs"`, docs/workloads.md).
#include "formats/jobs/job_list_json.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  fuzz::check(parse_job_list(fuzz::text_of(data, size), "fuzz.json"));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return topsim::fuzz::mutate_json(data, size, max_size, seed);
}
