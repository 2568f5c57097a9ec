#include <catch2/catch.hpp>

#include <iterator>
#include <optional>
#include <random>
#include <vector>

#include "core/fragmentation.h"
#include "core/share_policies.h"

using namespace topsim;

namespace {

TaskSpec spec(int64_t cpu_milli, int gpu_milli, int gpu_count, uint32_t type_mask = 0) {
  return TaskSpec{cpu_milli, gpu_milli, gpu_count, type_mask};
}

// A workload with the given specs, each repeated `count` times.
TargetWorkload workload_of(const std::vector<std::pair<TaskSpec, int>>& counts, double coverage = 1.0) {
  std::vector<TaskSpec> tasks;
  for (const auto& [s, n] : counts) tasks.insert(tasks.end(), static_cast<size_t>(n), s);
  return derive_target_workload(tasks, coverage);
}

PodRequest milli_pod(int milli, int cards = 1, int64_t cpu_milli = 0) {
  PodRequest pod;
  pod.cpu_milli = cpu_milli;
  pod.gpu = GpuAsk::milli_share(milli, cards);
  return pod;
}

// A milli-mode node (GPU type 0) whose cards carry the given used thousandths.
ShareNode milli_node(const std::vector<int>& used_milli, int64_t cpu_milli = 8000) {
  ShareNode node = make_share_node("n", NodeMode::Milli, 0, static_cast<int>(used_milli.size()), 0, cpu_milli, 1 << 20);
  for (size_t g = 0; g < used_milli.size(); ++g) {
    if (used_milli[g] > 0) apply_placement(node, milli_pod(used_milli[g]), {static_cast<int>(g)});
  }
  return node;
}

PodRequest mem_pod(int gib, std::optional<int> core_percent = std::nullopt) {
  PodRequest pod;
  pod.gpu = GpuAsk::mem(gib, core_percent);
  return pod;
}

PodRequest whole_pod(int cards, bool topology_aware) {
  PodRequest pod;
  pod.gpu = GpuAsk::whole(cards, topology_aware);
  return pod;
}

uint8_t mode_bit(NodeMode mode) { return static_cast<uint8_t>(1u << static_cast<int>(mode)); }

// A share / core_mem node (GPU type 0, 8 CPUs) with cards of `card_mem_gib`; pods[g], when
// given, is placed on card g.
ShareNode memory_node(NodeMode mode, int card_mem_gib, const std::vector<std::optional<PodRequest>>& pods) {
  ShareNode node = make_share_node("m", mode, 0, static_cast<int>(pods.size()), card_mem_gib, 8000, 1 << 20);
  for (size_t g = 0; g < pods.size(); ++g) {
    if (pods[g]) apply_placement(node, *pods[g], {static_cast<int>(g)});
  }
  return node;
}

double reference_cluster_f(const ShareCluster& cluster, const TargetWorkload& workload) {
  double total = 0;
  for (const ShareNode& node : cluster.nodes) total += node_fragmentation_gpus(node, workload);
  return total;
}

// Four specs of whole cards and shares, and three nodes: two part-used, one idle (the growth tests).
TargetWorkload growth_workload() {
  return workload_of({{spec(1000, 1000, 1), 5}, {spec(1000, 500, 1), 4}, {spec(1000, 300, 1), 3}, {spec(1000, 1000, 2), 1}});
}
ShareCluster growth_cluster() {
  ShareCluster cluster;
  cluster.nodes.push_back(milli_node({0, 500, 800, 0}));
  cluster.nodes.push_back(milli_node({300, 0}));
  cluster.nodes.push_back(milli_node({0, 0, 0, 0, 0, 0, 0, 0}));
  return cluster;
}

}  // namespace

