// `topsim import nodes`: `kubectl get nodes -o json` -> a scenario cluster, used by a scenario as
// "cluster": "cluster.json". The sample below is written for this test in the shape kubectl
// prints (a List of Nodes with GPU feature discovery labels and allocatable devices).
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::TempDir;

namespace {

std::string node(const std::string& name, const std::string& product, int gpus, const std::string& extra_labels = "") {
  const std::string labels = "\"kubernetes.io/hostname\": \"" + name + "\"" +
                             (product.empty() ? "" : ", \"nvidia.com/gpu.product\": \"" + product + "\"") + extra_labels;
  const std::string gpu = gpus > 0 ? ", \"nvidia.com/gpu\": \"" + std::to_string(gpus) + "\"" : "";
  return R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": ")" + name + R"(", "labels": {)" + labels +
         R"(}}, "status": {"capacity": {"cpu": "96", "memory": "1056757676Ki")" + gpu +
         R"(}, "allocatable": {"cpu": "95500m", "memory": "1054558764Ki", "pods": "110")" + gpu + "}}}";
}

std::string node_list(const std::vector<std::string>& nodes) {
  std::string items;
  for (const std::string& n : nodes) items += (items.empty() ? "" : ",\n") + n;
  return R"({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [)" + items + "]}";
}

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

}  // namespace

TEST_CASE("cli::import nodes groups kubectl's GPU nodes into built-in models, and a scenario runs them", "[cli][import]") {
  TempDir dir;
  const std::string nodes =
      write(dir, "nodes.json",
            node_list({node("a100-0", "NVIDIA-A100-SXM4-40GB", 8), node("cpu-0", "", 0),
                       node("a100-1", "NVIDIA-A100-SXM4-40GB", 8), node("h100-0", "NVIDIA-H100-80GB-HBM3", 8),
                       node("v100-share-0", "Tesla-V100-SXM2-16GB", 8, R"(, "ack.node.gpu.schedule": "share")")}));
  const CliResult r = run_cli("import nodes '" + nodes + "' -o '" + dir.file("cluster.json") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Allocatable memory 1054558764 Ki: 1029842.54 MiB, 1005.7 GiB (whole MiB kept).
  CHECK_THAT(r.out, Catch::Contains("2 x dgx-a100 (8 x NVIDIA-A100-SXM4-40GB, 1005.7 GiB host memory)") &&
                        Catch::Contains("1 x hgx-h100 (8 x NVIDIA-H100-80GB-HBM3, 1005.7 GiB host memory)") &&
                        Catch::Contains("1 x dgx1-v100 (8 x Tesla-V100-SXM2-16GB, share, 1005.7 GiB host memory)") &&
                        Catch::Contains("skipped 1 node without GPUs: cpu-0"));
  const auto cluster = nlohmann::json::parse(read_text(dir.file("cluster.json")));
  CHECK(cluster == nlohmann::json::parse(R"({"nodes": [
      {"model": "dgx-a100", "count": 2, "names": ["a100-0", "a100-1"], "host_memory_gib": 1005.705078125},
      {"model": "hgx-h100", "count": 1, "names": ["h100-0"], "host_memory_gib": 1005.705078125},
      {"model": "dgx1-v100", "count": 1, "label": "share", "names": ["v100-share-0"], "host_memory_gib": 1005.705078125}],
                                             "network": {"transport": "tcp"}})"));
  // A scenario takes the file as its cluster.
  const std::string scenario = write(dir, "s.json", R"({"cluster": "cluster.json",
    "workload": {"kind": "synthetic", "jobs": 20, "seed": 3}})");
  const CliResult run = run_cli("run '" + scenario + "' -o '" + dir.file("out") + "' --no-report --quiet");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("4 nodes, 32 GPUs"));
}

