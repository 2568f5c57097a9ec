#include "reports/llm_estimate_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/number_format.h"

namespace topsim {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson link_json(const CommPath& path) {
  return {{"ranks", path.ranks},
          {"hosts", path.hosts},
          {"bus_gbps", rounded_micro(path.bus_bandwidth_gbps)},
          {"transport", enum_name(path.transport)},
          {"algorithm", enum_name(path.algorithm)}};
}

std::string link_text(const char* name, const CommPath& path) {
  if (path.ranks < 2) return "";
  return fmt::format("  {:<3} {} ranks on {} host{}, {} GB/s bus ({}, {})\n", name, path.ranks, path.hosts,
                     path.hosts == 1 ? "" : "s", format_number(path.bus_bandwidth_gbps), enum_name(path.transport),
                     enum_name(path.algorithm));
}

std::string share(double part, double whole) { return whole > 0 ? format_share_percent(100 * part / whole) : "n/a"; }

}  // namespace

std::string llm_settings_text(const LlmModel& model, const ParallelConfig& c, std::string_view micro_batch) {
  return fmt::format(
      "sequence {} tokens, global batch {} sequences, micro-batch {}, recompute {}, sequence parallel {}, zero {}, {}, {} "
      "attention",
      c.seq(model), c.batch(), micro_batch, enum_name(c.recompute), c.sequence_parallel ? "on" : "off", c.zero,
      enum_name(c.precision), enum_name(c.attention));
}

std::string render_llm_estimate_text(const LlmEstimateReport& r) {
  const ParallelConfig& c = r.config;
  const LlmStep& s = r.estimate.step;
  const LlmLinks& l = r.estimate.links;
  std::string out;
  out += fmt::format("{} on {} GPUs: {} node{} of {} ({} GPUs each)", r.model->display_name, c.gpus(), r.estimate.nodes,
                     r.estimate.nodes == 1 ? "" : "s", r.node, r.node_gpus);
  if (const int per = r.estimate.nvlink_domain_nodes; per > 0) {
    const int filled = r.estimate.domain_job_nodes, domains = (r.estimate.nodes + filled - 1) / filled;
    out += fmt::format(" in {} NVLink domain{} of {} nodes", domains, domains == 1 ? "" : "s", per);
    if (domains > 1 && filled < per)
      out += fmt::format(", {} of the job's in each (segments of {})", filled, r.estimate.segment_nodes);
  }
  out += "\n";
  const std::string micro_batch =
      fmt::format("{} ({}{} per step)", c.micro_batch, r.micro_batch_chosen ? "the fastest that fits, " : "", c.microbatches());
  out += fmt::format("parallelism: tp {} x pp {} x dp {} x cp {}, ep {}, vpp {}; {}\n", c.tp, c.pp, c.dp, c.cp, c.ep, c.vpp,
                     llm_settings_text(*r.model, c, micro_batch));
  if (c.offload_layers > 0)
    out += fmt::format("offload: the activations of {} layer{} wait in host memory ({} GB/s per direction)\n", c.offload_layers,
                       c.offload_layers == 1 ? "" : "s", format_number(host_copy_gbps(*r.estimate.gpu)));
  out += fmt::format("step time       {} s\n", format_number(s.step_ms / 1e3));
  out += fmt::format("throughput      {} tokens/s, {} tokens/s per GPU\n", format_number(s.tokens_per_sec),
                     format_number(s.tokens_per_sec_per_gpu));
  out += fmt::format("model FLOPs     {} TFLOP/s per GPU, MFU {}% (of the {} dense BF16 peak)\n",
                     format_number(s.model_tflops_per_gpu), format_number(100 * s.mfu), r.estimate.gpu->name);
  out += fmt::format("memory per GPU  {} GiB of {} ({} parameters and optimizer state, {} activations)\n",
                     format_number(s.memory.total_gib()), format_number(r.estimate.gpu->memory_gib),
                     format_number(s.memory.parameters_gib), format_number(s.memory.activations_gib));
  if (c.offload_layers > 0) {
    const int on_node = llm_gpus_on_node(c, r.node_gpus);
    const double host = llm_offload_host_gib(*r.model, c, on_node);
    out += fmt::format("host memory     {} GiB offloaded per node ({} GPUs x {})", format_number(host), on_node,
                       format_number(host / on_node));
    out += r.host_memory_gib > 0 ? fmt::format(" of {} GiB\n", format_number(r.host_memory_gib))
                                 : fmt::format("; {} states no host memory: not checked\n", r.node);
  }
  out += "step breakdown:\n";
  for (const auto& [name, part] : kLlmStepParts)
    if (part != &LlmStep::offload_ms || c.offload_layers > 0)  // the offload's row only for a job that offloads
      out += fmt::format("  {:<22} {:>10} ms  {:>6}\n", name, format_number(s.*part), share(s.*part, s.step_ms));
  out += fmt::format("  (data-parallel traffic {} ms in all, the rest hidden behind compute)\n", format_number(s.dp_comm_ms));
  if (s.step_ms > 0 && s.pp_bubble_ms / s.step_ms > 0.25)
    out += fmt::format(
        "note: the pipeline bubble is {} of the step; more micro-batches per step (--global-batch) or "
        "virtual stages (--vpp) shrink it\n",
        share(s.pp_bubble_ms, s.step_ms));
  out += "parallel groups (slowest of each kind):\n";
  out += link_text("tp", l.tp) + link_text("cp", l.cp) + link_text("dp", l.dp) + link_text("ep", l.ep) + link_text("pp", l.pp);
  return out;
}

