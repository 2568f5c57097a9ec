#include "sim/scenario.h"

#include <array>
#include <filesystem>
#include <map>
#include <optional>

#include "core/builtin_models.h"
#include "sim/alibaba_workload.h"
#include "sim/job_list_json.h"
#include "sim/json_util.h"
#include "sim/node_source.h"
#include "sim/suggest.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;

std::string resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

void read_network(JsonErrors& errors, const JsonAt& at, NetworkSpec& net, SimOptions& options) {
  JsonObject o(errors, at, {"transport", "nic_speed_gbit", "tcp_efficiency", "rdma_efficiency", "nodes_per_rack",
                            "rack_oversubscription"});
  if (auto t = o.string("transport")) {
    if (*t == "tcp") net.transport = NetworkTransport::Tcp;
    else if (*t == "roce") net.transport = NetworkTransport::Roce;
    else if (*t == "ib") net.transport = NetworkTransport::InfiniBand;
    else o.fail("transport", "'" + *t + "' is not one of tcp, roce, ib");
  }
  if (auto v = o.number("nic_speed_gbit", 0.001, 1e6)) net.nic_speed_gbit = *v;
  if (auto v = o.number("tcp_efficiency", 0.01, 1)) options.network.tcp_socket_efficiency = *v;
  if (auto v = o.number("rdma_efficiency", 0.01, 1)) {
    options.network.infiniband_efficiency = *v;
    options.network.roce_efficiency = *v * kRoceFramingRatio;
  }
  if (auto v = o.integer("nodes_per_rack", 0, 100000)) net.nodes_per_rack = static_cast<int>(*v);
  if (auto v = o.number("rack_oversubscription", 1, 1000)) net.rack_oversubscription = *v;
}

// Errors already carrying their context (from the node, trace and job-list readers) pass
// through as they are.
using Verbatim = std::optional<Error>;

void read_node_group(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, ClusterSpec& cluster) {
  JsonObject o(errors, at, {"model", "count", "label", "gpu_model"});
  if (!o.is_object() || !o.require("model")) return;
  NodeGroupSpec group;
  const auto model = o.string("model");
  if (!model) return;
  NodeLoadOptions load;
  if (auto g = o.string("gpu_model")) load.topo_m.gpu_model = *g;
  std::string spec = builtin_model(*model) ? *model : resolve(base_dir, *model);
  // A bare name that is no file (beside the scenario or here) is a mistyped model: load_node
  // answers it with "did you mean" instead of "cannot open '<folder>/<name>'".
  std::error_code ec;
  if (model->find_first_of("/.") == std::string::npos && !fs::exists(spec, ec) && !fs::exists(*model, ec)) spec = *model;
  auto node = load_node(spec, load);
  if (!node) return o.fail("model", node.error().message);
  group.model = std::move(node).value();
  if (auto c = o.integer("count", 1, 100000)) group.count = static_cast<int>(*c);
  if (auto l = o.string("label")) {
    group.label_pinned = true;
    if (*l == "topology") group.label = NodeLabel::Topology;
    else if (*l == "default") group.label = NodeLabel::Default;
    else if (*l == "share") group.label = NodeLabel::Share;
    else if (*l == "core_mem") group.label = NodeLabel::CoreMem;
    else o.fail("label", "'" + *l + "' is not one of topology, default, share, core_mem (ack.node.gpu.schedule)");
  }
  cluster.groups.push_back(std::move(group));
}

void read_cluster(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, Scenario& s) {
  JsonObject o(errors, at, {"nodes", "network"});
  if (!o.is_object() || !o.require("nodes")) return;
  const JsonAt nodes = *o.member("nodes");
  if (!nodes.value->is_array() || nodes.value->empty())
    return errors.fail(nodes.pointer, "must be a non-empty array of node groups");
  for (size_t i = 0; i < nodes.value->size(); ++i) read_node_group(errors, nodes.element(i), base_dir, s.cluster);
  if (auto net = o.member("network")) read_network(errors, *net, s.cluster.network, s.options);
}

// Launches every job as pods of `pod_gpus` GPUs (one process per GPU with MPI/Horovod when 1),
// when its GPU count divides evenly; jobs with explicit unequal pods keep theirs.
void split_into_pods(Workload& workload, int pod_gpus) {
  for (JobSpec& job : workload.jobs) {
    const int total = job.total_gpus();
    if (job.is_share() || !job.unequal_pod_gpus.empty() || total % pod_gpus != 0 || total / pod_gpus > 65535) continue;
    job.workers = static_cast<uint16_t>(total / pod_gpus);
    job.gpus_per_worker = static_cast<uint16_t>(pod_gpus);
  }
}

