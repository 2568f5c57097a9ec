// Saved runs, results.json and jobs.jsonl (docs/results-format.md), read as `topsim report DIR`
// and `topsim explain DIR` read them: the input up to its first NUL byte is results.json, the
// rest (when there is a NUL) jobs.jsonl, written to a folder of their own. A set the reader
// accepts, written out again (results.json alone), reads back and writes the same bytes, and
// `topsim explain DIR '#0'` makes of it an answer or an error.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/results/results_json.h"
#include "fuzz/fuzz_support.h"
#include "reports/job_explain.h"

namespace {

namespace fs = std::filesystem;

// This process's own folder, removed when it exits.
struct Scratch {
  fs::path root = fs::temp_directory_path() / ("topsim-fuzz-results-" + std::to_string(::getpid()));
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path folder(const char* name) const {
    fs::create_directories(root / name);
    return root / name;
  }
};

void write(const fs::path& path, const char* data, size_t size) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(data, static_cast<std::streamsize>(size));
}

std::string results_text(const topsim::ResultSet& results) {
  std::ostringstream out;
  topsim::write_results_json(results, out);
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  static const Scratch scratch;
  static const fs::path input = scratch.folder("input"), again = scratch.folder("again");
  const char* text = reinterpret_cast<const char*>(data);
  const auto* nul = static_cast<const char*>(std::memchr(text, 0, size));
  const size_t results_size = nul ? static_cast<size_t>(nul - text) : size;
  write(input / "results.json", text, results_size);
  std::error_code ec;
  fs::remove(input / "jobs.jsonl", ec);
  if (nul) write(input / "jobs.jsonl", nul + 1, size - results_size - 1);
  const auto loaded = load_results(input.string());
  fuzz::check(loaded);
  if (!loaded) return 0;
  (void)explain_job(*loaded, "#0");  // job 0 under each scheduler, with the failures and preemptions that hit it
  const std::string first = results_text(*loaded);
  write(again / "results.json", first.data(), first.size());
  const auto reloaded = load_results(again.string());
  if (!reloaded) {
    std::fprintf(stderr, "%s\n", reloaded.error().message.c_str());
    fuzz::finding("an accepted set, written out, does not read back");
  }
  if (results_text(*reloaded) != first) fuzz::finding("an accepted set, written out and read back, writes other bytes");
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return topsim::fuzz::mutate_json(data, size, max_size, seed);
}
