// Capacity planning (plan/plan.h): the doubling + bisection search against a brute-force scan of
// every size, growth steps, the round-robin shards, and the plan loader's one-line errors.
#include <algorithm>
#include <set>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "plan/plan_answer.h"
#include "reports/plan_report.h"
#include "tests/plan/plan_fixture.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

const std::string kSmallPlan = topsim::test::kSmallPlan;

PlanSpec small_plan(const std::string& text = kSmallPlan) {
  auto plan = parse_plan(text, "plan.json", "");
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  return std::move(plan).value();
}

std::string plan_error(const std::string& text) {
  auto plan = parse_plan(text, "plan.json", "");
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message.find('\n') == std::string::npos);
  return plan.error().message;
}

// The small plan with one top-level key set to `value` (JSON text).
std::string with(const std::string& key, const std::string& value) {
  nlohmann::ordered_json plan = nlohmann::ordered_json::parse(kSmallPlan);
  plan[key] = nlohmann::ordered_json::parse(value);
  return plan.dump();
}

}  // namespace

TEST_CASE("plan: the search finds what a scan of every size finds", "[sim][plan]") {
  const PlanSpec plan = small_plan();
  auto result = run_plan(plan, {});
  REQUIRE(result.ok());
  const std::vector<ChainKey> keys = plan_chains(plan);
  REQUIRE(result->chains.size() == keys.size());
  REQUIRE(keys.size() == 12);
  size_t compared = 0;
  for (const PlanChain& chain : result->chains) {
    const int per_unit = plan.candidates[chain.key.candidate].nodes_per_unit;
    const int max_units = plan.max_nodes / per_unit;
    std::vector<bool> feasible;
    for (int units = 1; units <= max_units; ++units) {
      auto e = evaluate_plan_size(plan, chain.key, units);
      REQUIRE(e.ok());
      feasible.push_back(e->feasible);
      // The search's evaluation of a size is the scan's, figure for figure.
      for (const PlanEvaluation& searched : chain.evaluations)
        if (searched.units == units) CHECK(searched.metrics == e->metrics);
    }
    INFO(chain.scheduler << " / " << chain.candidate << " / x" << chain.growth);
    const auto first = std::find(feasible.begin(), feasible.end(), true);
    const bool monotone = std::find(first, feasible.end(), false) == feasible.end();
    if (first == feasible.end()) {
      CHECK_FALSE(chain.answer);
      continue;
    }
    REQUIRE(chain.best());
    CHECK(chain.best()->feasible);
    if (monotone) {
      CHECK(chain.best()->units == 1 + (first - feasible.begin()));
      ++compared;
    } else {
      WARN("non-monotone in the scan: the search's answer (" << chain.best()->units << " units) is feasible");
    }
  }
  CHECK(compared >= 8);  // most chains are monotone on this plan: the comparison is real
}

TEST_CASE("plan: answers and figures do not depend on the thread count", "[sim][plan]") {
  const PlanSpec plan = small_plan();
  PlanRunOptions one, two;
  two.threads = 2;
  auto a = run_plan(plan, one), b = run_plan(plan, two);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(a->chains.size() == b->chains.size());
  for (size_t i = 0; i < a->chains.size(); ++i) {
    CHECK(a->chains[i].answer == b->chains[i].answer);
    REQUIRE(a->chains[i].evaluations.size() == b->chains[i].evaluations.size());
    for (size_t e = 0; e < a->chains[i].evaluations.size(); ++e)
      CHECK(a->chains[i].evaluations[e].metrics == b->chains[i].evaluations[e].metrics);
  }
}

TEST_CASE("plan: a growth step compresses the arrivals", "[sim][plan]") {
  const PlanSpec plan = small_plan();
  auto at1 = evaluate_plan_size(plan, {0, 0, 0}, 16), at2 = evaluate_plan_size(plan, {0, 0, 1}, 16);
  REQUIRE(at1.ok());
  REQUIRE(at2.ok());
  // 300 jobs at 20 an hour arrive over ~15 hours; at x2 over ~7.5: the run ends hours earlier.
  CHECK(at2->metrics.at("makespan_s") < at1->metrics.at("makespan_s") - 3 * 3600);
  CHECK(at2->metrics.at("gpu_utilisation") > at1->metrics.at("gpu_utilisation") * 1.5);
  CHECK(at1->nodes == 16);
  CHECK(at1->gpus == 128);
  CHECK(at1->cost_per_hour == Approx(16 * 24.48));
}

