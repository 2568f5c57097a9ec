// The parts of a sharded plan (`topsim plan --shard I/N`, docs/distributed.md): each shard
// writes plan-part-<I>-of-<N>.json (schema topsim.plan-part/1: the plan's PlanInfo and the
// chains it ran, numbers exact); `topsim merge` reads them back and joins them into the result
// the unsharded run gives, so its reports are byte-identical.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "util/expected.h"

namespace topsim {

// One shard of a plan: the index-th of `count`, and what said so.
struct Shard {
  size_t index = 0, count = 1;
  std::string from;  // "--shard", "Slurm", "Kubernetes"
};

// The environment as the shard choice reads it (std::getenv, or a table in tests).
using EnvLookup = std::function<const char*(const char*)>;

// The shard from --shard I/N (`shard_text`), from --shards N with JOB_COMPLETION_INDEX
// (Kubernetes Indexed Jobs), or from a Slurm job array (SLURM_ARRAY_TASK_ID -
// SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT, contiguous); none: the whole plan. Errors name
// the option or variable at fault.
[[nodiscard]] Expected<std::optional<Shard>> choose_shard(const std::string& shard_text, int shards, const EnvLookup& env);

struct PlanPart {
  std::string path;
  size_t shard = 0, shards = 1;
  PlanResult result;
};

// "plan-part-2-of-8.json"
std::string plan_part_name(size_t shard, size_t shards);

// What search `chain` cost, as a count that does not depend on the machine: the jobs its replays
// simulated, `jobs` for each replay run to the end and the jobs done for one decided early.
uint64_t jobs_replayed(const PlanChain& chain, size_t jobs);
// How evenly `shards` shards split searches that cost `costs` (one per search, plan_chains
// order) in `groups` (plan_groups), as plan_shard deals them out: the largest shard's sum over
// the mean shard's.
double shard_balance(const std::vector<double>& costs, const std::vector<std::vector<size_t>>& groups, size_t shards);
// The part files in `path`: the file itself, or every plan-part-*.json in a folder (sorted).
// Error when a folder holds none, or the path does not exist.
[[nodiscard]] Expected<std::vector<std::string>> find_plan_parts(const std::string& path);
[[nodiscard]] Expected<PlanPart> load_plan_part(const std::string& path);
// plan.json: schema topsim.plan/1, the plan, whether it is feasible, the headlines and every
// evaluated configuration (numbers rounded to 1e-6).
std::string render_plan_json(const PlanResult& result);
// A shard's part, plan-part-<I>-of-<N>.json: schema topsim.plan-part/1, exact numbers.
std::string render_plan_part(const PlanResult& result, size_t shard, size_t shards);
// Every chain of the plan, once: all parts of one plan (the same fingerprint), the same shard
// count, each shard once. Errors name the part that is missing, duplicated or foreign.
[[nodiscard]] Expected<PlanResult> merge_plan_parts(std::vector<PlanPart> parts);

}  // namespace topsim
