#include <catch2/catch.hpp>
#include <memory>

#include "core/builtin_models.h"
#include "core/gang.h"

using namespace topsim;

namespace {

// Candidate nodes over built-in models; one Topology and Allocator per model, shared by its nodes.
struct Cluster {
  std::vector<std::unique_ptr<Topology>> topologies;
  std::vector<std::unique_ptr<Allocator>> allocators;
  std::vector<GangNode> nodes;

  const Allocator& allocator(const NodeModel& model) {
    for (const auto& a : allocators)
      if (a->topology().name() == model.name) return *a;
    auto topology = Topology::build(model);
    REQUIRE(topology.ok());
    topologies.push_back(std::make_unique<Topology>(std::move(topology).value()));
    allocators.push_back(std::make_unique<Allocator>(*topologies.back()));
    return *allocators.back();
  }
  void add(const NodeModel& model, int count) {
    const Allocator& a = allocator(model);
    for (int i = 0; i < count; ++i)
      nodes.push_back({&a, all_gpus(a.topology().gpu_count()), model.name + "-" + std::to_string(nodes.size())});
  }
  void add(const char* builtin, int count) { add(*builtin_model(builtin), count); }
  const Topology& topology(int node) const { return nodes[node].allocator->topology(); }
};

GangRequest gang(int workers, int gpus_per_worker, MultiNodePolicy policy = MultiNodePolicy::Pack) {
  GangRequest r;
  r.workers = workers;
  r.gpus_per_worker = gpus_per_worker;
  r.policy = policy;
  return r;
}

std::vector<int> gpus_on(const GangPlacement& g, int node) {
  std::vector<int> ids;
  for (const WorkerPlacement& w : g.workers)
    if (w.node == node) ids.insert(ids.end(), w.gpus.begin(), w.gpus.end());
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string error_of(const Expected<GangPlacement>& placed) {
  REQUIRE_FALSE(placed.ok());
  return placed.error().message;
}

const double kEdrGbps = 12.5 * kInfiniBandEfficiency;  // one 100G EDR port
const double kHdrGbps = 25.0 * kInfiniBandEfficiency;  // one 200G HDR port

}  // namespace

TEST_CASE("core::place_gang pack keeps a small gang on one node", "[core][gang]") {
  Cluster c;
  c.add("dgx1-v100", 2);
  SECTION("4 x 1-GPU workers on two idle DGX-1s: one node, an NVLink quad, at that quad's RingPlan bandwidth") {
    auto placed = place_gang(c.nodes, gang(4, 1));
    REQUIRE(placed.ok());
    REQUIRE(placed->nodes == std::vector<int>{0});
    REQUIRE(placed->workers.size() == 4);
    const std::vector<int> quad = gpus_on(*placed, 0);
    REQUIRE(quad.size() == 4);
    for (size_t i = 0; i < quad.size(); ++i)
      for (size_t j = i + 1; j < quad.size(); ++j) CHECK(c.topology(0).gpu_pair(quad[i], quad[j]).cls == LinkClass::NVLink);
    const RingPlan ring = RingModel(c.topology(0)).plan(quad);
    CHECK(placed->bus_bandwidth_gbps == Approx(ring.bus_bandwidth_gbps));
    CHECK(placed->bus_bandwidth_gbps > 0);
    CHECK(placed->network_crossings == 0);
    CHECK(placed->network_gbps == 0);
    CHECK(placed->nics_per_node == std::vector<std::vector<int>>{{}});
  }
  SECTION("workers are consecutive pieces of the node's ring, each a single GPU here") {
    auto placed = place_gang(c.nodes, gang(2, 2));
    REQUIRE(placed.ok());
    const std::vector<int>& order = placed->node_rings[0].order;
    REQUIRE(order.size() == 4);
    std::vector<int> first(order.begin(), order.begin() + 2), second(order.begin() + 2, order.end());
    std::sort(first.begin(), first.end());
    std::sort(second.begin(), second.end());
    CHECK(placed->workers[0].gpus == first);
    CHECK(placed->workers[1].gpus == second);
  }
  SECTION("with only 3 GPUs free on node 0, the 4 workers go to node 1") {
    c.nodes[0].free = to_gpu_set({0, 1, 2});
    auto placed = place_gang(c.nodes, gang(4, 1));
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{1});
  }
  SECTION("bandwidth ties: pack takes the lower index, best-fit the node left fullest") {
    c.nodes[1].free = to_gpu_set({4, 5, 6, 7});  // the other NVLink quad, same bandwidth
    auto packed = place_gang(c.nodes, gang(4, 1, MultiNodePolicy::Pack));
    auto fitted = place_gang(c.nodes, gang(4, 1, MultiNodePolicy::BestFit));
    REQUIRE(packed.ok());
    REQUIRE(fitted.ok());
    CHECK(packed->nodes == std::vector<int>{0});
    CHECK(fitted->nodes == std::vector<int>{1});
    CHECK(fitted->bus_bandwidth_gbps == Approx(packed->bus_bandwidth_gbps));
  }
  SECTION("best-fit puts bandwidth before tightness: an idle node beats 4 poorly connected free GPUs") {
    c.nodes[0].free = to_gpu_set({0, 1, 5, 6});
    auto fitted = place_gang(c.nodes, gang(4, 1, MultiNodePolicy::BestFit));
    REQUIRE(fitted.ok());
    CHECK(fitted->nodes == std::vector<int>{1});
    CHECK(fitted->bus_bandwidth_gbps > c.nodes[0].allocator->rings().bus_bandwidth_gbps({0, 1, 5, 6}));
  }
}

