// Quota plans (plan/plan.h QuotaSearch, docs/planning.md "Splitting quota between teams"): the
// search moves GPU quota from the team with slack to the team missing its SLO, worked by hand on
// one DGX-1; the answer and every split tried in plan.json, parts and reports; the loader's
// refusals.
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "plan/plan_answer.h"
#include "plan/plan_parts.h"
#include "reports/plan_report.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

// Two ClusterQueues without a cohort: a with `a_gpus`, b with `b_gpus`.
void write_queues(const test::TempDir& dir, int a_gpus, int b_gpus) {
  std::ofstream out(dir.file("queues.yaml"));
  out << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: gpu\n";
  for (const auto& [name, gpus] : {std::pair{"a", a_gpus}, std::pair{"b", b_gpus}})
    out << "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: " << name
        << "\nspec:\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: gpu\n      resources:\n"
        << "      - name: nvidia.com/gpu\n        nominalQuota: " << gpus << "\n";
}

// One DGX-1; team a runs one 2-GPU job, team b two 2-GPU jobs, all 1000 s from 0.
std::string quota_plan(const std::string& slo, const std::string& extra = "") {
  return R"({"name": "teams", "seeds": 1, "cluster": {"nodes": [{"model": "dgx1-v100", "count": 1}]},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "a1", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 1000, "queue": "a"},
      {"name": "b1", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 1000, "queue": "b"},
      {"name": "b2", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50", "duration_s": 1000, "queue": "b"}]},
    "tenancy": {"queues": "queues.yaml"}, "schedulers": ["topology-aware"],
    "quota_search": {"step_gpus": 2)" +
         extra + R"(}, "slo": )" + slo + "}";
}

Expected<PlanSpec> load(const test::TempDir& dir, const std::string& text) {
  std::ofstream(dir.file("plan.json")) << text;
  return load_plan(dir.file("plan.json"));
}

}  // namespace

