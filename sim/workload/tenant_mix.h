// The tenants (queues) and priority classes of a generated workload, drawn per job from shares:
// `"tenants": {"team-a": 0.5, "team-b": 0.3, "team-c": 0.2}` (docs/workloads.md "Tenants").
//
// Each kind draws from a stream of its own (sim/seeds.h: the workload seed XOR kTenantStream,
// XOR kPriorityClassStream), one draw per job in id order, so giving shares changes no other
// draw of the workload: the same jobs, now with a queue and a class.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sim/job.h"
#include "sim/workload/workload_mix.h"
#include "util/expected.h"

namespace topsim {

struct NamedShare {
  std::string name;
  double weight = 0;  // relative share, >= 0; a mix is normalised by its sum
};

// OK when `mix` is empty (nothing drawn) or holds at most `limit` distinct non-empty names with
// finite weights >= 0 and a positive sum. Errors start with "<what>: ".
Status validate_share_mix(const std::vector<NamedShare>& mix, std::string_view what, size_t limit);

// Draws each job's queue and priority class from the mixes (either may be empty: none drawn).
class TenantDraw {
 public:
  // REQUIRES: both mixes valid. `jobs`: how many jobs the workload has (names are numbered in the
  // order its jobs first draw them, which this finds by replaying the draws).
  TenantDraw(const std::vector<NamedShare>& tenants, const std::vector<NamedShare>& classes, uint64_t seed, uint32_t jobs);
  // The next job's queue and class (call once per job, in id order).
  void assign(JobSpec& job);
  // The names, in the order the jobs first draw them (Workload::queue_names, ::priority_class_names).
  const std::vector<std::string>& queue_names() const { return queues_.names; }
  const std::vector<std::string>& class_names() const { return classes_.names; }

 private:
  struct Stream {
    std::optional<WeightedPick> pick;
    std::vector<uint32_t> index_of;  // mix entry -> its name's index
    std::vector<std::string> names;
    std::mt19937_64 rng;
  };
  static Stream stream(const std::vector<NamedShare>& mix, uint64_t seed, uint32_t jobs);
  Stream queues_, classes_;
};

}  // namespace topsim
