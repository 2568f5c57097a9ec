#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "formats/jobs/job_list_json.h"
#include "sim/workload/synthetic_workload.h"
#include "tests/sim/workload/workload_fixture.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

const char* const kJobList = R"([
  {"name": "vgg16-tf", "submit_s": 0, "workers": 4, "gpus_per_worker": 1, "framework": "tensorflow",
   "model": "vgg16", "batch_per_gpu": 64, "iterations": 1000, "annotations": {"gpu.topology/policy": "nvlink"}},
  {"name": "bert", "submit_s": 30.5, "pods": [2, 2, 1], "model": "bert-large", "duration_s": 3600},
  {"submit_s": 10, "pods": [4, 4], "model": "resnet50", "duration_s": 60, "count": 3}
])";

// The error of kJobList with entry `index`'s `key` set to `value` (parsed JSON text).
std::string job_list_error(size_t index, const std::string& key, const std::string& value) {
  nlohmann::json list = nlohmann::json::parse(kJobList);
  if (value.empty())
    list[index].erase(key);
  else
    list[index][key] = nlohmann::json::parse(value);
  const auto w = parse_job_list(list.dump(), "scenario.json", "/workload/jobs");
  return w.ok() ? "" : w.error().message;
}

}  // namespace

TEST_CASE("formats::job_list reads scenario job lists", "[formats][workload]") {
  SECTION("the example loads: replicas, sorted by submit time, names, annotations, defaults") {
    const auto w = parse_job_list(kJobList, "scenario.json", "/workload/jobs");
    REQUIRE(w.ok());
    REQUIRE(w->jobs.size() == 5);
    CHECK(sorted_and_numbered(*w));
    CHECK(w->source == "scenario.json#/workload/jobs");
    const JobSpec& vgg = w->jobs[0];
    CHECK(w->job_name(0) == "vgg16-tf");
    CHECK((vgg.workers == 4 && vgg.gpus_per_worker == 1 && vgg.iterations == 1000 && vgg.ideal_duration_ms == 0));
    CHECK(vgg.framework == Framework::TensorFlow);
    CHECK(vgg.model == *workload_model_index("vgg16"));
    CHECK(w->extras.at(0).annotations.at("gpu.topology/policy") == "nvlink");
    // The three resnet50 replicas (submit 10 s) come before bert (30.5 s), unnamed.
    CHECK(w->jobs[1].submit_ms == 10'000);
    CHECK((w->jobs[3].workers == 2 && w->jobs[3].gpus_per_worker == 4 && w->jobs[3].unequal_pod_gpus.empty()));
    CHECK(w->job_name(3) == "job-3");
    CHECK(w->jobs[3].framework == Framework::PyTorch);
    CHECK(w->jobs[4].submit_ms == 30'500);
    CHECK(w->jobs[4].ideal_duration_ms == 3'600'000);
    CHECK(w->jobs[4].batch_per_gpu == default_batch_per_gpu("bert-large"));
  }
  SECTION("unequal pods are kept for the scheduler to reject, with the largest pod as gpus_per_worker") {
    const auto w = parse_job_list(kJobList, "scenario.json");
    const JobSpec& bert = w->jobs[4];
    CHECK(bert.unequal_pod_gpus == std::vector<uint16_t>{2, 2, 1});
    CHECK((bert.workers == 3 && bert.gpus_per_worker == 2));
    CHECK(bert.total_gpus() == 5);
  }
  SECTION("a named entry with count > 1 numbers its replicas") {
    const auto w = parse_job_list(R"([{"name": "r", "model": "resnet50", "iterations": 5, "count": 2}])", "s.json");
    CHECK(w->job_name(0) == "r-0");
    CHECK(w->job_name(1) == "r-1");
  }
}

TEST_CASE("formats::job_list errors name the source and the JSON path", "[formats][workload]") {
  SECTION("an unknown model suggests the close one") {
    CHECK(job_list_error(2, "model", "\"vgg61\"") ==
          "scenario.json: /workload/jobs/2/model: unknown model 'vgg61' (did you mean 'vgg16'?)");
  }
  SECTION("negative counts and sizes are out of range") {
    CHECK(job_list_error(2, "count", "-1") == "scenario.json: /workload/jobs/2/count: must be an integer in 1..10000000, got -1");
    CHECK(job_list_error(0, "workers", "0") == "scenario.json: /workload/jobs/0/workers: must be an integer in 1..65535, got 0");
    CHECK(job_list_error(1, "submit_s", "-3") == "scenario.json: /workload/jobs/1/submit_s: must be a number >= 0, got -3");
    // Beyond this, iterations x step time could overflow the run time (it did: negative JCTs).
    CHECK(job_list_error(0, "iterations", "9000000000000000000") ==
          "scenario.json: /workload/jobs/0/iterations: must be an integer in 1..1000000000, got 9000000000000000000");
  }
  SECTION("both or neither of iterations and duration_s") {
    CHECK(job_list_error(0, "duration_s", "5") ==
          "scenario.json: /workload/jobs/0/duration_s: cannot be combined with \"iterations\": give exactly one of them");
    CHECK(job_list_error(0, "iterations", "") ==
          "scenario.json: /workload/jobs/0/iterations: missing: give exactly one of \"iterations\" and \"duration_s\"");
  }
  SECTION("wrong types, unknown keys and unknown frameworks") {
    CHECK(job_list_error(0, "iterations", "\"many\"") ==
          "scenario.json: /workload/jobs/0/iterations: must be an integer in 1..1000000000, got \"many\"");
    CHECK(job_list_error(1, "pods", "[2, \"x\"]") ==
          "scenario.json: /workload/jobs/1/pods/1: must be an integer in 1..65535, got \"x\"");
    CHECK(job_list_error(0, "worker", "2").rfind("scenario.json: /workload/jobs/0/worker: unknown key (allowed: ", 0) == 0);
    CHECK(job_list_error(0, "worker", "2").find("did you mean 'workers'?") != std::string::npos);
    CHECK(job_list_error(0, "framework", "\"tensorflw\"") ==
          "scenario.json: /workload/jobs/0/framework: unknown framework 'tensorflw' (did you mean 'tensorflow'?)");
    CHECK(job_list_error(2, "model", "") == "scenario.json: /workload/jobs/2/model: missing required key");
  }
  SECTION("pods with workers, bad annotations and duplicate names") {
    CHECK(job_list_error(1, "workers", "3") ==
          "scenario.json: /workload/jobs/1/pods: cannot be combined with \"workers\" or \"gpus_per_worker\" (pods lists them)");
    CHECK(job_list_error(0, "annotations", R"({"gpu.topology/policy": "fastest"})") ==
          "scenario.json: /workload/jobs/0/annotations/gpu.topology/policy: 'fastest' is not one of single-numa, nvlink, "
          "best-effort, spread");
    CHECK(job_list_error(1, "name", "\"vgg16-tf\"") ==
          "scenario.json: /workload/jobs/1/name: job name 'vgg16-tf' is used twice (also by /workload/jobs/0)");
  }
  SECTION("not an array, and syntax errors with line and column") {
    CHECK(parse_job_list("{}", "s.json", "/jobs").error().message ==
          "s.json: /jobs: must be an array of job entries, got an object");
    CHECK(parse_job_list("[\n  {,}\n]", "s.json").error().message.rfind("s.json:2:4: ", 0) == 0);
  }
}

TEST_CASE("formats::job_list reads the GPU models a job selects", "[formats][workload]") {
  const auto bit = [](const char* name) { return uint64_t{1} << find_gpu_model(name)->catalog_index; };
  SECTION("catalog names, aliases and nvidia.com/gpu.product labels; equal sets share one index") {
    const auto w = parse_job_list(R"([
      {"name": "a", "model": "resnet50", "iterations": 5, "gpu_models": "NVIDIA-H100-80GB-HBM3"},
      {"name": "b", "model": "resnet50", "iterations": 5},
      {"name": "c", "model": "resnet50", "iterations": 5, "gpu_models": ["h100"]},
      {"name": "d", "llm": {"model": "llama3-8b", "tp": 8}, "workers": 8, "iterations": 5,
       "gpu_models": ["A100-SXM4-80GB", "h200"]}
    ])",
                                  "s.json");
    REQUIRE(w.ok());
    CHECK(w->gpu_model_sets == std::vector<uint64_t>{bit("h100"), bit("a100-80g") | bit("h200")});
    CHECK(w->jobs[0].gpu_models == 0);
    CHECK(w->jobs[1].gpu_models == kAnyGpuModel);
    CHECK(w->jobs[2].gpu_models == 0);
    CHECK(w->jobs[3].gpu_models == 1);
    CHECK(w->selected_gpus_text(w->jobs[3]) == "a100-80g or h200");
    CHECK(w->selects_gpu(w->jobs[0], *find_gpu_model("h100")));
    CHECK_FALSE(w->selects_gpu(w->jobs[0], *find_gpu_model("h200")));
    CHECK(w->selects_gpu(w->jobs[1], *find_gpu_model("v100")));  // selects none: any model
  }
  SECTION("bad selections name the entry") {
    CHECK(job_list_error(0, "gpu_models", "\"hx100\"") ==
          "scenario.json: /workload/jobs/0/gpu_models: unknown GPU model 'hx100' (did you mean 'h100'?) (a catalog name or a "
          "nvidia.com/gpu.product label such as NVIDIA-H100-80GB-HBM3)");
    CHECK(job_list_error(0, "gpu_models", "[\"h100\", 7]") ==
          "scenario.json: /workload/jobs/0/gpu_models/1: must be a string, got 7");
    CHECK(job_list_error(0, "gpu_models", "[]") ==
          "scenario.json: /workload/jobs/0/gpu_models: must be a GPU model name or a non-empty array of them, got an array");
    nlohmann::json share = nlohmann::json::parse(R"([{"gpu_mem_gib": 4, "duration_s": 60, "gpu_models": "t4"}])");
    CHECK(parse_job_list(share.dump(), "s.json").error().message ==
          "s.json: /0/gpu_models: applies to whole-GPU training jobs (a share's card model is not selected)");
  }
}