std::string render_llm_estimate_json(const LlmEstimateReport& r) {
  const ParallelConfig& c = r.config;
  const LlmStep& s = r.estimate.step;
  const LlmLinks& l = r.estimate.links;
  auto sec = [](double ms) { return rounded_micro(ms / 1e3); };
  OrderedJson out = {
      {"node", r.node},
      {"model", r.model->name},
      {"gpus", c.gpus()},
      {"nodes", r.estimate.nodes},
      {"nvlink_domain_nodes", r.estimate.nvlink_domain_nodes},
      {"segment_nodes", r.estimate.segment_nodes},
      {"config",
       {{"tp", c.tp},
        {"pp", c.pp},
        {"dp", c.dp},
        {"cp", c.cp},
        {"ep", c.ep},
        {"vpp", c.vpp},
        {"sequence", c.seq(*r.model)},
        {"global_batch", c.batch()},
        {"micro_batch", c.micro_batch},
        {"micro_batch_chosen", r.micro_batch_chosen},
        {"microbatches", c.microbatches()},
        {"recompute", enum_name(c.recompute)},
        {"sequence_parallel", c.sequence_parallel},
        {"zero", c.zero},
        {"precision", enum_name(c.precision)},
        {"attention", enum_name(c.attention)},
        {"tp_overlap", c.tp_overlap},
        {"dp_overlap", c.overlap_dp},
        {"offload_layers", c.offload_layers}}},
      {"step_s", sec(s.step_ms)},
      {"tokens_per_s", rounded_micro(s.tokens_per_sec)},
      {"tokens_per_s_per_gpu", rounded_micro(s.tokens_per_sec_per_gpu)},
      {"model_tflops_per_gpu", rounded_micro(s.model_tflops_per_gpu)},
      {"mfu", rounded_micro(s.mfu)},
      {"memory_gib",
       {{"parameters", rounded_micro(s.memory.parameters_gib)},
        {"activations", rounded_micro(s.memory.activations_gib)},
        {"total", rounded_micro(s.memory.total_gib())},
        {"gpu", rounded_micro(r.estimate.gpu->memory_gib)}}},
      {"breakdown_s",
       {{"compute", sec(s.compute_ms)},
        {"tp", sec(s.tp_ms)},
        {"ep", sec(s.ep_ms)},
        {"cp", sec(s.cp_ms)},
        {"pp_bubble", sec(s.pp_bubble_ms)},
        {"pp_p2p", sec(s.pp_p2p_ms)},
        {"dp_exposed", sec(s.dp_exposed_ms)},
        {"optimizer", sec(s.optimizer_ms)},
        {"offload_exposed", sec(s.offload_ms)}}},
      {"dp_comm_s", sec(s.dp_comm_ms)},
      {"links",
       {{"tp", link_json(l.tp)},
        {"cp", link_json(l.cp)},
        {"dp", link_json(l.dp)},
        {"ep", link_json(l.ep)},
        {"pp", link_json(l.pp)}}},
  };
  if (c.offload_layers > 0) {  // the host's side of the offload; null: the node states no host memory
    out["memory_gib"]["host_offload_per_node"] =
        rounded_micro(llm_offload_host_gib(*r.model, c, llm_gpus_on_node(c, r.node_gpus)));
    out["memory_gib"]["host"] = r.host_memory_gib > 0 ? nlohmann::json(rounded_micro(r.host_memory_gib)) : nlohmann::json();
  }
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
