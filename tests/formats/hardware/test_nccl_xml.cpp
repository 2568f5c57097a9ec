#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/builtin_models.h"
#include "core/topology.h"
#include "formats/hardware/nccl_xml.h"
#include "formats/hardware/nccl_xml_common.h"
#include "formats/hardware/node_json.h"
#include "tests/formats/hardware/nccl_xml_fixture.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::nccl_xml_test;

namespace {

size_t count_of(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++count;
  return count;
}

// Values of `attribute` on the lines of `xml` that contain `marker`, in order.
std::vector<std::string> attribute_values(const std::string& xml, const std::string& marker, const std::string& attribute) {
  std::vector<std::string> values;
  std::istringstream lines(xml);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(" " + attribute + "=\"");
    if (line.find(marker) == std::string::npos || at == std::string::npos) continue;
    const size_t begin = at + attribute.size() + 3;
    values.push_back(line.substr(begin, line.find('"', begin) - begin));
  }
  return values;
}

int nic_index(const NodeModel& model, const std::string& name) {
  for (size_t i = 0; i < model.nics.size(); ++i)
    if (model.nics[i].name == name) return static_cast<int>(i);
  return -1;
}

// Same class, NV count and bandwidth; `what` names the pair in a failure.
void check_same_link(const PairLink& expected, const PairLink& actual, const std::string& what) {
  INFO(what << ": expected " << link_code(expected.cls, expected.nvlinks) << " " << expected.bandwidth_gbps << " GB/s, got "
            << link_code(actual.cls, actual.nvlinks) << " " << actual.bandwidth_gbps << " GB/s");
  CHECK(actual.cls == expected.cls);
  CHECK(actual.nvlinks == expected.nvlinks);
  CHECK(actual.via_nvswitch == expected.via_nvswitch);
  CHECK(actual.bandwidth_gbps == Approx(expected.bandwidth_gbps));
}

// GPU i of `copy` is GPU gpus[i] of `original`; NICs correspond by index.
void check_same_pairs(const Topology& original, const Topology& copy, const std::vector<int>& gpus) {
  REQUIRE(copy.gpu_count() == static_cast<int>(gpus.size()));
  REQUIRE(copy.nic_count() == original.nic_count());
  for (size_t a = 0; a < gpus.size(); ++a) {
    for (size_t b = 0; b < gpus.size(); ++b)
      check_same_link(original.gpu_pair(gpus[a], gpus[b]), copy.gpu_pair(a, b),
                      "GPU" + std::to_string(a) + "-GPU" + std::to_string(b));
    for (int n = 0; n < copy.nic_count(); ++n)
      check_same_link(original.gpu_nic(gpus[a], n), copy.gpu_nic(a, n), "GPU" + std::to_string(a) + "-NIC" + std::to_string(n));
  }
}

std::vector<int> all_gpus(const NodeModel& model) {
  std::vector<int> gpus;
  for (size_t g = 0; g < model.gpus.size(); ++g) gpus.push_back(static_cast<int>(g));
  return gpus;
}

// Two V100s on one switch joined by NVLinks; the parameters break one attribute at a time.

}  // namespace

