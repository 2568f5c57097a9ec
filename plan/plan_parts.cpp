#include "plan/plan_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <numeric>

#include "formats/hardware/node_source.h"
#include "formats/support/json_reader.h"
#include "util/input_file.h"

namespace topsim {
namespace {

std::optional<long long> env_integer(const EnvLookup& env, const char* name) {
  const char* text = env(name);
  if (!text || !*text) return std::nullopt;
  long long value = 0;
  const char* end = text + std::string_view(text).size();
  const auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kPartSchema = "topsim.plan-part/1";

PlanInfo read_info(const json& p) {
  PlanInfo info;
  info.name = p.at("name").get<std::string>();
  info.description = p.at("description").get<std::string>();
  info.source = p.at("source").get<std::string>();
  info.fingerprint = std::stoull(p.at("fingerprint").get<std::string>(), nullptr, 16);
  info.workload = p.at("workload").get<std::string>();
  if (p.contains("model_mix")) info.model_mix = p.at("model_mix").get<std::string>();
  info.jobs = p.at("jobs").get<size_t>();
  info.seed = p.at("seed").get<uint64_t>();
  info.seeds = p.at("seeds").get<int>();
  info.schedulers = p.at("schedulers").get<std::vector<std::string>>();
  info.growth = p.at("growth").get<std::vector<double>>();
  for (const json& c : p.at("candidates")) {
    PlanInfo::Candidate candidate{c.at("name").get<std::string>(),      c.at("nodes_per_unit").get<int>(),
                                  c.at("gpus_per_unit").get<int>(),     c.at("cost_per_unit_hour").get<double>(),
                                  c.at("watts_per_unit").get<double>(), {}};
    for (const json& part : c.at("parts"))
      candidate.parts.emplace_back(part.at("type").get<std::string>(), part.at("nodes").get<int>());
    if (c.contains("spares")) candidate.spares = c.at("spares").get<int>();
    info.candidates.push_back(std::move(candidate));
  }
  for (const json& s : p.at("slo")) {
    Slo slo{s.at("metric").get<std::string>(), std::nullopt, std::nullopt};
    if (s.contains("min")) slo.min = s.at("min").get<double>();
    if (s.contains("max")) slo.max = s.at("max").get<double>();
    info.slos.push_back(std::move(slo));
  }
  info.max_nodes = p.at("max_nodes").get<int>();
  if (p.contains("max_cost_per_hour")) info.max_cost_per_hour = p.at("max_cost_per_hour").get<double>();
  info.chains = p.at("chains").get<size_t>();
  if (p.contains("quota_search")) {
    const json& q = p.at("quota_search");
    QuotaSearch search;
    search.step_gpus = q.at("step_gpus").get<int64_t>();
    search.max_evaluations = q.at("max_evaluations").get<int>();
    for (const json& t : q.at("tenants")) {
      search.tenants.push_back(t.at("name").get<std::string>());
      search.start.push_back(t.at("start_gpus").get<int64_t>());
      search.floor.push_back(t.at("floor_gpus").get<int64_t>());
    }
    info.quota = std::move(search);
  }
  return info;
}

// A quota plan's split, in its tenants' order.
std::vector<int64_t> read_quotas(const PlanInfo& info, const json& e) {
  std::vector<int64_t> out;
  if (!info.quota) return out;
  const json& quotas = e.at("quotas");
  for (const std::string& tenant : info.quota->tenants) out.push_back(quotas.at(tenant).get<int64_t>());
  return out;
}

// An evaluation's seeds: how many ran, which missed, and a replay decided early.
void read_seeds(const json& e, PlanEvaluation& ev) {
  ev.seeds_run = e.at("seeds_run").get<int>();
  ev.first_seed_only = e.at("first_seed_only").get<bool>();
  if (!e.at("failed_seed").is_null()) ev.failed_seed = e.at("failed_seed").get<uint64_t>();
  if (e.at("decided").is_null()) return;
  const json& d = e.at("decided");
  ev.decided = PlanDecision{d.at("slo").get<std::string>(), d.at("seed").get<uint64_t>(), d.at("at_s").get<double>(),
                            d.at("jobs_done").get<uint64_t>(), d.at("jobs").get<uint64_t>()};
}

PlanChain read_chain(const PlanInfo& info, const json& c) {
  PlanChain chain;
  chain.index = c.at("index").get<size_t>();
  const auto key = c.at("key").get<std::vector<size_t>>();
  if (key.size() != 3) throw std::runtime_error("/key: expected [scheduler, candidate, growth]");
  chain.key = {key[0], key[1], key[2]};
  chain.scheduler = c.at("scheduler").get<std::string>();
  chain.candidate = c.at("candidate").get<std::string>();
  chain.growth = c.at("growth").get<double>();
  if (!c.at("answer").is_null()) chain.answer = c.at("answer").get<size_t>();
  chain.notes = c.at("notes").get<std::vector<std::string>>();
  for (const json& e : c.at("evaluations")) {
    PlanEvaluation ev;
    ev.units = e.at("units").get<int>();
    ev.nodes = e.at("nodes").get<int>();
    ev.gpus = e.at("gpus").get<int>();
    ev.cost_per_hour = e.at("cost_per_hour").get<double>();
    ev.watts = e.at("watts").get<double>();
    ev.feasible = e.at("feasible").get<bool>();
    ev.unmet = e.at("unmet").get<std::vector<std::string>>();
    ev.metrics = e.at("metrics").get<std::map<std::string, double>>();
    ev.quotas = read_quotas(info, e);
    read_seeds(e, ev);
    chain.evaluations.push_back(std::move(ev));
  }
  if (chain.answer && *chain.answer >= chain.evaluations.size()) throw std::runtime_error("/answer: beyond the evaluations");
  return chain;
}

}  // namespace

std::string plan_part_name(size_t shard, size_t shards) {
  return "plan-part-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".json";
}

Expected<std::vector<std::string>> find_plan_parts(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return std::vector<std::string>{path};
  if (!fs::is_directory(path, ec)) return Error{path + ": no such file or folder"};
  std::vector<std::string> parts;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.rfind("plan-part-", 0) == 0 && entry.path().extension() == ".json")
      parts.push_back(entry.path().string());
  }
  if (ec) return Error{path + ": cannot list the folder: " + ec.message()};
  if (parts.empty()) return Error{path + ": no plan-part-*.json in this folder (written by `topsim plan --shard`)"};
  std::sort(parts.begin(), parts.end());
  return parts;
}