TEST_CASE("core::place_gang spread", "[core][gang]") {
  Cluster c;
  SECTION("4 x 1 GPU over two DGX-1s: 2 + 2, the ring crosses the network twice, the one EDR NIC limits it") {
    c.add("dgx1-v100", 2);
    auto placed = place_gang(c.nodes, gang(4, 1, MultiNodePolicy::Spread));
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 1});
    CHECK(gpus_on(*placed, 0).size() == 2);
    CHECK(gpus_on(*placed, 1).size() == 2);
    CHECK(placed->network_crossings == 2);
    CHECK(placed->nics_per_node == std::vector<std::vector<int>>{{0}, {0}});
    CHECK(placed->network_gbps == Approx(kEdrGbps));
    CHECK(placed->bus_bandwidth_gbps == Approx(kEdrGbps));
  }
  SECTION("with four nodes: one worker per node, four crossings") {
    c.add("dgx1-v100", 4);
    auto placed = place_gang(c.nodes, gang(4, 1, MultiNodePolicy::Spread));
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 1, 2, 3});
    CHECK(placed->network_crossings == 4);
    CHECK(placed->bus_bandwidth_gbps == Approx(kEdrGbps));
  }
  SECTION("capacity-aware: a node without room is never picked, and max-nodes narrows the spread") {
    c.add("dgx1-v100", 4);
    c.nodes[1].free = to_gpu_set({3});  // no room for a 2-GPU worker
    auto placed = place_gang(c.nodes, gang(3, 2, MultiNodePolicy::Spread));
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 2, 3});
    GangRequest narrow = gang(4, 1, MultiNodePolicy::Spread);
    narrow.max_nodes = 2;
    auto narrowed = place_gang(c.nodes, narrow);
    REQUIRE(narrowed.ok());
    CHECK(narrowed->nodes.size() == 2);
  }
  SECTION("a gang of one worker stays on one node") {
    c.add("dgx1-v100", 3);
    auto placed = place_gang(c.nodes, gang(1, 4, MultiNodePolicy::Spread));
    REQUIRE(placed.ok());
    CHECK(placed->nodes.size() == 1);
    CHECK(placed->network_crossings == 0);
  }
}