TEST_CASE("cli::import nodes: every catalog GPU's product label maps to its node model", "[cli][import]") {
  // Expectation: GPU feature discovery's labels of current 8-GPU nodes (A100 80 GB, H100, H200,
  // B200, B300, L40S, L4) and the older label spelling without "NVIDIA-" each find their built-in
  // model.
  TempDir dir;
  const std::string nodes =
      write(dir, "nodes.json",
            node_list({node("a", "NVIDIA-A100-SXM4-80GB", 8), node("b", "NVIDIA-H100-80GB-HBM3", 8), node("c", "NVIDIA-H200", 8),
                       node("d", "NVIDIA-B200", 8), node("e", "NVIDIA-L40S", 8), node("f", "NVIDIA-L4", 8),
                       node("g", "A100-SXM4-80GB", 8), node("h", "NVIDIA-B300-SXM6-AC", 8)}));
  const CliResult r = run_cli("import nodes '" + nodes + "' -o '" + dir.file("c.json") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto cluster = nlohmann::json::parse(read_text(dir.file("c.json")));
  std::vector<std::string> models;
  for (const auto& group : cluster.at("nodes")) models.push_back(group.at("model").get<std::string>());
  CHECK(models == std::vector<std::string>{"dgx-a100-80g", "hgx-h100", "hgx-h200", "hgx-b200", "pcie-l40s", "pcie-l4",
                                           "dgx-a100-80g", "hgx-b300"});
}

TEST_CASE("cli::import nodes: unknown products are listed with how to map them", "[cli][import]") {
  TempDir dir;
  const std::string nodes = write(
      dir, "nodes.json",
      node_list({node("l4-0", "NVIDIA-L4", 4), node("a100-80-0", "NVIDIA-A100-SXM4-80GB", 8), node("l4-1", "NVIDIA-L4", 4)}));
  check_bad_input(run_cli("import nodes '" + nodes + "' -o '" + dir.file("c.json") + "'"),
                  "nodes.json: no built-in node model for 'NVIDIA-L4' x4 (built-in:");
  CHECK_FALSE(std::filesystem::exists(dir.file("c.json")));
  const CliResult mapped = run_cli("import nodes '" + nodes + "' -o '" + dir.file("c.json") +
                                   "' --map NVIDIA-L4=pcie-8gpu --map NVIDIA-A100-SXM4-80GB=dgx-a100");
  INFO(mapped.err);
  REQUIRE(mapped.exit_code == 0);
  CHECK_THAT(mapped.out, Catch::Contains("2 x pcie-8gpu (4 x NVIDIA-L4, 1005.7 GiB host memory)"));
  check_bad_input(run_cli("import nodes '" + nodes + "' -o '" + dir.file("d.json") +
                          "' --map NVIDIA-L4=nope-1 --map "
                          "NVIDIA-A100-SXM4-80GB=dgx-a100"),
                  "--map 'NVIDIA-L4=nope-1': unknown node model 'nope-1'");
}

TEST_CASE("cli::import nodes: bad input is one line naming the file and node", "[cli][import]") {
  TempDir dir;
  check_bad_input(run_cli("import nodes '" + write(dir, "pods.json", R"({"kind": "PodList", "items": 3})") + "' -o '" +
                          dir.file("c.json") + "'"),
                  "pods.json: not `kubectl get nodes -o json` (or `-o yaml`) output");
  check_bad_input(run_cli("import nodes '" + write(dir, "nolabel.json", node_list({node("g0", "", 8)})) + "' -o '" +
                          dir.file("c.json") + "'"),
                  "nolabel.json: /items/0 (g0): 8 GPUs but no GPU product label: add nvidia.com/gpu.product");
  check_bad_input(
      run_cli("import nodes '" + write(dir, "cpu.json", node_list({node("c0", "", 0)})) + "' -o '" + dir.file("c.json") + "'"),
      "cpu.json: no GPU node among 1 nodes");
  check_bad_input(run_cli("import nodes '" + dir.file("absent.json") + "' -o '" + dir.file("c.json") + "'"), "absent.json");
  check_bad_input(run_cli("import nodes '" + dir.file("absent.json") + "'"), "-o PATH is required");
}

TEST_CASE("cli::import nodes: fields of the wrong type are read leniently, never thrown (fuzz finding)", "[cli][import]") {
  TempDir dir;
  // "name" holding an object made nlohmann's value() throw: the node has no name, one line.
  check_bad_input(
      run_cli("import nodes '" +
              write(dir, "odd.json",
                    R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": {"nvidia.com/gpu": "5"}}}]})") +
              "' -o '" + dir.file("c.json") + "'"),
      "odd.json: /items/0/metadata/name: missing");
  check_bad_input(run_cli("import nodes '" + write(dir, "kind.json", R"({"kind": 7, "items": [{"kind": ["Node"]}]})") + "' -o '" +
                          dir.file("c.json") + "'"),
                  "kind.json: /items/0: not a Node");
}
