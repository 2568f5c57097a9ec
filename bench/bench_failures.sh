#!/usr/bin/env bash
# Failures' cost to a replay (docs/failures.md): the same 100,000-job synthetic replay on 512 HGX
# H100 nodes and 512 DGX A100 nodes (8,192 GPUs, 99 days of arrivals), without failures, and
# with every node failing at its published rate (Llama 3 for H100s, RSC-1 for A100s) x 10 and
# checkpoints every 30 min. Prints wall time and peak memory of each, and their ratio
# (target: failures within 1.5x of none).
#   bash bench/bench_failures.sh [build/cli/topsim]
set -euo pipefail
topsim=${1:-build/cli/topsim}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
scenario() {  # name extra-keys
  cat >"$dir/$1.json" <<JSON
{"name": "$1", "seed": 3,
 "cluster": {"nodes": [{"model": "hgx-h100", "count": 512}, {"model": "dgx-a100", "count": 512}], "network": {"transport": "ib"}},
 "workload": {"kind": "synthetic", "jobs": 100000, "arrival_rate_per_hour": 42, "reference_gpu": "a100"},
 "schedulers": ["topology-aware"]$2}
JSON
}
scenario none ''
scenario failures ', "checkpoints": {"every_s": 1800, "write_s": 30, "restart_s": 300}, "failures": {"scale": 10}'
measure() {  # name -> "seconds peak_kib"
  /usr/bin/time -f '%e %M' "$topsim" run "$dir/$1.json" -o "$dir/out-$1" --summary-only -q 2>&1 >/dev/null | tail -1
}
best() {  # the fastest of three runs
  local out best_s=1e9 best_line=""
  for _ in 1 2 3; do
    out=$(measure "$1")
    if awk -v a="${out%% *}" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then best_s=${out%% *}; best_line=$out; fi
  done
  echo "$best_line"
}
none=$(best none)
failures=$(best failures)
read -r none_s none_kib <<<"$none"
read -r fail_s fail_kib <<<"$failures"
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))[\"schedulers\"][0][\"runs\"][0][\"metrics\"]; print(\"with failures: %d jobs, %d node failures, %d interruptions, goodput %.3f\" % (m[\"jobs\"], m[\"node_failures\"], m[\"interruptions\"], m[\"goodput\"]))" "$dir/out-failures/results.json"
printf 'no failures:   %6.2f s  %6.1f MB\n' "$none_s" "$(awk -v k="$none_kib" 'BEGIN { print k / 1024 }')"
printf 'failures x10:  %6.2f s  %6.1f MB\n' "$fail_s" "$(awk -v k="$fail_kib" 'BEGIN { print k / 1024 }')"
awk -v a="$fail_s" -v b="$none_s" 'BEGIN { printf "ratio:         %6.2fx (target <= 1.5x)\n", a / b }'
