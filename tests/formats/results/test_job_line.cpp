// jobs.jsonl lines (formats/results/job_line.h): the hand-written formatter gives exactly the bytes
// nlohmann::json gives for the same object, over varied jobs and records: every kind and state,
// names and reasons with quotes, backslashes, control characters, UTF-8 and invalid bytes,
// extreme and non-finite numbers.
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/hardware.h"
#include "core/model_catalog.h"
#include "formats/results/job_line.h"
#include "util/number_format.h"

using namespace topsim;

namespace {

using Json = nlohmann::ordered_json;

double seconds(int64_t ms) { return rounded_micro(static_cast<double>(ms) / 1000.0); }

// The line as the JSON reporter built it with nlohmann::json (the reference).
std::string reference_line(const std::string& scheduler, uint64_t seed, const Workload& workload, uint32_t id,
                           const JobRecord& r) {
  const JobSpec& job = workload.jobs[id];
  Json pods = Json::array();
  for (const PodPlacement& pod : r.pods) pods.push_back({{"node", pod.node}, {"gpus", pod.gpus}});
  Json j = {
      {"scheduler", scheduler},     {"seed", seed}, {"id", id}, {"name", workload.job_name(id)}, {"kind", enum_name(job.kind)},
      {"state", enum_name(r.state)}};
  if (job.is_share()) {
    j["gpu_mem_gib"] = job.gpu_mem_gib;
    if (job.gpu_core_percent > 0) j["gpu_core_percent"] = job.gpu_core_percent;
  } else if (job.kind == JobKind::TracePod) {
    j["num_gpu"] = job.gpus_per_worker;
    j["gpu_milli"] = job.gpu_milli;
  } else {
    j["workers"] = job.workers;
    j["gpus_per_worker"] = job.gpus_per_worker;
  }
  const DnnModel* model = model_at(job.model);
  if (model) {
    j["model"] = model->name;
    j["framework"] = enum_name(job.framework);
  }
  if (job.gpu_models != kAnyGpuModel) j["gpu_models"] = workload.selected_gpu_names(job);
  if (const auto extras = workload.extras.find(id); extras != workload.extras.end() && !extras->second.annotations.empty())
    j["annotations"] = extras->second.annotations;
  j["submit_s"] = seconds(r.submit_ms);
  if (r.start_ms >= 0) j["wait_s"] = seconds(r.start_ms - r.submit_ms);
  if (r.finish_ms >= 0) j["jct_s"] = seconds(r.finish_ms - r.submit_ms);
  if (r.start_ms >= 0) j["start_s"] = seconds(r.start_ms);
  if (r.finish_ms >= 0) j["finish_s"] = seconds(r.finish_ms);
  j["pods"] = pods;
  if (r.start_ms >= 0 && job.is_training()) {
    j["transport"] = enum_name(r.comm.transport);
    j["ring_gbps"] = rounded_micro(r.comm.bus_bandwidth_gbps);
    j["samples_per_sec"] = rounded_micro(r.samples_per_sec);
    j["ideal_samples_per_sec"] = rounded_micro(r.ideal_samples_per_sec);
    j["unit"] = std::string(model ? enum_name(model->unit) : "samples") + "/s";
    j["cross_numa"] = r.cross_numa;
    j["relaxed"] = r.relaxed;
  }
  if (!r.placement_note.empty()) j["placement_note"] = r.placement_note;
  if (!r.reason.empty()) j["reason"] = r.reason;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

const std::vector<std::string> kTexts = {"",
                                         "job-7",
                                         "quote \" and backslash \\",
                                         "tab\tnew line\ncarriage\rbell\x07 unit\x1f del\x7f",
                                         std::string("nul \0 inside", 12),
                                         "UTF-8: Zürich, 日本語, emoji \xF0\x9F\x98\x80",
                                         "invalid \xff\xfe bytes, cut \xE6\x97 sequence",
                                         "</script><img src=x onerror=alert(1)>"};

const std::vector<double> kDoubles = {0.0,
                                      -0.0,
                                      1.0,
                                      0.1,
                                      1e-7,
                                      123456.7891234,
                                      1e15,
                                      1e16,
                                      -2.5e-5,
                                      1e300,
                                      std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity()};

const std::vector<int64_t> kTimes = {-1, 0, 1, 999, 1001, 123456789, 4102444800123, int64_t{1} << 53, 9'000'000'000'000'000'000};

JobSpec random_job(std::mt19937_64& random, uint32_t id) {
  JobSpec job;
  job.id = id;
  job.kind = static_cast<JobKind>(random() % 3);
  job.workers = static_cast<uint16_t>(random() % 3 == 0 ? 65535 : 1 + random() % 16);
  job.gpus_per_worker = static_cast<uint16_t>(random() % 9);
  job.framework = random() % 2 ? Framework::PyTorch : Framework::TensorFlow;
  job.model = random() % 4 == 0 ? kNoModel : static_cast<uint16_t>(random() % model_catalog().size());
  job.gpu_mem_gib = static_cast<uint16_t>(random() % 3 == 0 ? 65535 : random() % 80);
  job.gpu_core_percent = static_cast<uint8_t>(random() % 2 ? 0 : 5 * (random() % 51));
  job.gpu_milli = static_cast<uint16_t>(random() % 1001);
  return job;
}

JobRecord random_record(std::mt19937_64& random) {
  auto pick = [&](const auto& values) { return values[random() % values.size()]; };
  JobRecord r;
  r.state = static_cast<JobState>(random() % 7);
  r.submit_ms = pick(kTimes);
  r.start_ms = pick(kTimes);
  r.finish_ms = pick(kTimes);
  for (size_t p = random() % 4; p > 0; --p) {
    PodPlacement pod;
    pod.node = random() % 5 == 0 ? std::numeric_limits<int>::max() : static_cast<int>(random() % 2000);
    for (size_t g = random() % 9; g > 0; --g) pod.gpus.push_back(static_cast<int>(random() % 8));
    r.pods.push_back(pod);
  }
  r.comm.transport = static_cast<CommTransport>(random() % 7);
  r.comm.bus_bandwidth_gbps = pick(kDoubles);
  r.samples_per_sec = pick(kDoubles);
  r.ideal_samples_per_sec = pick(kDoubles);
  r.cross_numa = random() % 2;
  for (size_t i = random() % 3; i > 0; --i) r.relaxed.push_back(pick(kTexts));
  r.reason = pick(kTexts);
  r.placement_note = pick(kTexts);
  return r;
}

}  // namespace

TEST_CASE("formats::append_job_line gives nlohmann::json's bytes", "[formats][jobs]") {
  std::mt19937_64 random(20261123);
  Workload workload;
  // Jobs that select GPU models: one (h100), or two (a100, h100: written in catalog order).
  workload.gpu_model_sets = {
      uint64_t{1} << find_gpu_model("h100")->catalog_index,
      (uint64_t{1} << find_gpu_model("h100")->catalog_index) | (uint64_t{1} << find_gpu_model("a100")->catalog_index)};
  for (uint32_t id = 0; id < 4000; ++id) {
    workload.jobs.push_back(random_job(random, id));
    if (id % 7 < 2) workload.jobs.back().gpu_models = static_cast<uint8_t>(id % 7);
    if (random() % 2) workload.extras[id].name = kTexts[random() % kTexts.size()];
    for (size_t a = random() % 4 == 0 ? random() % 3 + 1 : 0; a > 0; --a)
      workload.extras[id].annotations[kTexts[random() % kTexts.size()]] = kTexts[random() % kTexts.size()];
  }
  const std::vector<std::string> schedulers = {"topology-aware", "default", "name \"with\" \\ and \xC3\xA9"};
  for (uint32_t id = 0; id < workload.jobs.size(); ++id) {
    const JobRecord record = random_record(random);
    const std::string& scheduler = schedulers[id % schedulers.size()];
    const uint64_t seed = id % 5 == 0 ? std::numeric_limits<uint64_t>::max() : id;
    std::string line;
    append_job_line(line, scheduler, seed, workload, workload.jobs[id], record);
    // Every line is the reference's, byte for byte.
    REQUIRE(line == reference_line(scheduler, seed, workload, id, record));
  }
}

TEST_CASE("formats::append_job_line appends one line", "[formats][jobs]") {
  Workload workload;
  workload.jobs.push_back(JobSpec{});
  JobRecord record;
  record.state = JobState::Finished;
  record.submit_ms = 1500;
  record.start_ms = 2500;
  record.finish_ms = 62500;
  record.pods.push_back({3, {0, 1}, 2500});
  std::string out = "before\n";
  append_job_line(out, "default", 42, workload, workload.jobs[0], record);
  // What was there stays; the job follows as one line, times in seconds.
  CHECK(out.rfind("before\n{\"scheduler\":\"default\",\"seed\":42,\"id\":0,\"name\":\"job-0\",", 0) == 0);
  CHECK(out.find("\"submit_s\":1.5,\"wait_s\":1.0,\"jct_s\":61.0,\"start_s\":2.5,\"finish_s\":62.5") != std::string::npos);
  CHECK(out.find("\"pods\":[{\"node\":3,\"gpus\":[0,1]}]") != std::string::npos);
  CHECK(out.back() == '\n');
  CHECK(std::count(out.begin(), out.end(), '\n') == 2);
  CHECK(out.find("gpu_models") == std::string::npos);  // a job that selects no GPU model says nothing
  // A job that selects GPU models lists them by catalog name, in catalog order.
  workload.gpu_model_sets = {(uint64_t{1} << find_gpu_by_product_label("NVIDIA-H100-80GB-HBM3")->catalog_index) |
                             (uint64_t{1} << find_gpu_model("a100")->catalog_index)};
  workload.jobs[0].gpu_models = 0;
  out.clear();
  append_job_line(out, "default", 42, workload, workload.jobs[0], record);
  CHECK(out.find(",\"gpu_models\":[\"a100\",\"h100\"],\"submit_s\":1.5,") != std::string::npos);
}
