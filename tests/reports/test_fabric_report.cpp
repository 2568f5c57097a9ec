// The fabric drawn (sim/fabric_view.h, reports/fabric_report.h): the terminal drawing of
// `topsim topo show --scenario`, report.html's Fabric section, and results.json's fabric_view
// read back as written.
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "core/builtin_models.h"
#include "formats/results/results_json.h"
#include "reports/fabric_report.h"
#include "reports/report_files.h"
#include "sim/cluster.h"
#include "tests/reports/csv_records.h"
#include "tests/reports/memory_sink.h"
#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

namespace {

const char* const kJobs =
    R"([{"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "vgg16", "iterations": 5}])";

// Four named DGX A100 (8 HDR NICs: 8 x 25 GB/s x 0.885 = 177 GB/s a node) in racks of two at
// 2:1, 8 rails, one pair measured.
Scenario two_racks() {
  return scenario_from(scenario_json(
      R"([{"model": "dgx-a100", "count": 4, "names": ["gpu-a", "gpu-b", "gpu-c", "gpu-d"]}])", kJobs, "",
      R"(, "network": {"transport": "ib", "rails": 8, "levels": [{"name": "rack", "fanout": 2, "oversubscription": 2}],
          "measured": [{"a": "gpu-a", "b": "gpu-c", "bus_gbps": 5, "latency_us": 30}]})"));
}

FabricView view_of(const Scenario& s) {
  auto cluster = ClusterState::build(s.cluster);
  REQUIRE(cluster.ok());
  return view_fabric(s.cluster, *cluster, s.network);
}

}  // namespace

TEST_CASE("reports::fabric the drawing of two racks: levels, uplinks, rails, measured pairs, the tree", "[reports]") {
  const FabricView v = view_of(two_racks());
  REQUIRE(v.levels.size() == 1);
  // A rack's uplink: its two nodes' 177 GB/s / 2:1 = 177 GB/s.
  CHECK(v.levels[0].groups[0].uplink_gbps == Approx(177));
  CHECK(render_fabric_text(v, {"gpu-a", "gpu-b", "gpu-c", "gpu-d"}) ==
        "fabric: 1 level above the nodes, top first\n"
        "  level  groups  each holds  links  uplink each\n"
        "  rack   2       2 nodes     2:1    177 GB/s\n"
        "a node's NICs carry 177 GB/s (achieved); a group's uplink carries its downlinks / its oversubscription\n"
        "8 rails: NIC i of every node of a rack on rail switch i\n"
        "measured: 1 node pair, slowest 5 GB/s, largest latency 30 us\n"
        "\n"
        "core\n"
        "|-- rack 0: gpu-a .. gpu-b (2 nodes, 16 GPUs), uplink 177 GB/s\n"
        "`-- rack 1: gpu-c .. gpu-d (2 nodes, 16 GPUs), uplink 177 GB/s\n");
}

TEST_CASE("reports::fabric a block over racks, groups named by their labels, the children past 8 elided", "[reports]") {
  // Ten one-node racks under one block: the block has no uplink (one group at the top); eight
  // racks drawn, then the count of the rest.
  std::string groups;
  for (int r = 0; r < 10; ++r)
    groups += std::string(r ? ", " : "") + R"({"model": "dgx-a100", "count": 1, "labels": {"blk": "b1", "rk": "r)" +
              std::to_string(r) + R"("}})";
  const FabricView v = view_of(scenario_from(scenario_json(
      "[" + groups + "]", kJobs, "",
      R"(, "network": {"transport": "ib", "levels": [{"name": "rack", "label": "rk"}, {"name": "block", "label": "blk"}]})")));
  REQUIRE(v.levels.size() == 2);
  CHECK(v.levels[1].groups.at(0).uplink_gbps == 0);
  const std::string text = render_fabric_text(v, {});
  CHECK_THAT(text, Catch::Contains("  block  1       10 racks    1:1    none (top)\n"));
  CHECK_THAT(text, Catch::Contains("`-- block b1: node-0 .. node-9 (10 nodes, 80 GPUs)\n"));
  CHECK_THAT(text, Catch::Contains("    |-- rack r0: node-0 (1 node, 8 GPUs), uplink 177 GB/s\n"));
  CHECK_THAT(text, Catch::Contains("    |-- rack r7: node-7 (1 node, 8 GPUs)"));
  CHECK_THAT(text, Catch::EndsWith("    `-- ... 2 more racks\n"));
  CHECK(text.find("rack r8") == std::string::npos);
}

TEST_CASE("reports::fabric a flat network draws one line, and no HTML section", "[reports]") {
  const FabricView v = view_of(scenario_from(scenario_json(R"([{"model": "dgx-a100", "count": 2}])", kJobs)));
  CHECK(v.empty());
  CHECK(render_fabric_text(v, {}) == "fabric: one flat network (no levels, no measured pairs)\n");
  CHECK(render_fabric_html(v, {}).empty());
}

