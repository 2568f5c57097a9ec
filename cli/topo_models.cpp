// `topsim topo models [--json]`: the built-in node models (reports/model_list.h).
#include <ostream>

#include "cli/command_table.h"
#include "reports/model_list.h"

namespace topsim::cli {
namespace {

class TopoModels : public Command {
 public:
  void declare(OptionSet& options) override {
    options.visible.add_options()(
        "json", po::bool_switch(&json_),
        "print JSON for scripts: every model's GPUs, GPU models and memory, NUMA nodes, NVLink kind, NICs");
  }

  Outcome execute(Streams io) override {
    io.out << (json_ ? render_model_json() : render_model_table());
    return Outcome::ok();
  }

 private:
  bool json_ = false;
};

const Registrar registered{{
    "topo models",
    "list the built-in node models",
    "[--json]",
    "Any command taking <model|file> accepts these names.",
    [] { return std::make_unique<TopoModels>(); },
}};

}  // namespace
}  // namespace topsim::cli
