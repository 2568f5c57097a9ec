#include "sim/job_timing.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>

#include "core/builtin_models.h"
#include "core/gang.h"
#include "core/llm_estimate.h"
#include "core/llm_links.h"
#include "sim/thread_caches.h"
#include "util/digest.h"

namespace topsim {

JobTimer::JobTimer(const ClusterState& cluster, const NetworkModel& network, const OverlapModel& overlap,
                   const std::string& reference_gpu, std::shared_ptr<const std::vector<LlmJob>> llm_jobs, ThreadCaches* caches)
    : cluster_(cluster), caches_(caches), network_(network), overlap_(overlap), llm_jobs_(std::move(llm_jobs)) {
  if (!reference_gpu.empty()) reference_gpu_ = find_gpu_model(reference_gpu);
}

// ThroughputKey holds every field of CommPath: a field added there must be added to the key.
static_assert(sizeof(CommPath) == 72, "CommPath changed: update JobTimer::ThroughputKey");

size_t JobTimer::ThroughputKeyHash::operator()(const ThroughputKey& k) const {
  Digest64 d;
  for (uint64_t v : {uint64_t(k.model), uint64_t(k.framework), uint64_t(k.batch), uint64_t(k.ranks), uint64_t(k.hosts),
                     uint64_t(k.transport), uint64_t(k.algorithm), uint64_t(k.nvlink_hops), reinterpret_cast<uint64_t>(k.gpu),
                     k.bus_bits, k.ring_bits, k.nvls_bits, k.tree_bits, k.nvls_tuner_bits, k.tree_tuner_bits, k.latency_bits})
    d.add_word(v);
  return static_cast<size_t>(d.value());
}

Expected<ThroughputEstimate> JobTimer::throughput(const JobSpec& job, const NodeType& type, const CommPath& path) const {
  const TrainingJob tj{job.model, job.framework, job.batch_per_gpu, type.gpu};
  const ThroughputKey key{tj.model,
                          static_cast<int>(tj.framework),
                          tj.batch_per_gpu,
                          path.ranks,
                          path.hosts,
                          static_cast<int>(path.transport),
                          static_cast<int>(path.algorithm),
                          path.nvlink_hops,
                          tj.gpu,
                          std::bit_cast<uint64_t>(path.bus_bandwidth_gbps),
                          std::bit_cast<uint64_t>(path.ring_bus_gbps),
                          std::bit_cast<uint64_t>(path.nvls_bus_gbps),
                          std::bit_cast<uint64_t>(path.tree_bus_gbps),
                          std::bit_cast<uint64_t>(path.nvls_tuner_bus_gbps),
                          std::bit_cast<uint64_t>(path.tree_tuner_bus_gbps),
                          std::bit_cast<uint64_t>(path.net_latency_us)};
  if (const auto it = throughputs_.find(key); it != throughputs_.end()) return it->second;
  return throughputs_.emplace(key, estimate_throughput(tj, path, overlap_)).first->second;
}

const NodeType* JobTimer::reference_type(const JobSpec& job) {
  const GpuModel* gpu = job.reference_gpu == kWorkloadReference ? reference_gpu_ : gpu_at(job.reference_gpu);
  if (gpu == nullptr) return nullptr;
  auto [it, fresh] = reference_types_.emplace(gpu->catalog_index, nullptr);
  if (fresh) {
    NodeGroupSpec group;
    group.model = reference_node_model(*gpu);
    group.count = 1;
    // On the cluster's network, as its own nodes.
    auto type = caches_ ? caches_->node_type(group, cluster_.network()) : modelled_type(group, cluster_.network());
    if (type) it->second = std::move(type).value();
  }
  return it->second.get();
}

int JobTimer::ideal_domain_nodes() const {
  const Fabric& fabric = cluster_.fabric();
  if (!fabric.has_nvlink()) return 0;
  const int per_domain =
      fabric.level(0).fanout > 0 ? fabric.level(0).fanout : cluster_.node_count() / std::max(1, fabric.group_count(0));
  return std::max(1, per_domain);
}

int JobTimer::ideal_domain(size_t node) const {
  const int per_domain = ideal_domain_nodes();
  return per_domain > 0 ? static_cast<int>(node) / per_domain : -1;
}

size_t JobTimer::IdealKeyHash::operator()(const IdealKey& k) const {
  Digest64 d;
  for (int v : {k.type_key, k.workers, k.gpus_per_worker, k.model, k.framework, k.batch, k.reference})
    d.add_word(static_cast<uint64_t>(v));
  return static_cast<size_t>(d.value());
}

double JobTimer::ideal_samples_per_sec(const JobSpec& job, const NodeType& type, int type_key) {
  const IdealKey key{type_key,
                     int{job.workers},
                     int{job.gpus_per_worker},
                     int{job.model},
                     static_cast<int>(job.framework),
                     int{job.batch_per_gpu}};
  if (auto it = ideal_cache_.find(key); it != ideal_cache_.end()) return it->second;
  const int node_gpus = type.gpus;
  CommPath path;
  if (job.total_gpus() <= node_gpus) {
    PlacementRequest request;
    request.gpus = job.total_gpus();
    auto placement = type.allocator->place(all_gpus(node_gpus), request);
    if (placement) path = ring_plan_path(placement->ring);
  } else {
    const size_t nodes = static_cast<size_t>((job.total_gpus() + node_gpus - 1) / node_gpus);
    std::vector<GangNode> idle(nodes, GangNode{type.allocator.get(), all_gpus(node_gpus), "", -1});
    for (size_t i = 0; i < idle.size(); ++i) idle[i].nvlink_domain = ideal_domain(i);
    GangRequest request;
    request.workers = job.workers;
    request.gpus_per_worker = job.gpus_per_worker;
    auto placement = place_gang(idle, request, network_);
    if (placement) path = gang_comm_path(*placement, idle);
  }
  auto estimate = throughput(job, type, path);
  const double ideal = estimate ? estimate->samples_per_sec : 0;
  ideal_cache_.emplace(key, ideal);
  return ideal;
}

bool JobTimer::cross_numa(const JobRecord& record) {
  if (record.pods.size() == 1) {  // one pod: whether its GPUs sit on two NUMA nodes
    const PodPlacement& pod = record.pods.front();
    const Topology& topology = *cluster_.type_of(pod.node).topology;
    for (size_t i = 1; i < pod.gpus.size(); ++i)
      if (topology.gpu_numa(pod.gpus[i]) != topology.gpu_numa(pod.gpus.front())) return true;
    return false;
  }
  // (node, NUMA node) of every GPU of the job; a node seen with two NUMA nodes is crossed.
  std::vector<std::pair<int, int>>& numa = numa_buffer_;
  numa.clear();
  for (const PodPlacement& pod : record.pods) {
    const Topology& topology = *cluster_.type_of(pod.node).topology;
    for (int g : pod.gpus) numa.emplace_back(pod.node, topology.gpu_numa(g));
  }
  std::sort(numa.begin(), numa.end());
  for (size_t i = 1; i < numa.size(); ++i)
    if (numa[i].first == numa[i - 1].first && numa[i].second != numa[i - 1].second) return true;
  return false;
}

namespace {

// A run time in whole ms from a double, at most kMaxRunMs (a cast of a larger double is undefined).
int64_t run_ms_of(double ms) {
  if (!(ms < static_cast<double>(kMaxRunMs))) return kMaxRunMs;  // NaN too
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil(ms)));
}