TEST_CASE("plan: on a fabric of racks a unit fills whole racks", "[sim][plan]") {
  // Racks of 4 nodes: a node type alone comes in racks of 4; the 1:1 mix in 2 + 2.
  const PlanSpec racks = small_plan(with("network", R"({"transport": "ib", "levels": [{"name": "rack", "fanout": 4}]})"));
  REQUIRE(racks.candidates.size() == 3);
  CHECK(racks.candidates[0].name == "4 dgx1-v100");
  CHECK(racks.candidates[0].nodes_per_unit == 4);
  CHECK(racks.candidates[0].cost_per_unit_hour == Approx(4 * 24.48));
  CHECK(racks.candidates[2].name == "2 dgx1-v100 + 2 dgx-a100");
  CHECK(racks.candidates[2].nodes_per_unit == 4);
  // Every size the search tries fills the racks: 3 units are 12 nodes in 3 racks.
  auto three = evaluate_plan_size(racks, {0, 0, 0}, 3);
  REQUIRE(three.ok());
  CHECK(three->nodes == 12);
  // Racks of 2 in blocks of 3: units of one rack; the 1:1 mix already fills it. A size between
  // whole blocks ends in a partly filled block: 4 units are a block of 3 racks and one of 1.
  const PlanSpec blocks = small_plan(
      with("network", R"({"transport": "ib", "levels": [{"name": "rack", "fanout": 2}, {"name": "block", "fanout": 3}]})"));
  CHECK(blocks.candidates[0].nodes_per_unit == 2);
  CHECK(blocks.candidates[2].name == "1 dgx1-v100 + 1 dgx-a100");
  auto four = evaluate_plan_size(blocks, {0, 0, 0}, 4);
  REQUIRE(four.ok());
  CHECK(four->nodes == 8);
  // Spares come in whole racks.
  nlohmann::ordered_json spares =
      nlohmann::ordered_json::parse(with("network", R"({"transport": "ib", "levels": [{"name": "rack", "fanout": 4}]})"));
  spares["failures"] = {{"rates", "default"}};
  spares["node_types"][0]["spares"] = 2;
  CHECK(plan_error(spares.dump()) ==
        "plan.json: /node_types/0/spares: the network's racks hold 4 nodes: spares come in whole racks, a multiple of 4, got "
        "2");
}

