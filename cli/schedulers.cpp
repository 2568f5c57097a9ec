// `topsim schedulers [--json]`: every scheduler a scenario can name, what it places and how.
#include <ostream>

#include "cli/command_table.h"
#include "reports/scheduler_list.h"

namespace topsim::cli {
namespace {

class Schedulers : public Command {
 public:
  void declare(OptionSet& options) override {
    options.visible.add_options()("json", po::bool_switch(&json_), "print the list as JSON");
  }

  Outcome execute(Streams io) override {
    io.out << (json_ ? render_scheduler_json() : render_scheduler_table());
    return Outcome::ok();
  }

 private:
  bool json_ = false;
};

const Registrar registered{{
    "schedulers",
    "list the schedulers a scenario can compare",
    "[--json]",
    "PLACES says which jobs each one places: whole-GPU gangs (all pods or none), whole-GPU pods\n"
    "(one at a time, a job may be partially placed), GPU shares (gpu-mem GiB, gpu-core percent)\n"
    "and trace pods (gpu_milli shares with CPU and memory, on a trace's node list). NODES is the\n"
    "ack.node.gpu.schedule label of the nodes its training jobs use. Shares a scheduler does not\n"
    "place go to the scenario's share_policy. Adding one: docs/schedulers.md.",
    [] { return std::make_unique<Schedulers>(); },
}};

}  // namespace
}  // namespace topsim::cli
