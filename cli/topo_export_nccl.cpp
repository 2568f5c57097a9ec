// `topsim topo export-nccl <model|file> -o topo.xml`: NCCL topology XML for NCCL_TOPO_FILE.
#include <fmt/format.h>
#include <charconv>
#include <ostream>

#include "cli/command_table.h"
#include "cli/node_options.h"
#include "cli/output_file.h"
#include "core/topology.h"
#include "formats/hardware/nccl_xml.h"
#include "util/text.h"

namespace topsim::cli {
namespace {

class TopoExportNccl : public Command {
 public:
  void declare(OptionSet& options) override {
    node_.declare(options);
    options.visible.add_options()("gpus", po::value(&gpu_list_)->value_name("LIST"),
                                  "GPUs to export, by node index, e.g. 0,1,2,3; numbered 0.. in that order (default: all)")(
        "output,o", po::value(&output_)->required()->value_name("PATH"), "XML file to write ('-' for stdout); required");
  }
  Status finish(const po::variables_map& values) override {
    if (Status s = node_.finish(values); !s) return s;
    return values.count("gpus") ? parse_id_list("--gpus", gpu_list_, gpus_) : Status{};
  }

  Outcome execute(Streams io) override {
    Expected<NodeModel> model = node_.load(io.notes);
    if (!model) return Outcome::bad_input(model.error().message);
    if (Expected<Topology> topology = Topology::build(*model); !topology)
      return Outcome::bad_input(node_.spec() + ": " + topology.error().message);
    const int count = static_cast<int>(model->gpus.size());
    for (int gpu : gpus_)
      if (gpu >= count)
        return Outcome::bad_input(
            fmt::format("--gpus: GPU {} is out of range ({} has {} GPUs: 0-{})", gpu, model->name, count, count - 1));
    if (Status s = write_output(output_, export_nccl_xml(*model, gpus_), io.out); !s)
      return Outcome::bad_input(s.error().message);
    const size_t exported = gpus_.empty() ? model->gpus.size() : gpus_.size();
    (output_ == "-" ? io.err : io.out) << fmt::format(
        "wrote NCCL topology of {} and {} of {} -> {}\n", counted(static_cast<long long>(exported), "GPU"),
        counted(static_cast<long long>(model->nics.size()), "NIC"), model->name, output_ == "-" ? "stdout" : output_);
    return Outcome::ok();
  }

 private:
  NodeArgument node_;
  std::string gpu_list_, output_;
  std::vector<int> gpus_;
};

const Registrar registered{{
    "topo export-nccl",
    "write NCCL topology XML (for NCCL_TOPO_FILE) of a node or a subset of its GPUs",
    "<model|file> [--gpus LIST] -o <topo.xml> [options]",
    "The selected GPUs are renumbered 0.. in the order given (as CUDA_VISIBLE_DEVICES would);\n"
    "NVLinks to GPUs left out are dropped, all NICs are kept.",
    [] { return std::make_unique<TopoExportNccl>(); },
}};

}  // namespace
}  // namespace topsim::cli