// A job given by a duration on its reference hardware, where that hardware's ideal placement
// runs `reference_rate` and the job's placement t.samples_per_sec: its work and run time.
void time_by_duration(const JobSpec& job, double reference_rate, JobTiming& t) {
  if (job.ideal_duration_ms != kForeverMs && t.samples_per_sec > 0 && reference_rate > 0) {
    t.work_samples = static_cast<double>(job.ideal_duration_ms) / 1e3 * reference_rate;
    t.run_ms = run_ms_of(static_cast<double>(job.ideal_duration_ms) * (reference_rate / t.samples_per_sec));
  } else {
    t.run_ms = job.ideal_duration_ms;
  }
}

}  // namespace

namespace {

// A path's figures as cache-key integers (bandwidth in MB/s).
void push_path(std::vector<int64_t>& key, const CommPath& path) {
  key.push_back(path.ranks);
  key.push_back(path.hosts);
  key.push_back(std::llround(path.bus_bandwidth_gbps * 1e3));
  key.push_back(path.nvlink_hops);
  key.push_back(static_cast<int64_t>(path.algorithm));
  for (const double candidate :
       {path.ring_bus_gbps, path.nvls_bus_gbps, path.tree_bus_gbps, path.nvls_tuner_bus_gbps, path.tree_tuner_bus_gbps})
    key.push_back(std::llround(candidate * 1e3));
  key.push_back(std::llround(path.net_latency_us * 1e3));
}

}  // namespace

