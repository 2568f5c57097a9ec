#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/allocator.h"
#include "core/builtin_models.h"
#include "core/gang.h"
#include "core/llm_estimate.h"
#include "core/llm_links.h"
#include "core/nccl_algo.h"
#include "core/nccl_config.h"
#include "core/throughput.h"
#include "tests/core/nccl_published.h"

using namespace topsim;

namespace {

// A built-in node model with every NIC switched to `nic` (RoCE systems of the published table).
Topology node_with_nics(const std::string& name, NicTransport nic) {
  NodeModel model = *builtin_model(name);
  for (Nic& n : model.nics) n.transport = nic;
  auto topology = Topology::build(model);
  REQUIRE(topology.ok());
  return std::move(topology).value();
}

// `nodes` idle nodes of one model, `per_domain` consecutive nodes sharing an NVLink domain (1: none).
struct Cluster {
  Cluster(const std::string& name, int nodes, int per_domain, NicTransport nic = NicTransport::InfiniBand)
      : topology(node_with_nics(name, nic)), allocator(std::make_unique<Allocator>(topology)) {
    for (int i = 0; i < nodes; ++i)
      gang_nodes.push_back(
          {allocator.get(), all_gpus(topology.gpu_count()), "n" + std::to_string(i), per_domain > 1 ? i / per_domain : -1});
  }
  CommPath path(int workers, int gpus_per_worker) const {
    GangRequest request;
    request.workers = workers;
    request.gpus_per_worker = gpus_per_worker;
    auto placed = place_gang(gang_nodes, request);
    REQUIRE(placed.ok());
    return gang_comm_path(*placed, gang_nodes);
  }
  Topology topology;
  std::unique_ptr<Allocator> allocator;
  std::vector<GangNode> gang_nodes;
};

}  // namespace

TEST_CASE("core::nvls_bus_gbps: NVLink SHARP only from Hopper on, 2(n-1)/(n+1) of the switch path", "[core][nccl]") {
  SECTION("A100 and V100 have no NVLS: 0 whatever the GPU count") {
    CHECK(nvls_bus_gbps(80, 240, 8) == 0);
    CHECK(nvls_bus_gbps(70, 120, 8) == 0);
  }
  SECTION("8 x H100: 0.85 x 370.8 x 14 / 9 = 490.3; one GPU: none") {
    CHECK(nvls_bus_gbps(90, 18 * 20.6, 8) == Approx(0.85 * 370.8 * 14 / 9));
    CHECK(nvls_bus_gbps(90, 370.8, 1) == 0);
  }
  SECTION("8 x B200: 0.74 x 721.8 x 14 / 9 = 830.9") { CHECK(nvls_bus_gbps(100, 721.8, 8) == Approx(830.9).epsilon(1e-3)); }
  SECTION("beyond NCCL's 32 NVLS heads a head's link carries S + S/32, whatever the GPU count") {
    // Expectation (Hopper, no switch bound): up to 32 GPUs every GPU is a head (2(n-1)/(n+1)); 72
    // GPUs have 32 heads: algBw 0.85 x 370.8 x 32/33, bus x 2 x 71/72 (not 2 x 71/73).
    CHECK(nvls_heads(8) == 8);
    CHECK(nvls_heads(72) == 32);
    CHECK(nvls_bus_gbps(90, 370.8, 32) == Approx(0.85 * 370.8 * 2 * 31 / 33));
    CHECK(nvls_bus_gbps(90, 370.8, 72) == Approx(0.85 * 370.8 * 32 / 33 * 2 * 71 / 72));
  }
  SECTION("Blackwell: the switch's reduction rate holds the bus bandwidth at 2 x 0.5823 x L from 9 GPUs on") {
    // Expectation: n - 1 additions per reduced byte over n x 18 ports of 0.5823 x 40.1 GB/s each:
    // algBw <= 0.5823 x 721.8 x n/(n-1), bus = algBw x 2(n-1)/n = 2 x 0.5823 x 721.8 = 840.6 at
    // any n. 8 GPUs stay at the per-link rule (830.9, below it); 9 would reach 854.6 by the rule
    // and are held at 840.6; so are 32 and an NVL72 rack's 72 (the rule: 1,003.5 and 1,021.5).
    const double plateau = 2 * 0.5823 * 721.8;
    CHECK(nvls_bus_gbps(100, 721.8, 8) == Approx(0.74 * 721.8 * 14 / 9));
    CHECK(0.74 * 721.8 * 2 * 8 / 10 > plateau);
    CHECK(nvls_bus_gbps(100, 721.8, 9) == Approx(plateau));
    CHECK(nvls_bus_gbps(100, 721.8, 32) == Approx(plateau));
    CHECK(nvls_bus_gbps(100, 721.8, 72) == Approx(plateau));
    CHECK(nvls_bus_gbps(100, 721.8, 72) == Approx(840.6).epsilon(1e-4));
  }
}

