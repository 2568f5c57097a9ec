#include "formats/jobs/llm_config_json.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/llm_catalog.h"
#include "util/enum_names.h"
#include "util/suggest.h"

namespace topsim {
namespace {

constexpr int64_t kMaxSize = 65535;  // tp, pp, dp, cp, ep, vpp, micro-batch, offloaded layers

// The keys the object may hold.
const std::vector<std::string> kKeys = {"model",
                                        "tp",
                                        "pp",
                                        "dp",
                                        "cp",
                                        "ep",
                                        "vpp",
                                        "sequence",
                                        "global_batch",
                                        "micro_batch",
                                        "recompute",
                                        "sequence_parallel",
                                        "zero",
                                        "precision",
                                        "tp_overlap",
                                        "dp_overlap",
                                        "offload_layers",
                                        "attention"};

std::optional<bool> read_flag(JsonErrors& errors, const JsonObject& o, std::string_view key) {
  if (!o.has(key)) return std::nullopt;
  const JsonAt at = *o.member(key);
  if (!at.value->is_boolean())
    return errors.fail(at.pointer, "must be true or false, got " + describe_json(*at.value)), std::nullopt;
  return at.value->get<bool>();
}

template <class E>
void read_choice(JsonErrors& errors, const JsonObject& o, std::string_view key, E& out) {
  const auto text = o.string(key);
  if (!text) return;
  const auto value = parse_enum<E>(*text);
  if (!value) return errors.fail(o.pointer(key), unknown_name(std::string(key), *text, enum_name_list<E>()));
  out = *value;
}

}  // namespace

std::optional<LlmJob> read_llm_config(JsonErrors& errors, const JsonAt& at, int gpus) {
  const JsonObject o(errors, at, kKeys);
  if (!o.is_object()) return std::nullopt;
  LlmJob llm;
  if (const auto name = o.require("model") ? o.string("model") : std::nullopt) {
    auto model = find_llm_model(*name);
    if (!model) return errors.fail(o.pointer("model"), model.error().message), std::nullopt;
    llm.model = *model;
  }
  ParallelConfig& c = llm.config;
  const std::pair<const char*, int*> sizes[] = {{"tp", &c.tp}, {"pp", &c.pp},   {"cp", &c.cp},
                                                {"ep", &c.ep}, {"vpp", &c.vpp}, {"micro_batch", &c.micro_batch},
                                                {"dp", &c.dp}};
  // "micro_batch": "auto" (LlmJob::micro_batch_auto): 1 for the checks, chosen per node type.
  const auto micro_batch = o.member("micro_batch");
  llm.micro_batch_auto = micro_batch && micro_batch->value->is_string();
  for (const auto& [key, field] : sizes)
    if (!(llm.micro_batch_auto && field == &c.micro_batch)) *field = static_cast<int>(o.integer(key, 1, kMaxSize).value_or(1));
  if (llm.micro_batch_auto) {
    if (micro_batch->value->get<std::string>() != "auto")
      errors.fail(micro_batch->pointer, "must be an integer in 1.." + std::to_string(kMaxSize) + " or \"auto\", got " +
                                            describe_json(*micro_batch->value));
    else if (!o.has("global_batch"))
      errors.fail(micro_batch->pointer,
                  "\"auto\" needs \"global_batch\": the micro-batch is chosen among the divisors of global_batch / dp");
  }
  c.sequence = static_cast<int>(o.integer("sequence", 1, 1 << 24).value_or(0));
  c.global_batch = static_cast<int>(o.integer("global_batch", 1, 1 << 24).value_or(0));
  c.zero = static_cast<int>(o.integer("zero", 0, 3).value_or(1));
  c.offload_layers = static_cast<int>(o.integer("offload_layers", 0, kMaxSize).value_or(0));
  read_choice(errors, o, "recompute", c.recompute);
  read_choice(errors, o, "precision", c.precision);
  read_choice(errors, o, "attention", c.attention);
  c.sequence_parallel = read_flag(errors, o, "sequence_parallel").value_or(false);
  c.tp_overlap = read_flag(errors, o, "tp_overlap").value_or(false);
  c.overlap_dp = read_flag(errors, o, "dp_overlap").value_or(true);
  if (errors.failed() || !llm.model) return std::nullopt;
  if (!o.has("dp")) c.dp = std::max(1, gpus / std::max(1, c.tp * c.pp * c.cp));
  if (const Status valid = validate_parallel_shape(*llm.model, c, gpus); !valid)
    return errors.fail(at.pointer, valid.error().message), std::nullopt;
  return llm;
}

}  // namespace topsim
