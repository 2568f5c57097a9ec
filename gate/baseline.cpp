// The baseline file of `topsim check` (schema topsim.quality-baseline/1), read and written here:
// per scenario key and watched metric its mean, sd and runs; keys sorted, numbers rounded to
// 1e-6, so an unchanged tree writes the same bytes.
#include <cmath>

#include <nlohmann/json.hpp>

#include "formats/support/json_reader.h"
#include "gate/quality_gate.h"
#include "util/digest.h"
#include "util/input_file.h"
#include "util/number_format.h"

namespace topsim {

Expected<Baseline> load_baseline(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return Error{text.error().message + " (write it with topsim check --update)"};
  auto json = parse_json_text(*text, path);
  if (!json) return json.error();
  JsonErrors errors(path);
  JsonObject top(errors, JsonAt{&*json, ""}, {"schema", "suite", "scenarios", "inputs"});
  if (!top.is_object()) return errors.error();
  if (top.string("schema").value_or("") != kBaselineSchema)
    return Error{path + ": /schema: not a topsim quality baseline (expected \"" + std::string(kBaselineSchema) + "\")"};
  Baseline baseline;
  baseline.suite = top.string("suite").value_or("");
  const auto scenarios = top.member("scenarios");
  if (!scenarios || !scenarios->value->is_object()) return Error{path + ": /scenarios: must be an object"};
  for (const auto& [key, metrics] : scenarios->value->items()) {
    if (!metrics.is_object())
      return Error{path + ": " + scenarios->member(key).pointer + ": must be an object of metrics (mean, sd, runs each)"};
    for (const auto& [name, v] : metrics.items()) {
      const JsonAt at = scenarios->member(key).member(name);
      JsonObject value(errors, at, {"mean", "sd", "runs"});
      const auto mean = value.number("mean", -1e300, 1e300), sd = value.number("sd", 0, 1e300);
      const auto runs = value.integer("runs", 1, 100000);
      if (errors.failed()) return errors.error();
      if (!mean || !sd || !runs) return Error{path + ": " + at.pointer + ": needs mean, sd and runs"};
      baseline.scenarios[key][name] = {*mean, *sd, static_cast<int>(*runs)};
    }
  }
  if (const auto inputs = top.member("inputs")) {
    if (!inputs->value->is_object()) return Error{path + ": /inputs: must be an object of scenario digests"};
    for (const auto& [key, digest] : inputs->value->items()) {
      const std::string text = digest.is_string() ? digest.get<std::string>() : "";
      if (text.size() != 16 || text.find_first_not_of("0123456789abcdef") != std::string::npos)
        return Error{path + ": " + inputs->member(key).pointer + ": expected 16 hexadecimal digits"};
      baseline.inputs[key] = std::stoull(text, nullptr, 16);
    }
  }
  return baseline;
}

Status check_baseline_inputs(const Suite& suite, const Baseline& baseline) {
  for (const SuiteScenario& entry : suite.scenarios) {
    const auto measured = baseline.inputs.find(entry.key);
    if (measured != baseline.inputs.end() && measured->second != entry.inputs)
      return Error{suite.baseline_path + ": /inputs/" + entry.key + ": measured on other inputs than " + entry.path +
                   " and the files it reads now (changed since; measure them with topsim check --update)"};
  }
  return Status::success();
}

std::string render_baseline(const Suite& suite, const SuiteValues& values) {
  nlohmann::json root;  // std::map-backed objects: keys sorted
  root["schema"] = kBaselineSchema;
  root["suite"] = suite.name;
  root["scenarios"] = nlohmann::json::object();
  root["inputs"] = nlohmann::json::object();
  for (const SuiteScenario& entry : suite.scenarios)
    if (values.count(entry.key)) root["inputs"][entry.key] = hex64(entry.inputs);
  for (const auto& [scenario, metrics] : values)
    for (const auto& [name, v] : metrics)
      root["scenarios"][scenario][name] = {{"mean", rounded_micro(v.mean)}, {"sd", rounded_micro(v.sd)}, {"runs", v.runs}};
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