TEST_CASE("core::place_gang across DGX A100 nodes", "[core][gang]") {
  Cluster c;
  c.add("dgx-a100", 3);
  SECTION("2 x 8 GPUs: two nodes, all 8 HDR NICs each, network 8 x 25 GB/s x efficiency") {
    auto placed = place_gang(c.nodes, gang(2, 8));
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 1});
    const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(placed->nics_per_node == std::vector<std::vector<int>>{all, all});
    CHECK(placed->network_gbps == Approx(8 * kHdrGbps));
    const double intra = RingModel(c.topology(0)).plan(all).bus_bandwidth_gbps;  // 240 through NVSwitch
    CHECK(placed->bus_bandwidth_gbps == Approx(std::min(intra, 8 * kHdrGbps)));
    CHECK(placed->bus_bandwidth_gbps == Approx(177.0));  // 8 rails x 25 GB/s x 0.885 (was 188 at 0.94)
    CHECK(placed->network_crossings == 2);
    CHECK(job_allreduce_time_us(*placed, 1e8) == Approx(allreduce_time(1e8, 16, 2, placed->bus_bandwidth_gbps, true).time_us));
  }
  SECTION("10 x 1 GPU, node 2 with 2 free: best-fit deals 5 + 5 (5 NICs each), pack fills 8 + 2 (2 NICs)") {
    c.nodes[2].free = to_gpu_set({0, 1});
    auto fitted = place_gang(c.nodes, gang(10, 1, MultiNodePolicy::BestFit));
    auto packed = place_gang(c.nodes, gang(10, 1, MultiNodePolicy::Pack));
    REQUIRE(fitted.ok());
    REQUIRE(packed.ok());
    CHECK(fitted->nodes.size() == 2);
    CHECK(packed->nodes.size() == 2);
    CHECK(fitted->bus_bandwidth_gbps == Approx(5 * kHdrGbps));
    CHECK(packed->bus_bandwidth_gbps == Approx(2 * kHdrGbps));
  }
  SECTION("best-fit splits so the node with the slower NICs gets more GPUs (6 x HDR = 3 x NDR)") {
    // 3 x 3 GPUs on a DGX A100 with 6 free and an HGX H100 with 7 free: 6 + 3 GPUs reach
    // 6 x 22.1 = 3 x 44.3 GB/s, while pack's 3 + 6 leaves the A100 with 3 NICs (66.4 GB/s).
    Cluster mixed;
    mixed.add("dgx-a100", 1);
    mixed.add("hgx-h100", 1);
    mixed.nodes[0].free = to_gpu_set({0, 1, 2, 3, 4, 5});
    mixed.nodes[1].free = to_gpu_set({0, 1, 2, 3, 4, 5, 6});
    auto fitted = place_gang(mixed.nodes, gang(3, 3, MultiNodePolicy::BestFit));
    REQUIRE(fitted.ok());
    CHECK(gpus_on(*fitted, 0).size() == 6);
    CHECK(gpus_on(*fitted, 1).size() == 3);
    CHECK(fitted->bus_bandwidth_gbps == Approx(6 * kHdrGbps));
    auto packed = place_gang(mixed.nodes, gang(3, 3, MultiNodePolicy::Pack));
    REQUIRE(packed.ok());
    CHECK(packed->bus_bandwidth_gbps == Approx(3 * kHdrGbps));
  }
  SECTION("best-fit: among node pairs reaching the best bandwidth, the one leaving the fewest free GPUs") {
    // 3 x 4 GPUs need two nodes; one of them carries a single 4-GPU worker (4 NICs), so every
    // pair reaches 4 x 22.1 GB/s; an idle node plus a 6-free node leaves 2 GPUs, two idle 4.
    c.add("dgx-a100", 1);
    c.nodes[1].free = to_gpu_set({0, 1, 2, 3, 4, 5});
    c.nodes[3].free = to_gpu_set({0, 1, 2, 3, 4, 5});
    auto fitted = place_gang(c.nodes, gang(3, 4, MultiNodePolicy::BestFit));
    REQUIRE(fitted.ok());
    CHECK(fitted->nodes == std::vector<int>{0, 1});
    CHECK(gpus_on(*fitted, 0).size() == 8);
    CHECK(gpus_on(*fitted, 1).size() == 4);
    CHECK(fitted->bus_bandwidth_gbps == Approx(4 * kHdrGbps));
  }
}

