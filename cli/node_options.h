// The `<model|file>` argument of the topo commands and the options that say how to read
// `nvidia-smi topo -m` text (--gpu-model, --matrix, --cpu, --nic-speed; with import options also
// --name) and NCCL topology XML hint files (--fabric, --cpu, --nic-speed).
// Values are checked when parsed; an option that does not apply to the source given (e.g.
// --gpu-model with a built-in model) is an error, never silently ignored.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/command_table.h"
#include "formats/hardware/node_source.h"

namespace topsim::cli {

// Parses a GPU list option such as "0,1,5" into `ids` (appended): non-negative integers, none
// twice; errors name `option` and the bad item. Ranges are checked once the node is loaded.
Status parse_id_list(const std::string& option, const std::string& text, std::vector<int>& ids);

class NodeArgument {
 public:
  enum class Options { Read, Import };  // Import adds --name

  explicit NodeArgument(Options options = Options::Read) : options_(options) {}

  void declare(OptionSet& options);
  // Checks the option values (GPU model and CPU kind names, ranges) and that the argument is there.
  Status finish(const po::variables_map& values);
  // Loads the node; prints the importer's notes as "topsim: note: ..." lines on `err`.
  Expected<NodeModel> load(std::ostream& err, NodeSourceInfo* info = nullptr) const;

  const std::string& spec() const { return spec_; }
  const NodeLoadOptions& load_options() const { return load_; }

 private:
  Options options_;
  std::string spec_;
  std::string gpu_model_, cpu_, name_, fabric_;
  int matrix_ = 1;
  double nic_speed_gbit_ = 100;
  std::string nic_transport_;
  std::vector<std::string> flags_given_;  // source-specific flags given, e.g. "--gpu-model"
  NodeLoadOptions load_;
};

}  // namespace topsim::cli
