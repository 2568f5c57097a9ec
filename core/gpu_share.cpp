#include "core/gpu_share.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <utility>

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

bool mode_accepts(NodeMode mode, const GpuAsk& ask) {
  switch (ask.kind) {
    case GpuAskKind::None: return true;
    case GpuAskKind::Whole:
      if (ask.topology_aware) return mode == NodeMode::Topology;
      return mode == NodeMode::Default || mode == NodeMode::Milli;
    case GpuAskKind::Mem: return mode == (ask.core_percent ? NodeMode::CoreMem : NodeMode::Share);
    case GpuAskKind::Milli: return mode == NodeMode::Milli;
  }
  return false;
}

bool type_allowed(const ShareNode& node, const PodRequest& pod) {
  if (pod.gpu.kind == GpuAskKind::None || pod.gpu_type_mask == 0) return true;
  return node.gpu_type >= 0 && node.gpu_type < 32 && ((pod.gpu_type_mask >> node.gpu_type) & 1u) != 0;
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

bool node_fits(const ShareNode& node, const PodRequest& pod) {
  if (!mode_accepts(node.mode, pod.gpu) || !type_allowed(node, pod)) return false;
  if (node.cpu_milli - node.cpu_used_milli < pod.cpu_milli) return false;
  if (node.memory_mib - node.memory_used_mib < pod.memory_mib) return false;
  if (pod.gpu.kind == GpuAskKind::None) return true;
  if (pod.gpu.count > 1 || pod.gpu.kind == GpuAskKind::Whole) return node.idle_cards >= pod.gpu.count;
  if (pod.gpu.kind == GpuAskKind::Milli) return node.max_card_free_milli >= pod.gpu.milli;
  int fitting = 0;
  for (int g = 0; g < static_cast<int>(node.cards.size()); ++g) fitting += card_fits(node, g, pod.gpu) ? 1 : 0;
  return fitting >= pod.gpu.count;
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
