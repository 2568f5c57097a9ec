#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/test_support.h"

using topsim::test::CliResult;
using topsim::test::run_cli;
using topsim::test::TempDir;

namespace {

// The value of the first "key: value" line of the text report; "" when there is none.
std::string field(const std::string& report, const std::string& key) {
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ": ", 0) == 0) return line.substr(key.size() + 2);
  return "";
}

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l == line) return true;
  return false;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("cli::allocate on an idle DGX-1", "[cli]") {
  SECTION("4 GPUs: a fully NVLink quad, 4 rings over single NVLinks at 22.2 GB/s each, NCCL_P2P_LEVEL=NVL") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 4");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    const std::string gpus = field(r.out, "gpus");
    CHECK((gpus == "0,1,2,3" || gpus == "4,5,6,7"));
    CHECK(field(r.out, "bus bandwidth") == "88.9 GB/s (Ring, NVLink only)");
    CHECK(field(r.out, "channels") == "4 (4 x 22.2 GB/s)");
    CHECK(field(r.out, "NUMA nodes") == "0 (1 of 2)");
    CHECK(field(r.out, "request") == "4 GPUs, best-fit, no constraints");
    CHECK(field(r.out, "relaxed").empty());
    // 1.5 x 10^8 bytes at 88.9 GB/s = 1687.5 us, plus 8.4 + 6 x 3.4 us of Simple latency
    CHECK(field(r.out, "all-reduce 100 MB") == "1.72 ms (Ring, Simple protocol)");
    // every hop of the ring is an NVLink
    const std::string ring = field(r.out, "ring");
    CHECK(count_of(ring, " -NV") == 4);
    CHECK(has_line(r.out, "NCCL_P2P_LEVEL=NVL"));
    CHECK(has_line(r.out, "CUDA_VISIBLE_DEVICES=" + gpus));
    CHECK(has_line(r.out, "NCCL_ALGO=Ring"));
    CHECK_FALSE(Catch::Contains("NCCL_TOPO_FILE").match(r.out));
  }
  SECTION("the <model|file> may also be the first argument, as for 'topo show'") {
    const CliResult r = run_cli("allocate dgx1-v100 --gpus 4");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == run_cli("allocate --node dgx1-v100 --gpus 4").out);
  }
  SECTION("2 GPUs that must include GPU 4: an NV2 partner of GPU 4 (0 or 7; best-fit keeps to socket 1: 7)") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 2 --must-include 4");
    REQUIRE(r.exit_code == 0);
    const std::string gpus = field(r.out, "gpus");
    CHECK((gpus == "0,4" || gpus == "4,7"));
    CHECK(field(r.out, "NUMA nodes") == "1 (1 of 2)");
    CHECK(count_of(field(r.out, "ring"), "-NV2-") == 2);
    CHECK(field(r.out, "request") == "2 GPUs including 4, best-fit, no constraints");
  }
  SECTION("device-plugin with must-include 4 prints the plugin's choice {0,4}, across the sockets") {
    // The plugin scores whole partitions: {0,4} {1,5} {2,3} {6,7} = 210+210+250+250 beats
    // {0,3} {1,2} {4,7} {5,6} = 4 x 220, since 2-3 and 6-7 are NV2 behind one PCIe switch (PIX 50)
    // while 4-7 is NV2 across host bridges (NODE 20); 0-4 is NV2 + SYS 10.
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 2 --must-include 4 --policy device-plugin");
    REQUIRE(r.exit_code == 0);
    CHECK(field(r.out, "gpus") == "0,4");
    CHECK(field(r.out, "request") == "2 GPUs including 4, device-plugin, no constraints");
    CHECK(field(r.out, "NUMA nodes") == "0,1 (2 of 2)");
  }
  SECTION("one GPU: no ring, no bus bandwidth, NCCL_P2P_LEVEL=LOC") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 1 --free 5");
    REQUIRE(r.exit_code == 0);
    CHECK(field(r.out, "gpus") == "5");
    CHECK(field(r.out, "bus bandwidth") == "- (a single GPU does no all-reduce)");
    CHECK(has_line(r.out, "NCCL_P2P_LEVEL=LOC"));
  }
}

