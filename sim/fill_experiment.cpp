#include "sim/fill_experiment.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "sim/alibaba_trace.h"
#include "sim/suggest.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// FGD's experiment: 10 seeds, arrivals up to 130% of GPU capacity, 95% workload coverage.
constexpr int kMaxSeeds = 100000;
constexpr double kMaxTargetLoad = 10.0;
// Separates the random policy's stream from the pod sampling stream of the same seed.
constexpr uint64_t kPolicySeedMix = 0x9E3779B97F4A7C15ULL;

const std::vector<std::string> kScenarioKeys = {"mode", "name", "description", "node_list", "pod_list", "policies",
                                                "seeds", "target_load", "seed", "include_cpu_nodes", "workload_coverage"};

std::string describe(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  const std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

// The first error of a scenario load, prefixed with the file and the JSON path.
class ScenarioReader {
 public:
  ScenarioReader(const Json& root, std::string source) : root_(root), source_(std::move(source)) {}

  void fail(const std::string& pointer, const std::string& what) {
    if (!error_) error_ = Error{source_ + ": " + pointer + ": " + what};
  }
  bool failed() const { return error_.has_value(); }
  const Error& error() const { return *error_; }
  const Json* find(const std::string& key) const {
    const auto it = root_.find(key);
    return it == root_.end() ? nullptr : &*it;
  }

  std::optional<std::string> string(const std::string& key, bool required) {
    const Json* v = find(key);
    if (!v) {
      if (required) fail("/" + key, "missing required key");
      return std::nullopt;
    }
    if (!v->is_string()) fail("/" + key, "must be a string, got " + describe(*v));
    return v->is_string() ? std::optional(v->get<std::string>()) : std::nullopt;
  }
  std::optional<double> number(const std::string& key, double low, double high) {
    const Json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number() || v->get<double>() <= low || v->get<double>() > high) {
      fail("/" + key, "must be a number in (" + trim(low) + ", " + trim(high) + "], got " + describe(*v));
      return std::nullopt;
    }
    return v->get<double>();
  }
  std::optional<int64_t> integer(const std::string& key, int64_t low, int64_t high) {
    const Json* v = find(key);
    if (!v) return std::nullopt;
    const bool fits = v->is_number_integer() && v->get<int64_t>() >= low && v->get<int64_t>() <= high;
    if (!fits) fail("/" + key, "must be an integer in " + std::to_string(low) + ".." + std::to_string(high) + ", got " + describe(*v));
    return fits ? std::optional(v->get<int64_t>()) : std::nullopt;
  }

 private:
  static std::string trim(double x) {
    std::ostringstream out;
    out << x;
    return out.str();
  }
  const Json& root_;
  std::string source_;
  std::optional<Error> error_;
};

// The nearest `shared/traces` folder in `start` or one of its parents.
std::optional<fs::path> find_traces_dir(fs::path start) {
  std::error_code ec;
  for (fs::path dir = fs::absolute(start, ec); !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir / "shared" / "traces", ec)) return dir / "shared" / "traces";
    if (dir == dir.parent_path()) break;
  }
  return std::nullopt;
}

std::string resolve_trace(ScenarioReader& reader, const std::string& key, const std::string& value,
                          const fs::path& scenario_dir, const std::string& traces_dir) {
  fs::path path(value);
  if (path.is_relative()) {
    const std::optional<fs::path> base = traces_dir.empty() ? find_traces_dir(scenario_dir) : fs::path(traces_dir);
    if (!base) {
      reader.fail("/" + key, "'" + value + "' is relative but no shared/traces folder was found above " + scenario_dir.string());
      return "";
    }
    path = *base / path;
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) reader.fail("/" + key, "'" + value + "': no such file (" + path.string() + ")");
  return path.lexically_normal().string();
}

void read_policies(ScenarioReader& reader, FillScenario& scenario) {
  const Json* list = reader.find("policies");
  const std::vector<std::string> names = share_policy_names();
  if (!list) {
    for (const std::string& name : names) scenario.policies.push_back(*parse_share_policy(name));
    return;
  }
  if (!list->is_array() || list->empty()) return reader.fail("/policies", "must be a non-empty array of policy names, got " + describe(*list));
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string pointer = "/policies/" + std::to_string(i);
    const Json& item = (*list)[i];
    const auto kind = item.is_string() ? parse_share_policy(item.get<std::string>()) : std::nullopt;
    if (!kind) {
      const std::string typed = item.is_string() ? item.get<std::string>() : describe(item);
      return reader.fail(pointer, "unknown policy '" + typed + "' (known: " + join_names(names) + ")" + did_you_mean(typed, names));
    }
    if (std::find(scenario.policies.begin(), scenario.policies.end(), *kind) != scenario.policies.end()) {
      return reader.fail(pointer, "policy '" + item.get<std::string>() + "' listed twice");
    }
    scenario.policies.push_back(*kind);
  }
}

