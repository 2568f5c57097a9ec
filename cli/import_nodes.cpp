// `topsim import nodes FILE -o cluster.json [--map PRODUCT=MODEL]...`: a Kubernetes cluster's
// GPU nodes (`kubectl get nodes -o json`) as a scenario cluster (formats/hardware/kube_nodes.h).
#include <fmt/format.h>

#include <map>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "formats/hardware/kube_nodes.h"
#include "formats/hardware/node_source.h"
#include "scenario/other_inputs.h"
#include "util/input_file.h"
#include "util/text.h"

namespace topsim::cli {
namespace {

class ImportNodes : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("file", &input_);
    options.visible.add_options()("output,o", po::value(&output_)->value_name("PATH"),
                                  "the cluster JSON to write ('-' for stdout); required")(
        "map", po::value(&maps_)->composing(),
        "PRODUCT=MODEL: the node model (built-in name or node file) for a GPU product label (repeatable)")(
        "network", po::value(&network_)->value_name("ib|roce|tcp"),
        "the transport between nodes (default: ib when every GPU node shows an RDMA device - rdma/*, nvidia.com/hostdev "
        "or a Mellanox NIC label - else tcp)")(
        "topology-labels", po::value(&topology_labels_)->value_name("A,B,..."),
        "node labels that name fabric levels, top level first, beyond those read anyway (AWS network-node-layer-N, GKE "
        "gce-topology-*, Topograph, nvidia.com/gpu.clique; docs/fabric.md)");
  }

  Status finish(const po::variables_map& values) override {
    if (values.count("topology-labels") && split_list(topology_labels_).empty())
      return Error{"--topology-labels: give node label names separated by commas"};
    if (values.count("network") && network_ != "ib" && network_ != "roce" && network_ != "tcp")
      return Error{"--network: '" + network_ + "' is not one of ib, roce, tcp"};
    if (input_.empty()) return Error{"give the output of `kubectl get nodes -o json` or `-o yaml` (a file)"};
    if (output_.empty()) return Error{"-o PATH is required: the cluster JSON to write"};
    for (const std::string& m : maps_) {
      const size_t eq = m.rfind('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == m.size()) return Error{"--map '" + m + "': expected PRODUCT=MODEL"};
      mapping_[m.substr(0, eq)] = m.substr(eq + 1);
    }
    return {};
  }

  Outcome execute(Streams io) override {
    if (Status s = check_output_path(output_); !s) return Outcome::bad_input(s.error().message);
    auto text = read_text_file(input_);
    if (!text) return Outcome::bad_input(other_input(input_, Wanted::KubeNodeList).value_or(text.error().message));
    auto imported = parse_kube_nodes(*text, input_, mapping_, split_list(topology_labels_), network_);
    if (!imported) return Outcome::bad_input(other_input(input_, Wanted::KubeNodeList).value_or(imported.error().message));
    for (const auto& [product, model] : mapping_)
      if (auto node = load_node(model); !node)
        return Outcome::bad_input("--map '" + product + "=" + model + "': " + node.error().message);
    if (Status s = write_output(output_, kube_cluster_json(*imported), io.out); !s) return Outcome::bad_input(s.error().message);
    std::ostream& note = output_ == "-" ? io.err : io.out;
    for (const KubeNodeGroup& g : imported->groups)
      note << fmt::format("{} x {} ({} x {}{}{}) -> {}\n", g.count, g.model, g.gpus, g.product,
                          g.label.empty() ? "" : ", " + g.label,
                          g.host_memory_gib > 0 ? fmt::format(", {:.1f} GiB host memory", g.host_memory_gib) : "",
                          output_ == "-" ? "stdout" : output_);
    note << "network: " << imported->transport << " (" << imported->transport_reason << ")\n";
    for (const std::string& line : imported->notes) note << "note: " << line << "\n";
    if (!imported->skipped.empty())
      note << fmt::format("skipped {} without GPUs: {}{}\n", counted(static_cast<long long>(imported->skipped.size()), "node"),
                          imported->skipped.front(), imported->skipped.size() > 1 ? ", ..." : "");
    return Outcome::ok();
  }

 private:
  std::string input_, output_, topology_labels_, network_;
  std::vector<std::string> maps_;
  std::map<std::string, std::string> mapping_;
};

const Registrar registered{{
    "import nodes",
    "turn `kubectl get nodes -o json` (or -o yaml) into a scenario cluster",
    "<nodes.json> -o <cluster.json> [--map PRODUCT=MODEL]...",
    "Reads `kubectl get nodes -o json` or `-o yaml` output, or a YAML stream of Node documents.\n"
    "Groups the GPU nodes by GPU product (label nvidia.com/gpu.product, set by GPU feature\n"
    "discovery, else alibabacloud.com/gpu-card-model), GPUs per node (allocatable nvidia.com/gpu,\n"
    "aliyun.com/gpu-count or alibabacloud.com/gpu-count, else the label nvidia.com/gpu.count) and\n"
    "scheduling label (ack.node.gpu.schedule, kept), and host memory (allocatable memory, nodes\n"
    "more than 5% apart in separate groups), maps each group to the built-in model with that GPU\n"
    "and count (`topsim topo models`), and writes {\"nodes\": [{\"model\", \"count\", \"label\",\n"
    "\"names\", \"host_memory_gib\"}]}: a scenario's cluster, given inline or as \"cluster\":\n"
    "\"cluster.json\" (the smallest node's host memory per group). Nodes without GPUs are skipped\n"
    "(and named). A product no built-in model matches is an error listing every such product:\n"
    "map it with --map 'PRODUCT=MODEL' (a built-in model or a node file).\n"
    "Formats: docs/importers.md.",
    [] { return std::make_unique<ImportNodes>(); },
}};

}  // namespace
}  // namespace topsim::cli
