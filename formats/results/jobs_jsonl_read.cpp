#include "formats/results/jobs_jsonl_read.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/hardware.h"
#include "core/llm_catalog.h"
#include "formats/jobs/llm_config_json.h"
#include "formats/results/read_numbers.h"
#include "formats/support/json_reader.h"
#include "sim/workload/workload_mix.h"
#include "util/input_file.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace results_read;

// One line of jobs.jsonl as the job and its record (the fields reports read).
// An LLM job's step as jobs.jsonl writes it (formats/results/job_line.cpp put_llm), seconds to ms.
LlmStep read_llm_step(const Json& j) {
  auto num = [&](const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0; };
  auto sec = [&](const char* key) { return num(key) * 1000; };
  LlmStep s;
  s.step_ms = sec("step_s");
  s.compute_ms = sec("compute_s");
  s.tp_ms = sec("tp_s");
  s.ep_ms = sec("ep_s");
  s.cp_ms = sec("cp_s");
  s.pp_bubble_ms = sec("pp_bubble_s");
  s.pp_p2p_ms = sec("pp_p2p_s");
  s.dp_exposed_ms = sec("dp_exposed_s");
  s.optimizer_ms = sec("optimizer_s");
  s.offload_ms = sec("offload_s");
  s.tokens_per_sec_per_gpu = num("tokens_per_s_per_gpu");
  s.mfu = num("mfu");
  const double micro_batch = num("micro_batch");  // 0 (not written) when absent or not a count
  s.micro_batch =
      micro_batch >= 1 && micro_batch <= 65535 && micro_batch == std::floor(micro_batch) ? static_cast<int>(micro_batch) : 0;
  return s;
}

// Returns what is malformed ("/field: expected ..."), or "" when the line reads.
std::string read_job(const Json& j, JobSpec& job, JobRecord& r, std::string& name) {
  std::string bad;  // the first field of a type other than the one written
  auto refuse = [&](const char* key, const std::string& expected) {
    if (bad.empty()) bad = std::string("/") + key + ": expected " + expected;
  };
  // A number within [lo, hi] (what its field holds); `fallback` when absent or null.
  auto num = [&](const char* key, double fallback = 0, double lo = -kAnyNumber, double hi = kAnyNumber) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    if (const auto value = number_within(*it, lo, hi)) return *value;
    refuse(key, it->is_number() ? range_text(lo, hi) : "a number");
    return fallback;
  };
  auto count = [&](const char* key, double hi, double fallback = 0) { return num(key, fallback, 0, hi); };
  auto millis = [&](const char* key) { return std::llround(num(key, 0, 0, kSeconds) * 1e3); };
  auto text = [&](const char* key, const char* fallback) {
    const auto it = j.find(key);
    if (it != j.end() && it->is_string()) return it->get<std::string>();
    if (it != j.end()) refuse(key, "a string");
    return std::string(fallback);
  };
  auto flag = [&](const char* key) {
    const auto it = j.find(key);
    if (it != j.end() && !it->is_boolean()) refuse(key, "true or false");
    return it != j.end() && it->is_boolean() && it->get<bool>();
  };
  auto ms = [&](const char* key) { return j.contains(key) ? millis(key) : int64_t{-1}; };
  name = text("name", "");
  job.kind = parse_enum<JobKind>(text("kind", "training")).value_or(JobKind::Training);
  constexpr double k16 = std::numeric_limits<uint16_t>::max(), k8 = std::numeric_limits<uint8_t>::max();
  job.workers = static_cast<uint16_t>(count("workers", k16, 1));
  job.gpus_per_worker =
      static_cast<uint16_t>(job.kind == JobKind::TracePod ? count("num_gpu", k16) : count("gpus_per_worker", k16, 1));
  job.gpu_mem_gib = static_cast<uint16_t>(count("gpu_mem_gib", k16));
  job.gpu_core_percent = static_cast<uint8_t>(count("gpu_core_percent", k8));
  job.gpu_milli = static_cast<uint16_t>(count("gpu_milli", k16));
  job.model = workload_model_index(text("model", "")).value_or(kNoModel);
  job.framework = parse_enum<TrainingFramework>(text("framework", "pytorch")).value_or(TrainingFramework::PyTorch);
  job.submit_ms = ms("submit_s");
  r.state = parse_enum<JobState>(text("state", "pending")).value_or(JobState::Pending);
  r.submit_ms = job.submit_ms;
  r.start_ms = ms("start_s");
  r.finish_ms = ms("finish_s");
  if (j.contains("pods") && j["pods"].is_array())
    for (const Json& pod : j["pods"]) {
      const auto node = pod.find("node");
      const auto gpus = pod.find("gpus");
      const auto whole = [](const Json& v) {
        return v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= INT32_MAX;
      };
      if (!pod.is_object() || node == pod.end() || !whole(*node) || gpus == pod.end() || !gpus->is_array() ||
          !std::all_of(gpus->begin(), gpus->end(), whole)) {
        refuse("pods", "[{\"node\": N, \"gpus\": [G, ...]}, ...]");
        break;
      }
      r.pods.push_back({node->get<int>(), gpus->get<std::vector<int>>(), r.start_ms});
    }
  r.comm.transport = parse_enum<CommTransport>(text("transport", "none")).value_or(CommTransport::None);
  r.comm.bus_bandwidth_gbps = num("ring_gbps");
  r.samples_per_sec = num("samples_per_sec");
  r.ideal_samples_per_sec = num("ideal_samples_per_sec");
  r.work_samples = num("work_samples");
  r.cross_numa = flag("cross_numa");
  r.host_network = flag("host_network");
  r.contended_ms = millis("contended_s");
  if (j.contains("admitted_s")) r.admitted_ms = ms("admitted_s");
  r.evictions = static_cast<uint16_t>(count("evictions", k16));
  r.lost_gpu_ms = millis("preempted_gpu_s");
  r.interruptions = static_cast<uint16_t>(count("interruptions", k16));
  r.resizes = static_cast<uint16_t>(count("resizes", k16));
  r.recompute_ms = millis("recompute_s");
  r.restart_ms = millis("restart_s");
  r.checkpoint_ms = millis("checkpoint_s");
  r.requeue_ms = millis("requeue_s");
  if (j.contains("least_network_share")) r.least_network_share = num("least_network_share");
  r.reason = text("reason", "");
  r.placement_note = text("placement_note", "");
  if (j.contains("llm") && j["llm"].is_object()) r.llm = std::make_shared<const LlmStep>(read_llm_step(j["llm"]));
  return bad;
}

