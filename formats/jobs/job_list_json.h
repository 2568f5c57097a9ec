// Workloads described in JSON (docs/workloads.md): scenario-embedded job lists, and the
// synthetic and Philly workload sections (their options). Every error is one line naming the
// source and the JSON pointer:
//   "scenario.json: /workload/jobs/3/model: unknown model 'vgg61' (did you mean 'vgg16'?)".
//
// Two entry points per kind: text in (the JSON of that part alone, plus the pointer prefix it
// sits at in its document), or a part of an already parsed document (JsonAt, defined in the
// sim-private header formats/support/json_reader.h) for the scenario loader.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/traces/philly_trace.h"
#include "sim/job.h"
#include "sim/workload/synthetic_workload.h"
#include "util/expected.h"

namespace topsim {

struct JsonAt;  // formats/support/json_reader.h

// ---- Job lists ----
// An array of job entries. Each entry becomes `count` jobs; jobs are sorted by submit time
// (list order among equal times) and numbered 0..N-1. Workload::source is
// "<source>#<pointer>" (or just <source> at the root). Names and annotations go to
// Workload::extras. Checked: types, ranges, unknown keys, unknown models and frameworks,
// exactly one of iterations / duration_s, pods versus workers, duplicate job names,
// gpu.topology/* annotations (core's apply_gang_annotations), and the queue and priority class
// ("queue", "priority_class", Kueue / KAI "labels": formats/jobs/tenant_labels.h), whose names
// become Workload::queue_names and ::priority_class_names in the order the sorted jobs name them.
// What is wrong with one pod annotation as topsim's schedulers read it (gpu.topology/* keys by
// core's apply_gang_annotations), without the key in front; "" when nothing is. The job list and
// the manifest importer check annotations with it.
std::string annotation_problem(const std::string& key, const std::string& value);

Expected<Workload> parse_job_list(std::string_view json_text, std::string_view source, std::string_view json_path_prefix = "");
Expected<Workload> read_job_list(const JsonAt& jobs, std::string_view source);

// ---- Synthetic workload section ----
// Keys absent from the object keep their value in `defaults` (e.g. the scenario's seed).
// `caller_keys` are keys the caller reads itself (e.g. "kind"): allowed and ignored here.
Expected<SyntheticOptions> synthetic_options_from_json(std::string_view json_text, std::string_view source,
                                                       std::string_view json_path_prefix = "",
                                                       const SyntheticOptions& defaults = {},
                                                       const std::vector<std::string>& caller_keys = {});
Expected<SyntheticOptions> read_synthetic_options(const JsonAt& section, std::string_view source,
                                                  const SyntheticOptions& defaults = {},
                                                  const std::vector<std::string>& caller_keys = {});

// ---- Philly workload section ----
struct PhillySource {
  std::string path;  // the "path" value as written; resolving it is the caller's job
  PhillyOptions options;
};
Expected<PhillySource> philly_source_from_json(std::string_view json_text, std::string_view source,
                                               std::string_view json_path_prefix = "", const PhillyOptions& defaults = {},
                                               const std::vector<std::string>& caller_keys = {});
Expected<PhillySource> read_philly_source(const JsonAt& section, std::string_view source, const PhillyOptions& defaults = {},
                                          const std::vector<std::string>& caller_keys = {});

}  // namespace topsim
