// Elastic resizes and spare swaps (sim/elastic.h): the pods they go on with, by hand on small jobs.
#include <catch2/catch.hpp>

#include "core/fabric.h"

#include "sim/elastic.h"

using namespace topsim;

namespace {

std::vector<PodPlacement> placed(std::vector<PodBinding> pods) {
  std::vector<PodPlacement> out;
  for (PodBinding& pod : pods) out.push_back({pod.node, std::move(pod.gpus), 0});
  return out;
}

bool same(const std::vector<PodBinding>& a, const std::vector<PodBinding>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].node != b[i].node || a[i].gpus != b[i].gpus) return false;
  return true;
}

}  // namespace

TEST_CASE("elastic: a job shrinks only when it keeps its minimum of workers off the failed node", "[sim][failures]") {
  // Four pods: two on node 5, one on 6, one on 7.
  const auto pods = placed({{5, {0, 1}}, {5, {2, 3}}, {6, {0, 1}}, {7, {4, 5}}});
  CHECK(keeps_enough_workers(pods, 5, 2));  // 6 and 7 are left
  CHECK_FALSE(keeps_enough_workers(pods, 5, 3));
  CHECK(keeps_enough_workers(pods, 6, 3));        // three are left
  CHECK_FALSE(keeps_enough_workers(pods, 6, 0));  // not elastic
  CHECK(same(pods_off_node(pods, 5), {{6, {0, 1}}, {7, {4, 5}}}));
  CHECK(same(pods_off_node(pods, 9), {{5, {0, 1}}, {5, {2, 3}}, {6, {0, 1}}, {7, {4, 5}}}));
}

TEST_CASE("elastic: a spare takes the failed node's pods on the same cards, in their order", "[sim][failures]") {
  const auto pods = placed({{5, {0, 1}}, {6, {2, 3}}, {5, {4, 5}}});
  CHECK(same(pods_on_spare(pods, 5, 11), {{11, {0, 1}}, {6, {2, 3}}, {11, {4, 5}}}));
}

TEST_CASE("elastic: a shrunk job grows back onto the lowest free cards, as many pods as fit", "[sim][failures]") {
  const auto pods = placed({{6, {0, 1}}, {7, {0, 1}}});
  // 3 missing pods of 2 cards; 5 free cards hold 2 of them.
  CHECK(same(pods_grown(pods, 5, {1, 2, 4, 6, 7}, 3, 2), {{6, {0, 1}}, {7, {0, 1}}, {5, {1, 2}}, {5, {4, 6}}}));
  // 1 missing pod: only one is taken.
  CHECK(same(pods_grown(pods, 5, {1, 2, 4, 6, 7}, 1, 2), {{6, {0, 1}}, {7, {0, 1}}, {5, {1, 2}}}));
  // One free card holds no pod of 2: the job keeps its pods.
  CHECK(same(pods_grown(pods, 5, {3}, 2, 2), {{6, {0, 1}}, {7, {0, 1}}}));
}

TEST_CASE("elastic: a swap keeps its pods' NVLink domains when each spare is in its node's", "[sim][failures]") {
  // Nodes 0-3 in two NVLink domains of 2 (0-1, 2-3).
  FabricSpec spec;
  spec.levels.push_back({"domain", 2, "", 1, 0, true});
  const Fabric domains = Fabric::build(spec, *Fabric::groups_by_order(spec, 4)).value();
  const auto pods = placed({{0, {0, 1}}, {2, {0, 1}}});
  CHECK(same_nvlink_domains(pods, pods_on_spare(pods, 0, 1), domains));
  CHECK_FALSE(same_nvlink_domains(pods, pods_on_spare(pods, 0, 3), domains));
  CHECK(same_nvlink_domains(pods, pods_on_spare(pods, 0, 3), Fabric{}));  // no domains at all
}
