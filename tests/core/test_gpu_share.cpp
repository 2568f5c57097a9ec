#include <catch2/catch.hpp>

#include "core/gpu_share.h"
#include "core/share_policies.h"

using namespace topsim;

namespace {

PodRequest mem_pod(int gib, std::optional<int> core = std::nullopt) {
  PodRequest pod;
  pod.gpu = GpuAsk::mem(gib, core);
  return pod;
}

PodRequest milli_pod(int milli, int cards = 1, int64_t cpu_milli = 0) {
  PodRequest pod;
  pod.cpu_milli = cpu_milli;
  pod.gpu = GpuAsk::milli_share(milli, cards);
  return pod;
}

std::string rejection(const PodRequest& pod, int max_card_gib = 16) {
  const Status status = validate_request(pod, max_card_gib);
  return status ? "" : status.error().message;
}

std::optional<SharePlacement> place_with(SharePolicyKind kind, const ShareCluster& cluster, const PodRequest& pod) {
  auto policy = make_share_policy(kind, SharePolicyContext{});
  REQUIRE(policy.ok());
  return (*policy)->place(cluster, pod);
}

// A milli-mode node whose cards already carry the given used thousandths.
ShareNode milli_node(std::vector<int> used_milli, int64_t cpu_milli = 64000) {
  ShareNode node = make_share_node("n", NodeMode::Milli, 0, static_cast<int>(used_milli.size()), 0, cpu_milli, 1 << 20);
  for (size_t g = 0; g < used_milli.size(); ++g) {
    if (used_milli[g] > 0) apply_placement(node, milli_pod(used_milli[g]), {static_cast<int>(g)});
  }
  return node;
}

}  // namespace

TEST_CASE("core::share validation", "[core][share]") {
  SECTION("gpu-core 7% is rejected: not a multiple of 5") {
    CHECK(rejection(mem_pod(4, 7)) == "aliyun.com/gpu-core.percentage 7 is not a multiple of 5");
  }
  SECTION("gpu-core 0% is rejected: below the minimum 5") {
    CHECK(rejection(mem_pod(4, 0)) == "aliyun.com/gpu-core.percentage 0 is below the minimum 5");
  }
  SECTION("gpu-core 105% is rejected: above 100 per card") {
    CHECK(rejection(mem_pod(4, 105)) == "aliyun.com/gpu-core.percentage 105 is above the maximum 100");
  }
  SECTION("gpu-core 5%, 30% and 100% are accepted, as is memory without a core share") {
    CHECK(rejection(mem_pod(4, 5)).empty());
    CHECK(rejection(mem_pod(4, 30)).empty());
    CHECK(rejection(mem_pod(4, 100)).empty());
    CHECK(rejection(mem_pod(4)).empty());
  }
  SECTION("gpu-mem beyond the card (17 GiB on 16 GiB cards) is rejected; exactly 16 GiB is accepted") {
    CHECK(rejection(mem_pod(17), 16) == "aliyun.com/gpu-mem 17 GiB exceeds the largest card's memory (16 GiB)");
    CHECK(rejection(mem_pod(16), 16).empty());
  }
  SECTION("gpu-mem 0 is rejected") { CHECK(rejection(mem_pod(0)) == "aliyun.com/gpu-mem 0 must be positive"); }
  SECTION("gpu_milli: negative and 0 are rejected, 1..1000 accepted, 1001 rejected") {
    CHECK(rejection(milli_pod(-5)) == "gpu_milli -5 is negative");
    CHECK(rejection(milli_pod(0)) == "gpu_milli 0 is below the minimum 1");
    CHECK(rejection(milli_pod(1)).empty());
    CHECK(rejection(milli_pod(1000)).empty());
    CHECK(rejection(milli_pod(1001)) == "gpu_milli 1001 is above the maximum 1000 (one card)");
  }
  SECTION("a multi-GPU pod must ask whole GPUs") {
    CHECK(rejection(milli_pod(500, 2)) == "a pod asking 2 GPUs must ask whole GPUs (gpu_milli 1000), got 500");
    CHECK(rejection(milli_pod(1000, 8)).empty());
  }
  SECTION("whole GPUs: at least one; negative CPU is rejected") {
    PodRequest pod;
    pod.gpu = GpuAsk::whole(0);
    CHECK(rejection(pod) == "GPU count 0 must be at least 1");
    pod.gpu = GpuAsk::none();
    pod.cpu_milli = -1;
    CHECK(rejection(pod) == "cpu_milli -1 is negative");
  }
}