TEST_CASE("core::fragmentation FGD measure on a hand example", "[core][fragmentation]") {
  // One node, 4 cards with free share R = [1000, 500, 200, 0] milli, 8 CPUs free, GPU type 0.
  const ShareNode node = milli_node({0, 500, 800, 1000});
  SECTION("F_n(m) per spec, from REFERENCE.md's definition") {
    // m1 (1 CPU, 300 milli x 1): runs (cards with R >= 300: 1000, 500); fragments R < 300: 200 + 0 = 200.
    CHECK(task_fragmentation_milli(node, spec(1000, 300, 1)) == 200);
    // m2 (1 CPU, 1000 x 2): only one card has R >= 1000, so m2 cannot run: all free, 1000+500+200 = 1700.
    CHECK(task_fragmentation_milli(node, spec(1000, 1000, 2)) == 1700);
    // m3 (16 CPUs, 100 x 1): not enough CPU (8 free): 1700.
    CHECK(task_fragmentation_milli(node, spec(16000, 100, 1)) == 1700);
    // m4 (CPU only): a task that asks no GPU sees every free GPU as fragment: 1700.
    CHECK(task_fragmentation_milli(node, spec(1000, 0, 0)) == 1700);
    // m5 (100 x 1, only GPU type 1 allowed; the node is type 0): 1700.
    CHECK(task_fragmentation_milli(node, spec(1000, 100, 1, 1u << 1)) == 1700);
    // m6 (500 x 1): runs; R < 500: 200 + 0 = 200 (the 500 card is not a fragment for it).
    CHECK(task_fragmentation_milli(node, spec(0, 500, 1)) == 200);
  }
  SECTION("F_n(M) weights specs by popularity: (6 x 200 + 2 x 1700 + 2 x 1700) / 10 = 800 milli") {
    const TargetWorkload w = workload_of({{spec(1000, 300, 1), 6}, {spec(1000, 1000, 2), 2}, {spec(1000, 0, 0), 2}});
    CHECK(node_fragmentation_gpus(node, w) == Approx(0.8));
    ShareCluster cluster{{node}};
    const FragmentationTracker tracker(w, cluster);
    CHECK(tracker.fragmentation_gpus() == Approx(0.8));
    // rate = F / free = 0.8 / 1.7
    CHECK(tracker.fragmentation_rate() == Approx(0.8 / 1.7));
    CHECK(tracker.free_gpus() == Approx(1.7));
    // Unusable: the 200 card fits no spec that can run here (m1 needs 300, m2 cannot run, m4
    // takes no GPU); the 500 and 1000 cards fit m1. So 0.2 GPUs. One idle card.
    CHECK(tracker.unusable_gpus() == Approx(0.2));
    CHECK(tracker.idle_cards() == 1);
  }
  SECTION("a full node and an idle node that fits everything have F = 0") {
    const TargetWorkload w = workload_of({{spec(1000, 300, 1), 1}});
    CHECK(node_fragmentation_gpus(milli_node({1000, 1000}), w) == 0);
    CHECK(node_fragmentation_gpus(milli_node({0, 0}), w) == 0);
  }
}

TEST_CASE("core::fragmentation target workload", "[core][fragmentation]") {
  // Specs seen 50, 30, 15 and 5 times (100 tasks).
  const std::vector<std::pair<TaskSpec, int>> counts = {
      {spec(1000, 500, 1), 30}, {spec(2000, 1000, 1), 50}, {spec(0, 0, 0), 5}, {spec(4000, 1000, 8), 15}};
  SECTION("95% coverage keeps the 3 most popular (50 + 30 + 15 = 95), renormalised over 95") {
    const TargetWorkload w = workload_of(counts, 0.95);
    REQUIRE(w.specs.size() == 3);
    CHECK(w.specs[0] == spec(2000, 1000, 1));
    CHECK(w.specs[1] == spec(1000, 500, 1));
    CHECK(w.specs[2] == spec(4000, 1000, 8));
    CHECK(w.weight_total == 95);
    CHECK(w.popularity(0) == Approx(50.0 / 95));
    CHECK(w.tasks_seen == 100);
  }
  SECTION("full coverage keeps all 4") { CHECK(workload_of(counts, 1.0).specs.size() == 4); }
  SECTION("a pod's spec: per-card share and count; multi-GPU asks are whole cards") {
    // gpu_milli shares run only on milli nodes, so their specs carry that one mode bit.
    TaskSpec whole8 = spec(4000, 1000, 8), share = spec(0, 250, 1);
    whole8.mode_mask = share.mode_mask = mode_bit(NodeMode::Milli);
    CHECK(task_spec(milli_pod(1000, 8, 4000)) == whole8);
    CHECK(task_spec(milli_pod(250)) == share);
  }
}

TEST_CASE("core::fragmentation incremental tracking equals a full recomputation", "[core][fragmentation]") {
  // Random placements on a small mixed cluster; after each one the tracker's F (one node
  // updated) must equal the sum of F_n(M) recomputed from scratch.
  const TargetWorkload w = workload_of({{spec(2000, 1000, 1), 5},
                                        {spec(1000, 500, 1), 4},
                                        {spec(4000, 250, 1), 3},
                                        {spec(8000, 1000, 4), 1},
                                        {spec(1000, 0, 0), 2}});
  ShareCluster cluster;
  for (int n = 0; n < 6; ++n) cluster.nodes.push_back(milli_node(std::vector<int>(n % 2 ? 8 : 2, 0), 16000 + 8000 * n));
  FragmentationTracker tracker(w, cluster);
  std::mt19937_64 rng(3);
  const int shares[] = {100, 250, 500, 700, 1000};
  for (int step = 0; step < 60; ++step) {
    const PodRequest pod = milli_pod(shares[rng() % 5], 1, static_cast<int64_t>(rng() % 3) * 1000);
    const int n = static_cast<int>(rng() % cluster.nodes.size());
    ShareNode& node = cluster.nodes[static_cast<size_t>(n)];
    for (int g = 0; g < static_cast<int>(node.cards.size()); ++g) {
      if (node_fits(node, pod) && card_fits(node, g, pod.gpu)) {
        apply_placement(node, pod, {g});
        tracker.update_node(cluster, n);
        break;
      }
    }
    REQUIRE(tracker.fragmentation_gpus() == Approx(reference_cluster_f(cluster, w)).margin(1e-9));
  }
}

