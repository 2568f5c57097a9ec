#include "sim/share_replay.h"

#include <cmath>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>

#include "sim/alibaba_trace.h"
#include "sim/json_util.h"
#include "sim/node_source.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;

constexpr double kWorkloadCoverage = 0.95;  // FGD's target workload coverage
constexpr uint64_t kRandomPolicySeed = 1;    // the `random` policy's engine seed
constexpr int64_t kMaxSamplePeriodS = int64_t{1} << 40;

std::string resolve_path(JsonObject& top, const std::string& key, const fs::path& dir, std::string& source) {
  const auto value = top.string(key);
  if (!value) return "";
  source = *value;
  fs::path path(*value);
  if (path.is_relative()) path = dir / path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) top.fail(key, "'" + *value + "': no such file (" + path.string() + ")");
  return path.lexically_normal().string();
}

void read_policies(JsonErrors& errors, const JsonObject& top, ShareReplayScenario& scenario) {
  const auto list = top.member("policies");
  if (!list) {
    for (const std::string& name : share_policy_names()) scenario.policies.push_back(*parse_share_policy(name));
    return;
  }
  if (!list->value->is_array() || list->value->empty()) return top.fail("policies", "must be a non-empty array of policy names");
  for (size_t i = 0; i < list->value->size(); ++i) {
    const JsonAt item = list->element(i);
    const auto name = json_string(errors, item);
    const auto kind = name ? parse_share_policy(*name) : std::nullopt;
    if (name && !kind) errors.fail(item.pointer, "unknown policy '" + *name + "'");
    if (!kind) return;
    if (std::find(scenario.policies.begin(), scenario.policies.end(), *kind) != scenario.policies.end())
      return errors.fail(item.pointer, "policy '" + *name + "' listed twice");
    scenario.policies.push_back(*kind);
  }
}

}  // namespace

Expected<ShareReplayScenario> load_share_replay_scenario(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto json = parse_json_text(*text, path);
  if (!json) return json.error();
  JsonErrors errors(path);
  JsonObject top(errors, JsonAt{&*json, ""},
                 {"mode", "name", "description", "node_list", "pod_list", "policies", "max_pods", "node_fraction", "sample_every_s"});
  if (!top.is_object()) return errors.error();
  ShareReplayScenario scenario;
  if (top.require("mode")) {
    if (auto mode = top.string("mode"); mode && *mode != "share-replay") top.fail("mode", "must be \"share-replay\", got \"" + *mode + "\"");
  }
  scenario.name = top.string("name").value_or(fs::path(path).stem().string());
  scenario.description = top.string("description").value_or("");
  const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (top.require("node_list")) scenario.node_list = resolve_path(top, "node_list", dir, scenario.node_list_source);
  if (top.require("pod_list")) scenario.pod_list = resolve_path(top, "pod_list", dir, scenario.pod_list_source);
  read_policies(errors, top, scenario);
  scenario.max_pods = top.integer("max_pods", 0, INT64_MAX).value_or(scenario.max_pods);
  scenario.node_fraction = top.number("node_fraction", 1e-6, 1).value_or(scenario.node_fraction);
  scenario.sample_every_s = top.integer("sample_every_s", 1, kMaxSamplePeriodS).value_or(scenario.sample_every_s);
  if (errors.failed()) return errors.error();
  return scenario;
}

