// The queue folders of the shipped Philly tenancy scenarios (scenarios/philly-kueue*.json): one
// ClusterQueue per virtual cluster of the trace, quotas that add up to the scenario's GPUs and
// cover each VC's largest job (so that no job waits for ever without borrowing), a cohort only
// where borrowing is meant, Fair Sharing only where it is named.
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/queues/queue_yaml.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

int64_t scenario_gpus(const std::string& name) {
  const auto s = nlohmann::json::parse(test::read_text(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/" + name + ".json"));
  int64_t gpus = 0;
  for (const auto& group : s.at("cluster").at("nodes"))
    gpus += group.at("count").get<int64_t>() * (group.at("model") == "dgx1-v100" ? 8 : 2);  // the other is 2-GPU PCIe
  return gpus;
}

}  // namespace

TEST_CASE("formats::queues the shipped Philly VC queues: quotas add up to the cluster and cover each VC's jobs",
          "[formats][kueue]") {
  const std::map<std::string, std::string> folders{{"philly-kueue", "philly-vcs"},
                                                   {"philly-kueue-no-borrowing", "philly-vcs-no-borrowing"},
                                                   {"philly-kueue-fair", "philly-vcs-fair"}};
  // Largest job per VC, from the trace when it is here.
  std::map<std::string, int64_t> largest;
  if (const std::string trace = test::shared_file("traces/philly/philly.csv"); !trace.empty()) {
    std::ifstream in(trace);
    std::string line;
    std::getline(in, line);  // timestamp,duration,num_gpus,gpu_time,cluster
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      std::stringstream row(line);
      std::string field[5];
      for (auto& f : field) std::getline(row, f, ',');
      int64_t& most = largest["vc-" + field[4]];
      most = std::max<int64_t>(most, std::stoll(field[2]));
    }
  }
  for (const auto& [scenario, folder] : folders) {
    INFO(folder);
    const auto config = read_queue_config(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/queues/" + folder);
    REQUIRE(config);
    CHECK(config->cluster_queues.size() == 15);
    CHECK(config->local_queues.size() == 15);
    int64_t total = 0;
    for (const ClusterQueueSpec& cq : config->cluster_queues) {
      const int64_t nominal = cq.groups.at(0).flavors.at(0).resources.at(0).nominal;
      total += nominal;
      CHECK(cq.cohort == (folder == "philly-vcs-no-borrowing" ? "" : "philly"));
      if (!largest.empty()) CHECK(nominal >= largest.at(cq.name));
    }
    CHECK(total == scenario_gpus(scenario));
    CHECK(config->fair_sharing == (folder == "philly-vcs-fair"));
  }
}

TEST_CASE("formats::queues the Philly VCs in one ClusterQueue: all 624 GPUs, 15 LocalQueues, Admission Fair Sharing",
          "[formats][kueue]") {
  for (const std::string folder : {"philly-vcs-afs", "philly-vcs-shared"}) {
    INFO(folder);
    const auto config = read_queue_config(std::string(TOPSIM_SOURCE_DIR) + "/scenarios/queues/" + folder);
    REQUIRE(config);
    REQUIRE(config->cluster_queues.size() == 1);
    const ClusterQueueSpec& cq = config->cluster_queues.front();
    CHECK(cq.admission_fair_sharing);
    CHECK(cq.groups.at(0).flavors.at(0).resources.at(0).nominal ==
          scenario_gpus(folder == "philly-vcs-afs" ? "philly-kueue-afs" : "philly-kueue-shared"));
    CHECK(config->local_queues.size() == 15);
    for (const LocalQueueSpec& lq : config->local_queues) CHECK(lq.cluster_queue == cq.name);
    REQUIRE(config->admission_fair_sharing);
    CHECK(config->admission_fair_sharing->half_life_ms == (folder == "philly-vcs-afs" ? 168 * 3'600'000LL : 0));
    CHECK(config->admission_fair_sharing->sampling_ms == 300'000);
    CHECK_FALSE(config->fair_sharing);
  }
}
