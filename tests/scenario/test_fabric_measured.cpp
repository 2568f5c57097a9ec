// Measured node pairs in replays (core/measured_links.h): read as pairs or as a matrix, latency
// included; the topology-aware scheduler moves gangs off pairs measured slow; LLM groups run at
// the measured figures.
#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

const char* const kThreeNamed = R"([{"model": "dgx-a100", "count": 3, "names": ["gpu-a", "gpu-b", "gpu-c"]}])";
const char* const kGang =
    R"([{"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "vgg16", "iterations": 50}])";

Scenario with_measured(const std::string& measured, const std::string& nodes = kThreeNamed, const std::string& jobs = kGang) {
  const std::string network = measured.empty() ? R"(, "network": {"transport": "ib"})"
                                               : R"(, "network": {"transport": "ib", "measured": )" + measured + "}";
  return scenario_from(scenario_json(nodes, jobs, R"(, "schedulers": ["topology-aware"])", network));
}

}  // namespace

TEST_CASE("scenario::fabric topology-aware moves a gang off a node pair measured slow", "[scenario]") {
  const Scenario blind = with_measured("");
  const RunResult blind_run = run(blind, "topology-aware");
  const JobRecord& b = record(blind_run, blind, "g");
  REQUIRE(b.pods.size() == 2);
  REQUIRE(b.pods[0].node == 0);
  REQUIRE(b.pods[1].node == 1);
  const Scenario s = with_measured(R"([{"a": "gpu-a", "b": "gpu-b", "bus_gbps": 5}])");
  const RunResult s_run = run(s, "topology-aware");
  const JobRecord& g = record(s_run, s, "g");
  REQUIRE(g.pods.size() == 2);
  CHECK(g.pods[0].node == 1);
  CHECK(g.pods[1].node == 2);
  CHECK(g.comm.bus_bandwidth_gbps == Approx(b.comm.bus_bandwidth_gbps));  // off the slow pair: the model's
}

TEST_CASE("scenario::fabric a measured latency delays every network step of the ring", "[scenario]") {
  const std::string two = R"([{"model": "dgx-a100", "count": 2, "names": ["gpu-a", "gpu-b"]}])";
  const Scenario plain = with_measured("", two);
  const Scenario slow = with_measured(R"([{"a": "gpu-a", "b": "gpu-b", "latency_us": 400}])", two);
  const RunResult plain_run = run(plain, "topology-aware"), slow_run = run(slow, "topology-aware");
  const JobRecord& p = record(plain_run, plain, "g");
  const JobRecord& l = record(slow_run, slow, "g");
  CHECK(p.comm.net_latency_us == 0);
  CHECK(l.comm.net_latency_us == 400);
  CHECK(l.comm.bus_bandwidth_gbps == p.comm.bus_bandwidth_gbps);  // latency only: the model's bandwidth
  CHECK(l.samples_per_sec < p.samples_per_sec);
  CHECK(l.finish_ms - l.start_ms > p.finish_ms - p.start_ms);
}

TEST_CASE("scenario::fabric a measured matrix reads as its pairs, the worse of both ways", "[scenario]") {
  const Scenario matrix = with_measured(
      R"({"nodes": ["gpu-a", "gpu-b", "gpu-c"], "bus_gbps": [[40, 5, null], [6, 40, null], [null, null, 40]],
          "latency_us": [[0, 3, 0], [4, 0, 0], [0, 0, 0]]})");
  REQUIRE(matrix.cluster.network.measured.size() == 3);  // (a, b) and the zero latencies of (a, c), (b, c)
  const NetworkSpec::MeasuredPair& ab = matrix.cluster.network.measured[0];
  CHECK(ab.a == "gpu-a");
  CHECK(ab.b == "gpu-b");
  CHECK(ab.bus_gbps == 5);
  CHECK(ab.latency_us == 4);
  const Scenario pairs = with_measured(R"([{"a": "gpu-a", "b": "gpu-b", "bus_gbps": 5, "latency_us": 4}])");
  const RunResult m = run(matrix, "topology-aware"), p = run(pairs, "topology-aware");
  CHECK(record(m, matrix, "g").pods[0].node == record(p, pairs, "g").pods[0].node);
  CHECK(record(m, matrix, "g").finish_ms == record(p, pairs, "g").finish_ms);
}

TEST_CASE("scenario::fabric an LLM job's groups across nodes run at the measured pairs' figures", "[scenario][llm]") {
  // Llama 3 70B, TP 8 x PP 2 x DP 2 on all four nodes: every cross-node group spans measured pairs.
  const std::string nodes = R"([{"model": "hgx-h100", "count": 4}])";
  const std::string jobs = R"([{"name": "sft", "workers": 8, "gpus_per_worker": 4, "iterations": 10,
      "llm": {"model": "llama3-70b", "tp": 8, "pp": 2, "sequence": 4096, "global_batch": 16, "sequence_parallel": true}}])";
  const std::string all_slow = R"({"nodes": ["node-0", "node-1", "node-2", "node-3"],
      "bus_gbps": [[null, 2, 2, 2], [2, null, 2, 2], [2, 2, null, 2], [2, 2, 2, null]]})";
  const Scenario model = with_measured("", nodes, jobs), measured = with_measured(all_slow, nodes, jobs);
  const RunResult model_run = run(model, "topology-aware"), measured_run = run(measured, "topology-aware");
  const JobRecord& a = record(model_run, model, "sft");
  const JobRecord& b = record(measured_run, measured, "sft");
  REQUIRE(a.llm != nullptr);
  REQUIRE(b.llm != nullptr);
  CHECK(b.llm->dp_comm_ms > a.llm->dp_comm_ms);
  CHECK(b.llm->pp_p2p_ms > a.llm->pp_p2p_ms);
  CHECK(b.llm->step_ms > a.llm->step_ms);
}