TEST_CASE("core::allreduce_time picks NCCL's algorithm per message size", "[core][nccl]") {
  const AllReduceAlgos h100{370.8, nvls_bus_gbps(90, 370.8, 8), NcclAlgorithm::NVLS};
  SECTION("8 x H100, 100 MB: NVLS (higher bandwidth, 25 us against the ring's 56 us)") {
    const AllReduceEstimate e = allreduce_time(100e6, 8, 1, h100, true);
    CHECK(e.algorithm == NcclAlgorithm::NVLS);
    CHECK(e.protocol == NcclProtocol::Simple);
    CHECK(e.time_us == Approx(25 + 2.0 * 7 / 8 * 100e6 / (h100.nvls_bus_gbps * 1e3)));
  }
  SECTION("8 x H100, 8 KB: the ring's LL protocol (6.6 + 14 x 0.6 = 15 us beats NVLS's 25 us)") {
    const AllReduceEstimate e = allreduce_time(8e3, 8, 1, h100, true);
    CHECK(e.algorithm == NcclAlgorithm::Ring);
    CHECK(e.protocol == NcclProtocol::LL);
  }
  SECTION("8 x H100: Ring LL up to 1 MB, NVLS Simple from 2 MB, as NCCL logged it (nccl-tests#309)") {
    const AllReduceEstimate one_mb = allreduce_time(1 << 20, 8, 1, h100, true);
    const AllReduceEstimate two_mb = allreduce_time(2 << 20, 8, 1, h100, true);
    CHECK(one_mb.algorithm == NcclAlgorithm::Ring);
    CHECK(one_mb.protocol == NcclProtocol::LL);
    CHECK(two_mb.algorithm == NcclAlgorithm::NVLS);
    CHECK(two_mb.protocol == NcclProtocol::Simple);
  }
  SECTION("no NVLS: the ring alone, as ring.h's allreduce_time") {
    const AllReduceEstimate e = allreduce_time(100e6, 8, 1, AllReduceAlgos{240, 0}, true);
    CHECK(e.algorithm == NcclAlgorithm::Ring);
    CHECK(e.time_us == allreduce_time(100e6, 8, 1, 240.0, true).time_us);
  }
  SECTION("NVLSTree across 4 domains pays 2 log2(4) x 20.9 us of network latency") {
    const AllReduceAlgos tree{1, 400, NcclAlgorithm::NVLSTree};
    const AllReduceEstimate e = allreduce_time(1e6, 32, 4, tree, true);
    CHECK(e.algorithm == NcclAlgorithm::NVLSTree);
    CHECK(e.time_us == Approx(25 + 4 * 20.9 + 2.0 * 31 / 32 * 1e6 / 400e3));
  }
}

TEST_CASE("core::tree_bus_gbps: a double binary tree over hosts, a chain through each", "[core][nccl]") {
  SECTION("2 hosts: one flow per direction; the chain of 8 GPUs at half their ring") {
    // Expectation: alg = min(177 / 1, 240 / 2) = 120; bus = 0.92 x 120 x 2 x 15/16 = 207.
    const TreeHost host{8, 240, 177};
    CHECK(tree_network_flows(2) == 1);
    CHECK(tree_bus_gbps({host, host}) == Approx(0.92 * 120 * 2 * 15 / 16));
  }
  SECTION("2 hosts bound by the network: 0.92 x network x 2(k-1)/k, nearly twice the ring's network figure") {
    const TreeHost host{8, 400, 100};
    CHECK(tree_bus_gbps({host, host}) == Approx(0.92 * 100 * 2 * 15 / 16));
  }
  SECTION("3 hosts: 1.5 flows per direction through the busiest, the tuner counts 2") {
    const TreeHost host{8, 400, 100};
    CHECK(tree_network_flows(3) == 1.5);
    CHECK(tree_tuner_flows(3) == 2);
    CHECK(tree_bus_gbps({host, host, host}) == Approx(0.92 * 100 / 1.5 * 2 * 23 / 24));
    CHECK(tree_bus_gbps({host, host, host}, TreeFlows::TunerCounted) == Approx(0.92 * 50 * 2 * 23 / 24));
  }
  SECTION("4 hosts on: 2 flows, as the tuner counts") {
    const TreeHost host{8, 400, 100};
    CHECK(tree_network_flows(4) == 2);
    CHECK(tree_bus_gbps({host, host, host, host}) == Approx(0.92 * 50 * 2 * 31 / 32));
    CHECK(tree_bus_gbps({host, host, host, host}, TreeFlows::TunerCounted) == tree_bus_gbps({host, host, host, host}));
  }
  SECTION("3 hosts bound by their chains: the tuner's 2 flows bind it, the carried 1.5 do not") {
    // Carried: min(100 / 1.5, 120 / 2) = 60 (the chain); counted: min(100 / 2, 60) = 50.
    const TreeHost host{8, 120, 100};
    CHECK(tree_bus_gbps({host, host, host}) == Approx(0.92 * 60 * 2 * 23 / 24));
    CHECK(tree_bus_gbps({host, host, host}, TreeFlows::TunerCounted) == Approx(0.92 * 50 * 2 * 23 / 24));
  }
  SECTION("a chain of 2 GPUs runs at their ring; of 1, the network alone; the slowest host binds") {
    CHECK(tree_bus_gbps({{2, 60, 100}, {2, 60, 100}}) == Approx(0.92 * 60 * 2 * 3 / 4));
    CHECK(tree_bus_gbps({{1, 0, 25}, {1, 0, 25}}) == Approx(0.92 * 25));
    CHECK(tree_bus_gbps({{4, 400, 100}, {4, 100, 100}}) == Approx(0.92 * 50 * 2 * 7 / 8));
  }
  SECTION("one host, or a host without network: no Tree") {
    CHECK(tree_bus_gbps({{8, 400, 100}}) == 0);
    CHECK(tree_bus_gbps({{8, 400, 100}, {8, 400, 0}}) == 0);
  }
}

