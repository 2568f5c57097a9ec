// Synthetic tenants and priority classes: drawn per job from shares, from streams of their own,
// so that giving them changes nothing else of the workload.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "core/hardware.h"
#include "formats/jobs/job_list_json.h"
#include "sim/workload/synthetic_workload.h"
#include "tests/sim/workload/workload_fixture.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// The streamed workload's jobs, held.
Workload held(const Workload& streamed) {
  Workload out = streamed;
  out.generator = nullptr;
  JobCursor cursor(streamed);
  while (const JobSpec* job = cursor.next()) out.jobs.push_back(*job);
  return out;
}

std::string options_error(const std::string& json) {
  const auto options = synthetic_options_from_json(json, "s.json", "/workload");
  return options.ok() ? "" : options.error().message;
}

}  // namespace

TEST_CASE("sim::workload synthetic tenants are drawn from their shares", "[sim][workload][tenants]") {
  SyntheticOptions plain;
  plain.jobs = 20'000;
  plain.seed = 7;
  SyntheticOptions with = plain;
  with.tenants = {{"team-a", 5}, {"team-b", 3}, {"team-c", 2}, {"idle", 0}};
  with.priority_classes = {{"low", 0.7}, {"high", 0.3}};
  const Workload base = generate_synthetic(plain), tenants = generate_synthetic(with);

  SECTION("the jobs themselves are those without tenants: only the queue and class are added") {
    CHECK(fingerprint(tenants) == fingerprint(base));
    CHECK(base.queue_names.empty());
    CHECK(tenants_of(base).find_first_not_of("- \n") == std::string::npos);
  }
  SECTION("shares normalised: within 1.5 points of 50/30/20 and 70/30; a zero share is never drawn") {
    const auto counts = queue_counts(tenants);
    CHECK(std::abs(counts.at("team-a") / 20'000.0 - 0.5) < 0.015);
    CHECK(std::abs(counts.at("team-b") / 20'000.0 - 0.3) < 0.015);
    CHECK(std::abs(counts.at("team-c") / 20'000.0 - 0.2) < 0.015);
    CHECK(counts.count("idle") == 0);
    CHECK(counts.count("") == 0);
    size_t high = 0;
    for (const JobSpec& job : tenants.jobs) high += tenants.priority_class_names.at(job.priority_class) == "high";
    CHECK(std::abs(high / 20'000.0 - 0.3) < 0.015);
  }
  SECTION("names in the order the jobs first draw them") {
    REQUIRE(tenants.queue_names.size() == 3);
    CHECK(tenants.queue_names.at(tenants.jobs.front().queue) == tenants.queue_names.front());
    std::vector<std::string> seen;
    for (const JobSpec& job : tenants.jobs)
      if (std::find(seen.begin(), seen.end(), tenants.queue_names[job.queue]) == seen.end())
        seen.push_back(tenants.queue_names[job.queue]);
    CHECK(seen == tenants.queue_names);
  }
  SECTION("classes come from a stream of their own: leaving them out keeps every job's tenant") {
    SyntheticOptions no_classes = with;
    no_classes.priority_classes.clear();
    const Workload w = generate_synthetic(no_classes);
    for (size_t i = 0; i < w.jobs.size(); ++i)
      REQUIRE(w.queue_names[w.jobs[i].queue] == tenants.queue_names[tenants.jobs[i].queue]);
    CHECK(w.priority_class_names.empty());
  }
  SECTION("streamed jobs carry the same tenants; the same seed draws them again, another seed others") {
    const Workload streamed = stream_synthetic(with);
    CHECK(streamed.queue_names == tenants.queue_names);
    CHECK(tenants_of(held(streamed)) == tenants_of(tenants));
    CHECK(tenants_of(generate_synthetic(with)) == tenants_of(tenants));
    SyntheticOptions other = with;
    other.seed = 8;
    CHECK(tenants_of(generate_synthetic(other)) != tenants_of(tenants));
  }
}

TEST_CASE("sim::workload synthetic tenant shares are checked", "[sim][workload][tenants]") {
  SyntheticOptions options;
  options.tenants = {{"a", 0}, {"b", 0}};
  CHECK(validate(options).error().message == "synthetic options: tenants: shares must not all be 0");
  options.tenants = {{"a", -1}};
  CHECK(validate(options).error().message == "synthetic options: tenants: the share of 'a' must be a finite number >= 0");
  options.tenants = {{"", 1}};
  CHECK(validate(options).error().message == "synthetic options: tenants: a name must not be empty");
  options.tenants = {};
  options.priority_classes = {{"x", 1}, {"x", 2}};
  CHECK(validate(options).error().message == "synthetic options: priority_classes: 'x' is given twice");
}

TEST_CASE("formats::workload synthetic tenants and priority classes from JSON", "[formats][workload][tenants]") {
  SECTION("read as given") {
    const auto options = synthetic_options_from_json(
        R"({"tenants": {"team-a": 0.5, "team-b": 0.5}, "priority_classes": {"low": 1}})", "s.json", "/workload");
    REQUIRE(options.ok());
    CHECK(options->tenants.size() == 2);
    CHECK(options->priority_classes.at(0).name == "low");
  }
  SECTION("bad shares name the pointer") {
    CHECK(options_error(R"({"tenants": {"a": -0.5}})") == "s.json: /workload/tenants/a: must be a number >= 0, got -0.5");
    CHECK(options_error(R"({"tenants": {"a": "half"}})") == "s.json: /workload/tenants/a: must be a number >= 0, got \"half\"");
    CHECK(options_error(R"({"tenants": {"a": 0, "b": 0}})") == "s.json: /workload/tenants: shares must not all be 0");
    CHECK(options_error(R"({"tenants": {}})") ==
          "s.json: /workload/tenants: must be a non-empty object of tenant name -> share, got an object");
    CHECK(options_error(R"({"priority_classes": ["low"]})") ==
          "s.json: /workload/priority_classes: must be a non-empty object of priority class name -> share, got an array");
    CHECK(options_error(R"({"tenants": {"": 1}})") == "s.json: /workload/tenants/: a tenant name must not be empty");
  }
}

TEST_CASE("sim::workload synthetic GPU model selections are drawn from their shares", "[sim][workload]") {
  SyntheticOptions plain;
  plain.jobs = 20'000;
  plain.seed = 7;
  plain.tenants = {{"team-a", 1}, {"team-b", 1}};
  SyntheticOptions with = plain;
  with.gpu_models = {{"h100", 2}, {"NVIDIA-A100-SXM4-40GB", 3}, {"any", 5}};
  const Workload base = generate_synthetic(plain), pinned = generate_synthetic(with);
  const auto bit = [](const char* name) { return uint64_t{1} << find_gpu_model(name)->catalog_index; };

  SECTION("the jobs and their tenants are those without the mix: only the selection is added") {
    CHECK(fingerprint(pinned) == fingerprint(base));
    CHECK(tenants_of(pinned) == tenants_of(base));
    for (const JobSpec& job : base.jobs) REQUIRE(job.gpu_models == kAnyGpuModel);
    CHECK(base.gpu_model_sets.empty());
  }
  SECTION("one set per named model, in the mix's order; shares within 1.5 points of 20/30/50") {
    CHECK(pinned.gpu_model_sets == std::vector<uint64_t>{bit("h100"), bit("a100")});
    std::map<int, size_t> counts;
    for (const JobSpec& job : pinned.jobs) ++counts[job.gpu_models];
    CHECK(std::abs(counts[0] / 20'000.0 - 0.2) < 0.015);
    CHECK(std::abs(counts[1] / 20'000.0 - 0.3) < 0.015);
    CHECK(std::abs(counts[kAnyGpuModel] / 20'000.0 - 0.5) < 0.015);
    CHECK(counts.size() == 3);
  }
  SECTION("streamed jobs select the same models") {
    const Workload streamed = held(stream_synthetic(with));
    CHECK(streamed.gpu_model_sets == pinned.gpu_model_sets);
    for (size_t i = 0; i < pinned.jobs.size(); ++i) REQUIRE(streamed.jobs[i].gpu_models == pinned.jobs[i].gpu_models);
  }
  SECTION("read from a workload section; unknown models and bad shares name the key") {
    const auto options = synthetic_options_from_json(R"({"jobs": 10, "gpu_model_mix": {"h100": 1, "any": 1}})", "s.json", "");
    REQUIRE(options.ok());
    CHECK(options->gpu_models.size() == 2);
    CHECK(options_error(R"({"gpu_model_mix": {"hx100": 1}})") ==
          "s.json: /workload/gpu_model_mix/hx100: unknown GPU model 'hx100' (did you mean 'h100'?) (a catalog name, a "
          "nvidia.com/gpu.product label, or \"any\")");
    CHECK(options_error(R"({"gpu_model_mix": {"h100": -1}})") ==
          "s.json: /workload/gpu_model_mix/h100: must be a number >= 0, got -1");
    CHECK(options_error(R"({"gpu_model_mix": {}})") ==
          "s.json: /workload/gpu_model_mix: must be a non-empty object of GPU model name -> share, got an object");
  }
}
