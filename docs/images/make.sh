#!/usr/bin/env bash
# The README's screenshots: makes the reports they show with this build, renders each report.html
# in headless Chromium into docs/images/<name>.png, and records the SHA-256 of each report.html in
# docs/images/sources.txt. With --check it only makes the reports and compares them with
# sources.txt (exit 1 when a screenshot shows a report topsim no longer writes); the test suite
# runs that (tests/docs/test_docs_figures.cpp), so a screenshot cannot go stale silently.
#   bash docs/images/make.sh build/cli/topsim            # re-make the screenshots
#   bash docs/images/make.sh build/cli/topsim --check    # are they current?
set -euo pipefail
topsim=$(realpath "$1")
mode=${2:-make}
images=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$images/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

"$topsim" run scenarios/ack-v100-benchmark.json -o "$work/ack" --quiet >/dev/null
"$topsim" run docs/images/ack-one-node.json -o "$work/one" --quiet >/dev/null
"$topsim" report "$work/ack" "$work/one" --label "two nodes,one node" -o "$work/compare" >/dev/null
sources=$(cd "$work" && sha256sum ack/report.html compare/report.html | sed 's|/report.html$||')

if [[ $mode == --check ]]; then
  if [[ $sources != "$(cat "$images/sources.txt")" ]]; then
    echo "docs/images: the screenshots show reports this build no longer writes; re-make them: bash docs/images/make.sh $1"
    diff <(echo "$sources") "$images/sources.txt" || true
    exit 1
  fi
  exit 0
fi

shoot() {  # report folder, image name
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --user-data-dir="$work/profile" \
    --window-size=1280,1600 --virtual-time-budget=10000 --screenshot="$images/$2" "file://$work/$1/report.html" 2>/dev/null
}
shoot ack report-ack.png
shoot compare report-compare.png
echo "$sources" >"$images/sources.txt"
