// The Alibaba 2023 trace's qos column as each job's queue, for its pods as training jobs
// (load_alibaba_jobs) and as they are (load_trace_pods, replayed or drawn).
#include <catch2/catch.hpp>

#include <fstream>

#include "formats/traces/alibaba_workload.h"
#include "formats/traces/trace_pods.h"
#include "tests/sim/workload/workload_fixture.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

}  // namespace

TEST_CASE("formats::alibaba a pod's qos is its job's queue", "[formats][trace][tenants]") {
  TempDir dir;
  std::ofstream(dir.file("pods.csv")) << kPodHeader << "a,1000,1024,1,1000,,BE,Running,50,700,50\n"
                                      << "b,1000,1024,1,1000,,LS,Running,0,700,0\n"
                                      << "c,1000,1024,0,0,,Guaranteed,Running,0,700,0\n"
                                      << "d,1000,1024,2,1000,,,Running,60,700,60\n"
                                      << "e,1000,1024,1,1000,,LS,Running,70,700,70\n";
  SECTION("training jobs: names in the order the sorted jobs name them; an empty qos names none") {
    const auto w = load_alibaba_jobs(dir.file("pods.csv"));
    REQUIRE(w.ok());
    // Expectation: b (0 s, LS), a (50 s, BE), d (60 s, none), e (70 s, LS); c is CPU-only, skipped.
    CHECK(w->queue_names == std::vector<std::string>{"LS", "BE"});
    CHECK(tenants_of(*w) == "LS -\nBE -\n- -\nLS -\n");
  }
  SECTION("trace pods replayed and drawn: the same names, in the order of the workload's jobs") {
    const auto list = load_trace_pods(dir.file("pods.csv"));
    REQUIRE(list.ok());
    CHECK(list->queue_names == std::vector<std::string>{"BE", "LS", "Guaranteed"});
    const auto replay = replay_trace_pods(*list, 0);
    REQUIRE(replay.ok());
    CHECK(replay->queue_names == std::vector<std::string>{"LS", "Guaranteed", "BE"});
    CHECK(queue_counts(*replay) == std::map<std::string, size_t>{{"", 1}, {"LS", 2}, {"BE", 1}, {"Guaranteed", 1}});
    const Workload drawn = sample_trace_pods(*list, 7, 4000, 1.0);
    for (const JobSpec& job : drawn.jobs) {
      const std::string& pod = drawn.job_name(job.id);
      const std::string qos = pod == "a" ? "BE" : pod == "c" ? "Guaranteed" : pod == "d" ? "" : "LS";
      CHECK((job.queue == kNoQueue ? "" : drawn.queue_names.at(job.queue)) == qos);
    }
  }
}

TEST_CASE("formats::alibaba real pod lists: qos LS, BE, Burstable, Guaranteed, none in the 5-column files",
          "[formats][trace][tenants][shared]") {
  const std::string dir = shared_file("traces/alibaba-gpu-v2023");
  if (dir.empty()) return;
  SECTION("the default list's 8,152 pods: 4,647 LS, 3,398 BE, 100 Burstable, 7 Guaranteed") {
    const auto list = load_trace_pods(dir + "/openb_pod_list_default.csv");
    REQUIRE(list.ok());
    std::map<std::string, size_t> counts;
    for (const JobSpec& pod : list->pods) ++counts[pod.queue == kNoQueue ? "" : list->queue_names.at(pod.queue)];
    CHECK(counts == std::map<std::string, size_t>{{"LS", 4647}, {"BE", 3398}, {"Burstable", 100}, {"Guaranteed", 7}});
  }
  SECTION("multigpu20 has no qos column: no job names a queue") {
    const auto list = load_trace_pods(dir + "/openb_pod_list_multigpu20.csv");
    REQUIRE(list.ok());
    CHECK(list->queue_names.empty());
    const Workload drawn = sample_trace_pods(*list, 1, 100'000, 1.0);
    CHECK(drawn.queue_names.empty());
    CHECK(queue_counts(drawn).size() == 1);
  }
}
