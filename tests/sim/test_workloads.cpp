// Workloads: the Philly trace loader, the synthetic generator and JSON job lists / sections.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/jobs/job_list_json.h"
#include "formats/traces/philly_trace.h"
#include "sim/workload/synthetic_workload.h"
#include "sim/workload/workload_mix.h"
#include "test_support.h"

using namespace topsim;

namespace {

constexpr const char* kPhillyHeader = "timestamp,duration,num_gpus,gpu_time,cluster\n";

// Every field of every job, one line per job: equal workloads give equal strings.
std::string fingerprint(const Workload& workload) {
  std::ostringstream out;
  for (const JobSpec& j : workload.jobs) {
    out << j.id << ' ' << j.submit_ms << ' ' << j.workers << 'x' << j.gpus_per_worker << ' ' << enum_name(j.framework) << ' '
        << j.model << ' ' << j.batch_per_gpu << ' ' << j.iterations << ' ' << j.ideal_duration_ms << ' '
        << j.unequal_pod_gpus.size() << ' ' << workload.job_name(j.id) << '\n';
  }
  return out.str();
}

bool sorted_and_numbered(const Workload& workload) {
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    if (workload.jobs[i].id != i) return false;
    if (i > 0 && workload.jobs[i].submit_ms < workload.jobs[i - 1].submit_ms) return false;
  }
  return true;
}

// Share of jobs per model name.
std::map<std::string, double> model_shares(const Workload& workload) {
  std::map<std::string, double> shares;
  for (const JobSpec& job : workload.jobs) shares[workload_model_names().at(job.model)] += 1.0 / workload.jobs.size();
  return shares;
}

double tensorflow_share(const Workload& workload) {
  const auto tf = std::count_if(workload.jobs.begin(), workload.jobs.end(),
                                [](const JobSpec& j) { return j.framework == Framework::TensorFlow; });
  return static_cast<double>(tf) / workload.jobs.size();
}

// Loads `body` (after the header) written to a temp file named philly.csv; the error or "".
std::string philly_error(const std::string& body, const PhillyOptions& options = {}) {
  test::TempDir dir;
  std::ofstream(dir.file("philly.csv")) << kPhillyHeader << body;
  const auto workload = load_philly(dir.file("philly.csv"), options);
  if (workload.ok()) return "";
  const std::string& message = workload.error().message;
  const size_t name = message.find("philly.csv");
  return name == std::string::npos ? message : message.substr(name);  // drop the temp folder
}

Expected<Workload> philly_text(const std::string& text, const PhillyOptions& options = {}) {
  std::istringstream in(text);
  return read_philly(in, "philly.csv", options);
}

}  // namespace

TEST_CASE("sim::gang_shape splits jobs above a node into equal pods", "[sim][workload]") {
  SECTION("up to a node's worth of GPUs is one pod") {
    CHECK(gang_shape(1, 8).workers == 1);
    CHECK(gang_shape(8, 8).workers == 1);
    CHECK(gang_shape(8, 8).gpus_per_worker == 8);
  }
  SECTION("above it, pods of the largest divisor <= gpus_per_node") {
    auto shape = [](int gpus, int per_node) {
      const PodShape s = gang_shape(gpus, per_node);
      return std::to_string(s.workers) + "x" + std::to_string(s.gpus_per_worker);
    };
    CHECK(shape(16, 8) == "2x8");
    CHECK(shape(128, 8) == "16x8");
    CHECK(shape(12, 8) == "2x6");
    CHECK(shape(24, 8) == "3x8");
    CHECK(shape(13, 8) == "13x1");  // a prime: single-GPU pods
    CHECK(shape(12, 4) == "3x4");
  }
}