TEST_CASE("core::place_gang is all-or-nothing and names the binding limit", "[core][gang]") {
  Cluster c;
  SECTION("a gang larger than the free GPUs: error, nothing placed") {
    c.add("dgx1-v100", 2);
    c.nodes[1].free = to_gpu_set({0, 1, 2});
    const std::string error = error_of(place_gang(c.nodes, gang(6, 2)));
    CHECK(error ==
          "cannot place gang: 6 workers x 2 GPUs do not fit: 2 of 2 nodes have room for a 2-GPU worker, holding 5 workers");
  }
  SECTION("max-nodes") {
    c.add("dgx-a100", 4);
    GangRequest r = gang(4, 8);
    r.max_nodes = 2;
    CHECK(error_of(place_gang(c.nodes, r)) == "cannot place gang: max-nodes 2 allows 16 GPUs at most, 32 requested");
    r.max_nodes = 4;
    CHECK(place_gang(c.nodes, r).ok());
  }
  SECTION("min-gpus-per-node: too few nodes with that many free") {
    c.add("dgx-a100", 3);
    c.nodes[0].free = to_gpu_set({0, 1, 2, 3});
    c.nodes[1].free = to_gpu_set({0, 1, 2, 3});
    GangRequest r = gang(8, 2);
    CHECK(place_gang(c.nodes, r).ok());
    r.min_gpus_per_node = 8;
    CHECK(error_of(place_gang(c.nodes, r)) ==
          "cannot place gang: min-gpus-per-node 8: 1 node has room for 8 GPUs, holding 4 of 8 workers");
  }
  SECTION("min-gpus-per-node: the nodes needed cannot each get that many") {
    c.add("dgx1-v100", 2);
    c.nodes[0].free = to_gpu_set({0, 1});
    c.nodes[1].free = to_gpu_set({4, 5});
    GangRequest r = gang(3, 1);
    r.min_gpus_per_node = 2;
    CHECK(error_of(place_gang(c.nodes, r)) ==
          "cannot place gang: min-gpus-per-node 2 needs 2 GPUs on each of the 2 nodes required, 3 requested");
    r.min_gpus_per_node = 1;
    CHECK(place_gang(c.nodes, r).ok());
  }
  SECTION("min-network: DGX-1's single EDR NIC is below 20 GB/s; DGX A100's eight are above 100") {
    c.add("dgx1-v100", 2);
    GangRequest r = gang(2, 8);
    r.min_network_gbps = 20;
    CHECK(error_of(place_gang(c.nodes, r)) ==
          "cannot place gang: no single node fits and min-network 20.0 GB/s leaves 0 nodes, holding 0 of 2 workers");
    Cluster a100;
    a100.add("dgx-a100", 2);
    r.min_network_gbps = 100;
    auto placed = place_gang(a100.nodes, r);
    REQUIRE(placed.ok());
    CHECK(placed->network_gbps >= 100);
  }
  SECTION("min-network is checked on the GPUs actually placed: 1 GPU per node uses one HDR NIC") {
    c.add("dgx-a100", 2);
    c.nodes[0].free = to_gpu_set({0});
    c.nodes[1].free = to_gpu_set({0});
    GangRequest r = gang(2, 1);
    r.min_network_gbps = 30;
    CHECK(error_of(place_gang(c.nodes, r)) ==
          "cannot place gang: no single node fits and min-network 30.0 GB/s leaves 0 nodes, holding 0 of 2 workers; "
          "excluded after trying: dgx-a100-0 (network 22.1 GB/s < min-network 30.0 GB/s), "
          "dgx-a100-1 (network 22.1 GB/s < min-network 30.0 GB/s)");
  }
  SECTION("spread falls back to one node when spreading would break min-network") {
    c.add("dgx-a100", 2);
    GangRequest r = gang(2, 1, MultiNodePolicy::Spread);
    r.min_network_gbps = 30;
    auto placed = place_gang(c.nodes, r);
    REQUIRE(placed.ok());
    CHECK(placed->nodes.size() == 1);
  }
  SECTION("min-network does not apply to a gang on one node") {
    c.add("dgx1-v100", 1);
    GangRequest r = gang(2, 4);
    r.min_network_gbps = 1000;
    CHECK(place_gang(c.nodes, r).ok());
  }
  SECTION("nodes without NICs cannot join a multi-node gang") {
    c.add(nvswitch_domain_model(8, "h100", 4), 2);
    const std::string error = error_of(place_gang(c.nodes, gang(2, 8)));
    CHECK(error ==
          "cannot place gang: no single node fits and nodes without NICs cannot join a multi-node gang "
          "(nvswitch-8xh100-0, nvswitch-8xh100-1); 0 nodes with NICs, holding 0 of 2 workers");
    CHECK(place_gang(c.nodes, gang(1, 8)).ok());
  }
  SECTION("per-node constraints: relaxed and recorded by default, binding when relaxing is off") {
    c.add("pcie-8gpu", 2);
    GangRequest r = gang(1, 2);
    r.per_node.constraints.require_nvlink = true;
    auto relaxed = place_gang(c.nodes, r);
    REQUIRE(relaxed.ok());
    CHECK(relaxed->relaxed == std::vector<std::string>{"pcie-8gpu-0: require-nvlink"});
    r.per_node.allow_relax = false;
    const std::string error = error_of(place_gang(c.nodes, r));
    CHECK(error.find("cannot place gang: ") == 0);
    CHECK(error.find("excluded after trying: pcie-8gpu-0 (cannot satisfy") != std::string::npos);
  }
  SECTION("malformed requests") {
    c.add("dgx1-v100", 1);
    CHECK(error_of(place_gang(c.nodes, gang(0, 1))) == "invalid gang request: workers must be at least 1, got 0");
    CHECK(error_of(place_gang(c.nodes, gang(1, 0))) == "invalid gang request: gpus-per-worker must be at least 1, got 0");
    GangRequest r = gang(1, 1);
    r.per_node.must_include = {3};
    CHECK(error_of(place_gang(c.nodes, r)) == "invalid gang request: per-node must-include is not supported for gangs");
    r = gang(1, 2);
    r.min_gpus_per_node = 4;
    CHECK(error_of(place_gang(c.nodes, r)) == "cannot place gang: min-gpus-per-node 4 exceeds the gang's 2 GPUs");
    CHECK(error_of(place_gang({}, gang(1, 1))).find("do not fit: 0 of 0 nodes") != std::string::npos);
  }
}

