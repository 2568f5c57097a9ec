#!/usr/bin/env bash
# One-step set-up for a fresh Debian machine: installs what is missing, configures, builds,
# then either runs the main job (`run`) or the whole test suite (`test`).
#   bash bootstrap.sh run     # build, then the main job on the built-in default scenario
#   bash bootstrap.sh test    # build, then every test (ctest), the quality gate (topsim check), then the
#                             # sanitizer build (ASan + UBSan, clang) running every test again and a
#                             # fuzz smoke run of every parser (docs/fuzzing.md)
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-run}"
case "$mode" in run|test) ;; *) echo "usage: bash bootstrap.sh run|test" >&2; exit 2 ;; esac

packages=(g++ cmake make libboost-graph-dev libboost-program-options-dev nlohmann-json3-dev
          libfmt-dev catch2 libpugixml-dev libjs-chart.js libyaml-cpp-dev)
# The tests also check the formatting (.clang-format), render report.html in headless Chromium,
# check metrics.prom with promtool (Debian prometheus), and build with clang + libFuzzer.
if [ "$mode" = test ]; then packages+=(clang-format-14 chromium prometheus clang-14 libfuzzer-14-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOPSIM_WERROR=ON >/dev/null
cmake --build build -j"$jobs" >/dev/null

if [ "$mode" = run ]; then
  exec build/cli/topsim run
fi
ctest --test-dir build --output-on-failure -j"$jobs"
# The quality gate (docs/ci.md): the shipped scenarios against the committed baseline.
if [ -d ../shared/traces ]; then
  build/cli/topsim check ci/quality-suite.json --threads "$jobs" --junit build/quality-junit.xml
else
  echo "quality gate skipped: ../shared/traces (Philly and Alibaba traces) is absent" >&2
fi

# The sanitizer build (docs/fuzzing.md): the whole suite again under ASan + UBSan (any report
# fails), then every fuzz target for a short smoke run.
CC=clang-14 CXX=clang++-14 cmake -S . -B build-san -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOPSIM_SANITIZE=ON \
  -DTOPSIM_FUZZ=ON -DTOPSIM_WERROR=ON >/dev/null
cmake --build build-san -j"$jobs" >/dev/null
ctest --test-dir build-san --output-on-failure -j"$jobs"
TOPSIM_FUZZ_SEED="${TOPSIM_FUZZ_SEED:-1}" bash fuzz/run.sh build-san "${TOPSIM_FUZZ_SECONDS:-15}"
