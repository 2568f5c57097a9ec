// `topsim estimate --node MODEL --gpus N --model NAME --tp T --pp P [options]`: one LLM training
// job's step on an idle cluster of one node type, placed by the topology-aware allocator
// (core/llm_estimate.h): step time, tokens/s, MFU, memory per GPU and the step's breakdown.
#include <fmt/format.h>

#include <charconv>

#include "cli/command_table.h"
#include "cli/node_options.h"
#include "core/builtin_models.h"
#include "core/llm_estimate.h"
#include "core/topology.h"
#include "reports/llm_estimate_report.h"
#include "util/suggest.h"

namespace topsim::cli {
namespace {

template <class E>
Status parse_choice(const char* option, const std::string& text, E& out) {
  const auto value = parse_enum<E>(text);
  const std::vector<std::string> names = enum_name_list<E>();
  if (!value)
    return Error{fmt::format("--{}: unknown value '{}'{} ({})", option, text, did_you_mean(text, names), join_names(names))};
  out = *value;
  return {};
}

class Estimate : public Command {
 public:
  void declare(OptionSet& options) override {
    options.visible.add_options()("gpus", po::value(&gpus_)->value_name("N"), "GPUs of the job; required")(
        "model", po::value(&model_name_)->value_name("NAME"), "LLM, e.g. llama3-70b (see 'topsim estimate --help'); required")(
        "tp", po::value(&c_.tp)->value_name("T"), "tensor-parallel size (default 1)")("pp", po::value(&c_.pp)->value_name("P"),
                                                                                      "pipeline-parallel size (default 1)")(
        "dp", po::value(&c_.dp)->value_name("D"), "data-parallel size (default: N / (tp x pp x cp))")(
        "cp", po::value(&c_.cp)->value_name("C"), "context-parallel size (default 1)")(
        "ep", po::value(&c_.ep)->value_name("E"), "expert-parallel size, mixture-of-experts models (default 1)")(
        "vpp", po::value(&c_.vpp)->value_name("V"), "virtual pipeline stages per GPU, interleaved 1F1B (default 1)")(
        "seq", po::value(&c_.sequence)->value_name("S"), "tokens per sequence (default: the model's)")(
        "global-batch", po::value(&c_.global_batch)->value_name("B"),
        "sequences per step (default: one micro-batch per data-parallel rank)")(
        "micro-batch", po::value(&micro_batch_)->value_name("M|auto"),
        "sequences per micro-batch (default 1); auto: the fastest that fits of the sizes dividing the sequences each "
        "data-parallel rank takes (needs --global-batch)")(
        "recompute", po::value(&recompute_)->value_name("R"),
        "activation recomputation: full, selective or none (default selective)")(
        "sequence-parallel", po::bool_switch(&c_.sequence_parallel), "sequence parallelism within TP groups")(
        "zero", po::value(&c_.zero)->value_name("Z"),
        "0 replicated optimizer, 1 distributed optimizer, 2 + gradients, 3 + parameters (FSDP) (default 1)")(
        "precision", po::value(&precision_)->value_name("P"), "bf16 or fp8 (default bf16)")(
        "attention", po::value(&attention_)->value_name("A"),
        "attention kernels: fused (FlashAttention, Transformer Engine) or unfused (the s x s scores in memory, "
        "Megatron-LM before FlashAttention) (default fused)")("tp-overlap", po::bool_switch(&c_.tp_overlap),
                                                              "overlap TP collectives with GEMMs (Megatron --tp-comm-overlap)")(
        "offload-layers", po::value(&c_.offload_layers)->value_name("L"),
        "layers whose activations wait in host memory for the backward pass (Megatron-Core "
        "cpu_offloading_num_layers; needs pp 1 and --recompute none; default 0)")(
        "no-dp-overlap", po::bool_switch(&no_dp_overlap_), "do not overlap gradient reduce / parameter gather with compute")(
        "nvlink-domain", po::value(&nvlink_domain_)->value_name("N"),
        "nodes per multi-node NVLink domain (default: the built-in model's, 18 for gb200-nvl72-tray and gb300-nvl72-tray; "
        "else 1, each node its own)")(
        "segment", po::value(&segment_)->value_name("S"),
        "the job's nodes come in segments of S, each inside one NVLink domain, as many whole segments per domain as fit "
        "(Slurm's --segment; default: the whole job when one domain holds it, else the faster of whole domains in "
        "order and segments of 16 where 16 divides its nodes, NVIDIA's recommendation for GB200 NVL72 jobs of 128 "
        "GPUs and more)")("json", po::bool_switch(&json_), "print the result as one JSON object");
    node_.declare(options);
  }

