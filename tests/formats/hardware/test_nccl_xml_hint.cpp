// NCCL topology hint files (AWS, Azure): PCI trees without GPU details, grafted fabrics, notes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/builtin_models.h"
#include "core/topology.h"
#include "formats/hardware/nccl_xml.h"
#include "tests/formats/hardware/nccl_xml_fixture.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::nccl_xml_test;

namespace {

const char* const kAmdCpu = " arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"23\" modelid=\"49\"";

// A hint file as cloud vendors ship them: one CPU, one switch holding `gpus` bare GPU pci elements
// (no <gpu>; written in reverse bus order) and one InfiniBand NIC without <nic><net>.
std::string hint_xml(int gpus, const std::string& device = "0x20b0", const std::string& cpu = kAmdCpu,
                     const std::string& nic = "class=\"0x020700\"") {
  std::string xml = "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"0000ffff\"" + cpu +
                    ">\n    <pci busid=\"ffff:ff:01.0\" class=\"0x060400\" link_speed=\"16 GT/s\" link_width=\"16\">\n";
  for (int g = gpus - 1; g >= 0; --g)
    xml += "      <pci busid=\"000" + std::to_string(g) + ":00:00.0\" class=\"0x030200\"" +
           (device.empty() ? std::string() : " vendor=\"0x10de\" device=\"" + device + "\"") + " link_speed=\"16 GT/s\"/>\n";
  xml += "      <pci busid=\"0100:00:00.0\" " + nic +
         " link_speed=\"16 GT/s\" link_width=\"16\"/>\n    </pci>\n  </cpu>\n</system>\n";
  return xml;
}

// A file listing no GPUs (as AWS p5's): `switches` switches, each with two pci leaves without class.
std::string gpuless_xml(int switches) {
  std::string xml = "<system version=\"1\">\n  <cpu numaid=\"0\">\n";
  for (int s = 0; s < switches; ++s) {
    xml += "    <pci busid=\"0000:" + std::to_string(10 + s) + ":00.0\">\n";
    for (int leaf = 0; leaf < 2; ++leaf)
      xml += "      <pci busid=\"0000:" + std::to_string(10 + s) + ":0" + std::to_string(leaf + 1) +
             ".0\" link_speed=\"32 GT/s PCIe/s\"/>\n";
    xml += "    </pci>\n";
  }
  return xml + "  </cpu>\n</system>\n";
}

NcclXmlImportOptions hint_options(const std::string& fabric, std::optional<double> nic_speed = 200,
                                  std::optional<CpuKind> cpu = std::nullopt) {
  NcclXmlImportOptions options;
  options.fabric = fabric;
  options.nic_speed_gbit = nic_speed;
  options.cpu = cpu;
  return options;
}

NcclXmlImportResult hint_ok(const std::string& xml, const NcclXmlImportOptions& options, const std::string& source = "hint.xml") {
  auto imported = parse_nccl_xml(xml, source, options);
  INFO((imported.ok() ? std::string() : imported.error().message));
  REQUIRE(imported.ok());
  return std::move(imported).value();
}

std::string hint_error(const std::string& xml, const NcclXmlImportOptions& options, const std::string& source = "hint.xml") {
  auto imported = parse_nccl_xml(xml, source, options);
  REQUIRE_FALSE(imported.ok());
  return imported.error().message;
}

bool has_note(const NcclXmlImportResult& result, const std::string& note) {
  INFO("notes: " << [&] {
    std::string all;
    for (const std::string& n : result.notes) all += "\n  " + n;
    return all;
  }());
  return std::find(result.notes.begin(), result.notes.end(), note) != result.notes.end();
}

}  // namespace

