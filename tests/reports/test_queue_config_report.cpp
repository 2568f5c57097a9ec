// The words `topsim import queues` prints for a queue configuration (reports/queue_config_report.h).
#include <catch2/catch.hpp>

#include "reports/queue_config_report.h"
#include "tests/test_support.h"

using namespace topsim;
using topsim::test::some_line_matches;

namespace {

ResourceGroup gpus(const std::string& flavor, int64_t nominal, std::optional<int64_t> borrowing = {},
                   std::optional<int64_t> lending = {}) {
  return {{kResourceGpu}, {{flavor, {{kResourceGpu, nominal, borrowing, lending}}}}};
}

}  // namespace

TEST_CASE("reports::queue_config a cohort tree with implicit parents, queues without cohort and KAI units", "[reports][queues]") {
  QueueConfig config;
  config.source = "q";
  config.fair_sharing = true;
  config.flavors = {{"h100", "q/a.yaml:1", {}}};
  ClusterQueueSpec child;
  child.name = "child", child.cohort = "leaf", child.groups = {gpus("h100", 0, 8)};
  ClusterQueueSpec solo;
  solo.name = "solo", solo.groups = {{{kResourceCpu, kResourceMemory},
                                      {{"h100", {{kResourceCpu, 1500, {}, {}}, {kResourceMemory, int64_t{3} << 29, {}, {}}}}}}};
  config.cluster_queues = {solo, child};
  CohortSpec leaf;
  leaf.name = "leaf", leaf.parent = "org", leaf.groups = {gpus("h100", 8, {}, 4)};
  config.cohorts = {leaf};
  KaiQueueSpec dept;
  dept.name = "dept", dept.cpu.quota = 2500, dept.cpu.limit = -1, dept.gpu.quota = -1, dept.gpu.limit = 0;
  config.kai_queues = {dept};
  config.skipped_kinds = {{"Namespace", 2}, {"Topology", 1}};
  const std::string out = render_queue_config(config);
  INFO(out);
  SECTION("a parent named but not declared is a root without quota; the declared cohort's own quota is shown") {
    CHECK(some_line_matches(out, "  cohort org \\(no Cohort object: no quota of its own\\)"));
    CHECK(some_line_matches(out, "    cohort leaf: fairSharing.weight 1; its own quota, shared by its subtree:"));
    CHECK(some_line_matches(out, " +h100 +nvidia.com/gpu +8 GPUs +no limit +4 GPUs"));
    CHECK(some_line_matches(out, "      ClusterQueue child: .*"));
    CHECK(some_line_matches(out, " +h100 +nvidia.com/gpu +0 GPUs +8 GPUs +no limit"));
  }
  SECTION("a queue without cohort; cpu in cores, memory in Gi") {
    CHECK(some_line_matches(out, "  no cohort \\(neither borrows nor lends\\):"));
    CHECK(some_line_matches(out, " +h100 +cpu +1.5 cores +no limit +no limit"));
    CHECK(some_line_matches(out, " +h100 +memory +1.5Gi +no limit +no limit"));
  }
  SECTION("Fair Sharing, KAI's -1 and 0, skipped kinds") {
    CHECK(some_line_matches(out, "Fair Sharing: on .*"));
    CHECK(some_line_matches(out, "    gpu quota unlimited, overQuotaWeight 1, limit 0"));
    CHECK(some_line_matches(out, "    cpu \\(cores\\) quota 2.5, overQuotaWeight 1, limit none"));
    CHECK(some_line_matches(out, "Skipped \\(not modelled\\): 2 x Namespace, 1 x Topology"));
  }
}

TEST_CASE("reports::queue_config a live LocalQueue's consumed resources, in people's units", "[reports][queues]") {
  QueueConfig config;
  config.source = "q";
  config.flavors = {{"h100", "q/a.yaml:1", {}}};
  ClusterQueueSpec team;
  team.name = "team", team.groups = {gpus("h100", 8)};
  config.cluster_queues = {team};
  config.local_queues = {
      {"lq", "q/a.yaml:1", "ml", "team", 2, {{"cpu", 31.999}, {"memory", 3.0 * (1 << 29)}, {"nvidia.com/gpu", 4}}},
      {"idle", "q/a.yaml:6", "ml", "team"}};
  const std::string out = render_queue_config(config);
  INFO(out);
  CHECK(some_line_matches(
      out, "  ml/lq -> ClusterQueue team; fairSharing.weight 2; consumed cpu 31.999 cores, memory 1.5Gi, nvidia.com/gpu 4 GPUs"));
  CHECK(some_line_matches(out, "  ml/idle -> ClusterQueue team"));
}
