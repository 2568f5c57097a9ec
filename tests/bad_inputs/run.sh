#!/usr/bin/env bash
# The bad-input table: run.sh TOPSIM_BINARY [CASE...]
#
# Runs every case of tests/bad_inputs/cases/ (or the CASEs given: files, or names with or
# without the .case suffix) and checks that topsim rejects the input as promised: exit code 2,
# exactly one line on stderr starting with "topsim: error: " and holding every `expect:`
# substring, no raw control byte in it, nothing on stdout, nothing written or changed in the
# case's folder. Prints one line per failing case, then "N cases, M failed"; exits 1 when a
# case failed. Needs bash, coreutils and grep only. Format: tests/bad_inputs/README.md.
#
# Environment: BAD_INPUTS_JOBS (cases at once, default: nproc), BAD_INPUTS_TIMEOUT (seconds per
# case, default 20), BAD_INPUTS_VERBOSE=1 (print the command of a failing case too),
# BAD_INPUTS_KEEP=1 (keep the temporary folders).
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
verbose=${BAD_INPUTS_VERBOSE:-0}

# The binary may be being rebuilt: wait a little for it.
for _ in $(seq 1 30); do
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
    else
      echo "bad-inputs: no case '$c'" >&2
      exit 2
    fi
  done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/topsim-bad-inputs.XXXXXX")
cleanup() { [[ ${BAD_INPUTS_KEEP:-0} == 1 ]] || rm -rf "$work"; }
trap cleanup EXIT

# Shows bytes readably on one line: control bytes as ^X / M-x (cat -v), at most 300 bytes.
show() { head -c 300 "$1" | cat -v | tr '\n' '|'; }

# Every path under a folder with a checksum for regular files (never opens FIFOs).
snapshot() {
  (cd "$1" && find . -print | LC_ALL=C sort | while IFS= read -r p; do
    if [[ -f $p && ! -L $p ]]; then printf '%s %s\n' "$p" "$(cksum <"$p")"; else printf '%s\n' "$p"; fi
  done)
}