TEST_CASE("formats::nccl_xml hint files: PCI GPUs without <gpu> get a built-in model's fabric", "[formats][nccl][hint]") {
  SECTION("--fabric dgx-a100 grafts NVSwitch NV12 onto 8 bare GPU pci elements, numbered in bus id order") {
    const NcclXmlImportResult r = hint_ok(hint_xml(8), hint_options("dgx-a100"));
    const NodeModel& model = r.model;
    REQUIRE(model.gpus.size() == 8);
    for (size_t g = 0; g < 8; ++g) {
      CHECK(model.gpus[g].model == "a100");
      CHECK(model.gpus[g].nvswitch_links == 12);
      CHECK(model.gpus[g].bus_id == "000" + std::to_string(g) + ":00:00.0");
      CHECK(model.gpus[g].pcie_gen == 4);
    }
    CHECK(r.fabric == "dgx-a100");
    CHECK_FALSE(r.fabric_inferred);
    CHECK(has_note(r,
                   "hint.xml: no <nvlink> elements (NCCL detects NVLink at run time): GPU fabric taken from --fabric "
                   "dgx-a100 (NVSwitch, 12 links per GPU)"));
    CHECK(has_note(r, "hint.xml: GPUs have no <gpu sm=...>: model a100 from PCI device 0x20b0"));
    CHECK(has_note(r, "hint.xml: GPUs have no <gpu dev=...>: numbered in bus id order, not file order"));
    const Topology topo = build(model);
    CHECK(link_code(topo.gpu_pair(0, 7).cls, topo.gpu_pair(0, 7).nvlinks) == "NV12");
    CHECK(topo.gpu_nic(0, 0).cls == LinkClass::PIX);
  }
  SECTION("--fabric dgx1-v100 grafts its 16 NVLink bonds by GPU index; no device id: the model is the fabric's") {
    const NcclXmlImportResult r = hint_ok(hint_xml(8, ""), hint_options("dgx1-v100"));
    CHECK(r.model.gpus[0].model == "v100");
    CHECK(r.model.nvlinks.size() == builtin_model("dgx1-v100")->nvlinks.size());
    const Topology topo = build(r.model);
    CHECK(link_code(topo.gpu_pair(0, 3).cls, topo.gpu_pair(0, 3).nvlinks) == "NV2");
    CHECK(link_code(topo.gpu_pair(0, 1).cls, topo.gpu_pair(0, 1).nvlinks) == "NV1");
    CHECK(topo.gpu_pair(0, 5).cls == LinkClass::PIX);  // no bond: the file's PCI tree
    CHECK(has_note(r, "hint.xml: GPUs have no <gpu sm=...> and no device id: model v100 taken from dgx1-v100"));
  }
  SECTION("a GPU count other than the fabric's is an error naming both") {
    CHECK(hint_error(hint_xml(4), hint_options("dgx-a100")) ==
          "hint.xml:1: <system>: the file lists 4 GPUs but the dgx-a100 fabric has 8");
  }
  SECTION("a device id of another GPU generation than the fabric's is an error naming the GPU") {
    CHECK(hint_error(hint_xml(8), hint_options("dgx1-v100")) ==
          "hint.xml:11: <pci busid=0000:00:00.0>: device 0x20b0 (a100, sm 80) does not match the dgx1-v100 fabric's v100 "
          "GPUs (sm 70)");
  }
  SECTION("an unknown --fabric lists the built-in models") {
    CHECK(hint_error(hint_xml(8), hint_options("dgx-a10")) ==
          "hint.xml:1: <system>: --fabric: unknown built-in model 'dgx-a10' (built-in models: dgx1-v100, dgx-a100, hgx-h100, "
          "pcie-8gpu, dgx2-v100, dgx1-p100, dgx-a100-80g, hgx-h200, hgx-b200, pcie-p40, pcie2-p100-12g, pcie-l40s, pcie-l4, "
          "pcie-h100, gb200-nvl72-tray, hgx-b300, gb300-nvl72-tray)");
  }
  SECTION("--fabric on a full dump (GPUs with <gpu sm=...>) is an error: it has its own fabric") {
    CHECK(hint_error(two_gpu_xml(), hint_options("dgx-a100", std::nullopt)) ==
          "hint.xml:1: <system>: --fabric applies only to hint files, and this file's GPUs carry <gpu sm=...> with their own "
          "NVLinks");
  }
}

TEST_CASE("formats::nccl_xml hint files: --gpu-model names GPUs without a known device id", "[formats][nccl][hint]") {
  NcclXmlImportOptions options = hint_options("dgx1-v100");
  options.gpu_model = "v100-32g";
  const NcclXmlImportResult r = hint_ok(hint_xml(8, ""), options);
  CHECK(r.model.gpus[0].model == "v100-32g");
  CHECK(r.model.gpus[0].memory_gib == 32);
  CHECK(r.model.nvlinks.size() == 16);
  CHECK(has_note(r, "hint.xml: GPUs have no <gpu sm=...> and no known device id: model v100-32g from --gpu-model"));
  options.gpu_model = "a100";
  CHECK(hint_error(hint_xml(8, ""), options) ==
        "hint.xml:11: <pci busid=0000:00:00.0>: --gpu-model a100 (sm 80) does not match the dgx1-v100 fabric's v100 GPUs (sm "
        "70)");
  options.fabric = "dgx-a100";
  CHECK_THAT(hint_error(hint_xml(8), options),
             Catch::Contains("--gpu-model applies only to hint-file GPUs without a known PCI device id"));
}