  Status finish(const po::variables_map& values) override {
    if (!values.count("node"))
      return Error{"missing --node <model|file> (a built-in model such as hgx-h100, see 'topsim topo models')"};
    if (Status s = node_.finish(values); !s) return s;
    if (!values.count("gpus")) return Error{"missing --gpus N (the job's GPUs)"};
    if (gpus_ < 1) return Error{fmt::format("--gpus: must be at least 1, got {}", gpus_)};
    if (!values.count("model")) return Error{"missing --model NAME (e.g. llama3-70b)"};
    auto model = find_llm_model(model_name_);
    if (!model) return Error{"--model: " + model.error().message};
    model_ = *model;
    if (values.count("recompute"))
      if (Status s = parse_choice("recompute", recompute_, c_.recompute); !s) return s;
    if (values.count("precision"))
      if (Status s = parse_choice("precision", precision_, c_.precision); !s) return s;
    if (values.count("attention"))
      if (Status s = parse_choice("attention", attention_, c_.attention); !s) return s;
    c_.overlap_dp = !no_dp_overlap_;
    if (values.count("micro-batch")) {
      fastest_micro_batch_ = micro_batch_ == "auto";
      if (fastest_micro_batch_ && !values.count("global-batch"))
        return Error{"--micro-batch auto needs --global-batch B (the sequences a step takes, which the micro-batches divide)"};
      if (!fastest_micro_batch_) {
        const char* end = micro_batch_.data() + micro_batch_.size();
        const auto [stop, error] = std::from_chars(micro_batch_.data(), end, c_.micro_batch);
        if (error != std::errc() || stop != end || micro_batch_.empty())
          return Error{fmt::format("--micro-batch: expected a whole number or 'auto', got '{}'", micro_batch_)};
      }
    }
    const std::pair<const char*, int> sizes[] = {{"tp", c_.tp},
                                                 {"pp", c_.pp},
                                                 {"dp", c_.dp},
                                                 {"cp", c_.cp},
                                                 {"ep", c_.ep},
                                                 {"vpp", c_.vpp},
                                                 {"micro-batch", c_.micro_batch}};
    for (const auto& [option, value] : sizes)
      if (value < 1) return Error{fmt::format("--{}: must be at least 1, got {}", option, value)};
    if (values.count("nvlink-domain") && nvlink_domain_ < 1)
      return Error{fmt::format("--nvlink-domain: must be at least 1, got {}", nvlink_domain_)};
    if (values.count("segment") && segment_ < 1) return Error{fmt::format("--segment: must be at least 1, got {}", segment_)};
    if (!values.count("dp")) {
      const long long model_parallel = 1LL * c_.tp * c_.pp * c_.cp;
      if (model_parallel < 1 || gpus_ % model_parallel != 0)
        return Error{fmt::format("--gpus {} is not a multiple of tp x pp x cp = {}", gpus_, model_parallel)};
      c_.dp = static_cast<int>(gpus_ / model_parallel);
    }
    return {};
  }

