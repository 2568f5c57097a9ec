#!/usr/bin/env bash
# The layering check fails on what it exists to catch: a copy of the tree with one deliberate
# violation of each kind must fail, naming the file, line and rule; the copy without them passes.
#   bash tests/layering/run.sh SOURCE_ROOT
set -euo pipefail
root="$1"
check="$root/ci/check_layers.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for layer in util core sim formats scenario plan gate reports cli; do cp -r "$root/$layer" "$work/$layer"; done

expect_fail() {  # description, expected text
  if out=$(bash "$check" "$work"); then
    echo "FAIL: $1 passed the layering check"; exit 1
  fi
  grep -qF "$2" <<<"$out" || { echo "FAIL: $1: expected '$2' in:"; echo "$out"; exit 1; }
  echo "ok: $1 -> $(grep -F "$2" <<<"$out" | head -1)"
}

bash "$check" "$work" >/dev/null || { echo "FAIL: the unmodified copy does not pass"; bash "$check" "$work"; exit 1; }
echo "ok: the tree as it is passes"

# 1. core reaching up into the simulator
cp "$work/core/gang.cpp" "$work/gang.keep"
sed -i '0,/^#include "core\/gang.h"$/s//#include "core\/gang.h"\n#include "sim\/engine.h"/' "$work/core/gang.cpp"
expect_fail "core/ including sim/" 'core/gang.cpp:2: core/ may not include sim/engine.h'
cp "$work/gang.keep" "$work/core/gang.cpp"

# 2. a third-party header in a public header of formats/
printf '#include <nlohmann/json.hpp>\n' >> "$work/formats/jobs/sacct.h"
expect_fail "nlohmann in a public header" 'third-party headers stay in .cpp files'
sed -i '$d' "$work/formats/jobs/sacct.h"

# 3. a third-party library in a layer that does not own it
printf '#include <pugixml.hpp>\n' >> "$work/sim/engine.cpp"
expect_fail "pugixml in sim/" 'sim/ may not include <pugixml.hpp>'
sed -i '$d' "$work/sim/engine.cpp"

# 4. an internal header of the loaders reaching the CLI
printf '#include "scenario/scenario_sections.h"\n' >> "$work/cli/run.cpp"
expect_fail "the scenario loader's internal header in cli/" 'scenario/scenario_sections.h is internal to scenario plan gate'
sed -i '$d' "$work/cli/run.cpp"

bash "$check" "$work" >/dev/null || { echo "FAIL: the restored copy does not pass"; exit 1; }
echo "ok: restored, the copy passes again"