namespace {

// The links (parent and children) of host `r` in NCCL's binary tree over `n` hosts (trees.cc
// ncclGetBtree): host 0 is the root with one child, the highest power of two below n; any other
// host's parent clears its lowest set bit b and sets 2b (or only clears b when that is out of
// range); its children are r - b/2 and the first of r + b/2, r + b/4, ... that is in range.
int btree_links(int n, int r) {
  if (r == 0) return n > 1 ? 1 : 0;
  const int low = r & -r;
  int links = 1;  // a parent
  if (low > 1) {
    ++links;  // r - low/2, always in range
    for (int step = low / 2; step > 0; step /= 2)
      if (r + step < n) {
        ++links;
        break;
      }
  }
  return links;
}

// Flows per direction through host `r` of NCCL's double binary tree (trees.cc ncclGetDtree): the
// second tree is the first mirrored (even n) or shifted by one host (odd n); each tree carries
// half the all-reduce once over each of its links, each way.
double dtree_flows(int n, int r) {
  const int second = n % 2 == 0 ? n - 1 - r : (r - 1 + n) % n;
  return 0.5 * (btree_links(n, r) + btree_links(n, second));
}

}  // namespace

TEST_CASE("core::tree_network_flows: the busiest host of NCCL's double binary tree", "[core][nccl]") {
  // Hand check, 3 hosts: tree 0 is 0 - 2 - 1 (host 2 in the middle), tree 1 is 1 - 0 - 2.
  CHECK(btree_links(3, 0) == 1);
  CHECK(btree_links(3, 2) == 2);
  CHECK(btree_links(3, 1) == 1);
  CHECK(dtree_flows(3, 0) == 1.5);
  CHECK(dtree_flows(3, 1) == 1.0);
  CHECK(dtree_flows(3, 2) == 1.5);
  for (int n = 2; n <= 1024; ++n) {
    double busiest = 0;
    for (int r = 0; r < n; ++r) busiest = std::max(busiest, dtree_flows(n, r));
    INFO(n << " hosts");
    CHECK(tree_network_flows(n) == busiest);
    CHECK(tree_tuner_flows(n) >= tree_network_flows(n));  // the tuner never counts fewer
  }
}

TEST_CASE("core::host_network_demand_gbps: what an algorithm sends through the busiest host", "[core][nccl]") {
  // 24 ranks at 115 GB/s of bus bandwidth: algBw 115 x 24 / 46 = 60.
  CHECK(host_network_demand_gbps(NcclAlgorithm::Ring, 115, 24, 3) == 115);
  CHECK(host_network_demand_gbps(NcclAlgorithm::Tree, 115, 24, 2) == Approx(60));
  CHECK(host_network_demand_gbps(NcclAlgorithm::Tree, 115, 24, 3) == Approx(90));
  CHECK(host_network_demand_gbps(NcclAlgorithm::NVLSTree, 115, 24, 3) == Approx(90));
  CHECK(host_network_demand_gbps(NcclAlgorithm::Tree, 115, 24, 4) == Approx(120));
}

TEST_CASE("core::allreduce_time: 3 hosts, chosen as NCCL's tuner counts, run as the tree carries", "[core][nccl]") {
  // 3 hosts of 8 GPUs, NVLink ring 400, network 100 GB/s: Tree carries 0.92 x 100/1.5 x 2 x 23/24
  // = 117.6, the tuner expects 88.2, the ring reaches 100.
  const TreeHost host{8, 400, 100};
  const AllReduceAlgos algos{100,
                             0,
                             NcclAlgorithm::NVLS,
                             tree_bus_gbps({host, host, host}),
                             -1,
                             tree_bus_gbps({host, host, host}, TreeFlows::TunerCounted)};
  REQUIRE(algos.tree_bus_gbps > algos.ring_bus_gbps);
  REQUIRE(algos.tree_tuner_gbps() < algos.ring_bus_gbps);
  SECTION("large messages: the ring, as the tuner sees Tree below it") {
    CHECK(algos.large_message_algorithm() == NcclAlgorithm::Ring);
    CHECK(algos.large_message_bus_gbps() == 100);
    CHECK(allreduce_time(1 << 30, 24, 3, algos, true).algorithm == NcclAlgorithm::Ring);
  }
  SECTION("small messages: Tree LL by the tuner's time, timed at what it carries") {
    // 32 KiB: Tree LL, 6.8 + 2 x (7 x 0.6 + 1 x 5.0) = 25.2 us plus 3.9 us at the tuner's
    // figure x 1/3.8 x its correction 0.7 at log2(32768 / 64) = 9, beats the ring's LL, 6.6 +
    // 42 x 0.6 + 4 x 2.7 = 42.6 us plus 1.3; it runs at the carried figure.
    const double bytes = 1 << 15;
    const AllReduceEstimate e = allreduce_time(bytes, 24, 3, algos, true);
    CHECK(e.algorithm == NcclAlgorithm::Tree);
    CHECK(e.protocol == NcclProtocol::LL);
    CHECK(e.time_us == Approx(25.2 + 2.0 * 23 / 24 * bytes / (algos.tree_bus_gbps / 3.8 * 0.7 * 1e3)));
  }
  SECTION("a tuner figure the same as the candidate's changes nothing") {
    AllReduceAlgos same = algos;
    same.tree_tuner_bus_gbps = -1;
    CHECK(same.large_message_algorithm() == NcclAlgorithm::Tree);
    CHECK(same.large_message_bus_gbps() == algos.tree_bus_gbps);
  }
}

