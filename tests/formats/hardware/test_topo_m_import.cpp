// Tests of the `nvidia-smi topo -m` importer on the real files in ../shared/topologies and on
// small inline matrices (bad input).
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/builtin_models.h"
#include "core/topology.h"
#include "formats/hardware/topo_m_import.h"
#include "tests/test_support.h"

namespace {

using namespace topsim;
using topsim::test::words_of;

// The link codes of one matrix as the file shows them, read independently of the importer:
// the `matrix`-th line starting with GPU0 that has no "X" is the header, the next lines the rows.
struct ShownMatrix {
  std::vector<std::string> devices;
  std::vector<std::vector<std::string>> codes;  // [row][column]
};

ShownMatrix shown_matrix(const std::string& text, int matrix = 1) {
  std::istringstream in(text);
  ShownMatrix shown;
  for (std::string line; std::getline(in, line);) {
    const auto w = words_of(line);
    if (w.empty() || w[0] != "GPU0" || std::count(w.begin(), w.end(), "X") > 0 || --matrix > 0) continue;
    for (const auto& name : w) {
      if (name == "CPU" || name == "NUMA" || name == "GPU") break;
      shown.devices.push_back(name);
    }
    for (size_t r = 0; r < shown.devices.size() && std::getline(in, line); ++r) {
      const auto row = words_of(line);
      shown.codes.emplace_back(row.begin() + 1, row.begin() + 1 + static_cast<long>(shown.devices.size()));
    }
    break;
  }
  return shown;
}

std::string model_code(const Topology& topo, int a, int b) {
  const int gpus = topo.gpu_count();
  const PairLink& link = a < gpus && b < gpus ? topo.gpu_pair(a, b)
                         : a < gpus           ? topo.gpu_nic(a, b - gpus)
                         : b < gpus           ? topo.gpu_nic(b, a - gpus)
                                              : topo.nic_pair(a - gpus, b - gpus);
  return link_code(link.cls, link.nvlinks);
}

// Every pair the file shows has the same code in the imported model; returns the topology.
Topology check_reproduces(const std::string& text, const TopoImportResult& result, int matrix = 1) {
  const ShownMatrix shown = shown_matrix(text, matrix);
  Expected<Topology> topo = Topology::build(result.model);
  REQUIRE(topo.ok());
  REQUIRE(static_cast<size_t>(topo->gpu_count() + topo->nic_count()) == shown.devices.size());
  for (size_t a = 0; a < shown.devices.size(); ++a)
    for (size_t b = 0; b < shown.devices.size(); ++b) {
      INFO(shown.devices[a] << "/" << shown.devices[b]);
      CHECK(model_code(*topo, static_cast<int>(a), static_cast<int>(b)) == shown.codes[a][b]);
    }
  return std::move(topo).value();
}

bool has_note(const TopoImportResult& result, const std::string& part) {
  return std::any_of(result.notes.begin(), result.notes.end(),
                     [&](const std::string& note) { return note.find(part) != std::string::npos; });
}

int numa_id_of_gpu(const Topology& topo, int gpu) { return topo.model().numa_nodes[topo.gpu_numa(gpu)].id; }

// Imports `text` (as source "inline.txt") and returns the error message; "" if it imported.
std::string import_error(const std::string& text, const TopoImportOptions& options = {}) {
  const auto result = parse_topo_m(text, "inline.txt", options);
  return result.ok() ? "" : result.error().message;
}

}  // namespace