void read_workload(JsonErrors& errors, Verbatim& verbatim, const JsonAt& at, const std::string& source,
                   const std::string& base_dir, Scenario& s) {
  if (!at.value->is_object()) return errors.fail(at.pointer, "must be an object with a \"kind\" (jobs, synthetic, philly, alibaba)");
  const std::string kind = at.value->contains("kind") && (*at.value)["kind"].is_string() ? (*at.value)["kind"].get<std::string>() : "";
  int pod_gpus = 0;  // 0: keep the workload's pod shapes
  if (at.value->contains("pod_gpus")) {
    if (auto v = json_integer(errors, at.member("pod_gpus"), 1, 65535)) pod_gpus = static_cast<int>(*v);
  }
  if (kind == "jobs") {
    JsonObject o(errors, at, {"kind", "jobs", "pod_gpus"});
    if (!o.require("jobs")) return;
    auto w = read_job_list(*o.member("jobs"), source);
    if (!w) return verbatim.emplace(w.error()), void();
    s.workload = std::move(w).value();
  } else if (kind == "synthetic") {
    SyntheticOptions defaults;
    defaults.seed = s.seed;
    auto options = read_synthetic_options(at, source, defaults, {"kind", "pod_gpus"});
    if (!options) return verbatim.emplace(options.error()), void();
    s.workload = generate_synthetic(*options);
  } else if (kind == "philly") {
    PhillyOptions defaults;
    defaults.seed = s.seed;
    auto philly = read_philly_source(at, source, defaults, {"kind", "pod_gpus"});
    if (!philly) return verbatim.emplace(philly.error()), void();
    auto w = load_philly(resolve(base_dir, philly->path), philly->options);
    if (!w) return errors.fail(at.pointer + "/path", w.error().message);
    s.workload = std::move(w).value();
  } else if (kind == "alibaba") {
    JsonObject o(errors, at, {"kind", "path", "seed", "pod_gpus", "share_card_gib", "share_core"});
    if (!o.require("path")) return;
    AlibabaJobOptions options;
    options.seed = static_cast<uint64_t>(o.integer("seed", 0, INT64_MAX).value_or(static_cast<int64_t>(s.seed)));
    options.share_card_gib = static_cast<int>(o.integer("share_card_gib", 1, 4096).value_or(0));
    if (auto core = o.member("share_core")) {
      if (!core->value->is_boolean()) o.fail("share_core", "must be true or false");
      else if (!o.has("share_card_gib")) o.fail("share_core", "needs \"share_card_gib\" (the card size shares are converted to)");
      else options.share_core = core->value->get<bool>();
    }
    if (errors.failed()) return;
    auto w = load_alibaba_jobs(resolve(base_dir, o.string("path").value_or("")), options);
    if (!w) return errors.fail(at.pointer + "/path", w.error().message);
    s.workload = std::move(w).value();
  } else {
    errors.fail(at.pointer + "/kind", "must be one of jobs, synthetic, philly, alibaba");
  }
  if (pod_gpus > 0) split_into_pods(s.workload, pod_gpus);
}

void read_schedulers(JsonErrors& errors, const JsonAt& at, Scenario& s) {
  if (!at.value->is_array() || at.value->empty()) return errors.fail(at.pointer, "must be a non-empty array of scheduler names");
  s.schedulers.clear();
  for (size_t i = 0; i < at.value->size(); ++i) {
    const auto name = json_string(errors, at.element(i));
    if (!name) return;
    if (*name == "topology-aware") s.schedulers.push_back(SchedulerKind::TopologyAware);
    else if (*name == "default") s.schedulers.push_back(SchedulerKind::Default);
    else return errors.fail(at.element(i).pointer, "'" + *name + "' is not one of topology-aware, default");
  }
}

// Pods of `pod_gpus` GPUs the empty cluster holds at once (memoised per pod size).
int pod_capacity(const ClusterState& cluster, int pod_gpus, std::map<int, int>& memo) {
  auto [it, fresh] = memo.emplace(pod_gpus, 0);
  if (fresh)
    for (int n = 0; n < static_cast<int>(cluster.nodes().size()); ++n) it->second += cluster.gpus_per_node(n) / pod_gpus;
  return it->second;
}