TEST_CASE("core::allreduce_time runs Tree where NCCL's tuner would", "[core][nccl]") {
  SECTION("2 x 8 A100, 8 x HDR: Tree for large messages, NVLink-bound at 0.92 x ring / 2 x 2 x 15/16") {
    const Cluster c("dgx-a100", 2, 1);
    const CommPath path = c.path(2, 8);
    const double ring = c.allocator->ring_plan(all_gpus(8)).bus_bandwidth_gbps;
    CHECK(path.hosts == 2);
    CHECK(path.algorithm == NcclAlgorithm::Tree);
    CHECK(path.bus_bandwidth_gbps == Approx(0.92 * ring / 2 * 2 * 15 / 16));
    CHECK(path.algos().ring_bus_gbps == Approx(8 * 25 * kInfiniBandEfficiency));
    const AllReduceEstimate large = path_allreduce_time(1 << 30, path);
    CHECK(large.algorithm == NcclAlgorithm::Tree);
    CHECK(large.protocol == NcclProtocol::Simple);
    // 1 GiB: log2(2^30 / 64) = 24, beyond the tuner's correction table; latency 8.4 + 2 x (7 x 4.0 + 1 x 14).
    CHECK(large.time_us == Approx(8.4 + 2 * (7 * 4.0 + 14) + 2.0 * 15 / 16 * (1 << 30) / (path.bus_bandwidth_gbps * 1e3)));
    // 8 KB: Tree LL, 6.8 + 2 x (7 x 0.6 + 1 x 5.0) = 25.2 us, the tuner's correction 0.7 at log2(8192 / 64) = 7,
    // beats the ring's LL, 6.6 + 28 x 0.6 + 2 x 2.7 = 28.8 us.
    const AllReduceEstimate small = path_allreduce_time(8192, path);
    CHECK(small.algorithm == NcclAlgorithm::Tree);
    CHECK(small.protocol == NcclProtocol::LL);
    CHECK(small.time_us == Approx(25.2 + 2.0 * 15 / 16 * 8192 / (path.bus_bandwidth_gbps / 3.8 * 0.7 * 1e3)));
  }
  SECTION("4 x 8 A100: the ring for 1 GiB (Tree's 2 flows halve it), Tree for 32 KiB (2 log2(4) network steps)") {
    const Cluster c("dgx-a100", 4, 1);
    const CommPath path = c.path(4, 8);
    CHECK(path.algorithm == NcclAlgorithm::Ring);
    CHECK(path.tree_bus_gbps == Approx(0.92 * 8 * 25 * kInfiniBandEfficiency / 2 * 2 * 31 / 32));
    CHECK(path_allreduce_time(1 << 30, path).algorithm == NcclAlgorithm::Ring);
    // 32 KiB: Tree LL 6.8 + 2 x (7 x 0.6 + 2 x 5.0) = 35.2 us against the ring's 6.6 + 56 x 0.6 + 6 x 2.7 = 56.4.
    CHECK(path_allreduce_time(1 << 15, path).algorithm == NcclAlgorithm::Tree);
  }
  SECTION("one host: never Tree") {
    const AllReduceAlgos one{240, 0, NcclAlgorithm::NVLS, 1000};
    CHECK(allreduce_time(1e9, 8, 1, one, true).algorithm == NcclAlgorithm::Ring);
  }
}

