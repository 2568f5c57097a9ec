#!/usr/bin/env bash
# The bad-input table: run.sh TOPSIM_BINARY [CASE...]
#
# Runs every case of tests/bad_inputs/cases/ (or the CASEs given: files, names with or without
# the .case suffix, or name prefixes such as 2 or 21) and checks that topsim rejects the input as promised: exit code 2,
# exactly one line on stderr starting with "topsim: error: " and holding every `expect:`
# substring, no raw control byte in it, nothing on stdout, nothing written or changed in the
# case's folder. Prints one line per failing case, then "N cases, M failed"; exits 1 when a
# case failed. Needs bash, coreutils and grep only. The case format: tests/bad_inputs/README.md.
#
# Environment: BAD_INPUTS_JOBS (cases at once, default: nproc), BAD_INPUTS_TIMEOUT (seconds per
# case, default 20; a case's `timeout:` line overrides it), BAD_INPUTS_MEMORY_MB (virtual memory
# limit of topsim, default 2048, 0 = none: needed for sanitizer builds), BAD_INPUTS_VERBOSE=1
# (print the command of a failing case too), BAD_INPUTS_KEEP=1 (keep the temporary folders).
set -u

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
  echo "usage: $0 TOPSIM_BINARY [CASE...]" >&2
  exit 2
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$1
shift
[[ $bin == /* ]] || bin=$PWD/$bin
jobs=${BAD_INPUTS_JOBS:-$(nproc 2>/dev/null || echo 2)}
limit=${BAD_INPUTS_TIMEOUT:-20}
memory_mb=${BAD_INPUTS_MEMORY_MB:-2048}
verbose=${BAD_INPUTS_VERBOSE:-0}

# The binary may be being rebuilt: wait a little for it.
for _ in {1..60}; do
  [[ -x $bin ]] && break
  sleep 1
done
if [[ ! -x $bin ]]; then
  echo "bad-inputs: no executable '$bin'" >&2
  exit 2
fi

cases=()
if [[ $# -eq 0 ]]; then
  cases=("$here"/cases/*.case)
else
  for c in "$@"; do
    if [[ -f $c ]]; then cases+=("$c")
    elif [[ -f $here/cases/$c ]]; then cases+=("$here/cases/$c")
    elif [[ -f $here/cases/$c.case ]]; then cases+=("$here/cases/$c.case")
    elif compgen -G "$here/cases/$c*.case" >/dev/null; then cases+=("$here"/cases/"$c"*.case)
    else
      echo "bad-inputs: no case '$c'" >&2
      exit 2
    fi
  done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/topsim-bad-inputs.XXXXXX")
cleanup() {
  if [[ ${BAD_INPUTS_KEEP:-0} == 1 ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Shows a file's bytes on one line: control bytes as ^X / M-x (cat -v), newlines as |, at most
# 300 bytes.
show() { head -c 300 "$1" | cat -v | tr '\n' '|'; }

# Every path under the current folder with its type, size and modification time (FIFOs are
# listed, never opened).
snapshot() { find . -printf '%y %s %T@ %p\n'; }

# run_case CASE_FILE RESULT_FILE: leaves RESULT_FILE empty (passed) or writes the failure line.
run_case() {
  local file=$1 result=$2
  local name=${file##*/}
  name=${name%.case}
  local dir=$work/$name/files
  local out=$dir/out
  mkdir -p "$dir"
  local reasons=() args_line="" expects=() envs=() line fname="" fmode="" body="" in_files=0 have_args=0
  local case_limit=$limit

  flush_file() {
    [[ -z $fname ]] && return 0
    local target
    printf -v target '%b' "$fname"
    [[ $target == */* ]] && mkdir -p "$dir/${target%/*}"
    if [[ $fmode == printf ]]; then
      printf '%b' "$body" >"$dir/$target"
    else
      printf '%s' "$body" >"$dir/$target"
    fi
    fname="" body=""
  }

  while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line == "--- "* ]]; then
      flush_file
      in_files=1
      fname=${line#--- }
      fmode=plain
      if [[ $fname == *" (printf)" ]]; then
        fname=${fname% (printf)}
        fmode=printf
      fi
      continue
    fi
    if [[ $in_files == 1 ]]; then
      body+=${line//\{dir\}/$dir}$'\n'
      continue
    fi
    local value=${line#*:}
    value=${value# }
    case $line in
      ''|'#'*) ;;
      'args:'*) args_line=$value; have_args=1 ;;
      'expect:'*) expects+=("$value") ;;
      'env:'*) envs+=("$value") ;;
      'fifo:'*) [[ $value == */* ]] && mkdir -p "$dir/${value%/*}"; mkfifo "$dir/$value" ;;
      'mkdir:'*) mkdir -p "$dir/$value" ;;
      'timeout:'*) case_limit=$value ;;
      'truncate:'*) truncate -s "${value##* }" "$dir/${value% *}" ;;
      *) reasons+=("bad case file: unknown line '$line'") ;;
    esac
  done <"$file"
  flush_file
  [[ $have_args == 1 ]] || reasons+=("bad case file: no 'args:' line")
  [[ ${#expects[@]} -gt 0 ]] || reasons+=("bad case file: no 'expect:' line")

  local argv=() words=() word expanded
  read -ra words <<<"$args_line"
  for word in "${words[@]}"; do
    word=${word//\{dir\}/$dir}
    word=${word//\{out\}/$out}
    if [[ $word == "{empty}" ]]; then expanded=""; else printf -v expanded '%b' "$word"; fi
    argv+=("$expanded")
  done

  if [[ ${#reasons[@]} -gt 0 ]]; then
    printf 'FAIL %s: %s\n' "$name" "${reasons[*]}" >"$result"
    return
  fi

  cd "$dir" || return
  local before after
  before=$(snapshot)
  local so=$work/$name/stdout se=$work/$name/stderr rc attempt
  # A binary being rebuilt cannot be run for a moment (126: permission denied, text file busy;
  # 127: missing): try again for up to 60 s.
  for attempt in {1..60}; do
    { (
      [[ $memory_mb -gt 0 ]] && ulimit -v $((memory_mb * 1024))
      exec env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_MAX \
        -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_STEP -u SLURM_ARRAY_JOB_ID \
        -u JOB_COMPLETION_INDEX -u GITHUB_STEP_SUMMARY -u TOPSIM_CHECK_INVARIANTS \
        "${envs[@]}" timeout -k 2 "$case_limit" "$bin" "${argv[@]}" </dev/null >"$so" 2>"$se"
    ); } 2>/dev/null
    rc=$?
    [[ ($rc == 126 || $rc == 127) && $(head -c 7 "$se") != "topsim:" ]] || break
    sleep 1
  done
  after=$(snapshot)

  if [[ $rc == 124 || $rc == 137 ]]; then
    reasons+=("hang: killed after ${case_limit}s")
  elif [[ $rc -gt 128 ]]; then
    reasons+=("crashed: killed by signal $((rc - 128)) (want exit 2)")
  elif [[ $rc != 2 ]]; then
    reasons+=("exit $rc (want 2)")
  fi
  [[ -s $so ]] && reasons+=("stdout not empty: '$(show "$so")'")

  # The control bytes of stderr, in hex: exactly "0a" for one clean line.
  local ctl content="" e
  ctl=$(LC_ALL=C tr -d '\040-\176\200-\377' <"$se" | od -An -tx1 | tr -d ' \n')
  if [[ ! -s $se ]]; then
    reasons+=("stderr empty")
  else
    if [[ $ctl == 0a ]]; then
      IFS= read -r -d '' content <"$se"
      [[ $content == *$'\n' ]] || reasons+=("stderr does not end with its newline")
    else
      # bytes are 00-1f or 7f, so "0a" only matches whole bytes
      local others=${ctl//0a/} newlines=${ctl//0a/x}
      newlines=${newlines//[^x]/}
      [[ ${#newlines} == 1 ]] || reasons+=("stderr is not one line (${#newlines} newlines)")
      [[ -n $others ]] && reasons+=("$((${#others} / 2)) raw control byte(s) in stderr")
    fi
    [[ $(head -c 15 "$se") == "topsim: error: " ]] || reasons+=("stderr does not start with 'topsim: error: '")
    LC_ALL=C grep -aqF -- "[json.exception" "$se" && reasons+=("stderr quotes the JSON library's exception text")
    for e in "${expects[@]}"; do
      if [[ -n $content ]]; then
        [[ $content == *"$e"* ]] || reasons+=("stderr lacks '$e'")
      else
        LC_ALL=C grep -aqF -- "$e" "$se" || reasons+=("stderr lacks '$e'")
      fi
    done
  fi
  if [[ $before != "$after" ]]; then
    local changed
    changed=$(diff <(LC_ALL=C sort <<<"$before") <(LC_ALL=C sort <<<"$after") | grep '^[<>]' |
      cut -d' ' -f5- | LC_ALL=C sort -u | tr '\n' ' ')
    reasons+=("files written or changed: ${changed% }")
  fi

  if [[ ${#reasons[@]} -gt 0 ]]; then
    local msg
    msg="FAIL $name: $(IFS=';'; echo "${reasons[*]}") -- stderr: '$(show "$se")'"
    [[ $verbose == 1 ]] && msg+=" -- command: topsim $(printf '%q ' "${argv[@]}")"
    printf '%s\n' "$msg" >"$result"
  else
    : >"$result"
  fi
}

mkdir -p "$work/results"
running=0
for file in "${cases[@]}"; do
  n=${file##*/}
  run_case "$file" "$work/results/${n%.case}" &
  running=$((running + 1))
  if [[ $running -ge $jobs ]]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

failed=0
for file in "${cases[@]}"; do
  n=${file##*/}
  r=$work/results/${n%.case}
  if [[ ! -f $r ]]; then
    echo "FAIL ${n%.case}: the runner itself failed on this case"
    failed=$((failed + 1))
  elif [[ -s $r ]]; then
    cat "$r"
    failed=$((failed + 1))
  fi
done
echo "${#cases[@]} cases, $failed failed"
[[ $failed == 0 && ${#cases[@]} -gt 0 ]]