TEST_CASE("formats::nccl_xml hint files: the fabric is inferred only from real evidence", "[formats][nccl][hint]") {
  SECTION("8 x device 0x20b0 (A100 SXM4) is dgx-a100, the only built-in model with NVLink and 8 a100, with a note") {
    const NcclXmlImportResult r = hint_ok(hint_xml(8), hint_options(""));
    CHECK(r.fabric == "dgx-a100");
    CHECK(r.fabric_inferred);
    CHECK(r.model.gpus[3].nvswitch_links == 12);
    CHECK(has_note(r,
                   "hint.xml: no <nvlink> elements (NCCL detects NVLink at run time): GPU fabric inferred as dgx-a100 "
                   "(NVSwitch, 12 links per GPU) from 8 GPUs of PCI device 0x20b0 (a100); give --fabric to choose another"));
    CHECK(r.model.description.find("GPU fabric inferred as dgx-a100") != std::string::npos);
  }
  SECTION("no device id: refused, suggesting --fabric") {
    CHECK(hint_error(hint_xml(8, ""), hint_options("")) ==
          "hint.xml:4: <pci busid=0007:00:00.0>: the hint file lacks the GPU model and its NVLink fabric (GPUs with neither "
          "<gpu sm=...> nor a device id): give the GPU fabric with --fabric MODEL (`topsim topo models` lists them)");
  }
  SECTION("a count no built-in model has, or a PCIe card (NVLink bridges are optional), is refused") {
    CHECK(hint_error(hint_xml(4), hint_options("")) ==
          "hint.xml:1: <system>: the hint file lacks the GPU fabric (4 GPUs of device 0x20b0, a100, match 0 built-in models "
          "with NVLink): give the GPU fabric with --fabric MODEL (`topsim topo models` lists them)");
    CHECK_THAT(hint_error(hint_xml(8, "0x20f1"), hint_options("")),
               Catch::Contains("8 GPUs of device 0x20f1, a100-pcie, match 0 built-in models with NVLink"));
  }
  SECTION("the two-argument import (no options) infers too, and refuses what it cannot infer") {
    CHECK_THAT(import_error(hint_xml(8), "plain.xml"), Catch::Contains("give it with --nic-speed GBIT"));
    CHECK_THAT(import_error(hint_xml(8, ""), "plain.xml"), Catch::Contains("give the GPU fabric with --fabric MODEL"));
  }
}

