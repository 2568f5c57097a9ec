#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using topsim::test::CliResult;
using topsim::test::lines_of;
using topsim::test::run_cli;
using topsim::test::TempDir;
using topsim::test::words_of;

namespace {

// The cells of row `label` in the table that follows the line starting with `title`.
std::vector<std::string> table_row(const std::string& report, const std::string& title, const std::string& label) {
  bool in_table = false;
  for (const std::string& line : lines_of(report)) {
    if (line.rfind(title, 0) == 0)
      in_table = true;
    else if (in_table && line.rfind(label + " ", 0) == 0)
      return words_of(line);
  }
  return {};
}

// The link codes (row label and one code per GPU/NIC column) of every row of the link matrix.
std::vector<std::vector<std::string>> link_codes(const std::string& report, int columns) {
  std::vector<std::vector<std::string>> rows;
  for (const char* label : {"GPU0", "GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU6", "GPU7", "mlx5_0"}) {
    std::vector<std::string> row = table_row(report, "Link matrix", label);
    if (row.size() > static_cast<size_t>(columns) + 1) row.resize(static_cast<size_t>(columns) + 1);
    rows.push_back(row);
  }
  return rows;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("cli::topo models and show", "[cli]") {
  SECTION("topo models lists the 5 built-in models with their GPU counts") {
    const CliResult r = run_cli("topo models");
    REQUIRE(r.exit_code == 0);
    for (const char* name : {"dgx1-v100", "dgx-a100", "hgx-h100", "pcie-8gpu", "dgx2-v100"})
      CHECK_THAT(r.out, Catch::Contains(name));
    CHECK(table_row(r.out, "NAME", "dgx1-v100").at(1) == "8");
    CHECK(table_row(r.out, "NAME", "dgx2-v100").at(1) == "16");
  }
  SECTION("topo models --json describes every model for scripts") {
    const CliResult r = run_cli("topo models --json");
    REQUIRE(r.exit_code == 0);
    const auto models = nlohmann::json::parse(r.out).at("models");
    REQUIRE(models.size() == 17);
    const auto gpus = nlohmann::json::parse(r.out).at("gpus");
    REQUIRE(gpus.size() >= 20);
    for (const auto& g : gpus) {
      INFO(g.dump());
      CHECK(g.at("training").at("speed_ratio").get<double>() > 0);
      CHECK_FALSE(g.at("training").at("derivation").get<std::string>().empty());
    }
    CHECK(gpus.at(0).at("name") == "p100");
    CHECK_THAT(gpus.at(0).at("training").at("derivation").get<std::string>(), Catch::Contains("FP32 peak 10.60/15.70"));
    const auto& dgx1 = models.at(0);
    CHECK(dgx1.at("name") == "dgx1-v100");
    CHECK(dgx1.at("gpus") == 8);
    CHECK(dgx1.at("gpu_models") == nlohmann::json::array({"v100"}));
    CHECK(dgx1.at("nvlink") == "bonds");
    CHECK(dgx1.at("numa_nodes") == 2);
    CHECK(dgx1.at("nics").at(0).at("name") == "mlx5_0");
    CHECK(models.at(1).at("name") == "dgx-a100");
    CHECK(models.at(1).at("nvlink") == "nvswitch");
  }
  SECTION("topo show dgx1-v100: GPU0-GPU3 is NV2 at 40.0 GB/s, GPU0-GPU5 is SYS at 5.0 without P2P") {
    const CliResult r = run_cli("topo show dgx1-v100");
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    const auto links = table_row(r.out, "Link matrix", "GPU0");
    REQUIRE(links.size() >= 9);
    CHECK(links[4] == "NV2");
    CHECK(links[6] == "SYS");
    const auto bandwidth = table_row(r.out, "P2P bandwidth", "GPU0");
    REQUIRE(bandwidth.size() >= 9);
    CHECK(bandwidth[4] == "40.0");
    CHECK(bandwidth[6] == "5.0*");
    CHECK_THAT(r.out, Catch::Contains("* = no P2P at NCCL's default level (PXB)"));
    CHECK(table_row(r.out, "GPUs:", "GPU2") ==
          std::vector<std::string>{"GPU2", "v100", "0", "mlx5_0", "(PIX,", "100", "Gb/s", "ib)"});
  }
  SECTION("topo show --json is valid JSON with per-pair class, bandwidth and P2P") {
    const CliResult r = run_cli("topo show dgx1-v100 --json");
    REQUIRE(r.exit_code == 0);
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    CHECK(doc["gpus"].size() == 8);
    CHECK(doc["nvswitch"] == false);
    bool found = false;
    for (const auto& pair : doc["pairs"])
      if (pair["a"] == "GPU0" && pair["b"] == "GPU3") {
        found = true;
        CHECK(pair["class"] == "NV2");
        CHECK(pair["bandwidth_gbps"] == 40.0);
        CHECK(pair["p2p"] == true);
      }
    CHECK(found);
  }
  SECTION("an NVSwitch node says so in the header") {
    const CliResult r = run_cli("topo show dgx-a100");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(lines_of(r.out).at(0), Catch::Contains("NVSwitch fabric (NV12 per GPU)"));
  }
}

TEST_CASE("cli::topo import and export-nccl", "[cli]") {
  TempDir dir;
  SECTION("importing the DGX-1 nvidia-smi output gives the built-in model's link matrix") {
    const std::string source = topsim::test::shared_file("topologies/dgx1-v100-hybrid-cube-mesh_topo-m.txt");
    if (source.empty()) return;
    const std::string node = dir.file("node.json");
    const CliResult r = run_cli("topo import " + quoted(source) + " -o " + quoted(node));
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "imported 8 GPUs (v100, inferred from NV1/NV2 links), 2 NUMA nodes, 1 NIC -> " + node + "\n");
    CHECK_THAT(r.err, Catch::StartsWith("topsim: note: "));
    const CliResult imported = run_cli("topo show " + quoted(node));
    const CliResult builtin = run_cli("topo show dgx1-v100");
    REQUIRE(imported.exit_code == 0);
    CHECK(link_codes(imported.out, 9) == link_codes(builtin.out, 9));
    CHECK(link_codes(imported.out, 9)[0].size() == 10);
  }
  SECTION("topo import -o - writes the JSON on stdout and the summary on stderr") {
    const CliResult r = run_cli("topo import dgx-a100 -o -");
    REQUIRE(r.exit_code == 0);
    CHECK(nlohmann::json::parse(r.out)["name"] == "dgx-a100");
    CHECK_THAT(r.err, Catch::Contains("-> stdout"));
  }
  SECTION("export-nccl --gpus 0,1,2,3 writes XML with 4 GPUs") {
    const std::string xml = dir.file("topo.xml");
    const CliResult r = run_cli("topo export-nccl dgx1-v100 --gpus 0,1,2,3 -o " + quoted(xml));
    REQUIRE(r.exit_code == 0);
    const std::string text = topsim::test::read_text(xml);
    size_t gpus = 0;
    for (size_t at = text.find("<gpu "); at != std::string::npos; at = text.find("<gpu ", at + 1)) ++gpus;
    CHECK(gpus == 4);
    CHECK_FALSE(std::filesystem::exists(xml + ".tmp"));
  }
}

TEST_CASE("cli::topo bad input exits 2 with one line", "[cli]") {
  TempDir dir;
  const std::string out = dir.file("out.json");
  SECTION("unknown model name, with did-you-mean") {
    check_bad_input(run_cli("topo show dgx-1"),
                    "unknown node model 'dgx-1' (not a built-in model nor a file); did you mean 'dgx1-v100'?");
  }
  SECTION("missing file") {
    check_bad_input(run_cli("topo show " + quoted(dir.file("nope.json"))),
                    "cannot open '" + dir.file("nope.json") + "': No such file or directory");
  }
  SECTION("empty matrix file: no output file written") {
    const std::string path = dir.file("empty.txt");
    write_file(path, "");
    check_bad_input(run_cli("topo import " + quoted(path) + " -o " + quoted(out)), path + ":");
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK_FALSE(std::filesystem::exists(out + ".tmp"));
  }
  SECTION("non-square matrix file") {
    const std::string path = dir.file("short.txt");
    write_file(path, "\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNV1\tNV1\nGPU1\tNV1\t X \tNV1\n");
    check_bad_input(run_cli("topo show " + quoted(path)), path + ":");
  }
  SECTION("unknown link code file") {
    const std::string path = dir.file("code.txt");
    write_file(path, "\tGPU0\tGPU1\nGPU0\t X \tFOO\nGPU1\tFOO\t X \n");
    check_bad_input(run_cli("topo import " + quoted(path) + " -o " + quoted(out)), path + ":");
    CHECK_THAT(run_cli("topo show " + quoted(path)).err, Catch::Contains("FOO"));
    CHECK_FALSE(std::filesystem::exists(out));
  }
  SECTION("JSON node with a negative GPU count names the file and the JSON path") {
    const std::string path = dir.file("node.json");
    const CliResult exported = run_cli("topo import pcie-8gpu -o " + quoted(path));
    REQUIRE(exported.exit_code == 0);
    nlohmann::json node = nlohmann::json::parse(topsim::test::read_text(path));
    node["gpus"][0]["count"] = -2;
    write_file(path, node.dump(2));
    check_bad_input(run_cli("topo show " + quoted(path)), path + ": /gpus/0/count: must be a positive integer, got -2");
  }
  SECTION("--gpus 9 is out of range on an 8-GPU node: no XML written") {
    const std::string xml = dir.file("topo.xml");
    check_bad_input(run_cli("topo export-nccl dgx1-v100 --gpus 9 -o " + quoted(xml)),
                    "--gpus: GPU 9 is out of range (dgx1-v100 has 8 GPUs: 0-7)");
    CHECK_FALSE(std::filesystem::exists(xml));
  }
  SECTION("--gpus items must be distinct integers") {
    check_bad_input(run_cli("topo export-nccl dgx1-v100 --gpus 0,x -o -"), "--gpus: 'x' is not a GPU index");
    check_bad_input(run_cli("topo export-nccl dgx1-v100 --gpus 1,1 -o -"), "--gpus: GPU 1 is listed twice");
  }
  SECTION("unknown command, with did-you-mean") {
    check_bad_input(run_cli("topo shwo dgx1-v100"), "unknown command 'topo shwo'; did you mean 'topo show'?");
    check_bad_input(run_cli("frobnicate"), "unknown command 'frobnicate'; run 'topsim help'");
  }
  SECTION("bad options: unknown, missing -o, option that does not apply to the source") {
    check_bad_input(run_cli("topo show dgx1-v100 --jsn"),
                    "unrecognised option '--jsn'; did you mean '--json'? see 'topsim topo show --help'");
    check_bad_input(run_cli("topo import dgx1-v100"), "'--output' is required");
    check_bad_input(run_cli("topo show dgx1-v100 --gpu-model v100"), "--gpu-model applies only to nvidia-smi topo -m text");
    check_bad_input(run_cli("topo show x.txt --cpu skylake"), "did you mean 'intel-skylake'?");
  }
}

TEST_CASE("cli::topo help and version", "[cli]") {
  SECTION("topsim help lists every command with its one-line help") {
    const CliResult r = run_cli("help");
    REQUIRE(r.exit_code == 0);
    for (const char* name : {"topo models", "topo show", "topo import", "topo export-nccl"})
      CHECK_THAT(r.out, Catch::Contains(std::string("  ") + name + " "));
    CHECK(run_cli("--help").out == r.out);
  }
  SECTION("--help on a command prints its usage and options, exit 0") {
    const CliResult r = run_cli("topo export-nccl --help");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("usage: topsim topo export-nccl <model|file>") && Catch::Contains("--gpus"));
    CHECK(run_cli("help topo export-nccl").out == r.out);
  }
  SECTION("--version prints the version") { CHECK(run_cli("--version").out == "topsim 0.1.0\n"); }
  SECTION("no command, or a group without subcommand, is a usage error") {
    check_bad_input(run_cli(""), "no command given");
    check_bad_input(run_cli("topo"), "'topo' needs a subcommand: export-nccl, import, models, show");
  }
}

