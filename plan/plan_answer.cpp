#include "plan/plan_answer.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include "util/number_format.h"
#include "util/text.h"

namespace topsim {

// "$1,234,567": whole dollars with thousands separators.
std::string dollars(double value) { return (value < 0 ? "-$" : "$") + format_count(std::llround(std::abs(value))); }

double per_month(double per_hour) { return per_hour * kHoursPerMonth; }

std::string growth_name(double g) { return "x" + format_number(g); }

// "14 dgx-a100", "10 dgx-a100 + 5 hgx-h100".
std::string composition(const PlanInfo& info, const PlanChain& chain, const PlanEvaluation& e) {
  const PlanInfo::Candidate& c = info.candidates[chain.key.candidate];
  std::string out;
  for (const auto& [type, count] : c.parts)
    out += (out.empty() ? "" : " + ") + format_count(static_cast<long long>(count) * e.units) + " " + type;
  return out;
}

bool all_finish(const PlanEvaluation& e) {
  return std::none_of(e.unmet.begin(), e.unmet.end(), [](const std::string& u) { return u.rfind(kAllFinish, 0) == 0; });
}

// What keeps a chain without an answer from meeting the SLOs: the misses at its largest size.
std::string binding(const PlanChain& chain) {
  const PlanEvaluation* largest = chain.largest();
  if (!largest) return chain.notes.empty() ? "nothing evaluated" : chain.notes.front();
  return join(largest->unmet, "; ") + " at " + format_count(largest->nodes) + " nodes";
}

std::string margin(const PlanChain& chain) {
  const PlanEvaluation* below = chain.margin();
  if (!below) return "";
  if (below->unmet.empty()) return fmt::format("at {} nodes, meets them too", below->nodes);
  const std::string& miss = below->unmet.front();
  return fmt::format("at {} nodes, {}{}", below->nodes, miss.rfind("fails ", 0) == 0 ? "" : "misses ", miss);
}

std::vector<const PlanChain*> chains_at(const PlanResult& r, size_t growth, size_t scheduler) {
  std::vector<const PlanChain*> out;
  for (const PlanChain& c : r.chains)
    if (c.key.growth == growth && c.key.scheduler == scheduler) out.push_back(&c);
  return out;
}

std::vector<const PlanChain*> cheapest_per_scheduler(const PlanResult& r, size_t growth) {
  std::vector<const PlanChain*> out;
  for (size_t s = 0; s < r.info.schedulers.size(); ++s) {
    const PlanChain* best = nullptr;
    for (const PlanChain* c : chains_at(r, growth, s)) {
      if (!c->best()) continue;
      if (!best || c->best()->cost_per_hour < best->best()->cost_per_hour ||
          (c->best()->cost_per_hour == best->best()->cost_per_hour && c->best()->nodes < best->best()->nodes))
        best = c;
    }
    out.push_back(best);
  }
  return out;
}

bool plan_feasible(const PlanResult& r) {
  for (size_t g = 0; g < r.info.growth.size(); ++g) {
    const auto best = cheapest_per_scheduler(r, g);
    if (std::none_of(best.begin(), best.end(), [](const PlanChain* c) { return c != nullptr; })) return false;
  }
  return true;
}

namespace {

// ", $5,482/month less than 7 dgx1-v100, its next best" - the saving of a scheduler's cheapest
// configuration against its cheapest other candidate; empty when it has none.
std::string saving_against_next(const PlanResult& r, size_t growth, size_t scheduler, const PlanChain& best) {
  const PlanChain* next = nullptr;
  for (const PlanChain* c : chains_at(r, growth, scheduler)) {
    if (c == &best || !c->best()) continue;
    if (!next || c->best()->cost_per_hour < next->best()->cost_per_hour) next = c;
  }
  if (!next) return "";
  const double less = per_month(next->best()->cost_per_hour - best.best()->cost_per_hour);
  return fmt::format(", {}/month less than {}, its next best", dollars(less), composition(r.info, *next, *next->best()));
}

}  // namespace

std::string quota_split(const PlanInfo& info, const PlanEvaluation& e) {
  std::vector<std::string> moved;
  for (size_t t = 0; t < e.quotas.size(); ++t)
    if (const int64_t change = e.quotas[t] - info.quota->start[t]; change != 0)
      moved.push_back(fmt::format("{} {} ({}{})", info.quota->tenants[t], e.quotas[t], change > 0 ? "+" : "", change));
  if (moved.empty()) return "the folder's quotas";
  return join(moved, ", ") + " GPUs" + (moved.size() < e.quotas.size() ? ", the rest as in the folder" : "");
}

namespace {

// A quota plan's step: per scheduler, the split that meets every SLO, or why none was found and
// the nearest miss (fewest SLOs missed, the latest such split).
std::string quota_headline(const PlanResult& r, size_t growth) {
  std::vector<std::string> parts;
  for (size_t s = 0; s < r.info.schedulers.size(); ++s) {
    const auto chains = chains_at(r, growth, s);
    if (chains.empty() || chains.front()->evaluations.empty()) {
      parts.push_back(r.info.schedulers[s] + ": not run");
      continue;
    }
    const PlanChain& c = *chains.front();
    if (const PlanEvaluation* best = c.best()) {
      const PlanEvaluation& first = c.evaluations.front();
      parts.push_back(&first == best ? fmt::format("{} meets every SLO with the folder's quotas", c.scheduler)
                                     : fmt::format("{} meets every SLO with {} (the folder's quotas miss {})", c.scheduler,
                                                   quota_split(r.info, *best), join(first.unmet, "; ")));
      continue;
    }
    const PlanEvaluation* nearest = &c.evaluations.front();
    for (const PlanEvaluation& e : c.evaluations)
      if (e.unmet.size() <= nearest->unmet.size()) nearest = &e;
    parts.push_back(fmt::format("{} finds no split meeting every SLO ({}; nearest: {}, which misses {})", c.scheduler,
                                c.notes.empty() ? std::string("nothing to move") : c.notes.front(), quota_split(r.info, *nearest),
                                join(nearest->unmet, "; ")));
  }
  const std::string line = r.info.growth.size() > 1 || r.info.growth[growth] != 1
                               ? "At " + growth_name(r.info.growth[growth]) + " load, "
                               : std::string();
  return line + join(parts, "; ") + ".";
}

}  // namespace

std::vector<std::string> plan_headlines(const PlanResult& r) {
  std::vector<std::string> lines;
  if (r.info.quota) {
    for (size_t g = 0; g < r.info.growth.size(); ++g) lines.push_back(quota_headline(r, g));
    return lines;
  }
  for (size_t g = 0; g < r.info.growth.size(); ++g) {
    const auto best = cheapest_per_scheduler(r, g);
    std::string line = r.info.growth.size() > 1 || r.info.growth[g] != 1 ? "At " + growth_name(r.info.growth[g]) + " load, " : "";
    const PlanChain* base = best.front();
    // "default cannot meet the SLOs within the bounds (wait_s.p95 <= 600 (got 1234) at 16 nodes)".
    auto infeasible = [&](size_t s) {
      auto chains = chains_at(r, g, s);  // the nearest miss first: fewest SLOs missed at its largest size
      std::stable_sort(chains.begin(), chains.end(), [](const PlanChain* a, const PlanChain* b) {
        const size_t ma = a->largest() ? a->largest()->unmet.size() : SIZE_MAX;
        const size_t mb = b->largest() ? b->largest()->unmet.size() : SIZE_MAX;
        return ma < mb;
      });
      const bool either = s > 0 && !base;
      return r.info.schedulers[s] +
             (either   ? " cannot either"
              : s == 0 ? " cannot meet the SLOs within the bounds"
                       : " cannot meet them within the bounds") +
             " (" + (chains.empty() ? std::string("not run") : binding(*chains.front())) + ")";
    };
    if (base) {
      const PlanEvaluation& b = *base->best();
      const std::string below = margin(*base);
      line += fmt::format("{} meets the SLOs with {} ({}/month{}{})", base->scheduler, composition(r.info, *base, b),
                          dollars(per_month(b.cost_per_hour)), saving_against_next(r, g, 0, *base),
                          below.empty() ? "" : "; margin: " + below);
    } else {
      line += infeasible(0);
    }
    for (size_t s = 1; s < best.size(); ++s) {
      line += "; ";
      if (!best[s]) {
        line += infeasible(s);
        continue;
      }
      const PlanEvaluation& o = *best[s]->best();
      line += fmt::format("{} needs {}", best[s]->scheduler, composition(r.info, *best[s], o));
      if (!base) {
        line += fmt::format(" ({}/month)", dollars(per_month(o.cost_per_hour)));
        continue;
      }
      const PlanEvaluation& b = *base->best();
      const double more = per_month(o.cost_per_hour - b.cost_per_hour);
      const std::string money = dollars(std::abs(more)) + "/month " + (more >= 0 ? "more" : "less");
      if (best[s]->key.candidate == base->key.candidate && o.nodes == b.nodes) {
        line += ": the same";
      } else if (best[s]->key.candidate == base->key.candidate) {
        const int nodes = o.nodes - b.nodes;
        line += fmt::format(": {} node{} {}, {}", std::abs(nodes), std::abs(nodes) == 1 ? "" : "s", nodes >= 0 ? "more" : "fewer",
                            money);
      } else {
        line += fmt::format(" ({}/month): {}", dollars(per_month(o.cost_per_hour)), money);
      }
    }
    lines.push_back(line + ".");
  }
  return lines;
}

std::vector<FrontierPoint> plan_frontier(const PlanResult& r, size_t growth, const std::string& scheduler) {
  std::vector<FrontierPoint> points;
  for (const PlanChain& c : r.chains) {
    if (c.key.growth != growth || c.scheduler != scheduler) continue;
    for (const PlanEvaluation& e : c.evaluations) {
      const auto wait = e.metrics.find("wait_s.p95");
      if (wait == e.metrics.end() || !all_finish(e)) continue;
      points.push_back({per_month(e.cost_per_hour), wait->second, c.candidate, e.nodes, e.feasible,
                        e.seeds_run - (e.decided ? 1 : 0), e.first_seed_only});
    }
  }
  std::sort(points.begin(), points.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
    if (a.cost_per_month != b.cost_per_month) return a.cost_per_month < b.cost_per_month;
    if (a.wait_p95_s != b.wait_p95_s) return a.wait_p95_s < b.wait_p95_s;
    return a.candidate < b.candidate;
  });
  std::vector<FrontierPoint> frontier;
  for (const FrontierPoint& p : points)
    if (frontier.empty() || p.wait_p95_s < frontier.back().wait_p95_s) frontier.push_back(p);
  return frontier;
}

}  // namespace topsim
