// Runs with failing nodes (sim/failures.h in the engine): a failure at a known time costs exactly
// the training since the last checkpoint and the restart; the job waits for the repair or
// restarts elsewhere; checkpoint writes lengthen runs; the failures do not depend on the
// scheduler; the scenario keys and their refusals. Worked by hand.
#include <algorithm>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// One 8-GPU job of 1000 s (ResNet-50, measured on the cluster's V100s) at 0.
constexpr const char* kOneJob =
    R"([{"name": "j", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000}])";

// `nodes` DGX-1, checkpoints every 100 s (`write_s` each) with a 30 s restart, and node 0 down at
// 250 s for 500 s from a trace in `dir`.
Scenario failing(const TempDir& dir, int nodes, double write_s = 0) {
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  const std::string extra = R"(, "checkpoints": {"every_s": 100, "write_s": )" + std::to_string(write_s) +
                            R"(, "restart_s": 30}, "failures": {"rates": "none", "trace": "incidents.csv"})";
  return scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": )" + std::to_string(nodes) + "}]", kOneJob, extra),
                       dir.path.string());
}

}  // namespace

TEST_CASE("sim::failures a failure at a known time loses the training since the last checkpoint", "[sim][failures]") {
  TempDir dir;
  const Scenario s = failing(dir, 1);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& j = record(r, s, "j");
  // Expected: at 250 s it had saved 200 s (checkpoints at 100 and 200 s) and loses 50 s; its only
  // node comes back at 750 s, and it runs the 30 s restart and the 800 s left.
  CHECK(j.state == JobState::Finished);
  CHECK(j.interruptions == 1);
  CHECK(j.recompute_ms == 50'000);
  CHECK(j.restart_ms == 30'000);
  CHECK(j.requeue_ms == 500'000);
  CHECK(j.start_ms == 0);
  CHECK(j.finish_ms == 750'000 + 30'000 + 800'000);
  CHECK(metric(r, "node_failures") == 1);
  CHECK(metric(r, "node_failures.gpu") == 1);
  CHECK(metric(r, "interruptions.gpu") == 1);
  CHECK(metric(r, "failure_lost_gpu_hours") == Approx((50.0 + 30) * 8 / 3600));
  CHECK(metric(r, "requeue_gpu_hours") == Approx(500.0 * 8 / 3600));
  // Effective training time: the 1000 s of training that counted over 1580 s from start to end.
  CHECK(metric(r, "ettr.mean") == Approx(1000.0 / 1580));
  CHECK(metric(r, "goodput") == Approx(1000.0 / 1580));
  CHECK(metric(r, "gpus_down.max") == 8);
  // Interrupted once in 1580 s; no checkpoint write, so no optimum interval to weigh it against.
  CHECK(metric(r, "interrupted_job_mtbf_s") == 1580);
  CHECK(!r.metrics.get("checkpoint_optimum_s"));
}

TEST_CASE("sim::failures an interrupted job restarts at once on another node", "[sim][failures]") {
  TempDir dir;
  const Scenario s = failing(dir, 2);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& j = record(r, s, "j");
  REQUIRE(j.pods.size() == 1);
  CHECK(j.pods.front().node == 1);  // node 0 is down
  CHECK(j.requeue_ms == 0);
  CHECK(j.finish_ms == 250'000 + 30'000 + 800'000);
}

TEST_CASE("sim::failures checkpoint writes lengthen a run and are what a stop keeps", "[sim][failures]") {
  TempDir dir;
  const Scenario s = failing(dir, 1, 10);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& j = record(r, s, "j");
  // Expected: cycles of 100 s training + 10 s writing. At 250 s two cycles (220 s) are done, 200 s
  // saved; 30 s of training lost. Restarted at 750 s: 30 s overhead, then 800 s of training with 7
  // writes (after 100, ..., 700 s) of 10 s.
  CHECK(j.recompute_ms == 30'000);
  CHECK(j.finish_ms == 750'000 + 30'000 + 800'000 + 70'000);
  CHECK(j.checkpoint_ms == 20'000 + 70'000);
  CHECK(metric(r, "checkpoint_gpu_hours") == Approx(90.0 * 8 / 3600));
  // Daly's interval for a 10 s write and the job's MTBF (one interruption in 1650 s).
  CHECK(metric(r, "checkpoint_optimum_s") == Approx(daly_interval(10, 1650)));
}

TEST_CASE("sim::failures the same seed draws the same failures whatever the scheduler", "[sim][failures]") {
  const std::string jobs =
      R"([{"name": "a", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 36000},
          {"name": "b", "submit_s": 60, "workers": 4, "gpus_per_worker": 2, "model": "vgg16", "duration_s": 36000}])";
  // H100 rates x 2,000: a failure every few hours on four nodes.
  const Scenario s = scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 4}])", jobs,
                                                 R"(, "checkpoints": {"every_s": 600, "restart_s": 60},
                                                     "failures": {"scale": 2000})"));
  const RunResult ta = run(s, "topology-aware"), def = run(s, "default");
  REQUIRE(ta.failures.size() > 3);
  // Expected: the runs end at different times; up to the shorter one, the same failures.
  const double end_ms = 1000 * std::min(metric(ta, "makespan_s"), metric(def, "makespan_s"));
  size_t compared = 0;
  for (size_t i = 0; i < ta.failures.size() && ta.failures[i].at_ms < end_ms; ++i, ++compared) {
    REQUIRE(i < def.failures.size());
    CHECK(ta.failures[i].at_ms == def.failures[i].at_ms);
    CHECK(ta.failures[i].node == def.failures[i].node);
    CHECK(ta.failures[i].cause == def.failures[i].cause);
  }
  CHECK(compared > 3);
  CHECK(metric(ta, "interruptions") > 0);
  CHECK(record(ta, s, "a").state == JobState::Finished);
  CHECK(record(def, s, "b").state == JobState::Finished);
}

