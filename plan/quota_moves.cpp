#include "plan/quota_moves.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

namespace topsim {

void tenant_distress(const QuotaSearch& quota, const std::vector<Slo>& slos, const PlanEvaluation& e,
                     std::vector<double>& distress, std::vector<bool>& missing) {
  distress.assign(quota.tenants.size(), 0);
  missing.assign(quota.tenants.size(), false);
  for (const Slo& slo : slos) {
    const size_t at = slo.metric.find('@');
    if (at == std::string::npos) continue;
    const size_t t = static_cast<size_t>(std::find(quota.tenants.begin(), quota.tenants.end(), slo.metric.substr(at + 1)) -
                                         quota.tenants.begin());
    const auto value = e.metrics.find(slo.metric);
    if (value == e.metrics.end()) {
      // Not measured: none of the tenant's jobs finished. That misses the SLO by any margin.
      if (slo.unmeasured(e.metrics)) distress[t] = HUGE_VAL, missing[t] = true;
      continue;
    }
    const double v = value->second;
    double ratio = 0;
    if (slo.max) ratio = *slo.max > 0 ? v / *slo.max : (v > 0 ? HUGE_VAL : 0);
    if (slo.min) ratio = std::max(ratio, v > 0 ? *slo.min / v : (*slo.min > 0 ? HUGE_VAL : 0));
    distress[t] = std::max(distress[t], ratio);
    missing[t] = missing[t] || !slo.met_by(v);
  }
}

bool next_quota_split(const QuotaSearch& quota, const std::vector<Slo>& slos, const PlanEvaluation& e,
                      std::vector<int64_t>& split, const std::set<std::vector<int64_t>>& seen, std::string& why) {
  std::vector<double> distress;
  std::vector<bool> missing;
  tenant_distress(quota, slos, e, distress, missing);
  const size_t teams = quota.tenants.size();
  size_t receiver = teams;
  for (size_t t = 0; t < teams; ++t)
    if (missing[t] && (receiver == teams || distress[t] > distress[receiver])) receiver = t;
  if (receiver == teams) {
    why = "it misses no team's SLO (" + e.unmet.front() + "): moving quota between teams does not serve it";
    return false;
  }
  std::vector<size_t> donors;
  for (size_t t = 0; t < teams; ++t)
    if (t != receiver && split[t] - quota.step_gpus >= quota.floor[t]) donors.push_back(t);
  std::sort(donors.begin(), donors.end(), [&](size_t a, size_t b) {
    return std::tuple(missing[a], distress[a], -split[a], a) < std::tuple(missing[b], distress[b], -split[b], b);
  });
  for (size_t donor : donors) {
    std::vector<int64_t> next = split;
    next[donor] -= quota.step_gpus;
    next[receiver] += quota.step_gpus;
    if (seen.count(next) != 0) continue;
    split = std::move(next);
    return true;
  }
  why = fmt::format(
      "{} misses its SLOs and no team can give it {} GPUs more without going below its largest job or "
      "repeating a split already tried",
      quota.tenants[receiver], quota.step_gpus);
  return false;
}

}  // namespace topsim