TEST_CASE("core::share node modes and allocatable", "[core][share]") {
  SECTION("the label ack.node.gpu.schedule names the mode; absent means default") {
    CHECK(*node_mode_from_labels({{"ack.node.gpu.schedule", "core_mem"}}) == NodeMode::CoreMem);
    CHECK(*node_mode_from_labels({{"ack.node.gpu.schedule", "share"}}) == NodeMode::Share);
    CHECK(*node_mode_from_labels({{"ack.node.gpu.schedule", "topology"}}) == NodeMode::Topology);
    CHECK(*node_mode_from_labels({}) == NodeMode::Default);
  }
  SECTION("an unknown mode is an error listing the accepted values") {
    const auto mode = parse_node_mode("binpack");
    REQUIRE_FALSE(mode.ok());
    CHECK(mode.error().message ==
          "ack.node.gpu.schedule=binpack: unknown mode (expected default, topology, share, core_mem or milli)");
  }
  SECTION("allocatable: gpu-core.percentage = 100 x cards, gpu-mem = total GiB, gpu-count = cards") {
    const NodeAllocatable a = allocatable(make_share_node("n", NodeMode::CoreMem, 0, 4, 16, 32000, 65536));
    CHECK(a.gpu_core_percentage == 400);
    CHECK(a.gpu_mem_gib == 64);
    CHECK(a.gpu_count == 4);
  }
  SECTION("topology nodes serve only topology-aware whole-GPU jobs; default nodes only regular ones") {
    CHECK(mode_accepts(NodeMode::Topology, GpuAsk::whole(2, true)));
    CHECK_FALSE(mode_accepts(NodeMode::Topology, GpuAsk::whole(2)));
    CHECK(mode_accepts(NodeMode::Default, GpuAsk::whole(2)));
    CHECK_FALSE(mode_accepts(NodeMode::Default, GpuAsk::mem(4)));
  }
}

TEST_CASE("core::share memory-only and memory+compute pods never share a node", "[core][share]") {
  ShareCluster cluster;
  cluster.nodes.push_back(make_share_node("share-node", NodeMode::Share, 0, 2, 16, 32000, 65536));
  cluster.nodes.push_back(make_share_node("core-mem-node", NodeMode::CoreMem, 0, 2, 16, 32000, 65536));
  SECTION("a memory-only pod goes to the share node, a memory+compute pod to the core_mem node") {
    CHECK(place_with(SharePolicyKind::Binpack, cluster, mem_pod(4))->node == 0);
    CHECK(place_with(SharePolicyKind::Binpack, cluster, mem_pod(4, 50))->node == 1);
    CHECK_FALSE(mode_accepts(NodeMode::CoreMem, GpuAsk::mem(4)));
    CHECK_FALSE(mode_accepts(NodeMode::Share, GpuAsk::mem(4, 50)));
  }
  SECTION("with the core_mem node's compute used up, a memory+compute pod fails although the share node is empty") {
    ShareNode& core_node = cluster.nodes[1];
    apply_placement(core_node, mem_pod(2, 100), {0});
    apply_placement(core_node, mem_pod(2, 100), {1});
    CHECK_FALSE(place_with(SharePolicyKind::Spread, cluster, mem_pod(2, 5)).has_value());
    CHECK(place_with(SharePolicyKind::Spread, cluster, mem_pod(2))->node == 0);
  }
}

TEST_CASE("core::share per-card accounting", "[core][share]") {
  SECTION("three 30% pods on one card show 90% compute used; memory adds up; release restores") {
    ShareNode node = make_share_node("n", NodeMode::CoreMem, 0, 2, 16, 32000, 65536);
    for (int i = 0; i < 3; ++i) apply_placement(node, mem_pod(4, 30), {0});
    CHECK(node.cards[0].core_used_percent == 90);
    CHECK(node.cards[0].mem_used_gib == 12);
    CHECK(node.cards[0].tasks == 3);
    CHECK(card_free_milli(node, 0) == 100);  // 10 x (100 - 90)
    CHECK(card_fits(node, 0, GpuAsk::mem(4, 10)));
    CHECK_FALSE(card_fits(node, 0, GpuAsk::mem(4, 15)));  // only 10% compute left
    CHECK_FALSE(card_fits(node, 0, GpuAsk::mem(5, 5)));   // only 4 GiB left
    release_placement(node, mem_pod(4, 30), {0});
    CHECK(node.cards[0].core_used_percent == 60);
    CHECK(node.cards[0].mem_used_gib == 8);
  }
  SECTION("milli shares add per card; the node summary follows") {
    ShareNode node = milli_node({300, 0, 1000});
    CHECK(node.free_milli == 700 + 1000 + 0);
    CHECK(node.max_card_free_milli == 1000);
    CHECK(node.idle_cards == 1);
    CHECK(node.pods == 2);
  }
  SECTION("CPU and host memory are accounted per node and must fit") {
    ShareNode node = milli_node({0}, 8000);
    PodRequest big = milli_pod(100, 1, 9000);
    CHECK_FALSE(node_fits(node, big));
    big.cpu_milli = 8000;
    CHECK(node_fits(node, big));
    big.memory_mib = (1 << 20) + 1;
    CHECK_FALSE(node_fits(node, big));
  }
}

