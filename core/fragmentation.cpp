#include "core/fragmentation.h"

#include "util/digest.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <limits>
#include <map>
#include <numeric>

namespace topsim {
namespace {

constexpr std::array<NodeMode, 5> kNodeModes{NodeMode::Default, NodeMode::Topology, NodeMode::Share, NodeMode::CoreMem,
                                             NodeMode::Milli};

// Share nodes account a card by memory, core_mem nodes by compute and memory.
bool accounts_memory(NodeMode mode) { return mode == NodeMode::Share || mode == NodeMode::CoreMem; }

// Free memory of a card in GiB where the node accounts memory, else 0 (see State::free_gib).
uint16_t card_free_gib(const ShareNode& node, int card) {
  if (!accounts_memory(node.mode)) return 0;
  const CardState& c = node.cards[static_cast<size_t>(card)];
  return static_cast<uint16_t>(std::clamp(c.mem_total_gib - c.mem_used_gib, 0, 65535));
}

// A card as states and the growth memo tell cards apart: its free share and, where the node
// accounts memory, its free GiB, in one word ordered by (share, GiB).
uint32_t card_key(uint16_t free_milli, uint16_t free_gib) { return (uint32_t{free_milli} << 16) | free_gib; }

// Puts one node's cards in a state's order: by free share, and on share / core_mem nodes (where
// `free_gib` holds a value per card) by (free share, free GiB), the two lists kept in step.
// `packed` is scratch.
void sort_cards(std::vector<uint16_t>& free, std::vector<uint16_t>& free_gib, std::vector<uint32_t>& packed) {
  if (free_gib.empty()) {
    std::sort(free.begin(), free.end());
    return;
  }
  packed.resize(free.size());
  for (size_t g = 0; g < free.size(); ++g) packed[g] = card_key(free[g], free_gib[g]);
  std::sort(packed.begin(), packed.end());
  for (size_t g = 0; g < free.size(); ++g) {
    free[g] = static_cast<uint16_t>(packed[g] >> 16);
    free_gib[g] = static_cast<uint16_t>(packed[g] & 0xFFFFu);
  }
}

// The cards of one node as the measure sees them: R_g per card and, on share / core_mem nodes,
// the same cards' free GiB (empty elsewhere: read as 0).
struct CardsView {
  NodeMode mode;
  const std::vector<uint16_t>& free;
  const std::vector<uint16_t>& free_gib;
  int gib(size_t g) const { return free_gib.empty() ? 0 : free_gib[g]; }
};

// Whether spec m can run on the node at all, cards aside: the node's mode (mask 0 = any), its
// GPU type (mask 0 = any) and `cpu_fits` (the node's free CPU covers the spec).
bool spec_node_ok(const TaskSpec& spec, NodeMode mode, int gpu_type, bool cpu_fits) {
  const bool mode_ok = spec_serves_mode(spec, mode);
  const bool type_ok =
      spec.gpu_type_mask == 0 || (gpu_type >= 0 && gpu_type < 32 && ((spec.gpu_type_mask >> gpu_type) & 1u) != 0);
  return mode_ok && type_ok && cpu_fits;
}

// The one fit rule of the measure (F_n(m), `unusable`, growth): spec m can use card g, on a
// node where spec_node_ok gave `node_ok`. Memory shares fit by GiB (and on core_mem nodes by
// compute too); every other spec by R_g >= d_m.
bool spec_can_use(const TaskSpec& spec, bool node_ok, const CardsView& cards, size_t g) {
  if (!node_ok) return false;
  const int milli = cards.free[g];
  if (spec.mem_gib > 0) {
    return cards.gib(g) >= spec.mem_gib && (cards.mode != NodeMode::CoreMem || milli >= spec.gpu_milli);
  }
  return milli >= spec.gpu_milli;
}

struct SpecFragment {
  int64_t milli = 0;     // F_n(m), thousandths
  bool can_run = false;  // m can run on the node (node_ok and count_m cards it can use)
};

// F_n(m) over one node's cards; `node_ok` from spec_node_ok.
SpecFragment spec_fragment(const CardsView& cards, const TaskSpec& spec, bool node_ok) {
  int64_t all = 0, unusable = 0;
  int usable = 0;
  for (size_t g = 0; g < cards.free.size(); ++g) {
    all += cards.free[g];
    if (spec_can_use(spec, node_ok, cards, g))
      ++usable;
    else
      unusable += cards.free[g];
  }
  const bool can_run = spec.gpu_count > 0 && node_ok && usable >= spec.gpu_count;
  return SpecFragment{can_run ? unusable : all, can_run};
}

}  // namespace

TaskSpec task_spec(const PodRequest& pod, int card_mem_gib) {
  TaskSpec spec;
  spec.cpu_milli = pod.cpu_milli;
  if (pod.gpu.kind == GpuAskKind::None) return spec;
  spec.gpu_milli = ask_card_milli(pod.gpu, card_mem_gib);  // memory shares: display / ordering only
  spec.gpu_count = pod.gpu.count;
  spec.gpu_type_mask = pod.gpu_type_mask;
  if (pod.gpu.kind == GpuAskKind::Mem) spec.mem_gib = pod.gpu.mem_gib;
  for (const NodeMode mode : kNodeModes) {
    if (!mode_accepts(mode, pod.gpu)) continue;
    spec.mode_mask = static_cast<uint8_t>(spec.mode_mask | (1u << static_cast<int>(mode)));
  }
  return spec;
}

bool spec_serves_mode(const TaskSpec& spec, NodeMode mode) {
  return spec.mode_mask == 0 || ((spec.mode_mask >> static_cast<int>(mode)) & 1u) != 0;
}

int64_t TargetWorkload::mode_weight(NodeMode mode) const {
  int64_t total = 0;
  for (size_t m = 0; m < specs.size(); ++m)
    if (spec_serves_mode(specs[m], mode)) total += weights[m];
  return total;
}

TargetWorkload derive_target_workload(const std::vector<TaskSpec>& tasks, double coverage) {
  std::map<TaskSpec, int64_t> counts;
  for (const TaskSpec& task : tasks) ++counts[task];
  std::vector<std::pair<TaskSpec, int64_t>> ranked(counts.begin(), counts.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  TargetWorkload workload;
  workload.tasks_seen = static_cast<int64_t>(tasks.size());
  for (const auto& [spec, count] : ranked) {
    if (static_cast<double>(workload.weight_total) >= coverage * static_cast<double>(tasks.size())) break;
    workload.specs.push_back(spec);
    workload.weights.push_back(count);
    workload.weight_total += count;
  }
  return workload;
}

int64_t task_fragmentation_milli(const ShareNode& node, const TaskSpec& spec) {
  std::vector<uint16_t> free(node.cards.size());
  std::vector<uint16_t> free_gib;
  for (size_t g = 0; g < free.size(); ++g) free[g] = static_cast<uint16_t>(card_free_milli(node, static_cast<int>(g)));
  if (accounts_memory(node.mode)) {
    for (size_t g = 0; g < free.size(); ++g) free_gib.push_back(card_free_gib(node, static_cast<int>(g)));
  }
  const bool cpu_fits = node.cpu_milli - node.cpu_used_milli >= spec.cpu_milli;
  const bool node_ok = spec_node_ok(spec, node.mode, node.gpu_type, cpu_fits);
  return spec_fragment(CardsView{node.mode, free, free_gib}, spec, node_ok).milli;
}

double node_fragmentation_gpus(const ShareNode& node, const TargetWorkload& workload) {
  const int64_t mode_weight = workload.mode_weight(node.mode);
  if (mode_weight == 0) return 0;
  double total = 0;
  for (size_t m = 0; m < workload.specs.size(); ++m) {
    if (!spec_serves_mode(workload.specs[m], node.mode)) continue;
    total += static_cast<double>(workload.weights[m]) * static_cast<double>(task_fragmentation_milli(node, workload.specs[m]));
  }
  return total / static_cast<double>(mode_weight) / kMilliPerGpu;
}

// ---- FragmentationTracker: state interning and the memoised F_n(M) --------------------------

// The memo tables (see FragmentationTracker::Memo in the header).
struct FragmentationTracker::Memo {
  struct State {
    NodeMode mode = NodeMode::Milli;
    int gpu_type = 0;
    int card_mem_gib = 0;
    int cpu_bucket = 0;          // thresholds (distinct spec CPU values) at or below free CPU
    std::vector<uint16_t> free;  // free share R_g per card, thousandths, ascending
    // Share / core_mem nodes: free memory of the same cards, GiB (cards sorted by (R_g, GiB));
    // empty on other modes (read as 0), so their states are as compact as the free shares.
    std::vector<uint16_t> free_gib;
    int64_t weighted = 0;     // count-weighted F_n(M), milli
    int64_t unusable = 0;     // milli
    int64_t free_total = 0;   // sum of free, milli
    int next_same_hash = -1;  // the state interned before it under the same hash (state_ids)
  };
  struct Growth {
    bool fits = false;
    int64_t delta = 0;
    // The cards achieving `delta`, by value: card_key (free share, and free GiB where the node
    // accounts memory) of each; a card with one of these keys is a least-growth card.
    std::vector<uint32_t> best_cards;
  };
  // What of a pod decides its growth on a node of a given state: the per-card share and count,
  // or for memory shares the GiB and compute percent (-1: memory only).
  struct Shape {
    int demand = 0;
    int count = 0;
    int mem_gib = 0;
    int core_percent = -1;
    bool memory = false;  // a memory share (GpuAskKind::Mem)
  };
  // Open-addressing map from a packed 64-bit key to an index (the hot lookups: fgd's growth
  // memo, one per candidate node and pod; the states of whole-card nodes, one per node change).
  struct KeyIndex {
    static constexpr uint64_t kEmpty = ~uint64_t{0};
    std::vector<uint64_t> keys;
    std::vector<int32_t> values;
    size_t size = 0;
    int32_t* find_or_insert(uint64_t key, bool& inserted);
  };

  explicit Memo(const TargetWorkload& workload);
  int cpu_bucket(int64_t free_cpu_milli) const;
  int intern(NodeMode mode, int gpu_type, int card_mem_gib, int cpu_bucket, const std::vector<uint16_t>& free,
             const std::vector<uint16_t>& free_gib = {});
  int intern_node(const ShareNode& node);
  std::optional<uint64_t> share_state_key(const ShareNode& node, int card_mem, int bucket);
  void compute_facts(State& state) const;
  const Growth& memo_growth(const ShareNode& node, int state_id, const PodRequest& pod);
  Growth evaluate_growth(int state_id, const Shape& shape, int after_bucket);

  const TargetWorkload* workload;
  std::vector<int64_t> cpu_thresholds;        // distinct spec CPU values, ascending
  std::vector<int> spec_cpu_index;            // per spec: index of its CPU in cpu_thresholds
  std::array<int64_t, kModes> mode_weight{};  // W_mode
  std::vector<State> states;
  std::unordered_map<uint64_t, int> state_ids;  // hash of a state's fields -> the last state interned with it
  // intern_node's buffers, kept across calls (no allocation once grown).
  std::vector<uint16_t> free_buffer, gib_buffer;
  std::vector<uint32_t> packed_buffer;
  KeyIndex growth_index;  // growth memo key -> index into growths
  // Nodes whose cards are each idle or full (free 1000 or 0, modes without memory accounting:
  // every node of a whole-GPU cluster) have a state fixed by a few counts; this maps those
  // counts, packed, to the state, so such a node's change costs no sort or vector hash.
  KeyIndex binary_states;
  // Share nodes whose cards all have the node's card memory: a card's free share follows from
  // its free GiB, so the state is fixed by (GPU type, card memory, cards), the CPU bucket and
  // the sorted free GiB of the cards; this maps those, packed (share_state_key), to the state,
  // so such a node's change costs a sort of a few bytes and one probe instead of a vector hash.
  KeyIndex share_states;
  std::vector<std::array<int, 3>> share_classes;  // (GPU type, card memory, cards), the key's class part
  size_t bucket_bits = 0;                         // bits of the largest CPU bucket (cpu_thresholds.size())
  std::vector<Growth> growths;
  std::unordered_map<int64_t, int> shape_ids;  // (per-card share, count) -> dense id
  int64_t last_shape_key = -1;
  int last_shape_id = -1;
};

FragmentationTracker::Memo::Memo(const TargetWorkload& w) : workload(&w) {
  for (const TaskSpec& spec : w.specs) cpu_thresholds.push_back(spec.cpu_milli);
  std::sort(cpu_thresholds.begin(), cpu_thresholds.end());
  cpu_thresholds.erase(std::unique(cpu_thresholds.begin(), cpu_thresholds.end()), cpu_thresholds.end());
  for (const TaskSpec& spec : w.specs) {
    const auto it = std::lower_bound(cpu_thresholds.begin(), cpu_thresholds.end(), spec.cpu_milli);
    spec_cpu_index.push_back(static_cast<int>(it - cpu_thresholds.begin()));
  }
  for (const NodeMode mode : kNodeModes) mode_weight[static_cast<size_t>(mode)] = w.mode_weight(mode);
  bucket_bits = static_cast<size_t>(std::bit_width(cpu_thresholds.size()));
}

FragmentationTracker::FragmentationTracker(const TargetWorkload& workload, const ShareCluster& cluster,
                                           std::shared_ptr<Memo> memo)
    : memo_(memo && memo->workload == &workload ? std::move(memo) : std::make_shared<Memo>(workload)) {
  assert(!workload.specs.empty() && "FragmentationTracker: empty target workload");
  nodes_.resize(cluster.nodes.size());
  for (size_t n = 0; n < cluster.nodes.size(); ++n) update_node(cluster, static_cast<int>(n));
}

size_t FragmentationTracker::states_known() const { return memo_->states.size(); }

int64_t FragmentationTracker::weight_total() const { return memo_->workload->weight_total; }

int FragmentationTracker::Memo::cpu_bucket(int64_t free_cpu_milli) const {
  return static_cast<int>(std::upper_bound(cpu_thresholds.begin(), cpu_thresholds.end(), free_cpu_milli) -
                          cpu_thresholds.begin());
}

void FragmentationTracker::Memo::compute_facts(State& state) const {
  const auto& specs = workload->specs;
  const CardsView cards{state.mode, state.free, state.free_gib};
  std::vector<char> can_run(specs.size());
  int64_t weighted = 0;
  for (size_t m = 0; m < specs.size(); ++m) {
    const bool node_ok = spec_node_ok(specs[m], state.mode, state.gpu_type, state.cpu_bucket > spec_cpu_index[m]);
    const SpecFragment fragment = spec_fragment(cards, specs[m], node_ok);
    if (spec_serves_mode(specs[m], state.mode)) weighted += workload->weights[m] * fragment.milli;
    can_run[m] = fragment.can_run;
  }
  int64_t unusable = 0;
  for (size_t g = 0; g < state.free.size(); ++g) {
    bool usable = false;
    for (size_t m = 0; m < specs.size() && !usable; ++m) usable = can_run[m] && spec_can_use(specs[m], true, cards, g);
    if (!usable) unusable += state.free[g];
  }
  state.weighted = weighted;
  state.unusable = unusable;
}

int FragmentationTracker::Memo::intern(NodeMode mode, int gpu_type, int card_mem_gib, int bucket,
                                       const std::vector<uint16_t>& free, const std::vector<uint16_t>& free_gib) {
  assert((free_gib.empty() || free_gib.size() == free.size()) && "intern: free_gib is empty or one per card");
  // States are found by a hash of their fields, then compared field by field, so a state seen
  // before costs no allocation.
  Digest64 key;  // collisions are resolved by comparing the states themselves
  for (int64_t field : {static_cast<int64_t>(mode), int64_t{gpu_type}, int64_t{card_mem_gib}, int64_t{bucket}})
    key.add_word(static_cast<uint64_t>(field));
  key.add_word(free.size());  // the mode fixes whether free_gib is present
  for (uint16_t v : free) key.add_word(v);
  for (uint16_t v : free_gib) key.add_word(v);
  const auto at = state_ids.try_emplace(key.value(), -1).first;
  for (int id = at->second; id >= 0; id = states[static_cast<size_t>(id)].next_same_hash) {
    const State& st = states[static_cast<size_t>(id)];
    if (st.mode == mode && st.gpu_type == gpu_type && st.card_mem_gib == card_mem_gib && st.cpu_bucket == bucket &&
        st.free == free && st.free_gib == free_gib)
      return id;
  }
  const int id = static_cast<int>(states.size());
  State state{mode, gpu_type, card_mem_gib, bucket, free, free_gib, 0, 0, 0, at->second};
  compute_facts(state);
  state.free_total = std::accumulate(free.begin(), free.end(), int64_t{0});
  states.push_back(std::move(state));
  at->second = id;
  return id;
}

int FragmentationTracker::Memo::intern_node(const ShareNode& node) {
  const size_t cards = node.cards.size();
  const int card_mem = node.cards.empty() ? 0 : node.cards.front().mem_total_gib;
  const int bucket = cpu_bucket(node.cpu_milli - node.cpu_used_milli);
  if (!accounts_memory(node.mode) && cards < 256 && node.gpu_type >= 0 && node.gpu_type < 256 && card_mem >= 0 &&
      card_mem < 65536 && bucket < 4096) {
    // A node whose cards are each idle or wholly taken is known by how many are free: its state is
    // looked up by those counts (packed: mode, GPU type, card memory, CPU bucket, cards, free).
    size_t free_cards = 0;
    bool binary = true;
    for (size_t g = 0; g < cards && binary; ++g) {
      const int used = node.cards[g].milli_used;
      free_cards += used == 0 ? 1 : 0;
      binary = used == 0 || used == kMilliPerGpu;
    }
    if (binary) {
      const uint64_t key = (static_cast<uint64_t>(node.mode) << 52) | (static_cast<uint64_t>(node.gpu_type) << 44) |
                           (static_cast<uint64_t>(card_mem) << 28) | (static_cast<uint64_t>(bucket) << 16) |
                           (static_cast<uint64_t>(cards) << 8) | free_cards;
      bool inserted = false;
      int32_t* slot = binary_states.find_or_insert(key, inserted);
      if (!inserted) return *slot;
      std::vector<uint16_t>& free = free_buffer;
      free.assign(cards, 0);
      std::fill(free.end() - static_cast<std::ptrdiff_t>(free_cards), free.end(), static_cast<uint16_t>(kMilliPerGpu));
      gib_buffer.clear();
      const int id = intern(node.mode, node.gpu_type, card_mem, bucket, free, gib_buffer);
      *slot = id;  // intern touches states, never this table
      return id;
    }
  }
  std::optional<uint64_t> share_key;
  int32_t* share_slot = nullptr;
  if (node.mode == NodeMode::Share && (share_key = share_state_key(node, card_mem, bucket))) {
    bool inserted = false;
    share_slot = share_states.find_or_insert(*share_key, inserted);
    if (!inserted) return *share_slot;
  }
  std::vector<uint16_t>& free = free_buffer;
  std::vector<uint16_t>& free_gib = gib_buffer;
  free.resize(cards);
  free_gib.clear();
  for (size_t g = 0; g < cards; ++g) free[g] = static_cast<uint16_t>(card_free_milli(node, static_cast<int>(g)));
  if (accounts_memory(node.mode)) {
    for (size_t g = 0; g < cards; ++g) free_gib.push_back(card_free_gib(node, static_cast<int>(g)));
  }
  sort_cards(free, free_gib, packed_buffer);
  const int id = intern(node.mode, node.gpu_type, card_mem, bucket, free, free_gib);
  if (share_slot) *share_slot = id;  // intern touches states, never this table
  return id;
}

// The packed key of a share node's state (see share_states): class index (8 bits), CPU bucket
// (bucket_bits: enough for every bucket of the workload), then the cards' free GiB in ascending
// order, bit_width(card memory) bits each, in the 56 - bucket_bits bits left; nullopt where the
// node does not fit it (cards of other memory, a card used past its memory, too many cards, 255
// classes). Ascending GiB is the state's card order: on a share node
// R_g = floor(1000 x free GiB / card GiB) rises with the GiB.
std::optional<uint64_t> FragmentationTracker::Memo::share_state_key(const ShareNode& node, int card_mem, int bucket) {
  constexpr size_t kClassShift = 56;
  const size_t cards = node.cards.size();
  if (card_mem <= 0 || card_mem >= 65536 || cards == 0 || bucket_bits > kClassShift - 8) return std::nullopt;
  const size_t card_bits = kClassShift - bucket_bits;
  const auto bits = static_cast<size_t>(std::bit_width(static_cast<unsigned>(card_mem)));
  if (cards * bits > card_bits) return std::nullopt;
  std::array<uint16_t, kClassShift> gib;  // the first `cards` are set below
  for (size_t g = 0; g < cards; ++g) {
    const CardState& c = node.cards[g];
    const int free = c.mem_total_gib - c.mem_used_gib;
    if (c.mem_total_gib != card_mem || free < 0 || free > card_mem) return std::nullopt;
    // Insertion sort: a node has a handful of cards.
    size_t at = g;
    for (; at > 0 && gib[at - 1] > free; --at) gib[at] = gib[at - 1];
    gib[at] = static_cast<uint16_t>(free);
  }
  const std::array<int, 3> share_class{node.gpu_type, card_mem, static_cast<int>(cards)};
  const auto found = std::find(share_classes.begin(), share_classes.end(), share_class);
  if (found == share_classes.end() && share_classes.size() >= 255) return std::nullopt;  // the key is never KeyIndex::kEmpty
  const auto class_index = static_cast<uint64_t>(found - share_classes.begin());
  if (found == share_classes.end()) share_classes.push_back(share_class);
  uint64_t key = (class_index << kClassShift) | (static_cast<uint64_t>(bucket) << card_bits);
  for (size_t g = 0; g < cards; ++g) key |= static_cast<uint64_t>(gib[g]) << (g * bits);
  return key;
}

void FragmentationTracker::update_node(const ShareCluster& cluster, int node) {
  if (change_log_.size() >= 4 * nodes_.size() + 1024) {  // readers that far behind re-evaluate every node anyway
    log_begin_ += change_log_.size();
    change_log_.clear();
  }
  change_log_.push_back(node);
  const ShareNode& n = cluster.nodes[static_cast<size_t>(node)];
  NodeFacts& facts = nodes_[static_cast<size_t>(node)];
  total_weighted_ -= facts.weighted;
  mode_weighted_[static_cast<size_t>(facts.mode)] -= facts.weighted;
  total_unusable_ -= facts.unusable;
  total_free_ -= facts.free;
  total_idle_ -= facts.idle;
  facts.state = memo_->intern_node(n);
  const Memo::State& state = memo_->states[static_cast<size_t>(facts.state)];
  facts.mode = static_cast<int>(state.mode);
  facts.weighted = state.weighted;
  facts.unusable = state.unusable;
  facts.free = state.free_total;
  facts.idle = node_idle_cards(n);
  total_weighted_ += facts.weighted;
  mode_weighted_[static_cast<size_t>(facts.mode)] += facts.weighted;
  total_unusable_ += facts.unusable;
  total_free_ += facts.free;
  total_idle_ += facts.idle;
}

double FragmentationTracker::fragmentation_gpus() const {
  double total = 0;  // one mode (the trace's clusters): exactly weighted / (W x 1000)
  const auto& mode_weight = memo_->mode_weight;
  for (size_t mode = 0; mode < mode_weight.size(); ++mode) {
    if (mode_weight[mode] > 0)
      total += static_cast<double>(mode_weighted_[mode]) / (static_cast<double>(mode_weight[mode]) * kMilliPerGpu);
  }
  return total;
}

double FragmentationTracker::fragmentation_rate() const { return fragmentation_rate(fragmentation_gpus()); }
double FragmentationTracker::fragmentation_rate(double fragmentation_gpus) const {
  return total_free_ > 0 ? fragmentation_gpus / free_gpus() : 0.0;
}

double FragmentationTracker::free_gpus() const { return static_cast<double>(total_free_) / kMilliPerGpu; }
double FragmentationTracker::unusable_gpus() const { return static_cast<double>(total_unusable_) / kMilliPerGpu; }
int FragmentationTracker::idle_cards() const { return total_idle_; }

// ---- FGD: fragmentation growth of a placement ------------------------------------------------

std::optional<int64_t> FragmentationTracker::placement_growth(const ShareCluster& cluster, int node, const PodRequest& pod) {
  const ShareNode& n = cluster.nodes[static_cast<size_t>(node)];
  if (!node_fits(n, pod)) return std::nullopt;
  const Memo::Growth& growth = memo_->memo_growth(n, nodes_[static_cast<size_t>(node)].state, pod);
  return growth.fits ? std::optional(growth.delta) : std::nullopt;
}

const FragmentationTracker::Memo::Growth& FragmentationTracker::Memo::memo_growth(const ShareNode& node, int state_id,
                                                                                  const PodRequest& pod) {
  Shape shape;
  int64_t shape_key = 0;
  if (pod.gpu.kind == GpuAskKind::Mem) {
    // The GiB and compute percent decide a memory share's fit and what a card has left after it
    // (its per-card milli is only a rounded view of them).
    shape = Shape{0, 1, pod.gpu.mem_gib, pod.gpu.core_percent.value_or(-1), true};
    shape_key = (int64_t{1} << 40) | (int64_t{shape.mem_gib} << 8) | (shape.core_percent + 1);
  } else {
    shape.count = pod.gpu.kind == GpuAskKind::None ? 0 : pod.gpu.count;
    shape.demand = ask_card_milli(pod.gpu, 0);  // whole cards and milli shares: no card memory involved
    shape_key = int64_t{shape.demand} * 4096 + shape.count;
  }
  if (shape_key != last_shape_key) {  // a policy asks about one pod for every node in a row
    last_shape_key = shape_key;
    last_shape_id = shape_ids.try_emplace(shape_key, static_cast<int>(shape_ids.size())).first->second;
  }
  const int after_bucket = cpu_bucket(node.cpu_milli - node.cpu_used_milli - pod.cpu_milli);
  assert(last_shape_id < (1 << 16) && after_bucket < (1 << 16) && "growth memo key overflow");
  const uint64_t key = (static_cast<uint64_t>(state_id) << 32) | (static_cast<uint64_t>(last_shape_id) << 16) |
                       static_cast<uint64_t>(after_bucket);
  bool inserted = false;
  int32_t* slot = growth_index.find_or_insert(key, inserted);
  if (!inserted) return growths[static_cast<size_t>(*slot)];
  *slot = static_cast<int32_t>(growths.size());
  const size_t index = growths.size();
  Growth growth = evaluate_growth(state_id, shape, after_bucket);  // may intern states, not growths
  growths.push_back(std::move(growth));
  return growths[index];
}

int32_t* FragmentationTracker::Memo::KeyIndex::find_or_insert(uint64_t key, bool& inserted) {
  if (2 * (size + 1) > keys.size()) {  // keep the load factor at most 1/2
    std::vector<uint64_t> old_keys = std::move(keys);
    std::vector<int32_t> old_values = std::move(values);
    keys.assign(std::max<size_t>(1024, 2 * old_keys.size()), kEmpty);
    values.assign(keys.size(), -1);
    size = 0;
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_keys[i] == kEmpty) continue;
      bool unused = false;
      *find_or_insert(old_keys[i], unused) = old_values[i];
    }
  }
  const size_t mask = keys.size() - 1;
  // splitmix64 finaliser: spreads the packed fields over the table.
  uint64_t h = key + 0x9E3779B97F4A7C15ULL;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  h ^= h >> 31;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (keys[i] == key) {
      inserted = false;
      return &values[i];
    }
    if (keys[i] == kEmpty) {
      keys[i] = key;
      ++size;
      inserted = true;
      return &values[i];
    }
  }
}

