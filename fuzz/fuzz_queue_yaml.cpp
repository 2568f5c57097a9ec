// Queue configurations (Kueue and KAI objects in YAML, formats/queues/queue_yaml.h): the input is
// one file of the folder. An accepted configuration must also render (reports/queue_config_report.h).
#include "formats/queues/queue_yaml.h"
#include "fuzz/fuzz_support.h"
#include "reports/queue_config_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const auto config = parse_queue_config({{"q/queues.yaml", std::string(fuzz::text_of(data, size))}}, "q");
  fuzz::check(config);
  if (config.ok() && render_queue_config(*config).empty()) fuzz::finding("an accepted queue configuration rendered as nothing");
  return 0;
}
