// KAI-Scheduler's time-aware fairness (kai_usage.h, kai_division.h, kai_admission.h): the usage
// history over a window, the over-quota division it bends, and the reclaims it brings about when
// a fetched snapshot moves the fair shares. Every figure is worked by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "sim/tenancy/kai_division.h"
#include "sim/tenancy/kai_usage.h"
#include "tests/sim/tenancy/kai_fixture.h"

using namespace topsim;
using topsim::test::KaiFixture;
using topsim::test::kTrain;
using Cycle = KaiFixture::Cycle;

namespace {

constexpr int64_t kSecond = 1000;

KaiTimeAwareSpec window(int64_t window_s, int64_t half_life_s = 0, KaiUsageWindow type = KaiUsageWindow::Sliding) {
  KaiTimeAwareSpec spec;
  spec.window_ms = window_s * kSecond;
  spec.half_life_ms = half_life_s * kSecond;
  spec.window = type;
  return spec;
}

}  // namespace

TEST_CASE("kai::usage a sliding window without decay: GPU-seconds held over the cluster's", "[sim][kai][tenancy]") {
  KaiUsageHistory history(window(100), 2, 10, 0);
  CHECK(history.shares(0) == std::vector<double>{0, 0});  // nothing yet: no capacity either
  history.change(0, 5, 0);
  history.change(1, 10, 50 * kSecond);
  history.change(0, -5, 100 * kSecond);
  history.change(1, -10, 100 * kSecond);
  // At 100 s: queue 0 held 5 of 10 GPUs for 100 s, queue 1 all 10 for the last 50 s.
  std::vector<double> at = history.shares(100 * kSecond);
  CHECK(at[0] == Approx(0.5));
  CHECK(at[1] == Approx(0.5));
  // At 150 s the window is [50 s, 150 s]: queue 0 held 5 for 50 s of it, queue 1 10 for 50 s.
  at = history.shares(150 * kSecond);
  CHECK(at[0] == Approx(250.0 / 1000));
  CHECK(at[1] == Approx(500.0 / 1000));
  CHECK(history.shares(250 * kSecond) == std::vector<double>{0, 0});  // both out of the window
}

TEST_CASE("kai::usage a half-life weighs older GPU-seconds less, the capacity alike", "[sim][kai][tenancy]") {
  KaiUsageHistory history(window(1'000'000, 50), 1, 10, 0);
  history.change(0, 10, 0);
  CHECK(history.shares(77 * kSecond)[0] == Approx(1.0));  // the whole cluster all along: 1
  history.change(0, -10, 50 * kSecond);
  // At 100 s: the use from 0 to 50 s weighs 2^-2..2^-1 of now, the capacity 2^-2..1:
  // (0.5 - 0.25) / (1 - 0.25) = 1/3.
  CHECK(history.shares(100 * kSecond)[0] == Approx(1.0 / 3));
}

TEST_CASE("kai::usage a tumbling window starts afresh every window from the run's start", "[sim][kai][tenancy]") {
  KaiUsageHistory history(window(100, 0, KaiUsageWindow::Tumbling), 1, 10, 1000 * kSecond);
  history.change(0, 5, 1000 * kSecond);
  CHECK(history.shares(1080 * kSecond)[0] == Approx(0.5));
  history.change(0, -5, 1120 * kSecond);
  // At 1150 s the window started at 1100 s: 5 GPUs for 20 of its 50 s.
  CHECK(history.shares(1150 * kSecond)[0] == Approx(100.0 / 500));
  CHECK(history.window_start_ms(1150 * kSecond) == 1100 * kSecond);
  CHECK(history.shares(1200 * kSecond)[0] == 0);  // a new window, nothing held in it
}

// proportion plugin resource_division.go calcShareWeights: a queue's slice of a round is
// max(0, w + k(w - usage)) over the sum of those, w its weight over the open queues' weights.
TEST_CASE("kai::division historical usage bends the over-quota division", "[sim][kai][tenancy]") {
  auto shares = [](double usage_a, double usage_b, std::optional<double> k) {
    std::vector<KaiShareQueue> queues(2);
    for (KaiShareQueue& q : queues) q.over_quota_weight = 1, q.request = 16;
    queues[0].usage = usage_a;
    queues[1].usage = usage_b;
    return kai_fair_shares(queues, 16, k);
  };
  CHECK(shares(1, 0, std::nullopt) == std::vector<double>{8, 8});  // off: usage is not read
  CHECK(shares(0, 0, 1.0) == std::vector<double>{8, 8});           // no history: as without it
  // A used the whole cluster: 0.5 + (0.5 - 1) = 0, B 0.5 + 0.5 = 1: B takes all 16.
  CHECK(shares(1, 0, 1.0) == std::vector<double>{0, 16});
  // A used half: weights 0.5 and 1, slices 5.33 and 10.67; the whole GPUs 5 and 10, the one
  // left to the larger fraction (B's 0.67).
  CHECK(shares(0.5, 0, 1.0) == std::vector<double>{5, 11});
  // k = 0: usage counts for nothing.
  CHECK(shares(1, 0, 0.0) == std::vector<double>{8, 8});
}