TEST_CASE("sim::failures scenario keys: defaults by GPU, overrides, and one-line refusals", "[sim][failures]") {
  auto error = [](const std::string& json) {
    auto s = parse_scenario(json, "t.json", "");
    REQUIRE(!s.ok());
    return s.error().message;
  };
  const std::string v100 = R"([{"model": "dgx1-v100", "count": 1}])";
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "failures": {})")),
             Catch::Contains("t.json: /failures") && Catch::Contains("no built-in failure rates"));
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "failures": {"causes": {"disk": {"per_node_day": 1}}})")),
             Catch::Contains("/failures/causes/disk"));
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "failures": {"rates": "none"})")),
             Catch::Contains("/failures/rates") && Catch::Contains("no node would ever fail"));
  CHECK_THAT(error(scenario_json(v100, kOneJob, R"(, "checkpoints": {"write_s": 10})")), Catch::Contains("/checkpoints/write_s"));
  const Scenario s = scenario_from(scenario_json(v100, kOneJob, R"(, "failures": {"causes": {"gpu": {"per_gpu_day": 0.001,
      "repair_h": 12, "repair_sigma": 0.5}}})"));
  REQUIRE(s.failures);
  const FailureRates rates = resolve_failure_rates(*s.failures, find_gpu_model("v100"));
  CHECK(rates.per_node_hour(8) == Approx(0.008 / 24));
  CHECK(rates.causes[0].repair.median_h == 12);
}

namespace {

// Three DGX-1: a 2-node job "big" at 0 (1000 s) and a 1-node job "small" at 10 s (5000 s);
// node 0 fails at 250 s for 500 s; checkpoints every 100 s, 30 s restart; `spares` extra keys.
Scenario busy(const TempDir& dir, const std::string& spares) {
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  const std::string jobs =
      R"([{"name": "big", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000},
          {"name": "small", "submit_s": 10, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 5000}])";
  return scenario_from(scenario_json(R"([{"model": "dgx1-v100", "count": 3}])", jobs,
                                     R"(, "checkpoints": {"every_s": 100, "restart_s": 30},
                                         "failures": {"rates": "none", "trace": "incidents.csv")" +
                                         spares + "}"),
                       dir.path.string());
}

}  // namespace