TEST_CASE("core::place_gang on a large mixed cluster", "[core][gang]") {
  // 300 DGX-1 and 300 DGX A100 nodes, a third of them partly busy: answers come from one sort
  // and memoised probes (timing is for the benchmarks; this checks the choices).
  Cluster c;
  c.add("dgx1-v100", 300);
  c.add("dgx-a100", 300);
  for (size_t i = 0; i < c.nodes.size(); i += 3) c.nodes[i].free = to_gpu_set({0, 1, 2, 5, 6});
  SECTION("pack: 64 x 2 GPUs on the 16 fewest nodes, the A100s (their 8 NICs beat DGX-1's one)") {
    auto placed = place_gang(c.nodes, gang(64, 2));
    REQUIRE(placed.ok());
    CHECK(placed->nodes.size() == 16);
    for (int n : placed->nodes) CHECK(c.topology(n).name() == "dgx-a100");
    CHECK(placed->bus_bandwidth_gbps == Approx(8 * kHdrGbps));
  }
  SECTION("spread: 64 workers on 64 distinct nodes, the idle ones first") {
    auto placed = place_gang(c.nodes, gang(64, 1, MultiNodePolicy::Spread));
    REQUIRE(placed.ok());
    CHECK(placed->nodes.size() == 64);
    for (int n : placed->nodes) CHECK(c.nodes[n].free.count() == 8);
  }
}