TEST_CASE("formats::parse_topo_m DGX-1 matches the built-in dgx1-v100", "[formats][import]") {
  const std::string path = test::shared_file("topologies/dgx1-v100-hybrid-cube-mesh_topo-m.txt");
  if (path.empty()) return;
  const std::string text = test::read_text(path);
  const auto result = parse_topo_m(text, path);
  REQUIRE(result.ok());
  const Topology imported = check_reproduces(text, *result);
  const Topology builtin = Topology::build(*builtin_model("dgx1-v100")).value();

  SECTION("the GPU-GPU matrix (class and NV count) equals the built-in model's") {
    REQUIRE(imported.gpu_count() == 8);
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b) {
        INFO("GPU" << a << "/GPU" << b);
        CHECK(imported.gpu_pair(a, b).cls == builtin.gpu_pair(a, b).cls);
        CHECK(imported.gpu_pair(a, b).nvlinks == builtin.gpu_pair(a, b).nvlinks);
      }
  }
  SECTION("every GPU has the built-in model's class to mlx5_0") {
    REQUIRE(imported.nic_count() == 1);
    CHECK(imported.model().nics[0].name == "mlx5_0");
    CHECK(imported.model().nics[0].transport == NicTransport::InfiniBand);
    for (int g = 0; g < 8; ++g) CHECK(imported.gpu_nic(g, 0).cls == builtin.gpu_nic(g, 0).cls);
  }
  SECTION("the GPU model is inferred as v100 from NV1/NV2, and a note says so") {
    CHECK(imported.model().gpus[0].model == "v100");
    CHECK(imported.model().nvlinks.size() == 16);
    CHECK(has_note(*result, "inferred GPU model v100"));
    CHECK(has_note(*result, "assumed CPU intel-skylake"));
  }
  SECTION("the node name is the file's stem and the CPU Affinity strings become two NUMA nodes") {
    CHECK(imported.name() == "dgx1-v100-hybrid-cube-mesh_topo-m");
    REQUIRE(imported.model().numa_nodes.size() == 2);
    CHECK(imported.model().numa_nodes[0].cpu_affinity == "0-11,24-35");
    CHECK(imported.gpu_numa(0) == 0);
    CHECK(imported.gpu_numa(7) == 1);
    CHECK(imported.nic_numa(0) == 0);
  }
}

TEST_CASE("formats::parse_topo_m imports every real topo -m file", "[formats][import]") {
  const std::string dir = test::shared_file("topologies");
  if (dir.empty()) return;

  SECTION("each complete file imports and reproduces its matrix; the PARTIAL one names its missing rows") {
    int imported = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.find("_topo-m") == std::string::npos) continue;
      INFO(name);
      const std::string text = test::read_text(entry.path());
      TopoImportOptions options;
      if (name.find("g6e") != std::string::npos) options.gpu_model = "l40s";
      if (name.find("4090") != std::string::npos) options.gpu_model = "rtx4090-48g";
      const auto result = parse_topo_m(text, entry.path().string(), options);
      if (name.find("PARTIAL") != std::string::npos) {
        REQUIRE_FALSE(result.ok());
        const std::string& message = result.error().message;
        CHECK(message.rfind(entry.path().string() + ":12: incomplete matrix", 0) == 0);
        CHECK(message.find("missing rows GPU5..GPU15, mlx5_0..mlx5_9") != std::string::npos);
        continue;
      }
      REQUIRE(result.ok());
      check_reproduces(text, *result);
      ++imported;
    }
    CHECK(imported == 8);
  }
  SECTION("the 4090 file's second matrix (B) puts all GPUs on NUMA 1 with GPU0-GPU4 NODE") {
    const std::string path = test::shared_file("topologies/pcie-8x4090-48g-gooxi-as4110g_topo-m.txt");
    const std::string text = test::read_text(path);
    TopoImportOptions options;
    options.gpu_model = "rtx4090-48g";
    options.matrix = 2;
    const auto result = parse_topo_m(text, path, options);
    REQUIRE(result.ok());
    const Topology topo = check_reproduces(text, *result, 2);
    CHECK(topo.gpu_pair(0, 4).cls == LinkClass::Node);
    CHECK(topo.gpu_pair(0, 3).cls == LinkClass::PIX);
    for (int g = 0; g < 8; ++g) CHECK(numa_id_of_gpu(topo, g) == 1);
    CHECK(topo.model().numa_nodes.size() == 1);
    CHECK(topo.model().nics[0].name == "ibp177s0f0");
    CHECK(has_note(*result, "file holds 2 matrices; imported matrix 2"));
  }
  SECTION("matrix 1 of the 4090 file is layout A (GPU0-GPU4 PIX, GPU0-GPU5 SYS) and a note names the choice") {
    const std::string path = test::shared_file("topologies/pcie-8x4090-48g-gooxi-as4110g_topo-m.txt");
    TopoImportOptions options;
    options.gpu_model = "rtx4090-48g";
    const auto result = parse_topo_m(test::read_text(path), path, options);
    REQUIRE(result.ok());
    const Topology topo = Topology::build(result->model).value();
    CHECK(topo.gpu_pair(0, 4).cls == LinkClass::PIX);
    CHECK(topo.gpu_pair(0, 5).cls == LinkClass::Sys);
    CHECK(has_note(*result, "file holds 2 matrices; imported matrix 1 (use --matrix to pick another)"));
  }
}

