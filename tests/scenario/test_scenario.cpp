// The scenario loader (docs/scenarios.md): defaults, every key, relative paths, and errors that
// name the file and the JSON pointer.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "core/gang.h"
#include "formats/hardware/node_json.h"
#include "scenario/scenario_loader.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;

namespace {

constexpr const char* kCluster = R"("cluster": {"nodes": [{"model": "dgx1-v100", "count": 2}]})";
constexpr const char* kWorkload =
    R"("workload": {"kind": "jobs", "jobs": [{"name": "j", "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "iterations": 10}]})";

// {cluster, workload} plus `extra` members (", \"seed\": 3").
std::string minimal(const std::string& extra = "") {
  std::string json = "{";
  json.append(kCluster).append(", ").append(kWorkload).append(extra).append("}");
  return json;
}

Scenario parsed(const std::string& json) {
  auto scenario = parse_scenario(json, "dir/my-scenario.json", "");
  INFO((scenario.ok() ? std::string() : scenario.error().message));
  REQUIRE(scenario.ok());
  return std::move(scenario).value();
}

// The loader's error for `json` (source "bad.json", no base folder), or "" when it loads.
std::string parse_error(const std::string& json) {
  auto scenario = parse_scenario(json, "bad.json", "");
  return scenario.ok() ? "" : scenario.error().message;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("scenario::Scenario defaults", "[scenario]") {
  SECTION("only cluster and workload: name = file stem, seed 1, both schedulers, backfill on, overlap 0.33, TCP") {
    const Scenario s = parsed(minimal());
    CHECK(s.name == "my-scenario");
    CHECK(s.description.empty());
    CHECK(s.seed == 1);
    CHECK(s.schedulers == std::vector<std::string>{"topology-aware", "default"});
    CHECK(s.seeds == 1);
    CHECK(s.mode == ExperimentMode::Replay);
    CHECK(s.share_scheduler == "binpack");
    CHECK(s.backfill);
    CHECK(s.record_transitions);
    CHECK(s.overlap.tensorflow == 0.33);
    CHECK(s.overlap.pytorch == 0.33);
    CHECK(s.network.tcp_socket_efficiency == kTcpSocketEfficiency);
    CHECK(s.network.infiniband_efficiency == kInfiniBandEfficiency);
    CHECK(s.cluster.network.transport == NetworkTransport::Tcp);
    CHECK(s.cluster.network.nic_speed_gbit == 0);
    CHECK(s.cluster.network.fabric.empty());
    REQUIRE(s.cluster.groups.size() == 1);
    CHECK(s.cluster.groups[0].count == 2);
    CHECK_FALSE(s.cluster.groups[0].label_pinned);
    REQUIRE(s.workload->jobs.size() == 1);
    CHECK(s.workload->jobs[0].workers == 2);
    CHECK(s.workload->jobs[0].gpus_per_worker == 4);
    CHECK(s.workload->jobs[0].batch_per_gpu == 64);  // resnet50's default batch
    CHECK(s.workload->jobs[0].framework == Framework::PyTorch);
  }

  SECTION("a node group without count is one node") {
    const Scenario s = parsed(R"({"cluster": {"nodes": [{"model": "dgx-a100"}]}, )" + std::string(kWorkload) + "}");
    REQUIRE(s.cluster.groups.size() == 1);
    CHECK(s.cluster.groups[0].count == 1);
    CHECK(s.cluster.groups[0].model.gpus.size() == 8);
  }
}

TEST_CASE("scenario::Scenario every key is read", "[scenario]") {
  SECTION("name, description, seed, labels, network, schedulers, queue, overlap and record_transitions land in the Scenario") {
    const Scenario s = parsed(R"({
      "name": "everything", "description": "all keys", "seed": 42, "mode": "replay",
      "cluster": {
        "nodes": [{"model": "dgx1-v100", "count": 3, "label": "default"}, {"model": "hgx-h100", "label": "topology"}],
        "network": {"transport": "roce", "nic_speed_gbit": 200, "tcp_efficiency": 0.4, "rdma_efficiency": 0.9,
                    "nodes_per_rack": 2, "rack_oversubscription": 3}
      },
      "workload": {"kind": "jobs", "jobs": [{"name": "j", "model": "vgg16", "framework": "tensorflow", "batch_per_gpu": 32, "duration_s": 60}],
                   "reference_gpu": "V100M32"},
      "schedulers": ["default"],
      "queue": {"backfill": false},
      "overlap": {"tensorflow": 0.25, "pytorch": 0.5},
      "record_transitions": false
    })");
    CHECK(s.name == "everything");
    CHECK(s.description == "all keys");
    CHECK(s.seed == 42);
    REQUIRE(s.cluster.groups.size() == 2);
    CHECK(s.cluster.groups[0].count == 3);
    CHECK(s.cluster.groups[0].label == NodeMode::Default);
    CHECK(s.cluster.groups[0].label_pinned);
    CHECK(s.cluster.groups[1].label == NodeMode::Topology);
    CHECK(s.cluster.groups[1].label_pinned);
    CHECK(s.cluster.network.transport == NetworkTransport::Roce);
    CHECK(s.cluster.network.nic_speed_gbit == 200);
    REQUIRE(s.cluster.network.fabric.levels.size() == 1);  // the one-level shorthand
    CHECK(s.cluster.network.fabric.levels[0].name == "rack");
    CHECK(s.cluster.network.fabric.levels[0].fanout == 2);
    CHECK(s.cluster.network.fabric.levels[0].oversubscription == 3);
    CHECK(s.network.tcp_socket_efficiency == 0.4);
    CHECK(s.network.infiniband_efficiency == 0.9);
    // RoCE: the RDMA efficiency scaled by Ethernet framing (core/gang.h).
    CHECK(s.network.roce_efficiency == Approx(0.9 * kRoceFramingRatio));
    CHECK(s.schedulers == std::vector<std::string>{"default"});
    CHECK_FALSE(s.backfill);
    CHECK(s.overlap.tensorflow == 0.25);
    CHECK(s.overlap.pytorch == 0.5);
    CHECK_FALSE(s.record_transitions);
    REQUIRE(s.workload->jobs.size() == 1);
    CHECK(s.workload->jobs[0].framework == Framework::TensorFlow);
    CHECK(s.workload->jobs[0].batch_per_gpu == 32);
    CHECK(s.workload->jobs[0].ideal_duration_ms == 60000);
    CHECK(s.workload->reference_gpu == "v100-32g");  // an alias, stored as the catalog name
  }

  SECTION("a synthetic workload without its own seed takes the scenario's seed") {
    const std::string json = std::string("{") + kCluster +
                             R"(, "seed": 9, "workload": {"kind": "synthetic", "jobs": 20, "size_mix": {"1": 1, "8": 1}}})";
    const Scenario s = parsed(json);
    CHECK(s.workload->source == "synthetic(seed=9)");
    CHECK(s.workload->size() == 20);
    CHECK(s.workload->generator != nullptr);  // made on demand, not held
    const Scenario own =
        parsed(std::string("{") + kCluster + R"(, "seed": 9, "workload": {"kind": "synthetic", "seed": 4, "jobs": 20}})");
    CHECK(own.workload->source == "synthetic(seed=4)");
  }

  SECTION("record_transitions false leaves the run's transitions empty") {
    const Scenario s = parsed(minimal(R"(, "record_transitions": false)"));
    const RunResult r = test::run(s, "topology-aware");
    CHECK(r.transitions.empty());
    CHECK(r.jobs.at(0).state == JobState::Finished);
    CHECK_FALSE(test::run(parsed(minimal()), "topology-aware").transitions.empty());
  }

  SECTION("seeds, share_policy, workload_coverage, sample_every_s") {
    const Scenario s = parsed(minimal(R"(, "seeds": 4, "share_policy": "fgd", "workload_coverage": 0.9, "sample_every_s": 2.5)"));
    CHECK(s.seeds == 4);
    CHECK(s.share_scheduler == "fgd");
    CHECK(s.fragmentation_coverage == 0.9);
    CHECK(s.sample_every_ms == 2500);
  }

  SECTION("a synthetic workload without its own seed is drawn again for every run seed; with one it is not") {
    const Scenario s = parsed(std::string("{") + kCluster + R"(, "seed": 9, "workload": {"kind": "synthetic", "jobs": 20}})");
    REQUIRE(s.workload_for_seed);
    CHECK(s.workload_for_seed(9).source == "synthetic(seed=9)");
    CHECK(s.workload_for_seed(10).source == "synthetic(seed=10)");
    const Scenario own =
        parsed(std::string("{") + kCluster + R"(, "seed": 9, "workload": {"kind": "synthetic", "seed": 4, "jobs": 20}})");
    CHECK_FALSE(own.workload_for_seed);
  }
}

