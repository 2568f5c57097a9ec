// `topsim topo show <model|file>`: the link matrix, P2P bandwidths and NIC affinity of a node.
#include <ostream>

#include "cli/command_table.h"
#include "cli/node_options.h"
#include "core/topology.h"
#include "reports/topology_report.h"

namespace topsim::cli {
namespace {

class TopoShow : public Command {
 public:
  void declare(OptionSet& options) override {
    node_.declare(options);
    options.visible.add_options()("json", po::bool_switch(&json_), "print the report as JSON");
  }
  Status finish(const po::variables_map& values) override { return node_.finish(values); }

  Outcome execute(Streams io) override {
    Expected<NodeModel> model = node_.load(io.notes);
    if (!model) return Outcome::bad_input(model.error().message);
    Expected<Topology> topology = Topology::build(std::move(*model));
    if (!topology) return Outcome::bad_input(node_.spec() + ": " + topology.error().message);
    io.out << (json_ ? render_topology_json(*topology) : render_topology(*topology));
    return Outcome::ok();
  }

 private:
  NodeArgument node_;
  bool json_ = false;
};

const Registrar registered{{
    "topo show",
    "show a node's link matrix (nvidia-smi codes), P2P bandwidths and NIC affinity",
    "<model|file> [options]",
    "<model|file> is a built-in model (see 'topsim topo models'), a node JSON file (.json),\n"
    "an NCCL topology XML file (.xml) or the output of 'nvidia-smi topo -m' (any other file).",
    [] { return std::make_unique<TopoShow>(); },
}};

}  // namespace
}  // namespace topsim::cli