TEST_CASE("formats::nccl_xml imports the IBM Cloud HGX H100 dump", "[formats][nccl]") {
  const std::string path = test::shared_file("topologies/ibm-hgx-h100-8gpu-nccl-topo.xml");
  if (path.empty()) return;
  const NodeModel model = import_ok(test::read_text(path), path);
  const Topology topo = build(model);

  SECTION("8 H100 GPUs (sm 90, device 0x2330), each with 5+5+4+4 = 18 links into the NVSwitch fabric") {
    REQUIRE(model.gpus.size() == 8);
    for (const Gpu& gpu : model.gpus) {
      CHECK(gpu.model == "h100");
      CHECK(gpu.sm == 90);
      CHECK(gpu.memory_gib == 80);
      CHECK(gpu.nvswitch_links == 18);
      CHECK(gpu.pcie_gen == 5);     // 32.0 GT/s
      CHECK(gpu.pcie_width == 16);  // link_width="0" is x16 to NCCL
    }
    CHECK(model.nvlinks.empty());
    CHECK(model.gpus[0].bus_id == "0000:a4:00.0");
    CHECK(model.gpus[7].bus_id == "0000:ea:00.0");
  }
  SECTION("every GPU pair is NV18 through the NVSwitch at 18 x 20.6 GB/s (NCCL SM90)") {
    CHECK(topo.has_nvswitch());
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b) {
        if (a == b) continue;
        const PairLink& link = topo.gpu_pair(a, b);
        CHECK(link_code(link.cls, link.nvlinks) == "NV18");
        CHECK(link.via_nvswitch);
        CHECK(link.bandwidth_gbps == Approx(18 * 20.6));
      }
  }
  SECTION("8 NICs mlx5_0..mlx5_7 in net dev order, 200 Gb/s, RoCE (class 0x020000 with GPUDirect RDMA)") {
    REQUIRE(model.nics.size() == 8);
    for (int n = 0; n < 8; ++n) {
      CHECK(model.nics[n].name == "mlx5_" + std::to_string(n));
      CHECK(model.nics[n].speed_gbit == 200);
      CHECK(model.nics[n].transport == NicTransport::RoCE);
    }
  }
  SECTION("2 Sapphire Rapids NUMA nodes (modelid 143); GPUs 0-3 on the first, 4-7 on the second") {
    REQUIRE(model.numa_nodes.size() == 2);
    for (const NumaNode& node : model.numa_nodes) CHECK(node.cpu == CpuKind::IntelSapphireRapids);
    CHECK(model.numa_nodes[0].id == 0);
    CHECK(model.numa_nodes[1].id == 1);
    for (int g = 0; g < 8; ++g) CHECK(topo.gpu_numa(g) == (g < 4 ? 0 : 1));
    CHECK(model.numa_nodes[0].cpu_affinity == "0-79");  // 0000ffff,ffffffff,ffffffff
    CHECK(model.numa_nodes[1].cpu_affinity == "80-159");
  }
  SECTION("GPU0 and mlx5_7 sit under the same bridge: PIX, and mlx5_7 is GPU0's nearest NIC") {
    const int mlx5_7 = nic_index(model, "mlx5_7");
    REQUIRE(mlx5_7 >= 0);
    CHECK(topo.gpu_nic(0, mlx5_7).cls == LinkClass::PIX);
    CHECK(topo.nearest_nic(0) == mlx5_7);
    CHECK(topo.gpu_nic(0, nic_index(model, "mlx5_6")).cls == LinkClass::Node);
    CHECK(topo.gpu_nic(0, nic_index(model, "mlx5_0")).cls == LinkClass::Sys);
  }
  SECTION("the model is named after the file and says where it came from") {
    CHECK(model.name == "ibm-hgx-h100-8gpu-nccl-topo");
    CHECK(model.description.find("imported from NCCL topology XML") != std::string::npos);
    CHECK(model.description.find("not in the device table") == std::string::npos);
  }
}

