// Queue configurations (Kueue and KAI objects in YAML, formats/queues/queue_yaml.h): the input is
// one file of the folder. An accepted configuration must also render (reports/queue_config_report.h).
#include "formats/queues/queue_yaml.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/fuzz_yaml_mutator.h"
#include "reports/queue_config_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto config = parse_queue_config({{"q/queues.yaml", std::string(fuzz::text_of(data, size))}}, "q");
  fuzz::check(config);
  if (config.ok() && render_queue_config(*config).empty()) fuzz::finding("an accepted queue configuration rendered as nothing");
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return topsim::fuzz::mutate_yaml(data, size, max_size, seed);
}
