#include "sim/checkpoint.h"

#include <algorithm>
#include <cmath>

namespace topsim {

int64_t with_checkpoint_writes(int64_t training_ms, const CheckpointPolicy& policy) {
  if (policy.every_ms <= 0 || policy.write_ms <= 0 || training_ms <= 0) return std::max<int64_t>(0, training_ms);
  // A checkpoint after each whole interval, none at the end (the job's output is saved anyway).
  const int64_t writes = (training_ms - 1) / policy.every_ms;
  return training_ms + writes * policy.write_ms;
}

StoppedRun stop_run(double done, int64_t start_ms, int64_t finish_ms, int64_t overhead_ms, int64_t now_ms,
                    const CheckpointPolicy& policy) {
  StoppedRun out;
  const int64_t ran_ms = std::max<int64_t>(0, now_ms - start_ms);
  out.overhead_ms = std::min(ran_ms, overhead_ms);
  const int64_t run_wall_ms = std::max<int64_t>(0, finish_ms - start_ms - overhead_ms);  // training and writes
  const int64_t trained_wall_ms = std::clamp<int64_t>(ran_ms - overhead_ms, 0, run_wall_ms);
  int64_t saved_ms = 0;  // training saved by completed checkpoints
  if (policy.every_ms > 0) {
    const int64_t cycle_ms = policy.every_ms + policy.write_ms;
    const int64_t cycles = trained_wall_ms / cycle_ms;
    // A checkpoint whose write has ended saves its interval (with no write time, one taken at
    // exactly `now` counts too).
    saved_ms = cycles * policy.every_ms;
    out.writes_ms = cycles * policy.write_ms;
  }
  out.recompute_ms = trained_wall_ms - saved_ms - out.writes_ms;
  const int64_t run_training_ms =
      run_wall_ms - (policy.write_ms > 0 && policy.every_ms > 0
                         ? (std::max<int64_t>(0, run_wall_ms) / (policy.every_ms + policy.write_ms)) * policy.write_ms
                         : 0);
  const double saved_share = run_training_ms > 0 ? static_cast<double>(saved_ms) / static_cast<double>(run_training_ms) : 0;
  out.done = std::min(1.0, done + (1 - done) * saved_share);
  return out;
}

int64_t remaining_run_ms(double done, int64_t full_ms, int64_t overhead_ms, const CheckpointPolicy& policy) {
  const double rest = (1 - std::clamp(done, 0.0, 1.0)) * static_cast<double>(full_ms);
  const int64_t rest_ms = static_cast<int64_t>(std::ceil(rest - 1e-6));  // no extra ms from rounding noise
  return overhead_ms + with_checkpoint_writes(rest_ms, policy);
}

double daly_interval(double write, double mtbf) {
  if (!(write > 0) || !(mtbf > 0)) return 0;
  if (write >= 2 * mtbf) return mtbf;
  const double r = write / (2 * mtbf);
  return std::sqrt(2 * write * mtbf) * (1 + std::sqrt(r) / 3 + r / 9) - write;
}

}  // namespace topsim
