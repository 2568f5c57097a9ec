// What a file handed over as a scenario, plan, suite, cluster, workload, results folder or to an
// importer is (scenario/other_inputs.h): any bytes, written to a file whose extension the first byte picks
// (.yaml, .json, .csv, .txt: readers go by it too), with the role it was handed over as.
// Checks that the answer, when there is one, is one line naming the file.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/fuzz_support.h"
#include "scenario/other_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  if (size == 0) return 0;
  static const char* const kExtensions[] = {".yaml", ".json", ".csv", ".txt"};
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("topsim-fuzz-file-kind-" + std::to_string(::getpid()) + kExtensions[data[0] % 4]))
                               .string();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto wanted = static_cast<Wanted>(data[0] / 4 % 8);  // the 8 roles of Wanted
  const std::optional<std::string> answer = other_input(path, wanted);
  std::filesystem::remove(path);
  if (answer) {
    fuzz::check_error(Error{*answer});
    if (answer->rfind(path + ": ", 0) != 0) fuzz::finding("the answer does not start with the file's path");
  }
  return 0;
}