TEST_CASE("plan: the shipped fabric plan steps by racks and ends in a partly built block", "[sim][plan]") {
  // Racks of 16 in blocks of 8 (scenarios/plan-fabric-h100.json): a unit is one rack, not a
  // block of 128 nodes. topology-aware's answer is 18 racks, two full blocks and one of 2 racks;
  // 17 miss the mean-wait SLO.
  const auto plan = load_plan(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/plan-fabric-h100.json");
  INFO((plan.ok() ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  REQUIRE(plan->candidates.size() == 1);
  CHECK(plan->candidates[0].name == "16 hgx-h100");
  CHECK(plan->candidates[0].nodes_per_unit == 16);
  auto at18 = evaluate_plan_size(*plan, {0, 0, 0}, 18), at17 = evaluate_plan_size(*plan, {0, 0, 0}, 17);
  REQUIRE(at18.ok());
  REQUIRE(at17.ok());
  CHECK(at18->nodes == 288);
  CHECK(at18->feasible);
  CHECK_FALSE(at17->feasible);
}

TEST_CASE("plan: candidates, mixes and the grid", "[sim][plan]") {
  const PlanSpec plan = small_plan();
  REQUIRE(plan.candidates.size() == 3);
  CHECK(plan.candidates[2].name == "1 dgx1-v100 + 1 dgx-a100");
  CHECK(plan.candidates[2].nodes_per_unit == 2);
  CHECK(plan.candidates[2].cost_per_unit_hour == Approx(24.48 + 32.77));
  const PlanSpec grid = small_plan(with("mix_grid", R"({"types": ["dgx1-v100", "dgx-a100"], "max_part": 3})"));
  // 2 alone, the 1:1 mix, then the grid's 1:2, 1:3, 2:1, 2:3, 3:1, 3:2 (1:1, 2:2, 3:3 are the mix).
  CHECK(grid.candidates.size() == 9);
  std::set<std::string> names;
  for (const PlanCandidate& c : grid.candidates) names.insert(c.name);
  CHECK(names.count("3 dgx1-v100 + 2 dgx-a100") == 1);
}

TEST_CASE("plan: groups hold one growth step and candidate with schedulers in order, and shards keep them whole", "[sim][plan]") {
  const PlanSpec plan = small_plan();
  const std::vector<ChainKey> keys = plan_chains(plan);
  const auto groups = plan_groups(plan);
  REQUIRE(groups.size() == 6);  // 2 growth steps x 3 candidates, each with its 2 schedulers
  std::vector<int> in_groups(keys.size(), 0);
  for (const auto& group : groups) {
    REQUIRE(group.size() == 2);
    for (size_t i = 0; i < group.size(); ++i) {
      ++in_groups[group[i]];
      CHECK(keys[group[i]].scheduler == i);
      CHECK(keys[group[i]].candidate == keys[group[0]].candidate);
      CHECK(keys[group[i]].growth == keys[group[0]].growth);
    }
  }
  CHECK(std::all_of(in_groups.begin(), in_groups.end(), [](int n) { return n == 1; }));
  for (size_t count : {1u, 2u, 4u, 5u, 6u, 8u}) {
    std::vector<int> seen(keys.size(), 0);
    size_t smallest = keys.size(), largest = 0;
    for (size_t shard = 0; shard < count; ++shard) {
      const auto mine = plan_shard(groups, shard, count);
      CHECK(std::is_sorted(mine.begin(), mine.end()));
      smallest = std::min(smallest, mine.size());
      largest = std::max(largest, mine.size());
      for (size_t c : mine) ++seen[c];
      for (const auto& group : groups)  // a group's chains all in this shard or none
        CHECK(std::count_if(group.begin(), group.end(),
                            [&](size_t c) { return std::find(mine.begin(), mine.end(), c) != mine.end(); }) %
                  static_cast<long>(group.size()) ==
              0);
    }
    INFO(count << " shards");
    CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    CHECK(largest - smallest <= 2);  // at most one group (of two chains) apart
  }
  // A quota plan's chains are groups of one (a quota search has no size to start from).
  PlanSpec quota = plan;
  quota.quota = QuotaSearch{};
  for (const auto& group : plan_groups(quota)) CHECK(group.size() == 1);
  CHECK(plan_groups(quota).size() == keys.size());
}

namespace {

// Two runs of one plan (`a` with a start, `b` without): every chain has the same answer with the
// same metrics. Counts the chains with an answer, the sizes each run evaluated, and the chains
// whose sizes differ.
struct AnswerComparison {
  size_t answers = 0, sizes_a = 0, sizes_b = 0, differ = 0;
};

AnswerComparison compare_answers(const PlanResult& a, const PlanResult& b) {
  AnswerComparison out;
  REQUIRE(a.chains.size() == b.chains.size());
  for (size_t i = 0; i < a.chains.size(); ++i) {
    const PlanChain &x = a.chains[i], &y = b.chains[i];
    INFO(x.scheduler << " / " << x.candidate << " / x" << x.growth);
    REQUIRE((x.best() != nullptr) == (y.best() != nullptr));
    if (x.best()) {
      ++out.answers;
      CHECK(x.best()->units == y.best()->units);
      CHECK(x.best()->metrics == y.best()->metrics);
    }
    std::vector<int> sizes_x, sizes_y;
    for (const PlanEvaluation& e : x.evaluations) sizes_x.push_back(e.units);
    for (const PlanEvaluation& e : y.evaluations) sizes_y.push_back(e.units);
    out.sizes_a += sizes_x.size();
    out.sizes_b += sizes_y.size();
    out.differ += sizes_x != sizes_y;
  }
  return out;
}

}  // namespace

TEST_CASE("plan: a search that starts from the answer before it finds the answer a search from one unit finds", "[sim][plan]") {
  // Expected: the same answers and cheapest configurations, fewer sizes replayed (the default
  // scheduler's searches start where topology-aware's ended, a few units away).
  nlohmann::ordered_json text = nlohmann::ordered_json::parse(test::kSmallPlan);
  text["seeds"] = 2;
  const PlanSpec plan = small_plan(text.dump());
  PlanRunOptions cold;
  cold.start_from_group = false;
  auto grouped = run_plan(plan, {}), scratch = run_plan(plan, cold);
  REQUIRE(grouped.ok());
  REQUIRE(scratch.ok());
  const AnswerComparison c = compare_answers(*grouped, *scratch);
  for (size_t i = 0; i < grouped->chains.size(); ++i)  // the first of a group starts the same way in both
    if (grouped->chains[i].key.scheduler == 0)
      CHECK(grouped->chains[i].evaluations.size() == scratch->chains[i].evaluations.size());
  CHECK(c.answers >= 8);
  CHECK(c.sizes_a < c.sizes_b);
  for (size_t g = 0; g < grouped->info.growth.size(); ++g) {
    const auto a = cheapest_per_scheduler(*grouped, g), b = cheapest_per_scheduler(*scratch, g);
    REQUIRE(a.size() == b.size());
    for (size_t s = 0; s < a.size(); ++s) CHECK((a[s] ? a[s]->index : SIZE_MAX) == (b[s] ? b[s]->index : SIZE_MAX));
  }
}

TEST_CASE("plan: the pool's first probe changes the sizes tried, not the answers", "[sim][plan][pooled]") {
  // Expected: on the small plan (two seeds), every chain has the same answer and metrics with and
  // without the pooled start (plan/pooled_queue.h), and some search tries other sizes with it
  // (else the estimate was never used and this test shows nothing).
  nlohmann::ordered_json text = nlohmann::ordered_json::parse(test::kSmallPlan);
  text["seeds"] = 2;
  const PlanSpec plan = small_plan(text.dump());
  PlanRunOptions plain;
  plain.pooled_start = false;
  auto pooled = run_plan(plan, {}), bisected = run_plan(plan, plain);
  REQUIRE(pooled.ok());
  REQUIRE(bisected.ok());
  const AnswerComparison c = compare_answers(*pooled, *bisected);
  CHECK(c.answers >= 8);
  CHECK(c.differ >= 1);
}

TEST_CASE("plan: an SLO in seconds written as a duration", "[sim][plan]") {
  // Expected: "10m" is 600 s; a form without a unit, or a duration for a metric not in seconds, is
  // refused with the forms accepted.
  const PlanSpec plan = small_plan(with("slo", R"({"wait_s.p95": "10m", "jct_s.mean": "1.5h"})"));
  REQUIRE(plan.slos.size() == 2);
  for (const Slo& slo : plan.slos) CHECK(slo.max == (slo.metric == "wait_s.p95" ? 600 : 5400));
  CHECK_THAT(plan_error(with("slo", R"({"wait_s.p95": "10 minutes"})")),
             Catch::Contains("/slo/wait_s.p95: \"10 minutes\" is not a duration: write seconds as a number (600) or \"600s\", "
                             "\"10m\", \"1.5h\" or \"1d\""));
  CHECK_THAT(plan_error(with("slo", R"({"rejected": "1m"})")), Catch::Contains("/slo/rejected: must be a number (in jobs)"));
}

TEST_CASE("plan: bad plans are one-line errors naming the key", "[sim][plan]") {
  CHECK_THAT(plan_error(with("slo", R"({"jct_s.maen": 600})")),
             Catch::Contains("plan.json: /slo/jct_s.maen: unknown SLO metric 'jct_s.maen' (did you mean 'jct_s.mean'?)"));
  CHECK_THAT(plan_error(with("slo", R"({"wait_s.p95": {"min": 700, "max": 600}})")),
             Catch::Contains("/slo/wait_s.p95: contradictory: min 700 is above max 600"));
  CHECK_THAT(plan_error(with("slo", "{}")), Catch::Contains("/slo: must be an object of metric bounds"));
  CHECK_THAT(plan_error(with("slo", R"({"jobs": 5})")), Catch::Contains("is neither better high nor low"));
  CHECK_THAT(plan_error(with("slo", R"({"gpu_alloc_ratio.final": 0.9})")), Catch::Contains("unknown SLO metric"));
  CHECK_THAT(plan_error(with("node_types", "[]")), Catch::Contains("/node_types: must be a non-empty array"));
  // A built-in model brings its price (dgx-a100: AWS p4d's), so the plan goes on to its mixes;
  // one without a price needs the key.
  CHECK_THAT(plan_error(with("node_types", R"([{"model": "dgx-a100"}])")), Catch::Contains("unknown node type 'dgx1-v100'"));
  CHECK_THAT(plan_error(with("node_types", R"([{"model": "pcie-l4"}])")),
             Catch::Contains("/node_types/0/model: 'pcie-l4' has no built-in price: give \"cost_per_node_hour\""));
  CHECK_THAT(plan_error(with("node_types", R"([{"model": "dgx-a100", "cost_per_node_hour": -1}])")),
             Catch::Contains("/node_types/0/cost_per_node_hour"));
  CHECK_THAT(plan_error(with("node_types", R"([{"model": "dgx-a100", "count": 4, "cost_per_node_hour": 1}])")),
             Catch::Contains("/node_types/0/count: is what the plan searches"));
  CHECK_THAT(plan_error(with("node_types", R"([{"model": "dgx-a10", "cost_per_node_hour": 1}])")),
             Catch::Contains("/node_types/0/model: ") && Catch::Contains("did you mean 'dgx-a100'"));
  nlohmann::ordered_json no_candidates = nlohmann::ordered_json::parse(kSmallPlan);
  no_candidates.erase("mixes");
  no_candidates["node_types"] =
      nlohmann::ordered_json::parse(R"([{"model": "dgx-a100", "cost_per_node_hour": 1, "alone": false}])");
  CHECK_THAT(plan_error(no_candidates.dump()), Catch::Contains("plan.json: /node_types: no candidates"));
  CHECK_THAT(plan_error(with("mixes", R"([{"parts": {"dgx-h100": 1}}])")),
             Catch::Contains("/mixes/0/parts/dgx-h100: unknown node type 'dgx-h100'"));
  CHECK_THAT(plan_error(with("bounds", R"({"max_nodes": 0})")),
             Catch::Contains("/bounds/max_nodes: must be an integer in 1..100000"));
  CHECK_THAT(plan_error(with("bounds", R"({"max_cost_per_hour": 10})")),
             Catch::Contains("/bounds: below one unit of every candidate (one unit of 'dgx1-v100' is 1 node at $24.48 an hour)"));
  CHECK_THAT(plan_error(with("growth", "[1, 1]")), Catch::Contains("/growth/1: growth step 1 is listed twice"));
  CHECK_THAT(plan_error(with("growth", "[0]")), Catch::Contains("/growth/0: must be a number in"));
  CHECK_THAT(plan_error(with("mode", R"("fill")")), Catch::Contains("/mode: a plan replays its workload"));
  CHECK_THAT(plan_error(with("schedulers", R"(["topology-awar"])")), Catch::Contains("did you mean 'topology-aware'"));
  CHECK_THAT(plan_error(with("nodes", "1")), Catch::Contains("/nodes: unknown key"));
  // An SLO no replay of the plan would measure (it would be skipped, silently) names the reason.
  CHECK_THAT(plan_error(with("slo", R"({"llm_mfu.mean": 0.3})")),
             Catch::Contains("/slo/llm_mfu.mean: no replay of this plan measures 'llm_mfu.mean': no job of the workload "
                             "trains an LLM"));
  CHECK_THAT(plan_error(with("slo", R"({"share_wait_s.p95": 600})")), Catch::Contains("the workload has no GPU-share job"));
  CHECK_THAT(plan_error(with("slo", R"({"goodput": 0.9})")), Catch::Contains("nodes never fail (no \"failures\")"));
  CHECK_THAT(plan_error(with("slo", R"({"evictions": 0})")), Catch::Contains("there is no quota (no \"tenancy\")"));
  nlohmann::ordered_json default_only = nlohmann::ordered_json::parse(kSmallPlan);
  default_only["schedulers"] = {"default"};
  default_only["slo"] = {{"topology_success_rate", 0.9}};
  CHECK_THAT(plan_error(default_only.dump()), Catch::Contains("no scheduler places on topology-aware nodes"));
  default_only["schedulers"] = {"default", "topology-aware"};  // measured for one of them: applies to it
  CHECK(parse_plan(default_only.dump(), "plan.json", "").ok());
}

TEST_CASE("sim::plan shipped plans load", "[sim][plan][shared]") {
  if (topsim::test::shared_file("traces").empty()) return;
  for (const char* name : {"plan-philly.json", "plan-alibaba-shares.json"}) {
    INFO(name);
    const auto plan = load_plan(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/" + name);
    INFO((plan.ok() ? std::string() : plan.error().message));
    REQUIRE(plan.ok());
    CHECK(plan->base.schedulers == std::vector<std::string>{"topology-aware", "default"});
    CHECK(plan->growth.size() == 2);
    CHECK(plan->candidates.size() >= 3);
  }
}

TEST_CASE("plan: a node type that cannot run a job is not searched, and none that can is an error", "[sim][plan]") {
  // llama3-8b, ZeRO-3 over 8 GPUs, micro-batch 4, no recomputation, 31 layers offloaded: 992 GiB
  // of activations per node. hgx-h100 states 2048 GiB; "small" 512; a V100 has no BF16.
  const std::string job = R"({"name": "j", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "iterations": 10,
      "llm": {"model": "llama3-8b", "zero": 3, "micro_batch": 4, "global_batch": 32, "recompute": "none", "offload_layers": 31}})";
  const auto plan_with = [&](const std::string& types) {
    return R"({"name": "p", "seeds": 1, "network": {"transport": "ib"}, "workload": {"kind": "jobs", "jobs": [)" + job +
           R"(]}, "schedulers": ["topology-aware"], "node_types": )" + types +
           R"(, "slo": {"jct_s.max": "1h"}, "bounds": {"max_nodes": 2}})";
  };
  const PlanSpec plan = small_plan(plan_with(
      R"([{"model": "hgx-h100"}, {"model": "hgx-h100", "name": "small", "host_memory_gib": 512}, {"model": "dgx1-v100"}])"));
  CHECK(plan.node_types[0].cannot_run.empty());
  CHECK_THAT(plan.node_types[1].cannot_run,
             Catch::StartsWith("job 'j' (llama3-8b, 8 GPUs) on hgx-h100: host memory: offload_layers 31") &&
                 Catch::Contains("which has 512 GiB"));
  CHECK_THAT(plan.node_types[2].cannot_run, Catch::Contains("on v100: precision bf16 needs BF16 tensor cores"));
  auto result = run_plan(plan, {});
  REQUIRE(result.ok());
  REQUIRE(result->chains.size() == 3);
  CHECK(result->chains[0].best() != nullptr);
  for (size_t c = 1; c < 3; ++c) {
    CHECK(result->chains[c].evaluations.empty());
    REQUIRE(result->chains[c].notes.size() == 1);
    CHECK(result->chains[c].notes[0] == "not searched: " + plan.node_types[c].cannot_run);
  }
  CHECK(plan_feasible(*result));
  const std::string text = render_plan_text(*result);
  CHECK_THAT(text, Catch::Contains("small          -     -") &&
                       Catch::Contains("not searched: a job cannot run on it (notes)\n") &&
                       Catch::Contains("  topology-aware / small / x1: not searched: job 'j' (llama3-8b, 8 GPUs) on hgx-h100"));
  CHECK_THAT(plan_error(plan_with(R"([{"model": "dgx1-v100"}])")),
             Catch::StartsWith("plan.json: /node_types: no candidate can run the workload: job 'j' (llama3-8b, 8 GPUs) on v100"));
  // Under two schedulers and two loads each candidate's note is one line naming them, not four.
  nlohmann::ordered_json wider = nlohmann::ordered_json::parse(plan_with(R"([{"model": "hgx-h100"}, {"model": "dgx1-v100"}])"));
  wider["schedulers"] = {"topology-aware", "default"};
  wider["growth"] = {1, 2};
  auto both = run_plan(small_plan(wider.dump()), {});
  REQUIRE(both.ok());
  const std::string notes = render_plan_text(*both).substr(render_plan_text(*both).find("\nnotes:\n"));
  CHECK_THAT(notes, Catch::StartsWith("\nnotes:\n  every scheduler / dgx1-v100 / x1, x2: not searched: job 'j' (llama3-8b, 8 "
                                      "GPUs) on v100: precision bf16 needs BF16 tensor cores"));
  size_t lines = 0;
  for (size_t at = notes.find("not searched: job"); at != std::string::npos; at = notes.find("not searched: job", at + 1))
    ++lines;
  CHECK(lines == 1);
  // A note only some of the pairs share is written per chain.
  PlanResult some = *both;
  for (PlanChain& chain : some.chains)
    if (chain.scheduler == "default" && chain.growth == 2) chain.notes.clear();
  const std::string each = render_plan_text(some);
  CHECK_THAT(each, Catch::Contains("  topology-aware / dgx1-v100 / x1: not searched: ") &&
                       Catch::Contains("  default / dgx1-v100 / x1: not searched: ") &&
                       Catch::Contains("  topology-aware / dgx1-v100 / x2: not searched: ") &&
                       !Catch::Contains("every scheduler"));
}

TEST_CASE("plan: a mix is searched when each job runs on one of its types, which keeps it off the others", "[sim][plan]") {
  // Llama 3 8B in BF16 cannot run on V100s; ResNet-50 runs anywhere. The V100 type alone is not
  // searched; the 1:1 mix with H100s is, and its LLM jobs run on the H100 half; a mix of V100s
  // and H100s whose host memory is too small for the offload is not.
  const std::string jobs = R"([{"name": "llm", "count": 2, "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "iterations": 10,
      "llm": {"model": "llama3-8b", "zero": 3, "micro_batch": 4, "global_batch": 32, "recompute": "none", "offload_layers": 31}},
      {"name": "cnn", "count": 2, "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "iterations": 100, "model": "resnet50"}])";
  const PlanSpec plan = small_plan(
      R"({"name": "p", "seeds": 1, "network": {"transport": "ib"}, "workload": {"kind": "jobs", "jobs": )" + jobs +
      R"(}, "schedulers": ["topology-aware"], "node_types": [{"model": "dgx1-v100"}, {"model": "hgx-h100", "alone": false},
         {"model": "hgx-h100", "name": "small", "host_memory_gib": 512, "alone": false}],
       "mixes": [{"parts": {"dgx1-v100": 1, "hgx-h100": 1}}, {"parts": {"dgx1-v100": 1, "small": 1}}],
       "slo": {"jct_s.max": "1h"}, "bounds": {"max_nodes": 4}})");
  REQUIRE(plan.candidates.size() == 3);
  CHECK_THAT(plan.candidates[0].cannot_run, Catch::Contains("on v100: precision bf16"));
  CHECK(plan.candidates[1].cannot_run.empty());
  CHECK_THAT(
      plan.candidates[2].cannot_run,
      Catch::StartsWith("job 'llm-0' (llama3-8b, 8 GPUs) can run on no node type of the cluster: on v100: precision bf16") &&
          Catch::Contains("; on hgx-h100: host memory: offload_layers 31"));
  auto result = run_plan(plan, {});
  REQUIRE(result.ok());
  REQUIRE(result->chains.size() == 3);
  CHECK(result->chains[0].evaluations.empty());
  CHECK(result->chains[2].evaluations.empty());
  const PlanEvaluation* best = result->chains[1].best();
  REQUIRE(best != nullptr);
  CHECK(best->nodes == 2);  // one unit: a V100 node for the CNNs, an H100 node for the LLM jobs
}

