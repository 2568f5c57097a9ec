#include "cli/command_table.h"

#include <algorithm>
#include <exception>
#include <new>
#include <ostream>
#include <sstream>

#include "util/one_line.h"
#include "util/suggest.h"

#ifndef TOPSIM_VERSION
#error "TOPSIM_VERSION must be defined by the build (cli/CMakeLists.txt)"
#endif

namespace topsim::cli {
namespace {

std::vector<CommandSpec>& table() {
  static std::vector<CommandSpec> specs;  // filled by Registrar objects before main()
  return specs;
}

std::vector<std::string> split_words(std::string_view name) {
  std::vector<std::string> words;
  std::istringstream in{std::string(name)};
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const CommandSpec* spec : commands()) names.push_back(spec->name);
  return names;
}

// The command whose name matches the most leading words of `args`; sets `words` to its length.
const CommandSpec* match_command(const std::vector<std::string>& args, size_t& words) {
  const CommandSpec* best = nullptr;
  words = 0;
  for (const CommandSpec* spec : commands()) {
    const std::vector<std::string> name = split_words(spec->name);
    if (name.size() > words && name.size() <= args.size() && std::equal(name.begin(), name.end(), args.begin())) {
      best = spec;
      words = name.size();
    }
  }
  return best;
}

bool is_help_flag(const std::string& arg) { return arg == "--help" || arg == "-h"; }

// "<message>; see 'topsim topo show --help'" (no ';' after a question).
std::string with_help_hint(const std::string& message, const CommandSpec& spec) {
  const bool question = !message.empty() && message.back() == '?';
  return message + (question ? " " : "; ") + "see 'topsim " + spec.name + " --help'";
}

// Boost's message for a bad option, with a suggestion for a mistyped one.
std::string option_error(const po::error& e, const OptionSet& options) {
  std::string message = e.what();
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&e)) {
    std::vector<std::string> names{"--help"};
    for (const auto& option : options.visible.options()) names.push_back("--" + option->long_name());
    message += did_you_mean(unknown->get_option_name(), names);
  }
  return message;
}

constexpr auto kStyle = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

// Parses `args` into `command`. Returns false with `outcome` set when parsing ended the run
// (an error, or --help printed).
bool parse_into(Command& command, const CommandSpec& spec, const std::vector<std::string>& args, Streams io, Outcome& outcome) {
  OptionSet options;
  options.visible.add_options()("help,h", "print this help");
  command.declare(options);
  po::options_description all;
  all.add(options.visible).add(options.hidden);
  po::variables_map values;
  try {
    po::store(po::command_line_parser(args).options(all).positional(options.positional).style(kStyle).run(), values);
    if (values.count("help")) {
      io.out << command_help(spec);
      outcome = Outcome::ok();
      return false;
    }
    po::notify(values);
  } catch (const po::error& e) {
    outcome = Outcome::bad_input(with_help_hint(spec.name + ": " + option_error(e, options), spec));
    return false;
  }
  if (Status s = command.finish(values); !s) {
    outcome = Outcome::bad_input(with_help_hint(spec.name + ": " + s.error().message, spec));
    return false;
  }
  return true;
}

Outcome run_command(const CommandSpec& spec, const std::vector<std::string>& args, Streams io) {
  std::unique_ptr<Command> command = spec.make();
  Outcome outcome;
  if (!parse_into(*command, spec, args, io, outcome)) return outcome;
  return command->execute(io);
}

// `topsim topo` alone, or `topsim topo --help`: the group's commands.
Outcome group_without_subcommand(const std::vector<std::string>& args, Streams io) {
  if (args.size() > 1 && is_help_flag(args[1])) {
    io.out << command_list(args[0]);
    return Outcome::ok();
  }
  std::vector<std::string> subcommands;
  for (const CommandSpec* spec : commands())
    if (spec->name.rfind(args[0] + " ", 0) == 0) subcommands.push_back(spec->name.substr(args[0].size() + 1));
  return Outcome::bad_input("'" + args[0] + "' needs a subcommand: " + join_names(subcommands) + "; see 'topsim " + args[0] +
                            " --help'");
}

