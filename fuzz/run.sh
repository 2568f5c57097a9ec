#!/usr/bin/env bash
# Runs the libFuzzer targets (docs/fuzzing.md).
#   bash fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
# BUILD_DIR was configured with clang and -DTOPSIM_FUZZ=ON. Each target runs SECONDS seconds on
# a corpus in BUILD_DIR/fuzz-corpus/<target>, seeded from the repository (scenarios, plans,
# suites, node files) and from ../shared (topologies, the head of each trace) when present.
# Prints one line per target (executions, corpus size, findings); a finding (crash, sanitizer
# report, hang over 10 s, over 2 GB) is saved under BUILD_DIR/fuzz-findings/ and the script exits 1.
# TOPSIM_FUZZ_SEED=N fixes libFuzzer's random seed (CI's smoke run uses 1).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then echo "usage: bash fuzz/run.sh BUILD_DIR SECONDS [TARGET...]" >&2; exit 2; fi
build="$1"; seconds="$2"; shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(topo_m nccl_xml node_json scenario plan suite job_list philly alibaba kube queue_yaml set_record failure_trace slice_layers file_kind results)
shared=${TOPSIM_SHARED_DIR:-../shared}  # the real inputs; TOPSIM_SHARED_DIR when the checkout has no ../shared

seed() {  # seed TARGET FILE...: copy the files that exist into the target's corpus
  local dir="$build/fuzz-corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/seed-$(basename "$f")"; done
}
seed_head() {  # seed_head TARGET PREFIX FILE...: the first 40 lines of each file, PREFIX in front
  local target="$1" prefix="$2"; shift 2
  local dir="$build/fuzz-corpus/$target"
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && { printf '%s' "$prefix"; head -40 "$f"; } > "$dir/seed-$(basename "$f")"; done
}
seed topo_m "$shared"/topologies/*topo-m*.txt
seed nccl_xml "$shared"/topologies/*.xml
seed node_json scenarios/nodes/*.json
seed scenario scenarios/*.json
# Scenarios with the files they name, as fuzz_scenario takes them: the scenario, then per file a
# NUL, its relative name on a line and its content (the traces of ../shared: their first 40 lines).
scenario_seed() {  # scenario_seed NAME SCENARIO NAME=FILE...
  local out="$build/fuzz-corpus/scenario/seed-files-$1" text="$2" spec; shift 2
  for spec in "$@"; do [ -f "${spec#*=}" ] || return 0; done  # a file absent (no ../shared): no seed
  { printf '%s' "$text"
    for spec in "$@"; do
      printf '\0%s\n' "${spec%%=*}"
      case "${spec#*=}" in "$shared"/*) head -40 "${spec#*=}" ;; *) cat "${spec#*=}" ;; esac
    done; } >"$out"
}
mkdir -p "$build/fuzz-corpus/scenario"
scenario_seed kube '{"cluster": "nodes.yaml", "workload": "jobs.yaml", "schedulers": ["topology-aware"]}' \
  nodes.yaml=tests/real_files/nodes/fgd-openb-v100m16x8.yaml jobs.yaml=tests/real_files/manifests/kai-pytorch-job.yaml
scenario_seed alibaba '{"mode": "fill", "cluster": {"node_list": "nodes.csv"}, "workload": {"kind": "alibaba-pods", "path": "pods.csv"}, "schedulers": ["fgd"], "target_load": 1.3}' \
  nodes.csv="$shared"/traces/alibaba-gpu-v2023/openb_node_list_gpu_node.csv \
  pods.csv="$shared"/traces/alibaba-gpu-v2023/openb_pod_list_default.csv
scenario_seed philly '{"cluster": {"nodes": [{"model": "nodes/two.json", "count": 4}, {"model": "dgx1-v100", "count": 2}], "network": {"transport": "ib"}}, "workload": {"kind": "philly", "path": "philly.csv"}, "tenancy": {"queues": "queues"}, "checkpoints": {"every_s": 600, "restart_s": 30}, "failures": {"rates": "none", "trace": "incidents.csv"}}' \
  nodes/two.json=scenarios/nodes/pcie-2gpu-v100.json philly.csv="$shared"/traces/philly/philly.csv \
  queues/cluster-queues.yaml=scenarios/queues/philly-vcs/cluster-queues.yaml \
  queues/flavors.yaml=scenarios/queues/philly-vcs/flavors.yaml \
  queues/local-queues.yaml=scenarios/queues/philly-vcs/local-queues.yaml incidents.csv=fuzz/seeds/failures.csv
seed plan scenarios/plan-*.json
seed suite ci/quality-suite.json
seed job_list scenarios/ack-v100-benchmark.json
seed_head philly "" "$shared"/traces/philly/*.csv
mkdir -p "$build/fuzz-corpus/kube"  # a manifest and a node list, written here (no shared file has them)
printf '%s' 'Dkind: PyTorchJob
metadata: {name: j, annotations: {topsim/model: resnet50}}
spec: {pytorchReplicaSpecs: {Worker: {replicas: 2, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}}}}}
' > "$build/fuzz-corpus/kube/seed-pytorchjob"
printf '%s' 'A{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}}, "status": {"allocatable": {"nvidia.com/gpu": "8"}}}]}' > "$build/fuzz-corpus/kube/seed-nodes"
printf '%s\n' 'BJobID|JobName|Submit|Start|End|Elapsed|AllocTRES|NNodes|State' \
  '7|t|2024-05-01T10:00:00|2024-05-01T10:00:01|2024-05-01T11:00:01|01:00:00|cpu=8,gres/gpu=8,node=1|1|COMPLETED' \
  > "$build/fuzz-corpus/kube/seed-sacct"
printf '%s\n' 'Cjob_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue' \
  '1,u,vc,8,16,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-09 19:41:01,3600,0' \
  > "$build/fuzz-corpus/kube/seed-helios"
# The real files of tests/real_files, each under the byte that picks its reader (0 manifests,
# 1 nodes, 2 sacct) and, for the topology readers, as they are.
seed_head kube "D" tests/real_files/manifests/*.yaml
seed_head kube "E" tests/real_files/nodes/*.yaml
seed_head kube "F" tests/real_files/sacct/*.txt
seed topo_m tests/real_files/topo/*topo-m.txt
seed nccl_xml tests/real_files/topo/*.xml
mkdir -p "$build/fuzz-corpus/queue_yaml"  # each example queue folder as one file of documents
for d in scenarios/queues/*/; do
  for f in "$d"*.yaml; do cat "$f"; echo "---"; done > "$build/fuzz-corpus/queue_yaml/seed-$(basename "$d")"