TEST_CASE("scenario::Scenario relative paths resolve against the scenario file's folder", "[scenario]") {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path / "nodes");
  std::filesystem::create_directories(dir.path / "traces");
  write_file(dir.file("nodes/box.json"), node_to_json(*builtin_model("dgx1-v100")));
  write_file(
      dir.file("traces/philly.csv"),
      "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:00:00,60,16,960,vc1\n2017-10-09 07:01:00,30,2,60,vc1\n");
  const std::string body = R"({"cluster": {"nodes": [{"model": "nodes/box.json", "count": 2}]},
                               "workload": {"kind": "philly", "path": "traces/philly.csv"}})";

  SECTION("a node JSON file and a Philly trace named relative to the scenario load from any working directory") {
    write_file(dir.file("s.json"), body);
    auto s = load_scenario(dir.file("s.json"));
    INFO((s.ok() ? std::string() : s.error().message));
    REQUIRE(s.ok());
    REQUIRE(s->cluster.groups.size() == 1);
    CHECK(s->cluster.groups[0].model.gpus.size() == 8);
    REQUIRE(s->workload->jobs.size() == 2);
    CHECK(s->workload->jobs[0].workers == 2);  // 16 GPUs -> 2 x 8 (gang rule)
    CHECK(s->workload->jobs[0].gpus_per_worker == 8);
    CHECK(s->workload->jobs[1].submit_ms == 60000);
    CHECK(s->workload->jobs[1].ideal_duration_ms == 30000);
  }

  SECTION("the same paths from a scenario in a sub-folder do not resolve: errors name the pointer and the resolved file") {
    std::filesystem::create_directories(dir.path / "sub");
    write_file(dir.file("sub/s.json"), body);
    auto s = load_scenario(dir.file("sub/s.json"));
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.error().message, Catch::StartsWith(dir.file("sub/s.json") + ": /cluster/nodes/0/model: cannot open '" +
                                                    dir.file("sub/nodes/box.json") + "'"));
  }

  SECTION("nvidia-smi topo -m text with a gpu_model, relative to the scenario") {
    const std::string topo = test::shared_file("topologies/dgx1-v100-hybrid-cube-mesh_topo-m.txt");
    if (topo.empty()) return;
    std::filesystem::copy_file(topo, dir.file("nodes/dgx1.txt"));
    write_file(dir.file("s.json"), R"({"cluster": {"nodes": [{"model": "nodes/dgx1.txt", "gpu_model": "v100-32g"}]},
                                       "workload": {"kind": "jobs", "jobs": [{"model": "resnet50", "iterations": 1}]}})");
    auto s = load_scenario(dir.file("s.json"));
    INFO((s.ok() ? std::string() : s.error().message));
    REQUIRE(s.ok());
    REQUIRE(s->cluster.groups[0].model.gpus.size() == 8);
    CHECK(s->cluster.groups[0].model.gpus[0].memory_gib == 32);
  }
}

