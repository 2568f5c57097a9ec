// `topsim topo models`: the built-in node models.
#include <fmt/format.h>
#include <ostream>

#include "cli/command_table.h"
#include "core/builtin_models.h"

namespace topsim::cli {
namespace {

class TopoModels : public Command {
 public:
  void declare(OptionSet&) override {}

  Outcome execute(Streams io) override {
    const std::vector<BuiltinModelInfo> models = builtin_models();
    size_t width = 4;
    for (const BuiltinModelInfo& info : models) width = std::max(width, info.name.size());
    io.out << fmt::format("{:<{}}  {:>4}  {}\n", "NAME", width, "GPUS", "SUMMARY");
    for (const BuiltinModelInfo& info : models) {
      const size_t gpus = builtin_model(info.name)->gpus.size();
      io.out << fmt::format("{:<{}}  {:>4}  {}\n", info.name, width, gpus, info.summary);
    }
    return Outcome::ok();
  }
};

const Registrar registered{{
    "topo models",
    "list the built-in node models",
    "",
    "Any command taking <model|file> accepts these names.",
    [] { return std::make_unique<TopoModels>(); },
}};

}  // namespace
}  // namespace topsim::cli
