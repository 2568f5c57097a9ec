#include "reports/model_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/builtin_models.h"
#include "core/hardware.h"
#include "core/model_catalog.h"

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

namespace {

// Every catalog GPU with its data-sheet figures and how its training throughput is derived: the
// anchor, the speed ratio and its formula, and ResNet-50 (PyTorch) images/s as an example.
nlohmann::ordered_json gpu_catalog_json() {
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  const int resnet50 = *find_model("resnet50");
  for (int i = 0; const GpuModel* g = gpu_at(i); ++i) {
    nlohmann::ordered_json entry = {
        {"name", g->name},
        {"product", g->product},
        {"product_label", g->gfd_product},
        {"sm", g->sm},
        {"memory_gib", g->memory_gib},
        {"memory_gbps", g->memory_gbps},
        {"tflops", {{"fp32", g->fp32_tflops}, {"tf32", g->tf32_tflops}, {"fp16", g->fp16_tflops}, {"fp8", g->fp8_tflops}}},
        {"tdp_w", g->tdp_w},
        {"reference_node", reference_node_model(*g).name}};
    if (auto speed = gpu_speed(*g)) {
      entry["training"] = {{"anchor", speed->anchor->name}, {"speed_ratio", speed->ratio}, {"derivation", speed->derivation}};
      if (auto rate = single_gpu_throughput(resnet50, *g, TrainingFramework::PyTorch))
        entry["training"]["resnet50_pytorch_images_per_sec"] = rate->samples_per_sec;
    }
    gpus.push_back(std::move(entry));
  }
  return gpus;
}

}  // namespace

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
  return nlohmann::ordered_json{{"models", list}, {"gpus", gpu_catalog_json()}}.dump(2, ' ', false,
                                                                                     nlohmann::json::error_handler_t::replace) +
         "\n";
}

}  // namespace topsim
