// Scenario files (docs/scenarios.md) and the files they name. The input is the scenario, then,
// after each NUL byte, one file of its folder: its relative name on the first line (letters,
// digits, '.', '_', '-', at most one '/' for a folder such as a queue folder; no "..") and its
// content after. The files are written to a folder of this process before each execution and the
// scenario is read there, so mutations reach the readers behind a scenario's paths (node lists,
// pod lists, traces, kubectl node lists, manifests, queue folders, incident traces) as the
// scenario reaches them. Absolute paths may name anything, which is the point (devices, FIFOs,
// folders). The mutator changes the scenario and the JSON files by structure (mutate_json), and
// the YAML files (manifests, node lists, queue folders) by theirs (mutate_yaml).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "fuzz/fuzz_yaml_mutator.h"
#include "scenario/scenario_loader.h"

namespace {

namespace fs = std::filesystem;

// A relative name the harness writes: [A-Za-z0-9._-]+ in one or two parts, none "." or "..".
bool safe_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '/' || name.back() == '/') return false;
  int slashes = 0;
  for (char c : name) {
    if (c == '/') {
      ++slashes;
      continue;
    }
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  if (slashes > 1) return false;
  for (size_t from = 0; from <= name.size();) {
    const size_t slash = std::min(name.find('/', from), name.size());
    const std::string_view part = name.substr(from, slash - from);
    if (part.empty() || part == "." || part == "..") return false;
    from = slash + 1;
  }
  return true;
}

// The files' folder: TMPDIR's (fuzz/run.sh points it inside the build folder), named by the
// process so that targets side by side do not share one. Removed at a normal exit; libFuzzer's
// exit at its time limit skips that, and run.sh removes its TMPDIR.
const fs::path& folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("topsim-fuzz-scenario-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(folder(), ignored);
    });
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace topsim;
  const std::string_view input = fuzz::text_of(data, size);
  const fs::path& dir = folder();
  for (const auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
  const auto parts = fuzz::nul_separated_parts(input);
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string_view part = input.substr(parts[i].first, parts[i].second - parts[i].first);
    const size_t newline = part.find('\n');
    if (newline == std::string_view::npos || !safe_name(part.substr(0, newline))) continue;
    const fs::path file = dir / std::string(part.substr(0, newline));
    std::error_code error;
    fs::create_directories(file.parent_path(), error);
    if (error || fs::is_directory(file)) continue;
    std::ofstream(file, std::ios::binary)
        .write(part.data() + newline + 1, static_cast<std::streamsize>(part.size() - newline - 1));
  }
  fuzz::check(parse_scenario(input.substr(0, parts.front().second), "fuzz.json", dir.string()));
  return 0;
}

// A third of the mutations, when the input has a file named *.yaml or *.yml, take one of them and
// give its content (after the name line) to the YAML mutator, the rest of the input unchanged;
// the others are mutate_json's (which reads each part between NUL bytes, or one of its lines).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  using namespace topsim;
  std::minstd_rand rng(seed);
  const std::string_view input = fuzz::text_of(data, size);
  std::vector<std::pair<size_t, size_t>> yaml_files;  // [begin, end) of each file: its name line, then its content
  const auto parts = fuzz::nul_separated_parts(input);
  for (size_t i = 1; i < parts.size(); ++i) {
    const auto [begin, end] = parts[i];
    const std::string_view part = input.substr(begin, end - begin);
    const std::string_view name = part.substr(0, std::min(part.find('\n'), part.size()));
    if (name.size() < part.size() && (name.ends_with(".yaml") || name.ends_with(".yml"))) yaml_files.emplace_back(begin, end);
  }
  if (yaml_files.empty() || rng() % 3 != 0) return fuzz::mutate_json(data, size, max_size, seed);
  const auto [begin, end] = yaml_files[rng() % yaml_files.size()];
  const size_t room = max_size - (size - (end - begin));  // what the file may grow to
  std::string file(input.substr(begin, end - begin));
  const size_t name_line = file.find('\n') + 1;
  file.resize(std::max(room, file.size()));
  const size_t grown =
      fuzz::mutate_yaml(reinterpret_cast<uint8_t*>(file.data()), end - begin, room, static_cast<unsigned>(rng()), name_line);
  const std::string mutated = std::string(input.substr(0, begin)) + file.substr(0, grown) + std::string(input.substr(end));
  if (mutated.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::copy(mutated.begin(), mutated.end(), data);
  return mutated.size();
}