TEST_CASE("core::ring_plan_path and NCCL_ALGO follow the large-message choice", "[core][nccl]") {
  SECTION("8 x H100: NVLS at 490.3 GB/s, the ring's 370.8 kept beside it, NCCL_ALGO=NVLS") {
    const Cluster c("hgx-h100", 1, 1);
    const CommPath path = c.path(1, 8);
    CHECK(path.algorithm == NcclAlgorithm::NVLS);
    CHECK(path.bus_bandwidth_gbps == Approx(490.3).epsilon(1e-3));
    CHECK(path.ring_bus_gbps == Approx(370.8));
    CHECK(path.tree_bus_gbps == 0);  // one host
    const RingPlan& ring = c.allocator->ring_plan(all_gpus(8));
    CHECK(*nccl_config(c.topology, {0, 1, 2, 3, 4, 5, 6, 7}, ring, false).find("NCCL_ALGO") == "NVLS");
  }
  SECTION("3 x H100: NVLS (315 GB/s) loses to the ring (370.8): Ring, NVLS's figure kept beside it") {
    const CommPath path = Cluster("hgx-h100", 1, 1).path(1, 3);
    CHECK(path.algorithm == NcclAlgorithm::Ring);
    CHECK(path.bus_bandwidth_gbps == Approx(370.8));
    CHECK(path.nvls_bus_gbps == Approx(nvls_bus_gbps(90, 370.8, 3)));
    CHECK(path.algos().nvls_kind == NcclAlgorithm::NVLS);
  }
  SECTION("8 x A100: the ring, unchanged") {
    const Cluster c("dgx-a100", 1, 1);
    CHECK(c.path(1, 8).algorithm == NcclAlgorithm::Ring);
    CHECK(c.path(1, 8).bus_bandwidth_gbps == Approx(c.allocator->ring_plan(all_gpus(8)).bus_bandwidth_gbps));
  }
  SECTION("an oversubscription cut of bus_bandwidth_gbps also bounds the ring's") {
    CommPath path;
    path.ranks = 8;
    path.bus_bandwidth_gbps = 200;
    path.algorithm = NcclAlgorithm::NVLS;
    path.nvls_bus_gbps = 490.3;
    path.ring_bus_gbps = 370.8;
    CHECK(path.algos().ring_bus_gbps == 200);
    CHECK(path.algos().nvls_bus_gbps == 200);  // the chosen one is bus_bandwidth_gbps
    path.algorithm = NcclAlgorithm::Ring;      // and NVLS's when the ring wins
    path.bus_bandwidth_gbps = 100;
    path.nvls_bus_gbps = 315;
    CHECK(path.algos().nvls_bus_gbps == 100);
    CHECK(path.algos().ring_bus_gbps == 100);
  }
}

