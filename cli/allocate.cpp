// `topsim allocate --node <model|file> --gpus K [options]`: one single-node placement decision
// of the allocator (core/allocator.h) on a node with the given free GPUs, and what it implies:
// the ring NCCL would build, its predicted all-reduce bus bandwidth and the time of a 100 MB
// gradient all-reduce, the NUMA nodes spanned, the NCCL environment and, with --topo-xml, the
// NCCL topology XML of the chosen GPUs.
#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include "cli/command_table.h"
#include "cli/node_options.h"
#include "cli/output_file.h"
#include "core/allocator.h"
#include "core/nccl_config.h"
#include "core/ring.h"
#include "core/throughput.h"
#include "core/topology.h"
#include "formats/hardware/nccl_xml.h"
#include "reports/placement_report.h"
#include "util/suggest.h"

namespace topsim::cli {
namespace {

// The gradient whose all-reduce time is reported: 100 MB = 10^8 bytes (decimal, like GB/s),
// about the fp32 gradients of ResNet-50 (25.6 M parameters, 102 MB). At this size the transfer
// dominates NCCL's latency terms, so the time follows the bus bandwidth.
constexpr double kGradientBytes = 100e6;

// "--free: GPU 9 is out of range (node dgx1-v100 has GPUs 0-7)" for the first id not on the node.
Status check_range(const std::string& option, const std::vector<int>& ids, const Topology& topology) {
  for (int id : ids)
    if (id >= topology.gpu_count())
      return Error{fmt::format("{}: GPU {} is out of range (node {} has GPUs 0-{})", option, id, topology.name(),
                               topology.gpu_count() - 1)};
  return {};
}

// --max-link-class: NV (any NVLink), PIX, PXB, PHB, NODE or SYS.
Expected<LinkClass> parse_max_link_class(const std::string& text) {
  const std::string expected = " (expected NV, PIX, PXB, PHB, NODE or SYS)";
  if (text == "NV") return LinkClass::NVLink;
  const std::optional<LinkCode> code = parse_link_code(text);
  if (code && code->cls == LinkClass::NVLink)
    return Error{"--max-link-class: '" + text + "' names a link count; the class of every NVLink is NV" + expected};
  if (!code || code->cls == LinkClass::Self) return Error{"--max-link-class: unknown link class '" + text + "'" + expected};
  return code->cls;
}

// "key=value" pairs of --annotation; every key must be a gpu.topology/ annotation, given once.
Status parse_annotations(const std::vector<std::string>& items, std::map<std::string, std::string>& annotations) {
  for (const std::string& item : items) {
    const size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0)
      return Error{"--annotation: '" + item + "' is not key=value (e.g. gpu.topology/policy=nvlink)"};
    const std::string key = item.substr(0, equals);
    if (key.rfind("gpu.topology/", 0) != 0)
      return Error{"--annotation: '" + key + "' is not a gpu.topology/ annotation (e.g. gpu.topology/policy=nvlink)"};
    if (!annotations.emplace(key, item.substr(equals + 1)).second) return Error{"--annotation: '" + key + "' is given twice"};
  }
  return {};
}

// Adds the annotations to a request built from the flags: constraints add up (the stricter
// minimum bandwidth wins); gpu.topology/policy=spread sets the policy unless --policy names
// another one.
Status merge_annotations(const std::map<std::string, std::string>& annotations, bool policy_given, PlacementRequest& request) {
  PlacementRequest annotated;
  if (Status s = apply_annotations(annotations, annotated); !s) return Error{"--annotation: " + s.error().message};
  if (annotated.policy != PlacementPolicy::BestFit) {
    if (policy_given && request.policy != annotated.policy)
      return Error{fmt::format("--annotation: gpu.topology/policy={} conflicts with --policy {}", enum_name(annotated.policy),
                               enum_name(request.policy))};
    request.policy = annotated.policy;
  }
  PlacementConstraints& c = request.constraints;
  c.same_numa = c.same_numa || annotated.constraints.same_numa;
  c.require_nvlink = c.require_nvlink || annotated.constraints.require_nvlink;
  c.min_bandwidth_gbps = std::max(c.min_bandwidth_gbps, annotated.constraints.min_bandwidth_gbps);
  return {};
}

// What the command reports about `placement`: its ring hops, all-reduce estimate, NUMA nodes
// and NCCL configuration.
PlacementReport make_report(const Topology& topology, std::vector<int> free, const PlacementRequest& request, Placement placement,
                            const std::string& topo_xml_path) {
  PlacementReport r{&topology, std::move(free), request, std::move(placement), kGradientBytes, {}, {}, {}, {}, {}, topo_xml_path};
  const RingPlan& ring = r.placement.ring;
  const auto ranks = static_cast<int>(r.placement.gpus.size());
  r.path = ring_plan_path(ring);
  if (ranks > 1) r.allreduce = path_allreduce_time(r.allreduce_bytes, r.path);
  for (size_t i = 0; ranks > 1 && i < ring.order.size(); ++i) {
    const PairLink& link = topology.gpu_pair(ring.order[i], ring.order[(i + 1) % ring.order.size()]);
    r.hop_codes.push_back(link_code(link.cls, link.nvlinks));
  }
  std::set<int> numa;
  for (int gpu : r.placement.gpus) numa.insert(topology.model().numa_nodes[topology.gpu_numa(gpu)].id);
  r.numa_ids.assign(numa.begin(), numa.end());
  r.nccl = nccl_config(topology, r.placement.gpus, ring, false, topo_xml_path.empty() ? kDefaultNcclTopoFile : topo_xml_path);
  if (topo_xml_path.empty()) std::erase_if(r.nccl.env, [](const auto& entry) { return entry.first == "NCCL_TOPO_FILE"; });
  return r;
}

// "2 GPUs including 4, best-fit, require-nvlink (no relaxing)"
std::string request_line(const PlacementRequest& request) {
  std::string line = fmt::format("{} GPU{}", request.gpus, request.gpus == 1 ? "" : "s");
  if (!request.must_include.empty()) line += " including " + format_ids(request.must_include);
  line += fmt::format(", {}, {}", enum_name(request.policy), describe(request.constraints));
  if (!request.allow_relax) line += " (no relaxing)";
  return line;
}

// "0 -NV1- 1 -NV2- 3 -NV1- 2 -NV2- 0"
std::string ring_line(const PlacementReport& r) {
  const std::vector<int>& order = r.placement.ring.order;
  if (order.size() < 2) return format_ids(r.placement.gpus) + " (a single GPU: no ring)";
  std::string line;
  for (size_t i = 0; i < order.size(); ++i) line += fmt::format("{} -{}- ", order[i], r.hop_codes[i]);
  return line + std::to_string(order.front());
}

// "4 (4 x 20.0 GB/s)" or "3 (20.0, 20.0, 10.0 GB/s)"
std::string channels_line(const std::vector<double>& channel_gbps) {
  if (channel_gbps.empty()) return "0";
  const bool equal =
      std::all_of(channel_gbps.begin(), channel_gbps.end(), [&](double g) { return std::abs(g - channel_gbps.front()) < 1e-6; });
  if (equal) return fmt::format("{} ({} x {:.1f} GB/s)", channel_gbps.size(), channel_gbps.size(), channel_gbps.front());
  std::vector<std::string> rates;
  for (double g : channel_gbps) rates.push_back(fmt::format("{:.1f}", g));
  return fmt::format("{} ({} GB/s)", channel_gbps.size(), fmt::join(rates, ", "));
}

std::string render_text(const PlacementReport& r) {
  const Placement& p = r.placement;
  const RingPlan& ring = p.ring;
  std::string out = fmt::format("node: {} ({} GPUs; free {})\n", r.topology->name(), r.topology->gpu_count(), format_ids(r.free));
  out += "request: " + request_line(r.request) + "\n";
  if (!p.relaxed.empty()) out += fmt::format("relaxed: {} ({})\n", fmt::join(p.relaxed, ", "), p.fallback_reason);
  out += "gpus: " + format_ids(p.gpus) + "\n";
  out += "ring: " + ring_line(r) + "\n";
  out += "channels: " + channels_line(ring.channel_gbps) + "\n";
  if (p.gpus.size() > 1) {
    out += fmt::format("bus bandwidth: {:.1f} GB/s ({}, {})\n", r.path.bus_bandwidth_gbps, enum_name(r.path.algorithm),
                       ring.nvlink_only ? "NVLink only" : "uses PCIe/CPU links");
    if (r.path.algorithm != NcclAlgorithm::Ring) out += fmt::format("ring bus bandwidth: {:.1f} GB/s\n", ring.bus_bandwidth_gbps);
    out += fmt::format("all-reduce 100 MB: {:.2f} ms ({}, {} protocol)\n", r.allreduce.time_us / 1e3,
                       enum_name(r.allreduce.algorithm), enum_name(r.allreduce.protocol));
  } else {
    out += "bus bandwidth: - (a single GPU does no all-reduce)\n";
  }
  out += fmt::format("NUMA nodes: {} ({} of {})\n", format_ids(r.numa_ids), r.numa_ids.size(),
                     r.topology->model().numa_nodes.size());
  if (!r.topo_xml_path.empty()) out += "NCCL topology XML: " + r.topo_xml_path + "\n";
  out += "NCCL environment:\n";
  for (const auto& [name, value] : r.nccl.env) out += name + "=" + value + "\n";
  return out;
}

class Allocate : public Command {
 public:
  void declare(OptionSet& options) override {
    options.visible.add_options()("gpus", po::value(&gpus_)->value_name("K"), "number of GPUs to allocate; required")(
        "free", po::value(&free_list_)->value_name("LIST"), "free GPUs, e.g. 0,1,5 (default: every GPU of the node)")(
        "policy", po::value(&policy_text_)->value_name("P"),
        "best-fit, first-fit, pack, spread or device-plugin (default: best-fit)")(
        "require-nvlink", po::bool_switch(&request_.constraints.require_nvlink), "every ring hop on NVLink")(
        "same-numa", po::bool_switch(&request_.constraints.same_numa), "all chosen GPUs on one NUMA node")(
        "max-link-class", po::value(&max_link_text_)->value_name("C"),
        "worst link class allowed between any two chosen GPUs: NV, PIX, PXB, PHB, NODE or SYS (default: any)")(
        "min-bandwidth", po::value(&request_.constraints.min_bandwidth_gbps)->value_name("GBPS"),
        "minimum predicted all-reduce bus bandwidth in GB/s (default: 0, none)")(
        "must-include", po::value(&must_include_list_)->value_name("LIST"), "GPUs that must be part of the set, e.g. 4")(
        "no-relax", po::bool_switch(&no_relax_), "fail when the constraints cannot be met (default: drop them one by one)")(
        "annotation", po::value(&annotation_items_)->value_name("KEY=VALUE"),
        "a pod annotation, e.g. gpu.topology/policy=nvlink (repeatable); adds to the flags")(
        "json", po::bool_switch(&json_), "print the result as one JSON object")(
        "topo-xml", po::value(&topo_xml_)->value_name("FILE"), "write the NCCL topology XML of the chosen GPUs to FILE");
    node_.declare(options);
  }