// A job the empty cluster can never hold is an input error, not something to simulate.
void check_fits(JsonErrors& errors, const Scenario& s, const ClusterState& cluster) {
  int largest_node = 0;
  for (int n = 0; n < static_cast<int>(cluster.nodes().size()); ++n) largest_node = std::max(largest_node, cluster.gpus_per_node(n));
  std::map<int, int> capacity;
  std::array<int, kNodeLabelCount> card_mem{};
  for (const SimNode& node : cluster.nodes())
    card_mem[static_cast<size_t>(node.label)] =
        std::max(card_mem[static_cast<size_t>(node.label)], card_mem_gib(cluster.type(node.type).topology->model()));
  for (const JobSpec& job : s.workload.jobs) {
    const std::string name = "job '" + s.workload.job_name(job.id) + "'";
    if (job.is_share()) {
      const NodeLabel label = share_label(job);
      const int mem = card_mem[static_cast<size_t>(label)];
      if (mem == 0)
        return errors.fail("/workload", name + " asks a " + (job.gpu_core_percent > 0 ? "memory + compute" : "memory-only") +
                                            " GPU share, but no node group has \"label\": \"" + node_label_name(label) + "\"");
      if (job.gpu_mem_gib > mem)
        return errors.fail("/workload", name + " asks " + std::to_string(job.gpu_mem_gib) + " GiB of one GPU, the largest card on " +
                                            node_label_name(label) + " nodes has " + std::to_string(mem) + " GiB");
      continue;
    }
    int largest_pod = job.gpus_per_worker;
    for (uint16_t g : job.unequal_pod_gpus) largest_pod = std::max<int>(largest_pod, g);
    if (job.total_gpus() > cluster.total_gpus())
      return errors.fail("/workload", name + " needs " + std::to_string(job.total_gpus()) + " GPUs, the cluster has " +
                                          std::to_string(cluster.total_gpus()));
    if (largest_pod > largest_node)
      return errors.fail("/workload", name + " has a pod of " + std::to_string(largest_pod) + " GPUs, the largest node has " +
                                          std::to_string(largest_node));
    if (job.unequal_pod_gpus.empty() && pod_capacity(cluster, job.gpus_per_worker, capacity) < job.workers)
      return errors.fail("/workload", name + " needs " + std::to_string(job.workers) + " pods of " +
                                          std::to_string(job.gpus_per_worker) + " GPUs, the empty cluster holds " +
                                          std::to_string(pod_capacity(cluster, job.gpus_per_worker, capacity)));
  }
}

}  // namespace

Expected<std::string> scenario_mode(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto json = parse_json_text(*text, path);
  if (!json) return json.error();
  if (json->is_object() && json->contains("mode") && (*json)["mode"].is_string()) return (*json)["mode"].get<std::string>();
  return std::string("replay");
}

Expected<Scenario> parse_scenario(std::string_view text, std::string_view source, const std::string& base_dir) {
  auto json = parse_json_text(text, source);
  if (!json) return json.error();
  JsonErrors errors(source);
  Scenario s;
  s.source = std::string(source);
  s.name = fs::path(std::string(source)).stem().string();
  JsonObject top(errors, JsonAt{&*json, ""}, {"name", "description", "mode", "seed", "cluster", "workload", "schedulers", "queue", "overlap", "record_transitions",
                                                     "share_policy", "sample_every_s"});
  if (!top.is_object()) return errors.error();
  if (auto n = top.string("name")) s.name = *n;
  if (auto d = top.string("description")) s.description = *d;
  if (auto m = top.string("mode"); m && *m != "replay") top.fail("mode", "'" + *m + "' is not replay (fill scenarios load with the fill loader)");
  if (auto seed = top.integer("seed", 0, INT64_MAX)) s.seed = static_cast<uint64_t>(*seed);
  if (top.require("cluster")) read_cluster(errors, *top.member("cluster"), base_dir, s);
  Verbatim verbatim;
  if (top.require("workload")) read_workload(errors, verbatim, *top.member("workload"), std::string(source), base_dir, s);
  if (verbatim) return *verbatim;
  if (auto sch = top.member("schedulers")) read_schedulers(errors, *sch, s);
  if (auto q = top.member("queue")) {
    JsonObject queue(errors, *q, {"backfill"});
    if (auto b = queue.member("backfill")) {
      if (!b->value->is_boolean()) queue.fail("backfill", "must be true or false");
      else s.options.backfill = b->value->get<bool>();
    }
  }
  if (auto ov = top.member("overlap")) {
    JsonObject overlap(errors, *ov, {"tensorflow", "pytorch"});
    if (auto v = overlap.number("tensorflow", 0, 1)) s.options.overlap.tensorflow = *v;
    if (auto v = overlap.number("pytorch", 0, 1)) s.options.overlap.pytorch = *v;
  }
  if (auto rt = top.member("record_transitions")) {
    if (!rt->value->is_boolean()) top.fail("record_transitions", "must be true or false");
    else s.options.record_transitions = rt->value->get<bool>();
  }
  if (auto policy = top.string("share_policy")) {
    if (auto kind = parse_share_policy(*policy)) s.options.share_policy = *kind;
    else if (auto close = closest_name(*policy, share_policy_names())) top.fail("share_policy", "unknown policy '" + *policy + "' (did you mean '" + *close + "'?)");
    else top.fail("share_policy", "unknown policy '" + *policy + "' (known: " + join_names(share_policy_names()) + ")");
  }
  if (auto every = top.number("sample_every_s", 0.001, 1e9)) s.options.sample_every_ms = std::max<int64_t>(1, std::llround(*every * 1000));
  if (errors.failed()) return errors.error();
  auto cluster = ClusterState::build(s.cluster);
  if (!cluster) return Error{std::string(source) + ": " + cluster.error().message};
  check_fits(errors, s, *cluster);
  if (errors.failed()) return errors.error();
  return s;
}

Expected<Scenario> load_scenario(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_scenario(*text, path, fs::path(path).parent_path().string());
}

std::string default_scenario_path(const std::string& repository_root) {
  return (fs::path(repository_root) / "scenarios" / "ack-v100-benchmark.json").string();
}

}  // namespace topsim