TEST_CASE("formats::nccl_xml round trip of every built-in model", "[formats][nccl]") {
  SECTION("import(export(model)) keeps every GPU-GPU and GPU-NIC link class, NV count and bandwidth") {
    for (const BuiltinModelInfo& info : builtin_models()) {
      INFO("model " << info.name);
      const NodeModel model = *builtin_model(info.name);
      const NodeModel copy = import_ok(export_nccl_xml(model), info.name + ".xml");
      check_same_pairs(build(model), build(copy), all_gpus(model));
    }
  }
  SECTION("GPU models, the NUMA node of each GPU, NIC names, speeds and transports survive") {
    for (const BuiltinModelInfo& info : builtin_models()) {
      INFO("model " << info.name);
      const NodeModel model = *builtin_model(info.name);
      const NodeModel copy = import_ok(export_nccl_xml(model), info.name + ".xml");
      const Topology original = build(model), imported = build(copy);
      REQUIRE(copy.gpus.size() == model.gpus.size());
      for (size_t g = 0; g < model.gpus.size(); ++g) {
        // A GPU without a PCI device id in the table (GB200) comes back as the first catalog GPU
        // of its sm (B200): only its sm survives.
        if (nccl_xml_detail::gpu_device_id(model.gpus[g].model))
          CHECK(copy.gpus[g].model == model.gpus[g].model);
        else
          CHECK(copy.gpus[g].sm == model.gpus[g].sm);
        CHECK(copy.gpus[g].nvswitch_links == model.gpus[g].nvswitch_links);
        const NumaNode& numa_before = model.numa_nodes[original.gpu_numa(static_cast<int>(g))];
        const NumaNode& numa_after = copy.numa_nodes[imported.gpu_numa(static_cast<int>(g))];
        CHECK(numa_after.id == numa_before.id);
        CHECK(numa_after.cpu == numa_before.cpu);
        CHECK(numa_after.cpu_affinity == numa_before.cpu_affinity);
      }
      REQUIRE(copy.nics.size() == model.nics.size());
      for (size_t n = 0; n < model.nics.size(); ++n) {
        CHECK(copy.nics[n].name == model.nics[n].name);
        CHECK(copy.nics[n].speed_gbit == model.nics[n].speed_gbit);
        CHECK(copy.nics[n].transport == model.nics[n].transport);
      }
    }
  }
  SECTION("a 72-GPU NVSwitch domain on Arm, GPUs directly under host bridges, survives too") {
    const NodeModel model = nvswitch_domain_model(72, "b200", 36);
    const std::string xml = export_nccl_xml(model);
    CHECK(count_of(xml, "<cpu ") == 2);
    CHECK(count_of(xml, "arch=\"arm64\"") == 2);
    CHECK(count_of(xml, "class=\"0x060400\"") == 0);  // host bridges have no element
    CHECK(count_of(xml, "device=\"0x2901\"") == 72);
    const NodeModel copy = import_ok(xml, "nvl72.xml");
    check_same_pairs(build(model), build(copy), all_gpus(model));
    CHECK(copy.numa_nodes[0].cpu == CpuKind::Arm);
  }
  SECTION("every CPU kind maps back to itself through arch / vendor / familyid / modelid") {
    for (const CpuKind kind : enum_values<CpuKind>()) {
      const std::string name(enum_name(kind));
      NodeModelBuilder builder("cpu-" + name);
      builder.gpu(builder.host_bridge(builder.numa(kind, "0-7")), "t4");
      const NodeModel copy = import_ok(export_nccl_xml(builder.take()), name + ".xml");
      INFO("cpu kind " << name);
      CHECK(copy.numa_nodes.at(0).cpu == kind);
      CHECK(copy.numa_nodes.at(0).cpu_affinity == "0-7");
    }
  }
  SECTION("export is deterministic and shaped like NCCL's dump") {
    const NodeModel model = *builtin_model("dgx1-v100");
    const std::string xml = export_nccl_xml(model);
    CHECK(xml == export_nccl_xml(model));
    CHECK(xml.rfind("<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"0fffff00,000fffff\" arch=\"x86_64\" "
                    "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"79\">\n    <pci busid=",
                    0) == 0);
    CHECK(count_of(xml, "class=\"0x060400\"") == 4);  // the four PLX switches
    CHECK(count_of(xml, "device=\"0x1db1\" link_speed=\"8.0 GT/s PCIe\" link_width=\"16\"") == 8);
    CHECK(count_of(xml, "<nvlink ") == 32);           // 16 bonds, both ends
    CHECK(count_of(xml, "class=\"0x020700\"") == 1);  // the EDR InfiniBand HCA
    CHECK(count_of(xml, "<net name=\"mlx5_0\" dev=\"0\" speed=\"100000\" port=\"1\"") == 1);
  }
  SECTION("NVSwitch GPUs link to one synthetic NVSwitch bus id with their nvswitch_links") {
    const std::string xml = export_nccl_xml(*builtin_model("hgx-h100"));
    CHECK(count_of(xml, "count=\"18\" tclass=\"0x068000\"") == 8);
    const auto targets = attribute_values(xml, "tclass=\"0x068000\"", "target");
    CHECK(std::set<std::string>(targets.begin(), targets.end()).size() == 1);
    CHECK(count_of(xml, "link_speed=\"32.0 GT/s PCIe\"") > 0);
  }
}

