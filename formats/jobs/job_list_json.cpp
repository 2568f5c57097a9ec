#include "formats/jobs/job_list_json.h"

#include "core/llm_catalog.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "core/gang.h"
#include "core/gpu_share.h"
#include "core/hardware.h"
#include "core/llm_catalog.h"
#include "core/model_catalog.h"
#include "formats/jobs/llm_config_json.h"
#include "formats/jobs/tenant_labels.h"
#include "formats/support/json_reader.h"
#include "sim/tenant_names.h"
#include "util/suggest.h"

namespace topsim {
namespace {

using Json = nlohmann::json;

constexpr int64_t kMaxUint16 = 65535;      // JobSpec stores pods, GPUs and batch as uint16
constexpr int64_t kMaxCount = 10'000'000;  // replicas of one entry
constexpr int64_t kMaxIterations = 1'000'000'000;
constexpr int64_t kMaxJobs =
    50'000'000;                       // in one workload: about 3.6 GB of job specs  // x any step time stays far below int64 ms
constexpr double kMaxSeconds = 1e12;  // ~31,700 years: keeps ms within int64
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

const std::vector<std::string> kEntryKeys = {
    "name",          "submit_s",   "workers",    "gpus_per_worker", "pods",        "framework",   "model",
    "batch_per_gpu", "iterations", "duration_s", "count",           "annotations", "gpu_mem_gib", "gpu_core_percent",
    "reference_gpu", "llm",        "queue",      "priority_class",  "labels",      "min_workers", "gpu_models"};

std::string source_name(std::string_view source, const std::string& pointer) {
  return pointer.empty() ? std::string(source) : std::string(source) + "#" + pointer;
}

std::optional<uint16_t> model_at(JsonErrors& errors, const JsonAt& at, std::string_view typed) {
  const auto index = workload_model_index(typed);
  if (!index && find_llm_model(typed))
    errors.fail(at.pointer, "'" + std::string(typed) +
                                "' is a large language model: describe the job with \"llm\": {\"model\": \"" +
                                std::string(typed) + "\", \"tp\": ..., \"pp\": ...} (docs/llm-training.md)");
  else if (!index)
    errors.fail(at.pointer, unknown_name("model", typed, workload_model_names()));
  return index;
}

std::optional<Framework> framework_at(JsonErrors& errors, const JsonAt& at, std::string_view typed) {
  const std::optional<Framework> framework = parse_enum<Framework>(typed);
  if (!framework) errors.fail(at.pointer, unknown_name("framework", typed, enum_name_list<Framework>()));
  return framework;
}

// ---- one job entry ----

struct Entry {
  JobSpec job;
  JobExtras extras;
  EntryTenant tenant;
  std::optional<LlmJob> llm;
  int64_t count = 1;
  std::string pointer;      // of the entry
  uint64_t gpu_models = 0;  // the GPU models it selects, bit i = catalog index i; 0: any
};

// A time in seconds >= min_s as whole ms; nullopt when absent or failed.
std::optional<int64_t> seconds_as_ms(const JsonObject& entry, std::string_view key, double min_s) {
  const auto seconds = entry.number(key, min_s, kInfinity);
  if (seconds && *seconds > kMaxSeconds) entry.fail(key, "must be at most 1e12 seconds");
  if (!seconds || *seconds > kMaxSeconds) return std::nullopt;
  return std::llround(*seconds * 1000.0);
}

// "pods": [2, 2, 1] -> workers and GPUs per pod; unequal lists kept in unequal_pod_gpus (with
// gpus_per_worker = the largest pod, so total_gpus() is an upper bound for them).
void read_pods(JsonErrors& errors, const JsonObject& entry, JobSpec& job) {
  const JsonAt pods = *entry.member("pods");
  if (entry.has("workers") || entry.has("gpus_per_worker"))
    return entry.fail("pods", "cannot be combined with \"workers\" or \"gpus_per_worker\" (pods lists them)");
  if (!pods.value->is_array() || pods.value->empty() || pods.value->size() > kMaxUint16)
    return errors.fail(pods.pointer, "must be a non-empty array of per-pod GPU counts, got " + describe_json(*pods.value));
  std::vector<uint16_t> gpus;
  for (size_t i = 0; i < pods.value->size(); ++i)
    gpus.push_back(static_cast<uint16_t>(json_integer(errors, pods.element(i), 1, kMaxUint16).value_or(1)));
  job.workers = static_cast<uint16_t>(gpus.size());
  job.gpus_per_worker = *std::max_element(gpus.begin(), gpus.end());
  if (std::adjacent_find(gpus.begin(), gpus.end(), std::not_equal_to<>()) != gpus.end()) job.unequal_pod_gpus = std::move(gpus);
}

// Exactly one of "iterations" and "duration_s".
void read_work(const JsonObject& entry, JobSpec& job) {
  const bool iterations = entry.has("iterations"), duration = entry.has("duration_s");
  if (iterations == duration)
    return entry.fail(iterations ? "duration_s" : "iterations",
                      iterations ? "cannot be combined with \"iterations\": give exactly one of them"
                                 : "missing: give exactly one of \"iterations\" and \"duration_s\"");
  if (iterations) job.iterations = entry.integer("iterations", 1, kMaxIterations).value_or(1);
  if (duration) job.ideal_duration_ms = seconds_as_ms(entry, "duration_s", 1e-3).value_or(1);
  // The GPU this job's duration was measured on, over the workload's (sim/job_timing.h).
  if (!entry.has("reference_gpu")) return;
  if (!duration) return entry.fail("reference_gpu", "applies to a job given by \"duration_s\" (iterations are work already)");
  const auto name = entry.string("reference_gpu");
  if (!name) return;
  const auto gpu = training_gpu(*name);
  if (!gpu) return entry.fail("reference_gpu", gpu.error().message);
  job.reference_gpu = static_cast<uint8_t>((*gpu)->catalog_index);
}

}  // namespace

std::string annotation_problem(const std::string& key, const std::string& value) {
  GangRequest request;
  const Status status = apply_gang_annotations({{key, value}}, request);
  if (status.ok()) return "";
  const std::string& message = status.error().message;
  return message.rfind(key + ": ", 0) == 0 ? message.substr(key.size() + 2) : message;
}

namespace {

// String-to-string annotations, each checked by the allocator core's own parser.
void read_annotations(JsonErrors& errors, const JsonObject& entry, JobExtras& extras) {
  const JsonAt object = *entry.member("annotations");
  if (!object.value->is_object()) return errors.fail(object.pointer, "must be an object, got " + describe_json(*object.value));
  for (const auto& [key, value] : object.value->items()) {
    const JsonAt at = object.member(key);
    const auto text = json_string(errors, at);
    if (!text) continue;
    if (const std::string problem = annotation_problem(key, *text); !problem.empty()) errors.fail(at.pointer, problem);
    extras.annotations[key] = *text;
  }
}

// Model (required), framework (default pytorch), batch (default: default_batch_per_gpu(model)).
void read_training(JsonErrors& errors, const JsonObject& entry, JobSpec& job) {
  const auto model = entry.require("model") ? entry.string("model") : std::nullopt;
  if (model) job.model = model_at(errors, *entry.member("model"), *model).value_or(0);
  if (const auto name = entry.string("framework"))
    job.framework = framework_at(errors, *entry.member("framework"), *name).value_or(Framework::PyTorch);
  const uint16_t batch = default_batch_per_gpu(model.value_or(""));
  job.batch_per_gpu = static_cast<uint16_t>(entry.integer("batch_per_gpu", 1, kMaxUint16).value_or(batch));
}

// "llm": {"model": "llama3-70b", "tp": 4, "pp": 4, ...}: an LLM job of the entry's GPUs (docs/workloads.md).
std::optional<LlmJob> read_llm(JsonErrors& errors, const JsonObject& entry, const JobSpec& job) {
  for (const char* key : {"model", "framework", "batch_per_gpu"})
    if (entry.has(key)) return entry.fail(key, "does not apply to an LLM job (its model is \"llm\"/\"model\")"), std::nullopt;
  return read_llm_config(errors, *entry.member("llm"), job.total_gpus());
}

// A shared-GPU job: one pod with `gpu_mem_gib` GiB of one card and optionally
// `gpu_core_percent` of its compute, checked by the core's submission rules; it runs
// `duration_s` (the speed of a share is not modelled) and needs no model.
void read_share(const JsonObject& entry, JobSpec& job) {
  for (const char* key : {"workers", "gpus_per_worker", "pods"})
    if (entry.has(key))
      return entry.fail(key, "cannot be combined with \"gpu_mem_gib\": a shared-GPU job is one pod holding a share of one GPU");
  if (entry.has("iterations"))
    return entry.fail("iterations", "a shared-GPU job needs \"duration_s\": the speed of a GPU share is not modelled");
  const auto mem = entry.integer("gpu_mem_gib", 1, kMaxUint16);
  PodRequest pod;
  pod.gpu = GpuAsk::mem(static_cast<int>(mem.value_or(1)));
  if (entry.has("gpu_core_percent")) {
    const auto core = entry.integer("gpu_core_percent", std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    if (!core) return;
    pod.gpu.core_percent = static_cast<int>(*core);
  }
  if (!mem) return;
  if (const Status status = validate_request(pod, std::numeric_limits<int>::max()); !status)
    return entry.fail(pod.gpu.core_percent ? "gpu_core_percent" : "gpu_mem_gib", status.error().message);
  job.kind = JobKind::Share;
  job.gpu_mem_gib = static_cast<uint16_t>(*mem);
  job.gpu_core_percent = static_cast<uint8_t>(pod.gpu.core_percent.value_or(0));
}

// "gpu_models": "h100" or ["h100", "NVIDIA-H200"]: the GPU models a training job may run on, by
// catalog name, alias or nvidia.com/gpu.product label (what a node selector or a required node
// affinity In on that label names); a set of catalog indexes (bit i = index i).
uint64_t read_gpu_models(JsonErrors& errors, const JsonObject& entry, bool share) {
  const JsonAt at = *entry.member("gpu_models");
  if (share) return entry.fail("gpu_models", "applies to whole-GPU training jobs (a share's card model is not selected)"), 0;
  const bool list = at.value->is_array();
  if (!(at.value->is_string() || (list && !at.value->empty())))
    return errors.fail(at.pointer, "must be a GPU model name or a non-empty array of them, got " + describe_json(*at.value)), 0;
  uint64_t set = 0;
  for (size_t i = 0; i < (list ? at.value->size() : 1); ++i) {
    const JsonAt name_at = list ? at.element(i) : at;
    const auto name = json_string(errors, name_at);
    if (!name) return 0;
    const GpuModel* gpu = selectable_gpu_model(*name);
    if (gpu == nullptr)
      return errors.fail(name_at.pointer,
                         unknown_name("GPU model", *name, gpu_model_names()) +
                             " (a catalog name or a nvidia.com/gpu.product label such as NVIDIA-H100-80GB-HBM3)"),
             0;
    set |= uint64_t{1} << gpu->catalog_index;
  }
  return set;
}

Entry read_entry(JsonErrors& errors, const JsonAt& at) {
  Entry out;
  out.pointer = at.pointer;
  const JsonObject entry(errors, at, kEntryKeys);
  if (!entry.is_object()) return out;
  out.extras.name = entry.string("name").value_or("");
  if (entry.has("name") && out.extras.name.empty()) entry.fail("name", "must not be empty");
  out.job.submit_ms = seconds_as_ms(entry, "submit_s", 0).value_or(0);
  const bool share = entry.has("gpu_mem_gib");
  if (share) {
    read_share(entry, out.job);
  } else if (entry.has("gpu_core_percent")) {
    entry.fail("gpu_core_percent", "needs \"gpu_mem_gib\": a compute share comes with a memory share (aliyun.com/gpu-mem)");
  } else if (entry.has("pods")) {
    read_pods(errors, entry, out.job);
  } else {
    out.job.workers = static_cast<uint16_t>(entry.integer("workers", 1, kMaxUint16).value_or(1));
    out.job.gpus_per_worker = static_cast<uint16_t>(entry.integer("gpus_per_worker", 1, kMaxUint16).value_or(1));
  }
  if (entry.has("llm")) {
    if (share) entry.fail("llm", "a shared-GPU job cannot be an LLM job");
    out.llm = read_llm(errors, entry, out.job);
    out.job.model = kNoModel;
  } else if (!share || entry.has("model")) {
    read_training(errors, entry, out.job);
  } else {
    out.job.model = kNoModel;
  }
  read_work(entry, out.job);
  if (entry.has("min_workers")) {
    if (share || entry.has("pods") || entry.has("llm"))
      entry.fail("min_workers", share              ? "a shared-GPU job is one pod: it cannot shrink"
                                : entry.has("llm") ? "an LLM job's 3D-parallel layout fixes its GPU count: it cannot shrink"
                                                   : "needs identical pods (\"workers\"), which an elastic job drops and adds");
    else if (const auto min = entry.integer("min_workers", 1, kMaxUint16); min && *min > out.job.workers)
      entry.fail("min_workers", std::to_string(*min) + " is more than the job's " + std::to_string(out.job.workers) +
                                    " workers (an elastic job starts with \"workers\" and shrinks to no fewer than this)");
    else if (min && *min < out.job.workers)
      out.job.min_workers = static_cast<uint16_t>(*min);
  }
  out.count = entry.integer("count", 1, kMaxCount).value_or(1);
  if (entry.has("annotations")) read_annotations(errors, entry, out.extras);
  out.tenant = read_entry_tenant(errors, entry);
  if (entry.has("gpu_models")) out.gpu_models = read_gpu_models(errors, entry, share);
  return out;
}

// ---- the list ----

// `name` as an index into `table` (none when empty); fails at `pointer` when the table is full.
template <class Index>
void index_name(JsonErrors& errors, NameTable& table, const std::string& name, const std::string& pointer, const char* what,
                Index& index) {
  if (name.empty() || errors.failed()) return;
  const auto found = table.index(name);
  if (!found) return errors.fail(pointer, too_many_names(what, table.limit()));
  index = static_cast<Index>(*found);
}

struct Pending {
  JobSpec job;
  JobExtras extras;
  const std::string* entry_pointer;
};

std::vector<Pending> expand(const std::vector<Entry>& entries, JsonErrors& errors) {
  std::vector<Pending> jobs;
  for (const Entry& entry : entries) {
    if (static_cast<int64_t>(jobs.size()) + entry.count > kMaxJobs) {
      errors.fail(entry.pointer + "/count", "the job list would exceed 50,000,000 jobs (docs/limits.md)");
      break;
    }
    for (int64_t k = 0; k < entry.count; ++k) {
      Pending pending{entry.job, entry.extras, &entry.pointer};
      if (entry.count > 1 && !entry.extras.name.empty()) pending.extras.name += "-" + std::to_string(k);
      jobs.push_back(std::move(pending));
    }
  }
  return jobs;
}

// Sorted, numbered jobs with their extras; fails on a job name used twice.
Workload assemble(std::vector<Pending> jobs, JsonErrors& errors) {
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const Pending& a, const Pending& b) { return a.job.submit_ms < b.job.submit_ms; });
  Workload workload;
  workload.jobs.reserve(jobs.size());
  for (Pending& pending : jobs) {
    pending.job.id = static_cast<uint32_t>(workload.jobs.size());
    if (!pending.extras.name.empty() || !pending.extras.annotations.empty())
      workload.extras.emplace(pending.job.id, std::move(pending.extras));
    workload.jobs.push_back(std::move(pending.job));
  }
  std::map<std::string, uint32_t> by_name;
  for (const JobSpec& job : workload.jobs) {
    const auto [it, fresh] = by_name.emplace(workload.job_name(job.id), job.id);
    if (!fresh)
      errors.fail(*jobs[job.id].entry_pointer + "/name",
                  "job name '" + it->first + "' is used twice (also by " + *jobs[it->second].entry_pointer + ")");
  }
  return workload;
}

// ---- mixes ----

std::vector<ModelShare> read_model_mix(JsonErrors& errors, const JsonAt& at) {
  std::vector<ModelShare> mix;
  if (!at.value->is_object() || at.value->empty()) {
    errors.fail(at.pointer, "must be a non-empty object of model name -> share, got " + describe_json(*at.value));
    return mix;
  }
  for (const auto& [name, weight] : at.value->items()) {
    const JsonAt share = at.member(name);
    if (!find_llm_model(name)) model_at(errors, share, name);  // an LLM's jobs take default_parallel
    mix.push_back({name, json_number(errors, share, 0, kInfinity).value_or(0), default_batch_per_gpu(name)});
  }
  const Status valid = validate_model_mix(mix);
  if (!errors.failed() && !valid.ok()) errors.fail(at.pointer, "shares must not all be 0");
  return mix;
}

// {"tensorflow": a, "pytorch": b} -> a / (a + b).
std::optional<double> read_framework_mix(JsonErrors& errors, const JsonAt& at) {
  const JsonObject object(errors, at, enum_name_list<Framework>());
  const double tensorflow = object.number(enum_name(Framework::TensorFlow), 0, kInfinity).value_or(0);
  const double pytorch = object.number(enum_name(Framework::PyTorch), 0, kInfinity).value_or(0);
  if (!(tensorflow + pytorch > 0)) {
    errors.fail(at.pointer, "shares must not all be 0");
    return std::nullopt;
  }
  return tensorflow / (tensorflow + pytorch);
}

// {"1": 0.5, "16": 0.05}: GPUs per job -> share.
std::vector<SizeShare> read_size_mix(JsonErrors& errors, const JsonAt& at) {
  std::vector<SizeShare> mix;
  if (!at.value->is_object() || at.value->empty()) {
    errors.fail(at.pointer, "must be a non-empty object of GPU count -> share, got " + describe_json(*at.value));
    return mix;
  }
  double total = 0;
  for (const auto& [key, weight] : at.value->items()) {
    const JsonAt share = at.member(key);
    const int64_t gpus = std::atoll(key.c_str());
    if (gpus < 1 || gpus > kMaxUint16 || std::to_string(gpus) != key)
      errors.fail(share.pointer, "'" + key + "' is not a GPU count (an integer in 1.." + std::to_string(kMaxUint16) + ")");
    mix.push_back(
        {static_cast<int>(std::clamp<int64_t>(gpus, 1, kMaxUint16)), json_number(errors, share, 0, kInfinity).value_or(0)});
    total += mix.back().weight;
  }
  if (!(total > 0)) errors.fail(at.pointer, "shares must not all be 0");
  return mix;
}

// {"team-a": 0.5, "team-b": 0.3}: tenant or priority class -> share (validate_share_mix).
std::vector<NamedShare> read_share_mix(JsonErrors& errors, const JsonAt& at, const char* what, const char* plural, size_t limit) {
  std::vector<NamedShare> mix;
  if (!at.value->is_object() || at.value->empty()) {
    errors.fail(at.pointer,
                std::string("must be a non-empty object of ") + what + " name -> share, got " + describe_json(*at.value));
    return mix;
  }
  if (at.value->size() > limit) return errors.fail(at.pointer, too_many_names(plural, limit)), mix;
  double total = 0;
  for (const auto& [name, weight] : at.value->items()) {
    const JsonAt share = at.member(name);
    if (name.empty()) errors.fail(share.pointer, std::string("a ") + what + " name must not be empty");
    mix.push_back({name, json_number(errors, share, 0, kInfinity).value_or(0)});
    total += mix.back().weight;
  }
  if (!(total > 0)) errors.fail(at.pointer, "shares must not all be 0");
  return mix;
}

// {"h100": 0.3, "any": 0.7}: the GPU model a job selects -> share ("any": none), by the names
// "gpu_models" takes (selectable_gpu_model).
std::vector<NamedShare> read_gpu_model_mix(JsonErrors& errors, const JsonAt& at) {
  std::vector<NamedShare> mix = read_share_mix(errors, at, "GPU model", "GPU models", 64);
  for (const NamedShare& share : mix)
    if (share.name != kAnyGpuModelName && !selectable_gpu_model(share.name)) {
      std::vector<std::string> known = gpu_model_names();
      known.push_back(kAnyGpuModelName);
      errors.fail(at.member(share.name).pointer,
                  unknown_name("GPU model", share.name, known) + " (a catalog name, a nvidia.com/gpu.product label, or \"any\")");
    }
  return mix;
}

std::vector<std::string> with_caller_keys(std::vector<std::string> keys, const std::vector<std::string>& caller_keys) {
  keys.insert(keys.end(), caller_keys.begin(), caller_keys.end());
  return keys;
}

// Reads `part` of the text's document (pointer prefix `prefix`) with `read(JsonAt)`.
template <class Read>
auto from_text(std::string_view text, std::string_view source, std::string_view prefix, Read read)
    -> decltype(read(std::declval<const JsonAt&>())) {
  const Expected<Json> document = parse_json_text(text, source);
  if (!document.ok()) return document.error();
  return read(JsonAt{&document.value(), std::string(prefix)});
}

}  // namespace

