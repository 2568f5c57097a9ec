// The small plan the planning tests share: 300 synthetic jobs; 2 schedulers x 3 candidates (two
// node types and their 1:1 mix) x 2 growth steps; one seed (tests of seeds set their own).
#pragma once

namespace topsim::test {

inline constexpr const char* kSmallPlan = R"({"name": "small", "seed": 4, "seeds": 1,
 "workload": {"kind": "synthetic", "jobs": 300, "arrival_rate_per_hour": 20,
              "size_mix": {"1": 3, "2": 2, "4": 2, "8": 1}, "median_duration_minutes": 30},
 "network": {"transport": "ib"},
 "growth": [1, 2],
 "node_types": [{"model": "dgx1-v100", "cost_per_node_hour": 24.48},
                {"model": "dgx-a100", "cost_per_node_hour": 32.77, "watts": 6500}],
 "mixes": [{"parts": {"dgx1-v100": 1, "dgx-a100": 1}}],
 "schedulers": ["topology-aware", "default"],
 "slo": {"wait_s.p95": 900, "rejected": 0},
 "bounds": {"max_nodes": 16}})";

}  // namespace topsim::test
