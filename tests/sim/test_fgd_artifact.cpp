// The FGD artifact's protocol in fill scenarios ("protocol": "fgd-artifact"): its arrivals, its
// load curve, the loader's checks, and a run on a small trace.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "formats/traces/trace_pods.h"
#include "scenario/scenario_loader.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// 5-column pod lists (the multigpu layout): name, cpu_milli, memory_mib, num_gpu, gpu_milli.
TracePodList pods_of(const TempDir& dir, const std::string& rows) {
  std::ofstream(dir.file("pods.csv")) << "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n" << rows;
  auto list = load_trace_pods(dir.file("pods.csv"));
  REQUIRE(list.ok());
  return std::move(list).value();
}

int64_t arrived(const Workload& w) {
  int64_t total = 0;
  for (const JobSpec& job : w.jobs) total += job.gpu_milli_total();
  return total;
}

std::string load_error(const std::string& json, const std::string& dir) {
  auto scenario = parse_scenario(json, "test.json", dir);
  REQUIRE_FALSE(scenario.ok());
  return scenario.error().message;
}

}  // namespace

TEST_CASE("sim::artifact arrivals: the whole list once, then draws until the next would cross", "[sim][artifact]") {
  TempDir dir;
  // 3500 thousandths in the list; capacity 2000, target 200% = 4000.
  const TracePodList list = pods_of(dir, "a,1000,1024,1,1000\nb,1000,1024,1,500\nc,1000,1024,0,0\nd,1000,1024,2,1000\n");
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Workload w = artifact_trace_pods(list, seed, 2000, 2.0);
    REQUIRE(w.jobs.size() >= 4);
    std::vector<std::string> first;
    for (uint32_t i = 0; i < 4; ++i) first.push_back(w.job_name(i));
    std::sort(first.begin(), first.end());
    CHECK(first == std::vector<std::string>{"a", "b", "c", "d"});  // without replacement first
    CHECK(arrived(w) <= 4000);  // stops before the pod that would cross (only b or c fit in 500)
    for (uint32_t i = 4; i < w.jobs.size(); ++i) CHECK((w.job_name(i) == "b" || w.job_name(i) == "c"));
    CHECK(w.jobs.back().submit_ms == static_cast<int64_t>(w.jobs.size()) - 1);
  }
  CHECK(artifact_trace_pods(list, 3, 2000, 2.0).jobs.size() == artifact_trace_pods(list, 3, 2000, 2.0).jobs.size());
  SECTION("the crossing test adds the per-card share, as the artifact does") {
    // d alone: 2000 in the list, target 3000; a second d passes the test (2000 + 1000 <= 3000)
    // and brings the load to 4000; the third fails it.
    const TracePodList only_d = pods_of(dir, "d,1000,1024,2,1000\n");
    const Workload w = artifact_trace_pods(only_d, 1, 1000, 3.0);
    CHECK(w.jobs.size() == 2);
    CHECK(arrived(w) == 4000);
  }
  SECTION("a list above the target is trimmed at random positions") {
    const TracePodList four = pods_of(dir, "a,1000,1024,1,1000\nb,1000,1024,1,1000\nc,1000,1024,1,1000\nd,1000,1024,1,1000\n");
    const Workload w = artifact_trace_pods(four, 5, 1000, 2.0);
    CHECK(w.jobs.size() == 2);
    CHECK(arrived(w) == 2000);
  }
}

TEST_CASE("sim::artifact scenarios: protocol key and its errors", "[sim][artifact]") {
  TempDir dir;
  {
    std::ofstream nodes(dir.file("nodes.csv"));
    nodes << "sn,cpu_milli,memory_mib,gpu,model\n";
    for (int n = 0; n < 10; ++n) nodes << "n" << n << ",64000,262144,8,G2\n";  // 80 GPUs: no pod skips 1.5% of load
  }
  pods_of(dir, "a,4000,8192,1,500\nb,8000,16384,1,1000\nc,2000,4096,0,0\nd,4000,8192,1,250\n");
  const std::string base =
      R"({"mode": "fill", "cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"})";
  CHECK_THAT(load_error(base + R"(, "protocol": "fgd-artefact"})", dir.path.string()),
             Catch::Contains("/protocol: unknown protocol 'fgd-artefact' (did you mean 'fgd-artifact'?)"));
  CHECK_THAT(
      load_error(
          R"({"cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"}, "protocol": "topsim"})",
          dir.path.string()),
      Catch::Contains("/protocol: applies to \"mode\": \"fill\" only"));
  CHECK_THAT(load_error(base + R"(, "protocol": "fgd-artifact", "schedulers": ["fgd", "binpack"]})", dir.path.string()),
             Catch::Contains("/schedulers/1: 'binpack' has no version under \"protocol\": \"fgd-artifact\""));
  auto s =
      parse_scenario(base + R"(, "protocol": "fgd-artifact", "seeds": 3, "target_load": 2.0})", "test.json", dir.path.string());
  REQUIRE(s.ok());
  CHECK(s->schedulers ==
        std::vector<std::string>{"best-fit", "dot-product", "gpu-packing", "gpu-clustering", "random", "fgd", "fgd-pack"});
  SECTION("a run: values at 100% and the curve, same figures for any thread count") {
    const ResultSet one = run_all(*s, 1);
    const ResultSet two = run_all(*s, 2);
    CHECK(one.scenario.protocol == "fgd-artifact");
    for (const SchedulerResult& r : one.schedulers) {
      INFO(r.name);
      REQUIRE(r.metric("gpu_alloc_ratio.at_100"));
      CHECK(r.metric("gpu_alloc_ratio.at_100")->over_seeds.mean ==
            two.scheduler(r.name)->metric("gpu_alloc_ratio.at_100")->over_seeds.mean);
      CHECK(r.metric("arrived_load")->over_seeds.max <= 2.0);
      CHECK_FALSE(r.runs.front().load_curve.empty());
    }
  }
}

TEST_CASE("sim::artifact shipped scenarios load", "[sim][artifact][shared]") {
  if (shared_file("traces").empty()) return;
  for (const char* name : {"fgd-artifact-default", "fgd-artifact-gpushare40", "fgd-artifact-gpushare60",
                           "fgd-artifact-gpushare80", "fgd-artifact-gpushare100", "fgd-artifact-multigpu20",
                           "fgd-artifact-multigpu30", "fgd-artifact-multigpu40", "fgd-artifact-multigpu50"}) {
    INFO(name);
    const auto s = load_scenario(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/" + name + ".json");
    REQUIRE(s.ok());
    CHECK(s->protocol == FillProtocol::FgdArtifact);
    CHECK(s->seed == 42);
    CHECK(s->seeds == 10);
    CHECK(s->schedulers.size() == 7);
  }
}