TEST_CASE("formats::parse_topo_m NVSwitch machines: DGX A100 and H100", "[formats][import]") {
  const std::string a100_path = test::shared_file("topologies/dgx-a100_topo-m.txt");
  if (a100_path.empty()) return;
  const std::string h100_path = test::shared_file("topologies/dgx-h100-class_8gpu-8ib-ndr_topo-m.txt");

  SECTION("DGX A100 is an NV12 NVSwitch fabric with GPU0-NIC0 PXB and the OS NUMA ids 3, 1, 7, 5") {
    const auto result = parse_topo_m(test::read_text(a100_path), a100_path);
    REQUIRE(result.ok());
    const Topology topo = Topology::build(result->model).value();
    CHECK(topo.model().nvlinks.empty());
    for (const Gpu& gpu : topo.model().gpus) CHECK(gpu.nvswitch_links == 12);
    CHECK(topo.model().gpus[0].model == "a100");
    CHECK(topo.gpu_pair(0, 7).cls == LinkClass::NVLink);
    CHECK(topo.gpu_pair(0, 7).via_nvswitch);
    CHECK(topo.gpu_nic(0, 0).cls == LinkClass::PXB);
    CHECK(numa_id_of_gpu(topo, 0) == 3);
    CHECK(numa_id_of_gpu(topo, 2) == 1);
    CHECK(numa_id_of_gpu(topo, 4) == 7);
    CHECK(numa_id_of_gpu(topo, 6) == 5);
    CHECK(topo.model().numa_nodes[topo.gpu_numa(0)].cpu_affinity == "48-63,176-191");
    CHECK(topo.model().numa_nodes[topo.gpu_numa(0)].cpu == CpuKind::Amd);
  }
  SECTION("DGX A100's storage NICs (no affinity, only SYS links) go to NUMA 0 with a note") {
    const auto result = parse_topo_m(test::read_text(a100_path), a100_path);
    REQUIRE(result.ok());
    const Topology topo = Topology::build(result->model).value();
    CHECK(topo.model().nics[8].name == "mlx5_8");
    CHECK(topo.model().numa_nodes[topo.nic_numa(8)].id == 0);
    CHECK(topo.nic_pair(8, 9).cls == LinkClass::PIX);
    CHECK(has_note(*result, "NIC8, NIC9: no NUMA evidence"));
  }
  SECTION("H100 is NV18 with GPU0-NIC0 PIX, NIC1 PXB, NIC2 NODE, NIC4 SYS") {
    const auto result = parse_topo_m(test::read_text(h100_path), h100_path);
    REQUIRE(result.ok());
    const Topology topo = Topology::build(result->model).value();
    CHECK(topo.model().gpus[0].model == "h100");
    CHECK(topo.gpu_pair(0, 1).cls == LinkClass::NVLink);
    CHECK(topo.gpu_pair(0, 1).nvlinks == 18);
    CHECK(topo.gpu_nic(0, 0).cls == LinkClass::PIX);
    CHECK(topo.gpu_nic(0, 1).cls == LinkClass::PXB);
    CHECK(topo.gpu_nic(0, 2).cls == LinkClass::Node);
    CHECK(topo.gpu_nic(0, 4).cls == LinkClass::Sys);
    CHECK(topo.model().nics[0].name == "mlx5_ib0");
    CHECK(topo.model().nics[0].transport == NicTransport::InfiniBand);
    CHECK(topo.model().nics[8].transport == NicTransport::Ethernet);
    TopoImportOptions roce;
    roce.nic_transport = NicTransport::RoCE;  // --nic-transport: every NIC, whatever its name
    const auto overridden = parse_topo_m(test::read_text(h100_path), h100_path, roce);
    REQUIRE(overridden.ok());
    for (const Nic& nic : overridden->model.nics) CHECK(nic.transport == NicTransport::RoCE);
    CHECK(topo.model().numa_nodes[topo.gpu_numa(0)].cpu == CpuKind::IntelSapphireRapids);
    CHECK(has_note(*result, "inferred GPU model h100"));
  }
  SECTION("options override the inferred GPU model, CPU, NIC speed and node name") {
    TopoImportOptions options;
    options.gpu_model = "h100-sxm5";
    options.cpu = CpuKind::IntelEmeraldRapids;
    options.nic_speed_gbit = 400;
    options.node_name = "my-h100";
    const auto result = parse_topo_m(test::read_text(h100_path), h100_path, options);
    REQUIRE(result.ok());
    CHECK(result->model.name == "my-h100");
    CHECK(result->model.gpus[0].model == "h100");
    CHECK(result->model.nics[0].speed_gbit == 400);
    CHECK(result->model.numa_nodes[0].cpu == CpuKind::IntelEmeraldRapids);
    CHECK_FALSE(has_note(*result, "inferred GPU model"));
    CHECK_FALSE(has_note(*result, "assumed CPU"));
  }
}

