// Job and node records of other tools: Kubernetes workload manifests (YAML or JSON; read as one
// file, split in two files read leniently, and with a share card size), `kubectl get nodes -o
// json` or `-o yaml`, Slurm `sacct` output as it comes (also as --noheader output of a given
// --format) and Helios cluster_log.csv; the first byte picks which (0 manifests, 1 nodes, 2 sacct,
// 3 Helios, modulo 4), the rest is the file.
#include <sstream>

#include "formats/hardware/kube_nodes.h"
#include "formats/jobs/kube_manifests.h"
#include "formats/jobs/sacct.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/fuzz_yaml_mutator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  if (size == 0) return 0;
  const std::string text(fuzz::text_of(data + 1, size - 1));
  switch (data[0] % 4) {
    case 0: {
      fuzz::check(parse_kube_manifests({{"jobs.yaml", text}}));
      ImportOptions shares;
      shares.share_card_gib = 16;
      const size_t half = text.size() / 2;
      fuzz::check(parse_kube_manifests({{"a.yaml", text.substr(0, half)}, {"b.yaml", text.substr(half)}}, shares));
      break;
    }
    case 1: fuzz::check(parse_kube_nodes(text, "nodes.json")); break;
    case 2: {
      std::istringstream in(text), headerless(text);
      fuzz::check(read_sacct(in, "sacct.txt"));
      fuzz::check(read_sacct(headerless, "sacct.txt", "JobID,Submit,Start,End,AllocTRES,NNodes"));
      break;
    }
    default: {
      std::istringstream in(text);
      fuzz::check(read_helios(in, "cluster_log.csv"));
    }
  }
  return 0;
}

// Manifests and node lists (YAML, or JSON, which YAML reads) mutate by structure after the byte
// that picks the reader; sacct and Helios text by bytes.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  if (size > 0 && data[0] % 4 < 2) return topsim::fuzz::mutate_yaml(data, size, max_size, seed, 1);
  return LLVMFuzzerMutate(data, size, max_size);
}