Expected<Workload> read_job_list(const JsonAt& jobs, std::string_view source) {
  JsonErrors errors(source);
  if (!jobs.value->is_array()) {
    errors.fail(jobs.pointer, "must be an array of job entries, got " + describe_json(*jobs.value));
    return errors.error();
  }
  std::vector<Entry> entries;
  for (size_t i = 0; i < jobs.value->size() && !errors.failed(); ++i) entries.push_back(read_entry(errors, jobs.element(i)));
  if (errors.failed()) return errors.error();
  auto llm_jobs = std::make_shared<std::vector<LlmJob>>();
  for (Entry& entry : entries)
    if (entry.llm) {
      if (llm_jobs->size() >= kNoLlm) {
        errors.fail(entry.pointer + "/llm", "more than 65,534 LLM job entries in one list");
        return errors.error();
      }
      entry.job.llm = static_cast<uint16_t>(llm_jobs->size());
      llm_jobs->push_back(*entry.llm);
    }
  NameTable queues(kMaxQueueNames), classes(kMaxPriorityClassNames);
  for (Entry& entry : entries) {
    index_name(errors, queues, entry.tenant.queue, entry.tenant.queue_pointer, "queues", entry.job.queue);
    index_name(errors, classes, entry.tenant.priority_class, entry.tenant.class_pointer, "priority classes",
               entry.job.priority_class);
  }
  std::vector<uint64_t> gpu_model_sets;
  for (Entry& entry : entries) {
    if (entry.gpu_models == 0) continue;
    auto found = std::find(gpu_model_sets.begin(), gpu_model_sets.end(), entry.gpu_models);
    if (found == gpu_model_sets.end()) {
      if (gpu_model_sets.size() >= kAnyGpuModel) {
        errors.fail(entry.pointer + "/gpu_models", "more than 254 different sets of GPU models in one list");
        return errors.error();
      }
      found = gpu_model_sets.insert(gpu_model_sets.end(), entry.gpu_models);
    }
    entry.job.gpu_models = static_cast<uint8_t>(found - gpu_model_sets.begin());
  }
  if (errors.failed()) return errors.error();
  Workload workload = assemble(expand(entries, errors), errors);
  workload.gpu_model_sets = std::move(gpu_model_sets);
  set_tenant_names(workload, queues.names(), classes.names());
  if (!llm_jobs->empty()) workload.llm_jobs = std::move(llm_jobs);
  if (errors.failed()) return errors.error();
  workload.source = source_name(source, jobs.pointer);
  return workload;
}

