#include "reports/model_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/builtin_models.h"

namespace topsim {
namespace {

std::string nvlink_kind(const NodeModel& m) {
  if (std::any_of(m.gpus.begin(), m.gpus.end(), [](const Gpu& g) { return g.nvswitch_links > 0; })) return "nvswitch";
  return m.nvlinks.empty() ? "none" : "bonds";
}

}  // namespace

std::string render_model_table() {
  const std::vector<BuiltinModelInfo> models = builtin_models();
  size_t width = 4;
  for (const BuiltinModelInfo& info : models) width = std::max(width, info.name.size());
  std::string out = fmt::format("{:<{}}  {:>4}  {}\n", "NAME", width, "GPUS", "SUMMARY");
  for (const BuiltinModelInfo& info : models)
    out += fmt::format("{:<{}}  {:>4}  {}\n", info.name, width, builtin_model(info.name)->gpus.size(), info.summary);
  return out;
}

std::string render_model_json() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const BuiltinModelInfo& info : builtin_models()) {
    const NodeModel m = *builtin_model(info.name);
    std::vector<std::string> gpu_models;
    for (const Gpu& g : m.gpus)
      if (std::find(gpu_models.begin(), gpu_models.end(), g.model) == gpu_models.end()) gpu_models.push_back(g.model);
    nlohmann::ordered_json nics = nlohmann::ordered_json::array();
    for (const Nic& n : m.nics)
      nics.push_back({{"name", n.name}, {"speed_gbit", n.speed_gbit}, {"transport", enum_name(n.transport)}});
    list.push_back({{"name", info.name},
                    {"summary", info.summary},
                    {"gpus", m.gpus.size()},
                    {"gpu_models", gpu_models},
                    {"gpu_memory_gib", m.gpus.front().memory_gib},
                    {"numa_nodes", m.numa_nodes.size()},
                    {"nvlink", nvlink_kind(m)},
                    {"nics", nics}});
  }
  return nlohmann::ordered_json{{"models", list}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
