// plan.json (schema topsim.plan/1: every evaluated configuration, numbers rounded to 1e-6) and a
// shard's part (schema topsim.plan-part/1, exact numbers, read back by plan_parts.cpp).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "plan/plan_answer.h"
#include "plan/plan_parts.h"
#include "util/number_format.h"

namespace topsim {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kPlanSchema = "topsim.plan/1";
constexpr const char* kPartSchema = "topsim.plan-part/1";

Json evaluation_json(const PlanInfo& info, const PlanEvaluation& e, bool exact) {
  auto num = [exact](double v) { return exact ? v : rounded_micro(v); };
  Json metrics = Json::object();
  for (const auto& [name, value] : e.metrics) metrics[name] = num(value);
  Json decided = nullptr;
  if (e.decided)
    decided = {{"slo", e.decided->slo},
               {"seed", e.decided->seed},
               {"at_s", num(e.decided->at_s)},
               {"jobs_done", e.decided->jobs_done},
               {"jobs", e.decided->jobs}};
  Json out = {{"units", e.units},
              {"nodes", e.nodes},
              {"gpus", e.gpus},
              {"cost_per_hour", num(e.cost_per_hour)},
              {"watts", num(e.watts)},
              {"feasible", e.feasible},
              {"unmet", e.unmet},
              {"seeds_run", e.seeds_run},
              {"first_seed_only", e.first_seed_only},
              {"failed_seed", e.failed_seed ? Json(*e.failed_seed) : Json(nullptr)},
              {"decided", decided},
              {"metrics", metrics}};
  if (info.quota) {
    Json quotas = Json::object();
    for (size_t t = 0; t < e.quotas.size(); ++t) quotas[info.quota->tenants[t]] = e.quotas[t];
    out["quotas"] = quotas;
  }
  return out;
}

Json quota_search_json(const QuotaSearch& q) {
  Json tenants = Json::array();
  for (size_t t = 0; t < q.tenants.size(); ++t)
    tenants.push_back({{"name", q.tenants[t]}, {"start_gpus", q.start[t]}, {"floor_gpus", q.floor[t]}});
  return {{"step_gpus", q.step_gpus}, {"max_evaluations", q.max_evaluations}, {"tenants", tenants}};
}

Json chain_json(const PlanInfo& info, const PlanChain& c, bool exact) {
  Json evaluations = Json::array();
  for (const PlanEvaluation& e : c.evaluations) evaluations.push_back(evaluation_json(info, e, exact));
  return {{"index", c.index},         {"key", {c.key.scheduler, c.key.candidate, c.key.growth}},
          {"scheduler", c.scheduler}, {"candidate", c.candidate},
          {"growth", c.growth},       {"answer", c.answer ? Json(*c.answer) : Json(nullptr)},
          {"notes", c.notes},         {"evaluations", evaluations}};
}

Json info_json(const PlanInfo& info, bool exact) {
  auto num = [exact](double v) { return exact ? v : rounded_micro(v); };
  Json candidates = Json::array();
  for (const PlanInfo::Candidate& c : info.candidates) {
    Json parts = Json::array();
    for (const auto& [type, count] : c.parts) parts.push_back({{"type", type}, {"nodes", count}});
    candidates.push_back({{"name", c.name},
                          {"nodes_per_unit", c.nodes_per_unit},
                          {"gpus_per_unit", c.gpus_per_unit},
                          {"cost_per_unit_hour", num(c.cost_per_unit_hour)},
                          {"watts_per_unit", num(c.watts_per_unit)},
                          {"parts", parts}});
    if (c.spares > 0) candidates.back()["spares"] = c.spares;
  }
  Json slos = Json::array();
  for (const Slo& slo : info.slos) {
    Json j = {{"metric", slo.metric}};
    if (slo.min) j["min"] = *slo.min;
    if (slo.max) j["max"] = *slo.max;
    slos.push_back(j);
  }
  Json growth = Json::array();
  for (double g : info.growth) growth.push_back(g);
  Json out = {{"name", info.name},
              {"description", info.description},
              {"source", info.source},
              {"fingerprint", fmt::format("{:016x}", info.fingerprint)},
              {"workload", info.workload},
              {"jobs", info.jobs},
              {"seed", info.seed},
              {"seeds", info.seeds},
              {"schedulers", info.schedulers},
              {"growth", growth},
              {"candidates", candidates},
              {"slo", slos},
              {"max_nodes", info.max_nodes},
              {"chains", info.chains}};
  if (info.max_cost_per_hour) out["max_cost_per_hour"] = *info.max_cost_per_hour;
  if (!info.model_mix.empty()) out["model_mix"] = info.model_mix;
  if (info.quota) out["quota_search"] = quota_search_json(*info.quota);
  return out;
}

Json plan_document(const PlanResult& r, bool exact) {
  Json chains = Json::array();
  for (const PlanChain& c : r.chains) chains.push_back(chain_json(r.info, c, exact));
  return {{"plan", info_json(r.info, exact)}, {"chains", chains}};
}

}  // namespace

std::string render_plan_json(const PlanResult& r) {
  Json doc = {{"schema", kPlanSchema}};
  Json body = plan_document(r, false);
  doc["plan"] = body["plan"];
  doc["feasible"] = plan_feasible(r);
  doc["headlines"] = plan_headlines(r);
  doc["chains"] = body["chains"];
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_plan_part(const PlanResult& r, size_t shard, size_t shards) {
  Json doc = {{"schema", kPartSchema}, {"shard", shard}, {"shards", shards}};
  Json body = plan_document(r, true);
  doc["plan"] = body["plan"];
  doc["chains"] = body["chains"];
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
