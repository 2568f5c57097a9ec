#include "cli/command_docs.h"

#include <map>
#include <sstream>
#include <vector>

#include "cli/command_table.h"

namespace topsim::cli {
namespace {

// One option as --help lists it.
struct OptionDoc {
  std::string short_name;  // "-o", or ""
  std::string long_name;   // "--output"
  std::string value;       // "DIR" when it takes a value, else ""
  std::string description;
};

std::vector<OptionDoc> option_docs(const CommandSpec& spec) {
  std::vector<OptionDoc> docs;
  const OptionSet options = command_options(spec);
  for (const auto& option : options.visible.options()) {
    OptionDoc doc;
    doc.long_name = "--" + option->long_name();
    const std::string names = option->format_name();  // "-o [ --output ]" or "--summary-only"
    if (names.rfind("--", 0) != 0) doc.short_name = names.substr(0, names.find(' '));
    if (option->semantic()->max_tokens() > 0) {
      doc.value = option->format_parameter();  // "arg", "FILE", "arg (=0)"
      doc.value = doc.value.substr(0, doc.value.find(' '));
      if (doc.value == "arg") doc.value = "VALUE";
    }
    doc.description = option->description();
    docs.push_back(std::move(doc));
  }
  return docs;
}

// The first word of each command name, and the rest for the multi-word ones ("topo" -> "show").
std::map<std::string, std::vector<const CommandSpec*>> commands_by_first_word() {
  std::map<std::string, std::vector<const CommandSpec*>> groups;
  for (const CommandSpec* spec : commands()) groups[spec->name.substr(0, spec->name.find(' '))].push_back(spec);
  return groups;
}

bool is_group(const std::vector<const CommandSpec*>& specs) { return specs.front()->name.find(' ') != std::string::npos; }

std::string subcommand_word(const CommandSpec& spec) { return spec.name.substr(spec.name.find(' ') + 1); }

// Text inside single quotes of a shell script.
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A help line short enough for a completion menu: up to the first "; ", at most 70 characters
// (cut at a word, "..." added), brackets as parentheses.
std::string menu_text(const std::string& text) {
  constexpr size_t kWidth = 70;
  std::string out = text.substr(0, text.find("; "));
  if (out.size() > kWidth) out = out.substr(0, out.rfind(' ', kWidth - 3)) + "...";
  for (char& c : out)
    if (c == '[' || c == ']') c = c == '[' ? '(' : ')';
  return out;
}

// The names a word of the command line can complete to: options, or with `valued` only those that
// take a value.
std::string option_words(const std::vector<OptionDoc>& options, bool valued) {
  std::string words;
  for (const OptionDoc& o : options) {
    if (valued && o.value.empty()) continue;
    words += (words.empty() ? "" : " ") + o.long_name + (o.short_name.empty() ? "" : " " + o.short_name);
  }
  return words;
}

std::string bash_command_cases() {
  std::string out;
  for (const CommandSpec* spec : commands()) {
    const auto options = option_docs(*spec);
    out += "    " + shell_quoted(spec->name) + ") options=" + shell_quoted(option_words(options, false)) +
           "; valued=" + shell_quoted(option_words(options, true)) + " ;;\n";
  }
  return out;
}

// `_topsim_subcommands GROUP`: the words after a group's name ("topo" -> "show import ...").
std::string bash_subcommands_function(const std::map<std::string, std::vector<const CommandSpec*>>& groups) {
  std::string cases;
  for (const auto& [word, specs] : groups) {
    if (!is_group(specs)) continue;
    std::string subcommands;
    for (const CommandSpec* spec : specs) subcommands += (subcommands.empty() ? "" : " ") + subcommand_word(*spec);
    cases += "    " + word + ") echo " + shell_quoted(subcommands) + " ;;\n";
  }
  return "_topsim_subcommands() {\n  case $1 in\n" + cases + "  esac\n}\n";
}

// zsh: an _arguments spec per option.
std::string zsh_option_specs(const std::vector<OptionDoc>& options) {
  std::string out;
  for (const OptionDoc& o : options) {
    const std::string help = "[" + menu_text(o.description) + "]" + (o.value.empty() ? "" : ":" + o.value + ":_files");
    out += " \\\n        ";
    if (o.short_name.empty())
      out += shell_quoted(o.long_name + help);
    else
      out += "'(" + o.short_name + " " + o.long_name + ")'{" + o.short_name + "," + o.long_name + "}" + shell_quoted(help);
  }
  return out;
}

std::string zsh_describe_items(const std::vector<const CommandSpec*>& specs, bool subcommands) {
  std::string out;
  for (const CommandSpec* spec : specs) {
    std::string name = subcommands ? subcommand_word(*spec) : spec->name;
    out += "\n      " + shell_quoted(name + ":" + menu_text(spec->summary));
  }
  return out;
}

// roff: a backslash, and a line starting with '.' or '\'', must not read as requests.
std::string roff_text(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    out += c == '\\' ? std::string("\\e") : std::string(1, c);
    line_start = c == '\n';
  }
  return out;
}

std::string roff_option_name(const std::string& name) {
  std::string out;
  for (const char c : name) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

std::string man_command_section(const CommandSpec& spec) {
  std::string out = ".SS \"" + roff_text(spec.name) + "\"\n.B topsim " + roff_text(spec.name) + "\n";
  if (!spec.usage.empty()) out += roff_text(spec.usage) + "\n";
  out += ".PP\n" + roff_text(spec.summary) + ".\n";
  if (!spec.details.empty()) out += ".PP\n" + roff_text(spec.details) + (spec.details.back() == '\n' ? "" : "\n");
  for (const OptionDoc& o : option_docs(spec)) {
    out += ".TP\n.B " + (o.short_name.empty() ? "" : roff_option_name(o.short_name) + ", ") + roff_option_name(o.long_name);
    out += (o.value.empty() ? "" : " \\fI" + o.value + "\\fR") + std::string("\n") + roff_text(o.description) + "\n";
  }
  return out;
}

}  // namespace

std::string render_bash_completion() {
  const auto groups = commands_by_first_word();
  std::string first_words;
  for (const auto& [word, specs] : groups) first_words += (first_words.empty() ? "" : " ") + word;
  std::ostringstream out;
  out << "# bash completion for topsim, generated by `topsim completion bash` from its command table\n"
         "# (cli/command_docs.h): regenerate it rather than edit it.\n"
      << bash_subcommands_function(groups)
      << "_topsim() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command=${COMP_WORDS[1]}\n"
         "  local commands="
      << shell_quoted(first_words)
      << " words options valued\n"
         "  if (( COMP_CWORD == 1 )); then\n"
         "    mapfile -t COMPREPLY < <(compgen -W \"--help --version $commands\" -- \"$cur\")\n"
         "    return\n"
         "  fi\n"
         "  words=$(_topsim_subcommands \"$command\")\n"
         "  if [[ -n $words ]]; then\n"
         "    if (( COMP_CWORD == 2 )); then\n"
         "      mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
         "      return\n"
         "    fi\n"
         "    command=\"$command ${COMP_WORDS[2]}\"\n"
         "  fi\n"
         "  if [[ $command == help && $cur != -* ]]; then\n"
         "    (( COMP_CWORD == 2 )) && words=$commands || words=$(_topsim_subcommands \"${COMP_WORDS[2]}\")\n"
         "    (( COMP_CWORD <= 3 )) && mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
         "    return\n"
         "  fi\n"
         "  case $command in\n"
      << bash_command_cases()
      << "    *) return ;;\n"
         "  esac\n"
         "  if [[ \" $valued \" == *\" $prev \"* || $cur != -* ]]; then\n"
         "    mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
         "  else\n"
         "    mapfile -t COMPREPLY < <(compgen -W \"$options\" -- \"$cur\")\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _topsim topsim\n";
  return out.str();
}

std::string render_zsh_completion() {
  const auto groups = commands_by_first_word();
  std::string top_level, group_cases, command_cases, group_names;
  for (const auto& [word, specs] : groups) {
    if (!is_group(specs)) {
      top_level += zsh_describe_items(specs, false);
      continue;
    }
    top_level += "\n      " + shell_quoted(word + ":" + word + " commands");
    group_names += (group_names.empty() ? "" : "|") + word;
    group_cases += "          " + word + ") subcommands=(" + zsh_describe_items(specs, true) + "\n          ) ;;\n";
  }
  for (const CommandSpec* spec : commands())
    command_cases += "    " + shell_quoted(spec->name) + ")\n      _arguments -s" + zsh_option_specs(option_docs(*spec)) +
                     " \\\n        '*:file:_files' ;;\n";
  std::ostringstream out;
  out << "#compdef topsim\n"
         "# zsh completion for topsim, generated by `topsim completion zsh` from its command table\n"
         "# (cli/command_docs.h): regenerate it rather than edit it.\n"
         "_topsim() {\n"
         "  local -a commands subcommands\n"
         "  commands=("
      << top_level
      << "\n  )\n"
         "  if (( CURRENT == 2 )); then\n"
         "    _describe -t commands 'topsim command' commands\n"
         "    return\n"
         "  fi\n"
         "  local command=$words[2]\n"
         "  case $command in\n"
         "    "
      << group_names
      << ")\n"
         "      if (( CURRENT == 3 )); then\n"
         "        case $command in\n"
      << group_cases
      << "        esac\n"
         "        _describe -t commands \"topsim $command command\" subcommands\n"
         "        return\n"
         "      fi\n"
         "      command=\"$command $words[3]\"\n"
         "      shift words; (( CURRENT-- )) ;;\n"
         "  esac\n"
         "  shift words; (( CURRENT-- ))\n"
         "  case $command in\n"
      << command_cases
      << "  esac\n"
         "}\n"
         "_topsim \"$@\"\n";
  return out.str();
}

std::string render_man_page() {
  std::string out =
      ".TH TOPSIM 1 \"\" \"topsim " TOPSIM_VERSION
      "\" \"User Commands\"\n"
      ".SH NAME\ntopsim \\- simulate and plan GPU clusters that run distributed deep-learning training on Kubernetes\n"
      ".SH SYNOPSIS\n.B topsim\n.I command\n[arguments] [options]\n.br\n.B topsim\n\\-\\-help | \\-\\-version\n"
      ".SH DESCRIPTION\n"
      "topsim replays job traces against modelled GPU nodes with a discrete-event engine and compares\n"
      "topology-aware scheduling with default Kubernetes scheduling; it sizes clusters against SLOs\n"
      "and gates scheduling quality in CI. Every command takes \\-\\-help; the sections below are\n"
      "the same texts.\n"
      ".SH COMMANDS\n";
  for (const CommandSpec* spec : commands()) out += man_command_section(*spec);
  out +=
      ".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\na check failed, or a plan's SLOs are not met\n.TP\n2\nbad input or usage: one "
      "line on stderr names the file, line or field\n.TP\n3\ninternal error (a bug: please report it)\n"
      ".SH SEE ALSO\nThe README and docs/*.md, installed in share/doc/topsim.\n";
  return out;
}

}  // namespace topsim::cli
