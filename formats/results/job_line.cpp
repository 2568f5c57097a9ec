#include "formats/results/job_line.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "core/model_catalog.h"
#include "util/number_format.h"

namespace topsim {
namespace {

double seconds(int64_t ms) { return rounded_micro(static_cast<double>(ms) / 1000.0); }

// Text that nlohmann::json writes as it is: printable ASCII other than '"' and '\'.
bool plain(std::string_view text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x80 || c == '"' || c == '\\') return false;
  return true;
}

void put_string(std::string& out, std::string_view text) {
  if (plain(text)) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  // Escapes and UTF-8 (invalid sequences replaced by U+FFFD) exactly as the library does them.
  out += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <class Integer>
void put_integer(std::string& out, Integer value) {
  char buffer[24];
  const char* end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out.append(buffer, static_cast<size_t>(end - buffer));
}

// nlohmann's own shortest round-trip form (Grisu2: "1.0", "0.5", "1e-07"); null when not finite.
void put_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[64];
  const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, static_cast<size_t>(end - buffer));
}

// `,"key":` (keys are literals of this file: plain ASCII).
void key(std::string& out, std::string_view name) {
  out += ",\"";
  out += name;
  out += "\":";
}

// `,"key":value` for a number (integers as they are, doubles as nlohmann writes them) or text.
template <class Value>
void field(std::string& out, std::string_view name, const Value& value) {
  key(out, name);
  if constexpr (std::is_same_v<Value, bool>)
    out += value ? "true" : "false";
  else if constexpr (std::is_floating_point_v<Value>)
    put_double(out, value);
  else if constexpr (std::is_integral_v<Value>)
    put_integer(out, value);
  else
    put_string(out, value);
}

void put_pods(std::string& out, const JobRecord& r) {
  key(out, "pods");
  out += '[';
  for (size_t p = 0; p < r.pods.size(); ++p) {
    out += p ? ",{\"node\":" : "{\"node\":";
    put_integer(out, r.pods[p].node);
    out += ",\"gpus\":[";
    for (size_t g = 0; g < r.pods[p].gpus.size(); ++g) {
      if (g) out += ',';
      put_integer(out, r.pods[p].gpus[g]);
    }
    out += "]}";
  }
  out += ']';
}

void put_ask(std::string& out, const JobSpec& job) {
  if (job.is_share()) {
    field(out, "gpu_mem_gib", job.gpu_mem_gib);
    if (job.gpu_core_percent > 0) field(out, "gpu_core_percent", unsigned{job.gpu_core_percent});
  } else if (job.kind == JobKind::TracePod) {
    field(out, "num_gpu", job.gpus_per_worker);
    field(out, "gpu_milli", job.gpu_milli);
  } else {
    field(out, "workers", job.workers);
    field(out, "gpus_per_worker", job.gpus_per_worker);
  }
}

void put_times(std::string& out, const JobRecord& r) {
  field(out, "submit_s", seconds(r.submit_ms));
  if (r.start_ms >= 0) field(out, "wait_s", seconds(r.start_ms - r.submit_ms));
  if (r.finish_ms >= 0) field(out, "jct_s", seconds(r.finish_ms - r.submit_ms));
  if (r.start_ms >= 0) field(out, "start_s", seconds(r.start_ms));
  if (r.finish_ms >= 0) field(out, "finish_s", seconds(r.finish_ms));
}