# run_case CASE_FILE RESULT_FILE: writes "" (passed) or the failure line to RESULT_FILE.
run_case() {
  local file=$1 result=$2 name
  name=$(basename "$file" .case)
  local dir=$work/$name
  local out=$dir/out
  mkdir -p "$dir/files"
  dir=$dir/files
  out=$dir/out
  local reasons=() args_line="" expects=() envs=() line fname="" fmode="" body="" in_files=0 have_args=0

  flush_file() {
    [[ -z $fname ]] && return 0
    local target
    printf -v target '%b' "$fname"
    mkdir -p "$dir/$(dirname "$target")"
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
      line=${line//\{dir\}/$dir}
      body+=$line$'\n'
      continue
    fi
    case $line in
      ''|'#'*) ;;
      'args:'*) args_line=${line#args:}; have_args=1 ;;
      'expect:'*) local e=${line#expect:}; e=${e# }; expects+=("$e") ;;
      'env:'*) local v=${line#env:}; v=${v# }; envs+=("$v") ;;
      'fifo:'*) local f=${line#fifo:}; f=${f# }; mkfifo "$dir/$f" ;;
      'mkdir:'*) local m=${line#mkdir:}; m=${m# }; mkdir -p "$dir/$m" ;;
      'symlink:'*)  # symlink: NAME TARGET
        local s=${line#symlink:} sn st
        read -r sn st <<<"$s"
        ln -s "${st//\{dir\}/$dir}" "$dir/$sn" ;;
      *) reasons+=("bad case file: unknown line '$line'") ;;
    esac
  done <"$file"
  flush_file
  [[ $have_args == 1 ]] || reasons+=("bad case file: no 'args:' line")
  [[ ${#expects[@]} -gt 0 ]] || reasons+=("bad case file: no 'expect:' line")

  local argv=() word expanded
  read -ra words <<<"$args_line"
  for word in "${words[@]}"; do
    word=${word//\{dir\}/$dir}
    word=${word//\{out\}/$out}
    if [[ $word == "{empty}" ]]; then expanded=""; else printf -v expanded '%b' "$word"; fi
    argv+=("$expanded")
  done

  if [[ ${#reasons[@]} -gt 0 ]]; then
    printf '%s: %s\n' "$name" "${reasons[*]}" >"$result"
    return
  fi

  local before after
  before=$(snapshot "$dir")
  local so=$work/$name.stdout se=$work/$name.stderr rc attempt
  # A binary being rebuilt cannot be run for a moment (126: permission denied, text file busy;
  # 127: missing): try again for up to 60 s.
  for attempt in $(seq 1 60); do
    (
      cd "$dir" || exit 99
      exec env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_MAX \
        -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_STEP -u SLURM_ARRAY_JOB_ID \
        -u JOB_COMPLETION_INDEX -u GITHUB_STEP_SUMMARY -u TOPSIM_CHECK_INVARIANTS \
        "${envs[@]}" timeout -k 2 "$limit" "$bin" "${argv[@]}" </dev/null >"$so" 2>"$se"
    )
    rc=$?
    [[ ($rc == 126 || $rc == 127) && -z $(head -c 15 "$se" | grep -F "topsim: ") ]] || break
    sleep 1
  done
  after=$(snapshot "$dir")

  if [[ $rc == 124 || $rc == 137 ]]; then
    reasons+=("hang: killed after ${limit}s")
  elif [[ $rc != 2 ]]; then
    reasons+=("exit $rc (want 2)")
  fi
  if [[ -s $so ]]; then reasons+=("stdout not empty: '$(show "$so")'"); fi
  local newlines size
  newlines=$(tr -cd '\n' <"$se" | wc -c)
  size=$(wc -c <"$se")
  if [[ $size == 0 ]]; then
    reasons+=("stderr empty")
  else
    if [[ $newlines != 1 || $(tail -c 1 "$se" | od -An -tx1 | tr -d ' ') != 0a ]]; then
      reasons+=("stderr is not one line ($newlines newlines)")
    fi
    if [[ $(head -c 15 "$se") != "topsim: error: " ]]; then
      reasons+=("stderr does not start with 'topsim: error: '")
    fi
    local ctl
    ctl=$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$se" | wc -c)
    if [[ $ctl != 0 ]]; then reasons+=("$ctl raw control byte(s) in stderr"); fi
    local e
    for e in "${expects[@]}"; do
      LC_ALL=C grep -aqF -- "$e" "$se" || reasons+=("stderr lacks '$e'")
    done
  fi
  if [[ $before != "$after" ]]; then
    local changed
    changed=$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep '^[<>]' |
      sed 's/ [0-9]* [0-9]*$//' | sort -u | tr '\n' ' ')
    reasons+=("files written or changed: $changed")
  fi

  if [[ ${#reasons[@]} -gt 0 ]]; then
    local msg="FAIL $name: $(IFS=';'; echo "${reasons[*]}") -- stderr: '$(show "$se")'"
    if [[ $verbose == 1 ]]; then
      msg+=" -- command: topsim $(printf '%q ' "${argv[@]}")"
    fi
    printf '%s\n' "$msg" >"$result"
  else
    : >"$result"
  fi
}

mkdir -p "$work/results"
running=0
for file in "${cases[@]}"; do
  run_case "$file" "$work/results/$(basename "$file" .case)" &
  running=$((running + 1))
  if [[ $running -ge $jobs ]]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

failed=0
for file in "${cases[@]}"; do
  r=$work/results/$(basename "$file" .case)
  if [[ ! -f $r ]]; then
    echo "FAIL $(basename "$file" .case): the runner itself failed on this case"
    failed=$((failed + 1))
  elif [[ -s $r ]]; then
    cat "$r"
    failed=$((failed + 1))
  fi
done
echo "${#cases[@]} cases, $failed failed"
[[ $failed == 0 && ${#cases[@]} -gt 0 ]]
