// KAI-Scheduler's division of GPUs among queues, replaying the "two queues" table of
// NVIDIA/KAI-Scheduler (72de64fc) pkg/scheduler/plugins/proportion/resource_division/
// resource_division_test.go (entry names quoted; GPU only, no time-aware fairness).
#include <catch2/catch.hpp>

#include "sim/tenancy/kai_division.h"

using namespace topsim;
using Shares = std::vector<double>;

namespace {

// Both queues: deserved 2, over-quota weight 2, request 6, no limit.
std::vector<KaiShareQueue> two_queues() { return {{-1, 2, 2, -1, 6, 100}, {-1, 2, 2, -1, 6, 100}}; }

}  // namespace

TEST_CASE("kai::division \"allocates many available gpus\"", "[sim][kai]") {
  CHECK(kai_fair_shares(two_queues(), 15) == Shares{6, 6});
}

TEST_CASE("kai::division \"allocates GPUs proportionally\"", "[sim][kai]") {
  auto q = two_queues();
  q[0].over_quota_weight = 1;
  q[1].over_quota_weight = 3;
  CHECK(kai_fair_shares(q, 8) == Shares{3, 5});
}

TEST_CASE("kai::division \"doesn't allocate more than allowed\"", "[sim][kai]") {
  auto q = two_queues();
  q[0].limit = 5;
  CHECK(kai_fair_shares(q, 12) == Shares{5, 6});
}

TEST_CASE("kai::division \"distributes remainder between queues based on largest remaining\"", "[sim][kai]") {
  auto q = two_queues();
  q[0].over_quota_weight = 1;
  q[1].over_quota_weight = 4;
  q[0].request = q[1].request = 10;
  // Over quota 7 -> 1.4 and 5.6: whole units 1 and 5, the unit left to the larger fraction.
  CHECK(kai_fair_shares(q, 11) == Shares{3, 8});
}

TEST_CASE("kai::division \"priority does affect over-quota, even when overQuotaWeight is set\"", "[sim][kai]") {
  auto q = two_queues();
  q[0].over_quota_weight = 100;
  q[1].over_quota_weight = 1;
  q[0].priority = 1;
  q[1].priority = 2;
  CHECK(kai_fair_shares(q, 6) == Shares{2, 4});
}

TEST_CASE("kai::division \"priority doesn't affect deserved\"", "[sim][kai]") {
  auto q = two_queues();
  q[0].priority = 1;
  q[1].priority = 2;
  CHECK(kai_fair_shares(q, 4) == Shares{2, 2});
}

TEST_CASE("kai::division \"divides the remainder even when using priorities\"", "[sim][kai]") {
  std::vector<KaiShareQueue> q = {{-1, 2, 2, -1, 5, 2}, {-1, 2, 2, -1, 5, 2}, {-1, 1, 0, -1, 0, 1}};
  CHECK(kai_fair_shares(q, 5) == Shares{3, 2, 0});
}

TEST_CASE("kai::division a department splits its share among its queues", "[sim][kai]") {
  // Two departments of deserved 4 (weight 1) on 12 GPUs; the first's two queues (deserved 1,
  // weights 1 and 3) ask 10 each, the second's one queue asks 2: it keeps 2, the rest goes over quota.
  std::vector<KaiShareQueue> q = {
      {-1, 4, 1, -1, 0, 100}, {-1, 4, 1, -1, 0, 100}, {0, 1, 1, -1, 10, 100}, {0, 1, 3, -1, 10, 100}, {1, 4, 1, -1, 2, 100}};
  const Shares s = kai_fair_shares(q, 12);
  CHECK(s[0] == 10);  // 4 deserved + all 6 left over (the other asks only 2)
  CHECK(s[1] == 2);
  CHECK(s[2] + s[3] == 10);
  CHECK(s[2] == 3);  // 1 + 8 x 1/4
  CHECK(s[3] == 7);  // 1 + 8 x 3/4
  CHECK(s[4] == 2);
}
