#include "sim/failures.h"

#include <cassert>
#include <cmath>

#include "sim/seeds.h"
#include "util/number_format.h"

namespace topsim {
namespace {

// Meta, "The Llama 3 Herd of Models" (arXiv 2407.21783), §3.3.4 and Table 5: 419 unexpected
// interruptions in a 54-day snapshot of pre-training on 16,384 H100 GPUs, 8 per server (§3.3.1),
// so 2,048 servers; taken as all of them for all 54 days. Counts, not the printed percentages
// (148 faulty GPUs is 35.3% of 419, not the printed 30.1%; only the counts add up to 419).
constexpr double kLlama3NodeHours = 2048.0 * 54 * 24;
constexpr double kLlama3GpuHours = kLlama3NodeHours * 8;
constexpr double kLlama3Gpu = 148 + 19 + 17 + 6 + 6;  // faulty GPU, SRAM, system processor, SDC, thermal
constexpr double kLlama3Hbm = 72;
constexpr double kLlama3Network = 35 + 7;                   // switch/cable, NIC
constexpr double kLlama3Host = 32 + 3 + 3 + 2 + 2 + 2 + 2;  // host maintenance, SSD, PSU, chassis, IO board, CPU, memory
constexpr double kLlama3Software = 54 + 2 + 7;              // software bug, dependency, NCCL watchdog

// Kokolis et al., "Revisiting Reliability in Large-Scale Machine Learning Research Clusters"
// (arXiv 2410.21680, HPCA 2025): RSC-1 (A100, 8 per server) 6.50 failures per 1,000 node-days.
// The paper gives no rate per cause in its text: the total is split by Llama 3's shares (an
// assumption, stated in the rates' source).
constexpr double kRsc1PerNodeHour = 6.50 / 1000 / 24;

// Repair times are this project's assumptions (no GPU fleet study publishes their distribution):
// a GPU or HBM fault drains the node until the board is swapped, a day; a network or host fault a
// few hours; a software fault leaves the node healthy (the job restarts at once). Spread: lognormal
// sigma 1 (Schroeder and Gibson, DSN 2006, for the shape).
constexpr RepairTime kBoardSwap{24, 1}, kNetworkFix{4, 1}, kHostFix{8, 1}, kNoRepair{0, 0};

FailureRates llama3_rates(double scale, std::string source) {
  FailureRates r;
  auto set = [&](FailureCause c, double per_gpu, double per_node, RepairTime repair) {
    r.causes[static_cast<size_t>(c)] = {per_gpu * scale, per_node * scale, repair};
  };
  set(FailureCause::Gpu, kLlama3Gpu / kLlama3GpuHours, 0, kBoardSwap);
  set(FailureCause::Hbm, kLlama3Hbm / kLlama3GpuHours, 0, kBoardSwap);
  set(FailureCause::Network, 0, kLlama3Network / kLlama3NodeHours, kNetworkFix);
  set(FailureCause::Host, 0, kLlama3Host / kLlama3NodeHours, kHostFix);
  set(FailureCause::Software, 0, kLlama3Software / kLlama3NodeHours, kNoRepair);
  r.source = std::move(source);
  return r;
}

// A standard normal draw from two uniforms (Box-Muller), the project's own arithmetic.
double standard_normal(std::mt19937_64& rng) {
  const double u1 = 1 - uniform01(rng), u2 = uniform01(rng);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

// Failures draw from streams of their own (sim/seeds.h): the run seed XOR this constant (2^64 /
// sqrt(2), rounded to odd: any odd constant unlike the others would do), mixed with the node's index.
constexpr uint64_t kFailureStream = 0xB504F333F9DE6485ULL;

// The stream of node `node`: the run seed mixed with the node's index (SplitMix64's finaliser).
uint64_t node_stream_seed(uint64_t run_seed, int node) {
  uint64_t z = run_seed ^ kFailureStream ^ (static_cast<uint64_t>(node) * 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

double FailureRates::per_node_hour(int gpus) const {
  double total = 0;
  for (const CauseRate& c : causes) total += c.per_gpu_hour * gpus + c.per_node_hour;
  return total;
}

std::optional<FailureRates> default_failure_rates(const GpuModel& gpu) {
  if (gpu.sm == 90)
    return llama3_rates(1, "Llama 3 (arXiv 2407.21783, Table 5): 419 interruptions on 2,048 H100 servers in 54 days");
  if (gpu.sm == 80)
    return llama3_rates(kRsc1PerNodeHour / ((kLlama3Gpu + kLlama3Hbm) * 8 / kLlama3GpuHours +
                                            (kLlama3Network + kLlama3Host + kLlama3Software) / kLlama3NodeHours),
                        "Kokolis et al. (arXiv 2410.21680): 6.50 failures per 1,000 A100 node-days (RSC-1), split by "
                        "cause as in Llama 3 (an assumption)");
  return std::nullopt;
}

FailureRates resolve_failure_rates(const FailureSpec& spec, const GpuModel* gpu) {
  FailureRates rates;
  if (gpu)
    if (auto built_in = default_failure_rates(*gpu)) rates = std::move(*built_in);
  bool changed = false;
  for (size_t c = 0; c < kFailureCauses; ++c) {
    if (!spec.overrides[c]) continue;
    const CauseOverride& o = *spec.overrides[c];
    CauseRate& rate = rates.causes[c];
    if (o.per_gpu_hour || o.per_node_hour) {
      rate.per_gpu_hour = o.per_gpu_hour.value_or(0);
      rate.per_node_hour = o.per_node_hour.value_or(0);
      changed = true;
    }
    if (o.repair) rate.repair = *o.repair;
  }
  for (CauseRate& rate : rates.causes) {
    rate.per_gpu_hour *= spec.scale;
    rate.per_node_hour *= spec.scale;
  }
  if (changed) rates.source = rates.source.empty() ? "the scenario's rates" : rates.source + ", with the scenario's rates";
  if (spec.scale != 1) rates.source += ", x " + format_number(spec.scale);
  return rates;
}

std::string missing_failure_rates(const FailureSpec& spec, const GpuModel* gpu, const std::string& node_model) {
  if (!spec.draw || (gpu && default_failure_rates(*gpu))) return {};
  for (const auto& o : spec.overrides)
    if (o && (o->per_gpu_hour || o->per_node_hour)) return {};
  return "node model '" + node_model + "' (" + (gpu ? gpu->name : std::string("no catalog GPU")) +
         ") has no built-in failure rates (published fleet studies cover H100-class and A100-class nodes): give "
         "failures.causes, or only a failure trace with \"rates\": \"none\"";
}

NodeFailures::NodeFailures(const FailureSpec& spec, std::vector<FailureRates> rates_by_type, std::vector<int> node_types,
                           std::vector<int> node_gpus, uint64_t run_seed, int64_t start_ms)
    : spec_(spec), rates_(std::move(rates_by_type)), type_of_(std::move(node_types)), gpus_of_(std::move(node_gpus)) {
  const size_t n = type_of_.size();
  down_until_.assign(n, -1);
  next_drawn_ms_.assign(n, -1);
  streams_.reserve(n);
  for (size_t node = 0; node < n; ++node) streams_.emplace_back(node_stream_seed(run_seed, static_cast<int>(node)));
  for (const ReplayedFailure& f : spec.trace) push({start_ms + f.at_ms, f.node, true, f.cause, f.down_ms}, false);
  if (spec.draw)
    for (size_t node = 0; node < n; ++node) draw_next_failure(static_cast<int>(node), start_ms);
  drop_stale();
}

void NodeFailures::push(const NodeEvent& event, bool drawn) { events_.push({event, drawn, seq_++}); }

void NodeFailures::draw_next_failure(int node, int64_t from_ms) {
  const FailureRates& rates = rates_[static_cast<size_t>(type_of_[static_cast<size_t>(node)])];
  const int gpus = gpus_of_[static_cast<size_t>(node)];
  const double total = rates.per_node_hour(gpus);
  if (!(total > 0)) return;
  std::mt19937_64& rng = streams_[static_cast<size_t>(node)];
  const double hours = -std::log(1 - uniform01(rng)) / total;  // exponential: a constant rate
  double pick = uniform01(rng) * total;                        // the cause, by its share of the rate
  FailureCause cause = FailureCause::Software;
  for (size_t c = 0; c < kFailureCauses; ++c) {
    const double rate = rates.causes[c].per_gpu_hour * gpus + rates.causes[c].per_node_hour;
    if (rate > 0 && pick < rate) {
      cause = static_cast<FailureCause>(c);
      break;
    }
    pick -= rate;
  }
  const int64_t at = from_ms + std::max<int64_t>(1, std::llround(hours * 3.6e6));
  next_drawn_ms_[static_cast<size_t>(node)] = at;
  push({at, node, true, cause, draw_repair_ms(node, cause)}, true);
}

int64_t NodeFailures::draw_repair_ms(int node, FailureCause cause) {
  const FailureRates& rates = rates_[static_cast<size_t>(type_of_[static_cast<size_t>(node)])];
  const RepairTime& repair = rates.causes[static_cast<size_t>(cause)].repair;
  std::mt19937_64& rng = streams_[static_cast<size_t>(node)];
  const double z = standard_normal(rng);  // drawn even for a fixed time, so a node's stream does not depend on it
  const double hours = repair.median_h * std::exp(repair.sigma * z);
  return std::llround(hours * 3.6e6);
}

bool NodeFailures::stale(const Pending& p) const {
  const size_t node = static_cast<size_t>(p.event.node);
  if (!p.event.fails) return down_until_[node] != p.event.at_ms;  // an extended outage's earlier repair
  return p.drawn && next_drawn_ms_[node] != p.event.at_ms;        // a drawn failure cancelled by an outage
}

void NodeFailures::drop_stale() {
  while (!events_.empty() && stale(events_.top())) events_.pop();
}

NodeEvent NodeFailures::pop() {
  const NodeEvent e = take();
  drop_stale();
  return e;
}

NodeEvent NodeFailures::take() {
  while (true) {
    assert(!events_.empty());
    const Pending p = events_.top();
    events_.pop();
    if (stale(p)) continue;
    NodeEvent e = p.event;
    const size_t node = static_cast<size_t>(e.node);
    if (!e.fails) {
      down_until_[node] = -1;
      --down_count_;
      if (spec_.draw) draw_next_failure(e.node, e.at_ms);
      return e;
    }
    const int64_t until = e.at_ms + e.down_ms;
    if (down_until_[node] >= 0) {  // a trace line for a node already down: the outage lasts the longer
      if (until > down_until_[node]) {
        down_until_[node] = until;
        push({until, e.node, false, e.cause, 0}, false);
      }
      continue;
    }
    down_until_[node] = until;
    next_drawn_ms_[node] = -1;
    ++down_count_;
    push({until, e.node, false, e.cause, 0}, false);
    return e;
  }
}

}  // namespace topsim