TEST_CASE("formats::nccl_xml subset export", "[formats][nccl]") {
  const NodeModel model = *builtin_model("dgx1-v100");
  const std::vector<int> chosen = {4, 5, 6, 7};
  const std::string xml = export_nccl_xml(model, chosen);

  SECTION("4 <gpu> elements, numbered dev 0..3 in the order given") {
    CHECK(attribute_values(xml, "<gpu ", "dev") == std::vector<std::string>{"0", "1", "2", "3"});
  }
  SECTION("only NVLinks among the chosen GPUs: 6 bonds, 12 ends, every target a chosen GPU's bus id") {
    const auto gpu_bus = attribute_values(xml, "class=\"0x030200\"", "busid");
    REQUIRE(gpu_bus.size() == 4);
    const auto targets = attribute_values(xml, "<nvlink ", "target");
    CHECK(targets.size() == 12);
    for (const std::string& target : targets) CHECK(std::find(gpu_bus.begin(), gpu_bus.end(), target) != gpu_bus.end());
  }
  SECTION("a GPU keeps its synthesized bus id whatever the subset") {
    const auto full = attribute_values(export_nccl_xml(model), "class=\"0x030200\"", "busid");
    const auto subset = attribute_values(xml, "class=\"0x030200\"", "busid");
    REQUIRE(full.size() == 8);
    CHECK(subset == std::vector<std::string>(full.begin() + 4, full.end()));
  }
  SECTION("re-import gives a 4-GPU node whose pairs match the original's 4..7 sub-matrix") {
    const NodeModel copy = import_ok(xml, "dgx1-subset.xml");
    CHECK(copy.gpus.size() == 4);
    CHECK(copy.nvlinks.size() == 6);
    check_same_pairs(build(model), build(copy), chosen);
  }
  SECTION("GPUs given out of order are numbered in that order, and pairs follow them") {
    const std::vector<int> shuffled = {6, 1, 3};
    const NodeModel copy = import_ok(export_nccl_xml(model, shuffled), "dgx1-shuffled.xml");
    check_same_pairs(build(model), build(copy), shuffled);
  }
  SECTION("a subset of an NVSwitch node keeps the NVSwitch links: NV18 between the two GPUs") {
    const NodeModel h100 = *builtin_model("hgx-h100");
    const NodeModel copy = import_ok(export_nccl_xml(h100, {2, 5}), "h100-pair.xml");
    check_same_pairs(build(h100), build(copy), {2, 5});
    CHECK(link_code(build(copy).gpu_pair(0, 1).cls, build(copy).gpu_pair(0, 1).nvlinks) == "NV18");
  }
}

