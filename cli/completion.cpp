// `topsim completion bash|zsh` and `topsim man`: the shell completion and the manual page,
// generated from the command table (cli/command_docs.h); the build installs their output.
#include <ostream>

#include "cli/command_docs.h"
#include "cli/command_table.h"

namespace topsim::cli {
namespace {

class Completion : public Command {
 public:
  void declare(OptionSet& options) override { options.argument("shell", &shell_); }

  Status finish(const po::variables_map&) override {
    if (shell_ != "bash" && shell_ != "zsh") return Error{"give the shell: bash or zsh, got '" + shell_ + "'"};
    return {};
  }

  Outcome execute(Streams io) override {
    io.out << (shell_ == "bash" ? render_bash_completion() : render_zsh_completion());
    return Outcome::ok();
  }

 private:
  std::string shell_;
};

class ManPage : public Command {
 public:
  void declare(OptionSet&) override {}
  Outcome execute(Streams io) override {
    io.out << render_man_page();
    return Outcome::ok();
  }
};

const Registrar completion_registered{{
    "completion",
    "print the shell completion script for bash or zsh",
    "bash|zsh",
    "Generated from the command table: commands, subcommands, options, and file names for\n"
    "arguments. `cmake --install` installs both; by hand:\n"
    "  source <(topsim completion bash)\n"
    "  topsim completion zsh > \"${fpath[1]}/_topsim\"",
    [] { return std::make_unique<Completion>(); },
}};

const Registrar man_registered{{
    "man",
    "print the manual page, topsim(1), in roff",
    "",
    "The same texts as every command's --help. `cmake --install` installs it; by hand:\n"
    "  topsim man | man -l -",
    [] { return std::make_unique<ManPage>(); },
}};

}  // namespace
}  // namespace topsim::cli
