#include "reports/placement_report.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace topsim {
namespace {

using OrderedJson = nlohmann::ordered_json;

// `value` rounded to 1/`per_unit` (per_unit 1000: three decimals), so JSON carries no float noise.
double rounded(double value, double per_unit) { return std::round(value * per_unit) / per_unit; }

// The spelling `topsim allocate --max-link-class` takes: "NV" for any NVLink, else the nvidia-smi code.
std::string class_code(LinkClass cls) { return cls == LinkClass::NVLink ? "NV" : link_code(cls); }

OrderedJson request_json(const PlacementRequest& request) {
  const PlacementConstraints& c = request.constraints;
  return {{"gpus", request.gpus},
          {"policy", enum_name(request.policy)},
          {"must_include", request.must_include},
          {"constraints",
           {{"same_numa", c.same_numa},
            {"require_nvlink", c.require_nvlink},
            {"max_link_class", c.max_link_class ? OrderedJson(class_code(*c.max_link_class)) : OrderedJson()},
            {"min_bandwidth_gbps", c.min_bandwidth_gbps}}},
          {"allow_relax", request.allow_relax}};
}

}  // namespace

std::string render_placement_json(const PlacementReport& r) {
  const Placement& p = r.placement;
  OrderedJson hops = OrderedJson::array();
  for (size_t i = 0; i < r.hop_codes.size(); ++i)
    hops.push_back({{"from", p.ring.order[i]}, {"to", p.ring.order[(i + 1) % p.ring.order.size()]}, {"link", r.hop_codes[i]}});
  OrderedJson channels = OrderedJson::array();
  for (double g : p.ring.channel_gbps) channels.push_back(rounded(g, 1000));
  OrderedJson env = OrderedJson::object();
  for (const auto& [name, value] : r.nccl.env) env[name] = value;
  const bool multi = p.gpus.size() > 1;
  OrderedJson out = {
      {"node", r.topology->name()},
      {"node_gpus", r.topology->gpu_count()},
      {"free", r.free},
      {"request", request_json(r.request)},
      {"gpus", p.gpus},
      {"relaxed", p.relaxed},
      {"fallback_reason", p.fallback_reason.empty() ? OrderedJson() : OrderedJson(p.fallback_reason)},
      {"ring", p.gpus.size() > 1 ? p.ring.order : std::vector<int>{}},
      {"hops", hops},
      {"channels", p.ring.channel_gbps.size()},
      {"channel_gbps", channels},
      {"bus_bandwidth_gbps", rounded(r.path.bus_bandwidth_gbps, 1000)},
      {"algorithm", multi ? OrderedJson(enum_name(r.path.algorithm)) : OrderedJson()},
      {"ring_bus_gbps", rounded(p.ring.bus_bandwidth_gbps, 1000)},
      {"nvlink_only", p.ring.nvlink_only},
      {"allreduce",
       {{"bytes", static_cast<int64_t>(r.allreduce_bytes)},
        {"time_us", rounded(r.allreduce.time_us, 10)},
        {"protocol", multi ? OrderedJson(enum_name(r.allreduce.protocol)) : OrderedJson()},
        {"algorithm", multi ? OrderedJson(enum_name(r.allreduce.algorithm)) : OrderedJson()}}},
      {"numa_nodes", r.numa_ids},
      {"nccl_env", env},
      {"topo_xml", r.topo_xml_path.empty() ? OrderedJson() : OrderedJson(r.topo_xml_path)},
  };
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