void read_scenario(ScenarioReader& reader, const Json& root, const fs::path& file, const std::string& traces_dir,
                   FillScenario& scenario) {
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (std::find(kScenarioKeys.begin(), kScenarioKeys.end(), it.key()) == kScenarioKeys.end()) {
      reader.fail("/" + it.key(), "unknown key (allowed: " + join_names(kScenarioKeys) + ")" + did_you_mean(it.key(), kScenarioKeys));
    }
  }
  const auto mode = reader.string("mode", true);
  if (mode && *mode != "fill") reader.fail("/mode", "must be \"fill\" for a fill scenario, got \"" + *mode + "\"");
  scenario.name = reader.string("name", false).value_or(file.stem().string());
  scenario.description = reader.string("description", false).value_or("");
  const fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  if (const auto nodes = reader.string("node_list", true)) {
    scenario.node_list_source = *nodes;
    scenario.node_list = resolve_trace(reader, "node_list", *nodes, dir, traces_dir);
  }
  if (const auto pods = reader.string("pod_list", true)) {
    scenario.pod_list_source = *pods;
    scenario.pod_list = resolve_trace(reader, "pod_list", *pods, dir, traces_dir);
  }
  read_policies(reader, scenario);
  scenario.seeds = static_cast<int>(reader.integer("seeds", 1, kMaxSeeds).value_or(scenario.seeds));
  scenario.target_load = reader.number("target_load", 0.0, kMaxTargetLoad).value_or(scenario.target_load);
  scenario.seed = static_cast<uint64_t>(reader.integer("seed", 0, INT64_MAX).value_or(static_cast<int64_t>(scenario.seed)));
  scenario.workload_coverage = reader.number("workload_coverage", 0.0, 1.0).value_or(scenario.workload_coverage);
  if (const Json* cpu = reader.find("include_cpu_nodes")) {
    if (!cpu->is_boolean()) reader.fail("/include_cpu_nodes", "must be true or false, got " + describe(*cpu));
    else scenario.include_cpu_nodes = cpu->get<bool>();
  }
}

Expected<Json> parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open"};
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return Json::parse(text.str());
  } catch (const Json::parse_error& e) {
    return Error{path + ": invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what()};
  }
}

}  // namespace

Expected<FillScenario> load_fill_scenario(const std::string& path, const std::string& traces_dir) {
  auto root = parse_file(path);
  if (!root) return root.error();
  if (!root->is_object()) return Error{path + ": /: must be an object, got " + describe(*root)};
  try {
    ScenarioReader reader(*root, path);
    FillScenario scenario;
    read_scenario(reader, *root, fs::path(path), traces_dir, scenario);
    if (reader.failed()) return reader.error();
    return scenario;
  } catch (const Json::exception& e) {  // not expected: accesses above are type-checked
    return Error{path + ": cannot read scenario: " + e.what()};
  }
}

bool is_fill_scenario(const std::string& path) {
  const auto root = parse_file(path);
  return root && root->is_object() && root->contains("mode") && (*root)["mode"] == "fill";
}

// ---- inputs -----------------------------------------------------------------------------------

Expected<FillInputs> load_fill_inputs(const FillScenario& scenario) {
  FillInputs inputs;
  const Status nodes = read_node_list_file(scenario.node_list, [&](TraceNode&& node) {
    if (node.gpu_count > 0 || scenario.include_cpu_nodes) inputs.nodes.push_back(trace_share_node(node));
  });
  if (!nodes) return nodes.error();
  for (const ShareNode& node : inputs.nodes) inputs.gpus += static_cast<int>(node.cards.size());
  if (inputs.gpus == 0) return Error{scenario.node_list + ": no GPU nodes"};
  inputs.capacity_milli = int64_t{kMilliPerGpu} * inputs.gpus;
  std::vector<TaskSpec> specs;
  std::set<std::string> reasons;
  const Status pods = read_pod_list_file(scenario.pod_list, [&](TracePod&& pod) {
    PodRequest request = trace_pod_request(pod);
    const Status valid = validate_request(request, 0);
    inputs.pod_rejected.push_back(valid ? 0 : 1);
    if (!valid && reasons.insert(valid.error().message).second) inputs.rejections.push_back(pod.name + ": " + valid.error().message);
    inputs.pod_gpu_milli.push_back(int64_t{pod.num_gpu} * pod.gpu_milli);
    specs.push_back(task_spec(request));
    inputs.pods.push_back(request);
  });
  if (!pods) return pods.error();
  if (inputs.pods.empty()) return Error{scenario.pod_list + ": no pods"};
  inputs.workload = derive_target_workload(specs, scenario.workload_coverage);
  return inputs;
}