TEST_CASE("core::share multi-GPU pods need whole idle cards on one node", "[core][share]") {
  ShareCluster cluster;
  cluster.nodes.push_back(milli_node({0, 500}));  // one idle card
  cluster.nodes.push_back(milli_node({100, 0}));  // one idle card
  SECTION("two nodes with one idle card each cannot take a 2-GPU pod") {
    CHECK_FALSE(place_with(SharePolicyKind::Binpack, cluster, milli_pod(1000, 2)).has_value());
  }
  SECTION("a node with two idle cards can, and gets its lowest idle cards") {
    cluster.nodes.push_back(milli_node({0, 200, 0, 0}));
    const auto placement = place_with(SharePolicyKind::Binpack, cluster, milli_pod(1000, 2));
    REQUIRE(placement);
    CHECK(placement->node == 2);
    CHECK(placement->cards == std::vector<int>{0, 2});
  }
}

TEST_CASE("core::share binpack and spread card choice", "[core][share]") {
  // One share node, 4 cards of 16 GiB with 10, 4, 0 and 12 GiB used: free 6, 12, 16, 4 GiB.
  ShareCluster cluster;
  cluster.nodes.push_back(make_share_node("n", NodeMode::Share, 0, 4, 16, 32000, 65536));
  const int used[] = {10, 4, 0, 12};
  for (int g = 0; g < 4; ++g) {
    if (used[g] > 0) apply_placement(cluster.nodes[0], mem_pod(used[g]), {g});
  }
  SECTION("binpack picks the fullest card that fits: 4 GiB -> card 3 (4 free), 5 GiB -> card 0 (6 free)") {
    CHECK(place_with(SharePolicyKind::Binpack, cluster, mem_pod(4))->cards == std::vector<int>{3});
    CHECK(place_with(SharePolicyKind::Binpack, cluster, mem_pod(5))->cards == std::vector<int>{0});
    CHECK(place_with(SharePolicyKind::Binpack, cluster, mem_pod(13))->cards == std::vector<int>{2});
  }
  SECTION("spread picks the emptiest card: card 2 (16 free)") {
    CHECK(place_with(SharePolicyKind::Spread, cluster, mem_pod(4))->cards == std::vector<int>{2});
  }
  SECTION("nothing fits 17 GiB") { CHECK_FALSE(place_with(SharePolicyKind::Binpack, cluster, mem_pod(17)).has_value()); }
}