// The design's first story (docs/developer/designs/time-based-fairshare): two queues of equal
// weight and no deserved quota, each with a backlog of whole-cluster jobs. Without history the
// first keeps the cluster; with it, the fetched usage moves the fair share and the other reclaims.
TEST_CASE("kai::admission time-aware fairness: a starved queue reclaims at the first fetch that moves the shares",
          "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("a", 0, 1).queue("b", 0, 1);
  KaiSchedulerSpec shard;
  shard.time_aware = window(600);  // fetched every minute (KAI's default)
  f.config.kai_scheduler = shard;
  f.requeue = true;
  f.build(16);
  f.pending(1, "a", kTrain, 16);
  f.pending(2, "b", kTrain, 16);
  CHECK(f.cycles() == Cycle{{1}, {}});  // a is older: it goes first; fair shares 8 / 8
  CHECK(f.admission->wakeup_ms() == 60 * kSecond);
  f.now_ms = 59 * kSecond;
  CHECK(f.cycles() == Cycle{});
  // At the fetch, a has held the whole cluster for the whole minute: usage 1 against b's 0, fair
  // shares 0 / 16, and b takes a's job.
  f.now_ms = 60 * kSecond;
  CHECK(f.cycles() == Cycle{{2}, {1}});
  CHECK(f.fair_share("b") == 16'000);
  CHECK(f.admission->usage_share(f.admission->queue("a")) == Approx(1.0));
  CHECK(f.admission->wakeup_ms() == 120 * kSecond);
  // At 120 s both used half the window: shares 8 / 8, and b, within its share, keeps the cluster.
  f.now_ms = 120 * kSecond;
  CHECK(f.cycles() == Cycle{});
  // At 600 s a's 60 s and b's 540 s of the window: usage 0.1 and 0.9, weights 0.9 and 0.1, slices
  // 14.4 and 1.6: shares 14 / 2 (the GPU left over to b's larger fraction), short of a's 16.
  f.now_ms = 600 * kSecond;
  CHECK(f.cycles() == Cycle{});
  CHECK(f.fair_share("a") == 14'000);
  CHECK_THAT(f.admission->wait_reason(1),
             Catch::Contains("would exceed its fair share 14 with it (time-aware fairness: it held 10% of the cluster's "
                             "GPU time over the window)"));
  // At 660 s the window [60 s, 660 s] is all b's: usage 1 against 0, and a reclaims.
  f.now_ms = 660 * kSecond;
  CHECK(f.cycles() == Cycle{{1}, {2}});

  SECTION("without a usage database nothing moves") {
    KaiFixture g;
    g.queue("a", 0, 1).queue("b", 0, 1).build(16);
    g.pending(1, "a", kTrain, 16);
    g.pending(2, "b", kTrain, 16);
    CHECK(g.cycles() == Cycle{{1}, {}});
    CHECK(g.admission->wakeup_ms() == std::numeric_limits<int64_t>::max());
    g.now_ms = 3600 * kSecond;
    CHECK(g.cycles() == Cycle{});
  }
}

// minruntime plugin resolver.go: a queue tree that sets no min runtime takes the scheduler's
// default (SchedulingShard spec.minRuntime, the plugin's defaultReclaimMinRuntime).
TEST_CASE("kai::admission min runtime: the SchedulingShard's default protects where no queue sets one", "[sim][kai][tenancy]") {
  KaiFixture f;
  f.queue("queue0", 4, 1).queue("queue1", 4, 1);
  KaiSchedulerSpec shard;
  shard.default_reclaim_min_runtime_ms = 600'000;
  f.config.kai_scheduler = shard;
  f.build(8);
  f.running(1, "queue1", kTrain, 8);
  f.pending(2, "queue0", kTrain, 4);
  f.now_ms = 300'000;
  CHECK(f.cycles() == Cycle{});
  CHECK(f.admission->wakeup_ms() == 600'000);
  f.now_ms = 600'000;
  CHECK(f.cycles() == Cycle{{2}, {1}});
}
