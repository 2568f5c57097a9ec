#include "core/gpu_share.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <utility>

#include "util/number_format.h"
#include "util/text.h"

namespace topsim {
namespace {

// Brief section 3: the compute share is a multiple of 5, at least 5, at most 100 per card.
constexpr int kCoreStepPercent = 5;
constexpr int kCoreMinPercent = 5;
constexpr int kCoreMaxPercent = 100;

Status reject(std::string reason) { return Error{std::move(reason)}; }

// The checks below name the value only when they reject it: a valid ask (every pod of a replay)
// builds no string.
Status validate_core(int percent) {
  const auto what = [&] { return "aliyun.com/gpu-core.percentage " + std::to_string(percent); };
  if (percent < kCoreMinPercent) return reject(what() + " is below the minimum " + std::to_string(kCoreMinPercent));
  if (percent > kCoreMaxPercent) return reject(what() + " is above the maximum " + std::to_string(kCoreMaxPercent));
  if (percent % kCoreStepPercent != 0) return reject(what() + " is not a multiple of " + std::to_string(kCoreStepPercent));
  return Status::success();
}

Status validate_mem(const GpuAsk& ask, int max_card_mem_gib) {
  const auto what = [&] { return "aliyun.com/gpu-mem " + std::to_string(ask.mem_gib); };
  if (ask.mem_gib <= 0) return reject(what() + " must be positive");
  if (ask.mem_gib > max_card_mem_gib) {
    return reject(what() + " GiB exceeds the largest card's memory (" + std::to_string(max_card_mem_gib) + " GiB)");
  }
  if (ask.core_percent) return validate_core(*ask.core_percent);
  return Status::success();
}

Status validate_milli(const GpuAsk& ask) {
  const auto what = [&] { return "gpu_milli " + std::to_string(ask.milli); };
  if (ask.milli < 0) return reject(what() + " is negative");
  if (ask.milli == 0) return reject(what() + " is below the minimum 1");
  if (ask.milli > kMilliPerGpu) return reject(what() + " is above the maximum 1000 (one card)");
  if (ask.count < 1) return reject("num_gpu " + std::to_string(ask.count) + " must be at least 1");
  if (ask.count > 1 && ask.milli != kMilliPerGpu) {
    return reject("a pod asking " + std::to_string(ask.count) + " GPUs must ask whole GPUs (gpu_milli 1000), got " +
                  std::to_string(ask.milli));
  }
  return Status::success();
}

void add_demand(CardState& card, int demand_milli) {
  if (card.tasks == 0)
    card.demand_milli = demand_milli;
  else if (card.demand_milli != demand_milli)
    card.demand_milli = -1;
  ++card.tasks;
}

// Adds (sign +1) or removes (sign -1) one card's share of the ask.
void account_card(CardState& card, const GpuAsk& ask, int sign) {
  if (ask.kind == GpuAskKind::Mem) {
    card.mem_used_gib += sign * ask.mem_gib;
    card.core_used_percent += sign * ask.core_percent.value_or(0);
  } else {
    card.milli_used += sign * (ask.kind == GpuAskKind::Whole ? kMilliPerGpu : ask.milli);
  }
}

}  // namespace

Expected<NodeMode> parse_node_mode(std::string_view value) {
  if (const auto mode = parse_enum<NodeMode>(value)) return *mode;
  return Error{std::string(kNodeModeLabel) + "=" + std::string(value) +
               ": unknown mode (expected default, topology, share, core_mem or milli)"};
}

Expected<NodeMode> node_mode_from_labels(const std::map<std::string, std::string>& labels) {
  const auto it = labels.find(std::string(kNodeModeLabel));
  return it == labels.end() ? Expected<NodeMode>(NodeMode::Default) : parse_node_mode(it->second);
}

GpuAsk GpuAsk::whole(int cards, bool topology_aware) {
  GpuAsk ask;
  ask.kind = GpuAskKind::Whole;
  ask.count = cards;
  ask.milli = kMilliPerGpu;
  ask.topology_aware = topology_aware;
  return ask;
}

GpuAsk GpuAsk::mem(int gib, std::optional<int> core_percent) {
  GpuAsk ask;
  ask.kind = GpuAskKind::Mem;
  ask.count = 1;
  ask.mem_gib = gib;
  ask.core_percent = core_percent;
  return ask;
}

GpuAsk GpuAsk::milli_share(int milli, int cards) {
  GpuAsk ask;
  ask.kind = GpuAskKind::Milli;
  ask.count = cards;
  ask.milli = milli;
  return ask;
}

Status validate_request(const PodRequest& pod, int max_card_mem_gib) {
  if (pod.cpu_milli < 0) return reject("cpu_milli " + std::to_string(pod.cpu_milli) + " is negative");
  if (pod.memory_mib < 0) return reject("memory_mib " + std::to_string(pod.memory_mib) + " is negative");
  switch (pod.gpu.kind) {
    case GpuAskKind::None: return Status::success();
    case GpuAskKind::Whole:
      if (pod.gpu.count < 1) return reject("GPU count " + std::to_string(pod.gpu.count) + " must be at least 1");
      return Status::success();
    case GpuAskKind::Mem: return validate_mem(pod.gpu, max_card_mem_gib);
    case GpuAskKind::Milli: return validate_milli(pod.gpu);
  }
  return Status::success();
}

int ask_card_milli(const GpuAsk& ask, int card_mem_gib) {
  switch (ask.kind) {
    case GpuAskKind::None: return 0;
    case GpuAskKind::Whole: return kMilliPerGpu;
    case GpuAskKind::Milli: return ask.count > 1 ? kMilliPerGpu : ask.milli;
    case GpuAskKind::Mem:
      if (ask.core_percent) return 10 * *ask.core_percent;
      if (card_mem_gib <= 0) return kMilliPerGpu;
      return std::min(kMilliPerGpu, (kMilliPerGpu * ask.mem_gib + card_mem_gib - 1) / card_mem_gib);
  }
  return 0;
}

int64_t ask_total_milli(const GpuAsk& ask, int card_mem_gib) {
  return ask.kind == GpuAskKind::None ? 0 : int64_t{ask.count} * ask_card_milli(ask, card_mem_gib);
}

ShareNode make_share_node(std::string name, NodeMode mode, int gpu_type, int gpu_count, int card_mem_gib, int64_t cpu_milli,
                          int64_t memory_mib) {
  ShareNode node;
  node.name = std::move(name);
  node.mode = mode;
  node.gpu_type = gpu_type;
  node.cpu_milli = cpu_milli;
  node.memory_mib = memory_mib;
  CardState card;
  card.mem_total_gib = card_mem_gib;
  node.cards.assign(static_cast<size_t>(std::max(0, gpu_count)), card);
  refresh_card_summary(node);
  return node;
}

NodeAllocatable allocatable(const ShareNode& node) {
  NodeAllocatable out;
  out.gpu_count = static_cast<int>(node.cards.size());
  out.gpu_core_percentage = 100 * out.gpu_count;
  for (const CardState& card : node.cards) out.gpu_mem_gib += card.mem_total_gib;
  return out;
}

int card_free_milli(const ShareNode& node, int card) { return card_free_milli(node.mode, node.cards[static_cast<size_t>(card)]); }

void refresh_card_summary(ShareNode& node) {
  int64_t free_milli = 0;
  int max_free = 0, idle = 0;
  const NodeMode mode = node.mode;
  for (const CardState& card : node.cards) {
    const int free = card_free_milli(mode, card);
    free_milli += free;
    max_free = std::max(max_free, free);
    idle += card.tasks == 0 ? 1 : 0;
  }
  node.free_milli = free_milli;
  node.max_card_free_milli = max_free;
  node.idle_cards = idle;
}

bool card_fits(const ShareNode& node, int card, const GpuAsk& ask) {
  const CardState& c = node.cards[static_cast<size_t>(card)];
  if (ask.count > 1 || ask.kind == GpuAskKind::Whole) return c.tasks == 0;
  switch (ask.kind) {
    case GpuAskKind::Mem:
      return c.mem_total_gib - c.mem_used_gib >= ask.mem_gib &&
             (!ask.core_percent || 100 - c.core_used_percent >= *ask.core_percent);
    case GpuAskKind::Milli: return kMilliPerGpu - c.milli_used >= ask.milli;
    default: return false;
  }
}

namespace {

// Whether the node's cards can take the GPU ask (enough idle cards for whole or multi-card asks,
// one card with room for a share); true for CPU-only pods.
inline bool gpu_ask_fits(const ShareNode& node, const GpuAsk& ask) {
  if (ask.kind == GpuAskKind::None) return true;
  if (ask.count > 1 || ask.kind == GpuAskKind::Whole) return node.idle_cards >= ask.count;
  if (ask.kind == GpuAskKind::Milli) return node.max_card_free_milli >= ask.milli;
  int fitting = 0;
  for (int g = 0; g < static_cast<int>(node.cards.size()); ++g) fitting += card_fits(node, g, ask) ? 1 : 0;
  return fitting >= ask.count;
}

// CPU thousandths as cores, host memory MiB as GiB, written as every figure a user reads.
std::string cores(int64_t cpu_milli) { return format_number(cpu_milli / 1000.0) + (cpu_milli == 1000 ? " core" : " cores"); }
std::string gib(int64_t memory_mib) { return format_number(memory_mib / 1024.0) + " GiB"; }

// What a GPU ask needs of one node, and the most of it free on the serving nodes seen.
struct GpuRoom {
  enum class Need { None, IdleCards, CardMilli, CardMem };
  Need need = Need::None;
  std::string asked;            // "2 idle GPUs", "a card with 500 thousandths free", ...
  int most = 0, most_core = 0;  // idle cards / a card's thousandths / a card's GiB; a card's free compute %