  Outcome execute(Streams io) override {
    Expected<NodeModel> node = node_.load(io.notes);
    if (!node) return Outcome::bad_input(node.error().message);
    if (Status s = validate_gpus(); !s) return Outcome::bad_input(s.error().message);
    const int domain = nvlink_domain_ > 0 ? nvlink_domain_ : builtin_nvlink_domain_nodes(node->name);
    const int domain_nodes = domain > 1 ? domain : 0;
    if (segment_ > 0 && domain_nodes == 0)
      return Outcome::bad_input(
          fmt::format("--segment: {} has no multi-node NVLink domains (give --nvlink-domain N)", node->name));
    const int node_gpus = static_cast<int>(node->gpus.size());
    if (segment_ > 0 && node_gpus > 0)  // the job's nodes: idle nodes filled in order (core/llm_links.h)
      if (auto fill = segment_domain_nodes(domain_nodes, segment_, (gpus_ + node_gpus - 1) / node_gpus); !fill)
        return Outcome::bad_input("--segment: " + fill.error().message);
    auto estimate =
        fastest_micro_batch_
            ? estimate_llm_idle_fastest_micro_batch(*model_, c_, *node, NetworkModel{}, std::nullopt, domain_nodes, segment_)
            : estimate_llm_idle(*model_, c_, *node, NetworkModel{}, std::nullopt, domain_nodes, segment_);
    if (!estimate) return Outcome::bad_input(estimate.error().message);
    c_.micro_batch = estimate->micro_batch;
    LlmEstimateReport report{node->name, node_gpus, node->host_memory_gib, model_, c_, std::move(*estimate)};
    report.micro_batch_chosen = fastest_micro_batch_;
    io.out << (json_ ? render_llm_estimate_json(report) : render_llm_estimate_text(report));
    return Outcome::ok();
  }

 private:
  Status validate_gpus() const {
    const long long product = 1LL * c_.tp * c_.pp * c_.dp * c_.cp;
    if (product != gpus_)
      return Error{fmt::format("tp x pp x dp x cp = {} x {} x {} x {} = {}, but --gpus is {}", c_.tp, c_.pp, c_.dp, c_.cp,
                               product, gpus_)};
    return {};
  }

  NodeArgument node_;
  int gpus_ = 0;
  int nvlink_domain_ = 0;  // 0: the model's
  int segment_ = 0;        // 0: the default layouts (core/llm_estimate.h default_segments)
  std::string model_name_, recompute_, precision_, attention_, micro_batch_;
  bool no_dp_overlap_ = false, json_ = false;
  bool fastest_micro_batch_ = false;  // --micro-batch auto
  const LlmModel* model_ = nullptr;
  ParallelConfig c_;
};

const Registrar registered{{
    "estimate",
    "estimate an LLM training job's step time, tokens/s, MFU and memory on idle nodes of one type",
    "--node <model|file> --gpus N --model NAME [--tp T] [--pp P] [options]",
    "Places the job on idle nodes of the type (the topology-aware allocator's choice; ranks in\n"
    "Megatron's order: TP fastest, then CP, DP, PP; consecutive nodes fill multi-node NVLink\n"
    "domains, e.g. GB200 NVL72 racks of 18 trays, whole or in --segment S segments) and times one\n"
    "step from its parts: compute at the GPU's calibrated share of peak, tensor-parallel\n"
    "collectives on the TP groups' links, the pipeline bubble and sends, data-parallel gradient\n"
    "traffic not hidden, expert all-to-alls and the optimizer (docs/llm-training.md). Memory per\n"
    "GPU counts parameters, gradients and optimizer state by ZeRO stage and activations by\n"
    "recomputation; a job that does not fit is an error.\n"
    "\n"
    "Models: llama2-7b, llama2-13b, llama2-70b, llama3-8b, llama3-70b, llama3.1-405b,\n"
    "mixtral-8x7b, gpt3-175b and the Megatron-LM papers' GPTs: megatron-1.7b, -3.6b, -7.5b, -18b,\n"
    "-22b, -39b, -76b, -146b, -310b, -530b, -1t.",
    [] { return std::make_unique<Estimate>(); },
}};

}  // namespace
}  // namespace topsim::cli