namespace {

// 8 bare A100 SXM4 GPU pci elements (device 0x20b0, no <gpu>) and an InfiniBand NIC without <net>.
std::string a100_hint_xml() {
  std::string xml =
      "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"23\" modelid=\"49\">\n"
      "    <pci busid=\"ffff:ff:01.0\" class=\"0x060400\" link_speed=\"16 GT/s\" link_width=\"16\">\n";
  for (int g = 0; g < 8; ++g)
    xml += "      <pci busid=\"000" + std::to_string(g) + ":00:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x20b0\"/>\n";
  return xml + "      <pci busid=\"0100:00:00.0\" class=\"0x020700\"/>\n    </pci>\n  </cpu>\n</system>\n";
}

}  // namespace

TEST_CASE("cli::topo import of NCCL hint files", "[cli][hint]") {
  TempDir dir;
  const std::string xml = dir.file("hint.xml");
  write_file(xml, a100_hint_xml());
  const std::string node = dir.file("node.json");
  SECTION("the inferred fabric is in the summary and in a note; topo show accepts the node") {
    const CliResult r = run_cli("topo import " + quoted(xml) + " --nic-speed 200 -o " + quoted(node));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "imported 8 GPUs (a100, fabric inferred as dgx-a100), 1 NUMA node, 1 NIC -> " + node + "\n");
    CHECK_THAT(r.err, Catch::Contains("topsim: note: " + xml +
                                      ": no <nvlink> elements (NCCL detects NVLink at run time): GPU fabric inferred as "
                                      "dgx-a100 (NVSwitch, 12 links per GPU) from 8 GPUs of PCI device 0x20b0 (a100); give "
                                      "--fabric to choose another\n"));
    const CliResult shown = run_cli("topo show " + quoted(node));
    REQUIRE(shown.exit_code == 0);
    CHECK_THAT(shown.out, Catch::Contains("8 x a100 GPUs") && Catch::Contains("NVSwitch fabric (NV12 per GPU)"));
  }
  SECTION("--fabric names the model in the summary; topo show accepts the node, or the XML with the same options") {
    const CliResult r = run_cli("topo import " + quoted(xml) + " --fabric dgx-a100 --nic-speed 200 -o " + quoted(node));
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("imported 8 GPUs (a100, fabric from --fabric dgx-a100)"));
    const CliResult from_json = run_cli("topo show " + quoted(node));
    const CliResult from_xml = run_cli("topo show " + quoted(xml) + " --fabric dgx-a100 --nic-speed 200");
    REQUIRE(from_json.exit_code == 0);
    REQUIRE(from_xml.exit_code == 0);
    CHECK(link_codes(from_xml.out, 9) == link_codes(from_json.out, 9));
  }
  SECTION("refusals are one line, exit 2, and write nothing") {
    check_bad_input(run_cli("topo import " + quoted(xml) + " -o " + quoted(node)), "give it with --nic-speed GBIT");
    check_bad_input(run_cli("topo import " + quoted(xml) + " --fabric dgx-a10 --nic-speed 200 -o " + quoted(node)),
                    "--fabric: unknown built-in model 'dgx-a10'; did you mean 'dgx-a100'?");
    check_bad_input(run_cli("topo import " + quoted(xml) + " --fabric dgx1-v100 --nic-speed 200 -o " + quoted(node)),
                    "device 0x20b0 (a100, sm 80) does not match the dgx1-v100 fabric's v100 GPUs (sm 70)");
    check_bad_input(run_cli("topo import " + quoted(xml) + " --fabric dgx2-v100 --nic-speed 200 -o " + quoted(node)),
                    "the file lists 8 GPUs but the dgx2-v100 fabric has 16");
    check_bad_input(run_cli("topo show dgx-a100 --fabric dgx-a100"),
                    "--fabric applies only to NCCL topology XML, but 'dgx-a100' is a built-in model");
    CHECK_FALSE(std::filesystem::exists(node));
  }
}

