// Failures validated against Meta's Llama 3 report (arXiv 2407.21783, §3.3.4): 419 unexpected
// interruptions in a 54-day snapshot of pre-training on 16,384 H100 GPUs (2,048 servers of 8), and
// "higher than 90% effective training time".
//
// The interruption count checks the sampler: the built-in H100 rates are Table 5's counts over
// 2,048 servers x 54 days, so the simulated count must fall in the Poisson spread of 419 (central
// 95%: 379-460). The effective training time needs what the report does not give, each taken
// from another source before the run, none tuned to the result:
//  - restart (reschedule + load the checkpoint): 5 min, the u0 of Kokolis et al., "Revisiting
//    Reliability in Large-Scale ML Research Clusters" (arXiv 2410.21680), in their comparison
//    with real jobs at Meta;
//  - a checkpoint blocks the job 30 s: the upper bound of a full write of the persistent state to
//    Tectonic at its sustained 2 TB/s (§3.3.1 Storage: up to 4 GB per GPU; 16,384 x 4 GB / 2 TB/s);
//  - checkpoints at Daly's optimum for that write and the job's mean time between interruptions
//    (54 days / 419 = 185.6 min): 13.3 min ("A higher order estimate of the optimum checkpoint
//    interval for restart dumps", FGCS 22(3), 2006);
//  - the job runs on 2,048 of the cluster's 3,072 servers (24K GPUs, §3.3.1 footnote), so a
//    failed server is replaced at once from the idle ones and no restart waits for a repair.
// Kokolis's closed form for these inputs, (1 - (u0 + interval/2) / MTBF) / (1 + write / interval),
// gives 0.903; the simulation must land within 3 pp of the report's 90%.
#include <vector>

#include <catch2/catch.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/test_support.h"

using namespace topsim;
using namespace topsim::test;

TEST_CASE("validation::Llama 3 405B pre-training: 54 days of interruptions and effective training time",
          "[validation][failures]") {
  // About 49 days of training on the H100s: with the interruptions, about 54 days of wall time.
  const std::string jobs =
      R"([{"name": "llama3-405b", "submit_s": 0, "workers": 2048, "gpus_per_worker": 8, "model": "resnet50",
           "duration_s": 4250000}])";
  const Scenario s = scenario_from(scenario_json(R"([{"model": "hgx-h100", "count": 3072}])", jobs,
                                                 R"(, "checkpoints": {"every_s": 798, "write_s": 30, "restart_s": 300},
                                                     "failures": {"rates": "default"})",
                                                 R"(, "network": {"transport": "roce"})"));
#ifdef TOPSIM_SANITIZED
  const std::vector<uint64_t> seeds{1};  // ~200 s a seed under ASan + UBSan: the regular build checks both
#else
  const std::vector<uint64_t> seeds{1, 2};
#endif
  for (const uint64_t seed : seeds) {
    INFO("seed " << seed);
    const RunResult r = run(s, "topology-aware", seed);
    const JobRecord& job = record(r, s, "llama3-405b");
    REQUIRE(job.state == JobState::Finished);
    const double wall_days = static_cast<double>(job.finish_ms - job.start_ms) / 86.4e6;
    CHECK(wall_days == Approx(54).margin(3));
    // Interruptions in 54 days of wall time: Poisson spread of the report's 419.
    const double per_54_days = static_cast<double>(job.interruptions) * 54 / wall_days;
    CHECK(per_54_days >= 379);
    CHECK(per_54_days <= 460);
    // No restart waited for a repair: 1,024 idle servers.
    CHECK(job.requeue_ms == 0);
    // Effective training time: the report's ">90%", and Kokolis's closed form.
    const double ettr = metric(r, "ettr.mean");
    CHECK(ettr >= 0.87);
    CHECK(ettr <= 0.93);
    const double mtbf_min = 54 * 1440.0 / 419, interval_min = 13.3, write_min = 0.5, restart_min = 5;
    const double closed_form = (1 - (restart_min + interval_min / 2) / mtbf_min) / (1 + write_min / interval_min);
    CHECK(ettr == Approx(closed_form).margin(0.01));
  }
}
