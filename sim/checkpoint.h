// What a job keeps when it is stopped before its end (preempted by a queue, or its node failed)
// and what restarting costs: checkpoints every `every_ms` of training, each blocking the job for
// `write_ms`; a restarted job spends `restart_overhead_ms` (reschedule, load the checkpoint,
// re-form the NCCL communicators) before it trains again. Progress is taken as even over a run.
#pragma once

#include <cstdint>

namespace topsim {

struct CheckpointPolicy {
  int64_t every_ms = 0;             // training between two checkpoints; 0 (default): none, a stopped job starts over
  int64_t write_ms = 0;             // each checkpoint's blocking write; default 0
  int64_t restart_overhead_ms = 0;  // before a restarted job trains again; default 0
};

// The wall time of `training_ms` of training with its checkpoint writes.
int64_t with_checkpoint_writes(int64_t training_ms, const CheckpointPolicy& policy);

// A run stopped at `now_ms`: it began at `start_ms` with `overhead_ms` of restart overhead and
// was due to end at `finish_ms`, the job having `done` of its work saved before it.
struct StoppedRun {
  double done = 0;           // the share of the job's work saved after it
  int64_t recompute_ms = 0;  // training since the last completed checkpoint (and a write cut short): lost
  int64_t overhead_ms = 0;   // the restart overhead this run spent
  int64_t writes_ms = 0;     // checkpoint writes this run completed
  // Preemption's accounting (sim/tenancy/): the overhead spent and the training lost.
  int64_t lost_ms() const { return overhead_ms + recompute_ms; }
};
StoppedRun stop_run(double done, int64_t start_ms, int64_t finish_ms, int64_t overhead_ms, int64_t now_ms,
                    const CheckpointPolicy& policy);

// The wall time of a job with `done` of its work saved, whose whole training takes `full_ms`:
// `overhead_ms`, then the rest of its training with its checkpoint writes.
int64_t remaining_run_ms(double done, int64_t full_ms, int64_t overhead_ms, const CheckpointPolicy& policy);

// The training time between checkpoints that loses the least to failures, for a checkpoint that
// takes `write` to write and a job failing every `mtbf` on average (any unit, the same for both):
// Daly's higher-order estimate, "A higher order estimate of the optimum checkpoint interval for
// restart dumps" (FGCS 22(3), 2006): sqrt(2 d M) [1 + sqrt(d / 2M) / 3 + (d / 2M) / 9] - d for
// d < 2M, else M. Its first term is Young's sqrt(2 d M) (CACM 17(9), 1974). 0 when either is 0.
double daly_interval(double write, double mtbf);

}  // namespace topsim