// An LLM job's layout as job_line.cpp writes it, "tp8 pp2 dp2 cp1 ep1": each size in 1..65535.
std::optional<ParallelConfig> read_layout(const std::string& text) {
  ParallelConfig c;
  std::string_view rest = text;
  const std::pair<std::string_view, int*> sizes[] = {{"tp", &c.tp}, {"pp", &c.pp}, {"dp", &c.dp}, {"cp", &c.cp}, {"ep", &c.ep}};
  for (size_t i = 0; i < std::size(sizes); ++i) {
    const auto& [prefix, size] = sizes[i];
    if (i > 0 && !rest.starts_with(' ')) return std::nullopt;
    if (i > 0) rest.remove_prefix(1);
    if (!rest.starts_with(prefix)) return std::nullopt;
    rest.remove_prefix(prefix.size());
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), *size);
    if (ec != std::errc() || *size < 1 || *size > 65535 || (end != rest.data() && rest.front() == '0')) return std::nullopt;
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
  }
  if (!rest.empty()) return std::nullopt;
  return c;
}

}  // namespace

Status read_jobs_jsonl(const std::string& dir, ResultSet& results) {
  const std::string path = (fs::path(dir) / "jobs.jsonl").string();
  std::error_code ec;
  const bool present = fs::exists(fs::symlink_status(path, ec));
  if (!present) return Status::success();  // --summary-only, or a fill run
  auto opened = open_input_file(path);
  if (!opened) return opened.error();
  std::ifstream& in = *opened;
  std::map<std::pair<std::string, uint64_t>, RunResult*> runs;
  std::map<RunResult*, std::shared_ptr<Workload>> workloads;
  // Per run, the LLM specs its lines name (model and layout), in order of first mention.
  std::map<RunResult*, std::shared_ptr<std::vector<LlmJob>>> llm_specs;
  for (SchedulerResult& s : results.schedulers)
    for (RunResult& run : s.runs) runs[{s.name, run.seed}] = &run, workloads[&run] = std::make_shared<Workload>();
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    auto j = parse_json_text(line, path + ":" + std::to_string(number));
    if (!j) return j.error();
    // Its run: scheduler and seed ("" and 0 when absent); a line of other types belongs to none.
    auto run = runs.end();
    if (j->is_object()) {
      const auto scheduler = j->find("scheduler");
      const auto seed = j->find("seed");
      if ((scheduler == j->end() || scheduler->is_string()) && (seed == j->end() || seed->is_number_unsigned()))
        run = runs.find({scheduler == j->end() ? std::string() : scheduler->get<std::string>(),
                         seed == j->end() ? uint64_t{0} : seed->get<uint64_t>()});
    }
    if (run == runs.end()) return Error{path + ":" + std::to_string(number) + ": a job of no run in results.json"};
    Workload& workload = *workloads[run->second];
    JobSpec job;
    JobRecord record;
    std::string name;
    if (const std::string bad = read_job(*j, job, record, name); !bad.empty())
      return Error{path + ":" + std::to_string(number) + ": " + bad};
    job.id = static_cast<uint32_t>(workload.jobs.size());
    JobExtras& extras = workload.extras[job.id];
    extras.name = name;
    if (const auto asks = j->find("annotations"); asks != j->end() && asks->is_object())
      for (const auto& [key, value] : asks->items())
        if (value.is_string()) extras.annotations[key] = value.get<std::string>();
    if (const auto models = j->find("gpu_models"); models != j->end() && models->is_array()) {
      uint64_t set = 0;  // the GPU models it selected, as the job list holds them
      for (const auto& model : *models)
        if (const GpuModel* gpu = model.is_string() ? find_gpu_model(model.get<std::string>()) : nullptr;
            gpu && gpu->catalog_index >= 0 && gpu->catalog_index < 64)
          set |= uint64_t{1} << gpu->catalog_index;
      auto& sets = workload.gpu_model_sets;
      auto found = std::find(sets.begin(), sets.end(), set);
      if (set != 0 && (found != sets.end() || sets.size() < kAnyGpuModel)) {
        if (found == sets.end()) found = sets.insert(sets.end(), set);
        job.gpu_models = static_cast<uint8_t>(found - sets.begin());
      }
    }
    // Its queue and priority class by name, as the workload lists them (in order of first mention).
    auto intern = [&](const char* key, std::vector<std::string>& names, size_t none) -> size_t {
      const auto value = j->find(key);
      if (value == j->end() || !value->is_string()) return none;
      auto found = std::find(names.begin(), names.end(), value->get<std::string>());
      if (found == names.end()) {
        if (names.size() >= none) return none;
        found = names.insert(names.end(), value->get<std::string>());
      }
      return static_cast<size_t>(found - names.begin());
    };
    job.queue = static_cast<uint16_t>(intern("queue", workload.queue_names, kNoQueue));
    job.priority_class = static_cast<uint8_t>(intern("priority_class", workload.priority_class_names, kNoPriorityClass));
    if (const auto flavor = j->find("flavor"); flavor != j->end() && flavor->is_string()) {
      std::vector<std::string>& flavors = run->second->flavors;  // the run's, in order of first mention
      auto found = std::find(flavors.begin(), flavors.end(), flavor->get<std::string>());
      if (found == flavors.end()) found = flavors.insert(flavors.end(), flavor->get<std::string>());
      record.flavor = static_cast<int16_t>(found - flavors.begin());
    }
    // An LLM job: its catalog model (a name this build does not know is read as no model, as an
    // image model's is) and the configuration it ran with: "llm_config" (every key of a job list's
    // "llm"), or, in files written before it, the layout "parallelism" alone.
    const auto config = j->find("llm_config");
    const auto layout = j->find("parallelism");
    std::optional<LlmJob> spec;
    if (config != j->end()) {
      const auto model = config->is_object() ? config->find("model") : config->end();
      const bool unknown =
          config->is_object() && model != config->end() && model->is_string() && !find_llm_model(model->get<std::string>());
      if (!unknown) {
        JsonErrors errors(path + ":" + std::to_string(number));
        spec = read_llm_config(errors, JsonAt{&*config, "/llm_config"}, job.total_gpus());
        if (errors.failed()) return errors.error();
      }
    } else if (layout != j->end()) {
      const auto sizes = layout->is_string() ? read_layout(layout->get<std::string>()) : std::nullopt;
      if (!sizes)
        return Error{path + ":" + std::to_string(number) + ": /parallelism: expected \"tp<T> pp<P> dp<D> cp<C> ep<E>\""};
      const auto model = j->find("model");
      if (model != j->end() && model->is_string())
        if (auto found = find_llm_model(model->get<std::string>())) {
          spec = LlmJob{*found, *sizes};
          spec->settings_known = false;
        }
    }
    if (spec) {  // one spec per distinct configuration of the run
      auto& specs = llm_specs[run->second];
      if (!specs) specs = std::make_shared<std::vector<LlmJob>>();
      auto same = std::find(specs->begin(), specs->end(), *spec);
      if (same == specs->end() && specs->size() < kNoLlm) same = specs->insert(specs->end(), *spec);
      if (same != specs->end()) job.llm = static_cast<uint16_t>(same - specs->begin());
    }
    workload.jobs.push_back(job);
    run->second->jobs.push_back(std::move(record));
  }
  for (auto& [run, workload] : workloads) {
    workload->llm_jobs = llm_specs[run];
    if (!workload->jobs.empty()) run->workload = workload;
  }
  return Status::success();
}

}  // namespace topsim