Outcome dispatch(const std::vector<std::string>& args, Streams io) {
  if (args.empty()) return Outcome::bad_input("no command given; run 'topsim help' for the list of commands");
  if (args[0] == "--version") {
    io.out << "topsim " TOPSIM_VERSION "\n";
    return Outcome::ok();
  }
  if (is_help_flag(args[0])) {
    std::vector<std::string> help_args = args;
    help_args[0] = "help";
    return dispatch(help_args, io);
  }
  if (args[0].rfind("-", 0) == 0)
    return Outcome::bad_input("unknown option '" + args[0] + "' before the command; see 'topsim help'");
  size_t words = 0;
  if (const CommandSpec* spec = match_command(args, words))
    return run_command(*spec, std::vector<std::string>(args.begin() + static_cast<long>(words), args.end()), io);
  const bool group = is_command_group(args[0]);
  if (group && (args.size() == 1 || args[1].rfind("-", 0) == 0)) return group_without_subcommand(args, io);
  return Outcome::bad_input(unknown_command_message(group ? args[0] + " " + args[1] : args[0]));
}

}  // namespace

Status Command::finish(const po::variables_map&) { return {}; }

Registrar::Registrar(CommandSpec spec) { table().push_back(std::move(spec)); }

std::vector<const CommandSpec*> commands() {
  std::vector<const CommandSpec*> out;
  for (const CommandSpec& spec : table()) out.push_back(&spec);
  std::sort(out.begin(), out.end(), [](const CommandSpec* a, const CommandSpec* b) { return a->name < b->name; });
  return out;
}

const CommandSpec* find_command(std::string_view name) {
  for (const CommandSpec* spec : commands())
    if (spec->name == name) return spec;
  return nullptr;
}

bool is_command_group(std::string_view word) {
  const std::string prefix = std::string(word) + " ";
  for (const CommandSpec* spec : commands())
    if (spec->name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string unknown_command_message(std::string_view name) {
  const std::string suggestion = did_you_mean(name, command_names());
  return "unknown command '" + std::string(name) + "'" +
         (suggestion.empty() ? "; run 'topsim help' for the list of commands" : suggestion);
}

std::string command_list(std::string_view group) {
  size_t width = 0;
  for (const CommandSpec* spec : commands()) width = std::max(width, spec->name.size());
  std::string out = "usage: topsim <command> [arguments] [options]\n\nCommands:\n";
  for (const CommandSpec* spec : commands())
    if (group.empty() || spec->name.rfind(std::string(group) + " ", 0) == 0)
      out += "  " + spec->name + std::string(width + 2 - spec->name.size(), ' ') + spec->summary + "\n";
  out += "\n'topsim <command> --help' shows a command's arguments and options.\n";
  if (group.empty())
    out +=
        "Global options: --help (this list), --version (print the version).\n"
        "Exit codes: 0 ok, 1 a check failed or a plan's SLOs are not met, 2 bad input or usage, 3 internal\n"
        "error (a bug: please report it).\n";
  return out;
}

OptionSet command_options(const CommandSpec& spec) {
  std::unique_ptr<Command> command = spec.make();
  OptionSet options;
  options.visible.add_options()("help,h", "print this help");
  command->declare(options);
  return options;
}

std::string command_help(const CommandSpec& spec) {
  const OptionSet options = command_options(spec);
  std::ostringstream out;
  out << "usage: topsim " << spec.name << (spec.usage.empty() ? "" : " " + spec.usage) << "\n\n" << spec.summary << "\n";
  if (!spec.details.empty()) out << "\n" << spec.details << (spec.details.back() == '\n' ? "" : "\n");
  out << "\n" << options.visible;
  return out.str();
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Outcome outcome;
  std::ostringstream notes;
  try {
    outcome = dispatch(args, Streams{out, err, notes});
  } catch (const std::bad_alloc&) {  // an input beyond this machine's memory
    outcome = Outcome::bad_input("out of memory: the input is too large for this machine (docs/limits.md)");
  } catch (const std::exception& e) {  // a bug, not an input problem: still one line, no trace
    outcome = {ExitCode::Internal, std::string("internal error, please report: ") + e.what()};
  }
  out.flush();
  // Messages quote inputs and arguments: one line whatever they hold, quoted values capped
  // (util/one_line.h).
  if (outcome.code == ExitCode::Ok || outcome.code == ExitCode::CheckFailed) err << notes.str();
  const std::string message = one_line(cap_quoted(outcome.message));
  if (outcome.code == ExitCode::CheckFailed)
    err << "topsim: " << outcome.what_failed << ": " << message << "\n";
  else if (outcome.code != ExitCode::Ok)
    err << "topsim: error: " << message << "\n";
  return static_cast<int>(outcome.code);
}

}  // namespace topsim::cli
