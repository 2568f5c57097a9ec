// Files as users have them (tests/real_files, each cited in its README): every one imports with
// what the case table says, or is refused with one true line naming it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/test_support.h"

using namespace topsim::test;

namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(TOPSIM_SOURCE_DIR) / "tests" / "real_files";

// One row of cases.txt: FILE | ARGS | EXIT | EXPECTED | EXPECTED ...
struct RealFileCase {
  std::string file;
  std::string args;  // topsim's arguments; {f} is the file
  int exit_code = 0;
  std::vector<std::string> expected;  // substrings of stdout + stderr
  int line = 0;
};

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

std::vector<RealFileCase> cases() {
  std::vector<RealFileCase> out;
  std::ifstream in(kDir / "cases.txt");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    for (size_t start = 0;;) {
      const size_t bar = line.find(" | ", start);
      fields.push_back(trim(line.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
      if (bar == std::string::npos) break;
      start = bar + 3;
    }
    REQUIRE(fields.size() >= 4);
    RealFileCase c{fields[0], fields[1], std::stoi(fields[2]), {fields.begin() + 3, fields.end()}, number};
    out.push_back(std::move(c));
  }
  return out;
}

std::string with_file(std::string args, const std::string& file) {
  for (size_t at; (at = args.find("{f}")) != std::string::npos;) args.replace(at, 3, file);
  return args;
}

}  // namespace

TEST_CASE("cli: real files import or are refused with one true line", "[cli][real-files]") {
  const std::vector<RealFileCase> table = cases();
  REQUIRE(table.size() >= 50);
  for (const RealFileCase& c : table) {
    DYNAMIC_SECTION(c.file << " (cases.txt:" << c.line << ")") {
      // REQUIRES a file that exists, read from tests/real_files so messages name it as given.
      REQUIRE(fs::exists(kDir / c.file));
      const CliResult r = run_shell("cd '" + kDir.string() + "' && " + TOPSIM_CLI_PATH + " " + with_file(c.args, c.file));
      INFO("stdout: " << r.out << "\nstderr: " << r.err);
      CHECK(r.exit_code == c.exit_code);
      if (c.exit_code == 2) {
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK_THAT(r.err, Catch::StartsWith("topsim: error: "));
      }
      for (const std::string& expected : c.expected) CHECK_THAT(r.out + r.err, Catch::Contains(expected));
    }
  }
}

TEST_CASE("cli: every real file has a case and a cited source", "[cli][real-files]") {
  std::set<std::string> with_case;
  for (const RealFileCase& c : cases()) with_case.insert(c.file);
  std::ifstream readme_in(kDir / "README.md");
  std::stringstream readme;
  readme << readme_in.rdbuf();
  std::set<std::string> sources;
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kDir)) {
    if (!entry.is_regular_file() || entry.path().parent_path() == kDir) continue;
    const std::string name = fs::relative(entry.path(), kDir).string();
    ++files;
    INFO(name);
    CHECK(with_case.count(name) == 1);
    // The README's table row for the file: | `name` | source repository or URL | ... |
    const size_t row = readme.str().find("| `" + name + "` | ");
    REQUIRE(row != std::string::npos);
    const size_t start = row + name.size() + 6;
    sources.insert(readme.str().substr(start, readme.str().find(" |", start) - start));
  }
  CHECK(files >= 50);
  CHECK(sources.size() >= 15);
}