TEST_CASE("sim::failures a hot spare takes the failed node's place: the job restarts at once", "[sim][failures]") {
  TempDir dir;
  // Without spares the small job takes the third node; the big one waits for node 0's repair.
  const RunResult without = run(busy(dir, ""), "topology-aware");
  const Scenario plain = busy(dir, "");
  CHECK(record(without, plain, "big").requeue_ms == 500'000);
  CHECK(record(without, plain, "big").finish_ms == 750'000 + 30'000 + 800'000);
  CHECK(record(without, plain, "small").start_ms == 10'000);
  CHECK(!without.metrics.get("spare_swaps"));

  // With one spare, the third node is held back: the big job moves to it at 250 s and pays only
  // the restart; the repaired node 0 becomes the spare. The small job waits for the big one.
  const Scenario s = busy(dir, R"(, "spares": {"nodes": 1})");
  const RunResult with = run(s, "topology-aware");
  const JobRecord& big = record(with, s, "big");
  CHECK(big.interruptions == 1);
  CHECK(big.recompute_ms == 50'000);
  CHECK(big.restart_ms == 30'000);
  CHECK(big.requeue_ms == 0);
  CHECK(big.finish_ms == 250'000 + 30'000 + 800'000);
  std::vector<int> nodes;
  for (const PodPlacement& pod : big.pods) nodes.push_back(pod.node);
  CHECK(nodes == std::vector<int>{2, 1});  // rank 0 moved from node 0 to the spare
  CHECK(record(with, s, "small").start_ms == big.finish_ms);
  CHECK(metric(with, "spare_swaps") == 1);
  CHECK(metric(with, "spare_gpus") == 8);
  REQUIRE(with.failures.size() == 1);
  CHECK(with.failures.front().spare == 2);
  // The spare's GPUs are not down: only the failed node's, while it is repaired.
  CHECK(metric(with, "gpus_down.max") == 8);
  CHECK(metric(with, "requeue_gpu_hours") == 0);
  CHECK(metric(with, "ettr.p50") > metric(without, "ettr.p50"));
}

TEST_CASE("sim::failures spares per rack serve their own rack, an idle spare that fails leaves the spares", "[sim][failures]") {
  TempDir dir;
  // Two racks of two DGX-1 (nodes 1 and 3 the spares); a 1-node job on node 0.
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s\nnode-0,100,500\nnode-2,50,1000\n";
  const std::string extra = R"(, "checkpoints": {"every_s": 100, "restart_s": 30},
      "failures": {"rates": "none", "trace": "incidents.csv", "spares": {"nodes": 1, "per": "rack"}})";
  const Scenario s = scenario_from(
      scenario_json(R"([{"model": "dgx1-v100", "count": 4}])", kOneJob, extra, R"(, "network": {"nodes_per_rack": 2})"),
      dir.path.string());
  const RunResult r = run(s, "topology-aware");
  const JobRecord& j = record(r, s, "j");
  REQUIRE(j.pods.size() == 1);
  CHECK(j.pods.front().node == 1);  // rack 0's spare, not rack 1's
  CHECK(j.requeue_ms == 0);
  CHECK(metric(r, "spare_swaps") == 1);
  CHECK(metric(r, "spare_gpus") == 16);

  // Rack 0's spare fails idle at 50 s (no swap: no job on it), so node 0's failure at 150 s finds
  // none, and the job waits to be placed again: node 2 is down, node 3 is rack 1's spare. Node 1's
  // repair at 550 s refills rack 0's spares; node 0's at 600 s returns it to service, and the job
  // restarts there with the 900 s its checkpoint at 100 s left.
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s\nnode-2,1,2000\nnode-1,50,500\nnode-0,150,450\n";
  const Scenario idle_spare_fails = scenario_from(
      scenario_json(R"([{"model": "dgx1-v100", "count": 4}])", kOneJob, extra, R"(, "network": {"nodes_per_rack": 2})"),
      dir.path.string());
  const RunResult r2 = run(idle_spare_fails, "topology-aware");
  const JobRecord& j2 = record(r2, idle_spare_fails, "j");
  CHECK(metric(r2, "spare_swaps") == 0);
  CHECK(j2.requeue_ms == 450'000);
  CHECK(j2.pods.front().node == 0);
  CHECK(j2.finish_ms == 600'000 + 30'000 + 900'000);
}

TEST_CASE("sim::failures a spare in another NVLink domain gives the swapped job the path across domains", "[sim][failures]") {
  // GB200 trays in NVLink domains of 4, and a Llama 3 8B job at TP 8 over 2 trays: its tensor-
  // parallel group crosses trays over NVLink. Tray 0 fails at 250 s for 500 s; checkpoints every
  // 100 s, a 30 s restart. The job keeps the 200 s its checkpoints saved and runs the rest from
  // 280 s at the rate of the trays it restarts on.
  TempDir dir;
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  const std::string job = R"([{"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "iterations": 400,
      "llm": {"model": "llama3-8b", "tp": 8, "global_batch": 32}}])";
  const auto trays = [](int count, int per_domain) {
    return std::pair{R"([{"model": "gb200-nvl72-tray", "count": )" + std::to_string(count) + "}]",
                     R"(, "network": {"transport": "ib", "levels": [{"name": "nvl", "fanout": )" + std::to_string(per_domain) +
                         R"(, "links": "nvlink"}]})"};
  };
  const auto failing = [&](const std::string& spares, const std::string& jobs) {
    const auto [nodes, network] = trays(8, 4);
    return scenario_from(scenario_json(nodes, jobs,
                                       R"(, "checkpoints": {"every_s": 100, "restart_s": 30}, "failures": {"rates": "none", )"
                                       R"("trace": "incidents.csv", "spares": )" +
                                           spares + "}",
                                       network),
                         dir.path.string());
  };
  const auto plain = [&](int count, int per_domain) {  // the job alone, no failure
    const auto [nodes, network] = trays(count, per_domain);
    const Scenario s = scenario_from(scenario_json(nodes, job, "", network), dir.path.string());
    return record(run(s, "topology-aware"), s, "g");
  };
  const JobRecord whole = plain(8, 4);  // trays 0-1, one domain
  const JobRecord split = plain(2, 1);  // each tray its own domain: TP over the NICs
  REQUIRE(whole.comm.hosts == 1);
  REQUIRE(split.comm.hosts == 2);
  const double r1 = whole.samples_per_sec, r2 = split.samples_per_sec;
  CHECK(r2 / r1 == Approx(0.684).margin(0.001));  // docs/failures.md, "Hot spares"

  // Two spares for the cluster: trays 6 and 7. A 2-tray job listed first fills domain 1's other
  // two trays, so the job runs on trays 0-1; tray 0 takes tray 6 and the job goes on across the
  // two domains.
  const std::string blocked = R"([{"name": "b", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "model": "resnet50",
      "duration_s": 100000}, )" +
                              job.substr(1);
  const Scenario s = failing(R"({"nodes": 2})", blocked);
  const RunResult r = run(s, "topology-aware");
  const JobRecord& g = record(r, s, "g");
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures.front().spare == 6);
  CHECK(r.failures.front().hit == std::vector<FailureHit>{{1, FailureOutcome::Spare}});  // g, not b on trays 2-3
  CHECK(g.requeue_ms == 0);
  CHECK(g.comm.hosts == 2);
  CHECK(g.comm.bus_bandwidth_gbps == Approx(split.comm.bus_bandwidth_gbps));
  CHECK(g.samples_per_sec == Approx(r2));
  CHECK(g.finish_ms == Approx(280'000 + (whole.finish_ms - 200'000) * r1 / r2).margin(2));

  // One spare per domain (trays 3 and 7): tray 0 takes tray 3, in its own domain, and the job runs
  // on at its rate.
  const Scenario near = failing(R"({"nodes": 1, "per": "nvl"})", job);
  const RunResult n = run(near, "topology-aware");
  const JobRecord& p = record(n, near, "g");
  REQUIRE(n.failures.size() == 1);
  CHECK(n.failures.front().spare == 3);
  CHECK(p.comm.hosts == 1);
  CHECK(p.samples_per_sec == Approx(r1));
  CHECK(p.finish_ms == Approx(280'000 + whole.finish_ms - 200'000).margin(2));
}

