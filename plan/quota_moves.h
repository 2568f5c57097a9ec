// A quota plan's step (docs/planning.md, "Splitting quota between teams"): from the metrics of one
// split, which team gets step_gpus more and which team gives them.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "plan/plan.h"

namespace topsim {

// How far each of `quota.tenants` is from its SLOs at `e`: the worst of its SLOs ("metric@team"),
// value / max bound or min bound / value, so above 1 misses; 0 for a team without SLOs or
// without that metric. `missing`: the team misses one of them. REQUIRES: every "metric@team" SLO
// names one of quota.tenants (the plan loader's check).
void tenant_distress(const QuotaSearch& quota, const std::vector<Slo>& slos, const PlanEvaluation& e,
                     std::vector<double>& distress, std::vector<bool>& missing);

// Moves quota.step_gpus to the team furthest from its SLOs from the team with the most slack (a
// team meeting its SLOs before one missing them, then the least distressed, then the largest
// quota, then the folder's order) that keeps its floor, to a split not in `seen`. False, with
// `why` (one sentence), when no team misses its own SLOs or no such move is left; `split` is then
// unchanged. REQUIRES: `e` misses an SLO (e.unmet is not empty).
bool next_quota_split(const QuotaSearch& quota, const std::vector<Slo>& slos, const PlanEvaluation& e,
                      std::vector<int64_t>& split, const std::set<std::vector<int64_t>>& seen, std::string& why);

}  // namespace topsim
