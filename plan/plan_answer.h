// The answer of a capacity plan, as data and as sentences: per growth step the cheapest
// configuration of each scheduler meeting the SLOs, whether every step has one, the headline
// sentence that names them and what topology-aware scheduling saves, and the cost vs p95 wait
// frontier. Every output of a plan (text, plan.json, Markdown, HTML) says what these say.
#pragma once

#include <string>
#include <vector>

#include "plan/plan.h"

namespace topsim {

// The unmet-SLO text of a size where some admitted job did not finish.
inline constexpr const char* kAllFinish = "every admitted job finishes";

// The cheapest configuration meeting the SLOs for each scheduler at one growth step (nullptr
// when none within the bounds), in the plan's scheduler order.
std::vector<const PlanChain*> cheapest_per_scheduler(const PlanResult& result, size_t growth);
// Whether every growth step has a configuration that meets the SLOs.
bool plan_feasible(const PlanResult& result);
// One sentence per growth step, e.g. "topology-aware meets the SLOs with 14 dgx-a100
// ($334,754/month); default needs 17 dgx-a100: 3 nodes, $71,733/month more."
std::vector<std::string> plan_headlines(const PlanResult& result);

// A point of a scheduler's cost vs p95 wait frontier: no other evaluated configuration (where
// every admitted job finished) is both cheaper and quicker.
struct FrontierPoint {
  double cost_per_month = 0, wait_p95_s = 0;
  std::string candidate;
  int nodes = 0;
  bool feasible = false;
  int seeds = 0;  // replays to the end behind wait_p95_s (their mean)
  bool first_seed_only = false;
};
std::vector<FrontierPoint> plan_frontier(const PlanResult& result, size_t growth, const std::string& scheduler);

// Pieces of the sentences, shared by the renderings:
std::string dollars(double value);                  // "$1,234,567", "-$12"
double per_month(double per_hour);                  // x kHoursPerMonth
std::string growth_name(double growth);             // "x1.5"
bool all_finish(const PlanEvaluation& evaluation);  // every admitted job finished
// "14 dgx-a100", "10 dgx-a100 + 5 hgx-h100": the configuration of `evaluation` in `chain`.
std::string composition(const PlanInfo& info, const PlanChain& chain, const PlanEvaluation& evaluation);
// What keeps a chain without an answer from meeting the SLOs: the misses at its largest size.
std::string binding(const PlanChain& chain);
// The answer's margin: "at 13 nodes, misses wait_s.p95 <= 600 (got 712)", "at 13 nodes, fails
// wait_s.p95 <= 600 (decided at ...)"; "" when it has none.
std::string margin(const PlanChain& chain);
// A quota plan's split against the folder's: the tenants whose quota moved, "vc-a 96 (-32),
// vc-b 64 (+32) GPUs, the rest as in the folder"; "the folder's quotas" when none moved.
std::string quota_split(const PlanInfo& info, const PlanEvaluation& evaluation);
// The chains of one growth step and scheduler, in the plan's candidate order.
std::vector<const PlanChain*> chains_at(const PlanResult& result, size_t growth, size_t scheduler);

}  // namespace topsim
