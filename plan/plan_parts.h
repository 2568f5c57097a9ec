// The parts of a sharded plan (`topsim plan --shard I/N`, docs/distributed.md): each shard
// writes plan-part-<I>-of-<N>.json (schema topsim.plan-part/1: the plan's PlanInfo and the
// chains it ran, numbers exact); `topsim merge` reads them back and joins them into the result
// the unsharded run gives, so its reports are byte-identical.
#pragma once

#include <string>
#include <vector>

#include "plan/plan.h"
#include "util/expected.h"

namespace topsim {

struct PlanPart {
  std::string path;
  size_t shard = 0, shards = 1;
  PlanResult result;
};

// "plan-part-2-of-8.json"
std::string plan_part_name(size_t shard, size_t shards);
// The part files in `path`: the file itself, or every plan-part-*.json in a folder (sorted).
// Error when a folder holds none, or the path does not exist.
[[nodiscard]] Expected<std::vector<std::string>> find_plan_parts(const std::string& path);
[[nodiscard]] Expected<PlanPart> read_plan_part(const std::string& path);
// Every chain of the plan, once: all parts of one plan (the same fingerprint), the same shard
// count, each shard once. Errors name the part that is missing, duplicated or foreign.
[[nodiscard]] Expected<PlanResult> merge_plan_parts(std::vector<PlanPart> parts);

}  // namespace topsim
