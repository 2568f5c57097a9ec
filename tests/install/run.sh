#!/usr/bin/env bash
# `cmake --install` of the build folder $1 into a fresh prefix: the command, its bash and zsh
# completion and its manual page (generated from the command table), the README and the docs.
# Each check prints "FAIL: ..." when it fails; the script exits 1 when any did.
set -u
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

cmake --build "$build" --target topsim_generated_docs >/dev/null || fail "the completion and manual page were not generated"
cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install"

for file in bin/topsim share/bash-completion/completions/topsim share/zsh/site-functions/_topsim share/man/man1/topsim.1 \
  share/doc/topsim/README.md share/doc/topsim/docs/results-format.md share/doc/topsim/docs/images/report-ack.png; do
  [[ -f $prefix/$file ]] || fail "$file is not installed"
done
[[ -x $prefix/bin/topsim ]] && [[ $("$prefix/bin/topsim" --version) == "topsim "* ]] || fail "the installed topsim does not run"

# The installed files are what the installed command generates.
cmp -s <("$prefix/bin/topsim" completion bash) "$prefix/share/bash-completion/completions/topsim" ||
  fail "the installed bash completion is not what 'topsim completion bash' writes"
cmp -s <("$prefix/bin/topsim" man) "$prefix/share/man/man1/topsim.1" || fail "the installed man page is not what 'topsim man' writes"

# bash loads the completion and registers it for topsim.
bash -c "source '$prefix/share/bash-completion/completions/topsim' && complete -p topsim" 2>&1 | grep -q -- "-F _topsim topsim" ||
  fail "bash does not register the completion"

# man renders the page without a warning, and it names every command.
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$prefix/share/man/man1/topsim.1" 2>&1)
  [[ -z $warnings ]] || fail "groff warns about the man page: $warnings"
fi
while read -r command; do
  grep -q "^\.SS \"$command\"$" "$prefix/share/man/man1/topsim.1" || fail "the man page has no section for '$command'"
done < <("$prefix/bin/topsim" help | sed -n 's/^  \([a-z][a-z-]*\( [a-z][a-z-]*\)\?\)  .*/\1/p')

# `topsim run` without a scenario runs the installed default (its copy here, changed to tell).
scenario=$prefix/share/topsim/scenarios/ack-v100-benchmark.json
if [[ -f $scenario ]]; then
  sed -i 's/"name": "ack-v100-benchmark"/"name": "installed-default"/' "$scenario"
  (cd "$prefix" && bin/topsim run -o run --quiet --no-report >/dev/null) || fail "the installed topsim does not run its default"
  grep -q '"name": "installed-default"' "$prefix/run/results.json" 2>/dev/null || fail "topsim run did not run the installed default scenario"
else
  fail "share/topsim/scenarios/ack-v100-benchmark.json is not installed"
fi

[[ $failed == 0 ]] && echo "installed and checked in a fresh prefix"
exit $failed
