#!/usr/bin/env bash
# Runs mediabatch over the hostile-input suite and prints what it did: items by outcome and error
# code, crashes, hangs, outputs outside the output root, inputs modified, partial outputs, peak RSS
# and wall time, as text and as a markdown table (hostile/README.md says what each figure means).
# Exits 1 when a figure that must be 0 is not, or when no run completed.
#
#   hostile/run.sh [SUITE_DIR] [-- EXTRA `mediabatch run` ARGUMENTS]
#   MEDIABATCH_ARGS="--jobs 4 --memory-budget 2GiB" hostile/run.sh
#
# Environment:
#   MEDIABATCH            binary to test (default: built here into .build-hostile when sources changed)
#   MEDIABATCH_ARGS       extra `mediabatch run` arguments, split on spaces (added before those after --)
#   HOSTILE_SCRATCH       scratch folder, emptied first (default hostile/scratch)
#   HOSTILE_HANG_SECONDS  an input held open, or waited on, this long is a hang (default 60)
#   HOSTILE_TIMEOUT       limit for one whole run, in seconds (default 1800)
#   HOSTILE_MAX_RUNS      most runs before giving up on finding culprits (default 30)
#
# When mediabatch crashes or stalls, the inputs responsible are found (isolate.py runs the suspects
# one by one), left out, and the run goes on from where it stopped (same output root: mediabatch's
# state database skips what is done). Once a run completes, one more run over the suite minus those
# inputs starts from an empty output root: the figures are that run's, with the crashes and hangs of
# the earlier ones. mediabatch gets a /tmp of its own (scratch/private-tmp, bound over /tmp in a
# mount namespace) when unshare allows, so that files it leaves there are told from other programs'.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
suite=$here/suite
if [[ $# -gt 0 && $1 != -- ]]; then suite=$1; shift; fi
[[ ${1:-} == -- ]] && shift
read -r -a extra <<< "${MEDIABATCH_ARGS:-}"
extra+=("$@")
scratch=${HOSTILE_SCRATCH:-$here/scratch}
hang_seconds=${HOSTILE_HANG_SECONDS:-60}
timeout_seconds=${HOSTILE_TIMEOUT:-1800}
max_runs=${HOSTILE_MAX_RUNS:-30}

"$root/scripts/install-deps.sh" time gdb  # gdb: stacks of crashes and hangs (optional, but they say where)

if [[ -z ${MEDIABATCH:-} ]]; then
  MEDIABATCH=$root/.build-hostile/release/mediabatch
  # swift build takes a while even when nothing changed: only when a source is newer than the binary.
  if [[ ! -x $MEDIABATCH || -n $(find "$root/Sources" "$root/Package.swift" -newer "$MEDIABATCH" -print -quit) ]]; then
    (cd "$root" && swift build -c release --scratch-path .build-hostile)
  fi
fi

[[ -f $suite/SUITE.tsv ]] || python3 "$here/make-suite.py" "$suite"
suite=$(cd "$suite" && pwd -P)

rm -rf "$scratch"
mkdir -p "$scratch/meta" "$scratch/output"
scratch=$(cd "$scratch" && pwd -P)
meta=$scratch/meta
output=$scratch/output

own_tmp=()  # the command prefix that gives mediabatch its own /tmp
if [[ $suite/ != /tmp/* && $scratch/ != /tmp/* && $MEDIABATCH != /tmp/* ]] && unshare --mount true 2>/dev/null; then
  mkdir "$scratch/private-tmp"
  own_tmp=(unshare --mount --propagation private sh -c 'mount --bind "$0" /tmp && exec "$@"' "$scratch/private-tmp")
fi
python3 "$here/figures.py" before "$suite" "$scratch"

excluded=()     # inputs that crashed or hung mediabatch in an earlier run
resuming=false  # true while looking for culprits: keep the output root and its state database
unexplained=0   # runs in a row that died with no single input to blame
run=0
while (( run < max_runs )); do
  run=$((run + 1))
  attempt=$meta/attempt-$run
  mkdir -p "$attempt/vanished"
  if ! $resuming; then rm -rf "$output"; mkdir -p "$output"; fi
  python3 - "$here/pipeline.json" "$attempt/pipeline.json" "${excluded[@]}" <<'EOF'
import json, sys
pipeline = json.load(open(sys.argv[1]))
pipeline["input"]["exclude"] = pipeline["input"].get("exclude", ["**/.*"]) + sys.argv[3:]
json.dump(pipeline, open(sys.argv[2], "w"), indent=2)
EOF
  echo "hostile: run $run: mediabatch over $suite$($resuming && echo ' (resuming)')$( ((${#excluded[@]})) && echo ", leaving out ${#excluded[@]} input(s)")"
  status=0
  python3 "$here/supervise.py" --suite "$suite" --vanish-to "$attempt/vanished" --record "$attempt/supervise.json" \
      --hang-seconds "$hang_seconds" -- \
      /usr/bin/time -v -o "$attempt/time.txt" timeout -k 30 "$timeout_seconds" "${own_tmp[@]}" \
      "$MEDIABATCH" run "$attempt/pipeline.json" --input "$suite" --output "$output" --report "$attempt/report.json" \
      "${extra[@]}" >"$attempt/stdout.log" 2>"$attempt/stderr.log" || status=$?
  [[ -f $attempt/supervise.json ]] || { echo "hostile: supervise.py failed (exit $status)" >&2; exit 2; }

  if (( status == 0 || status == 1 )); then
    $resuming || break
    resuming=false  # culprits found and left out: now the clean run the figures describe
    continue
  fi
  mapfile -t culprits < <(python3 "$here/isolate.py" --suite "$suite" --pipeline "$attempt/pipeline.json" \
      --state "$output/.mediabatch/state.sqlite" --supervised "$attempt/supervise.json" --work "$attempt/isolate" \
      --record "$attempt/isolate.json" --timeout "$hang_seconds" -- "$MEDIABATCH" "${extra[@]}")
  if (( ${#culprits[@]} )); then
    echo "hostile: run $run ended with exit $status; left out from now on: ${culprits[*]}"
    excluded+=("${culprits[@]}")
    unexplained=0
  else
    # Not reproducible with one input (a race, a leak that builds up): go on once more as it is.
    echo "hostile: run $run ended with exit $status; no single input does it alone"
    unexplained=$((unexplained + 1))
    (( unexplained < 2 )) || break
  fi
  resuming=true
done

python3 "$here/figures.py" table "$suite" "$scratch" | tee "$meta/figures.txt"
