// What is made of the command table for a shell and for `man`: bash and zsh completion and the
// manual page, each generated from the commands' names, usage lines, help texts and options
// (cli/command_table.h), so none can drift from what `topsim <command> --help` says. The build
// writes them with `topsim completion bash|zsh` and `topsim man`, and `cmake --install` puts
// them where bash-completion, zsh and man look (README.md, "Installing").
#pragma once

#include <string>

namespace topsim::cli {

// A bash completion script (`complete -F _topsim topsim`): command names, then a command's
// subcommands, long and short options, and file names for arguments and option values.
std::string render_bash_completion();
// A zsh completion function (`#compdef topsim`) with each command's and option's one-line help.
std::string render_zsh_completion();
// topsim(1) in man(7) roff: name, synopsis, every command with its usage, help and options, exit
// status. No date in it: the same binary writes the same page.
std::string render_man_page();

}  // namespace topsim::cli