Expected<Workload> parse_job_list(std::string_view json_text, std::string_view source, std::string_view json_path_prefix) {
  return from_text(json_text, source, json_path_prefix, [&](const JsonAt& at) { return read_job_list(at, source); });
}

Expected<SyntheticOptions> read_synthetic_options(const JsonAt& section, std::string_view source,
                                                  const SyntheticOptions& defaults, const std::vector<std::string>& caller_keys) {
  JsonErrors errors(source);
  const JsonObject object(
      errors, section,
      with_caller_keys({"seed", "jobs", "arrival_rate_per_hour", "size_mix", "gpus_per_node", "model_mix", "framework_mix",
                        "median_duration_minutes", "duration_sigma", "tenants", "priority_classes", "gpu_model_mix"},
                       caller_keys));
  SyntheticOptions options = defaults;
  options.seed = static_cast<uint64_t>(object.integer("seed", 0, kMaxInt64).value_or(static_cast<int64_t>(defaults.seed)));
  options.jobs = static_cast<uint32_t>(object.integer("jobs", 1, kMaxJobs).value_or(defaults.jobs));
  options.arrival_rate_per_hour = object.positive_number("arrival_rate_per_hour").value_or(defaults.arrival_rate_per_hour);
  // 3,600,000 ms an hour: the jobs' expected arrival span must fit the simulated time.
  if (static_cast<double>(options.jobs - 1) * 3.6e6 / options.arrival_rate_per_hour > static_cast<double>(kMaxRunMs))
    object.fail("arrival_rate_per_hour", "is so low that " + std::to_string(options.jobs) +
                                             " jobs arrive over more than 10^15 ms (the longest time simulated)");
  options.gpus_per_node = static_cast<int>(object.integer("gpus_per_node", 1, kMaxUint16).value_or(defaults.gpus_per_node));
  options.median_duration_minutes = object.positive_number("median_duration_minutes").value_or(defaults.median_duration_minutes);
  options.duration_sigma = object.number("duration_sigma", 0, 10).value_or(defaults.duration_sigma);
  if (const auto at = object.member("size_mix")) options.size_mix = read_size_mix(errors, *at);
  if (const auto at = object.member("model_mix")) options.model_mix = read_model_mix(errors, *at);
  if (const auto at = object.member("framework_mix"))
    options.tensorflow_share = read_framework_mix(errors, *at).value_or(defaults.tensorflow_share);
  if (const auto at = object.member("tenants"))
    options.tenants = read_share_mix(errors, *at, "tenant", "tenants", kMaxQueueNames);
  if (const auto at = object.member("priority_classes"))
    options.priority_classes = read_share_mix(errors, *at, "priority class", "priority classes", kMaxPriorityClassNames);
  if (const auto at = object.member("gpu_model_mix")) options.gpu_models = read_gpu_model_mix(errors, *at);
  if (errors.failed()) return errors.error();
  if (const Status valid = validate(options); !valid.ok()) return Error{std::string(source) + ": " + valid.error().message};
  return options;
}