TEST_CASE("core::fragmentation FGD growth equals the change of F", "[core][fragmentation]") {
  // For every node and pod shape, placement_growth must be what F becomes after applying the
  // chosen cards, minus F before, and no other card of the node may do better.
  const TargetWorkload w = growth_workload();
  const ShareCluster cluster = growth_cluster();
  FragmentationTracker tracker(w, cluster);
  const PodRequest pods[] = {milli_pod(200), milli_pod(500), milli_pod(1000), milli_pod(1000, 2), milli_pod(300, 1, 500)};
  auto growth_with = [&](int n, const PodRequest& pod, const std::vector<int>& cards) {
    ShareCluster after = cluster;
    apply_placement(after.nodes[static_cast<size_t>(n)], pod, cards);
    return FragmentationTracker(w, after).weighted_milli() - tracker.weighted_milli();
  };
  for (const PodRequest& pod : pods) {
    for (int n = 0; n < 3; ++n) {
      const ShareNode& node = cluster.nodes[static_cast<size_t>(n)];
      const auto growth = tracker.placement_growth(cluster, n, pod);
      REQUIRE(growth.has_value() == node_fits(node, pod));  // node 1 has a single idle card
      if (!growth) continue;
      CHECK(growth_with(n, pod, tracker.least_growth_cards(cluster, n, pod)) == *growth);
      for (int g = 0; g < static_cast<int>(node.cards.size()) && pod.gpu.count == 1; ++g) {
        if (card_fits(node, g, pod.gpu)) CHECK(growth_with(n, pod, {g}) >= *growth);
      }
    }
  }
}

TEST_CASE("core::fgd places where fragmentation grows least", "[core][fragmentation][fgd]") {
  // Target workload: specs A (200 milli) and B (500 milli), equally popular, no CPU.
  const TargetWorkload w = workload_of({{spec(0, 200, 1), 1}, {spec(0, 500, 1), 1}});
  const PodRequest pod = milli_pod(200);
  SECTION("across nodes: fgd avoids the card binpack would fill") {
    // Node 0: one card with 600 free; node 1: one idle card.
    // Node 0 -> free 400: A fits (0), B cannot run (400): growth +400 from 0.
    // Node 1 -> free 800: A 0, B 0: growth 0. fgd picks node 1; binpack picks node 0 (fuller).
    ShareCluster cluster{{milli_node({400}), milli_node({0})}};
    FragmentationTracker tracker(w, cluster);
    CHECK(*tracker.placement_growth(cluster, 0, pod) == 400);  // weighted milli, weights 1 + 1
    CHECK(*tracker.placement_growth(cluster, 1, pod) == 0);
    auto fgd = make_share_policy(SharePolicyKind::Fgd, SharePolicyContext{0, &tracker});
    auto binpack = make_share_policy(SharePolicyKind::Binpack, SharePolicyContext{});
    CHECK((*fgd)->place(cluster, pod)->node == 1);
    CHECK((*binpack)->place(cluster, pod)->node == 0);
  }
  SECTION("within a node: fgd tries every card ([600, 1000] free: card 1, binpack card 0)") {
    // Card 0 -> [400, 1000]: A 0, B runs (1000 card) but 400 < 500 is a fragment: +400.
    // Card 1 -> [600, 800]: A 0, B 0: +0.
    ShareCluster cluster{{milli_node({400, 0})}};
    FragmentationTracker tracker(w, cluster);
    auto fgd = make_share_policy(SharePolicyKind::Fgd, SharePolicyContext{0, &tracker});
    CHECK((*fgd)->place(cluster, pod)->cards == std::vector<int>{1});
    CHECK(tracker.least_growth_cards(cluster, 0, pod) == std::vector<int>{1});
  }
  SECTION("a share that fills a stranded hole lowers F: [300 free] + 200 -> 100 free") {
    // Before: A fits (0), B cannot run (300) = 300. After: A, B cannot run: 100 + 100 = 200. Growth -100.
    ShareCluster cluster{{milli_node({700}), milli_node({0})}};
    FragmentationTracker tracker(w, cluster);
    CHECK(*tracker.placement_growth(cluster, 0, pod) == -100);
    auto fgd = make_share_policy(SharePolicyKind::Fgd, SharePolicyContext{0, &tracker});
    CHECK((*fgd)->place(cluster, pod)->node == 0);
  }
  SECTION("no fit: nullopt") {
    ShareCluster cluster{{milli_node({900})}};
    FragmentationTracker tracker(w, cluster);
    CHECK_FALSE(tracker.placement_growth(cluster, 0, milli_pod(200)).has_value());
    auto fgd = make_share_policy(SharePolicyKind::Fgd, SharePolicyContext{0, &tracker});
    CHECK_FALSE((*fgd)->place(cluster, milli_pod(200)).has_value());
  }
}