TEST_CASE("core::share policies across nodes", "[core][share]") {
  // Node 0 idle, node 1 with a card at 600 used, node 2 with a card at 300 used.
  ShareCluster cluster;
  cluster.nodes.push_back(milli_node({0, 0}));
  cluster.nodes.push_back(milli_node({600, 0}));
  cluster.nodes.push_back(milli_node({300, 0}));
  const PodRequest pod = milli_pod(300);
  SECTION("binpack: the fullest card that fits across the cluster (node 1 card 0, 400 free)") {
    const auto p = place_with(SharePolicyKind::Binpack, cluster, pod);
    CHECK((p->node == 1 && p->cards == std::vector<int>{0}));
  }
  SECTION("spread: the emptiest card on the emptiest node (node 0 card 0, ties to the lowest index)") {
    const auto p = place_with(SharePolicyKind::Spread, cluster, pod);
    CHECK((p->node == 0 && p->cards == std::vector<int>{0}));
  }
  SECTION("gpu-packing: an already shared card first, the fullest one (node 1 card 0)") {
    const auto p = place_with(SharePolicyKind::GpuPacking, cluster, pod);
    CHECK((p->node == 1 && p->cards == std::vector<int>{0}));
  }
  SECTION("gpu-packing: a whole GPU goes to an idle card of a used node before an idle node") {
    const auto p = place_with(SharePolicyKind::GpuPacking, cluster, milli_pod(1000));
    CHECK((p->node == 1 && p->cards == std::vector<int>{1}));
  }
  SECTION("gpu-clustering: a card holding equal shares (300 on node 2) before others") {
    const auto p = place_with(SharePolicyKind::GpuClustering, cluster, pod);
    CHECK((p->node == 2 && p->cards == std::vector<int>{0}));
  }
  SECTION("random: the same seed gives the same choices; every choice fits") {
    auto a = make_share_policy(SharePolicyKind::Random, SharePolicyContext{7, nullptr});
    auto b = make_share_policy(SharePolicyKind::Random, SharePolicyContext{7, nullptr});
    for (int i = 0; i < 20; ++i) {
      const auto pa = (*a)->place(cluster, pod);
      const auto pb = (*b)->place(cluster, pod);
      REQUIRE((pa && pb));
      CHECK((pa->node == pb->node && pa->cards == pb->cards));
      CHECK(card_fits(cluster.nodes[static_cast<size_t>(pa->node)], pa->cards[0], pod.gpu));
    }
  }
  SECTION("fgd without a fragmentation tracker is an error") {
    const auto policy = make_share_policy(SharePolicyKind::Fgd, SharePolicyContext{});
    REQUIRE_FALSE(policy.ok());
    CHECK(policy.error().message == "policy fgd needs a fragmentation tracker (target workload)");
  }
  SECTION("ack.node.gpu.placement=binpack picks binpack; absent or spread picks spread; others are errors") {
    CHECK(*card_placement_from_labels({{"ack.node.gpu.placement", "binpack"}}) == SharePolicyKind::Binpack);
    CHECK(*card_placement_from_labels({}) == SharePolicyKind::Spread);
    const auto bad = card_placement_from_labels({{"ack.node.gpu.placement", "pack"}});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "ack.node.gpu.placement=pack: unknown card placement (expected binpack or spread)");
  }
  SECTION("policy names round-trip") {
    for (const std::string& name : enum_name_list<SharePolicyKind>())
      CHECK(enum_name(*parse_enum<SharePolicyKind>(name)) == name);
    CHECK(enum_name_list<SharePolicyKind>().size() == 9);
    CHECK_FALSE(parse_enum<SharePolicyKind>("fdg").has_value());
  }
}