TEST_CASE("core::NetworkModel and the NICs a node's GPUs use", "[core][gang]") {
  SECTION("efficiencies: IB 0.885 (several HDR rails), RoCE IB x framing ratio, TCP sockets 0.5") {
    const NetworkModel net;
    CHECK(net.efficiency(NicTransport::InfiniBand) == Approx(0.885));
    CHECK(net.efficiency(NicTransport::RoCE) == Approx(0.885 * 4122.0 / 4178.0));
    CHECK(net.efficiency(NicTransport::Ethernet) == Approx(0.5));
    CHECK(net.nic_gbps(Nic{"mlx5_0", 100, NicTransport::InfiniBand, 0, 3, 16, ""}) == Approx(12.5 * 0.885));
  }
  SECTION("DGX A100 GPUs 0 and 1 share two PXB NICs and use one each; HGX H100 GPU g uses mlx5_g") {
    const Topology a100 = Topology::build(*builtin_model("dgx-a100")).value();
    CHECK(network_nic(a100, 0) == 0);
    CHECK(network_nic(a100, 1) == 1);
    CHECK(network_nics(a100, {0, 1, 2, 3}) == std::vector<int>{0, 1, 2, 3});
    const Topology h100 = Topology::build(*builtin_model("hgx-h100")).value();
    for (int g = 0; g < 8; ++g) CHECK(network_nic(h100, g) == g);
    CHECK(node_network_gbps(h100, {0, 1, 2, 3, 4, 5, 6, 7}, {}) == Approx(8 * 50 * kInfiniBandEfficiency));
  }
  SECTION("a NIC is capped by the GPU-to-NIC path: DGX-1 GPU 5 reaches mlx5_0 across QPI at 6 GB/s") {
    const Topology dgx1 = Topology::build(*builtin_model("dgx1-v100")).value();
    CHECK(node_network_gbps(dgx1, {5}, {}) == Approx(6.0));
    CHECK(node_network_gbps(dgx1, {2}, {}) == Approx(kEdrGbps));
    CHECK(node_network_gbps(dgx1, {2, 5}, {}) == Approx(kEdrGbps));  // GPU 2 takes the network hop
  }
  SECTION("Ethernet NICs run at the TCP socket efficiency") {
    const Topology pcie = Topology::build(*builtin_model("pcie-8gpu")).value();
    CHECK(node_network_gbps(pcie, {0, 4}, {}) == Approx(2 * 12.5 * 0.5));
  }
}

TEST_CASE("core::MultiNodePolicy names and gang annotations", "[core][gang]") {
  SECTION("names round-trip") {
    for (const std::string& name : enum_name_list<MultiNodePolicy>()) {
      auto policy = parse_enum<MultiNodePolicy>(name);
      REQUIRE(policy);
      CHECK(enum_name(*policy) == name);
    }
    CHECK_FALSE(parse_enum<MultiNodePolicy>("fastest"));
  }
  SECTION("annotations set the gang fields and the per-node request; bad values name the key") {
    GangRequest r;
    REQUIRE(apply_gang_annotations({{"gpu.topology/multi-node-policy", "best-fit"},
                                    {"gpu.topology/max-nodes", "4"},
                                    {"gpu.topology/min-gpus-per-node", "2"},
                                    {"gpu.topology/require-nvlink", "true"}},
                                   r)
                .ok());
    CHECK(r.policy == MultiNodePolicy::BestFit);
    CHECK(r.max_nodes == 4);
    CHECK(r.min_gpus_per_node == 2);
    CHECK(r.per_node.constraints.require_nvlink);
    Status bad = apply_gang_annotations({{"gpu.topology/max-nodes", "-1"}}, r);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "gpu.topology/max-nodes: '-1' is not a count (an integer >= 0)");
  }
}