Expected<ShareReplayInputs> load_share_replay_inputs(const ShareReplayScenario& scenario) {
  ShareReplayInputs inputs;
  int64_t gpu_node_index = 0;
  const Status nodes = read_node_list_file(scenario.node_list, [&](TraceNode&& node) {
    if (node.gpu_count == 0) return;
    const double i = static_cast<double>(gpu_node_index++);
    if (std::floor((i + 1) * scenario.node_fraction) > std::floor(i * scenario.node_fraction))
      inputs.nodes.push_back(trace_share_node(node));
  });
  if (!nodes) return nodes.error();
  for (const ShareNode& node : inputs.nodes) inputs.gpus += static_cast<int>(node.cards.size());
  if (inputs.gpus == 0) return Error{scenario.node_list + ": no GPU nodes"};
  inputs.capacity_milli = int64_t{kMilliPerGpu} * inputs.gpus;
  std::vector<TaskSpec> specs;
  const Status pods = read_pod_list_file(scenario.pod_list, [&](TracePod&& pod) {
    PodRequest request = trace_pod_request(pod);
    specs.push_back(task_spec(request));
    if (pod.creation_time_s < 0 || pod.deletion_time_s < 0) {
      ++inputs.untimed_pods;
      return;
    }
    if (scenario.max_pods > 0 && static_cast<int64_t>(inputs.pods.size()) >= scenario.max_pods) return;
    const int64_t start = pod.scheduled_time_s >= 0 ? pod.scheduled_time_s : pod.creation_time_s;
    inputs.rejected.push_back(validate_request(request, 0) ? 0 : 1);
    inputs.arrival_s.push_back(pod.creation_time_s);
    inputs.run_s.push_back(std::max<int64_t>(0, pod.deletion_time_s - start));
    inputs.names.push_back(pod.name);
    inputs.pods.push_back(request);
  });
  if (!pods) return pods.error();
  if (inputs.pods.empty()) return Error{scenario.pod_list + ": no pods with creation and deletion times"};
  inputs.workload = derive_target_workload(specs, kWorkloadCoverage);
  return inputs;
}

namespace {

// The replay of one policy: cluster state, event queue, wait queue and the sampled curve.
class Replay {
 public:
  Replay(const ShareReplayInputs& inputs, SharePolicyKind kind, int64_t sample_every_s)
      : inputs_(inputs), cluster_{inputs.nodes}, tracker_(inputs.workload, cluster_), every_s_(sample_every_s) {
    auto policy = make_share_policy(kind, SharePolicyContext{kRandomPolicySeed, &tracker_});
    policy_ = std::move(policy).value();  // every kind is valid with a tracker
    run_.policy = kind;
    run_.start_s.assign(inputs.pods.size(), -1);
    placements_.resize(inputs.pods.size());
  }

  ShareReplayRun run() {
    std::vector<size_t> order(inputs_.pods.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return inputs_.arrival_s[a] < inputs_.arrival_s[b]; });
    for (size_t pod : order) push(inputs_.arrival_s[pod], pod, false);
    next_sample_s_ = floor_multiple(inputs_.arrival_s[order.front()]);
    while (!events_.empty()) {
      const Event event = events_.top();
      events_.pop();
      sample_before(event.time_s);
      now_s_ = event.time_s;
      if (event.departure) depart(event.pod);
      else arrive(event.pod);
    }
    sample_before(now_s_ + 1);
    finish();
    return std::move(run_);
  }

 private:
  struct Event {
    int64_t time_s;
    uint64_t seq;
    size_t pod;
    bool departure;
    bool operator>(const Event& other) const { return std::tie(time_s, seq) > std::tie(other.time_s, other.seq); }
  };

  int64_t floor_multiple(int64_t t) const { return (t >= 0 ? t / every_s_ : (t - every_s_ + 1) / every_s_) * every_s_; }
  void push(int64_t time_s, size_t pod, bool departure) { events_.push(Event{time_s, next_seq_++, pod, departure}); }

  // Records every sample time < `time_s` not yet recorded (state after all earlier events).
  void sample_before(int64_t time_s) {
    for (; next_sample_s_ < time_s; next_sample_s_ += every_s_) {
      ShareReplaySample s;
      s.time_s = next_sample_s_;
      s.gpu_alloc_ratio = static_cast<double>(allocated_milli_) / static_cast<double>(inputs_.capacity_milli);
      s.frag_gpus = tracker_.fragmentation_gpus();
      s.frag_rate = tracker_.fragmentation_rate();
      s.pending = static_cast<int64_t>(waiting_.size());
      s.running = running_;
      run_.curve.push_back(s);
    }
  }

  bool try_start(size_t pod) {
    const PodRequest& request = inputs_.pods[pod];
    const auto placement = policy_->place(cluster_, request);
    if (!placement) return false;
    apply_placement(cluster_.nodes[static_cast<size_t>(placement->node)], request, placement->cards);
    tracker_.update_node(cluster_, placement->node);
    allocated_milli_ += ask_total_milli(request.gpu, 0);
    placements_[pod] = *placement;
    run_.start_s[pod] = now_s_;
    ++running_;
    ++run_.pods_placed;
    push(now_s_ + inputs_.run_s[pod], pod, true);
    return true;
  }