TEST_CASE("cli::topo import of the AWS and Azure hint files", "[cli][hint]") {
  const std::string source_dir = topsim::test::shared_file("topologies");
  if (source_dir.empty()) return;
  TempDir dir;
  const std::pair<const char*, const char*> files[] = {
      {"aws-p4d.24xlarge-nccl-topo.xml", "--nic-speed 100"},
      {"aws-p5.48xlarge-nccl-topo.xml", "--fabric hgx-h100 --cpu amd --nic-speed 100"},
      {"azure-ndv2-topo.xml", "--fabric dgx1-v100 --nic-speed 100"},
      {"azure-ndv4-topo.xml", "--fabric dgx-a100 --nic-speed 200"},
  };
  for (const auto& [file, options] : files) {
    const std::string source = source_dir + "/" + file;
    const std::string node = dir.file(std::string(file) + ".json");
    const CliResult refused = run_cli("topo import " + quoted(source) + " -o " + quoted(node));
    check_bad_input(refused, source + ":");
    const CliResult r = run_cli("topo import " + quoted(source) + " " + options + " -o " + quoted(node));
    INFO(file << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("imported 8 GPUs ("));
    CHECK_THAT(r.err, Catch::Contains("no <nvlink> elements (NCCL detects NVLink at run time): GPU fabric "));
    CHECK(run_cli("topo show " + quoted(node)).exit_code == 0);
  }
}