TEST_CASE("core::fgd on core_mem nodes: growth by compute share, ties to the lowest card", "[core][fragmentation][fgd]") {
  // core_mem node: free share = 10 x free compute percent. Workload: 50% shares.
  const TargetWorkload w = workload_of({{spec(0, 500, 1), 1}});
  ShareCluster cluster{{make_share_node("c", NodeMode::CoreMem, 0, 2, 16, 8000, 65536)}};
  PodRequest first;
  first.gpu = GpuAsk::mem(4, 30);
  apply_placement(cluster.nodes[0], first, {0});  // card 0: 70% free, card 1: 100% free
  FragmentationTracker tracker(w, cluster);
  SECTION("a 20% pod: card 0 leaves 500 (fits the 50% spec, +0), card 1 leaves 800 (+0): ties go to card 0") {
    PodRequest pod;
    pod.gpu = GpuAsk::mem(4, 20);
    CHECK(*tracker.placement_growth(cluster, 0, pod) == 0);
    CHECK(tracker.least_growth_cards(cluster, 0, pod) == std::vector<int>{0});
  }
  SECTION("a 40% pod: card 0 leaves 300 (< 500, +300), card 1 leaves 600 (+0): card 1") {
    PodRequest pod;
    pod.gpu = GpuAsk::mem(4, 40);
    CHECK(*tracker.placement_growth(cluster, 0, pod) == 0);
    CHECK(tracker.least_growth_cards(cluster, 0, pod) == std::vector<int>{1});
  }
}

TEST_CASE("core::fragmentation a task spec names its node modes and memory share", "[core][fragmentation]") {
  // mode_mask holds the modes where mode_accepts(mode, ask); mem_gib the GiB of a memory share.
  SECTION("memory-only share: share nodes; gpu_milli = ceil(1000 x 3 / 16) = 188 (display only)") {
    const TaskSpec s = task_spec(mem_pod(3), 16);
    CHECK(s.mode_mask == mode_bit(NodeMode::Share));
    CHECK(s.mem_gib == 3);
    CHECK(s.gpu_milli == 188);
    CHECK(s.gpu_count == 1);
  }
  SECTION("memory + compute share: core_mem nodes; gpu_milli = 10 x 20% = 200") {
    const TaskSpec s = task_spec(mem_pod(4, 20), 16);
    CHECK(s.mode_mask == mode_bit(NodeMode::CoreMem));
    CHECK(s.mem_gib == 4);
    CHECK(s.gpu_milli == 200);
  }
  SECTION("whole cards: topology-aware -> topology nodes; regular -> default and milli nodes") {
    const TaskSpec topo = task_spec(whole_pod(4, true));
    CHECK(topo.mode_mask == mode_bit(NodeMode::Topology));
    CHECK(topo.mem_gib == 0);
    CHECK(topo.gpu_milli == 1000);
    CHECK(task_spec(whole_pod(1, false)).mode_mask == (mode_bit(NodeMode::Default) | mode_bit(NodeMode::Milli)));
  }
  SECTION("CPU-only pods run anywhere: mode_mask 0") {
    PodRequest cpu;
    cpu.cpu_milli = 2000;
    CHECK(task_spec(cpu) == spec(2000, 0, 0));
  }
}

