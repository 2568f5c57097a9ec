// The spilled per-job records (sim/job_store.h): whatever order records arrive in and however
// many chunks they fill, they come back by id, every field exact; the file has no name; a write
// that fails is reported, not ignored.
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "sim/job_store.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

JobRecord record_of(uint32_t id, std::mt19937_64& random) {
  JobRecord r;
  r.state = static_cast<JobState>(id % 7);
  r.submit_ms = static_cast<int64_t>(random() >> 1);
  r.start_ms = id % 3 == 0 ? -1 : static_cast<int64_t>(id) * 1000 + 7;
  r.finish_ms = id % 5 == 0 ? std::numeric_limits<int64_t>::max() : -1;
  r.first_pod_ms = static_cast<int64_t>(id);
  for (uint32_t p = 0; p < id % 4; ++p)
    r.pods.push_back({static_cast<int>(random() % 5000), {0, 3, 7}, -static_cast<int64_t>(p)});
  r.comm.ranks = static_cast<int>(id % 17);
  r.comm.hosts = 2;
  r.comm.bus_bandwidth_gbps = id % 11 == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 / (id + 1);
  r.comm.nvlink_hops = id % 2 == 0;
  r.comm.transport = static_cast<CommTransport>(id % 7);
  r.comm.algorithm = static_cast<NcclAlgorithm>(id % 4);
  r.comm.ring_bus_gbps = id % 3 == 0 ? 0 : 2.0 / (id + 1);
  r.comm.nvls_bus_gbps = id % 5 == 0 ? 0 : 3.0 / (id + 1);
  r.comm.tree_bus_gbps = id % 7 == 0 ? 0 : 5.0 / (id + 1);
  if (id % 9 == 0) r.comm.tree_tuner_bus_gbps = 3.75 / (id + 1);  // a 3-host tree's, one of them
  if (id % 9 == 3) r.comm.nvls_tuner_bus_gbps = 2.25 / (id + 1);
  r.contended_ms = id % 4 == 0 ? 0 : 1000 + id;
  r.least_network_share = id % 4 == 0 ? 1 : 1.0 / (id + 2);
  r.samples_per_sec = -0.0;
  r.ideal_samples_per_sec = std::numeric_limits<double>::denorm_min() * id;
  r.cross_numa = id % 2 == 1;
  if (id % 6 == 0) r.relaxed = {"min-bandwidth", std::string("nul\0byte", 8)};
  if (id % 5 == 0) r.placement_note = "held to no tier " + std::to_string(id);
  r.reason = id % 4 == 0 ? "" : "reason of job " + std::to_string(id) + " with UTF-8: Zürich";
  if (id % 3 == 1) {  // an LLM job's step: every figure distinct
    auto step = std::make_shared<LlmStep>();
    double* figures[] = {&step->step_ms,
                         &step->compute_ms,
                         &step->tp_ms,
                         &step->ep_ms,
                         &step->cp_ms,
                         &step->pp_bubble_ms,
                         &step->pp_p2p_ms,
                         &step->dp_exposed_ms,
                         &step->dp_comm_ms,
                         &step->optimizer_ms,
                         &step->offload_ms,
                         &step->tokens_per_sec,
                         &step->tokens_per_sec_per_gpu,
                         &step->model_tflops_per_gpu,
                         &step->mfu,
                         &step->memory.parameters_gib,
                         &step->memory.activations_gib};
    for (size_t i = 0; i < std::size(figures); ++i) *figures[i] = id + 1.0 / (i + 2);
    step->micro_batch = static_cast<int>(id % 7) + 1;
    r.llm = std::move(step);
  }
  return r;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void check_same(const JobRecord& a, const JobRecord& b) {
  CHECK(a.state == b.state);
  CHECK(a.submit_ms == b.submit_ms);
  CHECK(a.start_ms == b.start_ms);
  CHECK(a.finish_ms == b.finish_ms);
  CHECK(a.first_pod_ms == b.first_pod_ms);
  REQUIRE(a.pods.size() == b.pods.size());
  for (size_t p = 0; p < a.pods.size(); ++p) {
    CHECK(a.pods[p].node == b.pods[p].node);
    CHECK(a.pods[p].gpus == b.pods[p].gpus);
    CHECK(a.pods[p].placed_ms == b.pods[p].placed_ms);
  }
  CHECK(a.comm.ranks == b.comm.ranks);
  CHECK(a.comm.hosts == b.comm.hosts);
  CHECK(same_bits(a.comm.bus_bandwidth_gbps, b.comm.bus_bandwidth_gbps));
  CHECK(a.comm.nvlink_hops == b.comm.nvlink_hops);
  CHECK(a.comm.transport == b.comm.transport);
  CHECK(a.comm.algorithm == b.comm.algorithm);
  CHECK(same_bits(a.comm.ring_bus_gbps, b.comm.ring_bus_gbps));
  CHECK(same_bits(a.comm.nvls_bus_gbps, b.comm.nvls_bus_gbps));
  CHECK(same_bits(a.comm.tree_bus_gbps, b.comm.tree_bus_gbps));
  CHECK(same_bits(a.comm.nvls_tuner_bus_gbps, b.comm.nvls_tuner_bus_gbps));
  CHECK(same_bits(a.comm.tree_tuner_bus_gbps, b.comm.tree_tuner_bus_gbps));
  CHECK(a.contended_ms == b.contended_ms);
  CHECK(same_bits(a.least_network_share, b.least_network_share));
  CHECK(same_bits(a.samples_per_sec, b.samples_per_sec));
  CHECK(same_bits(a.ideal_samples_per_sec, b.ideal_samples_per_sec));
  CHECK(a.cross_numa == b.cross_numa);
  CHECK(a.relaxed == b.relaxed);
  CHECK(a.placement_note == b.placement_note);
  CHECK(a.reason == b.reason);
  REQUIRE((a.llm == nullptr) == (b.llm == nullptr));
  if (a.llm) {
    const LlmStep &x = *a.llm, &y = *b.llm;
    CHECK(same_bits(x.step_ms, y.step_ms));
    CHECK(same_bits(x.compute_ms, y.compute_ms));
    CHECK(same_bits(x.tp_ms, y.tp_ms));
    CHECK(same_bits(x.ep_ms, y.ep_ms));
    CHECK(same_bits(x.cp_ms, y.cp_ms));
    CHECK(same_bits(x.pp_bubble_ms, y.pp_bubble_ms));
    CHECK(same_bits(x.pp_p2p_ms, y.pp_p2p_ms));
    CHECK(same_bits(x.dp_exposed_ms, y.dp_exposed_ms));
    CHECK(same_bits(x.dp_comm_ms, y.dp_comm_ms));
    CHECK(same_bits(x.optimizer_ms, y.optimizer_ms));
    CHECK(same_bits(x.offload_ms, y.offload_ms));
    CHECK(same_bits(x.tokens_per_sec, y.tokens_per_sec));
    CHECK(same_bits(x.tokens_per_sec_per_gpu, y.tokens_per_sec_per_gpu));
    CHECK(same_bits(x.model_tflops_per_gpu, y.model_tflops_per_gpu));
    CHECK(same_bits(x.mfu, y.mfu));
    CHECK(x.micro_batch == y.micro_batch);
    CHECK(same_bits(x.memory.parameters_gib, y.memory.parameters_gib));
    CHECK(same_bits(x.memory.activations_gib, y.memory.activations_gib));
  }
}

}  // namespace