namespace {

// Every search of a part is one of its plan's, in this shard, with its key where the plan's
// canonical order puts it (plan_chains) and its answer among its evaluations.
Status check_chains(const PlanPart& part) {
  const PlanInfo& info = part.result.info;
  const size_t schedulers = info.schedulers.size(), candidates = info.candidates.size(), steps = info.growth.size();
  if (info.chains != schedulers * candidates * steps)
    return Error{"/plan/chains: " + std::to_string(info.chains) + " searches, but the plan has " +
                 std::to_string(schedulers * candidates * steps)};
  for (size_t k = 0; k < part.result.chains.size(); ++k) {
    const PlanChain& c = part.result.chains[k];
    const std::string at = "/chains/" + std::to_string(k);
    if (c.key.scheduler >= schedulers || c.key.candidate >= candidates || c.key.growth >= steps)
      return Error{at + "/key: not a search of the plan (" + std::to_string(schedulers) + " schedulers, " +
                   std::to_string(candidates) + " candidates, " + std::to_string(steps) + " growth steps)"};
    const size_t index = (c.key.growth * schedulers + c.key.scheduler) * candidates + c.key.candidate;
    if (c.index != index)
      return Error{at + "/index: " + std::to_string(c.index) + ", but its key is search " + std::to_string(index)};
    if (plan_group_of(c.key, schedulers, candidates, info.quota.has_value()) % part.shards != part.shard)
      return Error{at + "/index: search " + std::to_string(c.index) + " is not in shard " + std::to_string(part.shard) + " of " +
                   std::to_string(part.shards)};
    if (c.answer && *c.answer >= c.evaluations.size()) return Error{at + "/answer: not one of its evaluations"};
  }
  return {};
}

}  // namespace

