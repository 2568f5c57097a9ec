#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/builtin_models.h"
#include "core/topology.h"
#include "formats/hardware/node_json.h"
#include "formats/hardware/node_source.h"
#include "tests/test_support.h"

using namespace topsim;
using Json = nlohmann::json;

namespace {

// A small valid node: one socket, a host bridge with a switch, two V100s (count 2) and a NIC.
const char* const kSmallNode = R"({
  "name": "small",
  "description": "two V100 under one switch",
  "numa_nodes": [{"id": 0, "cpu": "intel-skylake", "cpu_affinity": "0-15"}],
  "bridges": [
    {"kind": "host-bridge", "numa": 0, "pcie_gen": 3},
    {"kind": "switch", "parent": 0, "pcie_gen": 3}
  ],
  "gpus": [{"model": "v100", "bridge": 1, "count": 2}],
  "nics": [{"name": "mlx5_0", "speed_gbit": 100, "transport": "ib", "bridge": 1, "pcie_gen": 3}],
  "nvlinks": [{"gpus": [0, 1], "count": 2}]
})";

// The load error for kSmallNode after `edit`, as "node.json: ..." text ("" if it loaded).
template <class Edit>
std::string error_after(Edit edit) {
  Json node = Json::parse(kSmallNode);
  edit(node);
  const Expected<NodeModel> model = node_from_json(node.dump(2), "node.json");
  return model ? "" : model.error().message;
}

// Every pair's nvidia-smi code and bandwidth, GPUs and NICs, row by row.
std::vector<std::string> link_facts(const Topology& t) {
  std::vector<std::string> facts;
  for (int a = 0; a < t.gpu_count(); ++a) {
    for (int b = 0; b < t.gpu_count(); ++b)
      facts.push_back(link_code(t.gpu_pair(a, b).cls, t.gpu_pair(a, b).nvlinks) + "@" +
                      std::to_string(t.gpu_pair(a, b).bandwidth_gbps));
    for (int n = 0; n < t.nic_count(); ++n) facts.push_back(link_code(t.gpu_nic(a, n).cls, t.gpu_nic(a, n).nvlinks));
  }
  return facts;
}

}  // namespace

TEST_CASE("formats::node_json round trip of every built-in model", "[formats]") {
  for (const BuiltinModelInfo& info : builtin_models()) {
    SECTION("model " + info.name) {
      // node_to_json -> node_from_json gives the same model, hence identical link matrices,
      // and writing it again gives the same text.
      const NodeModel original = *builtin_model(info.name);
      const std::string text = node_to_json(original);
      const Expected<NodeModel> loaded = node_from_json(text, info.name + ".json");
      REQUIRE(loaded.ok());
      CHECK(node_to_json(*loaded) == text);
      CHECK(loaded->gpus.size() == original.gpus.size());
      CHECK(loaded->nics.size() == original.nics.size());
      CHECK(loaded->host_memory_gib == original.host_memory_gib);
      const Expected<Topology> a = Topology::build(original), b = Topology::build(*loaded);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      CHECK(link_facts(*a) == link_facts(*b));
    }
  }
}

TEST_CASE("formats::node_json format details", "[formats]") {
  SECTION("count replicates a GPU entry; memory and PCIe come from the catalog") {
    // two V100s on bridge 1, 16 GiB, PCIe Gen3 x16, SM 70; the NVLink joins GPU0 and GPU1
    const Expected<NodeModel> model = node_from_json(kSmallNode, "node.json");
    REQUIRE(model.ok());
    REQUIRE(model->gpus.size() == 2);
    for (const Gpu& gpu : model->gpus) {
      CHECK(gpu.model == "v100");
      CHECK(gpu.bridge == 1);
      CHECK(gpu.memory_gib == 16);
      CHECK(gpu.sm == 70);
      CHECK(gpu.pcie_gen == 3);
    }
    CHECK(model->bridges[1].numa == 0);
    CHECK(Topology::build(*model)->gpu_pair(0, 1).nvlinks == 2);
  }
  SECTION("the writer folds identical neighbours into count and indents by 2 spaces") {
    // the DGX-1 has two V100s per switch: 4 GPU entries with "count": 2
    const std::string text = node_to_json(*builtin_model("dgx1-v100"));
    CHECK(text.rfind("{\n  \"name\": \"dgx1-v100\",\n", 0) == 0);
    size_t folded = 0;
    for (size_t at = text.find("\"count\": 2}"); at != std::string::npos; at = text.find("\"count\": 2}", at + 1))
      if (text.rfind("\"model\"", at) > text.rfind('\n', at)) ++folded;
    CHECK(folded == 4);
  }
  SECTION("optional values that differ from the catalog survive a round trip") {
    // a 32 GiB, PCIe Gen4 x8 V100 with a bus id keeps all three
    NodeModel model = *node_from_json(kSmallNode, "node.json");
    model.gpus[0].memory_gib = 32;
    model.gpus[0].pcie_gen = 4;
    model.gpus[0].pcie_width = 8;
    model.gpus[0].bus_id = "0000:3b:00.0";
    const Expected<NodeModel> again = node_from_json(node_to_json(model), "node.json");
    REQUIRE(again.ok());
    CHECK(again->gpus[0].memory_gib == 32);
    CHECK(again->gpus[0].pcie_width == 8);
    CHECK(again->gpus[0].bus_id == "0000:3b:00.0");
    CHECK(again->gpus[1].memory_gib == 16);
  }
}

