// `topsim help [command]`: the list of commands, a group's commands, or one command's help.
#include <ostream>

#include "cli/command_table.h"
#include "util/text.h"

namespace topsim::cli {
namespace {

class HelpCommand : public Command {
 public:
  void declare(OptionSet& options) override { options.argument("command", &words_, -1); }

  Outcome execute(Streams io) override {
    const std::string name = join(words_, " ");
    if (name.empty() || (words_.size() == 1 && is_command_group(name))) {
      io.out << command_list(name);
      return Outcome::ok();
    }
    const CommandSpec* spec = find_command(name);
    if (!spec) return Outcome::bad_input(unknown_command_message(name));
    io.out << command_help(*spec);
    return Outcome::ok();
  }

 private:
  std::vector<std::string> words_;
};

const Registrar registered{{
    "help",
    "list the commands, or show the usage and options of one command",
    "[command]",
    "Examples: 'topsim help', 'topsim help topo', 'topsim help topo show'.",
    [] { return std::make_unique<HelpCommand>(); },
}};

}  // namespace
}  // namespace topsim::cli
