#!/usr/bin/env bash
# The layering check (docs/architecture.md): every #include of a project header goes down the
# layers, never up or sideways, and third-party headers stay in the .cpp files of the layers that
# own them. Prints one line per violation and exits 1 when there is any; 0 otherwise.
#   bash ci/check_layers.sh [SOURCE_ROOT]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

# The layers, lowest first; a layer may include itself and the layers listed after its name.
declare -A may_include=(
  [util]="util"
  [core]="util core"
  [sim]="util core sim"
  [formats]="util core sim formats"
  [scenario]="util core sim formats scenario"
  [plan]="util core sim formats scenario plan"
  [gate]="util core sim formats scenario gate"
  [reports]="util core sim formats scenario plan gate reports"
  [cli]="util core sim formats scenario plan gate reports cli"
)
# Third-party headers (the include path's first component) and the layers whose .cpp files may
# include them.
declare -A third_party=(
  [boost/graph]="core"
  [boost/property_map]="core"
  [boost/program_options]="cli"
  [nlohmann]="formats scenario plan gate reports"
  [yaml-cpp]="formats"
  [pugixml.hpp]="formats"
  [fmt]="formats plan gate reports cli"
)
# Internal headers: the only headers that may include a third-party header. Each names the
# layers whose files may include it: its own layer's files (headers too), and the .cpp files of
# the layers above that read the same format.
declare -A internal=(
  [core/topology_graph.h]="core"
  [formats/support/json_reader.h]="formats scenario plan gate"
  [formats/jobs/job_list_entries.h]="formats"
  [formats/jobs/llm_config_json.h]="formats"
  [formats/support/yaml_reader.h]="formats"
  [formats/jobs/kube_yaml.h]="formats"
  [formats/jobs/kube_gpu_asks.h]="formats"
  [formats/jobs/kube_workloads.h]="formats"
  [formats/jobs/kube_topology_asks.h]="formats"
  [formats/jobs/kube_gpu_selector.h]="formats"
  [formats/queues/queue_fields.h]="formats"
  [formats/queues/queue_objects.h]="formats"
  [formats/hardware/nccl_xml_importer.h]="formats"
  [formats/results/read_numbers.h]="formats"
  [scenario/scenario_sections.h]="scenario plan gate"
  [cli/command_table.h]="cli"
)

status=0
fail() { echo "layering: $1"; status=1; }

for layer in "${!may_include[@]}"; do
  [ -d "$layer" ] || continue
  while IFS= read -r file; do
    while IFS= read -r line; do
      lineno=${line%%:*}
      [[ "${line#*:}" =~ \#include[[:space:]]*[\"\<]([^\">]+) ]] || continue
      inc=${BASH_REMATCH[1]}
      case "${line#*:}" in
        *'#include "'*)
          top=${inc%%/*}
          if [ "$top" = "$inc" ]; then fail "$file:$lineno: includes \"$inc\" without its folder"; continue; fi
          allowed=" ${may_include[$layer]} "
          if [ -n "${may_include[$top]+x}" ] && [[ "$allowed" != *" $top "* ]]; then
            fail "$file:$lineno: $layer/ may not include $inc ($top/ is above or beside it)"
          fi
          if [ -n "${internal[$inc]+x}" ]; then
            owners=" ${internal[$inc]} "
            if [[ "$owners" != *" $layer "* ]]; then
              fail "$file:$lineno: $inc is internal to ${internal[$inc]}"
            elif [ "$top" != "$layer" ] && [[ "$file" == *.h && -z "${internal[$file]+x}" ]]; then
              fail "$file:$lineno: the internal header $inc may be included by .cpp files of $layer/ only"
            fi
          fi
          ;;
        *'#include <'*)
          for lib in "${!third_party[@]}"; do
            case "$inc" in
              "$lib"|"$lib"/*)
                owners=" ${third_party[$lib]} "
                if [[ "$owners" != *" $layer "* ]]; then
                  fail "$file:$lineno: $layer/ may not include <$inc> (owned by: ${third_party[$lib]})"
                elif [[ "$file" == *.h && -z "${internal[$file]+x}" ]]; then
                  fail "$file:$lineno: <$inc> in a header: third-party headers stay in .cpp files"
                fi
                ;;
            esac
          done
          ;;
      esac
    done < <(grep -n '^[[:space:]]*#include' "$file" || true)
  done < <(find "$layer" -name '*.h' -o -name '*.cpp' | sort)
done
[ $status -eq 0 ] && echo "layering: ok"
exit $status