TEST_CASE("sim::failures a swapped job is capped by the spare's measured pairs, not the failed node's", "[sim][failures]") {
  // Three DGX-1, node 2 the spare. Node 0 and node 1 measure 5 GB/s between them, which caps a
  // 2-node VGG-16 gang there; node 2 and node 1 measure nothing. Node 0 fails at 250 s for 500 s:
  // the gang keeps the 200 s its checkpoints saved and runs the rest from 280 s on nodes 2 and 1,
  // uncapped, at a fresh gang's rate there.
  TempDir dir;
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  std::ofstream(dir.file("late.csv")) << "node,start_s,duration_s,cause\nnode-0,1000000,1,gpu\n";  // after the gang
  const std::string nodes = R"([{"model": "dgx1-v100", "count": 3}])";
  const std::string job = R"([{"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "vgg16",
      "batch_per_gpu": 4, "iterations": 20000}])";
  const std::string capped = R"(, "network": {"transport": "ib", "measured": [{"a": "node-0", "b": "node-1", "bus_gbps": 5}]})";
  const std::string failures = R"(, "checkpoints": {"every_s": 100, "restart_s": 30},
      "failures": {"rates": "none", "trace": "incidents.csv", "spares": {"nodes": 1}})";
  const auto alone = [&](const std::string& network) {  // the gang on nodes 0 and 1 (node 2 held), no failure
    const Scenario s = scenario_from(
        scenario_json(nodes, job, R"(, "failures": {"rates": "none", "trace": "late.csv", "spares": {"nodes": 1}})", network),
        dir.path.string());
    return record(run(s, "topology-aware"), s, "g");
  };
  const JobRecord slow = alone(capped), free = alone(R"(, "network": {"transport": "ib"})");
  REQUIRE(slow.comm.bus_bandwidth_gbps == 5);
  REQUIRE(free.comm.bus_bandwidth_gbps > 5);
  const double r_slow = slow.samples_per_sec, r_free = free.samples_per_sec;
  REQUIRE(r_slow < 0.9 * r_free);

  const Scenario s = scenario_from(scenario_json(nodes, job, failures, capped), dir.path.string());
  const RunResult r = run(s, "topology-aware");
  const JobRecord& g = record(r, s, "g");
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures.front().spare == 2);
  CHECK(g.comm.bus_bandwidth_gbps == Approx(free.comm.bus_bandwidth_gbps));
  CHECK(g.samples_per_sec == Approx(r_free));
  CHECK(g.finish_ms == Approx(280'000 + (slow.finish_ms - 200'000) * r_slow / r_free).margin(2));
}