TEST_CASE("core::no_node_fits_reason names what each serving node lacks and the most any has free", "[core][share]") {
  // Three milli nodes of 2 cards, 8 cores, 32 GiB; the pod asks 600 thousandths, 4 cores, 8 GiB.
  const auto node = [](std::vector<int> used_milli, int64_t cpu_used, int64_t memory_used_mib) {
    ShareNode n = milli_node(std::move(used_milli), 8000);
    n.memory_mib = 32 * 1024;
    n.cpu_used_milli = cpu_used;
    n.memory_used_mib = memory_used_mib;
    return n;
  };
  PodRequest pod = milli_pod(600, 1, 4000);
  pod.memory_mib = 8 * 1024;
  ShareCluster cluster;
  SECTION("one node short of GPU room only, one of CPU only, one of CPU and memory") {
    cluster.nodes = {node({500, 500}, 0, 0), node({0, 0}, 6000, 0), node({0, 0}, 6000, 30 * 1024)};
    CHECK(no_node_fits_reason(cluster, pod) ==
          "none of the 3 nodes serving its pod has room for it (a card with 600 thousandths free, 4 cores, 8 GiB of host "
          "memory): 1 lacks only room on its GPUs, 1 only CPU, 1 more than one of these");
  }
  SECTION("every node short of GPU room: the most free on one card is named") {
    cluster.nodes = {node({500, 700}, 0, 0), node({900, 1000}, 0, 0)};
    CHECK(no_node_fits_reason(cluster, pod) ==
          "none of the 2 nodes serving its pod has room for it (a card with 600 thousandths free, 4 cores, 8 GiB of host "
          "memory): 2 lack only room on its GPUs; no node has a card with 600 thousandths free (most free on one card: 500 "
          "thousandths)");
  }
  SECTION("every node short of CPU and memory: both maxima, in cores and GiB to one decimal") {
    cluster.nodes = {node({0, 0}, 4500, 25 * 1024 - 512), node({0, 0}, 5000, 28 * 1024)};
    CHECK(no_node_fits_reason(cluster, pod) ==
          "none of the 2 nodes serving its pod has room for it (a card with 600 thousandths free, 4 cores, 8 GiB of host "
          "memory): 2 lack more than one of these; no node has 4 cores free (most on one node: 3.5 cores), 8 GiB of host "
          "memory free (most on one node: 7.5 GiB)");
  }
  SECTION("a node with room: no reason") {
    cluster.nodes = {node({500, 500}, 0, 0), node({0, 0}, 0, 0)};
    CHECK(no_node_fits_reason(cluster, pod).empty());
  }
  SECTION("whole cards: idle cards per node") {
    cluster.nodes = {node({1000, 0}, 0, 0), node({0, 300}, 0, 0)};
    CHECK(no_node_fits_reason(cluster, milli_pod(1000, 2)) ==
          "none of the 2 nodes serving its pod has room for it (2 idle GPUs): 2 lack only room on its GPUs; no node has 2 idle "
          "GPUs (most idle on one node: 1)");
    CHECK(no_node_fits_reason(cluster, milli_pod(1000)).empty());
  }
  SECTION("no node of the pod's mode or GPU type") {
    cluster.nodes = {node({0, 0}, 0, 0), node({0, 0}, 0, 0)};
    CHECK(no_node_fits_reason(cluster, mem_pod(4)) == "none of the cluster's 2 nodes serves its pod (its node mode)");
    PodRequest typed = milli_pod(500);
    typed.gpu_type_mask = 1u << 3;  // the nodes are type 0
    CHECK(no_node_fits_reason(cluster, typed) == "none of the cluster's 2 nodes serves its pod (its node mode and GPU types)");
  }
  SECTION("memory + compute shares on core_mem cards: memory and compute are named apart") {
    ShareNode a = make_share_node("a", NodeMode::CoreMem, 0, 2, 16, 8000, 1 << 20);
    apply_placement(a, mem_pod(12, 50), {0});
    apply_placement(a, mem_pod(4, 90), {1});
    cluster.nodes = {a};
    CHECK(no_node_fits_reason(cluster, mem_pod(8, 30)) ==
          "the 1 node serving its pod has no room for it (a card with 8 GiB and 30% of its compute free): 1 lacks only "
          "room on its GPUs; no node has a card with 8 GiB and 30% of its compute free (most free on one card: 12 GiB; most "
          "compute free on one card: 50%)");
  }
}

TEST_CASE("core::gpu_room_somewhere: GPU room on a serving node, CPU and host memory aside", "[core][share]") {
  // Milli nodes of 2 cards and 8 cores; the pod asks 600 thousandths and 4 cores.
  const auto node = [](std::vector<int> used_milli, int64_t cpu_used) {
    ShareNode n = milli_node(std::move(used_milli), 8000);
    n.cpu_used_milli = cpu_used;
    return n;
  };
  const PodRequest pod = milli_pod(600, 1, 4000);
  ShareCluster cluster;
  SECTION("room on a card of a node short of CPU: the GPU room exists, the pod waits on CPU") {
    cluster.nodes = {node({500, 500}, 0), node({0, 700}, 6000)};
    CHECK(gpu_room_somewhere(cluster, pod));
    CHECK_FALSE(node_fits(cluster.nodes[0], pod));
    CHECK_FALSE(node_fits(cluster.nodes[1], pod));
  }
  SECTION("no card has 600 thousandths free anywhere, whatever the CPU") {
    cluster.nodes = {node({500, 500}, 0), node({900, 1000}, 0)};
    CHECK_FALSE(gpu_room_somewhere(cluster, pod));
  }
  SECTION("room only on a node of another GPU type or mode does not count") {
    cluster.nodes = {node({500, 500}, 0), node({0, 0}, 0)};
    PodRequest typed = pod;
    typed.gpu_type_mask = 1u << 3;  // the nodes are type 0
    CHECK_FALSE(gpu_room_somewhere(cluster, typed));
    CHECK_FALSE(gpu_room_somewhere(cluster, mem_pod(4)));  // a memory share serves on share nodes only
  }
  SECTION("a CPU-only pod always has GPU room") {
    cluster.nodes = {node({1000, 1000}, 8000)};
    PodRequest cpu_only;
    cpu_only.cpu_milli = 4000;
    CHECK(gpu_room_somewhere(cluster, cpu_only));
  }
}