TEST_CASE("cli::allocate constraints, fallback and annotations", "[cli]") {
  SECTION("--free 0,5 --require-nvlink: GPUs 0 and 5 (SYS), with the relaxed line") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --free 0,5 --gpus 2 --require-nvlink");
    REQUIRE(r.exit_code == 0);
    CHECK(field(r.out, "gpus") == "0,5");
    CHECK(has_line(r.out, "relaxed: require-nvlink (no 2 of the free GPUs (0,5) meet require-nvlink)"));
    CHECK(field(r.out, "ring") == "0 -SYS- 5 -SYS- 0");
    CHECK(field(r.out, "NUMA nodes") == "0,1 (2 of 2)");
    CHECK(has_line(r.out, "NCCL_P2P_LEVEL=SYS"));
  }
  SECTION("the same with --no-relax: exit 2, 'cannot satisfy' naming require-nvlink") {
    check_bad_input(run_cli("allocate --node dgx1-v100 --free 0,5 --gpus 2 --require-nvlink --no-relax"),
                    "cannot satisfy: no 2 of the free GPUs (0,5) meet require-nvlink");
  }
  SECTION("--same-numa keeps 2 of {0,1,4,5} on one socket; --max-link-class NV on {0,5} is relaxed") {
    const CliResult numa = run_cli("allocate --node dgx1-v100 --free 0,4,5 --gpus 2 --same-numa");
    REQUIRE(numa.exit_code == 0);
    CHECK(field(numa.out, "gpus") == "4,5");
    const CliResult nv = run_cli("allocate --node dgx1-v100 --free 0,5 --gpus 2 --max-link-class NV");
    REQUIRE(nv.exit_code == 0);
    CHECK_THAT(field(nv.out, "relaxed"), Catch::StartsWith("max-link-class ("));
  }
  SECTION("--min-bandwidth 100 for 4 GPUs cannot be met (88.9 GB/s at best): relaxed, or exit 2 with --no-relax") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 4 --min-bandwidth 100");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(field(r.out, "relaxed"), Catch::StartsWith("min-bandwidth ("));
    check_bad_input(run_cli("allocate --node dgx1-v100 --gpus 4 --min-bandwidth 100 --no-relax"),
                    "cannot satisfy: no 4 of the free GPUs");
  }
  SECTION("--annotation gpu.topology/policy=nvlink acts as --require-nvlink") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --free 0,5 --gpus 2 --annotation gpu.topology/policy=nvlink");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(field(r.out, "request"), Catch::Contains("require-nvlink"));
    CHECK_THAT(field(r.out, "relaxed"), Catch::StartsWith("require-nvlink ("));
  }
  SECTION("--annotation gpu.topology/policy=spread sets the spread policy: 2 GPUs over both sockets") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 2 --annotation gpu.topology/policy=spread");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(field(r.out, "request"), Catch::Contains("spread"));
    CHECK(field(r.out, "NUMA nodes") == "0,1 (2 of 2)");
  }
}

TEST_CASE("cli::allocate --json and --topo-xml", "[cli]") {
  TempDir dir;
  SECTION("--json is one object with gpus, ring, bus_bandwidth_gbps and nccl_env in NCCL's order") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 4 --json");
    REQUIRE(r.exit_code == 0);
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    CHECK(doc["gpus"].size() == 4);
    CHECK(doc["ring"].size() == 4);
    CHECK(doc["hops"].size() == 4);
    CHECK(doc["bus_bandwidth_gbps"] == 88.889);
    CHECK(doc["channels"] == 4);
    CHECK(doc["nvlink_only"] == true);
    CHECK(doc["nccl_env"]["NCCL_P2P_LEVEL"] == "NVL");
    CHECK(doc["relaxed"].empty());
    CHECK(doc["fallback_reason"].is_null());
    CHECK(doc["allreduce"]["bytes"] == 100000000);
    CHECK(doc["numa_nodes"] == nlohmann::json::array({0}));
    // key order is fixed: the environment in the order the launcher exports it
    CHECK(r.out.find("\"CUDA_DEVICE_ORDER\"") < r.out.find("\"CUDA_VISIBLE_DEVICES\""));
    CHECK(r.out.find("\"gpus\"") < r.out.find("\"ring\""));
    CHECK(r.out == run_cli("allocate --node dgx1-v100 --gpus 4 --json").out);
  }
  SECTION("--json with a fallback lists the dropped constraint and the reason") {
    const CliResult r = run_cli("allocate --node dgx1-v100 --free 0,5 --gpus 2 --require-nvlink --json");
    REQUIRE(r.exit_code == 0);
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    CHECK(doc["relaxed"] == nlohmann::json::array({"require-nvlink"}));
    CHECK(doc["fallback_reason"] == "no 2 of the free GPUs (0,5) meet require-nvlink");
    CHECK(doc["request"]["constraints"]["require_nvlink"] == true);
  }
  SECTION("--topo-xml writes the XML of the K chosen GPUs and names it in NCCL_TOPO_FILE") {
    const std::string xml = dir.file("topo.xml");
    const CliResult r = run_cli("allocate --node dgx1-v100 --gpus 4 --topo-xml '" + xml + "'");
    REQUIRE(r.exit_code == 0);
    CHECK(has_line(r.out, "NCCL_TOPO_FILE=" + xml));
    REQUIRE(std::filesystem::exists(xml));
    CHECK_FALSE(std::filesystem::exists(xml + ".tmp"));
    CHECK(count_of(topsim::test::read_text(xml), "<gpu ") == 4);
  }
}