TEST_CASE("formats::nccl_xml hint files: NICs, CPUs and GPU-less files", "[formats][nccl][hint]") {
  SECTION("a NIC without <nic><net> needs --nic-speed; the error names the NIC") {
    CHECK(hint_error(hint_xml(8), hint_options("dgx-a100", std::nullopt)) ==
          "hint.xml:12: <pci busid=0100:00:00.0>: the hint file lacks the NIC port speed (<pci> NICs without <nic><net "
          "speed=...>): give it with --nic-speed GBIT");
  }
  SECTION("NIC transport: class 0x0207 ib, Amazon EFA (vendor 0x1d0f) roce, another Ethernet NIC ethernet") {
    CHECK(hint_ok(hint_xml(8), hint_options("dgx-a100")).model.nics[0].transport == NicTransport::InfiniBand);
    const NcclXmlImportResult efa =
        hint_ok(hint_xml(8, "0x20b0", kAmdCpu, "class=\"0x020000\" vendor=\"0x1d0f\""), hint_options("dgx-a100", 100));
    REQUIRE(efa.model.nics.size() == 1);
    CHECK(efa.model.nics[0].name == "nic0");
    CHECK(efa.model.nics[0].speed_gbit == 100);
    CHECK(efa.model.nics[0].transport == NicTransport::RoCE);
    CHECK(efa.model.nics[0].bus_id == "0100:00:00.0");
    CHECK(has_note(efa,
                   "hint.xml: 1 NIC has no <nic><net>: named nic0 in file order, 100 Gb/s from --nic-speed, 1 roce "
                   "(Amazon EFA, vendor 0x1d0f)"));
    CHECK(hint_ok(hint_xml(8, "0x20b0", kAmdCpu, "class=\"0x020000\""), hint_options("dgx-a100")).model.nics[0].transport ==
          NicTransport::Ethernet);
  }
  SECTION("--nic-transport sets the NICs whose class or vendor names none, and only those") {
    NcclXmlImportOptions options = hint_options("hgx-h100", 100, CpuKind::Amd);
    options.nic_transport = NicTransport::RoCE;
    const NcclXmlImportResult p5 = hint_ok(gpuless_xml(8), options);  // class-less leaves, as AWS p5's EFA ports
    REQUIRE(p5.model.nics.size() == 16);
    for (const Nic& nic : p5.model.nics) CHECK(nic.transport == NicTransport::RoCE);
    CHECK(has_note(p5,
                   "hint.xml: 16 NICs have no <nic><net>: named nic0..nic15 in file order, 100 Gb/s from --nic-speed, 16 "
                   "roce (from --nic-transport)"));
    const NcclXmlImportResult plain = hint_ok(gpuless_xml(8), hint_options("hgx-h100", 100, CpuKind::Amd));
    CHECK(plain.model.nics[0].transport == NicTransport::Ethernet);
    CHECK(has_note(plain,
                   "hint.xml: 16 NICs have no <nic><net>: named nic0..nic15 in file order, 100 Gb/s from --nic-speed, 16 "
                   "ethernet (no class or vendor naming RDMA; --nic-transport sets it)"));
    NcclXmlImportOptions on_ib = hint_options("dgx-a100");
    on_ib.nic_transport = NicTransport::Ethernet;  // class 0x0207 names InfiniBand: nothing to set
    CHECK_THAT(hint_error(hint_xml(8), on_ib),
               Catch::Contains("--nic-transport applies only to NICs without <nic><net> whose class or vendor names no "
                               "transport, and this file has none"));
  }
  SECTION("--nic-speed on a file whose NICs all have <net> is an error") {
    CHECK_THAT(hint_error(two_gpu_xml(), hint_options("", 100)),
               Catch::Contains("--nic-speed applies only to NICs without <nic><net>, and this file has none"));
  }
  SECTION("a <cpu> without arch needs --cpu; --cpu on a file with arch everywhere is an error") {
    CHECK(hint_error(hint_xml(8, "0x20b0", ""), hint_options("dgx-a100")) ==
          "hint.xml:2: <cpu numaid=0>: the hint file lacks the CPU kind (<cpu> without arch): give --cpu KIND (e.g. --cpu "
          "amd)");
    const NcclXmlImportResult r = hint_ok(hint_xml(8, "0x20b0", ""), hint_options("dgx-a100", 200, CpuKind::Amd));
    CHECK(r.model.numa_nodes[0].cpu == CpuKind::Amd);
    CHECK(has_note(r, "hint.xml: no arch on <cpu>: CPU kind amd taken from --cpu"));
    CHECK_THAT(hint_error(hint_xml(8), hint_options("dgx-a100", 200, CpuKind::Amd)),
               Catch::Contains("--cpu applies only to <cpu> elements without arch"));
  }
  SECTION("no GPUs listed (AWS p5): the fabric's GPUs go one per switch, class-less leaves are NICs") {
    const NcclXmlImportResult r = hint_ok(gpuless_xml(8), hint_options("hgx-h100", 100, CpuKind::Amd));
    REQUIRE(r.model.gpus.size() == 8);
    REQUIRE(r.model.nics.size() == 16);
    const Topology topo = build(r.model);
    for (int g = 0; g < 8; ++g) {
      CHECK(r.model.gpus[static_cast<size_t>(g)].nvswitch_links == 18);
      CHECK(topo.gpu_nic(g, 2 * g).cls == LinkClass::PIX);
      CHECK(topo.gpu_nic(g, 2 * g + 1).cls == LinkClass::PIX);
    }
    CHECK(has_note(r,
                   "hint.xml: no GPUs listed: the 8 h100 GPUs of hgx-h100 placed one per PCIe switch holding devices, in "
                   "file order"));
    CHECK(has_note(r, "hint.xml: 16 <pci> leaves have no class and the file lists no GPUs: read as NICs"));
  }
  SECTION("no GPUs listed and a switch count other than the fabric's GPU count: refused") {
    CHECK(hint_error(gpuless_xml(7), hint_options("hgx-h100", 100, CpuKind::Amd)) ==
          "hint.xml:1: <system>: no GPUs listed, and the file's 7 PCIe switches holding devices do not pair one to one with "
          "the 8 GPUs of hgx-h100");
    CHECK(hint_error(gpuless_xml(8), hint_options("", 100, CpuKind::Amd)) ==
          "hint.xml:1: <system>: the hint file lacks the GPUs and their fabric (no GPUs listed: NCCL finds them at run time): "
          "give the GPU fabric with --fabric MODEL (`topsim topo models` lists them)");
  }
}