  void arrive(size_t pod) {
    if (inputs_.rejected[pod]) {
      ++run_.pods_rejected;
      return;
    }
    if (!try_start(pod)) waiting_.push_back(pod);
    run_.peak_pending = std::max(run_.peak_pending, static_cast<int64_t>(waiting_.size()));
  }

  void depart(size_t pod) {
    const SharePlacement& placement = placements_[pod];
    release_placement(cluster_.nodes[static_cast<size_t>(placement.node)], inputs_.pods[pod], placement.cards);
    tracker_.update_node(cluster_, placement.node);
    allocated_milli_ -= ask_total_milli(inputs_.pods[pod].gpu, 0);
    --running_;
    retry_waiting();
  }

  // Front to back; a request identical to one that failed in this pass is not retried (the
  // cluster only fills up during a pass).
  void retry_waiting() {
    std::vector<std::tuple<int64_t, int64_t, int, int, int, uint32_t>> failed;
    std::vector<size_t> still_waiting;
    for (size_t pod : waiting_) {
      const PodRequest& r = inputs_.pods[pod];
      const auto key = std::make_tuple(r.cpu_milli, r.memory_mib, static_cast<int>(r.gpu.kind), r.gpu.count, r.gpu.milli, r.gpu_type_mask);
      if (std::find(failed.begin(), failed.end(), key) != failed.end() || !try_start(pod)) {
        if (std::find(failed.begin(), failed.end(), key) == failed.end()) failed.push_back(key);
        still_waiting.push_back(pod);
      }
    }
    waiting_.assign(still_waiting.begin(), still_waiting.end());
  }

  void finish() {
    run_.never_placed = static_cast<int64_t>(waiting_.size());
    run_.end_s = now_s_;
    std::vector<int64_t> waits;
    for (size_t pod = 0; pod < inputs_.pods.size(); ++pod) {
      if (run_.start_s[pod] >= 0) waits.push_back(run_.start_s[pod] - inputs_.arrival_s[pod]);
    }
    if (waits.empty()) return;
    std::sort(waits.begin(), waits.end());
    run_.mean_wait_s = static_cast<double>(std::accumulate(waits.begin(), waits.end(), int64_t{0})) / static_cast<double>(waits.size());
    const size_t rank = (waits.size() * 95 + 99) / 100;  // nearest rank, 1-based
    run_.p95_wait_s = static_cast<double>(waits[std::max<size_t>(rank, 1) - 1]);
  }

  const ShareReplayInputs& inputs_;
  ShareCluster cluster_;
  FragmentationTracker tracker_;
  std::unique_ptr<SharePolicy> policy_;
  int64_t every_s_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t next_seq_ = 0;
  int64_t now_s_ = 0;
  int64_t next_sample_s_ = 0;
  int64_t allocated_milli_ = 0;
  int64_t running_ = 0;
  std::vector<size_t> waiting_;  // FIFO
  std::vector<SharePlacement> placements_;
  ShareReplayRun run_;
};

}  // namespace

ShareReplayRun run_share_replay_once(const ShareReplayInputs& inputs, SharePolicyKind policy, int64_t sample_every_s) {
  return Replay(inputs, policy, sample_every_s).run();
}

Expected<ShareReplayResult> run_share_replay(const ShareReplayScenario& scenario) {
  auto inputs = load_share_replay_inputs(scenario);
  if (!inputs) return inputs.error();
  ShareReplayResult result;
  result.scenario = scenario;
  result.nodes = static_cast<int>(inputs->nodes.size());
  result.gpus = inputs->gpus;
  result.pods = inputs->pods.size();
  result.untimed_pods = inputs->untimed_pods;
  for (SharePolicyKind policy : scenario.policies) result.runs.push_back(run_share_replay_once(*inputs, policy, scenario.sample_every_s));
  return result;
}

}  // namespace topsim