TEST_CASE("scenario::Scenario errors name the file and the JSON pointer", "[scenario]") {
  SECTION("cluster errors point into /cluster") {
    CHECK(parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v100", "count": -2}]}, )" + std::string(kWorkload) + "}") ==
          "bad.json: /cluster/nodes/0/count: must be an integer in 1..100000, got -2");
    CHECK_THAT(
        parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v100", "label": "topo"}]}, )" + std::string(kWorkload) + "}"),
        Catch::StartsWith("bad.json: /cluster/nodes/0/label: 'topo' is not one of topology, default"));
    CHECK_THAT(parse_error(R"({"cluster": {"nodes": []}, )" + std::string(kWorkload) + "}"),
               Catch::StartsWith("bad.json: /cluster/nodes: must be a non-empty array"));
    CHECK_THAT(parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v100"}], "network": {"transport": "udp"}}, )" +
                           std::string(kWorkload) + "}"),
               Catch::StartsWith("bad.json: /cluster/network/transport: 'udp' is not one of tcp, roce, ib"));
    CHECK_THAT(parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v100"}], "network": {"nic_speed_gbit": 0}}, )" +
                           std::string(kWorkload) + "}"),
               Catch::StartsWith("bad.json: /cluster/network/nic_speed_gbit: "));
    CHECK_THAT(parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v100", "cuont": 2}]}, )" + std::string(kWorkload) + "}"),
               Catch::StartsWith("bad.json: /cluster/nodes/0/cuont: unknown key") && Catch::Contains("did you mean 'count'?"));
  }

  SECTION("an unknown node model suggests the built-in one it is closest to") {
    CHECK_THAT(parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v10"}]}, )" + std::string(kWorkload) + "}"),
               Catch::StartsWith("bad.json: /cluster/nodes/0/model: unknown node model 'dgx1-v10'") &&
                   Catch::Contains("did you mean 'dgx1-v100'?"));
  }

  SECTION("an unknown node model in a scenario loaded from a folder still gets the did-you-mean (not a file error)") {
    test::TempDir dir;
    write_file(dir.file("s.json"), R"({"cluster": {"nodes": [{"model": "dgx1-v10"}]}, )" + std::string(kWorkload) + "}");
    auto s = load_scenario(dir.file("s.json"));
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.error().message,
               Catch::StartsWith(dir.file("s.json") + ": /cluster/nodes/0/model: unknown node model 'dgx1-v10'") &&
                   Catch::Contains("did you mean 'dgx1-v100'?"));
  }

  SECTION("top-level errors: unknown key, missing cluster, seed, mode, schedulers, queue, overlap") {
    CHECK_THAT(parse_error(minimal(R"(, "schedulerz": ["default"])")),
               Catch::StartsWith("bad.json: /schedulerz: unknown key") && Catch::Contains("did you mean 'schedulers'?"));
    CHECK_THAT(parse_error(std::string("{") + kWorkload + "}"), Catch::StartsWith("bad.json: /cluster: missing"));
    CHECK_THAT(parse_error(minimal(R"(, "seed": -1)")), Catch::StartsWith("bad.json: /seed: must be an integer"));
    CHECK_THAT(parse_error(minimal(R"(, "mode": "fil")")),
               Catch::StartsWith("bad.json: /mode: 'fil' is not one of replay, fill"));
    CHECK_THAT(parse_error(minimal(R"(, "mode": "fill")")),
               Catch::StartsWith("bad.json: /workload/kind: a fill experiment draws pods"));
    CHECK_THAT(parse_error(minimal(R"(, "schedulers": ["topology-aware", "defualt"])")),
               Catch::StartsWith("bad.json: /schedulers/1: unknown scheduler 'defualt' (did you mean 'default'?)"));
    CHECK(parse_error(minimal(R"(, "schedulers": ["default", "default"])")) ==
          "bad.json: /schedulers/1: scheduler 'default' listed twice");
    CHECK_THAT(parse_error(minimal(R"(, "schedulers": [])")),
               Catch::StartsWith("bad.json: /schedulers: must be a non-empty array"));
    CHECK(parse_error(minimal(R"(, "queue": {"backfill": "yes"})")) == "bad.json: /queue/backfill: must be true or false");
    CHECK_THAT(parse_error(minimal(R"(, "overlap": {"tensorflow": 1.5})")), Catch::StartsWith("bad.json: /overlap/tensorflow: "));
  }

  SECTION("a key given twice in one object is an error naming its pointer (JSON parsers silently keep the last)") {
    CHECK(parse_error(minimal(R"(, "seed": 1, "seed": 2)")) ==
          "bad.json: /seed: duplicate key (a key may appear once per object)");
    CHECK(parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v100", "count": 1, "count": 2}]}, )" + std::string(kWorkload) +
                      "}") == "bad.json: /cluster/nodes/0/count: duplicate key (a key may appear once per object)");
  }

  SECTION("a non-boolean record_transitions is an error, not silently ignored") {
    CHECK(parse_error(minimal(R"(, "record_transitions": "yes")")) == "bad.json: /record_transitions: must be true or false");
  }

  SECTION("workload errors point into /workload") {
    CHECK_THAT(parse_error(std::string("{") + kCluster + R"(, "workload": {"kind": "csv"}})"),
               Catch::StartsWith("bad.json: /workload/kind: must be one of jobs, synthetic, philly, alibaba, alibaba-pods"));
    CHECK(parse_error(std::string("{") + kCluster +
                      R"(, "workload": {"kind": "jobs", "jobs": [{"model": "vgg61", "iterations": 1}]}})") ==
          "bad.json: /workload/jobs/0/model: unknown model 'vgg61' (did you mean 'vgg16'?)");
    CHECK_THAT(parse_error(std::string("{") + kCluster + R"(, "workload": {"kind": "philly", "path": "no/such/philly.csv"}})"),
               Catch::StartsWith("bad.json: /workload/path: cannot open 'no/such/philly.csv'"));
  }

  SECTION("a job the cluster can never hold is an input error naming the job") {
    CHECK(
        parse_error(
            std::string("{") + kCluster +
            R"(, "workload": {"kind": "jobs", "jobs": [{"name": "big", "workers": 3, "gpus_per_worker": 8, "model": "resnet50", "iterations": 1}]}})") ==
        "bad.json: /workload: job 'big' needs 24 GPUs, the cluster has 16");
    CHECK(
        parse_error(
            std::string("{") + kCluster +
            R"(, "workload": {"kind": "jobs", "jobs": [{"name": "wide", "gpus_per_worker": 16, "model": "resnet50", "iterations": 1}]}})") ==
        "bad.json: /workload: job 'wide' has a pod of 16 GPUs, the largest node has 8");
  }

  SECTION("a JSON syntax error names the file, line and column") {
    CHECK_THAT(parse_error("{\n  \"seed\": 1,\n  \"cluster\": ]\n}"), Catch::StartsWith("bad.json:3:"));
  }
}

// A gang whose identical pods cannot all be placed even on the empty cluster was accepted (the
// loader only compared the job with the cluster's GPU total and its largest node).
TEST_CASE("scenario::Scenario gang pods that cannot all fit are an input error", "[scenario]") {
  SECTION("4 pods x 6 GPUs on 3 x dgx1-v100: 24 GPUs, but each node holds one 6-GPU pod") {
    CHECK_THAT(parse_error(R"({"cluster": {"nodes": [{"model": "dgx1-v100", "count": 3}]}, "workload": {"kind": "jobs",
                             "jobs": [{"name": "wide", "workers": 4, "gpus_per_worker": 6, "model": "resnet50", "iterations": 1}]}})"),
               Catch::StartsWith("bad.json: /workload: job 'wide'"));
  }
}
