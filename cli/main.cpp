// `topsim`: the command table does the work (cli/command_table.h); each subcommand is a file
// in cli/ that registers itself.
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_table.h"

int main(int argc, char** argv) {
  return topsim::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
