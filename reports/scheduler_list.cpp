#include "reports/scheduler_list.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/schedulers/registry.h"

namespace topsim {

std::string render_scheduler_table() {
  size_t name_width = 4, handles_width = 6;
  for (const SchedulerInfo& info : scheduler_registry()) {
    name_width = std::max(name_width, info.name.size());
    handles_width = std::max(handles_width, handles_text(info.handles).size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<8}  {}\n", "NAME", name_width, "PLACES", handles_width, "NODES", "SUMMARY");
  for (const SchedulerInfo& info : scheduler_registry())
    out += fmt::format("{:<{}}  {:<{}}  {:<8}  {}\n", info.name, name_width, handles_text(info.handles), handles_width,
                       enum_name(info.serves), info.summary);
  out +=
      "\nIn a fill scenario with \"protocol\": \"fgd-artifact\", random, dot-product, gpu-clustering, gpu-packing, best-fit\n"
      "and fgd run the FGD artifact's versions (integer scores 0-100, ties in a seeded node order;\n"
      "core/artifact_policies.h); fgd-pack runs as itself; binpack and spread are not available.\n";
  return out;
}

std::string render_scheduler_json() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const SchedulerInfo& info : scheduler_registry())
    list.push_back({{"name", info.name},
                    {"summary", info.summary},
                    {"handles", handles_names(info.handles)},
                    {"serves_label", enum_name(info.serves)},
                    {"source", info.source}});
  return nlohmann::ordered_json{{"schedulers", list}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