// ---- one run ----------------------------------------------------------------------------------

namespace {

FillPoint snapshot(int load_percent, int64_t allocated_milli, int64_t capacity_milli, const FragmentationTracker& tracker,
                   int64_t failed) {
  FillPoint point;
  point.load_percent = load_percent;
  point.gpu_alloc_ratio = static_cast<double>(allocated_milli) / static_cast<double>(capacity_milli);
  point.frag_gpus = tracker.fragmentation_gpus();
  point.frag_rate = tracker.fragmentation_rate();
  point.unusable_gpus = tracker.unusable_gpus();
  point.idle_cards = tracker.idle_cards();
  point.pods_failed = failed;
  return point;
}

}  // namespace

FillRun run_fill_once(const FillInputs& inputs, SharePolicyKind policy_kind, uint64_t seed, double target_load) {
  ShareCluster cluster{inputs.nodes};
  FragmentationTracker tracker(inputs.workload, cluster);
  auto policy = make_share_policy(policy_kind, SharePolicyContext{seed ^ kPolicySeedMix, &tracker});
  std::mt19937_64 sampler(seed);
  const int64_t capacity = inputs.capacity_milli;
  const auto target_milli = static_cast<int64_t>(std::ceil(target_load * static_cast<double>(capacity)));
  const int last_point = static_cast<int>(std::floor(target_load * 100 + 1e-9));
  FillRun run;
  run.policy = policy_kind;
  run.seed = seed;
  int64_t allocated = 0;
  auto record_crossed = [&]() {
    for (int p = static_cast<int>(run.curve.size()); p <= last_point && run.arrived_milli * 100 >= p * capacity; ++p) {
      run.curve.push_back(snapshot(p, allocated, capacity, tracker, run.pods_failed));
    }
  };
  record_crossed();
  while (run.arrived_milli < target_milli) {
    const size_t index = static_cast<size_t>(sampler() % inputs.pods.size());
    const PodRequest& pod = inputs.pods[index];
    run.last_pod_milli = inputs.pod_gpu_milli[index];
    run.arrived_milli += run.last_pod_milli;
    ++run.pods_arrived;
    if (inputs.pod_rejected[index]) {
      ++run.pods_rejected;
    } else if (const auto placement = (*policy)->place(cluster, pod)) {
      apply_placement(cluster.nodes[static_cast<size_t>(placement->node)], pod, placement->cards);
      tracker.update_node(cluster, placement->node);
      allocated += ask_total_milli(pod.gpu, 0);
      ++run.pods_placed;
    } else {
      ++run.pods_failed;
    }
    record_crossed();
  }
  run.final = snapshot(static_cast<int>(run.arrived_milli * 100 / capacity), allocated, capacity, tracker, run.pods_failed);
  return run;
}

// ---- all runs ---------------------------------------------------------------------------------

Expected<FillResult> run_fill(const FillScenario& scenario, int threads) {
  auto inputs = load_fill_inputs(scenario);
  if (!inputs) return inputs.error();
  FillResult result;
  result.scenario = scenario;
  result.nodes = static_cast<int>(inputs->nodes.size());
  result.gpus = inputs->gpus;
  result.pod_list_size = inputs->pods.size();
  result.workload_specs = inputs->workload.specs.size();
  result.pods_invalid = static_cast<size_t>(std::count(inputs->pod_rejected.begin(), inputs->pod_rejected.end(), 1));
  result.rejections = inputs->rejections;
  const size_t seeds = static_cast<size_t>(scenario.seeds);
  result.runs.resize(scenario.policies.size() * seeds);
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    for (size_t job = next++; job < result.runs.size(); job = next++) {
      result.runs[job] = run_fill_once(*inputs, scenario.policies[job / seeds], scenario.seed + job % seeds, scenario.target_load);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && static_cast<size_t>(t) < result.runs.size(); ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // fewer threads: the remaining jobs run on the threads we have
    }
  }
  worker();
  for (std::thread& thread : pool) thread.join();
  return result;
}

}  // namespace topsim