TEST_CASE("cli::allocate bad input", "[cli]") {
  TempDir dir;
  const std::string xml = dir.file("topo.xml");
  // Every case also asks for --topo-xml: nothing may be written when the input is bad.
  auto bad = [&](const std::string& args, const std::string& needle) {
    check_bad_input(run_cli("allocate " + args + " --topo-xml '" + xml + "'"), needle);
    CHECK_FALSE(std::filesystem::exists(xml));
  };
  SECTION("K > free GPUs: the allocator's 'cannot satisfy', listing the free GPUs") {
    bad("--node dgx1-v100 --free 1,2,3 --gpus 4", "cannot satisfy: 4 GPUs requested, 3 free (1,2,3)");
  }
  SECTION("K > the node's GPUs, or K < 1") {
    bad("--node dgx1-v100 --gpus 9", "node dgx1-v100 has 8 GPUs, 9 requested");
    bad("--node dgx1-v100 --gpus 0", "--gpus: must be at least 1, got 0");
  }
  SECTION("GPU ids out of range name the option and the node's range") {
    bad("--node dgx1-v100 --gpus 2 --free 0,9", "--free: GPU 9 is out of range (node dgx1-v100 has GPUs 0-7)");
    bad("--node dgx1-v100 --gpus 2 --must-include 8", "--must-include: GPU 8 is out of range (node dgx1-v100 has GPUs 0-7)");
  }
  SECTION("a non-integer or duplicate id names the item") {
    bad("--node dgx1-v100 --gpus 2 --free 0,x", "--free: 'x' is not a GPU index");
    bad("--node dgx1-v100 --gpus 2 --free 0,,1", "--free: '' is not a GPU index");
    bad("--node dgx1-v100 --gpus 2 --free 0,-1", "--free: '-1' is not a GPU index");
    bad("--node dgx1-v100 --gpus 2 --free 0,1,1", "--free: GPU 1 is listed twice");
    bad("--node dgx1-v100 --gpus 2 --must-include 4,4", "--must-include: GPU 4 is listed twice");
  }
  SECTION("must-include GPU not free, or more must-include GPUs than K") {
    bad("--node dgx1-v100 --gpus 2 --free 0,1,2 --must-include 4", "cannot satisfy: must-include GPU 4 is not free");
    bad("--node dgx1-v100 --gpus 1 --must-include 0,1", "must-include lists 2 GPUs but only 1 are requested");
  }
  SECTION("unknown policy: did-you-mean and the list") {
    bad("--node dgx1-v100 --gpus 2 --policy bestfit",
        "unknown policy 'bestfit'; did you mean 'best-fit'? (best-fit, first-fit, pack, spread, device-plugin)");
  }
  SECTION("unknown or count-bearing link class") {
    bad("--node dgx1-v100 --gpus 2 --max-link-class NVL", "--max-link-class: unknown link class 'NVL' (expected NV, PIX");
    bad("--node dgx1-v100 --gpus 2 --max-link-class NV2", "--max-link-class: 'NV2' names a link count");
    bad("--node dgx1-v100 --gpus 2 --max-link-class X", "--max-link-class: unknown link class 'X'");
  }
  SECTION("negative or non-numeric bandwidth") {
    bad("--node dgx1-v100 --gpus 2 --min-bandwidth=-5", "--min-bandwidth: must be a bandwidth in GB/s >= 0, got -5");
    bad("--node dgx1-v100 --gpus 2 --min-bandwidth fast", "min-bandwidth");
  }
  SECTION("missing --node or --gpus, unknown node") {
    bad("--gpus 2", "missing --node <model|file>");
    bad("--node dgx1-v100", "missing --gpus K");
    bad("--node dgx-1 --gpus 2", "did you mean 'dgx1-v100'?");
  }
  SECTION("--no-relax with constraints that cannot be met") {
    // GPU 4 is on the other socket, so no 3 of {0,1,4} share a NUMA node
    bad("--node dgx1-v100 --free 0,1,4 --gpus 3 --same-numa --require-nvlink --no-relax",
        "cannot satisfy: no 3 of the free GPUs (0,1,4) meet same-numa, require-nvlink");
  }
  SECTION("constraints with device-plugin, from a flag or an annotation") {
    bad("--node dgx1-v100 --gpus 2 --policy device-plugin --same-numa", "the device-plugin policy takes no constraints");
    bad("--node dgx1-v100 --gpus 2 --policy device-plugin --annotation gpu.topology/policy=nvlink",
        "the device-plugin policy takes no constraints");
  }
  SECTION("--topo-xml '-' or an unwritable path: exit 2, no report") {
    check_bad_input(run_cli("allocate --node dgx1-v100 --gpus 2 --topo-xml -"), "--topo-xml: give a file path");
    check_bad_input(run_cli("allocate --node dgx1-v100 --gpus 2 --topo-xml '" + dir.file("missing/topo.xml") + "'"),
                    "cannot write '" + dir.file("missing/topo.xml") + "'");
  }
  SECTION("bad annotations name the annotation") {
    bad("--node dgx1-v100 --gpus 2 --annotation gpu.topology/policy=fast",
        "gpu.topology/policy: 'fast' is not one of single-numa, nvlink, best-effort, spread");
    bad("--node dgx1-v100 --gpus 2 --annotation policy=nvlink", "'policy' is not a gpu.topology/ annotation");
    bad("--node dgx1-v100 --gpus 2 --annotation gpu.topology/policy", "is not key=value");
    bad("--node dgx1-v100 --gpus 2 --annotation gpu.topology/policy=spread --policy pack",
        "gpu.topology/policy=spread conflicts with --policy pack");
  }
}
