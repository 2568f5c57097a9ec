// The shell completion and the manual page are generated from the command table: every command
// and every option its --help lists completes in bash and appears in zsh's function and in
// topsim(1).
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "tests/test_support.h"

using topsim::test::CliResult;
using topsim::test::run_cli;
using topsim::test::run_shell;
using topsim::test::TempDir;

namespace {

// The command names `topsim help` lists ("run", "topo show", ...).
std::vector<std::string> listed_commands() {
  const CliResult r = run_cli("help");
  std::vector<std::string> names;
  std::istringstream in(r.out);
  const std::regex line("^  ([a-z][a-z-]*( [a-z][a-z-]*)?)  .*");
  std::smatch m;
  for (std::string text; std::getline(in, text);)
    if (std::regex_match(text, m, line)) names.push_back(m[1]);
  return names;
}

// The long options `topsim <command> --help` lists: one per option line, "  --name ..." or
// "  -n [ --name ] ..." (a description may name other programs' options, which are not ours).
std::set<std::string> help_options(const std::string& command) {
  const CliResult r = run_cli(command + " --help");
  std::set<std::string> options;
  const std::regex option_line("^  (?:-[A-Za-z0-9] \\[ )?(--[a-z][a-z0-9-]*).*");
  std::istringstream in(r.out.substr(r.out.find("\nOptions:")));
  std::smatch m;
  for (std::string text; std::getline(in, text);)
    if (std::regex_match(text, m, option_line)) options.insert(m[1]);
  return options;
}

// What bash's completion offers for the command line `words` (the last one being completed), run
// in `dir`.
std::set<std::string> bash_complete(const std::string& words, const std::string& dir = ".") {
  const TempDir scripts;
  std::ofstream(scripts.file("complete.sh")) << "cd '" << dir << "' || exit 1\n"
                                             << "source <('" << TOPSIM_CLI_PATH << "' completion bash)\n"
                                             << "COMP_WORDS=(" << words << ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                                             << "_topsim\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
  const CliResult r = run_shell("bash '" + scripts.file("complete.sh") + "'");
  std::set<std::string> offered;
  std::istringstream in(r.out);
  for (std::string text; std::getline(in, text);)
    if (!text.empty()) offered.insert(text);
  return offered;
}

}  // namespace

TEST_CASE("cli::completion bash offers every command and every option its --help lists", "[cli][docs]") {
  const auto commands = listed_commands();
  REQUIRE(commands.size() > 15);
  SECTION("command names, then a group's subcommands") {
    // Every first word of a command, and nothing else but the global options.
    std::set<std::string> first_words = {"--help", "--version"};
    for (const std::string& name : commands) first_words.insert(name.substr(0, name.find(' ')));
    CHECK(bash_complete("topsim ''") == first_words);
    CHECK(bash_complete("topsim ru") == std::set<std::string>{"run"});
    std::set<std::string> topo;
    for (const std::string& name : commands)
      if (name.rfind("topo ", 0) == 0) topo.insert(name.substr(5));
    CHECK(bash_complete("topsim topo ''") == topo);
    CHECK(bash_complete("topsim help to") == std::set<std::string>{"topo"});
    CHECK(bash_complete("topsim help topo s") == std::set<std::string>{"show"});
  }
  SECTION("each command's options, as its --help lists them") {
    for (const std::string& name : commands) {
      INFO(name);
      std::set<std::string> offered;
      for (const std::string& word : bash_complete("topsim " + name + " --"))
        if (word.rfind("--", 0) == 0) offered.insert(word);
      CHECK(offered == help_options(name));
    }
  }
  SECTION("file names for arguments and option values") {
    TempDir dir;
    std::ofstream(dir.file("scenario.json")) << "{}";
    CHECK(bash_complete("topsim run sc", dir.path.string()) == std::set<std::string>{"scenario.json"});
    CHECK(bash_complete("topsim run -o sc", dir.path.string()) == std::set<std::string>{"scenario.json"});
    CHECK(bash_complete("topsim run --summary-only sc", dir.path.string()) == std::set<std::string>{"scenario.json"});
  }
}

TEST_CASE("cli::completion zsh and the man page name every command and option", "[cli][docs]") {
  const CliResult zsh = run_cli("completion zsh");
  const CliResult man = run_cli("man");
  REQUIRE(zsh.exit_code == 0);
  REQUIRE(man.exit_code == 0);
  CHECK(zsh.out.rfind("#compdef topsim\n", 0) == 0);
  CHECK(man.out.rfind(".TH TOPSIM 1 ", 0) == 0);
  for (const std::string& name : listed_commands()) {
    INFO(name);
    CHECK(zsh.out.find("    '" + name + "')\n      _arguments") != std::string::npos);
    CHECK(man.out.find(".SS \"" + name + "\"\n") != std::string::npos);
    for (const std::string& option : help_options(name)) {
      INFO(option);
      CHECK((zsh.out.find("'" + option + "[") != std::string::npos || zsh.out.find("," + option + "}'[") != std::string::npos));
      CHECK(man.out.find(std::regex_replace(option, std::regex("-"), "\\-")) != std::string::npos);
    }
  }
  SECTION("zsh reads the function when it is installed") {
    if (run_shell("command -v zsh").exit_code != 0) {
      WARN("zsh is not installed: its syntax check is skipped");
      return;
    }
    TempDir dir;
    std::ofstream(dir.file("_topsim")) << zsh.out;
    CHECK(run_shell("zsh -n '" + dir.file("_topsim") + "'").exit_code == 0);
  }
  SECTION("a shell that is neither is refused") {
    topsim::test::check_bad_input(run_cli("completion fish"), "give the shell: bash or zsh, got 'fish'");
  }
}
