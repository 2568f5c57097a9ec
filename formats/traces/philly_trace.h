// Loader of the Microsoft Philly job trace (2017) as shipped by the Pollux (OSDI '21) artifact,
// ../shared/traces/philly/philly.csv: `timestamp,duration,num_gpus,gpu_time,cluster`, one job a
// line, timestamps "2017-10-09 07:01:55" (not sorted), duration in seconds, 1-128 GPUs.
//
// Each row becomes one JobSpec (docs/workloads.md):
// - submit_ms = (timestamp - earliest timestamp in the file) x 1000 x arrival_time_scale;
// - ideal_duration_ms = duration x 1000: the trace duration is taken as the run time under an
//   ideal placement (the engine stretches it with the placement's throughput); a duration of 0
//   is kept (the job ends the moment it is placed);
// - pods by gang_shape(num_gpus, gpus_per_node) (sim/workload/workload_mix.h): 16 GPUs -> 2 x 8;
// - model, batch and framework drawn from the options' mix with a seeded generator, in sorted
//   job order, so a max_jobs prefix gets the same draws as the full load;
// - queue: the `cluster` column (the virtual cluster id, e.g. "6214e9") as the queue name, as
//   is; an empty field names no queue (kNoQueue). Names in order of first appearance among the
//   sorted jobs kept; more than kMaxQueueNames distinct ones in the file is an error;
// - gpu_time is not used; blank lines are skipped.
// Jobs are sorted by (submit time, line in the file) and numbered 0..N-1 in that order.
//
// The file is read once, line by line, into compact JobSpecs. The first bad line stops the load
// with one error naming the file, the line and the column:
// "philly.csv:17: column num_gpus: 'x' is not an integer".
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job.h"
#include "sim/workload/workload_mix.h"
#include "util/expected.h"

namespace topsim {

struct PhillyOptions {
  uint64_t seed = 1;                                        // seed of the model / framework draw; default 1
  int gpus_per_node = 8;                                    // the gang rule's pod limit; default 8 (DGX-class nodes)
  size_t max_jobs = 0;                                      // keep the N earliest jobs by submit time; default 0 = all
  double arrival_time_scale = 1.0;                          // multiplies submit times (0.5 = arrivals twice as dense);
                                                            // durations are unchanged; default 1
  std::vector<ModelShare> model_mix = default_model_mix();  // default: default_model_mix()
  double tensorflow_share = 0.5;                            // share of TensorFlow jobs, the rest PyTorch; default 0.5
  // The GPU the trace's durations are taken as measured on: an LLM of the mix is drawn only for
  // jobs whose size it fits there (TrainingDraw); default null: for any job.
  const GpuModel* reference_gpu = nullptr;
};

// OK when gpus_per_node >= 1, arrival_time_scale > 0, the mix is valid and the TensorFlow
// share is within [0, 1]. Errors start with "philly options: ".
Status validate(const PhillyOptions& options);

// Reads the trace from `in`; `source` names it in errors and becomes Workload::source.
Expected<Workload> read_philly(std::istream& in, std::string_view source, const PhillyOptions& options);
// Reads the file at `path`; errors name the path as given ("cannot open '<path>': <reason>").
// Workload::source is the file name without its folder.
Expected<Workload> load_philly(const std::string& path, const PhillyOptions& options = {});

}  // namespace topsim