TEST_CASE("formats::nccl_xml imports the AWS and Azure hint files with the options they need", "[formats][nccl][hint]") {
  const std::string dir = test::shared_file("topologies");
  if (dir.empty()) return;
  auto read = [&](const char* file) { return test::read_text(dir + "/" + file); };
  SECTION("without options each is refused with one line naming what it lacks") {
    CHECK_THAT(import_error(read("aws-p4d.24xlarge-nccl-topo.xml"), "p4d.xml"),
               Catch::StartsWith("p4d.xml:21: <pci busid=0000:10:1b.0>: the hint file lacks the NIC port speed"));
    // Every piece a file lacks is named in its one line, not one per attempt.
    CHECK(import_error(read("aws-p5.48xlarge-nccl-topo.xml"), "p5.xml") ==
          "p5.xml:17: <cpu numaid=0>: the hint file lacks 3 pieces: the CPU kind (<cpu> without arch): give --cpu KIND (e.g. "
          "--cpu amd); the GPUs and their fabric (no GPUs listed: NCCL finds them at run time): give the GPU fabric with "
          "--fabric MODEL (`topsim topo models` lists them); the NIC port speed (<pci> NICs without <nic><net speed=...>): "
          "give it with --nic-speed GBIT");
    for (const char* file : {"azure-ndv2-topo.xml", "azure-ndv4-topo.xml"})
      CHECK_THAT(import_error(read(file), file), Catch::Contains("lacks 2 pieces: the GPU model and its NVLink fabric (GPUs "
                                                                 "with neither <gpu sm=...> nor a device id)") &&
                                                     Catch::Contains("--nic-speed GBIT"));
  }
  SECTION("AWS p4d: 8 A100 (device 0x20b0) infer dgx-a100; 4 EFA NICs, one per switch of 2 GPUs (PIX)") {
    const NcclXmlImportResult r = hint_ok(read("aws-p4d.24xlarge-nccl-topo.xml"), hint_options("", 100), "p4d.xml");
    CHECK(r.fabric == "dgx-a100");
    CHECK(r.fabric_inferred);
    const Topology topo = build(r.model);
    REQUIRE(r.model.nics.size() == 4);
    for (int g = 0; g < 8; ++g) CHECK(topo.gpu_nic(g, g / 2).cls == LinkClass::PIX);
    CHECK(r.model.nics[0].transport == NicTransport::RoCE);
    CHECK(r.model.numa_nodes[0].cpu == CpuKind::IntelSkylake);
  }
  SECTION("AWS p5 with --fabric hgx-h100 --cpu amd: 8 H100 NV18, 32 NICs, 4 per GPU switch") {
    const NcclXmlImportResult r =
        hint_ok(read("aws-p5.48xlarge-nccl-topo.xml"), hint_options("hgx-h100", 100, CpuKind::Amd), "p5.xml");
    REQUIRE(r.model.gpus.size() == 8);
    REQUIRE(r.model.nics.size() == 32);
    const Topology topo = build(r.model);
    for (int g = 0; g < 8; ++g) CHECK(topo.gpu_nic(g, 4 * g + 3).cls == LinkClass::PIX);
    CHECK(topo.gpu_numa(0) == 0);
    CHECK(topo.gpu_numa(7) == 1);
  }
  SECTION("Azure NDv2 with --fabric dgx1-v100 and NDv4 with --fabric dgx-a100") {
    const NcclXmlImportResult v2 = hint_ok(read("azure-ndv2-topo.xml"), hint_options("dgx1-v100", 100), "ndv2.xml");
    const Topology topo2 = build(v2.model);
    CHECK(link_code(topo2.gpu_pair(0, 3).cls, topo2.gpu_pair(0, 3).nvlinks) == "NV2");
    CHECK(v2.model.nics.at(0).transport == NicTransport::InfiniBand);
    const NcclXmlImportResult v4 = hint_ok(read("azure-ndv4-topo.xml"), hint_options("dgx-a100", 200), "ndv4.xml");
    CHECK(v4.model.numa_nodes.size() == 4);
    CHECK(v4.model.gpus[0].bus_id == "0001:00:00.0");  // bus id order, not file order
    CHECK(build(v4.model).gpu_numa(0) == 1);
  }
  SECTION("the full HGX H100 dump takes no option and gives no hint notes") {
    const NcclXmlImportResult r = hint_ok(read("ibm-hgx-h100-8gpu-nccl-topo.xml"), NcclXmlImportOptions{}, "h100.xml");
    CHECK(r.notes.empty());
    CHECK(r.fabric.empty());
    CHECK(r.model.gpus[0].nvswitch_links == 18);
  }
}