TEST_CASE("formats::nccl_xml import errors name the source and the element", "[formats][nccl]") {
  SECTION("the two-GPU fixture itself imports as NV2 (so each broken copy fails for one reason)") {
    const NodeModel model = import_ok(two_gpu_xml(), "fixture.xml");
    REQUIRE(model.nvlinks.size() == 1);
    CHECK(model.nvlinks[0].count == 2);
    CHECK(model.gpus[0].model == "v100");
    CHECK(model.numa_nodes[0].cpu == CpuKind::IntelSkylake);
    CHECK(model.numa_nodes[0].cpu_affinity == "0-15");
  }
  SECTION("malformed XML: a parse error with line, column and byte offset") {
    const std::string message = import_error("<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n", "broken.xml");
    CHECK(message.rfind("broken.xml:3:", 0) == 0);
    CHECK(message.find("XML parse error") != std::string::npos);
    CHECK(message.find("byte offset") != std::string::npos);
  }
  SECTION("a file nested deeper than any topology is refused before it is walked (it overflowed the stack)") {
    std::string deep = "<system version=\"1\">\n";
    for (int i = 0; i < 200000; ++i) deep += "<pci>";
    for (int i = 0; i < 200000; ++i) deep += "</pci>";
    deep += "\n</system>\n";
    CHECK(import_error(deep, "deep.xml") ==
          "deep.xml:2: elements nested more than 64 deep (an NCCL topology file nests fewer than 10)");
  }
  SECTION("an attribute given twice, and a second root element, are refused (pugixml keeps both)") {
    CHECK(import_error("<system version=\"1\" version=\"2\">\n</system>\n", "twice.xml") ==
          "twice.xml:1: <system>: attribute 'version' given twice");
    CHECK(import_error("<system version=\"1\">\n</system>\n<system version=\"1\"/>\n", "roots.xml") ==
          "roots.xml:3: a second root element <system> (an XML document has one)");
  }
  SECTION("invalid UTF-8 quoted in the import notes still exports as JSON (fuzz finding: the export threw)") {
    std::string xml = export_nccl_xml(*builtin_model("dgx1-v100"));
    const size_t at = xml.find("device=\"0x1db1\"");
    REQUIRE(at != std::string::npos);
    xml.replace(at, 15, "device=\"0x1db1\x87\x87\"");
    const NodeModel model = import_ok(xml, "bytes.xml");
    const std::string json = node_to_json(model);
    CHECK_THAT(json, Catch::Contains("0x1db1\xef\xbf\xbd\xef\xbf\xbd"));  // U+FFFD twice
    CHECK(node_from_json(json, "bytes.json").ok());
  }
  SECTION("a document without <system> is not an NCCL topology file") {
    CHECK(import_error("<topology><cpu/></topology>", "other.xml") ==
          "other.xml: no <system> element: not an NCCL topology file");
  }
  SECTION("a non-numeric NVLink count names the nvlink, its GPU and the line") {
    CHECK(import_error(two_gpu_xml("two"), "count.xml") ==
          "count.xml:6: <pci busid=0000:02:00.0> <gpu dev=0> <nvlink target=0000:03:00.0>: count 'two' is not a number");
  }
  SECTION("an NVLink target that is no GPU's bus id is named") {
    CHECK(import_error(two_gpu_xml("2", "0000:99:00.0"), "target.xml") ==
          "target.xml:6: <pci busid=0000:02:00.0> <gpu dev=0> <nvlink target=0000:99:00.0>: "
          "target 0000:99:00.0 is not the busid of a GPU in this file");
  }
  SECTION("a non-numeric link_width names the pci element") {
    CHECK(import_error(two_gpu_xml("2", "0000:03:00.0", "x"), "width.xml") ==
          "width.xml:9: <pci busid=0000:03:00.0>: link_width 'x' is not a number");
  }
  SECTION("the two ends of a bond must agree on its count") {
    CHECK(import_error(two_gpu_xml("3"), "asym.xml").find("GPU 0 lists 3 NVLinks to GPU 1, which lists 2 back") !=
          std::string::npos);
  }
  SECTION("two GPUs with the same dev are rejected") {
    CHECK(import_error(two_gpu_xml("2", "0000:03:00.0", "16", "0"), "dev.xml").find("dev 0 is used by two GPUs") !=
          std::string::npos);
  }
  SECTION("an unknown device id falls back to the first catalog model of that sm, and says so") {
    std::string xml = two_gpu_xml();
    xml.replace(xml.find("0x1db1"), 6, "0x1dff");  // V100 PCIe 16GB: not in the table
    const NodeModel model = import_ok(xml, "pcie-v100.xml");
    CHECK(model.gpus[0].model == "v100");
    CHECK(model.gpus[1].model == "v100");
    CHECK(model.description.find("GPU device 0x1dff (sm 70) is not in the device table: imported as v100") != std::string::npos);
  }
}