  Status finish(const po::variables_map& values) override {
    if (!values.count("node"))
      return Error{"missing --node <model|file> (a built-in model such as dgx1-v100, see 'topsim topo models', or a node file)"};
    if (Status s = node_.finish(values); !s) return s;
    if (!values.count("gpus")) return Error{"missing --gpus K (the number of GPUs to allocate)"};
    if (gpus_ < 1) return Error{fmt::format("--gpus: must be at least 1, got {}", gpus_)};
    request_.gpus = gpus_;
    request_.allow_relax = !no_relax_;
    if (topo_xml_ == "-" || (values.count("topo-xml") && topo_xml_.empty()))
      return Error{"--topo-xml: give a file path (the report itself goes to stdout)"};
    if (Status s = finish_request(values); !s) return s;
    free_given_ = values.count("free") > 0;
    if (free_given_)
      if (Status s = parse_id_list("--free", free_list_, free_ids_); !s) return s;
    if (values.count("must-include"))
      if (Status s = parse_id_list("--must-include", must_include_list_, request_.must_include); !s) return s;
    return {};
  }

  Outcome execute(Streams io) override {
    Expected<NodeModel> model = node_.load(io.notes);
    if (!model) return Outcome::bad_input(model.error().message);
    Expected<Topology> topology = Topology::build(std::move(*model));
    if (!topology) return Outcome::bad_input(node_.spec() + ": " + topology.error().message);
    if (!free_given_) free_ids_ = to_ids(all_gpus(topology->gpu_count()));
    std::sort(free_ids_.begin(), free_ids_.end());
    for (const auto& [option, ids] : {std::pair{"--free", &free_ids_}, std::pair{"--must-include", &request_.must_include}})
      if (Status s = check_range(option, *ids, *topology); !s) return Outcome::bad_input(s.error().message);
    const Allocator allocator(*topology);
    Expected<Placement> placement = allocator.place(to_gpu_set(free_ids_), request_);
    if (!placement) return Outcome::bad_input(placement.error().message);
    const PlacementReport report = make_report(*topology, free_ids_, request_, std::move(*placement), topo_xml_);
    if (!topo_xml_.empty())
      if (Status s = write_output(topo_xml_, export_nccl_xml(topology->model(), report.placement.gpus), io.out); !s)
        return Outcome::bad_input(s.error().message);
    io.out << (json_ ? render_placement_json(report) : render_text(report));
    return Outcome::ok();
  }