done
mkdir -p "$build/fuzz-corpus/set_record"  # a record as a run writes it
printf '%s\n' '{"files": {"jobs.jsonl": {"bytes": 913, "digest": "6a2f4196911b089b"}, "results.json": {"bytes": 16664,' \
  '"digest": "fc9ed29e58ebaab7"}}, "run": "cff0c6fcca93d559", "schema": "topsim.set/1"}' >"$build/fuzz-corpus/set_record/seed-record"
mkdir -p "$build/fuzz-corpus/failure_trace"  # incidents on the target's eight nodes
printf '%s\n' 'node,start_s,duration_s,cause' 'node-2,10,100,gpu' 'gpu-a,5,0,software' 'gpu-b,7.5,3600,' \
  >"$build/fuzz-corpus/failure_trace/seed-incidents"
mkdir -p "$build/fuzz-corpus/slice_layers"  # Kueue's documented example of the annotation
printf '%s\n' '[' '  {"topology": "cloud.provider.com/topology-block", "size": 32},' \
  '  {"topology": "cloud.provider.com/topology-rack", "size": 16}' ']' >"$build/fuzz-corpus/slice_layers/seed-layers"
mkdir -p "$build/fuzz-corpus/file_kind"  # one of each input the recogniser names, under its extension's byte
for seed_file in D:tests/real_files/manifests/kai-pytorch-job.yaml D:scenarios/queues/example-kai/queues.yaml \
  A:scenarios/plan-philly.json A:ci/quality-suite.json A:scenarios/nodes/pcie-2gpu-v100.json \
  B:"$shared"/traces/philly/philly.csv B:"$shared"/traces/alibaba-gpu-v2023/openb_node_list_gpu_node.csv \
  C:"$shared"/topologies/dgx-a100_topo-m.txt C:tests/real_files/sacct/jobstats-6-noheader.txt; do
  f=${seed_file#?:}
  [ -f "$f" ] && { printf '%s' "${seed_file%%:*}"; head -c 16384 "$f"; } >"$build/fuzz-corpus/file_kind/seed-$(basename "$f")"
done
# Saved runs (results.json, a NUL, jobs.jsonl): the smallest shipped replay, failures a spare
# takes, an elastic job shrinks on and a job stops on (node_failures with every outcome), and
# Kueue's preemptions (a reclaim and a preemption within a ClusterQueue).
mkdir -p "$build/fuzz-corpus/results"
if [ -x "$build/cli/topsim" ]; then
  for seed_run in ack:scenarios/ack-v100-benchmark.json failures:fuzz/seeds/failures.json \
    preemptions:fuzz/seeds/preemptions.json; do
    run_dir=$(mktemp -d)
    "$build/cli/topsim" run "${seed_run#*:}" -o "$run_dir/out" --quiet --no-report >/dev/null 2>&1 &&
      { cat "$run_dir/out/results.json"; printf '\0'; cat "$run_dir/out/jobs.jsonl"; } \
        >"$build/fuzz-corpus/results/seed-${seed_run%%:*}"
    rm -rf "$run_dir"
  done
fi
# And a run written before runs had an identity (no digest guards its jobs.jsonl, so a mutated
# line reaches the line reader): a 2 x 8-GPU gang on host networking, and an LLM job's line (its
# layout, its whole configuration as llm_config, its step).
for unstamped in unstamped unstamped-llm; do
  { cat "fuzz/seeds/$unstamped/results.json"; printf '\0'; cat "fuzz/seeds/$unstamped/jobs.jsonl"; } \
    >"$build/fuzz-corpus/results/seed-$unstamped"
done
seed_head alibaba "A" "$shared"/traces/alibaba-gpu-v2023/openb_node_list_gpu_node.csv
seed_head alibaba "B" "$shared"/traces/alibaba-gpu-v2023/openb_pod_list_default.csv \
  "$shared"/traces/alibaba-gpu-v2023/openb_pod_list_gpushare40.csv

seed_option=()
[ -n "${TOPSIM_FUZZ_SEED:-}" ] && seed_option=(-seed="$TOPSIM_FUZZ_SEED")
status=0
# fuzz_scenario and fuzz_results write files to a folder of their own under TMPDIR, which
# libFuzzer's exit at the time limit leaves behind: here, inside the build folder, one per run of
# this script (runs side by side do not remove each other's), removed when its targets are done.
export TMPDIR="$build/fuzz-tmp/$$"
mkdir -p "$TMPDIR"
mkdir -p "$build/fuzz-findings"
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then echo "fuzz_$t: not built in $build (configure with -DTOPSIM_FUZZ=ON)" >&2; status=2; continue; fi
  corpus="$build/fuzz-corpus/$t"
  mkdir -p "$corpus"
  log="$build/fuzz-findings/$t.log"
  "$bin" "$corpus" "${seed_option[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$build/fuzz-findings/$t-" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  size=$(ls "$corpus" | wc -l)
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz_$t: FINDING after ${runs:-?} executions: $(grep -m1 -E 'ERROR|fuzz:|SUMMARY' "$log")  (log: $log)"
  else
    echo "fuzz_$t: ${runs:-?} executions in ${seconds} s, corpus ${size}, no finding"
  fi
done
rm -rf "$TMPDIR"
rmdir "$build/fuzz-tmp" 2>/dev/null  # when no other run is using it
exit $status