TEST_CASE("core::fragmentation memory shares fit share nodes by GiB, not by rounded milli", "[core][fragmentation]") {
  // share node, 2 cards x 16 GiB. Card 0 holds 13 GiB: 3 GiB free, R = floor(1000 x 3 / 16) =
  // 187. Card 1 idle: R = 1000. A 3 GiB spec has d = ceil(1000 x 3 / 16) = 188 > 187, yet the
  // card has exactly the 3 GiB it needs.
  const ShareNode node = memory_node(NodeMode::Share, 16, {mem_pod(13), std::nullopt});
  const TaskSpec three = task_spec(mem_pod(3), 16), four = task_spec(mem_pod(4), 16);
  SECTION("a 3 GiB spec can use both cards: F_n(m) = 0") {
    CHECK(task_fragmentation_milli(node, three) == 0);
    ShareCluster cluster{{node}};
    const FragmentationTracker tracker(workload_of({{three, 1}}), cluster);
    CHECK(tracker.weighted_milli() == 0);
    CHECK(tracker.unusable_gpus() == 0);
  }
  SECTION("a 4 GiB spec cannot use card 0 (3 GiB free) but runs on card 1: F_n(m) = 187") {
    CHECK(task_fragmentation_milli(node, four) == 187);
    ShareCluster cluster{{node}};
    const FragmentationTracker tracker(workload_of({{four, 1}}), cluster);
    CHECK(tracker.weighted_milli() == 187);
    CHECK(tracker.unusable_gpus() == Approx(0.187));
  }
  SECTION("3 GiB seen 3 times, 4 GiB once: weighted 3 x 0 + 1 x 187 = 187; card 0 usable by the 3 GiB spec") {
    ShareCluster cluster{{node}};
    const FragmentationTracker tracker(workload_of({{three, 3}, {four, 1}}), cluster);
    CHECK(tracker.weighted_milli() == 187);
    CHECK(tracker.fragmentation_gpus() == Approx(0.187 / 4));
    CHECK(tracker.unusable_gpus() == 0);
  }
}

TEST_CASE("core::fragmentation a core_mem card with compute but no memory free is a fragment", "[core][fragmentation]") {
  // core_mem node, 2 cards x 16 GiB. Card 0 holds a 16 GiB, 30% pod: R = 10 x 70 = 700, 0 GiB
  // free. Card 1 idle: R = 1000, 16 GiB free.
  const ShareNode node = memory_node(NodeMode::CoreMem, 16, {mem_pod(16, 30), std::nullopt});
  SECTION("a 4 GiB + 20% spec cannot use card 0 (0 GiB < 4) and runs on card 1: F_n(m) = 700") {
    const TaskSpec s = task_spec(mem_pod(4, 20), 16);
    CHECK(task_fragmentation_milli(node, s) == 700);
    ShareCluster cluster{{node}};
    const FragmentationTracker tracker(workload_of({{s, 1}}), cluster);
    CHECK(tracker.weighted_milli() == 700);
    CHECK(tracker.unusable_gpus() == Approx(0.7));
  }
  SECTION("a spec with compute left but too little: 4 GiB + 80% uses only card 1 (700 < 800): F_n(m) = 700") {
    CHECK(task_fragmentation_milli(node, task_spec(mem_pod(4, 80), 16)) == 700);
  }
  SECTION("a hand-built milli spec (no memory share, any mode) still fits by R: 700 >= 500, F_n(m) = 0") {
    CHECK(task_fragmentation_milli(node, spec(0, 500, 1)) == 0);
  }
}

TEST_CASE("core::fragmentation a spec that cannot run on a node's mode sees all its free share", "[core][fragmentation]") {
  const TaskSpec topo = task_spec(whole_pod(1, true));  // topology nodes only
  const TaskSpec mem4 = task_spec(mem_pod(4), 16);      // share nodes only
  const ShareNode share = make_share_node("s", NodeMode::Share, 0, 2, 16, 8000, 1 << 20);
  const ShareNode topology = make_share_node("t", NodeMode::Topology, 0, 4, 16, 8000, 1 << 20);
  SECTION("topology-aware whole GPU: idle share node F = 1000 x 2 cards = 2000; idle topology node F = 0") {
    CHECK(task_fragmentation_milli(share, topo) == 2000);
    CHECK(task_fragmentation_milli(topology, topo) == 0);
  }
  SECTION("memory share on an idle topology node: F = 1000 x 4 cards = 4000; on the share node 0") {
    CHECK(task_fragmentation_milli(topology, mem4) == 4000);
    CHECK(task_fragmentation_milli(share, mem4) == 0);
  }
  SECTION("F_n(M) measures each node against the specs its mode serves: an idle partitioned cluster has F = 0") {
    // Modes partition the cluster: the share node serves mem4 only (W_share = 1), the topology
    // node topo only (W_topology = 1); neither counts the other kind's spec.
    ShareCluster cluster{{share, topology}};
    const FragmentationTracker tracker(workload_of({{topo, 1}, {mem4, 1}}), cluster);
    CHECK(tracker.node_weighted_milli(0) == 0);
    CHECK(tracker.node_weighted_milli(1) == 0);
    CHECK(tracker.fragmentation_gpus() == 0);
    CHECK(tracker.unusable_gpus() == 0);
    CHECK(node_fragmentation_gpus(share, workload_of({{topo, 1}, {mem4, 1}})) == 0);
  }
  SECTION("popularities renormalise within a mode: 3 GiB left on a share card is 187 milli for mem4, p = 1 there") {
    // Share node card 0 holds 13 GiB (3 GiB free, R = floor(1000 x 3 / 16) = 187 < mem4's 4 GiB);
    // card 1 idle. Target: topo x 3, mem4 x 1. On the share node only mem4 counts, with
    // p = 1 / W_share = 1 / 1: F_share = 187 milli. The idle topology node: topo runs there and
    // uses every card, 0. Cluster F = 0.187 GPUs.
    const ShareNode used = memory_node(NodeMode::Share, 16, {mem_pod(13), std::nullopt});
    ShareCluster cluster{{used, topology}};
    const TargetWorkload workload = workload_of({{topo, 3}, {mem4, 1}});
    CHECK(workload.mode_weight(NodeMode::Share) == 1);
    CHECK(workload.mode_weight(NodeMode::Topology) == 3);
    const FragmentationTracker tracker(workload, cluster);
    CHECK(tracker.node_weighted_milli(0) == 187);
    CHECK(tracker.fragmentation_gpus() == Approx(0.187));
    CHECK(node_fragmentation_gpus(used, workload) == Approx(0.187));
    CHECK(node_fragmentation_gpus(topology, workload) == 0);
  }
}

