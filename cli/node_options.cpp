#include "cli/node_options.h"

#include <algorithm>
#include <charconv>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "core/node_model.h"
#include "util/number_format.h"
#include "util/suggest.h"

namespace topsim::cli {
namespace {

// The source-specific flags and the sources they apply to; any other source is an error.
struct SourceFlag {
  const char* flag;
  bool topo_m, nccl_xml;
};
constexpr SourceFlag kSourceFlags[] = {{"gpu-model", true, true}, {"matrix", true, false},       {"cpu", true, true},
                                       {"nic-speed", true, true}, {"nic-transport", true, true}, {"fabric", false, true}};

const SourceFlag& source_flag(const std::string& flag) {
  for (const SourceFlag& entry : kSourceFlags)
    if (flag == std::string("--") + entry.flag) return entry;
  return kSourceFlags[0];
}

}  // namespace

void NodeArgument::declare(OptionSet& options) {
  options.argument("node", &spec_);
  options.visible.add_options()("gpu-model", po::value(&gpu_model_)->value_name("MODEL"),
                                "nvidia-smi text: GPU model of every GPU, e.g. v100, or per GPU where a box mixes cards, e.g. "
                                "0-1=rtx5090,2-4=rtx4090 (default: inferred from the NVLink counts); "
                                "NCCL XML hint file: of GPUs without a known PCI device id (default: the fabric's)")(
      "matrix", po::value(&matrix_)->value_name("N"), "nvidia-smi text: which matrix of the file to read, 1-based (default: 1)")(
      "cpu", po::value(&cpu_)->value_name("KIND"),
      "nvidia-smi text: CPU kind of every NUMA node, e.g. intel-skylake (default: inferred from the GPU era); "
      "NCCL XML: of every <cpu> without arch")(
      "fabric", po::value(&fabric_)->value_name("MODEL"),
      "NCCL XML hint file: built-in model whose GPU fabric (GPU model, NVLink/NVSwitch) the file's GPUs get "
      "(default: inferred from the GPUs' PCI device id and count, else an error)");
  options.visible.add_options()("nic-speed", po::value(&nic_speed_gbit_)->value_name("GBIT"),
                                "nvidia-smi text: port speed of every NIC in Gb/s (default: 100); NCCL XML: of every "
                                "NIC without <nic><net>")(
      "nic-transport", po::value(&nic_transport_)->value_name("T"),
      "ib, roce or ethernet. nvidia-smi text: of every NIC (default: from the names, mlx5/ib InfiniBand); NCCL XML: of "
      "NICs whose class or vendor names none (default: ethernet)");
  if (options_ == Options::Import)
    options.visible.add_options()("name", po::value(&name_)->value_name("NAME"),
                                  "name of the node model (default: from the file name)");
}

Status NodeArgument::finish(const po::variables_map& values) {
  if (!values.count("node")) return Error{"missing the <model|file> argument"};
  for (const SourceFlag& entry : kSourceFlags)
    if (values.count(entry.flag)) flags_given_.push_back(std::string("--") + entry.flag);
  if (values.count("fabric") && !builtin_model(fabric_))
    return Error{"--fabric: unknown built-in model '" + fabric_ + "'" + did_you_mean(fabric_, builtin_model_names()) +
                 " (built-in models: " + join_names(builtin_model_names()) + ")"};
  // Per-GPU ranges ("0-1=rtx5090,2-4=rtx4090") are checked by the importer, which knows the GPUs.
  if (values.count("gpu-model") && gpu_model_.find('=') == std::string::npos && !find_gpu_model(gpu_model_))
    return Error{"--gpu-model: unknown GPU model '" + gpu_model_ + "'" + did_you_mean(gpu_model_, gpu_model_names()) +
                 " (known models: " + join_names(gpu_model_names()) + ")"};
  if (values.count("cpu") && !parse_cpu_kind(cpu_))
    return Error{"--cpu: unknown CPU kind '" + cpu_ + "'" + did_you_mean(cpu_, enum_name_list<CpuKind>()) +
                 " (known kinds: " + join_names(enum_name_list<CpuKind>()) + ")"};
  std::optional<NicTransport> transport;
  if (values.count("nic-transport") && !(transport = parse_enum<NicTransport>(nic_transport_)))
    return Error{"--nic-transport: unknown transport '" + nic_transport_ + "'" +
                 did_you_mean(nic_transport_, enum_name_list<NicTransport>()) +
                 " (known: " + join_names(enum_name_list<NicTransport>()) + ")"};
  load_.topo_m.nic_transport = transport;
  load_.nccl_xml.nic_transport = transport;
  if (matrix_ < 1) return Error{"--matrix: must be 1 or more (the first matrix is 1), got " + std::to_string(matrix_)};
  // 1 GbE, the slowest port a GPU node has, up to the node model's limit per port.
  if (!(nic_speed_gbit_ >= 1 && nic_speed_gbit_ <= kMaxNicGbit))
    return Error{"--nic-speed: must be a port speed in 1.." + format_number(kMaxNicGbit) + " Gb/s, got " +
                 format_number(nic_speed_gbit_)};
  if (values.count("name") && name_.empty()) return Error{"--name: must not be empty"};
  load_.topo_m.gpu_model = gpu_model_;
  load_.topo_m.matrix = matrix_;
  if (values.count("cpu")) load_.topo_m.cpu = parse_cpu_kind(cpu_);
  load_.topo_m.nic_speed_gbit = nic_speed_gbit_;
  load_.topo_m.node_name = name_;
  load_.nccl_xml.fabric = fabric_;
  load_.nccl_xml.gpu_model = gpu_model_;
  load_.nccl_xml.cpu = load_.topo_m.cpu;
  if (values.count("nic-speed")) load_.nccl_xml.nic_speed_gbit = nic_speed_gbit_;
  return {};
}

Expected<NodeModel> NodeArgument::load(std::ostream& err, NodeSourceInfo* info) const {
  NodeSourceInfo local;
  NodeSourceInfo& source = info ? *info : local;
  Expected<NodeModel> model = load_node(spec_, load_, &source);
  if (!model) return model;
  for (const std::string& flag : flags_given_) {
    const SourceFlag& entry = source_flag(flag);
    if ((source.kind == NodeSourceKind::TopoM && entry.topo_m) || (source.kind == NodeSourceKind::NcclXml && entry.nccl_xml))
      continue;
    const std::string applies = entry.topo_m && entry.nccl_xml ? "nvidia-smi topo -m text or NCCL topology XML"
                                : entry.topo_m                 ? "nvidia-smi topo -m text"
                                                               : "NCCL topology XML";
    return Error{flag + " applies only to " + applies + ", but '" + spec_ + "' is " +
                 (source.kind == NodeSourceKind::Builtin ? "a " : "") + std::string(enum_name(source.kind))};
  }
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