TEST_CASE("cli::topo import warns that a node without NICs cannot take multi-node jobs", "[cli]") {
  TempDir dir;
  std::ofstream(dir.file("no-nic.json")) << topsim::test::kNodeWithoutNicJson;
  const CliResult r = run_cli("topo import " + quoted(dir.file("no-nic.json")) + " -o " + quoted(dir.file("out.json")));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("0 NICs"));
  // Expected: a warning on stderr naming the consequence, not only the count.
  CHECK_THAT(r.err, Catch::Contains("topsim: warning: " + dir.file("no-nic.json") +
                                    " lists no NIC: nodes of this model cannot take multi-node jobs"));
  const CliResult with_nic = run_cli("topo import dgx1-v100 -o " + quoted(dir.file("dgx.json")));
  CHECK_THAT(with_nic.err, !Catch::Contains("warning"));
}

TEST_CASE("cli::topo show --scenario and --cluster draw a cluster's fabric", "[cli]") {
  TempDir dir;
  // Four DGX A100 in racks of two at 2:1, under one block.
  write_file(dir.file("s.json"), R"({"cluster": {"nodes": [{"model": "dgx-a100", "count": 4}], "network": {"transport": "ib",
      "levels": [{"name": "rack", "fanout": 2, "oversubscription": 2}, {"name": "block", "fanout": 2}]}},
      "workload": {"kind": "synthetic", "jobs": 3}})");
  SECTION("a scenario's fabric: the levels top first and the tree") {
    const CliResult r = run_cli("topo show --scenario " + dir.file("s.json"));
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("fabric: 2 levels above the nodes, top first\n"));
    CHECK_THAT(r.out, Catch::Contains("  block  1       2 racks     1:1    none (top)\n"));
    CHECK_THAT(r.out, Catch::Contains("    |-- rack 0: node-0 .. node-1 (2 nodes, 16 GPUs), uplink 177 GB/s\n"));
  }
  SECTION("kubectl nodes: the levels their labels name, groups by label value") {
    auto node = [](const std::string& name, const std::string& l3) {
      return R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": ")" + name +
             R"(", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "topology.k8s.aws/network-node-layer-1": "nn-1",
             "topology.k8s.aws/network-node-layer-2": "nn-2", "topology.k8s.aws/network-node-layer-3": ")" +
             l3 + R"("}}, "status": {"allocatable": {"cpu": "96", "nvidia.com/gpu": "8"}}})";
    };
    write_file(dir.file("nodes.json"), R"({"apiVersion": "v1", "kind": "List", "items": [)" + node("a", "nn-3a") + ", " +
                                           node("b", "nn-3b") + ", " + node("c", "nn-3a") + "]}");
    const CliResult r = run_cli("topo show --cluster " + dir.file("nodes.json") + " --network ib");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("fabric: 3 levels above the nodes, top first\n"));
    CHECK_THAT(r.out, Catch::Contains("network-node-layer-3 nn-3a: a .. c (2 nodes, 16 GPUs)"));
    CHECK_THAT(r.out, Catch::Contains("network-node-layer-3 nn-3b: b (1 node, 8 GPUs)"));
    // Then the node groups the import made (no memory in these nodes: the model's 2048 GiB).
    CHECK_THAT(r.out, Catch::Contains("\nnode groups: 2 (3 nodes, 24 GPUs)\n"
                                      "  2 x hgx-h100  8 x h100  host memory 2048.0 GiB  a, c\n"
                                      "  1 x hgx-h100  8 x h100  host memory 2048.0 GiB  b\n\n"));
    // Then what the import assumed, as `topsim import nodes` says it.
    CHECK_THAT(r.out, Catch::EndsWith("  b\n\nnetwork: ib (as given; RDMA devices on 0 of 3 GPU nodes)\n3 GPU nodes state no "
                                      "memory (status allocatable or "
                                      "capacity): their host memory is the other nodes' of their group, or the model's when "
                                      "none states it\n"));
  }
  SECTION("a scenario given where a node goes draws its fabric (was: a node reader's error on its keys)") {
    const CliResult r = run_cli("topo show " + dir.file("s.json"));
    CHECK(r.exit_code == 0);
    CHECK(r.out == run_cli("topo show --scenario " + dir.file("s.json")).out);
    const CliResult json = run_cli("topo show " + dir.file("s.json") + " --json");
    CHECK(json.exit_code == 2);
    CHECK_THAT(json.err, Catch::Contains("s.json: a scenario, not a node: --json applies to a node"));
  }
  SECTION("a node and a fabric at once is a usage error") {
    const CliResult r = run_cli("topo show dgx-a100 --cluster " + dir.file("nodes.json"));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("give a node <model|file> or --scenario/--cluster, not both"));
  }
}