  explicit GpuRoom(const GpuAsk& ask) {
    if (ask.kind == GpuAskKind::None) return;
    if (ask.count > 1 || ask.kind == GpuAskKind::Whole) {
      need = Need::IdleCards;
      asked = ask.count == 1 ? "an idle GPU" : std::to_string(ask.count) + " idle GPUs";
    } else if (ask.kind == GpuAskKind::Milli) {
      need = Need::CardMilli;
      asked = ask.milli == kMilliPerGpu ? "a whole free card" : "a card with " + std::to_string(ask.milli) + " thousandths free";
    } else {
      need = Need::CardMem;
      asked = "a card with " + std::to_string(ask.mem_gib) + " GiB" +
              (ask.core_percent ? " and " + std::to_string(*ask.core_percent) + "% of its compute" : "") + " free";
    }
  }
  void see(const ShareNode& node) {
    switch (need) {
      case Need::None: return;
      case Need::IdleCards: most = std::max(most, node.idle_cards); return;
      case Need::CardMilli: most = std::max(most, node.max_card_free_milli); return;
      case Need::CardMem:
        for (const CardState& card : node.cards) {
          most = std::max(most, card.mem_total_gib - card.mem_used_gib);
          most_core = std::max(most_core, 100 - card.core_used_percent);
        }
    }
  }
  std::string most_text(const GpuAsk& ask) const {
    if (need == Need::IdleCards) return "most idle on one node: " + std::to_string(most);
    if (need == Need::CardMilli) return "most free on one card: " + std::to_string(most) + " thousandths";
    return "most free on one card: " + std::to_string(most) + " GiB" +
           (ask.core_percent ? "; most compute free on one card: " + std::to_string(most_core) + "%" : "");
  }
};

}  // namespace

bool node_fits(const ShareNode& node, const PodRequest& pod) {
  if (!mode_accepts(node.mode, pod.gpu) || !type_allowed(node, pod)) return false;
  if (node.cpu_milli - node.cpu_used_milli < pod.cpu_milli) return false;
  if (node.memory_mib - node.memory_used_mib < pod.memory_mib) return false;
  return gpu_ask_fits(node, pod.gpu);
}

std::string no_node_fits_reason(const ShareCluster& cluster, const PodRequest& pod) {
  // Serving nodes by what they lack, bit 0 room on the GPUs, bit 1 CPU, bit 2 host memory: one
  // pass of compares (a fill experiment asks this for every pod that fails).
  std::array<long, 8> by_lack{};
  int64_t most_cpu = 0, most_memory = 0;
  for (const ShareNode& node : cluster.nodes) {
    if (!mode_accepts(node.mode, pod.gpu) || !type_allowed(node, pod)) continue;
    const int64_t cpu_free = node.cpu_milli - node.cpu_used_milli, memory_free = node.memory_mib - node.memory_used_mib;
    most_cpu = std::max(most_cpu, cpu_free);
    most_memory = std::max(most_memory, memory_free);
    const int lack =
        (gpu_ask_fits(node, pod.gpu) ? 0 : 1) | (cpu_free < pod.cpu_milli ? 2 : 0) | (memory_free < pod.memory_mib ? 4 : 0);
    if (lack == 0) return "";
    ++by_lack[static_cast<size_t>(lack)];
  }
  long serving = 0, lack_gpu = 0, lack_cpu = 0, lack_memory = 0;
  for (size_t lack = 1; lack < by_lack.size(); ++lack) {
    serving += by_lack[lack];
    lack_gpu += (lack & 1) ? by_lack[lack] : 0;
    lack_cpu += (lack & 2) ? by_lack[lack] : 0;
    lack_memory += (lack & 4) ? by_lack[lack] : 0;
  }
  const long only_gpu = by_lack[1], only_cpu = by_lack[2], only_memory = by_lack[4],
             several = by_lack[3] + by_lack[5] + by_lack[6] + by_lack[7];
  if (serving == 0)
    return "none of the cluster's " + counted(static_cast<long long>(cluster.nodes.size()), "node") + " serves its pod (" +
           (pod.gpu_type_mask != 0 && pod.gpu.kind != GpuAskKind::None ? "its node mode and GPU types" : "its node mode") + ")";
  GpuRoom room(pod.gpu);
  if (lack_gpu == serving)  // the most room any serving node has: a second pass, when it is named
    for (const ShareNode& node : cluster.nodes)
      if (mode_accepts(node.mode, pod.gpu) && type_allowed(node, pod)) room.see(node);
  std::string asks = room.asked;
  if (pod.cpu_milli > 0) asks += (asks.empty() ? "" : ", ") + cores(pod.cpu_milli);
  if (pod.memory_mib > 0) asks += (asks.empty() ? "" : ", ") + gib(pod.memory_mib) + " of host memory";
  // Each serving node once, by what it lacks.
  std::vector<std::string> parts;
  const auto part = [&](long n, const std::string& what) {
    if (n > 0) parts.push_back(std::to_string(n) + (parts.empty() ? (n == 1 ? " lacks " : " lack ") : " ") + what);
  };
  part(only_gpu, "only room on its GPUs");
  part(only_cpu, "only CPU");
  part(only_memory, "only host memory");
  part(several, "more than one of these");
  // What every serving node lacks, with the most any of them has free: the figure to act on.
  std::vector<std::string> none_has;
  if (lack_gpu == serving) none_has.push_back(room.asked + " (" + room.most_text(pod.gpu) + ")");
  if (lack_cpu == serving) none_has.push_back(cores(pod.cpu_milli) + " free (most on one node: " + cores(most_cpu) + ")");
  if (lack_memory == serving)
    none_has.push_back(gib(pod.memory_mib) + " of host memory free (most on one node: " + gib(most_memory) + ")");
  return (serving == 1 ? "the 1 node serving its pod has no room for it ("
                       : "none of the " + std::to_string(serving) + " nodes serving its pod has room for it (") +
         asks + "): " + join(parts, ", ") + (none_has.empty() ? "" : "; no node has " + join(none_has, ", "));
}

bool gpu_room_somewhere(const ShareCluster& cluster, const PodRequest& pod) {
  return std::any_of(cluster.nodes.begin(), cluster.nodes.end(), [&](const ShareNode& node) {
    return mode_accepts(node.mode, pod.gpu) && type_allowed(node, pod) && gpu_ask_fits(node, pod.gpu);
  });
}

std::vector<int> lowest_idle_cards(const ShareNode& node, int count) {
  std::vector<int> cards;
  for (int g = 0; g < static_cast<int>(node.cards.size()) && static_cast<int>(cards.size()) < count; ++g) {
    if (node.cards[static_cast<size_t>(g)].tasks == 0) cards.push_back(g);
  }
  return cards;
}

void apply_placement(ShareNode& node, const PodRequest& pod, const std::vector<int>& cards) {
  assert(static_cast<int>(cards.size()) == (pod.gpu.kind == GpuAskKind::None ? 0 : pod.gpu.count) &&
         "apply_placement: card count differs from the ask");
  node.cpu_used_milli += pod.cpu_milli;
  node.memory_used_mib += pod.memory_mib;
  ++node.pods;
  for (int g : cards) {
    CardState& card = node.cards[static_cast<size_t>(g)];
    add_demand(card, ask_card_milli(pod.gpu, card.mem_total_gib));
    account_card(card, pod.gpu, +1);
  }
  refresh_card_summary(node);
}

void release_placement(ShareNode& node, const PodRequest& pod, const std::vector<int>& cards) {
  node.cpu_used_milli -= pod.cpu_milli;
  node.memory_used_mib -= pod.memory_mib;
  --node.pods;
  for (int g : cards) {
    CardState& card = node.cards[static_cast<size_t>(g)];
    account_card(card, pod.gpu, -1);
    if (--card.tasks == 0) card.demand_milli = 0;
  }
  refresh_card_summary(node);
}

int64_t ShareCluster::capacity_milli() const {
  int64_t total = 0;
  for (const ShareNode& node : nodes) total += int64_t{kMilliPerGpu} * static_cast<int64_t>(node.cards.size());
  return total;
}

int ShareCluster::max_card_mem_gib() const {
  int best = 0;
  for (const ShareNode& node : nodes) {
    for (const CardState& card : node.cards) best = std::max(best, card.mem_total_gib);
  }
  return best;
}

}  // namespace topsim