// An LLM job's step on its placement (core/llm_step.h): seconds, tokens/s, MFU, the breakdown.
void put_llm(std::string& out, const LlmStep& step) {
  key(out, "llm");
  out += '{';
  const std::pair<const char*, double> figures[] = {{"step_s", step.step_ms / 1e3},
                                                    {"tokens_per_s_per_gpu", step.tokens_per_sec_per_gpu},
                                                    {"mfu", step.mfu},
                                                    {"compute_s", step.compute_ms / 1e3},
                                                    {"tp_s", step.tp_ms / 1e3},
                                                    {"ep_s", step.ep_ms / 1e3},
                                                    {"cp_s", step.cp_ms / 1e3},
                                                    {"pp_bubble_s", step.pp_bubble_ms / 1e3},
                                                    {"pp_p2p_s", step.pp_p2p_ms / 1e3},
                                                    {"dp_exposed_s", step.dp_exposed_ms / 1e3},
                                                    {"optimizer_s", step.optimizer_ms / 1e3},
                                                    {"offload_s", step.offload_ms / 1e3}};
  for (size_t i = 0; i < std::size(figures); ++i) {
    if (i) out += ',';
    put_string(out, figures[i].first);
    out += ':';
    put_double(out, rounded_micro(figures[i].second));
  }
  if (step.micro_batch > 0) field(out, "micro_batch", step.micro_batch);  // sequences per micro-batch it ran
  out += '}';
}

// An LLM job's configuration as it ran, every key of a job list's "llm" object resolved (dp, sequence,
// global batch; the micro-batch "auto" when chosen per node type), so the object reads back as
// the job list's does (formats/jobs/llm_config_json.h) and can be copied into one.
void put_llm_config(std::string& out, const LlmJob& llm, const ParallelConfig& c) {
  key(out, "llm_config");
  out += "{\"model\":";
  put_string(out, llm.model->name);
  for (const auto& [name, size] :
       {std::pair{"tp", c.tp}, std::pair{"pp", c.pp}, std::pair{"dp", c.dp}, std::pair{"cp", c.cp}, std::pair{"ep", c.ep},
        std::pair{"vpp", c.vpp}, std::pair{"sequence", c.seq(*llm.model)}, std::pair{"global_batch", c.batch()}})
    field(out, name, size);
  if (llm.micro_batch_auto)
    field(out, "micro_batch", std::string_view("auto"));
  else
    field(out, "micro_batch", c.micro_batch);
  field(out, "recompute", enum_name(c.recompute));
  field(out, "sequence_parallel", c.sequence_parallel);
  field(out, "zero", c.zero);
  field(out, "precision", enum_name(c.precision));
  field(out, "tp_overlap", c.tp_overlap);
  field(out, "dp_overlap", c.overlap_dp);
  field(out, "attention", enum_name(c.attention));
  field(out, "offload_layers", c.offload_layers);
  out += '}';
}

void put_training(std::string& out, const JobSpec& job, const JobRecord& r) {
  field(out, "transport", enum_name(r.comm.transport));
  field(out, "ring_gbps", rounded_micro(r.comm.bus_bandwidth_gbps));
  field(out, "samples_per_sec", rounded_micro(r.samples_per_sec));
  field(out, "ideal_samples_per_sec", rounded_micro(r.ideal_samples_per_sec));
  if (r.work_samples > 0) field(out, "work_samples", rounded_micro(r.work_samples));
  field(out, "unit", job.throughput_unit());
  if (r.llm) put_llm(out, *r.llm);
  key(out, "cross_numa");
  out += r.cross_numa ? "true" : "false";
  if (r.host_network) {  // its pods shared their nodes' network: NCCL saw nodes, not pods
    key(out, "host_network");
    out += "true";
  }
  if (r.contended_ms > 0) {  // slowed by uplinks shared with other jobs
    field(out, "contended_s", rounded_micro(static_cast<double>(r.contended_ms) / 1e3));
    field(out, "least_network_share", rounded_micro(r.least_network_share));
  }
  key(out, "relaxed");
  out += '[';
  for (size_t i = 0; i < r.relaxed.size(); ++i) {
    if (i) out += ',';
    put_string(out, r.relaxed[i]);
  }
  out += ']';
}

}  // namespace

std::string parallelism_text(const ParallelConfig& c) {
  return "tp" + std::to_string(c.tp) + " pp" + std::to_string(c.pp) + " dp" + std::to_string(c.dp) + " cp" +
         std::to_string(c.cp) + " ep" + std::to_string(c.ep);
}

