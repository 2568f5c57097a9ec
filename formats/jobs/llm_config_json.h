// INTERNAL to formats: an LLM job's configuration as one JSON object with the job list's "llm" keys
// (docs/workloads.md, "LLM jobs"). Job lists read it as an entry's "llm"; jobs.jsonl writes each
// LLM job's, resolved, as "llm_config" and the results reader reads it back with the same code.
#pragma once

#include <optional>

#include "formats/support/json_reader.h"
#include "sim/job.h"

namespace topsim {

// Reads the object at `at` as the configuration of a job of `gpus` GPUs: "model" (required, an
// LLM catalog name), the sizes (1..65535; "dp" defaults to gpus / (tp x pp x cp)), "micro_batch"
// an integer or "auto" (which needs "global_batch"), the choices and flags, then the shape against
// the model (validate_parallel_shape). nullopt after failing `errors` at the offending member.
std::optional<LlmJob> read_llm_config(JsonErrors& errors, const JsonAt& at, int gpus);

}  // namespace topsim
