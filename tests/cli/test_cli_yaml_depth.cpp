// A YAML document nested too deep for yaml-cpp's recursive parser is refused from its text before
// the parser runs: on a small stack, yaml-cpp overflowed it at a depth below its own guard
// (about 500 levels), and the process died with SIGSEGV.
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::run_shell;
using topsim::test::TempDir;

TEST_CASE("cli::import: YAML too deep for yaml-cpp's recursion is refused before it parses, on a 128 KiB stack",
          "[cli][nesting]") {
#ifdef TOPSIM_SANITIZED
  WARN("skipped: sanitizer frames are larger, a 128 KiB stack does not hold the reader itself");
  return;
#endif
  TempDir dir;
  std::string deep;
  for (int i = 0; i < 480; ++i) deep += "- ";
  std::ofstream(dir.file("deep.yaml")) << deep << "x\n";
  std::ofstream(dir.file("queue.yaml"))
      << "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: cq\nspec:\n  namespaceSelector: {}\n"
         "  resourceGroups:\n  - coveredResources: [\"nvidia.com/gpu\"]\n    flavors:\n    - name: f\n      resources:\n"
         "      - name: \"nvidia.com/gpu\"\n        nominalQuota: 8\n---\napiVersion: kueue.x-k8s.io/v1beta1\n"
         "kind: ResourceFlavor\nmetadata:\n  name: f\n";
  const std::string small_stack = "ulimit -s 128 && '" + std::string(TOPSIM_CLI_PATH) + "' import queues '";
  // The reader itself runs on that stack.
  CHECK(run_shell(small_stack + dir.file("queue.yaml") + "'").exit_code == 0);
  check_bad_input(run_shell(small_stack + dir.file("deep.yaml") + "'"),
                  dir.file("deep.yaml") + ":1: nested more than 64 levels deep");
  // The same document as a Kubernetes manifest.
  check_bad_input(run_shell("ulimit -s 128 && '" + std::string(TOPSIM_CLI_PATH) + "' import jobs '" + dir.file("deep.yaml") +
                            "' -o '" + dir.file("jobs.json") + "'"),
                  "nested more than 64 levels deep");
}