 private:
  // Policy, constraints and annotations into request_.
  Status finish_request(const po::variables_map& values) {
    if (values.count("policy")) {
      const std::optional<PlacementPolicy> policy = parse_enum<PlacementPolicy>(policy_text_);
      const std::vector<std::string> names = enum_name_list<PlacementPolicy>();
      if (!policy)
        return Error{"unknown policy '" + policy_text_ + "'" + did_you_mean(policy_text_, names) + " (" + join_names(names) +
                     ")"};
      request_.policy = *policy;
    }
    if (values.count("max-link-class")) {
      Expected<LinkClass> cls = parse_max_link_class(max_link_text_);
      if (!cls) return cls.error();
      request_.constraints.max_link_class = *cls;
    }
    const double min_gbps = request_.constraints.min_bandwidth_gbps;
    if (!(min_gbps >= 0) || !std::isfinite(min_gbps))
      return Error{fmt::format("--min-bandwidth: must be a bandwidth in GB/s >= 0, got {}", min_gbps)};
    std::map<std::string, std::string> annotations;
    if (Status s = parse_annotations(annotation_items_, annotations); !s) return s;
    return merge_annotations(annotations, values.count("policy") > 0, request_);
  }

  NodeArgument node_;
  int gpus_ = 0;
  std::string free_list_, policy_text_, max_link_text_, must_include_list_, topo_xml_;
  std::vector<std::string> annotation_items_;
  bool no_relax_ = false, json_ = false, free_given_ = false;
  std::vector<int> free_ids_;
  PlacementRequest request_;
};

const Registrar registered{{
    "allocate",
    "choose GPUs on one node (topology-aware) and show the ring, bus bandwidth and NCCL environment",
    "--node <model|file> --gpus K [options]",
    "--node <model|file> (or the first argument) is a built-in model (see 'topsim topo models'), a\n"
    "node JSON file (.json), an NCCL topology XML file (.xml) or 'nvidia-smi topo -m' output.\n"
    "\n"
    "Prints the chosen GPUs, the ring with the link class of each hop, the channels NCCL would\n"
    "run, the predicted all-reduce bus bandwidth, the time to all-reduce a 100 MB gradient\n"
    "(10^8 bytes, about ResNet-50's fp32 gradients; NCCL latency terms included), the NUMA\n"
    "nodes spanned and the NCCL environment (NCCL_TOPO_FILE only with --topo-xml).\n"
    "When the constraints cannot be met they are dropped one at a time (min-bandwidth,\n"
    "max-link-class, require-nvlink, same-numa) and a 'relaxed:' line says which; --no-relax\n"
    "makes that an error. The device-plugin policy takes no constraints.",
    [] { return std::make_unique<Allocate>(); },
}};

}  // namespace
}  // namespace topsim::cli