TEST_CASE("reports::fabric report.html draws the fabric, from results.json as well", "[reports]") {
  const ResultSet results = run_all(two_racks());
  MemorySink sink;
  REQUIRE(write_report({{"fabric", &results}}, sink).ok());
  const std::string& html = sink.files.at("report.html");
  CHECK_THAT(html, Catch::Contains("<section><h2>Fabric</h2>"));
  CHECK_THAT(html, Catch::Contains("<tr><td>rack</td><td>2</td><td>2 nodes</td><td>2:1</td><td>177 GB/s</td></tr>"));
  CHECK_THAT(html, Catch::Contains("`-- rack 1: gpu-c .. gpu-d (2 nodes, 16 GPUs), uplink 177 GB/s"));
  // Written and read back: the same view, so `topsim report DIR` draws the same section.
  TempDir dir;
  {
    std::ofstream out(dir.file("results.json"));
    write_results_json(results, out);
  }
  auto loaded = load_results(dir.path.string());
  REQUIRE(loaded.ok());
  const FabricView& back = loaded->scenario.fabric_view;
  const FabricView& written = results.scenario.fabric_view;
  REQUIRE(back.levels.size() == 1);
  CHECK(back.levels[0].groups.size() == 2);
  CHECK(back.rails == 8);
  CHECK(back.measured_pairs == 1);
  CHECK(back.most_measured_latency_us == 30);
  CHECK(render_fabric_text(back, loaded->scenario.node_names) == render_fabric_text(written, results.scenario.node_names));
}

TEST_CASE("reports::uplink_timeseries.csv: a row per sample and fabric level, as the run sampled it", "[reports]") {
  // Three DGX A100 of 8 GPUs for one job: it must leave its rack of two, so the rack uplinks carry it.
  const ResultSet results = run_all(scenario_from(scenario_json(
      R"([{"model": "dgx-a100", "count": 4}])",
      R"([{"name": "g", "submit_s": 0, "workers": 3, "gpus_per_worker": 8, "model": "vgg16", "duration_s": 600}])",
      R"(, "sample_every_s": 60, "schedulers": ["topology-aware"])",
      R"(, "network": {"transport": "ib", "rails": 8, "levels": [{"name": "rack", "fanout": 2, "oversubscription": 2}]})")));
  const RunResult& run = results.schedulers.front().runs.front();
  MemorySink sink;
  REQUIRE(write_report({{"racks", &results}}, sink).ok());
  const auto rows = parse_csv(sink.files.at("uplink_timeseries.csv"));
  REQUIRE(rows.size() == 1 + run.samples.size());  // one level
  CHECK(rows[0] == std::vector<std::string>{"run", "scheduler", "seed", "time_s", "level", "utilisation"});
  bool carried = false;
  for (size_t i = 0; i < run.samples.size(); ++i) {
    INFO(i);
    CHECK(rows[1 + i][3] == format_data(static_cast<double>(run.samples[i].time_ms) / 1000));
    CHECK(rows[1 + i][4] == "rack");
    CHECK(rows[1 + i][5] == format_data(run.samples[i].link_utilisation.at(0)));
    carried = carried || run.samples[i].link_utilisation.at(0) > 0;
  }
  CHECK(carried);
  // timeseries.csv carries the GPUs out of service (none here) in its last column.
  const auto cluster = parse_csv(sink.files.at("timeseries.csv"));
  CHECK(cluster[0].back() == "gpus_down");
  CHECK(cluster[1].back() == "0");
}

TEST_CASE("reports::node groups: model, GPUs, pinned label, host memory and the first names of each group", "[reports]") {
  ClusterSpec cluster;
  NodeGroupSpec h100, pcie;
  h100.model = *builtin_model("hgx-h100");
  h100.count = 9;
  h100.model.host_memory_gib = 2015.5634765625;  // a group's own, from kubectl
  pcie.model = *builtin_model("pcie-h100");
  pcie.label = NodeMode::Share;
  pcie.label_pinned = true;
  cluster.groups = {h100, pcie};
  std::vector<std::string> names;
  for (int n = 0; n < 10; ++n) names.push_back("n" + std::to_string(n));
  CHECK(render_node_groups_text(cluster, names) ==
        "node groups: 2 (10 nodes, 80 GPUs)\n"
        "  9 x hgx-h100   8 x h100       unpinned     host memory 2015.6 GiB  n0, n1, n2, n3, n4, n5, n6, n7, ... (9)\n"
        "  1 x pcie-h100  8 x h100-pcie  label share  host memory not stated  n9\n");
  ClusterSpec trace;
  trace.trace_nodes = {{"a", 0, 0, 8, 0}, {"b", 0, 0, 0, -1}};
  CHECK(render_node_groups_text(trace, {}) ==
        "node list: 2 nodes of the trace, 8 GPUs (cards, CPU and memory as listed; no topology)\n");
}

TEST_CASE("reports::fabric an NVLink domain level says how far a job's traffic leaves it", "[reports]") {
  // Two GB200 NVL72 racks: a rack's uplink is its 72 NICs, but NCCL leaves a domain through at
  // most 16 of them (core/nccl_algo.h kNcclMnnvlNetNics), which the drawing says beside it.
  const FabricView v = view_of(scenario_from(
      scenario_json(R"([{"model": "gb200-nvl72-tray", "count": 36}])",
                    R"([{"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "model": "vgg16", "iterations": 5}])",
                    "", R"(, "network": {"transport": "ib", "levels": [{"name": "nvl72", "fanout": 18, "links": "nvlink"}]})")));
  REQUIRE(v.levels.size() == 1);
  CHECK_THAT(render_fabric_text(v, {}),
             Catch::Contains("each nvl72 is one multi-node NVLink domain: its nodes talk over NVLink, not NICs; a job spanning "
                             "domains leaves each through at most 16 of its NICs (NCCL 2.27.3 on), not its whole uplink\n"));
}
