// Helpers of the CLI tests of result sets: a small scenario, and a run of it into a folder.
#pragma once

#include <fstream>
#include <string>

#include "tests/test_support.h"

namespace topsim::test {

// A small scenario, named "set", whose `jobs` synthetic jobs run on two DGX A100; its path.
inline std::string write_set_scenario(const TempDir& dir, const std::string& file, int jobs) {
  const std::string path = dir.file(file);
  std::ofstream(path) << R"({"name": "set", "cluster": {"nodes": [{"model": "dgx-a100", "count": 2}]},
 "workload": {"kind": "synthetic", "jobs": )"
                      << jobs << R"(, "seed": 1}})";
  return path;
}

// `topsim run SCENARIO -o OUT --quiet EXTRA`.
inline CliResult run_into(const std::string& scenario, const std::string& out, const std::string& extra = "") {
  return run_cli("run '" + scenario + "' -o '" + out + "' --quiet " + extra);
}

}  // namespace topsim::test