TEST_CASE("formats::node_json rejects bad input with file and JSON path", "[formats]") {
  SECTION("negative GPU count") {
    // names the file, the pointer and the value found
    CHECK(error_after([](Json& n) { n["gpus"][0]["count"] = -2; }) ==
          "node.json: /gpus/0/count: must be a positive integer, got -2");
  }
  SECTION("unknown GPU model") {
    // suggests the close name and lists the catalog
    const std::string e = error_after([](Json& n) { n["gpus"][0]["model"] = "v200"; });
    CHECK_THAT(e, Catch::StartsWith("node.json: /gpus/0/model: unknown GPU model \"v200\"; did you mean 'v100'?"));
    CHECK_THAT(e, Catch::Contains("a100") && Catch::Contains("h100"));
  }
  SECTION("unknown CPU kind") {
    // lists the valid kinds and suggests the full name
    const std::string e = error_after([](Json& n) { n["numa_nodes"][0]["cpu"] = "skylake"; });
    CHECK_THAT(e, Catch::StartsWith("node.json: /numa_nodes/0/cpu: must be one of intel-broadwell, intel-skylake"));
    CHECK_THAT(e, Catch::EndsWith("got \"skylake\"; did you mean 'intel-skylake'?"));
  }
  SECTION("wrong type") {
    // a string where an integer belongs
    CHECK(error_after([](Json& n) { n["gpus"][0]["bridge"] = "1"; }) ==
          "node.json: /gpus/0/bridge: must be an integer, got \"1\"");
    CHECK(error_after([](Json& n) { n["gpus"] = Json::object(); }) == "node.json: /gpus: must be an array, got an object");
  }
  SECTION("missing required key") {
    CHECK(error_after([](Json& n) { n["nics"][0].erase("transport"); }) == "node.json: /nics/0/transport: missing required key");
    CHECK(error_after([](Json& n) { n.erase("gpus"); }) == "node.json: /gpus: missing required key");
  }
  SECTION("unknown key") {
    // rejected, with the allowed keys and a suggestion
    const std::string e = error_after([](Json& n) { n["gpus"][0]["modle"] = "v100"; });
    CHECK_THAT(e, Catch::StartsWith("node.json: /gpus/0/modle: unknown key (allowed: model, bridge, count"));
    CHECK_THAT(e, Catch::EndsWith("did you mean 'model'?"));
  }
  SECTION("references out of range") {
    // a bridge or GPU index that does not exist names the valid range
    CHECK(error_after([](Json& n) { n["gpus"][0]["bridge"] = 9; }) ==
          "node.json: /gpus/0/bridge: must be a bridge index (0-1), got 9");
    CHECK(error_after([](Json& n) { n["nvlinks"][0]["gpus"][1] = 5; }) ==
          "node.json: /nvlinks/0/gpus/1: must be a GPU index (0-1), got 5");
    CHECK(error_after([](Json& n) { n["bridges"][1]["parent"] = 1; }) ==
          "node.json: /bridges/1/parent: must be the index of an earlier bridge (0-0), got 1");
  }
  SECTION("structural checks of validate() carry the file name") {
    const std::string e = error_after([](Json& n) { n["bridges"][0]["pcie_gen"] = 9; });
    CHECK_THAT(e, Catch::StartsWith("node.json: bridges[0]."));
    CHECK_THAT(e, Catch::EndsWith("pcie_gen: 9 is not a PCIe generation (1-6)"));
  }
  SECTION("impossible hardware is refused (docs/limits.md)") {
    CHECK(error_after([](Json& n) { n["nvlinks"][0]["count"] = 1000000; }) ==
          "node.json: gpus[0]: 1000000 NVLinks (bonds and nvswitch_links), but a v100 has 6 NVLink ports");
    CHECK_THAT(error_after([](Json& n) { n["gpus"][0]["sm"] = 9999; }),
               Catch::EndsWith("sm: 9999 is not a compute capability x 10 (10-150)"));
    CHECK_THAT(error_after([](Json& n) { n["gpus"][0]["memory_gib"] = 1e9; }),
               Catch::EndsWith("memory_gib: must be in (0, 4096]"));
    CHECK_THAT(error_after([](Json& n) { n["nics"][0]["speed_gbit"] = 1e7; }),
               Catch::EndsWith("speed_gbit: must be in (0, 3200] Gb/s"));
    CHECK_THAT(error_after([](Json& n) {
                 n["gpus"][0]["count"] = 1;
                 n["gpus"][0]["bus_id"] = "0000:zz:00.0";
                 n.erase("nvlinks");
               }),
               Catch::EndsWith("bus_id: '0000:zz:00.0' is not a PCI bus id (e.g. 0000:07:00.0)"));
  }
  SECTION("syntax error reports line and column") {
    // the missing comma shows at the end of the "gpus" token on line 3, where nlohmann's
    // own message places it too
    const char* const text = "{\n  \"name\": \"x\"\n  \"gpus\": []\n}\n";
    const Expected<NodeModel> model = node_from_json(text, "node.json");
    REQUIRE_FALSE(model.ok());
    CHECK(model.error().message ==
          "node.json:3:8: invalid JSON: syntax error while parsing object - unexpected string literal; expected '}'");
    CHECK_THROWS_WITH(Json::parse(text), Catch::Contains("line 3, column 8"));
  }
  SECTION("empty text and a non-object document") {
    CHECK_THAT(node_from_json("", "node.json").error().message, Catch::StartsWith("node.json:1:1: invalid JSON"));
    CHECK(node_from_json("[1]", "node.json").error().message == "node.json: /: must be an object, got an array");
  }
}

