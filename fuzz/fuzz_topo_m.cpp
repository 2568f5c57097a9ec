// `nvidia-smi topo -m` text: import (as given, and with per-GPU --gpu-model ranges for a mixed
// box), and a node it accepts must survive export -> node JSON loader -> export unchanged.
#include "formats/hardware/topo_m_import.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const std::string text(fuzz::text_of(data, size));
  const auto result = parse_topo_m(text, "fuzz.txt");
  fuzz::check(result);
  if (result) fuzz::check_node_round_trip(result->model, "topo -m import");
  TopoImportOptions mixed;
  mixed.gpu_model = "0-1=rtx5090,2-7=rtx4090";
  const auto ranged = parse_topo_m(text, "fuzz.txt", mixed);
  fuzz::check(ranged);
  if (ranged) fuzz::check_node_round_trip(ranged->model, "topo -m import with per-GPU models");
  return 0;
}