TEST_CASE("formats::parse_topo_m small inline matrices", "[formats][import]") {
  SECTION("a tab-separated PCIe box without affinity columns imports with one NUMA node and a note") {
    const std::string text =
        "\tGPU0\tGPU1\tGPU2\tNIC0\n"
        "GPU0\tX\tPIX\tPHB\tPXB\n"
        "GPU1\tPIX\tX\tPHB\tPXB\n"
        "GPU2\tPHB\tPHB\tX\tPHB\n"
        "NIC0\tPXB\tPXB\tPHB\tX\n";
    TopoImportOptions options;
    options.gpu_model = "a10";
    const auto result = parse_topo_m(text, "dir/box.txt", options);
    REQUIRE(result.ok());
    const Topology topo = check_reproduces(text, *result);
    CHECK(topo.name() == "box");
    CHECK(topo.model().numa_nodes.size() == 1);
    CHECK(topo.model().nics[0].name == "NIC0");
    CHECK(topo.model().nics[0].transport == NicTransport::Ethernet);
    CHECK(has_note(*result, "GPU0..GPU2, NIC0: no NUMA evidence"));
  }
  SECTION("NV4 between 4 GPUs fits the a100's 12 ports: direct bonds, not an NVSwitch") {
    const std::string text =
        "  GPU0 GPU1 GPU2 GPU3\n"
        "GPU0 X NV4 NV4 NV4\n"
        "GPU1 NV4 X NV4 NV4\n"
        "GPU2 NV4 NV4 X NV4\n"
        "GPU3 NV4 NV4 NV4 X\n";
    TopoImportOptions options;
    options.gpu_model = "a100";
    const auto result = parse_topo_m(text, "redstone.txt", options);
    REQUIRE(result.ok());
    CHECK(result->model.nvlinks.size() == 6);
    CHECK(result->model.gpus[0].nvswitch_links == 0);
  }
}

