// Kubernetes inputs: workload manifests (YAML or JSON) and `kubectl get nodes -o json`; the first
// byte picks which, the rest is the file.
#include "fuzz/fuzz_support.h"
#include "sim/kube_manifests.h"
#include "sim/kube_nodes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  if (size == 0) return 0;
  const std::string text(fuzz::text_of(data + 1, size - 1));
  if (data[0] & 1)
    fuzz::check(import_kube_nodes(text, "nodes.json"));
  else
    fuzz::check(import_kube_manifest_texts({{"jobs.yaml", text}}));
  return 0;
}