std::shared_ptr<const LlmStep> JobTimer::llm_step_on(const JobSpec& job, const NodeType& type, const LlmLinks& links,
                                                     const ParallelConfig& config) {
  const uint16_t llm = job.llm;
  // An automatic job's layout depends on the GPU it is fitted to: the key holds it.
  std::vector<int64_t> key{llm,       job.total_gpus(), type.gpu ? type.gpu->catalog_index : -1, config.micro_batch,
                           config.tp, config.pp};
  for (const CommPath* path : {&links.tp, &links.cp, &links.dp, &links.ep, &links.pp}) push_path(key, *path);
  auto [it, fresh] = llm_steps_.emplace(std::move(key), nullptr);
  if (fresh && type.gpu) {
    const LlmJob& spec = (*llm_jobs_)[llm];
    auto step = llm_step(*spec.model, config, *type.gpu, links);
    if (step) it->second = std::make_shared<const LlmStep>(*step);
  }
  return it->second;
}

double JobTimer::idle_llm_rate(const JobSpec& job, const NodeType& type, const ParallelConfig& config) {
  auto sites = idle_rank_sites(*type.allocator, config.gpus());
  if (!sites) return 0;
  std::vector<LinkNode> nodes(static_cast<size_t>(sites->back().node) + 1,
                              LinkNode{type.allocator.get(), type.primary_nic_gbit, -1});
  LinkOptions options;
  options.net = network_;
  // On multi-node NVLink domains the faster of the default layouts (core/llm_estimate.h), as
  // `topsim estimate` takes; else the nodes alone.
  const int domain_nodes = ideal_domain_nodes();
  const std::vector<int> segments =
      domain_nodes > 0 ? default_segments(domain_nodes, static_cast<int>(nodes.size())) : std::vector<int>{0};
  double rate = 0;
  for (int segment : segments) {
    assign_domains(nodes, segment > 0 ? segment_fill(domain_nodes, segment) : 0);
    auto links = llm_links(config, *sites, nodes, options);
    if (!links) continue;
    if (auto step = llm_step_on(job, type, *links, config)) rate = std::max(rate, step->tokens_per_sec);
  }
  return rate;
}

const JobTimer::IdealLlm& JobTimer::ideal_llm(const JobSpec& job, const NodeType& type, int key) {
  auto [it, fresh] = ideal_llm_cache_.emplace(std::make_tuple(key, int{job.llm}, job.total_gpus()), IdealLlm{});
  if (!fresh || !type.allocator) return it->second;
  const LlmJob& spec = (*llm_jobs_)[job.llm];
  ParallelConfig config = spec.config_for(job.total_gpus(), type.gpu);  // the layout a tuned run takes on it
  IdealLlm& ideal = it->second;
  if (!spec.micro_batch_auto || !type.gpu) {
    ideal = {idle_llm_rate(job, type, config), config.micro_batch};
    return ideal;
  }
  for (const int size : micro_batch_sizes(config)) {
    config.micro_batch = size;
    if (!validate_parallel(*spec.model, config, *type.gpu, job.total_gpus()) ||
        !validate_host_memory(*spec.model, config, type.topology->model()))
      continue;
    if (const double rate = idle_llm_rate(job, type, config); faster_micro_batch(rate, ideal.tokens_per_sec))
      ideal = {rate, size};
  }
  return ideal;
}

ParallelConfig JobTimer::placed_config(const JobSpec& job, const JobRecord& record) {
  const LlmJob& spec = (*llm_jobs_)[job.llm];
  const GpuModel* least = nullptr;  // memory per GPU does not depend on the GPU: fitting the least fits all
  for (const PodPlacement& pod : record.pods)
    if (const GpuModel* gpu = cluster_.type_of(pod.node).gpu; gpu && (!least || gpu->memory_gib < least->memory_gib)) least = gpu;
  ParallelConfig config = spec.config_for(job.total_gpus(), least);
  config.micro_batch = placed_micro_batch(job, record);
  return config;
}

int JobTimer::placed_micro_batch(const JobSpec& job, const JobRecord& record) {
  const LlmJob& spec = (*llm_jobs_)[job.llm];
  if (!spec.micro_batch_auto) return spec.config_for(job.total_gpus()).micro_batch;
  int micro_batch = 0;
  int last_type = -1;
  for (const PodPlacement& pod : record.pods) {
    const int type = cluster_.node(pod.node).type;
    if (type == last_type) continue;
    last_type = type;
    const int chosen = ideal_llm(job, cluster_.type(type), type).micro_batch;
    micro_batch = micro_batch == 0 ? chosen : std::min(micro_batch, chosen);
  }
  return std::max(1, micro_batch);
}

