// `topsim topo import <file> -o node.json`: nvidia-smi text or NCCL XML to node JSON.
#include <fmt/format.h>
#include <ostream>
#include <set>

#include "cli/command_table.h"
#include "cli/node_options.h"
#include "cli/output_file.h"
#include "core/topology.h"
#include "formats/hardware/node_json.h"
#include "util/text.h"

namespace topsim::cli {
namespace {

// "NV1/NV2": the NVLink bond sizes the importer saw.
std::string nvlink_codes(const NodeModel& m) {
  std::set<int> counts;
  for (const NvLinkBond& bond : m.nvlinks) counts.insert(bond.count);
  for (const Gpu& gpu : m.gpus)
    if (gpu.nvswitch_links > 0) counts.insert(gpu.nvswitch_links);
  std::string out;
  for (int count : counts) out += (out.empty() ? "NV" : "/NV") + std::to_string(count);
  return out;
}

// "v100, inferred from NV1/NV2 links": the GPU models and where they came from.
std::string gpu_models(const NodeModel& m, const NodeSourceInfo& info, const NodeLoadOptions& options) {
  std::vector<std::string> models;
  for (const Gpu& gpu : m.gpus)
    if (std::find(models.begin(), models.end(), gpu.model) == models.end()) models.push_back(gpu.model);
  std::string out = fmt::format("{}", fmt::join(models, "+"));
  if (info.kind == NodeSourceKind::TopoM)
    out += options.topo_m.gpu_model.empty() ? ", inferred from " + nvlink_codes(m) + " links" : ", from --gpu-model";
  if (info.kind == NodeSourceKind::NcclXml)
    out += info.fabric.empty()    ? ", from the XML"
           : info.fabric_inferred ? ", fabric inferred as " + info.fabric
                                  : ", fabric from --fabric " + info.fabric;
  return out;
}

class TopoImport : public Command {
 public:
  void declare(OptionSet& options) override {
    node_.declare(options);
    options.visible.add_options()("output,o", po::value(&output_)->required()->value_name("PATH"),
                                  "node JSON file to write ('-' for stdout); required");
  }
  Status finish(const po::variables_map& values) override { return node_.finish(values); }

  Outcome execute(Streams io) override {
    // Where the node goes is checked first, so a refusal is the only line (no import notes).
    if (Status s = check_output_path(output_); !s) return Outcome::bad_input(s.error().message);
    NodeSourceInfo info;
    Expected<NodeModel> model = node_.load(io.notes, &info);
    if (!model) return Outcome::bad_input(model.error().message);
    if (Expected<Topology> topology = Topology::build(*model); !topology)
      return Outcome::bad_input(node_.spec() + ": " + topology.error().message);
    if (Status s = write_output(output_, node_to_json(*model), io.out); !s) return Outcome::bad_input(s.error().message);
    const NodeModel& m = *model;
    (output_ == "-" ? io.err : io.out) << fmt::format(
        "imported {} ({}), {}, {} -> {}\n", counted(static_cast<long long>(m.gpus.size()), "GPU"),
        gpu_models(m, info, node_.load_options()), counted(static_cast<long long>(m.numa_nodes.size()), "NUMA node"),
        counted(static_cast<long long>(m.nics.size()), "NIC"), output_ == "-" ? "stdout" : output_);
    if (m.nics.empty())
      io.notes << "topsim: warning: " << node_.spec()
               << " lists no NIC: nodes of this model cannot take multi-node jobs (their pods have no network path "
                  "to other nodes); add the NICs to the node JSON (docs/node-format.md)\n";
    return Outcome::ok();
  }

 private:
  NodeArgument node_{NodeArgument::Options::Import};
  std::string output_;
};

const Registrar registered{{
    "topo import",
    "import 'nvidia-smi topo -m' text or NCCL topology XML into a node JSON file",
    "<file> -o <node.json> [options]",
    "The format is chosen by extension: .xml is NCCL topology XML (NCCL_TOPO_DUMP_FILE, or a hint\n"
    "file such as AWS and Azure ship, completed with --fabric, --cpu and --nic-speed), anything\n"
    "else 'nvidia-smi topo -m' text. A built-in model name or a node JSON file is accepted too\n"
    "(to start a hand-edited copy). What the importer inferred or assumed is printed on stderr;\n"
    "the format written is described in docs/node-format.md.",
    [] { return std::make_unique<TopoImport>(); },
}};

}  // namespace
}  // namespace topsim::cli
