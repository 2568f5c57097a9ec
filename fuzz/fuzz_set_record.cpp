// Result-set records, DIR/.topsim-set.json (docs/results-format.md, "Result sets"): an accepted
// record renders to a text that reads back as the same record.
#include "formats/results/set_record.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto record = parse_set_record(fuzz::text_of(data, size), "/nonexistent-topsim-fuzz/.topsim-set.json");
  fuzz::check(record);
  if (!record) return 0;
  const auto again = parse_set_record(render_set_record(*record), "rendered");
  if (!again || again->run != record->run || again->files.size() != record->files.size())
    fuzz::finding("a record does not read back");
  for (const auto& [name, file] : record->files) {
    const auto other = again->files.find(name);
    if (other == again->files.end() || other->second.bytes != file.bytes || other->second.digest != file.digest)
      fuzz::finding("a record's file does not read back");
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return topsim::fuzz::mutate_json(data, size, max_size, seed);
}