Expected<LlmLinks> JobTimer::llm_links_of(const JobRecord& record, const ParallelConfig& config) const {
  // Ranks: pods in rank order, each pod's GPUs ascending.
  std::vector<int> node_ids;
  std::vector<LinkNode> nodes;
  std::vector<RankSite> sites;
  for (size_t p = 0; p < record.pods.size(); ++p) {
    const PodPlacement& pod = record.pods[p];
    auto at = std::find(node_ids.begin(), node_ids.end(), pod.node);
    if (at == node_ids.end()) {
      node_ids.push_back(pod.node);
      const NodeType& node_type_of = cluster_.type_of(pod.node);
      nodes.push_back({node_type_of.allocator.get(), node_type_of.primary_nic_gbit, cluster_.fabric().nvlink_domain(pod.node)});
      at = node_ids.end() - 1;
    }
    for (int gpu : pod.gpus) sites.push_back({static_cast<int>(at - node_ids.begin()), gpu, static_cast<int>(p)});
  }
  LinkOptions options;
  options.host_network = record.host_network;
  options.net = network_;
  if (cluster_.has_measured() && record.host_network)
    options.measured = [this, &node_ids](int a, int b) {
      return cluster_.measured(node_ids[static_cast<size_t>(a)], node_ids[static_cast<size_t>(b)]);
    };
  if (static_cast<int>(sites.size()) != config.gpus()) return Error{"rank count"};
  return llm_links(config, sites, nodes, options);
}

double JobTimer::rate_at(const JobSpec& job, const JobRecord& record, double factor) {
  if (is_llm(job)) {
    const ParallelConfig config = placed_config(job, record);
    auto links = llm_links_of(record, config);
    if (!links) return 0;
    for (CommPath* path : {&links->tp, &links->cp, &links->dp, &links->ep, &links->pp})
      if (path->hosts > 1) path->bus_bandwidth_gbps *= factor;
    const auto rate_on = [&](int type) { return llm_rate_on(job, *links, type, config); };
    return rate_on(pace_type(record, rate_on));
  }
  CommPath path = record.comm;
  path.bus_bandwidth_gbps *= factor;
  const auto rate_on = [&](int type) { return rate_on_type(job, path, type); };
  return rate_on(pace_type(record, rate_on));
}

double JobTimer::rate_on_type(const JobSpec& job, const CommPath& path, int type) const {
  const auto estimate = throughput(job, cluster_.type(type), path);
  return estimate ? estimate->samples_per_sec : 0.0;
}

double JobTimer::llm_rate_on(const JobSpec& job, const LlmLinks& links, int type, const ParallelConfig& config) {
  const auto step = llm_step_on(job, cluster_.type(type), links, config);
  return step ? step->tokens_per_sec : 0.0;
}

template <class RateOn>
int JobTimer::pace_type(const JobRecord& record, RateOn rate_on) {
  const int first = cluster_.node(record.pods.front().node).type;
  std::vector<int>& seen = types_buffer_;
  seen.assign(1, first);
  int pace = first;
  double slowest = -1;  // asked only when a second type shows
  for (const PodPlacement& pod : record.pods) {
    const int type = cluster_.node(pod.node).type;
    if (std::find(seen.begin(), seen.end(), type) != seen.end()) continue;
    seen.push_back(type);
    if (slowest < 0) slowest = rate_on(first);
    if (const double rate = rate_on(type); rate < slowest) {
      slowest = rate;
      pace = type;
    }
  }
  return pace;
}