TEST_CASE("plan::quota moves GPUs from the team with slack to the team missing its SLO", "[plan][quota]") {
  test::TempDir dir;
  write_queues(dir, 6, 2);
  auto plan = load(dir, quota_plan(R"({"wait_s.max@b": 10})"));
  INFO((plan ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  REQUIRE(plan->quota);
  CHECK(plan->quota->tenants == std::vector<std::string>{"a", "b"});
  CHECK(plan->quota->start == std::vector<int64_t>{6, 2});
  CHECK(plan->quota->floor == std::vector<int64_t>{2, 2});  // each team's largest job
  auto result = run_plan(*plan, {});
  REQUIRE(result.ok());
  REQUIRE(result->chains.size() == 1);
  const PlanChain& chain = result->chains.front();
  // Expected: with 2 GPUs b2 waits for b1 (1000 s); the search gives b 2 of a's GPUs, and then
  // both of b's jobs start at once.
  REQUIRE(chain.evaluations.size() == 2);
  CHECK(chain.evaluations[0].quotas == std::vector<int64_t>{6, 2});
  CHECK(chain.evaluations[0].metrics.at("wait_s.max@b") == 1000);
  CHECK(chain.evaluations[1].quotas == std::vector<int64_t>{4, 4});
  CHECK(chain.evaluations[1].metrics.at("wait_s.max@b") == 0);
  REQUIRE(chain.answer == 1u);
  const std::string headline = plan_headlines(*result).front();
  CHECK(headline ==
        "topology-aware meets every SLO with a 4 (-2), b 4 (+2) GPUs (the folder's quotas miss "
        "wait_s.max@b <= 10 (got 1000)).");
  CHECK_THAT(render_plan_text(*result),
             Catch::Contains("topology-aware, split 1: the folder's quotas: misses wait_s.max@b <= 10 (got 1000)") &&
                 Catch::Contains("topology-aware, split 2: a 4 (-2), b 4 (+2) GPUs: meets every SLO"));
  CHECK_THAT(render_plan_json(*result), Catch::Contains(R"("quotas": {
            "a": 4,
            "b": 4
          })"));
  std::ostringstream csv;
  write_plan_csv(*result, csv);
  CHECK_THAT(csv.str(), Catch::Contains("quota_gpus@a,quota_gpus@b") && Catch::Contains(",true,1,,4,4,"));

  SECTION("a shard's part reads back to the same plan.json") {
    const std::string part = render_plan_part(*result, 0, 1);
    std::ofstream(dir.file("part.json")) << part;
    auto read = load_plan_part(dir.file("part.json"));
    REQUIRE(read.ok());
    auto merged = merge_plan_parts({*read});
    REQUIRE(merged.ok());
    CHECK(render_plan_json(*merged) == render_plan_json(*result));
  }
}

TEST_CASE("plan::quota stops when no team can give more and names the nearest miss", "[plan][quota]") {
  test::TempDir dir;
  write_queues(dir, 2, 2);  // a holds only its largest job: nothing to give
  auto plan = load(dir, quota_plan(R"({"wait_s.max@b": 10})"));
  REQUIRE(plan.ok());
  auto result = run_plan(*plan, {});
  REQUIRE(result.ok());
  const PlanChain& chain = result->chains.front();
  CHECK(chain.evaluations.size() == 1);
  CHECK_FALSE(chain.answer);
  REQUIRE(chain.notes.size() == 1);
  CHECK_THAT(chain.notes.front(), Catch::Contains("b misses its SLOs and no team can give it 2 GPUs more"));
  CHECK_FALSE(plan_feasible(*result));
  CHECK_THAT(plan_headlines(*result).front(), Catch::StartsWith("topology-aware finds no split meeting every SLO (b misses"));
}

TEST_CASE("plan::quota refuses what a quota plan cannot take, in one line naming the key", "[plan][quota]") {
  test::TempDir dir;
  write_queues(dir, 6, 2);
  auto error = [&](const std::string& text) {
    auto plan = load(dir, text);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().message.find('\n') == std::string::npos);
    return plan.error().message;
  };
  CHECK_THAT(error(quota_plan(R"({"wait_s.max@c": 10})")), Catch::Contains("/slo/wait_s.max@c") && Catch::Contains("tenant"));
  CHECK_THAT(error(quota_plan(R"({"ring_gbps.mean@b": 10})")), Catch::Contains("is not kept per tenant"));
  CHECK_THAT(error(quota_plan(R"({"wait_s.max@b": 10})", R"(, "tenants": ["a"])")),
             Catch::Contains("/quota_search/tenants") && Catch::Contains("at least two"));
  CHECK_THAT(error(quota_plan(R"({"wait_s.max@b": 10})", R"(, "step_gpus": 0)")), Catch::Contains("/quota_search/step_gpus"));
  nlohmann::json with_types = nlohmann::json::parse(quota_plan(R"({"wait_s.max@b": 10})"));
  with_types["node_types"] = nlohmann::json::array({{{"model", "dgx-a100"}}});
  CHECK_THAT(error(with_types.dump()), Catch::Contains("/node_types") && Catch::Contains("keeps the scenario's cluster"));
  nlohmann::json size_plan = nlohmann::json::parse(quota_plan(R"({"wait_s.max@b": 10})"));
  size_plan.erase("quota_search");
  size_plan.erase("cluster");
  size_plan["node_types"] = nlohmann::json::array({{{"model", "dgx-a100"}}});
  CHECK_THAT(error(size_plan.dump()), Catch::Contains("/tenancy") && Catch::Contains("quota_search"));
}

TEST_CASE("plan::quota the shipped Philly quota plan loads: 15 VCs, 624 GPUs, floors within quotas", "[plan][quota][shared]") {
  if (test::shared_file("traces").empty()) return;
  auto plan = load_plan(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/plan-philly-quotas.json");
  INFO((plan ? std::string() : plan.error().message));
  REQUIRE(plan.ok());
  REQUIRE(plan->quota);
  CHECK(plan->quota->tenants.size() == 15);
  int64_t total = 0;
  for (size_t t = 0; t < plan->quota->tenants.size(); ++t) {
    total += plan->quota->start[t];
    CHECK(plan->quota->floor[t] <= plan->quota->start[t]);
  }
  CHECK(total == 624);
  CHECK(plan->candidates.size() == 1);
  CHECK(plan->candidates.front().nodes_per_unit == 138);
}

// Run by hand (about 10 s): the answer docs/planning.md quotes.
TEST_CASE("plan::quota the shipped Philly quota plan's answer", "[.][philly-quota-plan]") {
  auto plan = load_plan(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/plan-philly-quotas.json");
  REQUIRE(plan.ok());
  auto result = run_plan(*plan, {});
  REQUIRE(result.ok());
  const PlanChain& chain = result->chains.front();
  REQUIRE(chain.answer);
  CHECK(chain.evaluations.size() == 10);
  CHECK(quota_split(result->info, *chain.best()) ==
        "vc-7f04ca 47 (-56), vc-6214e9 46 (-16), vc-0e4a51 121 (+72) GPUs, the rest as in the folder");
}