TEST_CASE("core::fgd on a share node grows F by GiB-exact fits", "[core][fragmentation][fgd]") {
  // share node, 2 cards x 16 GiB: card 0 has 8 GiB free (R = 500), card 1 has 10 GiB free
  // (R = 625). Target workload: the 5 GiB memory share (d = ceil(1000 x 5 / 16) = 313). Both
  // cards hold 5 GiB: F = 0. A 5 GiB pod:
  // - on card 0 leaves 3 GiB (R = 187 < 5 GiB): F = 187, growth +187;
  // - on card 1 leaves 5 GiB (R = floor(312.5) = 312): the spec still fits (5 GiB >= 5 GiB), F = 0,
  //   growth 0. Comparing milli (312 < 313) would have counted +312 and chosen card 0.
  ShareCluster cluster{{memory_node(NodeMode::Share, 16, {mem_pod(8), mem_pod(6)})}};
  const TargetWorkload w = workload_of({{task_spec(mem_pod(5), 16), 1}});
  FragmentationTracker tracker(w, cluster);
  REQUIRE(tracker.weighted_milli() == 0);
  const PodRequest pod = mem_pod(5);
  CHECK(*tracker.placement_growth(cluster, 0, pod) == 0);
  REQUIRE(tracker.least_growth_cards(cluster, 0, pod) == std::vector<int>{1});
  apply_placement(cluster.nodes[0], pod, {1});
  tracker.update_node(cluster, 0);
  CHECK(tracker.weighted_milli() == 0);
  SECTION("then a second 5 GiB pod: card 0 (8 -> 3 GiB) +187, card 1 (5 -> 0 GiB, R 0) +0: card 1") {
    CHECK(*tracker.placement_growth(cluster, 0, pod) == 0);
    CHECK(tracker.least_growth_cards(cluster, 0, pod) == std::vector<int>{1});
  }
  SECTION("a 6 GiB pod fits only card 0 (8 -> 2 GiB, R 125; card 1 keeps its 5 GiB): growth +125") {
    CHECK(*tracker.placement_growth(cluster, 0, mem_pod(6)) == 125);
    CHECK(tracker.least_growth_cards(cluster, 0, mem_pod(6)) == std::vector<int>{0});
  }
}

TEST_CASE("core::fragmentation tracking is exact on a cluster mixing node modes", "[core][fragmentation]") {
  // Random placements on share, core_mem, milli and topology nodes with a workload of all pod
  // kinds; after each one the tracker's F must equal the reference recomputation, and the growth
  // the tracker predicted must be the change of F.
  const PodRequest pods[] = {mem_pod(3),         mem_pod(5),         mem_pod(8),         mem_pod(4, 20),
                             mem_pod(16, 30),    mem_pod(2, 60),     milli_pod(300),     milli_pod(1000, 2),
                             whole_pod(1, true), whole_pod(2, true), whole_pod(1, false)};
  std::vector<std::pair<TaskSpec, int>> counts;
  for (size_t i = 0; i < std::size(pods); ++i) counts.push_back({task_spec(pods[i], 16), static_cast<int>(i % 3) + 1});
  const TargetWorkload w = workload_of(counts);
  ShareCluster cluster;
  const NodeMode modes[] = {NodeMode::Share, NodeMode::CoreMem, NodeMode::Milli, NodeMode::Topology};
  for (int n = 0; n < 8; ++n) {
    cluster.nodes.push_back(make_share_node("n", modes[n % 4], 0, 2 + n % 3, 16, 16000, 1 << 20));
  }
  FragmentationTracker tracker(w, cluster);
  std::mt19937_64 rng(7);
  for (int step = 0; step < 80; ++step) {
    const PodRequest& pod = pods[rng() % std::size(pods)];
    const int n = static_cast<int>(rng() % cluster.nodes.size());
    const auto growth = tracker.placement_growth(cluster, n, pod);
    REQUIRE(growth.has_value() == node_fits(cluster.nodes[static_cast<size_t>(n)], pod));
    if (!growth) continue;
    const int64_t before = tracker.weighted_milli();
    apply_placement(cluster.nodes[static_cast<size_t>(n)], pod, tracker.least_growth_cards(cluster, n, pod));
    tracker.update_node(cluster, n);
    REQUIRE(tracker.weighted_milli() - before == *growth);
    REQUIRE(tracker.fragmentation_gpus() == Approx(reference_cluster_f(cluster, w)).margin(1e-9));
  }
}

