// Node failures (sim/failures.h): the built-in rates against their sources, the draws of one
// node independent of the others, Llama 3's count within its Poisson spread, a trace replayed.
#include <cmath>
#include <map>

#include <catch2/catch.hpp>

#include "sim/checkpoint.h"
#include "sim/failures.h"

using namespace topsim;

namespace {

// Every event of `nodes` nodes of one type over `hours`, with `spec` and `rates`.
std::vector<NodeEvent> events(const FailureSpec& spec, const FailureRates& rates, int nodes, int gpus, double hours,
                              uint64_t seed = 1) {
  NodeFailures f(spec, {rates}, std::vector<int>(static_cast<size_t>(nodes), 0),
                 std::vector<int>(static_cast<size_t>(nodes), gpus), seed, 0);
  std::vector<NodeEvent> out;
  while (!f.empty() && f.next_ms() < hours * 3.6e6) out.push_back(f.pop());
  return out;
}

int failures_of(const std::vector<NodeEvent>& all) {
  int n = 0;
  for (const NodeEvent& e : all) n += e.fails ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("sim::failures built-in rates: H100-class from Llama 3's counts, A100-class from RSC-1", "[sim][failures]") {
  const auto h100 = default_failure_rates(*find_gpu_model("h100"));
  REQUIRE(h100);
  // Expected: 419 interruptions / (2,048 servers x 54 days x 24 h) for an 8-GPU node.
  CHECK(h100->per_node_hour(8) == Approx(419.0 / (2048.0 * 54 * 24)));
  CHECK(h100->causes[static_cast<size_t>(FailureCause::Hbm)].per_gpu_hour == Approx(72.0 / (2048.0 * 54 * 24 * 8)));
  // The GPU causes scale with the node's GPUs; the others do not.
  CHECK(h100->per_node_hour(4) < h100->per_node_hour(8));
  CHECK(default_failure_rates(*find_gpu_model("h200")));
  const auto a100 = default_failure_rates(*find_gpu_model("a100"));
  REQUIRE(a100);
  CHECK(a100->per_node_hour(8) == Approx(6.50 / 1000 / 24));  // Kokolis et al.: 6.50 per 1,000 node-days
  CHECK_FALSE(default_failure_rates(*find_gpu_model("v100")));
  FailureSpec spec;
  CHECK_THAT(missing_failure_rates(spec, find_gpu_model("v100"), "dgx1-v100"),
             Catch::Contains("node model 'dgx1-v100' (v100) has no built-in failure rates"));
  spec.overrides[static_cast<size_t>(FailureCause::Gpu)] = CauseOverride{1e-5, std::nullopt, std::nullopt};
  CHECK(missing_failure_rates(spec, find_gpu_model("v100"), "dgx1-v100").empty());
  const FailureRates v100 = resolve_failure_rates(spec, find_gpu_model("v100"));
  CHECK(v100.per_node_hour(8) == Approx(8e-5));
}

TEST_CASE("sim::failures Llama 3: 2,048 H100 servers over 54 days fail 419 times, within the Poisson spread", "[sim][failures]") {
  const FailureSpec spec;
  const FailureRates rates = *default_failure_rates(*find_gpu_model("h100"));
  // 95% of Poisson(419) lies in [379, 460]; five seeds, each inside it.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const int n = failures_of(events(spec, rates, 2048, 8, 54 * 24, seed));
    INFO("seed " << seed << ": " << n);
    CHECK(n >= 379);
    CHECK(n <= 460);
  }
}

TEST_CASE("sim::failures a node's draws do not depend on the other nodes, a seed repeats them", "[sim][failures]") {
  const FailureSpec spec;
  FailureRates rates = *default_failure_rates(*find_gpu_model("h100"));
  for (CauseRate& c : rates.causes) c.per_node_hour *= 1000, c.per_gpu_hour *= 1000;  // many events
  auto of_node0 = [](const std::vector<NodeEvent>& all) {
    std::vector<std::pair<int64_t, bool>> out;
    for (const NodeEvent& e : all)
      if (e.node == 0) out.emplace_back(e.at_ms, e.fails);
    return out;
  };
  const auto alone = of_node0(events(spec, rates, 1, 8, 1000));
  const auto among = of_node0(events(spec, rates, 50, 8, 1000));
  REQUIRE(alone.size() > 10);
  CHECK(alone == among);
  CHECK(of_node0(events(spec, rates, 1, 8, 1000, 2)) != alone);
  // A node is down from its failure to its repair, then fails again later.
  const auto all = events(spec, rates, 1, 8, 1000);
  for (size_t i = 0; i + 1 < all.size(); ++i) CHECK(all[i].fails != all[i + 1].fails);
}

TEST_CASE("sim::failures a trace is replayed, a line for a node already down lengthens its outage", "[sim][failures]") {
  FailureSpec spec;
  spec.draw = false;
  spec.trace = {
      {2, 1000, 5000, FailureCause::Gpu}, {2, 3000, 10000, FailureCause::Replayed}, {0, 4000, 0, FailureCause::Software}};
  NodeFailures f(spec, {FailureRates{}}, {0, 0, 0}, {8, 8, 8}, 1, 500);
  std::vector<NodeEvent> all;
  while (!f.empty()) all.push_back(f.pop());
  REQUIRE(all.size() == 4);
  CHECK((all[0].at_ms == 1500 && all[0].node == 2 && all[0].fails && all[0].cause == FailureCause::Gpu));
  CHECK((all[1].at_ms == 4500 && all[1].node == 0 && all[1].fails));
  CHECK((all[2].at_ms == 4500 && all[2].node == 0 && !all[2].fails));   // a software fault: back at once
  CHECK((all[3].at_ms == 13500 && all[3].node == 2 && !all[3].fails));  // 3000 + 10000 outlasts 1000 + 5000
}

TEST_CASE("sim::checkpoint Daly's optimum interval", "[sim][failures]") {
  // Llama 3: a job interrupted every 54 days / 419 = 185.6 min, a 30 s write: Young's sqrt(2 d M)
  // is 13.62 min; Daly's higher-order terms and the write taken off give 13.29 min.
  const double mtbf_s = 54 * 86400.0 / 419;
  CHECK(daly_interval(30, mtbf_s) / 60 == Approx(13.29).margin(0.01));
  CHECK(daly_interval(10, mtbf_s) / 60 == Approx(7.76).margin(0.01));
  CHECK(daly_interval(30, 10) == 10);  // a write of more than twice the MTBF: checkpoint every MTBF
  CHECK(daly_interval(0, mtbf_s) == 0);
}