TEST_CASE("formats::parse_topo_m rejects bad input with source, line and the problem", "[formats][import]") {
  SECTION("a NIC name that is no interface name is refused, its bytes escaped (fuzz finding: it broke the JSON export)") {
    const std::string text =
        "\tGPU0\tGPU1\tNIC0\nGPU0\tX\tPIX\tPXB\nGPU1\tPIX\tX\tPXB\nNIC0\tPXB\tPXB\tX\n\nNIC Legend:\n\n  NIC0: mlx5_\xff"
        "0\n";
    TopoImportOptions options;
    options.gpu_model = "a10";
    const auto result = parse_topo_m(text, "nic.txt", options);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().message ==
          "nic.txt:1: imported model is invalid: nics[0].name: 'mlx5_\\xff0' is not an interface name (printable ASCII, no "
          "spaces, at most 64)");
  }
  SECTION("empty text is an error on line 1") {
    CHECK(import_error("") == "inline.txt:1: empty input: no nvidia-smi topo -m matrix");
    CHECK(import_error("# only a comment\n").rfind("inline.txt:1: no nvidia-smi topo -m matrix found", 0) == 0);
  }
  SECTION("a header without rows names every missing row") {
    CHECK(import_error("        GPU0    GPU1\n") ==
          "inline.txt:2: incomplete matrix: expected row GPU0, found end of input; missing rows GPU0, GPU1");
  }
  SECTION("a header without GPU columns is named as such") {
    CHECK(import_error("  NIC0 NIC1\nNIC0 X PIX\nNIC1 PIX X\n") ==
          "inline.txt:1: header has no GPU columns (first column is NIC0)");
  }
  SECTION("a row with a different number of link fields says expected versus found") {
    CHECK(import_error("  GPU0 GPU1\nGPU0 X NV1\nGPU1 NV1 X NV2\n") ==
          "inline.txt:3: non-square matrix: row GPU1 has 3 link fields, expected 2 (one per header device)");
    CHECK(import_error("  GPU0 GPU1\nGPU0 X 0-11\nGPU1 NV1 X 0-11\n") ==
          "inline.txt:2: non-square matrix: row GPU0 has 1 link fields, expected 2 (one per header device)");
  }
  SECTION("unknown link codes are named with their row and column") {
    CHECK(import_error("  GPU0 GPU1\nGPU0 X NV\nGPU1 NV X\n") == "inline.txt:2: unknown link code 'NV' in row GPU0, column GPU1");
    CHECK(import_error("  GPU0 GPU1\nGPU0 X PIX\nGPU1 FOO X\n") ==
          "inline.txt:3: unknown link code 'FOO' in row GPU1, column GPU0");
  }
  SECTION("an asymmetric pair names both directions") {
    CHECK(import_error("  GPU0 GPU1\nGPU0 X NV1\nGPU1 SYS X\n") ==
          "inline.txt:3: asymmetric pair: GPU0/GPU1 is NV1 (line 2) but GPU1/GPU0 is SYS");
  }
  SECTION("the diagonal must be X and X only on the diagonal") {
    CHECK(import_error("  GPU0 GPU1\nGPU0 X NV1\nGPU1 NV1 NV1\n") ==
          "inline.txt:3: diagonal is NV1 in row GPU1, column GPU1, expected X");
    CHECK(import_error("  GPU0 GPU1\nGPU0 X X\nGPU1 X X\n") == "inline.txt:2: X off the diagonal in row GPU0, column GPU1");
  }
  SECTION("rows that are missing, out of order or not in the header are named") {
    const std::string header = "  GPU0 GPU1 GPU2 GPU3 GPU4 GPU5\n";
    CHECK(import_error(header + "GPU0 X NV1 NV1 NV1 NV1 NV1\nGPU1 NV1 X NV1 NV1 NV1 NV1\n[... truncated ...]\n") ==
          "inline.txt:4: incomplete matrix: expected row GPU2, found '[... truncated ...]'; missing rows GPU2..GPU5");
    CHECK(import_error(header + "GPU0 X NV1 NV1 NV1 NV1 NV1\nGPU1 NV1 X NV1\n") ==
          "inline.txt:3: incomplete matrix: row GPU1 has 3 of 6 link fields; missing rows GPU2..GPU5");
    CHECK(import_error("  GPU0 GPU1\nGPU1 NV1 X\nGPU0 X NV1\n") ==
          "inline.txt:2: row GPU1 is out of order: expected row GPU0 (rows follow the header)");
    CHECK(import_error("  GPU0 GPU1\nGPU0 X NV1\nGPU7 NV1 X\n") ==
          "inline.txt:3: row GPU7 is not in the header (expected row GPU1)");
  }
  SECTION("an unknown --gpu-model lists the valid names") {
    TopoImportOptions options;
    options.gpu_model = "z100";
    const std::string message = import_error("  GPU0 GPU1\nGPU0 X PIX\nGPU1 PIX X\n", options);
    CHECK(message.rfind("inline.txt:1: unknown GPU model 'z100' (valid: p100, p100-pcie,", 0) == 0);
    CHECK(message.find("h100") != std::string::npos);
  }
  SECTION("a matrix without NVLink and no --gpu-model is an error, never a guess") {
    CHECK(import_error("  GPU0 GPU1\nGPU0 X PIX\nGPU1 PIX X\n")
              .rfind("inline.txt:1: cannot infer the GPU model from a matrix without NVLink; pass --gpu-model (one of p100,",
                     0) == 0);
  }
  SECTION("NVLinks beyond the GPU's ports outside a uniform NVSwitch layout are an error") {
    CHECK(import_error("  GPU0 GPU1 GPU2\nGPU0 X NV4 NV4\nGPU1 NV4 X NV2\nGPU2 NV4 NV2 X\n", {"v100", 1, {}, 100, "", {}}) ==
          "inline.txt:2: GPU0 uses 8 NVLinks in this matrix but a v100 has 6 NVLink ports, and the layout is not one "
          "uniform NVSwitch fabric");
  }
  SECTION("link classes that no PCIe tree can produce name the offending pair") {
    CHECK(import_error("  GPU0 GPU1 GPU2\nGPU0 X PIX PXB\nGPU1 PIX X PIX\nGPU2 PXB PIX X\n", {"a10", 1, {}, 100, "", {}}) ==
          "inline.txt:2: evidence is not tree-consistent: GPU0/GPU2 is PXB in the file but the reconstructed PCIe tree "
          "gives PIX");
  }
  SECTION("asking for a matrix the text does not hold is an error") {
    CHECK(import_error("  GPU0 GPU1\nGPU0 X NV1\nGPU1 NV1 X\n", {"", 2, {}, 100, "", {}}) ==
          "inline.txt:1: matrix 2 requested but the text holds 1 matrix");
  }
}

