// Helpers shared by the tests: where the real inputs in ../shared are, and running the CLI.
#pragma once

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace topsim::test {

// ../shared (topologies/, traces/); empty when absent.
inline std::filesystem::path shared_dir() {
  std::filesystem::path dir = TOPSIM_SHARED_DIR;
  return std::filesystem::is_directory(dir) ? dir : std::filesystem::path();
}

// Path of a file under ../shared, or "" after a WARN when ../shared is absent.
inline std::string shared_file(const std::string& relative) {
  const auto dir = shared_dir();
  if (dir.empty()) {
    WARN("skipped: ../shared is absent (" TOPSIM_SHARED_DIR "), real inputs are not available");
    return "";
  }
  return (dir / relative).string();
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs a shell command, capturing its stdout and stderr.
inline CliResult run_shell(const std::string& shell_command) {
  const auto tmp = std::filesystem::temp_directory_path();
  static int counter = 0;
  const auto err_path = tmp / ("topsim_test_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string command = "{ " + shell_command + "; } 2>" + err_path.string();
  CliResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_text(err_path);
  std::filesystem::remove(err_path);
  return result;
}

// Runs `topsim <args>` (args are passed to the shell as written).
inline CliResult run_cli(const std::string& args) { return run_shell(std::string(TOPSIM_CLI_PATH) + " " + args); }

// Bad input: exit code 2, nothing on stdout and exactly one stderr line, "topsim: error: ..."
// containing `needle`.
inline void check_bad_input(const CliResult& r, const std::string& needle) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::StartsWith("topsim: error: ") && Catch::Contains(needle));
  CHECK(r.out.empty());
}

// The pinned content of tests/golden/<name>.json, REQUIREd present. With TOPSIM_UPDATE_GOLDEN set
// in the environment, writes `actual` there instead (indented by `indent`) and returns nullopt.
inline std::optional<nlohmann::ordered_json> golden(const std::string& name, const nlohmann::ordered_json& actual,
                                                    int indent = 2) {
  const std::string path = std::string(TOPSIM_SOURCE_DIR) + "/tests/golden/" + name + ".json";
  if (std::getenv("TOPSIM_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual.dump(indent) << "\n";
    WARN("updated " << path);
    return std::nullopt;
  }
  std::ifstream in(path);
  INFO("golden file " << path << " (TOPSIM_UPDATE_GOLDEN=1 writes it)");
  REQUIRE(in.good());
  return nlohmann::ordered_json::parse(in);
}

// A fresh empty directory under the temp dir, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path =
        std::filesystem::temp_directory_path() / ("topsim_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// Whether some line of `text` (without its newline) matches the regular expression `pattern` as a
// whole. Line by line: a pattern spanning the text ("(.|\n)*...") recurses once per character in
// std::regex and overflows the stack on long texts under sanitizers.
inline bool some_line_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (std::regex_match(text.begin() + static_cast<long>(start), text.begin() + static_cast<long>(end), re)) return true;
    start = end + 1;
  }
  return false;
}

// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The whitespace-separated words of `line` (a table row's cells).
inline std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace topsim::test