JobTiming JobTimer::time_llm(const JobSpec& job, const JobRecord& record) {
  JobTiming t;
  const ParallelConfig config = placed_config(job, record);
  auto links = llm_links_of(record, config);
  int node_type = cluster_.node(record.pods.front().node).type;
  if (links) node_type = pace_type(record, [&](int u) { return llm_rate_on(job, *links, u, config); });
  const NodeType& type = cluster_.type(node_type);
  t.node_type = node_type;
  if (links) t.llm = llm_step_on(job, type, *links, config);
  t.samples_per_sec = t.llm ? t.llm->tokens_per_sec : 0;
  const double own_ideal = ideal_llm_tokens_per_sec(job, type, node_type);
  t.ideal_samples_per_sec = own_ideal;
  if (links && types_buffer_.size() > 1)
    for (int u : types_buffer_)
      t.ideal_samples_per_sec = std::max(t.ideal_samples_per_sec, ideal_llm_tokens_per_sec(job, cluster_.type(u), u));
  t.cross_numa = cross_numa(record);
  if (job.iterations > 0) {
    t.run_ms = t.llm ? run_ms_of(static_cast<double>(job.iterations) * t.llm->step_ms) : kMaxRunMs;
    t.work_samples = static_cast<double>(job.iterations) * llm_tokens_per_step(job);
    return t;
  }
  time_by_duration(job, reference_llm_rate(job, own_ideal), t);
  return t;
}

double JobTimer::reference_llm_rate(const JobSpec& job, double own) {
  const NodeType* reference = reference_type(job);
  return reference ? ideal_llm_tokens_per_sec(job, *reference, -1 - reference->gpu->catalog_index) : own;
}

double JobTimer::llm_tokens_per_step(const JobSpec& job) const {
  const LlmJob& spec = (*llm_jobs_)[job.llm];
  const ParallelConfig config = spec.config_for(job.total_gpus());
  return static_cast<double>(config.batch()) * config.seq(*spec.model);
}

JobTiming JobTimer::time(const JobSpec& job, const JobRecord& record) {
  if (is_llm(job)) return time_llm(job, record);
  JobTiming t;
  const int node_type = pace_type(record, [&](int u) { return rate_on_type(job, record.comm, u); });
  const NodeType& type = cluster_.type(node_type);
  t.node_type = node_type;
  const auto estimate = throughput(job, type, record.comm);
  t.samples_per_sec = estimate ? estimate->samples_per_sec : 0;
  const IdealRates& rates = ideal_rates(job, type, node_type);
  t.ideal_samples_per_sec = rates.own;
  if (types_buffer_.size() > 1)
    for (int u : types_buffer_)
      t.ideal_samples_per_sec = std::max(t.ideal_samples_per_sec, ideal_rates(job, cluster_.type(u), u).own);
  t.cross_numa = cross_numa(record);
  if (job.iterations > 0 && estimate) {
    t.run_ms = run_ms_of(static_cast<double>(job.iterations) * estimate->step_ms);
    t.work_samples = static_cast<double>(job.iterations) * job.batch_per_gpu * job.total_gpus();
    return t;
  }
  time_by_duration(job, rates.reference, t);
  return t;
}

int64_t JobTimer::ideal_run_ms(const JobSpec& job, int node_type) {
  if (!job.is_training()) return job.ideal_duration_ms;
  const NodeType& type = cluster_.type(node_type);
  JobTiming t;
  double reference_rate = 0, samples = 0;  // samples: an iteration job's, in all
  if (is_llm(job)) {
    t.samples_per_sec = ideal_llm_tokens_per_sec(job, type, node_type);
    reference_rate = reference_llm_rate(job, t.samples_per_sec);
    samples = static_cast<double>(job.iterations) * llm_tokens_per_step(job);
  } else {
    const IdealRates& rates = ideal_rates(job, type, node_type);
    t.samples_per_sec = rates.own;
    reference_rate = rates.reference;
    samples = static_cast<double>(job.iterations) * job.batch_per_gpu * job.total_gpus();
  }
  if (job.iterations > 0) return t.samples_per_sec > 0 ? run_ms_of(samples / t.samples_per_sec * 1e3) : kMaxRunMs;
  time_by_duration(job, reference_rate, t);
  return t.run_ms;
}

const JobTimer::IdealRates& JobTimer::ideal_rates(const JobSpec& job, const NodeType& type, int key) {
  const IdealKey rates_key{key,
                           int{job.workers},
                           int{job.gpus_per_worker},
                           int{job.model},
                           static_cast<int>(job.framework),
                           int{job.batch_per_gpu},
                           int{job.reference_gpu}};
  if (const auto it = rates_.find(rates_key); it != rates_.end()) return it->second;
  IdealRates rates;
  rates.own = ideal_samples_per_sec(job, type, key);
  const NodeType* reference = reference_type(job);
  rates.reference = reference ? ideal_samples_per_sec(job, *reference, -1 - reference->gpu->catalog_index) : rates.own;
  return rates_.emplace(rates_key, rates).first->second;
}

}  // namespace topsim