TEST_CASE("plan: an SLO no job of a size measures (every job rejected there) is missed, not skipped", "[sim][plan]") {
  // Two 16-GPU gangs for team b on DGX-1s: one node can never hold them (rejected at
  // submission), two can.
  const std::string jobs = R"([{"name": "b", "count": 2, "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "iterations": 100,
      "model": "resnet50", "queue": "b"}])";
  for (const std::string slo : {R"({"jct_s.max": "1h"})", R"({"jct_s.max@b": "1h"})"}) {
    INFO(slo);
    const PlanSpec plan =
        small_plan(R"({"name": "p", "seeds": 1, "network": {"transport": "ib"}, "workload": {"kind": "jobs", "jobs": )" + jobs +
                   R"(}, "schedulers": ["topology-aware"], "node_types": [{"model": "dgx1-v100"}], "slo": )" + slo +
                   R"(, "bounds": {"max_nodes": 4}})");
    auto result = run_plan(plan, {});
    REQUIRE(result.ok());
    REQUIRE(result->chains.size() == 1);
    const PlanChain& chain = result->chains.front();
    // Expected: one node rejects both jobs, so no job finishes and the JCT bound is not measured:
    // that size misses it (before, the SLO was skipped and one node "met every SLO").
    const auto one =
        std::find_if(chain.evaluations.begin(), chain.evaluations.end(), [](const PlanEvaluation& e) { return e.nodes == 1; });
    REQUIRE(one != chain.evaluations.end());
    CHECK_FALSE(one->feasible);
    REQUIRE(one->unmet.size() == 1);
    CHECK(one->unmet.front() == (slo.find("@b") == std::string::npos
                                     ? "jct_s.max <= 3600 (not measured: of the jobs it covers, none finished)"
                                     : "jct_s.max@b <= 3600 (not measured: none of tenant b's 2 jobs finished)"));
    const PlanEvaluation* best = chain.best();
    REQUIRE(best != nullptr);
    CHECK(best->nodes == 2);
  }
}