TEST_CASE("core::gang_comm_path across nodes and multi-node NVLink domains", "[core][nccl]") {
  SECTION("18 GB200 trays of one domain: one host to NCCL, NVLink P2P, NVLS over 72 GPUs, no NIC") {
    const CommPath path = Cluster("gb200-nvl72-tray", 18, 18).path(18, 4);
    CHECK(path.hosts == 1);
    CHECK(path.ranks == 72);
    CHECK(path.transport == CommTransport::NvLinkP2p);
    CHECK(path.algorithm == NcclAlgorithm::NVLS);
    CHECK(path.bus_bandwidth_gbps == Approx(nvls_bus_gbps(100, 721.8, 72)));
    CHECK(path.ring_bus_gbps == Approx(721.8));
  }
  SECTION("the same trays without a domain: 18 hosts over 4 x 400G each, the ring at the NICs' 177 GB/s") {
    const CommPath path = Cluster("gb200-nvl72-tray", 18, 1).path(18, 4);
    CHECK(path.hosts == 18);
    CHECK(path.transport == CommTransport::Rdma);
    CHECK(path.algos().ring_bus_gbps == Approx(4 * 50 * kInfiniBandEfficiency));
  }
  SECTION("two racks: NVLSTree between domains, hosts = domains") {
    const CommPath path = Cluster("gb200-nvl72-tray", 36, 18).path(36, 4);
    CHECK(path.hosts == 2);
    CHECK(path.algorithm == NcclAlgorithm::NVLSTree);
    CHECK(path.transport == CommTransport::Rdma);
  }
  SECTION("three whole racks: NCCL leaves each rack through 16 of its 72 NICs, the ring at 16 x 44.25 GB/s") {
    // Expectation: ring min(NVLink 721.8, 16 x 50 x 0.885 = 708); NVLSTree as NCCL's tuner counts
    // it beyond 2 domains, half of that per head, 354 x 2 x 215/216 = 704.7: the ring. The
    // NVLSTree would carry 1.5 flows through a rack, 472 per head, beyond the rack's NVLS (426.2
    // per head): 848.5, which the ring's large messages forgo.
    const CommPath path = Cluster("gb200-nvl72-tray", 54, 18).path(54, 4);
    CHECK(path.hosts == 3);
    CHECK(path.algorithm == NcclAlgorithm::Ring);
    CHECK(path.bus_bandwidth_gbps == Approx(kNcclMnnvlNetNics * 50 * kInfiniBandEfficiency));
    const double rack_network = kNcclMnnvlNetNics * 50 * kInfiniBandEfficiency;
    const NvlsDomain rack{72, 721.8, rack_network, kNcclMnnvlNetNics};
    const double counted = rack_network / 2 * 2 * 215 / 216;
    const double carried = nvls_bus_gbps(100, 721.8, 72) / (2.0 * 71 / 72) * 2 * 215 / 216;
    CHECK(carried == Approx(848.5).epsilon(1e-3));
    CHECK(nvls_tree_bus_gbps(100, {rack, rack, rack}, TreeFlows::TunerCounted) == Approx(counted));
    CHECK(nvls_tree_bus_gbps(100, {rack, rack, rack}) == Approx(carried));
    // Both are kept: NCCL's tuner picks per size, and the ring's 2 x 215 steps (1.5 ms as
    // Simple) cost far more than NVLSTree's 2 log2(3) network steps (0.09 ms) and its 0.5% less
    // bandwidth (as the tuner counts it), so NVLSTree runs up to hundreds of GB, at what it carries.
    CHECK(path.nvls_bus_gbps == Approx(carried));
    CHECK(path.nvls_tuner_bus_gbps == Approx(counted));
    CHECK(path.algos().nvls_kind == NcclAlgorithm::NVLSTree);
    const double mib64 = 64.0 * (1 << 20);
    const AllReduceEstimate small = path_allreduce_time(mib64, path);
    CHECK(small.algorithm == NcclAlgorithm::NVLSTree);
    CHECK(small.time_us == Approx(25 + 2 * std::log2(3.0) * 20.9 + 2.0 * 215 / 216 * mib64 / (carried * 1e3)));
    // A cut of the chosen ring to half (contention): the tuner sees NVLSTree at most at that, and
    // what NVLSTree carries falls with what it sees.
    CommPath cut = path;
    cut.bus_bandwidth_gbps = path.bus_bandwidth_gbps / 2;
    const AllReduceAlgos seen = cut.algos();
    CHECK(seen.ring_bus_gbps == cut.bus_bandwidth_gbps);
    CHECK(seen.nvls_tuner_gbps() == cut.bus_bandwidth_gbps);
    CHECK(seen.nvls_bus_gbps == Approx(carried * cut.bus_bandwidth_gbps / counted));
  }
  SECTION("three domains of 3 trays: fewer NICs than the cap, all 12 used") {
    const CommPath path = Cluster("gb200-nvl72-tray", 9, 3).path(9, 4);
    CHECK(path.hosts == 3);
    CHECK(path.algorithm == NcclAlgorithm::Ring);
    CHECK(path.bus_bandwidth_gbps == Approx(12 * 50 * kInfiniBandEfficiency));
  }
  SECTION("2 x 8 H100: NVLSTree capped by NCCL's per-channel ceiling, 8 x 57.7 GB/s") {
    const CommPath path = Cluster("hgx-h100", 2, 1).path(2, 8);
    CHECK(path.algorithm == NcclAlgorithm::NVLSTree);
    CHECK(path.bus_bandwidth_gbps == Approx(8 * 57.7));
  }
  SECTION("4 x 8 H100: the tree's halved network loses to the ring over 8 NICs") {
    const CommPath path = Cluster("hgx-h100", 4, 1).path(4, 8);
    CHECK(path.algorithm == NcclAlgorithm::Ring);
    CHECK(path.bus_bandwidth_gbps == Approx(8 * 50 * kInfiniBandEfficiency));
  }
  SECTION("one H100 per node: no NVLS inside a node, so no NVLSTree") {
    CHECK(nvls_tree_bus_gbps(90, {{1, 370.8, 44.25, 1}, {1, 370.8, 44.25, 1}}) == 0);
  }
  SECTION("2 x 8 A100: no NVLS; the ring at the NICs, Tree above it (core::allreduce_time runs Tree below)") {
    const CommPath path = Cluster("dgx-a100", 2, 1).path(2, 8);
    CHECK(path.nvls_bus_gbps == 0);
    CHECK(path.ring_bus_gbps == Approx(8 * 25 * kInfiniBandEfficiency));
    CHECK(path.algorithm == NcclAlgorithm::Tree);
  }
}

TEST_CASE("core::llm_links: a group across trays of one NVLink domain talks at NVLink speed", "[core][nccl]") {
  const Topology tray = *Topology::build(*builtin_model("gb200-nvl72-tray"));
  const Allocator allocator(tray);
  ParallelConfig config;
  config.tp = 8;
  std::vector<RankSite> sites;
  for (int r = 0; r < 8; ++r) sites.push_back({r / 4, r % 4, r / 4});
  SECTION("trays in domain 0: TP over NVLink, NVLS over 8 GPUs") {
    const std::vector<LinkNode> nodes{{&allocator, 400, 0}, {&allocator, 400, 0}};
    auto links = llm_links(config, sites, nodes);
    REQUIRE(links.ok());
    CHECK(links->tp.transport == CommTransport::NvLinkP2p);
    CHECK(links->tp.hosts == 1);
    CHECK(links->tp.algorithm == NcclAlgorithm::NVLS);
    CHECK(links->tp.bus_bandwidth_gbps == Approx(nvls_bus_gbps(100, 721.8, 8)));
  }
  SECTION("trays without a domain: TP over the NICs, the ring or NVLSTree between the trays as for a gang") {
    const std::vector<LinkNode> nodes{{&allocator, 400}, {&allocator, 400}};
    auto links = llm_links(config, sites, nodes);
    REQUIRE(links.ok());
    CHECK(links->tp.transport == CommTransport::Rdma);
    CHECK(links->tp.hosts == 2);
    const double tray_network = 4 * 50 * kInfiniBandEfficiency;
    CHECK(links->tp.algos().ring_bus_gbps == Approx(tray_network));
    CHECK(links->tp.algorithm == NcclAlgorithm::NVLSTree);
    const NvlsDomain tray_domain{4, nvswitch_link_gbps(tray, {0, 1, 2, 3}), tray_network, 4};
    CHECK(links->tp.bus_bandwidth_gbps == Approx(nvls_tree_bus_gbps(100, {tray_domain, tray_domain})));
  }
  SECTION("trays in two racks: the racks are the hosts, each crossing through its tray's 4 NICs") {
    const std::vector<LinkNode> nodes{{&allocator, 400, 0}, {&allocator, 400, 1}};
    auto links = llm_links(config, sites, nodes);
    REQUIRE(links.ok());
    CHECK(links->tp.transport == CommTransport::Rdma);
    CHECK(links->tp.hosts == 2);
    const double tray_network = 4 * 50 * kInfiniBandEfficiency;
    CHECK(links->tp.algos().ring_bus_gbps == Approx(tray_network));
    const NvlsDomain tray_domain{4, nvswitch_link_gbps(tray, {0, 1, 2, 3}), tray_network, 4};
    CHECK(links->tp.algos().nvls_bus_gbps == Approx(nvls_tree_bus_gbps(100, {tray_domain, tray_domain})));
  }
}

