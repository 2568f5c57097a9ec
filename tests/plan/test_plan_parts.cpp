// Sharded plans (plan/plan_parts.h): the shard a process runs, the parts written and read back,
// and their merge into the result of the whole plan.
#include <map>

#include <catch2/catch.hpp>

#include "plan/plan_parts.h"
#include "reports/plan_report.h"
#include "tests/plan/plan_fixture.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

// An environment of its own for choose_shard.
EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

PlanSpec small_plan() {
  auto plan = parse_plan(test::kSmallPlan, "plan.json", "");
  REQUIRE(plan.ok());
  return std::move(plan).value();
}

// Runs shard `index` of `count` and reads its part back from a file.
PlanPart part(const PlanSpec& plan, size_t index, size_t count, const test::TempDir& dir) {
  PlanRunOptions options;
  options.chains = plan_shard(plan_groups(plan), index, count);
  auto result = run_plan(plan, options);
  REQUIRE(result.ok());
  const std::string path = dir.file(plan_part_name(index, count));
  std::ofstream(path) << render_plan_part(*result, index, count);
  auto loaded = load_plan_part(path);
  REQUIRE(loaded.ok());
  return std::move(loaded).value();
}

}  // namespace

TEST_CASE("plan::choose_shard: --shard, Kubernetes Indexed Jobs and Slurm arrays", "[plan][shards]") {
  SECTION("nothing given: the whole plan") { CHECK_FALSE(choose_shard("", 0, env_of({})).value().has_value()); }
  SECTION("--shard I/N") {
    const auto s = choose_shard("2/4", 0, env_of({})).value();
    REQUIRE(s.has_value());
    CHECK((s->index == 2 && s->count == 4 && s->from == "--shard"));
    CHECK(choose_shard("4/4", 0, env_of({})).error().message == "--shard '4/4': expected I/N with 0 <= I < N, e.g. 0/4");
    CHECK_FALSE(choose_shard("1/x", 0, env_of({})).ok());
  }
  SECTION("--shards N takes its index from JOB_COMPLETION_INDEX") {
    const auto s = choose_shard("", 3, env_of({{"JOB_COMPLETION_INDEX", "1"}})).value();
    CHECK((s->index == 1 && s->count == 3 && s->from == "Kubernetes"));
    CHECK(choose_shard("", 3, env_of({{"JOB_COMPLETION_INDEX", "3"}})).error().message ==
          "JOB_COMPLETION_INDEX 3 is not below --shards 3");
    CHECK_THAT(choose_shard("", 3, env_of({})).error().message, Catch::Contains("JOB_COMPLETION_INDEX is not set"));
  }
  SECTION("a Slurm job array: the task's place from the array's minimum, contiguous arrays only") {
    const auto s =
        choose_shard("", 0,
                     env_of({{"SLURM_ARRAY_TASK_ID", "11"}, {"SLURM_ARRAY_TASK_MIN", "10"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}))
            .value();
    CHECK((s->index == 1 && s->count == 4 && s->from == "Slurm"));
    const auto stepped = choose_shard("", 0,
                                      env_of({{"SLURM_ARRAY_TASK_ID", "2"},
                                              {"SLURM_ARRAY_TASK_MIN", "0"},
                                              {"SLURM_ARRAY_TASK_COUNT", "4"},
                                              {"SLURM_ARRAY_TASK_STEP", "2"}}));
    REQUIRE_FALSE(stepped.ok());
    CHECK_THAT(stepped.error().message, Catch::Contains("not in a contiguous array"));
  }
}

TEST_CASE("plan::merge_plan_parts: the parts of every shard give the whole plan's result", "[plan][shards]") {
  const PlanSpec plan = small_plan();
  test::TempDir dir;
  auto whole = run_plan(plan, {});
  REQUIRE(whole.ok());
  const PlanPart a = part(plan, 0, 2, dir), b = part(plan, 1, 2, dir);
  SECTION("both shards, in either order: plan.json of the merge is that of the whole run") {
    auto merged = merge_plan_parts({b, a});
    REQUIRE(merged.ok());
    CHECK(render_plan_json(*merged) == render_plan_json(*whole));
  }
  SECTION("a missing shard is named") {
    auto merged = merge_plan_parts({a});
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.error().message, Catch::Contains("shard 1 of 2 is missing"));
  }
  SECTION("a shard given twice is named") {
    auto merged = merge_plan_parts({a, a});
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.error().message, Catch::Contains("shard 0 of 2"));
  }
  SECTION("a part of another sharding is refused") {
    const PlanPart other = part(plan, 0, 3, dir);
    auto merged = merge_plan_parts({a, other});
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.error().message, Catch::Contains("shard 0 of 3"));
  }
  SECTION("find_plan_parts lists a folder's parts, sorted, and says when there are none") {
    const auto found = find_plan_parts(dir.path.string());
    REQUIRE(found.ok());
    CHECK(found->size() == 2);
    test::TempDir empty;
    CHECK_THAT(find_plan_parts(empty.path.string()).error().message, Catch::Contains("no plan-part-*.json"));
  }
}

TEST_CASE("plan: what a model mix left its LLMs out of is said by the plan and kept by its shards", "[plan][shards][llm]") {
  std::string text = test::kSmallPlan;
  const std::string sizes = R"("median_duration_minutes": 30})";
  REQUIRE(text.find(sizes) != std::string::npos);
  text.replace(text.find(sizes), sizes.size(),
               R"("median_duration_minutes": 30, "model_mix": {"resnet50": 1, "llama3-8b": 1}, "reference_gpu": "a100"})");
  auto plan = parse_plan(text, "plan.json", "");
  REQUIRE(plan.ok());
  auto whole = run_plan(*plan, {});
  REQUIRE(whole.ok());
  // Llama 3 8B needs 8 GPUs of 40 GiB: the jobs of 1, 2 and 4 GPUs draw ResNet-50.
  CHECK(whole->info.model_mix.find("llama3-8b is left out of the ") == 0);
  CHECK_THAT(whole->info.model_mix, Catch::Contains(" jobs of 1, 2 or 4 GPUs (no layout of theirs fits a100, 40 GiB)"));
  CHECK_THAT(render_plan_text(*whole), Catch::Contains("\nmodel mix: " + whole->info.model_mix + "\n"));
  CHECK_THAT(render_plan_markdown(*whole), Catch::Contains("Model mix: "));
  test::TempDir dir;
  auto merged = merge_plan_parts({part(*plan, 1, 2, dir), part(*plan, 0, 2, dir)});
  REQUIRE(merged.ok());
  CHECK(merged->info.model_mix == whole->info.model_mix);
  CHECK(render_plan_json(*merged) == render_plan_json(*whole));
}