TEST_CASE("sim::JobStore gives every record back by id, exactly", "[sim][jobs]") {
  test::TempDir dir;
  std::mt19937_64 random(7);
  const uint32_t jobs = 5000;
  std::vector<JobRecord> records;
  for (uint32_t id = 0; id < jobs; ++id) records.push_back(record_of(id, random));
  std::vector<uint32_t> order(jobs);
  for (uint32_t id = 0; id < jobs; ++id) order[id] = id;
  std::shuffle(order.begin(), order.end(), random);
  // Buffers of 1 byte (a chunk per record), 4 KiB (many chunks) and the default (one chunk).
  for (const size_t buffer : {size_t{1}, size_t{4096}, JobStore::kDefaultBufferBytes}) {
    auto store = JobStore::create(dir.path.string(), buffer);
    REQUIRE(store);
    for (const uint32_t id : order) (*store)->add(id, records[id]);
    REQUIRE((*store)->finish());
    CHECK((*store)->size() == jobs);
    // The spill file has no name: the folder stays empty.
    CHECK(std::filesystem::is_empty(dir.path));
    std::vector<uint32_t> seen;
    const Status read = (*store)->for_each([&](uint32_t id, const JobRecord& r) {
      seen.push_back(id);
      check_same(r, records[id]);
    });
    REQUIRE(read);
    REQUIRE(seen.size() == jobs);
    CHECK(std::is_sorted(seen.begin(), seen.end()));
    CHECK(seen.back() == jobs - 1);
    // Read twice: the same.
    size_t again = 0;
    REQUIRE((*store)->for_each([&](uint32_t id, const JobRecord&) { again += id == seen[again] ? 1 : 0; }));
    CHECK(again == jobs);
  }
}

TEST_CASE("sim::JobStore reports a folder it cannot write in and a write that fails", "[sim][jobs]") {
  SECTION("a missing folder: an error naming it, at creation") {
    auto store = JobStore::create("/nonexistent-topsim-folder");
    REQUIRE_FALSE(store);
    CHECK(store.error().message == "cannot keep the per-job records in '/nonexistent-topsim-folder': No such file or directory");
  }
  SECTION("a write past the file size limit (a full disk alike): finish() reports it") {
    test::TempDir dir;
    auto store = JobStore::create(dir.path.string(), 1024);
    REQUIRE(store);
    rlimit old{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old;
    small.rlim_cur = 64 << 10;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::mt19937_64 random(1);
    for (uint32_t id = 0; id < 20000; ++id) (*store)->add(id, record_of(id, random));
    const Status finished = (*store)->finish();
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
    REQUIRE_FALSE(finished);
    CHECK(finished.error().message == "cannot keep the per-job records in '" + dir.path.string() + "': File too large");
  }
}