TEST_CASE("core::llm_links: a data-parallel group over two NVL72 racks crosses through 16 NICs of each", "[core][nccl]") {
  // TP 4 inside each tray, DP 36 over 36 trays = 2 racks of 18: each DP group has one GPU on
  // every tray. NCCL sees 2 hosts (the racks); between them a rack's ring crosses through at
  // most 16 of the group's 18 NICs (kNcclMnnvlNetNics), not through one tray's NIC.
  const Topology tray = *Topology::build(*builtin_model("gb200-nvl72-tray"));
  const Allocator allocator(tray);
  ParallelConfig config;
  config.tp = 4;
  config.dp = 36;
  std::vector<RankSite> sites;
  for (int r = 0; r < 144; ++r) sites.push_back({r / 4, r % 4, r / 4});
  std::vector<LinkNode> nodes;
  for (int n = 0; n < 36; ++n) nodes.push_back({&allocator, 400, n / 18});
  auto links = llm_links(config, sites, nodes);
  REQUIRE(links.ok());
  CHECK(links->dp.hosts == 2);
  CHECK(links->dp.ranks == 36);
  const double rack_network = kNcclMnnvlNetNics * 50 * kInfiniBandEfficiency;
  CHECK(links->dp.algos().ring_bus_gbps == Approx(rack_network));
  const NvlsDomain rack{18, nvswitch_link_gbps(tray, {0}), rack_network, kNcclMnnvlNetNics};
  CHECK(links->dp.algos().nvls_bus_gbps == Approx(nvls_tree_bus_gbps(100, {rack, rack})));
  CHECK(links->dp.algorithm == NcclAlgorithm::NVLSTree);
  CHECK(links->tp.hosts == 1);  // inside a tray

  SECTION("the same trays without domains: 36 hosts, each through its own NIC") {
    for (LinkNode& node : nodes) node.nvlink_domain = -1;
    auto flat = llm_links(config, sites, nodes);
    REQUIRE(flat.ok());
    CHECK(flat->dp.hosts == 36);
    CHECK(flat->dp.bus_bandwidth_gbps == Approx(50 * kInfiniBandEfficiency));
  }
  SECTION("estimate_llm_idle fills racks of 18 trays with nvlink_domain_nodes, and refuses nodes off an NVLink switch") {
    const LlmModel& model = **find_llm_model("llama3-8b");
    auto racks = estimate_llm_idle(model, config, *builtin_model("gb200-nvl72-tray"), NetworkModel{}, std::nullopt, 18);
    REQUIRE(racks.ok());
    CHECK(racks->links.dp.hosts == 2);
    CHECK(racks->nvlink_domain_nodes == 18);
    auto trays = estimate_llm_idle(model, config, *builtin_model("gb200-nvl72-tray"));
    REQUIRE(trays.ok());
    CHECK(trays->links.dp.hosts == 36);
    CHECK(racks->step.step_ms < trays->step.step_ms);
    ParallelConfig small;
    small.tp = 2;
    small.dp = 8;
    auto pcie = estimate_llm_idle(model, small, *builtin_model("pcie-h100"), NetworkModel{}, std::nullopt, 2);
    REQUIRE_FALSE(pcie.ok());
    CHECK_THAT(pcie.error().message, Catch::Contains("not on an NVLink switch"));
    // A node without NICs: a job of two nodes is refused with what would run it, unless one
    // multi-node NVLink domain holds both nodes.
    NodeModel no_nic = *builtin_model("hgx-h100");
    no_nic.nics.clear();
    auto across = estimate_llm_idle(model, small, no_nic);
    REQUIRE_FALSE(across.ok());
    CHECK_THAT(across.error().message, Catch::Contains("has no NIC: a job of 16 GPUs spans 2 nodes of 8 GPUs") &&
                                           Catch::Contains("estimate at most 8 GPUs"));
    auto one_domain = estimate_llm_idle(model, small, no_nic, NetworkModel{}, std::nullopt, 2);
    CHECK(one_domain.ok());
  }
}