void append_job_line(std::string& out, std::string_view scheduler, uint64_t seed, const Workload& workload, const JobSpec& job,
                     const JobRecord& r, const std::vector<std::string>& flavors) {
  const uint32_t id = job.id;
  out += "{\"scheduler\":";
  put_string(out, scheduler);
  field(out, "seed", seed);
  field(out, "id", id);
  field(out, "name", workload.job_name(id));
  field(out, "kind", enum_name(job.kind));
  field(out, "state", enum_name(r.state));
  put_ask(out, job);
  const DnnModel* model = model_at(job.model);
  if (model) {
    field(out, "model", model->name);
    field(out, "framework", enum_name(job.framework));
  } else if (const LlmJob* llm = workload.llm_of(job)) {
    field(out, "model", llm->model->name);
    // An automatic job's follows its size and the GPU it ran on.
    const ParallelConfig c = llm->config_ran(job.total_gpus(), r.llm.get());
    field(out, "parallelism", parallelism_text(c));
    if (llm->settings_known) put_llm_config(out, *llm, c);  // not for a job read back from its layout alone
  }
  if (job.queue != kNoQueue && job.queue < workload.queue_names.size())
    field(out, "queue", std::string_view(workload.queue_names[job.queue]));
  if (job.priority_class != kNoPriorityClass && job.priority_class < workload.priority_class_names.size())
    field(out, "priority_class", std::string_view(workload.priority_class_names[job.priority_class]));
  if (job.gpu_models != kAnyGpuModel) {
    key(out, "gpu_models");  // the GPU models it selects, in catalog order
    out += '[';
    for (const std::string& name : workload.selected_gpu_names(job)) {
      if (out.back() != '[') out += ',';
      put_string(out, name);
    }
    out += ']';
  }
  if (const auto extras = workload.extras.find(id); extras != workload.extras.end() && !extras->second.annotations.empty()) {
    key(out, "annotations");  // the placement asks it carried, by key
    char separator = '{';
    for (const auto& [name, value] : extras->second.annotations) {
      out += separator;
      put_string(out, name);
      out += ':';
      put_string(out, value);
      separator = ',';
    }
    out += '}';
  }
  put_times(out, r);
  if (r.admitted_ms >= 0) field(out, "admitted_s", seconds(r.admitted_ms));
  if (r.flavor >= 0 && static_cast<size_t>(r.flavor) < flavors.size())  // its GPUs' ResourceFlavor
    field(out, "flavor", std::string_view(flavors[static_cast<size_t>(r.flavor)]));
  if (r.evictions > 0) {  // preempted (sim/tenancy/)
    field(out, "evictions", static_cast<uint32_t>(r.evictions));
    field(out, "preempted_gpu_s", seconds(r.lost_gpu_ms));
  }
  if (r.interruptions > 0) field(out, "interruptions", static_cast<uint32_t>(r.interruptions));  // failed nodes
  if (r.resizes > 0) field(out, "resizes", static_cast<uint32_t>(r.resizes));                    // elastic
  // Stops and checkpoints (sim/checkpoint.h): wall seconds, each only when it happened.
  for (const auto& [name, ms] : {std::pair{"recompute_s", r.recompute_ms}, std::pair{"restart_s", r.restart_ms},
                                 std::pair{"checkpoint_s", r.checkpoint_ms}, std::pair{"requeue_s", r.requeue_ms}})
    if (ms > 0) field(out, name, seconds(ms));
  put_pods(out, r);
  if (r.start_ms >= 0 && job.is_training()) put_training(out, job, r);
  if (!r.placement_note.empty()) field(out, "placement_note", std::string_view(r.placement_note));
  if (!r.reason.empty()) field(out, "reason", std::string_view(r.reason));
  out += "}\n";
}

}  // namespace topsim