FragmentationTracker::Memo::Growth FragmentationTracker::Memo::evaluate_growth(int state_id, const Shape& shape,
                                                                               int after_bucket) {
  // Copy what we need: interning below may grow states.
  const State before = states[static_cast<size_t>(state_id)];
  const bool memory = accounts_memory(before.mode);
  std::vector<uint16_t> free, free_gib;
  std::vector<uint32_t> packed;
  // The state after the pod: cards in a state's order (sort_cards, as intern_node).
  auto growth_of = [&]() {
    sort_cards(free, free_gib, packed);
    const int id = intern(before.mode, before.gpu_type, before.card_mem_gib, after_bucket, free, free_gib);
    return states[static_cast<size_t>(id)].weighted - before.weighted;
  };
  auto reset = [&]() {
    free = before.free;
    free_gib = before.free_gib;
  };
  Growth growth;
  if (shape.count == 0) {
    reset();
    return Growth{true, growth_of(), {}};
  }
  if (shape.count > 1) {
    // Whole cards only (modes without memory accounting): the `count` largest values must be
    // idle cards (1000).
    const auto idle = std::count(before.free.begin(), before.free.end(), static_cast<uint16_t>(kMilliPerGpu));
    if (idle < shape.count) return growth;
    reset();
    std::fill(free.end() - shape.count, free.end(), uint16_t{0});
    return Growth{true, growth_of(), {}};
  }
  for (size_t i = 0; i < before.free.size(); ++i) {
    const uint16_t milli = before.free[i];
    const uint16_t gib = memory ? before.free_gib[i] : uint16_t{0};
    if (i > 0 && before.free[i - 1] == milli && (!memory || before.free_gib[i - 1] == gib))
      continue;  // one try per distinct card
    reset();
    if (shape.memory) {
      // card_fits of a memory share: the GiB, and on core_mem nodes the compute percent.
      const int compute = shape.core_percent < 0 ? 0 : 10 * shape.core_percent;
      if (!memory || gib < shape.mem_gib || (before.mode == NodeMode::CoreMem && milli < compute)) continue;
      const int gib_after = gib - shape.mem_gib;
      free_gib[i] = static_cast<uint16_t>(gib_after);
      // card_free_milli: share nodes by memory, core_mem nodes by compute.
      free[i] = static_cast<uint16_t>(before.mode == NodeMode::Share
                                          ? (before.card_mem_gib > 0 ? kMilliPerGpu * gib_after / before.card_mem_gib : 0)
                                          : milli - compute);
    } else {
      if (milli < shape.demand) continue;
      free[i] = static_cast<uint16_t>(milli - shape.demand);
    }
    const int64_t delta = growth_of();
    if (!growth.fits || delta < growth.delta) growth = Growth{true, delta, {}};
    if (delta == growth.delta) growth.best_cards.push_back(card_key(milli, gib));
  }
  return growth;
}

std::vector<int> FragmentationTracker::least_growth_cards(const ShareCluster& cluster, int node, const PodRequest& pod) {
  const ShareNode& n = cluster.nodes[static_cast<size_t>(node)];
  if (pod.gpu.kind == GpuAskKind::None) return {};
  if (pod.gpu.count > 1 || pod.gpu.kind == GpuAskKind::Whole) return lowest_idle_cards(n, pod.gpu.count);
  const Memo::Growth& growth = memo_->memo_growth(n, nodes_[static_cast<size_t>(node)].state, pod);
  for (int g = 0; g < static_cast<int>(n.cards.size()); ++g) {
    const uint32_t key = card_key(static_cast<uint16_t>(card_free_milli(n, g)), card_free_gib(n, g));
    if (card_fits(n, g, pod.gpu) &&
        std::find(growth.best_cards.begin(), growth.best_cards.end(), key) != growth.best_cards.end()) {
      return {g};
    }
  }
  return {};
}

}  // namespace topsim