TEST_CASE("sim::failures an elastic job shrinks on a failure and grows back when the node returns", "[sim][failures]") {
  TempDir dir;
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  const std::string failures = R"(, "checkpoints": {"every_s": 100, "restart_s": 30},
      "failures": {"rates": "none", "trace": "incidents.csv"})";
  auto jobs = [](const std::string& extra) {
    return R"([{"name": "e", "submit_s": 0, "workers": 3, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000)" +
           extra + "}]";
  };
  const std::string nodes = R"([{"model": "dgx1-v100", "count": 3}])";
  // Host-networked gangs (topology-aware) and pods over sockets (default) alike, and gangs on a
  // cluster with measured pairs (here above what the model gives, so they cap nothing).
  const auto setting = GENERATE(table<std::string, std::string>(
      {{"topology-aware", ""},
       {"default", ""},
       {"topology-aware", R"(, "network": {"transport": "ib", "measured": [{"a": "node-0", "b": "node-1", "bus_gbps": 1000},
           {"a": "node-0", "b": "node-2", "bus_gbps": 1000}, {"a": "node-1", "b": "node-2", "bus_gbps": 1000}]})"}}));
  const std::string scheduler = std::get<0>(setting), network = std::get<1>(setting);  // (not bindings: lambdas read them)
  CAPTURE(scheduler, network);
  auto on_network = [&](const std::string& node_list, const std::string& job_list,
                        const std::string& extra = "") {  // scenario_json on `network`
    return topsim::test::scenario_json(node_list, job_list, extra, network);
  };
  const Scenario s = scenario_from(on_network(nodes, jobs(R"(, "min_workers": 2)"), failures), dir.path.string());
  const RunResult r = run(s, scheduler);
  const JobRecord& e = record(r, s, "e");
  // Its rate on two of the nodes, as a job of two workers gets it there: its path is made anew
  // (with two hosts NCCL's Tree carries one flow per host, with three two).
  const Scenario two = scenario_from(on_network(nodes,
                                                R"([{"name": "t", "submit_s": 0, "workers": 2, "gpus_per_worker": 8,
                                                        "model": "resnet50", "duration_s": 1000}])"),
                                     dir.path.string());
  const double r2 = record(run(two, scheduler), two, "t").samples_per_sec, r3 = e.samples_per_sec;
  REQUIRE(r2 > 0);
  REQUIRE(r2 < r3);
  // Expected: at 250 s it keeps the 200 s its checkpoints saved and goes on with two workers after
  // the 30 s restart; at 750 s node 0 is back: 470 s trained at two workers, 400 of them saved
  // (70 lost), a 30 s restart, and the rest at three: 800 s less what two workers did in 400 s.
  CHECK(e.state == JobState::Finished);
  CHECK(e.interruptions == 1);
  CHECK(e.resizes == 2);
  CHECK(e.requeue_ms == 0);
  CHECK(e.recompute_ms == 50'000 + 70'000);
  CHECK(e.restart_ms == 60'000);
  CHECK(e.pods.size() == 3);
  CHECK(e.finish_ms == Approx(780'000 + 800'000 - 400'000 * r2 / r3).margin(2));
  CHECK(metric(r, "elastic_resizes") == 2);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures.front().hit == std::vector<FailureHit>{{0, FailureOutcome::Shrunk}});

  // Not elastic, it waits for node 0 and restarts whole at 750 s.
  const Scenario rigid = scenario_from(on_network(nodes, jobs(""), failures), dir.path.string());
  const RunResult rigid_run = run(rigid, scheduler);
  const JobRecord& j = record(rigid_run, rigid, "e");
  CHECK(j.requeue_ms == 500'000);
  CHECK(j.finish_ms == 750'000 + 30'000 + 800'000);
  CHECK(e.finish_ms < j.finish_ms);
  REQUIRE(rigid_run.failures.size() == 1);
  CHECK(rigid_run.failures.front().hit == std::vector<FailureHit>{{0, FailureOutcome::Stopped}});
}

TEST_CASE("sim::failures an elastic job over two node types grows back onto either", "[sim][failures]") {
  // Expectation: one DGX A100 and two HGX H100 nodes; a 3 x 8 elastic gang spans both types (no
  // model holds it alone). The node of the type its first pod is not on fails at 250 s and
  // returns at 750 s: the job shrinks to two workers, then grows back onto that node (a type it
  // runs on, so its pace stays), and ends with three pods.
  TempDir dir;
  const std::string nodes = R"([{"model": "dgx-a100", "count": 1}, {"model": "hgx-h100", "count": 2}])";
  const std::string jobs =
      R"([{"name": "e", "submit_s": 0, "workers": 3, "gpus_per_worker": 8, "model": "resnet50", "iterations": 200000,
           "min_workers": 2}])";
  const Scenario plain = scenario_from(scenario_json(nodes, jobs), dir.path.string());
  const RunResult plain_run = run(plain, "topology-aware");
  const JobRecord& first_run = record(plain_run, plain, "e");
  REQUIRE(first_run.pods.size() == 3);
  const bool first_on_a100 = first_run.pods.front().node == 0;
  int other = -1;  // a node of the job whose type is not its first pod's
  for (const PodPlacement& pod : first_run.pods)
    if ((pod.node == 0) != first_on_a100) other = pod.node;
  REQUIRE(other >= 0);
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-" << other << ",250,500,gpu\n";
  const std::string failures = R"(, "checkpoints": {"every_s": 100, "restart_s": 30},
      "failures": {"rates": "none", "trace": "incidents.csv"})";
  const Scenario s = scenario_from(scenario_json(nodes, jobs, failures), dir.path.string());
  const RunResult r = run(s, "topology-aware");
  const JobRecord& e = record(r, s, "e");
  CHECK(e.state == JobState::Finished);
  CHECK(e.interruptions == 1);
  CHECK(e.resizes == 2);
  CHECK(e.requeue_ms == 0);
  CHECK(e.pods.size() == 3);
  CHECK(std::any_of(e.pods.begin(), e.pods.end(), [&](const PodPlacement& pod) { return pod.node == other; }));
}