TEST_CASE("sim::philly loads the real trace", "[sim][workload]") {
  const std::string path = test::shared_file("traces/philly/philly.csv");
  if (path.empty()) return;
  const auto workload = load_philly(path);
  REQUIRE(workload.ok());
  const auto& jobs = workload->jobs;

  SECTION("all 82,247 jobs, sorted by submit time, numbered in that order, the first at 0") {
    CHECK(jobs.size() == 82247);
    CHECK(sorted_and_numbered(*workload));
    CHECK(jobs.front().submit_ms == 0);
    CHECK(workload->source == "philly.csv");
  }
  SECTION("the earliest row (2017-09-04 10:30:41, 2240194 s, 8 GPUs) is job 0; the last row is 9,408,690 s later") {
    CHECK(jobs.front().ideal_duration_ms == 2'240'194'000);
    CHECK(jobs.front().workers == 1);
    CHECK(jobs.front().gpus_per_worker == 8);
    CHECK(jobs.back().submit_ms == 9'408'690'000);
    CHECK(jobs.back().ideal_duration_ms == 64'000);
  }
  SECTION("jobs above 8 GPUs are gangs of 8-GPU pods (12 -> 2 x 6); the trace's GPU counts are preserved") {
    std::map<int, int> by_gpus;
    std::map<std::string, int> by_shape;  // "GPUs: workers x per-worker"
    for (const JobSpec& job : jobs) {
      ++by_gpus[job.total_gpus()];
      ++by_shape[std::to_string(job.total_gpus()) + ": " + std::to_string(job.workers) + "x" +
                 std::to_string(job.gpus_per_worker)];
    }
    CHECK(by_gpus == std::map<int, int>{
                         {1, 76627}, {2, 1818}, {4, 1870}, {8, 1643}, {12, 7}, {16, 199}, {24, 7}, {32, 67}, {64, 6}, {128, 3}});
    CHECK(by_shape == std::map<std::string, int>{{"1: 1x1", 76627},
                                                 {"2: 1x2", 1818},
                                                 {"4: 1x4", 1870},
                                                 {"8: 1x8", 1643},
                                                 {"12: 2x6", 7},
                                                 {"16: 2x8", 199},
                                                 {"24: 3x8", 7},
                                                 {"32: 4x8", 67},
                                                 {"64: 8x8", 6},
                                                 {"128: 16x8", 3}});
  }
  SECTION("the seeded model mix is within 1 point of the default shares, frameworks about 50/50") {
    const auto shares = model_shares(*workload);
    for (const ModelShare& share : default_model_mix()) CHECK(std::abs(shares.at(share.model) - share.weight) < 0.01);
    CHECK(std::abs(tensorflow_share(*workload) - 0.5) < 0.01);
  }
  SECTION("same seed -> the identical workload; another seed -> another model draw, same arrivals") {
    CHECK(fingerprint(*load_philly(path)) == fingerprint(*workload));
    PhillyOptions other;
    other.seed = 2;
    const auto reseeded = load_philly(path, other);
    size_t same_model = 0, same_submit = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      same_model += reseeded->jobs[i].model == jobs[i].model;
      same_submit += reseeded->jobs[i].submit_ms == jobs[i].submit_ms;
    }
    CHECK(same_submit == jobs.size());
    CHECK(same_model < jobs.size() * 0.4);  // independent draws agree ~27% of the time
  }
  SECTION("max_jobs keeps the earliest jobs, with the draws of the full load") {
    PhillyOptions first;
    first.max_jobs = 1000;
    const auto prefix = load_philly(path, first);
    REQUIRE(prefix->jobs.size() == 1000);
    CHECK(fingerprint(*prefix) == fingerprint(Workload{{jobs.begin(), jobs.begin() + 1000}, {}, "", nullptr, nullptr, {}}));
  }
}

TEST_CASE("sim::philly rows become jobs as documented", "[sim][workload]") {
  SECTION("unsorted rows are sorted by time, ties in file order; blank lines are skipped") {
    const auto w = philly_text(std::string(kPhillyHeader) +
                               "2017-10-09 07:00:10,5.0,1,5.0,a\n"
                               "\n"
                               "2017-10-09 07:00:00,7.0,2,14.0,a\r\n"
                               "2017-10-09 07:00:10,9.0,16,144.0,b\n");
    REQUIRE(w.ok());
    REQUIRE(w->jobs.size() == 3);
    CHECK(w->jobs[0].ideal_duration_ms == 7000);
    CHECK(w->jobs[1].ideal_duration_ms == 5000);
    CHECK(w->jobs[1].submit_ms == 10'000);
    CHECK(w->jobs[2].ideal_duration_ms == 9000);
    CHECK(w->jobs[2].workers == 2);
  }
  SECTION("a zero duration is kept as a zero-length job") {
    const auto w = philly_text(std::string(kPhillyHeader) + "2017-10-09 07:00:10,0.0,1,0.0,a\n");
    REQUIRE(w.ok());
    CHECK(w->jobs.at(0).ideal_duration_ms == 0);
  }
  SECTION("arrival_time_scale 0.5 halves submit times and keeps durations") {
    PhillyOptions options;
    options.arrival_time_scale = 0.5;
    const auto w =
        philly_text(std::string(kPhillyHeader) + "2017-10-09 07:00:00,60,1,60,a\n2017-10-09 07:01:00,60,1,60,a\n", options);
    REQUIRE(w.ok());
    CHECK(w->jobs[1].submit_ms == 30'000);
    CHECK(w->jobs[1].ideal_duration_ms == 60'000);
  }
  SECTION("a header-only file is an empty workload") { CHECK(philly_text(kPhillyHeader)->jobs.empty()); }
}

TEST_CASE("sim::philly bad input gives one error naming file, line and column", "[sim][workload]") {
  const std::string good = "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n";
  SECTION("a missing file names the path and the reason") {
    const auto w = load_philly("/nonexistent/philly.csv");
    REQUIRE_FALSE(w.ok());
    CHECK(w.error().message == "cannot open '/nonexistent/philly.csv': No such file or directory");
  }
  SECTION("a bad or missing header is reported on line 1") {
    CHECK(philly_text("time,duration\n" + good).error().message ==
          "philly.csv:1: bad header 'time,duration' (expected 'timestamp,duration,num_gpus,gpu_time,cluster')");
    CHECK(philly_text("").error().message ==
          "philly.csv: empty file, expected the header 'timestamp,duration,num_gpus,gpu_time,cluster'");
  }
  SECTION("a non-integer num_gpus names line 3 and the column") {
    CHECK(philly_error(good + "2017-10-09 07:01:55,66.0,x,66.0,11cb48\n") ==
          "philly.csv:3: column num_gpus: 'x' is not an integer");
  }
  SECTION("num_gpus below 1 or a negative duration is rejected") {
    CHECK(philly_error("2017-10-09 07:01:55,66.0,0,66.0,a\n") == "philly.csv:2: column num_gpus: '0' is out of range (1-65535)");
    CHECK(philly_error(good + good + "2017-10-09 07:01:55,-5.0,1,66.0,a\n") ==
          "philly.csv:4: column duration: '-5.0' is negative");
  }
  SECTION("non-numbers, bad timestamps and missing fields are rejected") {
    CHECK(philly_error("2017-10-09 07:01:55,abc,1,66.0,a\n") == "philly.csv:2: column duration: 'abc' is not a number");
    CHECK(philly_error("2017-10-09 07:01:55,nan,1,66.0,a\n") == "philly.csv:2: column duration: 'nan' is not a number");
    CHECK(philly_error("2017-02-30 07:01:55,66.0,1,66.0,a\n") ==
          "philly.csv:2: column timestamp: '2017-02-30 07:01:55' is not a timestamp (YYYY-MM-DD HH:MM:SS)");
    CHECK(philly_error("2017-10-09 07:01:55,66.0,1\n") ==
          "philly.csv:2: expected 5 fields (timestamp,duration,num_gpus,gpu_time,cluster), found 3");
  }
  SECTION("invalid options are an error, not a crash") {
    PhillyOptions options;
    options.gpus_per_node = 0;
    CHECK(philly_text(kPhillyHeader + good, options).error().message == "philly options: gpus_per_node must be >= 1");
    options = {};
    options.model_mix = {{"vgg61", 1.0, 64}};
    CHECK(philly_text(kPhillyHeader + good, options).error().message == "philly options: model mix: unknown model 'vgg61'");
  }
}

TEST_CASE("sim::synthetic generates a seeded workload", "[sim][workload]") {
  SyntheticOptions options;
  options.jobs = 100'000;
  options.seed = 7;
  options.arrival_rate_per_hour = 120;
  REQUIRE(validate(options).ok());
  const Workload w = generate_synthetic(options);

  SECTION("the requested count, sorted, numbered, the first at 0") {
    CHECK(w.jobs.size() == 100'000);
    CHECK(sorted_and_numbered(w));
    CHECK(w.jobs.front().submit_ms == 0);
    CHECK(w.source == "synthetic(seed=7)");
  }
  SECTION("same seed -> identical; another seed -> different") {
    CHECK(fingerprint(generate_synthetic(options)) == fingerprint(w));
    SyntheticOptions other = options;
    other.seed = 8;
    CHECK(fingerprint(generate_synthetic(other)) != fingerprint(w));
  }
  SECTION("the arrival rate over 100k jobs is within 2% of 120/hour") {
    const double hours = w.jobs.back().submit_ms / 3.6e6;
    CHECK(std::abs((w.jobs.size() - 1) / hours / 120.0 - 1.0) < 0.02);
  }
  SECTION("size shares within 1 point of the mix; 16-GPU jobs are 2 x 8 gangs") {
    std::map<int, double> shares;
    std::map<std::string, int> shapes;  // distinct "workers x per-worker"
    for (const JobSpec& job : w.jobs) {
      shares[job.total_gpus()] += 1.0 / w.jobs.size();
      shapes[std::to_string(job.workers) + "x" + std::to_string(job.gpus_per_worker)] = 1;
    }
    for (const SizeShare& size : options.size_mix) CHECK(std::abs(shares[size.gpus] - size.weight) < 0.01);
    CHECK(shapes == std::map<std::string, int>{{"1x1", 1}, {"1x2", 1}, {"1x4", 1}, {"1x8", 1}, {"2x8", 1}});
  }
  SECTION("model and framework shares follow the mix; the median duration is within 3% of 60 minutes") {
    const auto shares = model_shares(w);
    for (const ModelShare& share : default_model_mix()) CHECK(std::abs(shares.at(share.model) - share.weight) < 0.01);
    CHECK(std::abs(tensorflow_share(w) - 0.5) < 0.01);
    std::vector<int64_t> durations;
    for (const JobSpec& job : w.jobs) durations.push_back(job.ideal_duration_ms);
    std::nth_element(durations.begin(), durations.begin() + durations.size() / 2, durations.end());
    CHECK(std::abs(durations[durations.size() / 2] / 3.6e6 - 1.0) < 0.03);
  }
  SECTION("invalid options are reported by validate") {
    SyntheticOptions bad = options;
    bad.size_mix = {{0, 1.0}};
    CHECK(validate(bad).error().message == "synthetic options: size mix: 0 GPUs is out of range (1-65535)");
    bad = options;
    bad.arrival_rate_per_hour = 0;
    CHECK(validate(bad).error().message == "synthetic options: arrival_rate_per_hour must be a positive number");
  }
}

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
  const auto w = load_job_list(list.dump(), "scenario.json", "/workload/jobs");
  return w.ok() ? "" : w.error().message;
}

}  // namespace

TEST_CASE("sim::job_list reads scenario job lists", "[sim][workload]") {
  SECTION("the example loads: replicas, sorted by submit time, names, annotations, defaults") {
    const auto w = load_job_list(kJobList, "scenario.json", "/workload/jobs");
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
    const auto w = load_job_list(kJobList, "scenario.json");
    const JobSpec& bert = w->jobs[4];
    CHECK(bert.unequal_pod_gpus == std::vector<uint16_t>{2, 2, 1});
    CHECK((bert.workers == 3 && bert.gpus_per_worker == 2));
    CHECK(bert.total_gpus() == 5);
  }
  SECTION("a named entry with count > 1 numbers its replicas") {
    const auto w = load_job_list(R"([{"name": "r", "model": "resnet50", "iterations": 5, "count": 2}])", "s.json");
    CHECK(w->job_name(0) == "r-0");
    CHECK(w->job_name(1) == "r-1");
  }
}

TEST_CASE("sim::job_list errors name the source and the JSON path", "[sim][workload]") {
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
          "scenario.json: /workload/jobs/0/annotations/gpu.topology~1policy: 'fastest' is not one of single-numa, nvlink, "
          "best-effort, spread");
    CHECK(job_list_error(1, "name", "\"vgg16-tf\"") ==
          "scenario.json: /workload/jobs/1/name: job name 'vgg16-tf' is used twice (also by /workload/jobs/0)");
  }
  SECTION("not an array, and syntax errors with line and column") {
    CHECK(load_job_list("{}", "s.json", "/jobs").error().message ==
          "s.json: /jobs: must be an array of job entries, got an object");
    CHECK(load_job_list("[\n  {,}\n]", "s.json").error().message.rfind("s.json:2:4: ", 0) == 0);
  }
}

TEST_CASE("sim::workload sections read synthetic and Philly options from JSON", "[sim][workload]") {
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