namespace {

// A random valid node: 1-2 sockets, host bridges with 0-2 switches under each, 1-8 GPUs (at least
// one per bridge) of one NVLink-capable model, direct NVLink bonds within every GPU's ports, 0-2 NICs.
NodeModel random_node(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* models[] = {"v100", "a100", "h100"};
  const std::string gpu_model = models[pick(0, 2)];
  const int ports = find_gpu_model(gpu_model)->max_nvlinks;
  NodeModelBuilder b("random-" + std::to_string(seed));
  std::vector<int> bridges;
  const int sockets = pick(1, 2);
  for (int s = 0; s < sockets; ++s) {
    const int host = b.host_bridge(b.numa(s == 0 ? CpuKind::IntelSkylake : CpuKind::IntelSkylake,
                                          std::to_string(s * 16) + "-" + std::to_string(s * 16 + 15)),
                                   pick(3, 5));
    bridges.push_back(host);
    for (int k = pick(0, 2); k > 0; --k) bridges.push_back(b.pcie_switch(host, pick(3, 5)));
  }
  // Every switch gets a GPU first (NCCL's dumps have no empty switch; the export leaves one out
  // but keeps its synthetic bus number, so a node with one is not a fixed point).
  const int gpus = std::max(pick(1, 8), static_cast<int>(bridges.size()));
  for (int g = 0; g < gpus; ++g)
    b.gpu(g < static_cast<int>(bridges.size()) ? bridges[static_cast<size_t>(g)]
                                               : bridges[static_cast<size_t>(pick(0, static_cast<int>(bridges.size()) - 1))],
          gpu_model);
  std::vector<int> used(static_cast<size_t>(gpus), 0);
  for (int a = 0; a < gpus; ++a)
    for (int c = a + 1; c < gpus; ++c) {
      const int count = pick(0, 2);
      if (count == 0 || used[static_cast<size_t>(a)] + count > ports || used[static_cast<size_t>(c)] + count > ports) continue;
      b.nvlink(a, c, count);
      used[static_cast<size_t>(a)] += count, used[static_cast<size_t>(c)] += count;
    }
  for (int n = pick(0, 2); n > 0; --n)
    b.nic(bridges[static_cast<size_t>(pick(0, static_cast<int>(bridges.size()) - 1))], "mlx5_" + std::to_string(n),
          pick(0, 1) ? 100 : 200, NicTransport::InfiniBand);
  return b.take();
}

}  // namespace

TEST_CASE("formats::nccl_xml and node JSON round trips hold for random valid nodes", "[formats][nccl][roundtrip]") {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    const NodeModel model = random_node(seed);
    REQUIRE(validate(model).ok());
    // node JSON: export -> load -> export is the identity
    const std::string json = node_to_json(model);
    const auto loaded = node_from_json(json, "random.json");
    REQUIRE(loaded.ok());
    CHECK(node_to_json(*loaded) == json);
    // NCCL XML: what is exported imports, and exports again to the same file. (NCCL's format has
    // no element for a host bridge: GPUs directly under one host bridge come back on separate
    // root ports of the socket, PHB read as NODE, so the node itself is not always the same.)
    const std::string xml = export_nccl_xml(model);
    const NodeModel copy = import_ok(xml, "random.xml");
    CHECK(export_nccl_xml(copy) == xml);
    REQUIRE(copy.gpus.size() == model.gpus.size());
    CHECK(copy.nics.size() == model.nics.size());
    CHECK(copy.nvlinks.size() == model.nvlinks.size());
    for (size_t g = 0; g < model.gpus.size(); ++g) CHECK(copy.gpus[g].model == model.gpus[g].model);
    // and the imported node exports to JSON its own loader accepts
    CHECK(node_from_json(node_to_json(copy), "copy.json").ok());
  }
}

TEST_CASE("formats::nccl_xml a CPU of numaid -1 (NUMA node not reported) gets the lowest free id", "[formats][nccl]") {
  // NCCL copies sysfs numa_node, -1 on VMs and with NUMA off (src/graph/xml.cc); the node that
  // `topo import` writes must load again (a fuzz finding: it wrote "id": -1).
  const std::string path = test::shared_file("topologies/ibm-hgx-h100-8gpu-nccl-topo.xml");
  if (path.empty()) return;
  std::string text = test::read_text(path);
  const size_t second = text.find("numaid=\"1\"");
  REQUIRE(second != std::string::npos);
  text.replace(second, 10, "numaid=\"-1\"");
  const NodeModel model = import_ok(text, "unknown-numa.xml");
  REQUIRE(model.numa_nodes.size() == 2);
  CHECK(model.numa_nodes[0].id == 0);
  CHECK(model.numa_nodes[1].id == 1);
  CHECK(node_from_json(node_to_json(model), "exported.json").ok());
}
