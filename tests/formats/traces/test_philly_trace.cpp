#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/traces/philly_trace.h"
#include "tests/sim/workload/workload_fixture.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

constexpr const char* kPhillyHeader = "timestamp,duration,num_gpus,gpu_time,cluster\n";

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

TEST_CASE("formats::philly loads the real trace", "[formats][workload]") {
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
    Workload head;
    head.jobs.assign(jobs.begin(), jobs.begin() + 1000);
    CHECK(fingerprint(*prefix) == fingerprint(head));
    const std::string all = tenants_of(*workload);  // and the queues of the full load's first 1000 jobs
    size_t cut = 0;
    for (int i = 0; i < 1000; ++i) cut = all.find('\n', cut) + 1;
    CHECK(tenants_of(*prefix) == all.substr(0, cut));
  }
}

TEST_CASE("formats::philly the cluster column is each job's queue (its virtual cluster)", "[formats][workload][tenants]") {
  SECTION("the real trace: 15 virtual clusters, 41,226 jobs in 6214e9, every job in one") {
    const std::string path = test::shared_file("traces/philly/philly.csv");
    if (path.empty()) return;
    const auto workload = load_philly(path);
    REQUIRE(workload.ok());
    const auto counts = queue_counts(*workload);
    CHECK(workload->queue_names.size() == 15);
    CHECK(counts.size() == 15);
    CHECK(counts.count("") == 0);
    CHECK(counts.at("6214e9") == 41'226);
    CHECK(counts.at("11cb48") == 16'091);
    CHECK(counts.at("795a4c") == 3);
    // Names in the order the jobs, sorted by submit time, first name them.
    CHECK(workload->queue_names.at(workload->jobs.front().queue) == workload->queue_names.front());
    CHECK(workload->priority_class_names.empty());
  }
  SECTION("names as written, in order of first appearance after sorting; an empty field names none") {
    const auto w = philly_text(std::string(kPhillyHeader) +
                               "2017-10-09 07:00:10,5.0,1,5.0,b\n"
                               "2017-10-09 07:00:00,7.0,2,14.0,6214e9\n"
                               "2017-10-09 07:00:20,9.0,1,9.0,\n"
                               "2017-10-09 07:00:30,9.0,1,9.0,b\n");
    REQUIRE(w.ok());
    CHECK(w->queue_names == std::vector<std::string>{"6214e9", "b"});
    CHECK(tenants_of(*w) == "6214e9 -\nb -\n- -\nb -\n");
  }
  SECTION("max_jobs keeps the names of the jobs kept only") {
    PhillyOptions first;
    first.max_jobs = 1;
    const auto w =
        philly_text(std::string(kPhillyHeader) + "2017-10-09 07:00:10,5.0,1,5.0,b\n2017-10-09 07:00:00,7.0,1,7,a\n", first);
    REQUIRE(w.ok());
    CHECK(w->queue_names == std::vector<std::string>{"a"});
  }
  SECTION("more than 65,534 distinct virtual clusters is refused at the row of the first too many") {
    std::string text = kPhillyHeader;
    for (int i = 0; i <= 65'534; ++i) text += "2017-10-09 07:00:00,1,1,1,vc" + std::to_string(i) + "\n";
    CHECK(philly_text(text).error().message ==
          "philly.csv:65536: column cluster: more than 65,534 distinct queues (virtual clusters) in one workload");
    text.resize(text.rfind("2017"));  // 65,534 names fit
    CHECK(philly_text(text).value().queue_names.size() == 65'534);
  }
}

TEST_CASE("formats::philly rows become jobs as documented", "[formats][workload]") {
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

TEST_CASE("formats::philly bad input gives one error naming file, line and column", "[formats][workload]") {
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
