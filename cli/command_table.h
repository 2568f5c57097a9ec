// The table of `topsim` subcommands and the dispatcher that runs them.
//
// Each subcommand lives in its own file and adds itself to the table at static initialisation
// with a `Registrar` (name, one-line help, usage, factory). `run` picks the command whose name
// matches the most leading words ("topo show" before "topo"), creates a fresh command object,
// lets it declare its options, parses the arguments into it (Boost.Program_options), lets it
// check them (`finish`), then executes it. Errors become one line on stderr,
// "topsim: error: ...", and an exit code: 0 ok, 1 a check failed, 2 bad input or usage.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace topsim::cli {

namespace po = boost::program_options;

enum class ExitCode : int { Ok = 0, CheckFailed = 1, BadInput = 2, Internal = 3 };

// What a command's execution reports: success, or one line (without the "topsim: error: "
// prefix) and its exit code.
struct Outcome {
  ExitCode code = ExitCode::Ok;
  std::string message;
  std::string what_failed = "check failed";  // exit 1: "topsim: <what_failed>: <message>"

  static Outcome ok() { return {}; }
  static Outcome bad_input(std::string message) { return {ExitCode::BadInput, std::move(message)}; }
  // An error from the libraries: bad input (exit 2), or a bug (exit 3) when it says so.
  static Outcome failed(const Error& error) {
    if (error.internal) return {ExitCode::Internal, "internal error, please report: " + error.message};
    return bad_input(error.message);
  }
  static Outcome check_failed(std::string message) { return {ExitCode::CheckFailed, std::move(message)}; }
  // Exit 1 for a plan: some growth step has no configuration meeting the SLOs.
  static Outcome slos_not_met(std::string message) { return {ExitCode::CheckFailed, std::move(message), "SLOs not met"}; }
};

// Where a command writes: results to `out` (stdout), progress to `err` (stderr), and notes to
// `notes`, shown on stderr after the command succeeded: a refusal stays one line.
struct Streams {
  std::ostream& out;
  std::ostream& err;
  std::ostream& notes;
};

// The options of one command. `visible` ones are listed by `--help`; positional arguments are
// declared with `argument`, which keeps them out of the option list.
struct OptionSet {
  po::options_description visible{"Options", 100, 50};
  po::options_description hidden;
  po::positional_options_description positional;

  // Binds the positional argument `name` (`max_count` of them, -1 = any) to `target`.
  template <class T>
  void argument(const char* name, T* target, int max_count = 1) {
    hidden.add_options()(name, po::value<T>(target));
    positional.add(name, max_count);
  }
};

// One subcommand invocation: options are bound to its fields by `declare`, checked and
// converted by `finish` after parsing, then `execute` runs it.
class Command {
 public:
  virtual ~Command() = default;
  virtual void declare(OptionSet& options) = 0;
  // An error here is a usage error (exit 2). Default: nothing to check.
  virtual Status finish(const po::variables_map& values);
  virtual Outcome execute(Streams io) = 0;
};

struct CommandSpec {
  std::string name;     // one or more words, e.g. "topo show"
  std::string summary;  // one line, listed by `topsim help`
  std::string usage;    // what follows the name in a usage line, e.g. "<model|file> [options]"
  std::string details;  // more text for `--help`; may be empty
  std::function<std::unique_ptr<Command>()> make;
};

// Adds a command at static initialisation: `const Registrar registered{{"topo show", ...}};`
struct Registrar {
  explicit Registrar(CommandSpec spec);
};

// Every registered command, sorted by name.
std::vector<const CommandSpec*> commands();
// The command named exactly `name`; nullptr if none.
const CommandSpec* find_command(std::string_view name);

// `topsim help`: usage, the commands with their one-line help, global options, exit codes.
// `group` ("topo") restricts the list to that group's commands.
std::string command_list(std::string_view group = "");
// `topsim <command> --help`: usage line, summary, details and options.
std::string command_help(const CommandSpec& spec);
// The options `spec`'s command declares, --help first, as its --help lists them.
OptionSet command_options(const CommandSpec& spec);
// The error for a name that is no command: "unknown command 'x'; did you mean 'y'?"
std::string unknown_command_message(std::string_view name);
// True when some command names start with `word` followed by more words ("topo").
bool is_command_group(std::string_view word);

// Runs `topsim` with the arguments after the program name; returns the exit code.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace topsim::cli