TEST_CASE("formats::parse_topo_m the GPU model: asked for when ambiguous, per GPU where a box mixes cards", "[formats][import]") {
  const std::string nv6 =
      "  GPU0 GPU1 GPU2 GPU3\n"
      "GPU0 X NV6 NV6 NV6\n"
      "GPU1 NV6 X NV6 NV6\n"
      "GPU2 NV6 NV6 X NV6\n"
      "GPU3 NV6 NV6 NV6 X\n";
  SECTION("NV6 between every pair of 4 GPUs fits V100 SXM3 and H100 alike: refused asking for --gpu-model") {
    const auto result = parse_topo_m(nv6, "box.txt");
    REQUIRE_FALSE(result.ok());
    CHECK_THAT(result.error().message,
               Catch::StartsWith("box.txt:1: NV6 between every pair of 4 GPUs") && Catch::Contains("pass --gpu-model"));
    TopoImportOptions options;
    options.gpu_model = "h100";
    const auto h100 = parse_topo_m(nv6, "box.txt", options);
    REQUIRE(h100.ok());
    CHECK(h100->model.nvlinks.size() == 6);  // 3 peers x 6 links: direct bonds within the H100's 18 ports
  }
  const std::string pcie =
      "  GPU0 GPU1 GPU2 GPU3 GPU4\n"
      "GPU0 X PHB SYS SYS SYS\n"
      "GPU1 PHB X SYS SYS SYS\n"
      "GPU2 SYS SYS X PHB PHB\n"
      "GPU3 SYS SYS PHB X PHB\n"
      "GPU4 SYS SYS PHB PHB X\n";
  SECTION("--gpu-model 0-1=rtx5090,2-4=rtx4090: each GPU its model") {
    TopoImportOptions options;
    options.gpu_model = "0-1=rtx5090,2-4=rtx4090";
    const auto result = parse_topo_m(pcie, "mixed.txt", options);
    REQUIRE(result.ok());
    CHECK(result->model.gpus[1].model == "rtx5090");
    CHECK(result->model.gpus[2].model == "rtx4090");
    CHECK_THAT(result->model.description, Catch::Contains("2 x GeForce RTX 5090 + 3 x GeForce RTX 4090"));
  }
  SECTION("ranges that leave a GPU out, name one twice, or an unknown model are refused") {
    for (const auto& [spec, message] :
         std::vector<std::pair<std::string, std::string>>{{"0-3=rtx3090", "names no model for GPU4"},
                                                          {"0-2=rtx3090,2-4=rtx4090", "GPU2 is named twice"},
                                                          {"0-4=rtx9090", "unknown GPU model 'rtx9090'"},
                                                          {"0-5=rtx3090", "GPUs 0-5 are not among the matrix's GPU0..GPU4"}}) {
      INFO(spec);
      TopoImportOptions options;
      options.gpu_model = spec;
      const auto result = parse_topo_m(pcie, "mixed.txt", options);
      REQUIRE_FALSE(result.ok());
      CHECK_THAT(result.error().message, Catch::Contains(message));
    }
  }
}

TEST_CASE("formats::parse_topo_m SYS within one NUMA node is read as NODE, noted", "[formats][import]") {
  // Expectation: GPUs on NUMA 0 reported SYS to each other (no common PCIe ancestor visible, as in
  // VMs) become separate host bridges of NUMA 0; pairs across NUMA nodes stay SYS.
  const std::string text =
      "  GPU0 GPU1 GPU2 CPU Affinity NUMA Affinity\n"
      "GPU0 X SYS SYS 0-7 0\n"
      "GPU1 SYS X SYS 0-7 0\n"
      "GPU2 SYS SYS X 8-15 1\n";
  TopoImportOptions options;
  options.gpu_model = "rtx4090";
  const auto result = parse_topo_m(text, "vm.txt", options);
  REQUIRE(result.ok());
  CHECK(has_note(*result, "1 device pairs are SYS within one NUMA node"));
  const auto topo = Topology::build(result->model);
  REQUIRE(topo.ok());
  CHECK(topo->gpu_pair(0, 1).cls == LinkClass::Node);
  CHECK(topo->gpu_pair(0, 2).cls == LinkClass::Sys);
}