Expected<SyntheticOptions> synthetic_options_from_json(std::string_view json_text, std::string_view source,
                                                       std::string_view json_path_prefix, const SyntheticOptions& defaults,
                                                       const std::vector<std::string>& caller_keys) {
  return from_text(json_text, source, json_path_prefix,
                   [&](const JsonAt& at) { return read_synthetic_options(at, source, defaults, caller_keys); });
}

Expected<PhillySource> read_philly_source(const JsonAt& section, std::string_view source, const PhillyOptions& defaults,
                                          const std::vector<std::string>& caller_keys) {
  JsonErrors errors(source);
  const JsonObject object(
      errors, section,
      with_caller_keys({"path", "seed", "gpus_per_node", "max_jobs", "arrival_time_scale", "model_mix", "framework_mix"},
                       caller_keys));
  PhillySource out{"", defaults};
  PhillyOptions& options = out.options;
  if (object.require("path")) out.path = object.string("path").value_or("");
  if (object.has("path") && out.path.empty()) object.fail("path", "must not be empty");
  options.seed = static_cast<uint64_t>(object.integer("seed", 0, kMaxInt64).value_or(static_cast<int64_t>(defaults.seed)));
  options.gpus_per_node = static_cast<int>(object.integer("gpus_per_node", 1, kMaxUint16).value_or(defaults.gpus_per_node));
  options.max_jobs =
      static_cast<size_t>(object.integer("max_jobs", 0, kMaxInt64).value_or(static_cast<int64_t>(defaults.max_jobs)));
  options.arrival_time_scale = object.positive_number("arrival_time_scale").value_or(defaults.arrival_time_scale);
  if (const auto at = object.member("model_mix")) options.model_mix = read_model_mix(errors, *at);
  if (const auto at = object.member("framework_mix"))
    options.tensorflow_share = read_framework_mix(errors, *at).value_or(defaults.tensorflow_share);
  if (errors.failed()) return errors.error();
  if (const Status valid = validate(options); !valid.ok()) return Error{std::string(source) + ": " + valid.error().message};
  return out;
}

Expected<PhillySource> philly_source_from_json(std::string_view json_text, std::string_view source,
                                               std::string_view json_path_prefix, const PhillyOptions& defaults,
                                               const std::vector<std::string>& caller_keys) {
  return from_text(json_text, source, json_path_prefix,
                   [&](const JsonAt& at) { return read_philly_source(at, source, defaults, caller_keys); });
}

}  // namespace topsim