uint64_t jobs_replayed(const PlanChain& chain, size_t jobs) {
  uint64_t replayed = 0;
  for (const PlanEvaluation& e : chain.evaluations) {
    const int full = e.seeds_run - (e.decided ? 1 : 0);
    replayed += static_cast<uint64_t>(full) * jobs + (e.decided ? e.decided->jobs_done : 0);
  }
  return replayed;
}

double shard_balance(const std::vector<double>& costs, const std::vector<std::vector<size_t>>& groups, size_t shards) {
  std::vector<double> load(shards, 0);
  for (size_t s = 0; s < shards; ++s)
    for (size_t chain : plan_shard(groups, s, shards)) load[s] += costs[chain];
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / static_cast<double>(shards);
  return mean > 0 ? *std::max_element(load.begin(), load.end()) / mean : 0;
}

Expected<PlanPart> load_plan_part(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto document = parse_json_text(*text, path);
  if (!document) return document.error();
  const json& d = *document;
  if (!d.is_object() || !d.contains("schema") || d.at("schema") != kPartSchema)
    return Error{path + ": not a plan part (expected \"schema\": \"" + kPartSchema + "\", written by `topsim plan --shard`)"};
  try {
    PlanPart part;
    part.path = path;
    part.shard = d.at("shard").get<size_t>();
    part.shards = d.at("shards").get<size_t>();
    if (part.shards == 0 || part.shard >= part.shards)
      return Error{path + ": shard " + std::to_string(part.shard) + " of " + std::to_string(part.shards) + " is out of range"};
    part.result.info = read_info(d.at("plan"));
    for (const json& c : d.at("chains")) part.result.chains.push_back(read_chain(part.result.info, c));
    if (Status s = check_chains(part); !s) return Error{path + ": malformed plan part: " + s.error().message};
    return part;
  } catch (const std::exception& e) {
    return Error{path + ": malformed plan part: " + json_exception_text(e)};
  }
}

Expected<PlanResult> merge_plan_parts(std::vector<PlanPart> parts) {
  if (parts.empty()) return Error{"no plan parts to merge"};
  const PlanPart& first = parts.front();
  std::map<size_t, const PlanPart*> by_shard;
  for (const PlanPart& part : parts) {
    if (part.result.info.fingerprint != first.result.info.fingerprint || part.result.info.name != first.result.info.name)
      return Error{part.path + ": a part of plan '" + part.result.info.name + "', not of '" + first.result.info.name + "' (" +
                   first.path + "): the plan files differ, or the trace and node files they read do"};
    if (part.shards != first.shards)
      return Error{part.path + ": shard " + std::to_string(part.shard) + " of " + std::to_string(part.shards) + ", but " +
                   first.path + " is one of " + std::to_string(first.shards)};
    const auto [at, fresh] = by_shard.emplace(part.shard, &part);
    if (!fresh)
      return Error{"shard " + std::to_string(part.shard) + " of " + std::to_string(part.shards) +
                   " is given twice: " + at->second->path + " and " + part.path};
  }
  for (size_t s = 0; s < first.shards; ++s)
    if (!by_shard.count(s))
      return Error{"shard " + std::to_string(s) + " of " + std::to_string(first.shards) + " is missing (" +
                   plan_part_name(s, first.shards) + ")"};
  PlanResult merged;
  merged.info = first.result.info;
  for (PlanPart& part : parts)
    for (PlanChain& chain : part.result.chains) merged.chains.push_back(std::move(chain));
  std::sort(merged.chains.begin(), merged.chains.end(), [](const PlanChain& a, const PlanChain& b) { return a.index < b.index; });
  for (size_t i = 0; i < merged.chains.size(); ++i)
    if (merged.chains[i].index != i)
      return Error{"the parts do not hold search " + std::to_string(i) + " of the plan's " + std::to_string(merged.info.chains) +
                   " exactly once"};
  if (merged.chains.size() != merged.info.chains)
    return Error{"the parts hold " + std::to_string(merged.chains.size()) + " searches, the plan has " +
                 std::to_string(merged.info.chains)};
  return merged;
}

