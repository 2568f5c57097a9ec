#include "cli/node_options.h"

#include <algorithm>
#include <charconv>

#include "core/hardware.h"
#include "sim/suggest.h"

namespace topsim::cli {

void NodeArgument::declare(OptionSet& options) {
  options.argument("node", &spec_);
  options.visible.add_options()("gpu-model", po::value(&gpu_model_)->value_name("MODEL"),
                                "nvidia-smi text: GPU model of every GPU, e.g. v100 (default: inferred from the NVLink counts)")(
      "matrix", po::value(&matrix_)->value_name("N"), "nvidia-smi text: which matrix of the file to read, 1-based (default: 1)")(
      "cpu", po::value(&cpu_)->value_name("KIND"),
      "nvidia-smi text: CPU kind of every NUMA node, e.g. intel-skylake (default: inferred from the GPU era)");
  if (options_ == Options::Import)
    options.visible.add_options()("nic-speed", po::value(&nic_speed_gbit_)->value_name("GBIT"),
                                  "nvidia-smi text: port speed of every NIC in Gb/s (default: 100)")(
        "name", po::value(&name_)->value_name("NAME"), "name of the node model (default: from the file name)");
}

Status NodeArgument::finish(const po::variables_map& values) {
  if (!values.count("node")) return Error{"missing the <model|file> argument"};
  for (const char* flag : {"gpu-model", "matrix", "cpu", "nic-speed"})
    if (values.count(flag)) topo_m_flags_given_.push_back(std::string("--") + flag);
  if (values.count("gpu-model") && !find_gpu_model(gpu_model_))
    return Error{"--gpu-model: unknown GPU model '" + gpu_model_ + "'" + did_you_mean(gpu_model_, gpu_model_names()) +
                 " (known models: " + join_names(gpu_model_names()) + ")"};
  if (values.count("cpu") && !parse_cpu_kind(cpu_))
    return Error{"--cpu: unknown CPU kind '" + cpu_ + "'" + did_you_mean(cpu_, enum_name_list<CpuKind>()) +
                 " (known kinds: " + join_names(enum_name_list<CpuKind>()) + ")"};
  if (matrix_ < 1) return Error{"--matrix: must be 1 or more (the first matrix is 1), got " + std::to_string(matrix_)};
  if (!(nic_speed_gbit_ > 0)) return Error{"--nic-speed: must be a positive speed in Gb/s"};
  if (values.count("name") && name_.empty()) return Error{"--name: must not be empty"};
  load_.topo_m.gpu_model = gpu_model_;
  load_.topo_m.matrix = matrix_;
  if (values.count("cpu")) load_.topo_m.cpu = parse_cpu_kind(cpu_);
  load_.topo_m.nic_speed_gbit = nic_speed_gbit_;
  load_.topo_m.node_name = name_;
  return {};
}

Expected<NodeModel> NodeArgument::load(std::ostream& err, NodeSourceInfo* info) const {
  NodeSourceInfo local;
  NodeSourceInfo& source = info ? *info : local;
  Expected<NodeModel> model = load_node(spec_, load_, &source);
  if (!model) return model;
  if (source.kind != NodeSourceKind::TopoM && !topo_m_flags_given_.empty())
    return Error{topo_m_flags_given_.front() + " applies only to nvidia-smi topo -m text, but '" + spec_ + "' is " +
                 (source.kind == NodeSourceKind::Builtin ? "a " : "") + std::string(enum_name(source.kind))};
  if (!name_.empty()) model->name = name_;
  for (const std::string& note : source.notes) err << "topsim: note: " << note << "\n";
  return model;
}

Status parse_id_list(const std::string& option, const std::string& text, std::vector<int>& ids) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    int id = -1;
    const auto [rest, error] = std::from_chars(item.data(), item.data() + item.size(), id);
    if (item.empty() || error != std::errc() || rest != item.data() + item.size() || id < 0)
      return Error{option + ": '" + item + "' is not a GPU index (expected comma-separated indices such as 0,1,5)"};
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) return Error{option + ": GPU " + item + " is listed twice"};
    ids.push_back(id);
    start = end + 1;
  }
  return {};
}

}  // namespace topsim::cli
