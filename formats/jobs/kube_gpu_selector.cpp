#include "formats/jobs/kube_gpu_selector.h"

#include <cstdint>

#include "core/hardware.h"
#include "formats/jobs/kube_yaml.h"
#include "sim/job.h"
#include "util/text.h"

namespace topsim {
namespace {

// Catalog indexes as bits (bit i = gpu_at(i)); what a job list's "gpu_models" holds.
using ModelSet = uint64_t;

ModelSet every_model() {
  ModelSet all = 0;
  for (int i = 0; i < 64 && gpu_at(i); ++i) all |= ModelSet{1} << i;
  return all;
}

struct Reader {
  const std::string& job_name;
  std::vector<std::string>& notes;

  // The models a list of label values names; `field` names the list. Values of no catalog GPU are
  // noted and dropped when `all_unknown_is_error` finds others, else they fail the manifest.
  ModelSet models(const YAML::Node& values, const std::string& field, bool all_unknown_is_error) {
    if (!values || !values.IsSequence() || values.size() == 0)
      throw ManifestFault{field + ": must be a non-empty list of " + kGpuProductLabel + " values"};
    ModelSet set = 0;
    std::vector<std::string> unknown;
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string value = text_of(values[i], field + "[" + std::to_string(i) + "]");
      if (const GpuModel* gpu = selectable_gpu_model(value))
        set |= ModelSet{1} << gpu->catalog_index;
      else
        unknown.push_back(value);
    }
    if (set == 0 && all_unknown_is_error) throw ManifestFault{field + ": " + unknown_gpu_products(unknown)};
    if (!unknown.empty() && all_unknown_is_error)
      notes.push_back(job_name + ": " + field + ": " + join(unknown, ", ") +
                      " name no catalog GPU: the job runs on the others it names");
    return set;
  }

  // One node selector term: its expressions on the product label, ANDed; every model when none.
  ModelSet term(const YAML::Node& term, const std::string& field) {
    ModelSet set = every_model();
    const YAML::Node expressions = child(term, "matchExpressions");
    if (!expressions) return set;
    if (!expressions.IsSequence()) throw ManifestFault{field + ".matchExpressions: must be a list"};
    for (size_t i = 0; i < expressions.size(); ++i) {
      const std::string at = field + ".matchExpressions[" + std::to_string(i) + "]";
      if (text_of(child(expressions[i], "key"), at + ".key") != kGpuProductLabel) continue;
      const std::string op = text_of(child(expressions[i], "operator"), at + ".operator");
      const YAML::Node values = child(expressions[i], "values");
      if (op == "In")
        set &= models(values, at + ".values", true);
      else if (op == "NotIn")
        set &= ~models(values, at + ".values", false);
      else if (op == "DoesNotExist")
        set = 0;  // a GPU pod on a node without the label: no GPU model topsim knows
      else if (op != "Exists")
        throw ManifestFault{at + ".operator: '" + op + "' is not In, NotIn, Exists or DoesNotExist (for " + kGpuProductLabel +
                            ")"};
    }
    return set;
  }

  // The models one pod template's spec selects.
  ModelSet pod(const PodGroup& group) {
    ModelSet set = every_model();
    const YAML::Node selected = child(child(group.spec, "nodeSelector"), kGpuProductLabel);
    if (selected) {
      const std::string field = group.spec_field + ".nodeSelector." + kGpuProductLabel;
      const GpuModel* gpu = selectable_gpu_model(text_of(selected, field));
      if (gpu == nullptr) throw ManifestFault{field + ": " + unknown_gpu_products({text_of(selected, field)})};
      set &= ModelSet{1} << gpu->catalog_index;
    }
    const YAML::Node affinity = child(child(group.spec, "affinity"), "nodeAffinity");
    const std::string at = group.spec_field + ".affinity.nodeAffinity";
    if (child(affinity, "preferredDuringSchedulingIgnoredDuringExecution"))
      notes.push_back(job_name + ": " + at +
                      ".preferredDuringSchedulingIgnoredDuringExecution is not modelled (a preference, not a "
                      "constraint): only the required node affinity is read");
    const YAML::Node terms = child(child(affinity, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    if (!terms) return set;
    const std::string terms_at = at + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
    if (!terms.IsSequence() || terms.size() == 0) throw ManifestFault{terms_at + ": must be a non-empty list"};
    ModelSet any_term = 0;  // the terms are ORed
    for (size_t i = 0; i < terms.size(); ++i) any_term |= term(terms[i], terms_at + "[" + std::to_string(i) + "]");
    return set & any_term;
  }
};

}  // namespace

nlohmann::ordered_json gpu_model_selection(const std::vector<PodGroup>& groups, const std::string& job_name,
                                           std::vector<std::string>& notes, std::string& why_not) {
  Reader reader{job_name, notes};
  const ModelSet all = every_model();
  ModelSet set = all;
  std::vector<std::string> each;  // per GPU template, what it selects
  for (const PodGroup& group : groups) {
    if (group.ask.gpus <= 0) continue;
    const ModelSet pod = reader.pod(group);
    set &= pod;
    if (pod == 0) {
      why_not = group.spec_field + " selects no GPU model: its nodeSelector and required node affinity on " + kGpuProductLabel +
                " leave none";
      return nlohmann::ordered_json::array();
    }
    if (pod != all) each.push_back(group.spec_field + ": " + join(gpu_model_names_in(pod), ", "));
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  if (set == all) return out;
  if (set == 0) {
    why_not = "its GPU pods select GPU models no single model satisfies (" + join(each, "; ") +
              "): topsim holds a gang to one set of models";
    return out;
  }
  for (const std::string& name : gpu_model_names_in(set)) out.push_back(name);
  return out;
}

}  // namespace topsim