Expected<std::optional<Shard>> choose_shard(const std::string& shard_text, int shards, const EnvLookup& env) {
  if (!shard_text.empty()) {
    const size_t slash = shard_text.find('/');
    long long i = -1, n = -1;
    if (slash != std::string::npos) {
      const std::string a = shard_text.substr(0, slash), b = shard_text.substr(slash + 1);
      const auto ra = std::from_chars(a.data(), a.data() + a.size(), i);
      const auto rb = std::from_chars(b.data(), b.data() + b.size(), n);
      if (ra.ec != std::errc() || ra.ptr != a.data() + a.size() || rb.ec != std::errc() || rb.ptr != b.data() + b.size())
        i = n = -1;
    }
    if (i < 0 || n < 1 || i >= n) return Error{"--shard '" + shard_text + "': expected I/N with 0 <= I < N, e.g. 0/4"};
    return std::optional<Shard>(Shard{static_cast<size_t>(i), static_cast<size_t>(n), "--shard"});
  }
  if (shards > 0) {
    const auto index = env_integer(env, "JOB_COMPLETION_INDEX");
    if (!index)
      return Error{"--shards " + std::to_string(shards) +
                   ": JOB_COMPLETION_INDEX is not set to a number (a Kubernetes Indexed Job sets it); use --shard I/N elsewhere"};
    if (*index < 0 || *index >= shards)
      return Error{"JOB_COMPLETION_INDEX " + std::to_string(*index) + " is not below --shards " + std::to_string(shards)};
    return std::optional<Shard>(Shard{static_cast<size_t>(*index), static_cast<size_t>(shards), "Kubernetes"});
  }
  if (env("SLURM_ARRAY_TASK_ID")) {
    const auto id = env_integer(env, "SLURM_ARRAY_TASK_ID");
    const auto count = env_integer(env, "SLURM_ARRAY_TASK_COUNT");
    const auto min = env_integer(env, "SLURM_ARRAY_TASK_MIN");
    if (!id || !count || !min)
      return Error{"a Slurm job array needs SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT as numbers"};
    if (*count < 1)
      return Error{"SLURM_ARRAY_TASK_COUNT is " + std::to_string(*count) + ": a Slurm job array has at least one task"};
    // A stepped array (--array=0-14:2) or one with holes (--array=1,5,9) numbers its tasks apart:
    // the shards would not be 0..N-1.
    const auto step = env_integer(env, "SLURM_ARRAY_TASK_STEP");
    const auto max = env_integer(env, "SLURM_ARRAY_TASK_MAX");
    if ((step && *step != 1) || (max && *max - *min + 1 != *count))
      return Error{
          fmt::format("Slurm array task {} is not in a contiguous array (SLURM_ARRAY_TASK_MIN {}, _MAX {}, _STEP {}, "
                      "_COUNT {}): use --array=0-{}",
                      *id, *min, max ? std::to_string(*max) : "-", step ? std::to_string(*step) : "-", *count, *count - 1)};
    const long long index = *id - *min;
    if (*count < 1 || index < 0 || index >= *count)
      return Error{
          fmt::format("Slurm array task {} (min {}, count {}) is not a shard 0..{}: use a contiguous array (--array=0-{})", *id,
                      *min, *count, *count - 1, *count - 1)};
    return std::optional<Shard>(Shard{static_cast<size_t>(index), static_cast<size_t>(*count), "Slurm"});
  }
  return std::optional<Shard>();
}

}  // namespace topsim
