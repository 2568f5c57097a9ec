// Single-node GPU placement: `Allocator::place(free GPUs, request) -> Placement | reason`.
//
// The allocator is a pure decision over a node's topology and its free GPUs; the simulator or
// a real scheduler applies the result. One Allocator per node model (it memoises per model);
// it is not thread-safe: use one per thread.
//
// Policies and the preference each one optimises (the first candidate in that order that meets
// the constraints wins):
// - best-fit (default, topology-aware). Lexicographic objective over candidate sets S drawn
//   from the free GPUs F (L = F \ S is what is left behind):
//     1. predicted all-reduce bus bandwidth of S (RingModel), higher first;
//     2. the best bus bandwidth a next request of the same size could still get from L,
//        higher first (what it leaves behind);
//     3. the connectivity of L: the sum of P2P path bandwidth over all pairs in L, higher
//        first (leave the remaining free GPUs well connected);
//     4. the number of NUMA nodes S spans, fewer first;
//     5. the lowest GPU ids (the sorted id list that is lexicographically smallest).
//   Bandwidths compare at 1 MB/s resolution so equal designs tie exactly.
//   Search: for nodes of up to 16 GPUs the answer for every (free mask, size) is memoised per
//   node model, together with each subset's bandwidth and each leftover's best next bandwidth,
//   so a decision is a table lookup once warm; results are identical to exhaustive search of
//   the objective. Above 16 GPUs (large NVLink domains) candidates are grown greedily from one
//   seed per NUMA node (and from the required GPUs), and term 2 is not evaluated.
// - first-fit: one NUMA node if possible, then lowest NUMA id, then lowest GPU ids.
// - pack: fewest NUMA nodes, then the NUMA nodes / PCIe switches with the fewest free GPUs
//   left (fill the fullest first), then lowest ids.
// - spread: as many NUMA nodes as possible, balanced (round-robin), then lowest ids.
// - device-plugin: a model of the NVIDIA device plugin's best-effort choice
//   (go-gpuallocator "besteffort", REFERENCE.md): pair score = PCIe relation (SYS 10, NODE
//   20, PHB 30, PXB 40, PIX 50) + 100 per direct NVLink (NVSwitch links are not seen); the
//   partition of the free GPUs into sets of the requested size with the highest total score
//   wins, ties to the first partition in its enumeration order, and the best-scoring set
//   holding the required GPUs is returned. Exponential, as the original; memoised.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/ring.h"
#include "core/topology.h"
#include "util/enum_names.h"
#include "util/expected.h"

namespace topsim {

enum class PlacementPolicy { BestFit, FirstFit, Pack, Spread, DevicePlugin };
template <>
struct EnumNames<PlacementPolicy> {
  static constexpr std::array<EnumName<PlacementPolicy>, 5> table{{{PlacementPolicy::BestFit, "best-fit"},
                                                                   {PlacementPolicy::FirstFit, "first-fit"},
                                                                   {PlacementPolicy::Pack, "pack"},
                                                                   {PlacementPolicy::Spread, "spread"},
                                                                   {PlacementPolicy::DevicePlugin, "device-plugin"}}};
};

struct PlacementConstraints {
  std::optional<LinkClass> max_link_class;  // every chosen pair at most this class; default none
  bool same_numa = false;                   // all chosen GPUs on one NUMA node; default false
  bool require_nvlink = false;              // all channels on NVLink (an NVLink-only ring); default false
  double min_bandwidth_gbps = 0;            // predicted bus bandwidth at least this; default 0 (none)
  bool any() const { return max_link_class || same_numa || require_nvlink || min_bandwidth_gbps > 0; }
};

struct PlacementRequest {
  int gpus = 1;  // GPUs wanted on this node
  PlacementPolicy policy = PlacementPolicy::BestFit;
  PlacementConstraints constraints;
  std::vector<int> must_include;  // GPUs that must be part of the set (device-plugin semantics)
  bool allow_relax = true;        // on failure retry with constraints dropped; default true
};

// Maps the pod annotations of the topology-aware scheduler onto a request:
// `gpu.topology/policy` = single-numa | nvlink | best-effort | spread,
// `gpu.topology/min-bandwidth` (GB/s), `gpu.topology/require-nvlink` (true|false).
// Unknown keys under `gpu.topology/` and bad values are errors naming the annotation.
Status apply_annotations(const std::map<std::string, std::string>& annotations, PlacementRequest& request);

struct Placement {
  std::vector<int> gpus;             // chosen GPU ids, ascending
  RingPlan ring;                     // rings and predicted bus bandwidth of the set
  std::vector<std::string> relaxed;  // constraints dropped to find it, in order, e.g. "require-nvlink"
  std::string fallback_reason;       // why the request as given could not be met ("" if it was)
};

// One line naming constraint names as the CLI spells them ("same-numa", "max-link-class", ...).
std::string describe(const PlacementConstraints& constraints);

class Allocator {
 public:
  // REQUIRES: `topology` outlives the allocator.
  explicit Allocator(const Topology& topology);