TEST_CASE("formats::node_json round trip of imported real machines", "[formats]") {
  for (const char* file :
       {"dgx1-v100-hybrid-cube-mesh_topo-m.txt", "dgx-a100_topo-m.txt", "hgx-a100-8gpu-8nic-roce_topo-m.txt",
        "dgx-h100-class_8gpu-8ib-ndr_topo-m.txt", "aws-p5.48xlarge_topo-m.txt", "ibm-hgx-h100-8gpu-nccl-topo.xml"}) {
    SECTION(file) {
      // an imported node written as JSON and read back has the same pairs and the same JSON text
      const std::string path = test::shared_file(std::string("topologies/") + file);
      if (path.empty()) return;
      const Expected<NodeModel> imported = load_node(path);
      REQUIRE(imported.ok());
      const std::string text = node_to_json(*imported);
      const Expected<NodeModel> loaded = node_from_json(text, "imported.json");
      REQUIRE(loaded.ok());
      CHECK(node_to_json(*loaded) == text);
      CHECK(link_facts(*Topology::build(*imported)) == link_facts(*Topology::build(*loaded)));
    }
  }
}

TEST_CASE("formats::node_json host memory: written when stated, read back, absent as not stated", "[formats]") {
  // Expected: NVIDIA's systems' figures (core/builtin_models.cpp), none for a generic PCIe box.
  CHECK(builtin_model("dgx1-v100")->host_memory_gib == 512);
  CHECK(builtin_model("dgx-a100")->host_memory_gib == 1024);
  CHECK(builtin_model("hgx-h100")->host_memory_gib == 2048);
  CHECK(builtin_model("gb200-nvl72-tray")->host_memory_gib == 960);
  CHECK(builtin_model("pcie-h100")->host_memory_gib == 0);
  const std::string h100 = node_to_json(*builtin_model("hgx-h100"));
  CHECK_THAT(h100, Catch::Contains("\n  \"host_memory_gib\": 2048,\n"));
  CHECK_THAT(node_to_json(*builtin_model("pcie-h100")), !Catch::Contains("host_memory_gib"));
  NodeModel own = *builtin_model("pcie-h100");
  own.host_memory_gib = 1536.5;
  const Expected<NodeModel> loaded = node_from_json(node_to_json(own), "own.json");
  REQUIRE(loaded.ok());
  CHECK(loaded->host_memory_gib == 1536.5);
}