TEST_CASE("core::place_gang prefers rail-aligned GPU sets across nodes", "[core][gang]") {
  // DGX A100: every GPU its own HDR NIC (GPU i on mlx5 rail i), so a node's NIC set is its GPU set.
  Cluster c;
  c.add("dgx-a100", 3);
  SECTION("2 x 4 GPUs: nodes 0 and 2 share rails 0-3; node 1's free half is on rails 4-7") {
    c.nodes[0].free = to_gpu_set({0, 1, 2, 3});
    c.nodes[1].free = to_gpu_set({4, 5, 6, 7});
    c.nodes[2].free = to_gpu_set({0, 1, 2, 3});
    auto blind = place_gang(c.nodes, gang(2, 4));
    REQUIRE(blind.ok());
    CHECK(blind->nodes == std::vector<int>{0, 1});  // pack's order: the lower index
    GangRequest request = gang(2, 4);
    request.prefer_rail_aligned = true;
    auto aligned = place_gang(c.nodes, request);
    REQUIRE(aligned.ok());
    CHECK(aligned->nodes == std::vector<int>{0, 2});
    CHECK(aligned->nics_per_node == std::vector<std::vector<int>>{{0, 1, 2, 3}, {0, 1, 2, 3}});
    CHECK(aligned->bus_bandwidth_gbps == Approx(blind->bus_bandwidth_gbps));
  }
  SECTION("a node with more free GPUs takes them on the other node's rails") {
    c.nodes[0].free = to_gpu_set({4, 5, 6, 7});
    c.nodes[1].free = to_gpu_set({2, 3, 4, 5, 6, 7});
    c.nodes[2].free = GpuSet{};
    GangRequest request = gang(2, 4, MultiNodePolicy::BestFit);
    request.prefer_rail_aligned = true;
    auto aligned = place_gang(c.nodes, request);
    REQUIRE(aligned.ok());
    CHECK(aligned->nodes == std::vector<int>{0, 1});
    CHECK(gpus_on(*aligned, 1) == std::vector<int>{4, 5, 6, 7});
    CHECK(aligned->nics_per_node[0] == aligned->nics_per_node[1]);
  }
  SECTION("no aligned split exists (3 workers on 2 nodes): the policy's choice stands") {
    c.nodes[0].free = to_gpu_set({0, 1, 2, 3, 4, 5});
    c.nodes[1].free = to_gpu_set({4, 5, 6, 7});
    c.nodes[2].free = GpuSet{};
    GangRequest request = gang(5, 2);
    request.prefer_rail_aligned = true;
    auto placed = place_gang(c.nodes, request);
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 1});
    CHECK(placed->gpu_count() == 10);
  }
  SECTION("spread keeps its width and aligns the GPUs on it") {
    c.nodes[0].free = to_gpu_set({0, 1, 2, 3, 4, 5, 6, 7});
    c.nodes[1].free = to_gpu_set({4, 5, 6, 7});
    c.nodes[2].free = GpuSet{};
    GangRequest request = gang(2, 4, MultiNodePolicy::Spread);
    request.prefer_rail_aligned = true;
    auto placed = place_gang(c.nodes, request);
    REQUIRE(placed.ok());
    CHECK(placed->nodes == std::vector<int>{0, 1});
    CHECK(gpus_on(*placed, 0) == std::vector<int>{4, 5, 6, 7});
  }
}
