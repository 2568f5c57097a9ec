// Where a plan's search probes first (docs/planning.md, "Where a search starts"): the cluster as
// one pool of GPUs. Jobs arrive as the workload has them, each runs as long as it would on its
// ideal placement on the candidate's nodes (sim/job_timing.h), and starts as soon as the pool
// has its GPUs free, in arrival order with any later job that fits starting before an earlier
// one that does not (backfilling). The size such a pool needs to meet the wait and JCT SLOs is a
// queueing estimate of the size the replays need: it leaves out what a real cluster adds (GPUs
// split across nodes, a gang's nodes, placements slower than the ideal), so the replays decide;
// it only chooses where the search probes first.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "plan/plan.h"
#include "sim/scenario.h"

namespace topsim {

class ThreadCaches;

// One job on the pool. `milli`: its GPUs in thousandths (a whole GPU: 1000; a GPU share: its
// share), at least 1.
// `tenant`: its index into the tenant names the SLOs are judged with (JobSpec::queue), or -1.
struct PooledJob {
  int64_t submit_ms = 0;
  int64_t run_ms = 0;
  int64_t milli = 1000;
  int tenant = -1;
};

// The jobs of `workload` on the pool of `scenario`'s cluster, whose nodes are of one type: each
// with its ideal run time there, in submission order. Empty when the cluster has several node
// types or cannot be built (the replays report that), or a job runs forever (no size meets).
std::vector<PooledJob> pooled_jobs(const Scenario& scenario, const Workload& workload, ThreadCaches* caches);

// Whether `slos` can be judged on a pool: at least one of them bounds wait_s or jct_s (a
// percentile, the mean or the max), over all jobs or, `<metric>@<tenant>`, over the jobs of one
// of `tenants` (the names PooledJob::tenant indexes). The others are left to the replays.
bool pooled_judges(const std::vector<Slo>& slos, const std::vector<std::string>& tenants = {});

// Whether a pool of `capacity_milli` meets the wait_s and jct_s SLOs among `slos` (the others are
// taken as met). `jobs` in submission order, each asking at least 1 milli-GPU. A job larger than
// the pool never starts: it misses.
bool pooled_meets(const std::vector<PooledJob>& jobs, int64_t capacity_milli, const std::vector<Slo>& slos,
                  const std::vector<std::string>& tenants = {});

// The fewest units in (miss, hit) whose pool (units x `milli_per_unit`) meets `slos`, by bisection
// over units (taking a larger pool to do no worse; a hit when none in between meets); nullopt
// when `slos` cannot be judged on a pool, `jobs` is empty or hit - miss < 2.
std::optional<int> pooled_units(const std::vector<PooledJob>& jobs, int64_t milli_per_unit, const std::vector<Slo>& slos,
                                const std::vector<std::string>& tenants, int miss, int hit);

}  // namespace topsim