TEST_CASE("core::fgd growth on share and core_mem nodes is the best card's, ties to the lowest card",
          "[core][fragmentation][fgd]") {
  // The growth memo serves memory-accounting nodes too: for random node states and memory
  // shares, the predicted growth must be the least change of F over every card the pod fits,
  // and the chosen card the lowest-index card achieving it (what trying each card in turn gives).
  const PodRequest pods[] = {mem_pod(3),     mem_pod(5),     mem_pod(8),      mem_pod(12),
                             mem_pod(4, 20), mem_pod(6, 35), mem_pod(16, 30), mem_pod(2, 60)};
  std::vector<std::pair<TaskSpec, int>> counts;
  for (size_t i = 0; i < std::size(pods); ++i) counts.push_back({task_spec(pods[i], 16), static_cast<int>(i % 4) + 1});
  const TargetWorkload w = workload_of(counts);
  std::mt19937_64 rng(11);
  int compared = 0, later_card_better = 0;
  for (int round = 0; round < 60; ++round) {
    ShareCluster cluster;
    for (const NodeMode mode : {NodeMode::Share, NodeMode::CoreMem}) {
      ShareNode node = make_share_node("m", mode, 0, 4 + static_cast<int>(rng() % 5), 16, 16000, 1 << 20);
      for (int k = static_cast<int>(rng() % 10); k > 0; --k) {  // random earlier pods
        PodRequest pod = pods[rng() % std::size(pods)];
        const int g = static_cast<int>(rng() % node.cards.size());
        if (node_fits(node, pod) && card_fits(node, g, pod.gpu)) apply_placement(node, pod, {g});
      }
      cluster.nodes.push_back(std::move(node));
    }
    FragmentationTracker tracker(w, cluster);
    for (const PodRequest& pod : pods) {
      for (int n = 0; n < 2; ++n) {
        const ShareNode& node = cluster.nodes[static_cast<size_t>(n)];
        std::optional<int64_t> best;
        int best_card = -1;
        for (int g = 0; g < static_cast<int>(node.cards.size()) && node_fits(node, pod); ++g) {
          if (!card_fits(node, g, pod.gpu)) continue;
          ShareCluster after = cluster;
          apply_placement(after.nodes[static_cast<size_t>(n)], pod, {g});
          const int64_t delta = FragmentationTracker(w, after).weighted_milli() - tracker.weighted_milli();
          if (!best || delta < *best) {
            if (best) ++later_card_better;
            best = delta;
            best_card = g;
          }
        }
        const auto growth = tracker.placement_growth(cluster, n, pod);
        REQUIRE(growth.has_value() == best.has_value());
        if (!best) continue;
        ++compared;
        CHECK(*growth == *best);
        CHECK(tracker.least_growth_cards(cluster, n, pod) == std::vector<int>{best_card});
      }
    }
  }
  CHECK(compared > 300);          // the random states let most pods fit somewhere
  CHECK(later_card_better > 20);  // and the first fitting card is often not the best
}