TEST_CASE("core::estimate_llm_idle lays a job spanning NVL72 racks out in segments", "[core][nccl]") {
  // TP 4 x PP 4 x DP 8 on 32 trays: each stage's DP groups span 8 consecutive trays. Filling
  // racks of 18, stage 2's (trays 16-23) straddles two racks; in segments of 16 (NVIDIA's
  // recommendation for jobs of 128 GPUs and more) no DP group leaves its rack, the step is
  // faster, and the default takes them. The gradients are reduced after the step (no overlap),
  // so the DP groups' links show in the step whatever the compute.
  const LlmModel& model = **find_llm_model("llama3-8b");
  ParallelConfig c;
  c.tp = 4;
  c.pp = 4;
  c.dp = 8;
  c.overlap_dp = false;
  const NodeModel tray = *builtin_model("gb200-nvl72-tray");
  auto segments = estimate_llm_idle(model, c, tray, NetworkModel{}, std::nullopt, 18);
  REQUIRE(segments.ok());
  CHECK(segments->segment_nodes == 16);
  CHECK(segments->domain_job_nodes == 16);
  CHECK(segments->links.dp.hosts == 1);
  auto filled = estimate_llm_idle(model, c, tray, NetworkModel{}, std::nullopt, 18, 1);
  REQUIRE(filled.ok());
  CHECK(filled->domain_job_nodes == 18);
  CHECK(filled->links.dp.hosts == 2);
  CHECK(segments->step.step_ms < filled->step.step_ms);
  // Segments of 4: four of them (16 trays) in each rack, as with 16.
  auto fours = estimate_llm_idle(model, c, tray, NetworkModel{}, std::nullopt, 18, 4);
  REQUIRE(fours.ok());
  CHECK(fours->domain_job_nodes == 16);
  CHECK(estimate_llm_idle(model, c, tray, NetworkModel{}, std::nullopt, 18, 5).error().message ==
        "a segment of 5 nodes does not divide the job's 32 nodes (Slurm's --segment rule)");
  CHECK(estimate_llm_idle(model, c, tray, NetworkModel{}, std::nullopt, 18, 32).error().message ==
        "a segment of 32 nodes does not fit an NVLink domain of 18 nodes");
  CHECK_THAT(estimate_llm_idle(model, c, tray, NetworkModel{}, std::nullopt, 0, 4).error().message,
             Catch::Contains("needs nodes in multi-node NVLink domains"));
  // DP 36 over 144 trays: segments of 16 would leave a DP group 4 trays (4 NICs) in a third
  // rack; whole racks (two per group) run faster, and the default takes them.
  ParallelConfig wide;
  wide.tp = 4;
  wide.pp = 4;
  wide.dp = 36;
  wide.global_batch = 576;
  wide.sequence_parallel = true;
  wide.tp_overlap = true;
  wide.recompute = Recompute::None;
  wide.precision = LlmPrecision::Fp8;
  auto racks = estimate_llm_idle(**find_llm_model("llama3-70b"), wide, tray, NetworkModel{}, std::nullopt, 18);
  auto sixteens = estimate_llm_idle(**find_llm_model("llama3-70b"), wide, tray, NetworkModel{}, std::nullopt, 18, 16);
  REQUIRE(racks.ok());
  REQUIRE(sixteens.ok());
  CHECK(racks->segment_nodes == 1);
  CHECK(racks->links.dp.hosts == 2);
  CHECK(sixteens->links.dp.hosts == 3);
  CHECK(racks->step.step_ms < sixteens->step.step_ms);
  // A job one rack holds stays in it.
  ParallelConfig small;
  small.tp = 4;
  small.dp = 12;
  auto one = estimate_llm_idle(model, small, tray, NetworkModel{}, std::nullopt, 18);
  REQUIRE(one.ok());
  CHECK(one->segment_nodes == 12);
  CHECK(one->links.dp.hosts == 1);
}

TEST_CASE("core::nccl_algo validation: published all-reduce bus bandwidths within 10%", "[core][nccl]") {
  for (const published::AllReduceRow& row : published::allreduce_rows()) {
    const Cluster cluster(row.node, row.nodes, row.nodes_per_domain, row.nic);
    const CommPath path = cluster.path(row.nodes, row.gpus_per_node);
    const AllReduceAlgos algos = path.algos();
    const NcclAlgorithm algorithm = row.forced.value_or(path.algorithm);
    const double model = algorithm == NcclAlgorithm::Ring   ? algos.ring_bus_gbps
                         : algorithm == NcclAlgorithm::Tree ? algos.tree_bus_gbps
                                                            : algos.nvls_bus_gbps;
    const double ratio = model / row.measured_bus_gbps;
    INFO(row.source << ": model " << model << " GB/s (" << enum_name(algorithm) << "; ring " << path.algos().ring_bus_gbps
                    << "), measured " << row.measured_bus_gbps << ", ratio " << ratio
                    << (row.note.empty() ? "" : "; " + row.note));
    CHECK((std::abs(ratio - 1) <= 0.10) == row.within_10_percent);
  }
}