  // Chooses `request.gpus` GPUs among `free`. Errors (one line): bad request (size, ids,
  // must-include not free), or "cannot satisfy: ..." when no set meets the constraints and
  // relaxing is not allowed (or nothing fits at all).
  Expected<Placement> place(const GpuSet& free, const PlacementRequest& request) const;

  // What place() chooses, without building the Placement (for callers comparing many free
  // sets): the GPUs, their ring (memoised: valid as long as the allocator) and how many
  // constraints were dropped; nullopt where place() gives an error.
  struct Choice {
    GpuSet gpus;
    const RingPlan* ring = nullptr;
    size_t relaxed = 0;
  };
  std::optional<Choice> choose(const GpuSet& free, const PlacementRequest& request) const;

  // Reference: the best-fit winner by enumerating every candidate set and evaluating the
  // objective from scratch, without any memo (tests and benchmarks compare against it).
  // Returns an empty set when nothing meets the constraints.
  GpuSet best_fit_exhaustive(const GpuSet& free, const PlacementRequest& request) const;

  const RingModel& rings() const { return rings_; }
  const Topology& topology() const { return *topology_; }
  // Predicted bus bandwidth of a set in MB/s (memoised for nodes of up to 16 GPUs).
  int64_t bus_mbps(const GpuSet& set) const { return ring_summary(set).mbps; }
  // The ring over a set (rings().plan of its ids, ascending), memoised.
  const RingPlan& ring_plan(const GpuSet& set) const { return plan(set); }

  struct Score;  // best-fit objective value of one candidate (allocator.cpp)

 private:
  struct RingSummary {
    int64_t mbps = -1;  // bus bandwidth, MB/s; -1 = not computed
    bool nvlink_only = false;
  };
  RingSummary ring_summary(const GpuSet& set) const;
  RingSummary fresh_ring_summary(const GpuSet& set) const;
  std::optional<GpuSet> search(const GpuSet& free, const PlacementRequest& request) const;
  // search(), then with constraints dropped one at a time (their names in `dropped`) while
  // nothing is found and the request allows it.
  std::optional<GpuSet> search_relaxing(const GpuSet& free, const PlacementRequest& request,
                                        std::vector<std::string>& dropped) const;
  std::optional<GpuSet> best_fit_small(const GpuSet& free, const PlacementRequest& request) const;
  std::optional<GpuSet> best_fit_large(const GpuSet& free, const PlacementRequest& request) const;
  std::optional<GpuSet> ranked_small(const GpuSet& free, const PlacementRequest& request) const;
  std::optional<GpuSet> ranked_large(const GpuSet& free, const PlacementRequest& request) const;
  std::optional<GpuSet> device_plugin(const GpuSet& free, const PlacementRequest& request) const;
  bool meets(const GpuSet& set, const PlacementConstraints& constraints) const;
  // Fills the terms of `s` (whose bus and set are set) after the bus term, unless the bus term
  // alone already loses to `incumbent`; returns whether `s` beats it.
  bool beats(Score& s, const GpuSet& free, const std::optional<Score>& incumbent) const;
  const RingPlan& plan(const GpuSet& set) const;
  int64_t global_best_mbps(int size) const;
  Score fresh_score(const GpuSet& free, const GpuSet& set) const;
  int64_t best_next_mbps(uint32_t leftover, int size) const;
  int64_t connectivity_mbps(const GpuSet& set) const;
  int numa_span(const GpuSet& set) const;
  bool small() const { return gpu_count_ <= kSmallNodeGpus; }

  static constexpr int kSmallNodeGpus = 16;
  const Topology* topology_;
  RingModel rings_;
  int gpu_count_;
  std::vector<int64_t> pair_mbps_;  // gpu_count x gpu_count, P2P path bandwidth in MB/s
  // Memo tables for small nodes, indexed by GPU bitmask (and size): -1 / ~0u = not yet known.
  std::vector<int64_t> connectivity_table_;  // small nodes: connectivity of every mask
  std::vector<uint8_t> numa_span_table_;     // small nodes: NUMA nodes spanned by every mask
  mutable std::vector<RingSummary> bus_memo_;
  mutable std::unordered_map<GpuSet, RingSummary, GpuSetHash> large_bus_memo_;
  mutable std::vector<int64_t> next_memo_;
  mutable std::vector<uint32_t> answer_memo_;
  mutable std::vector<int64_t> global_best_;  // best bus bandwidth of any k GPUs of the node; -1 unknown
  mutable std::unordered_map<GpuSet, RingPlan, GpuSetHash> plan_memo_;
  // The device-plugin policy's answers by (free set, count, required GPUs ascending).
  struct PluginKey {
    GpuSet free;
    int gpus = 0;
    std::vector<int> required;
    bool operator==(const PluginKey&) const = default;
  };
  struct PluginKeyHash {
    size_t operator()(const PluginKey& k) const;
  };
  mutable std::unordered_map<PluginKey, GpuSet, PluginKeyHash> device_plugin_memo_;
};

}  // namespace topsim