TEST_CASE("core::fragmentation a later tracker starts from an earlier one's memo, with the same answers",
          "[core][fragmentation]") {
  const TargetWorkload w = growth_workload();
  const ShareCluster cluster = growth_cluster();
  const PodRequest pods[] = {milli_pod(200), milli_pod(500), milli_pod(1000), milli_pod(1000, 2), milli_pod(300, 1, 500)};
  FragmentationTracker first(w, cluster);
  std::vector<std::optional<int64_t>> growths;
  for (const PodRequest& pod : pods)
    for (int n = 0; n < 3; ++n) growths.push_back(first.placement_growth(cluster, n, pod));
  const size_t known = first.states_known();
  CHECK(known > cluster.nodes.size() - 1);  // the nodes' states and the states after each pod
  // A second cluster in the same state, tracked from the first tracker's memo: the same figures
  // and growths, and no state learnt again.
  FragmentationTracker second(w, cluster, first.memo());
  CHECK(second.memo() == first.memo());
  CHECK(second.weighted_milli() == first.weighted_milli());
  CHECK(second.unusable_gpus() == first.unusable_gpus());
  size_t i = 0;
  for (const PodRequest& pod : pods)
    for (int n = 0; n < 3; ++n) CHECK(second.placement_growth(cluster, n, pod) == growths[i++]);
  CHECK(second.states_known() == known);
  // Placing changes only the second cluster's figures; a fresh tracker agrees with it.
  ShareCluster after = cluster;
  apply_placement(after.nodes[2], milli_pod(500), {3});
  second.update_node(after, 2);
  CHECK(second.weighted_milli() == FragmentationTracker(w, after).weighted_milli());
  CHECK(first.weighted_milli() == FragmentationTracker(w, cluster).weighted_milli());
  // A memo of another workload is not used: the tracker starts its own.
  const TargetWorkload other = workload_of({{spec(1000, 250, 1), 1}});
  FragmentationTracker elsewhere(other, cluster, first.memo());
  CHECK(elsewhere.memo() != first.memo());
  CHECK(elsewhere.weighted_milli() == FragmentationTracker(other, cluster).weighted_milli());
}

TEST_CASE("core::fragmentation share nodes known by their cards' free GiB: placements and releases stay exact",
          "[core][fragmentation]") {
  // Share nodes of 8 cards of 16 and of 32 GiB (their states are looked up by the packed free
  // GiB) and one of cards of unequal memory (looked up by the full state): random memory shares
  // placed and released. After each change F must equal the reference recomputation, and a
  // fresh tracker over the same cluster (no memo) must see every node the same.
  const PodRequest pods[] = {mem_pod(2), mem_pod(3), mem_pod(5), mem_pod(8), mem_pod(16), mem_pod(4), milli_pod(500)};
  std::vector<std::pair<TaskSpec, int>> counts;
  for (size_t i = 0; i < std::size(pods); ++i) counts.push_back({task_spec(pods[i], 16), static_cast<int>(i % 4) + 1});
  const TargetWorkload w = workload_of(counts);
  ShareCluster cluster;
  for (int n = 0; n < 4; ++n)
    cluster.nodes.push_back(make_share_node("s", NodeMode::Share, 0, 8, n < 2 ? 16 : 32, 96000, 1 << 20));
  ShareNode unequal = make_share_node("u", NodeMode::Share, 0, 4, 16, 96000, 1 << 20);
  unequal.cards[3].mem_total_gib = 32;
  refresh_card_summary(unequal);
  cluster.nodes.push_back(unequal);
  FragmentationTracker tracker(w, cluster);
  struct Placed {
    int node;
    PodRequest pod;
    std::vector<int> cards;
  };
  std::vector<Placed> placed;
  std::mt19937_64 rng(11);
  int releases = 0;
  for (int step = 0; step < 400; ++step) {
    if (!placed.empty() && rng() % 3 == 0) {
      const size_t i = rng() % placed.size();
      release_placement(cluster.nodes[static_cast<size_t>(placed[i].node)], placed[i].pod, placed[i].cards);
      tracker.update_node(cluster, placed[i].node);
      placed.erase(placed.begin() + static_cast<std::ptrdiff_t>(i));
      ++releases;
    } else {
      const PodRequest& pod = pods[rng() % std::size(pods)];
      const int n = static_cast<int>(rng() % cluster.nodes.size());
      if (!tracker.placement_growth(cluster, n, pod)) continue;
      const std::vector<int> cards = tracker.least_growth_cards(cluster, n, pod);
      apply_placement(cluster.nodes[static_cast<size_t>(n)], pod, cards);
      tracker.update_node(cluster, n);
      placed.push_back({n, pod, cards});
    }
    REQUIRE(tracker.fragmentation_gpus() == Approx(reference_cluster_f(cluster, w)).margin(1e-9));
    const FragmentationTracker fresh(w, cluster);
    REQUIRE(tracker.weighted_milli() == fresh.weighted_milli());
    REQUIRE(tracker.unusable_gpus() == fresh.unusable_gpus());
    REQUIRE(tracker.free_milli() == fresh.free_milli());
    for (int n = 0; n < static_cast<int>(cluster.nodes.size()); ++n)
      REQUIRE(tracker.node_weighted_milli(n) == fresh.node_weighted_milli(n));
  }
  CHECK(releases > 50);
  CHECK(placed.size() > 10);
}
