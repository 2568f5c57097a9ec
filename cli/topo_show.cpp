// `topsim topo show <model|file>`: the link matrix, P2P bandwidths and NIC affinity of a node;
// with --scenario or --cluster, the drawing of a cluster's fabric (reports/fabric_report.h).
#include <ostream>

#include "cli/command_table.h"
#include "cli/node_options.h"
#include "core/topology.h"
#include "formats/support/file_kind.h"
#include "reports/fabric_report.h"
#include "reports/topology_report.h"
#include "scenario/scenario_loader.h"
#include "sim/cluster.h"
#include "util/text.h"

namespace topsim::cli {
namespace {

class TopoShow : public Command {
 public:
  void declare(OptionSet& options) override {
    node_.declare(options);
    options.visible.add_options()("json", po::bool_switch(&json_), "print the report as JSON");
    options.visible.add_options()("scenario", po::value(&scenario_)->value_name("FILE"),
                                  "instead of a node: draw the fabric of this scenario's cluster")(
        "cluster", po::value(&cluster_)->value_name("FILE"),
        "instead of a node: draw the fabric of this cluster (`kubectl get nodes -o json` too)")(
        "topology-labels", po::value(&topology_labels_)->value_name("A,B,..."),
        "with --cluster from kubectl: node labels that name fabric levels, top level first")(
        "network", po::value(&network_)->value_name("T"), "with --cluster from kubectl: the transport, ib, roce or tcp");
  }
  Status finish(const po::variables_map& values) override {
    if (values.count("topology-labels") && cluster_.empty()) return Error{"--topology-labels goes with --cluster"};
    if (values.count("network") && cluster_.empty()) return Error{"--network goes with --cluster"};
    if (scenario_.empty() && cluster_.empty()) return node_.finish(values);
    if (!scenario_.empty() && !cluster_.empty()) return Error{"give --scenario or --cluster, not both"};
    if (values.count("node")) return Error{"give a node <model|file> or --scenario/--cluster, not both"};
    if (json_) return Error{"--json applies to a node; a fabric's data is in results.json (\"fabric_view\")"};
    if (values.count("topology-labels") && split_list(topology_labels_).empty())
      return Error{"--topology-labels: give node label names separated by commas"};
    return {};
  }

  Outcome execute(Streams io) override {
    if (!scenario_.empty()) return show_fabric(io, load_scenario(scenario_));
    if (!cluster_.empty()) return show_fabric(io, load_cluster_only(cluster_, {split_list(topology_labels_), network_, 0}));
    Expected<NodeModel> model = node_.load(io.notes);
    if (!model) {
      // A scenario, cluster file or kubectl node list given where a node goes: its fabric is
      // what is asked for (the node reader's error would be about keys a node does not have).
      const std::optional<FileKindFound> found = file_kind(node_.spec());
      const bool cluster = found && (found->kind == FileKind::Cluster || found->kind == FileKind::KubeNodes);
      if (found && (found->kind == FileKind::Scenario || cluster)) {
        if (json_)
          return Outcome::bad_input(node_.spec() + ": a " + (cluster ? "cluster" : "scenario") +
                                    ", not a node: --json applies to a node; a fabric's data is in results.json "
                                    "(\"fabric_view\")");
        return show_fabric(io, cluster ? load_cluster_only(node_.spec()) : load_scenario(node_.spec()));
      }
      return Outcome::bad_input(model.error().message);
    }
    Expected<Topology> topology = Topology::build(std::move(*model));
    if (!topology) return Outcome::bad_input(node_.spec() + ": " + topology.error().message);
    io.out << (json_ ? render_topology_json(*topology) : render_topology(*topology));
    return Outcome::ok();
  }

 private:
  Outcome show_fabric(Streams io, const Expected<Scenario>& scenario) const {
    if (!scenario) return Outcome::bad_input(scenario.error().message);
    auto cluster = ClusterState::build(scenario->cluster);
    if (!cluster) return Outcome::bad_input(cluster.error().message);
    std::vector<std::string> names;
    for (int n = 0; n < cluster->node_count(); ++n) names.push_back(cluster->node_name(n));
    io.out << render_fabric_text(view_fabric(scenario->cluster, *cluster, scenario->network), names) << "\n"
           << render_node_groups_text(scenario->cluster, names);
    // What loading assumed (the transport and why, a kubectl import's nodes without memory, ...),
    // as `topsim run` and `topsim import nodes` print it.
    if (!scenario->notes.empty()) io.out << "\n";
    for (const std::string& note : scenario->notes) io.out << note << "\n";
    return Outcome::ok();
  }

  NodeArgument node_;
  bool json_ = false;
  std::string scenario_, cluster_, topology_labels_, network_;
};

const Registrar registered{{
    "topo show",
    "show a node's link matrix (nvidia-smi codes), P2P bandwidths and NIC affinity, or a cluster's fabric",
    "<model|file> [options] | --scenario FILE | --cluster FILE",
    "<model|file> is a built-in model (see 'topsim topo models'), a node JSON file (.json),\n"
    "an NCCL topology XML file (.xml) or the output of 'nvidia-smi topo -m' (any other file).\n"
    "--scenario / --cluster draw a cluster's fabric instead: its levels top first (groups, what each\n"
    "holds, oversubscription, uplink capacity), rails, NVLink domains, measured node pairs and the\n"
    "tree of groups down to their nodes (docs/fabric.md), then the node groups (model, GPUs, label,\n"
    "host memory, names). A scenario, cluster file or kubectl node list given as the file is drawn\n"
    "the same way.",
    [] { return std::make_unique<TopoShow>(); },
}};

}  // namespace
}  // namespace topsim::cli