TEST_CASE("formats::workload sections read synthetic and Philly options from JSON", "[formats][workload]") {
  SECTION("synthetic: given keys override the defaults, absent ones (the seed) keep them") {
    SyntheticOptions defaults;
    defaults.seed = 42;
    const auto options = synthetic_options_from_json(
        R"({"kind": "synthetic", "jobs": 500, "arrival_rate_per_hour": 30, "size_mix": {"1": 3, "16": 1},
            "model_mix": {"resnet50": 1}, "framework_mix": {"tensorflow": 1, "pytorch": 3},
            "median_duration_minutes": 20, "duration_sigma": 0.5})",
        "s.json", "/workload", defaults, {"kind"});
    REQUIRE(options.ok());
    CHECK(options->seed == 42);
    CHECK(options->jobs == 500);
    CHECK(options->size_mix.size() == 2);
    CHECK(options->tensorflow_share == 0.25);
    CHECK(options->model_mix.size() == 1);
    CHECK(generate_synthetic(*options).jobs.size() == 500);
  }
  SECTION("synthetic errors name the path") {
    CHECK(synthetic_options_from_json(R"({"size_mix": {"two": 1}})", "s.json", "/workload").error().message ==
          "s.json: /workload/size_mix/two: 'two' is not a GPU count (an integer in 1..65535)");
    CHECK(synthetic_options_from_json(R"({"model_mix": {"resnet5": 1}})", "s.json", "/workload").error().message ==
          "s.json: /workload/model_mix/resnet5: unknown model 'resnet5' (did you mean 'resnet50'?)");
    CHECK(synthetic_options_from_json(R"({"kind": "synthetic"})", "s.json", "/workload")
              .error()
              .message.rfind("s.json: /workload/kind: unknown key", 0) == 0);
  }
  SECTION("philly: path required, options read") {
    const auto source = philly_source_from_json(R"({"path": "philly.csv", "max_jobs": 100, "seed": 3})", "s.json", "/workload");
    REQUIRE(source.ok());
    CHECK(source->path == "philly.csv");
    CHECK(source->options.max_jobs == 100);
    CHECK(source->options.seed == 3);
    CHECK(philly_source_from_json(R"({"max_jobs": 100})", "s.json", "/workload").error().message ==
          "s.json: /workload/path: missing required key");
  }
}
