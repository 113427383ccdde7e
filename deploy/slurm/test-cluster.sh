#!/usr/bin/env bash
# deploy/slurm on a real Slurm: a one-node cluster on this machine runs mediabatch-array.sh over
# samples/ as 4 shards and merge.sh after it, and the result must equal one process's run of the same
# pipeline: the merged report's items and totals, the merged manifest (same bytes), every output (same
# bytes, no file more or less). Then again with one array task cancelled midway (scancel) and
# resubmitted alone: it must do exactly its own shard, leave the other shards' files alone, and the
# merge must again equal the single run.
#
#   deploy/slurm/test-cluster.sh                       # builds .build/release/mediabatch first
#   MEDIABATCH=path/to/mediabatch deploy/slurm/test-cluster.sh
#   make test-slurm
#
# Needs root (slurmd runs the jobs as the submitting user, and here that is root). Installs Debian's
# slurmctld, slurmd, slurm-client and munge with apt when missing. Everything else is in a temporary
# folder: the config (SLURM_CONF points the client commands at it), munged with its own key and socket,
# slurmctld and slurmd listening on free loopback ports, their state, spool, logs and the outputs. The
# daemons are started directly (no systemd needed) and stopped, with every process of the test, on
# exit, whatever happens. KEEP=1 keeps the folder; on failure the daemons' logs and the jobs' output
# are printed. Optional: PIPELINE (default pipelines/web-responsive.json, which writes a manifest).
set -euo pipefail

start=$SECONDS
repo=$(cd "$(dirname "$0")/../.." && pwd)
slurm_dir=$repo/deploy/slurm
pipeline=$(realpath "${PIPELINE:-$repo/pipelines/web-responsive.json}")
input=$repo/samples
shards=4

say() { echo "== $* ($((SECONDS - start)) s)"; }
die() { echo "error: $*" >&2; exit 1; }

(( EUID == 0 )) || die "run as root (installs packages, runs slurmd)"

# --- packages -------------------------------------------------------------------------------------
missing=()
for pkg in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if (( ${#missing[@]} )); then
  say "installing ${missing[*]}"
  apt-get update -qq
  # The packages' own services are not needed. In a container (no systemd, no runlevel) invoke-rc.d
  # starts none of them; under systemd munge.service starts, and slurmctld and slurmd fail for want of
  # /etc/slurm/slurm.conf, harmlessly: this test's daemons use their own config, key and socket.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- mediabatch -----------------------------------------------------------------------------------
if [[ -n ${MEDIABATCH:-} ]]; then
  mediabatch=$(realpath "$MEDIABATCH")
else
  say "swift build -c release"
  (cd "$repo" && swift build -c release >/dev/null)
  mediabatch=$repo/.build/release/mediabatch
fi
[[ -x $mediabatch ]] || die "no mediabatch binary at $mediabatch"
"$mediabatch" validate "$pipeline" >/dev/null
# output.manifest of the pipeline, if it has one (merge.sh merges the shards' when MEDIABATCH_MANIFEST says which).
manifest=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("output", {}).get("manifest", ""))' "$pipeline")

# --- the cluster ----------------------------------------------------------------------------------
work=$(mktemp -d /tmp/mediabatch-slurm.XXXXXX)
chmod 700 "$work"
conf=$work/slurm.conf
pids=()

# Every process the test started carries SLURM_CONF=$conf in its environment (the daemons, slurmstepd,
# the jobs and their mediabatch workers): that, and nothing broader, is what cleanup stops.
ours() {
  local env pid
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    [[ $pid != "$$" ]] || continue
    grep -qsxzF "SLURM_CONF=$conf" "$env" && echo "$pid"
  done
  return 0
}

cleanup() {
  local rc=$? f i left
  trap - EXIT INT TERM
  set +e
  if (( rc != 0 )) && [[ -d $work ]]; then
    echo "== failed (exit $rc); logs:" >&2
    for f in "$work"/log/* "$work"/jobs/*.out; do
      [[ -f $f ]] || continue
      echo "--- $f" >&2; tail -n 40 "$f" >&2
    done
  fi
  # Jobs first, while slurmctld is there to hear that they ended (else slurmstepd waits for it): they
  # get 10 s to drain. Then the daemons; then whatever is left, SIGTERM again after 2 s, SIGKILL after 5.
  if [[ -f $conf ]] && (( ${#pids[@]} )); then
    SLURM_CONF=$conf timeout 10 scancel --quiet --user=root 2>/dev/null
    for (( i = 0; i < 50; i++ )); do
      [[ -z $(SLURM_CONF=$conf timeout 5 squeue -h --user=root 2>/dev/null) ]] && break
      sleep 0.2
    done
  fi
  (( ${#pids[@]} )) && kill -TERM "${pids[@]}" 2>/dev/null
  for (( i = 0; i < 25; i++ )); do
    mapfile -t left < <(ours)
    (( ${#left[@]} )) || break
    (( i == 10 )) && kill -TERM "${left[@]}" 2>/dev/null
    sleep 0.2
  done
  mapfile -t left < <(ours)
  (( ${#left[@]} == 0 )) || kill -KILL "${left[@]}" 2>/dev/null
  wait 2>/dev/null
  if [[ -n ${KEEP:-} ]]; then echo "kept $work" >&2; else rm -rf --one-file-system "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$work"/{munge,state,spool,log,run,jobs}
chmod 700 "$work"/munge

# Two free loopback ports (slurmctld, slurmd), and the memory the node offers: all but 1 GiB.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
cpus=$(nproc)
mem_mib=$(( $(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo) - 1024 ))
(( mem_mib >= 3072 )) || die "needs at least 4 GiB of memory"

cat >"$conf" <<EOF
ClusterName=mbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
# Bind to 127.0.0.1, not to every address.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf

say "starting munged, slurmctld, slurmd (ports $ctld_port, $slurmd_port; $cpus CPUs, $mem_mib MiB)"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 \
  || dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --socket="$work/munge/munge.socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
  --log-file="$work/log/munged.log" >>"$work/log/munged.out" 2>&1 &
pids+=($!)
for (( i = 0; i < 50; i++ )); do [[ -S $work/munge/munge.socket ]] && break; sleep 0.1; done
[[ -S $work/munge/munge.socket ]] || die "munged did not start"

slurmctld -D -i -f "$conf" >>"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$conf" >>"$work/log/slurmd.out" 2>&1 &
pids+=($!)

# Up when the node is idle.
for (( i = 0; i < 300; i++ )); do
  state=$(sinfo -h -N -n localhost -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || die "a daemon exited (pid $pid)"; done
  sleep 0.2
done
[[ $state == idle ]] || die "the node is not idle after 60 s (state: ${state:-none})"
say "cluster up: $(sinfo -h -o '%P %a %D %T %C')"

# --- helpers --------------------------------------------------------------------------------------
# JOB's field NAME (JobState, ExitCode, ...) as scontrol shows it; with an array job id, one line per task.
field() { scontrol -o show job "$1" 2>/dev/null | grep -o "\b$2=[^ ]*" | cut -d= -f2-; }

# An array's tasks as "I STATE EXIT", one a line, by I.
tasks() {
  scontrol -o show job "$1" 2>/dev/null | while read -r line; do
    printf '%s %s %s\n' "$(grep -o '\bArrayTaskId=[^ ]*' <<<"$line" | cut -d= -f2)" \
      "$(grep -o '\bJobState=[^ ]*' <<<"$line" | cut -d= -f2)" "$(grep -o '\bExitCode=[^ ]*' <<<"$line" | cut -d= -f2)"
  done | sort -n
}

# Waits until none of the jobs is pending or running (10 minutes at most).
wait_jobs() {
  local i active
  for (( i = 0; i < 3000; i++ )); do
    # An squeue that fails (slurmctld busy) says nothing: ask again.
    if active=$(squeue -h -j "$(IFS=,; echo "$*")" -t PENDING,RUNNING,CONFIGURING,COMPLETING,SUSPENDED 2>/dev/null); then
      [[ -n $active ]] || return 0
    fi
    sleep 0.2
  done
  die "jobs $* still running after 10 minutes"
}

# Submits mediabatch-array.sh into OUTPUT; sbatch options follow. Prints the job id.
# --cpus-per-task=1 (the script asks 4) so that the array fits on a machine of 2 CPUs; --mem is the script's 2G.
submit_array() {
  local output=$1; shift
  MEDIABATCH=$mediabatch MEDIABATCH_PIPELINE=$pipeline MEDIABATCH_INPUT=$input MEDIABATCH_OUTPUT=$output \
    sbatch --parsable --chdir="$work/jobs" --cpus-per-task=1 "$@" "$slurm_dir/mediabatch-array.sh"
}
submit_merge() {
  local output=$1; shift
  MEDIABATCH=$mediabatch MEDIABATCH_OUTPUT=$output MEDIABATCH_MANIFEST=$manifest \
    sbatch --parsable --chdir="$work/jobs" "$@" "$slurm_dir/merge.sh" "$shards"
}

# Compares the run in OUTPUT (its merged report and manifest, its files) with the single run.
# MODE exact: the same report items (but their durations); resumed: an item may be unchanged where
# the single run made it (done before the cancel), with the same outputs.
compare() {
  local output=$1 mode=$2
  python3 - "$work/single/report.json" "$output/.mediabatch/reports/merged.json" "$mode" <<'EOF'
import json, sys
single, merged = (json.load(open(p)) for p in sys.argv[1:3])
mode = sys.argv[3]
def items(report):
    out = {}
    for item in report["items"]:
        item = dict(item)
        item.pop("milliseconds", None)
        out[item["input"]] = item
    return out
a, b = items(single), items(merged)
if sorted(a) != sorted(b):
    sys.exit(f"error: the merged report's inputs differ: only single {sorted(set(a) - set(b))}, only merged {sorted(set(b) - set(a))}")
unchanged = 0
for name in sorted(a):
    x, y = a[name], b[name]
    if mode == "resumed" and y["change"] == "unchanged":
        # Done before the cancel: the resubmitted task found it done. Its outputs are compared below,
        # by the manifest and the files.
        if (x["status"], y["status"]) not in (("ok", "unchanged"), ("skipped", "skipped")) or x.get("reason") != y.get("reason"):
            sys.exit(f"error: {name}: single run {json.dumps(x, sort_keys=True)}\n  merged {json.dumps(y, sort_keys=True)}")
        unchanged += 1
        continue
    if x != y:
        sys.exit(f"error: {name}: single run {json.dumps(x, sort_keys=True)}\n  merged {json.dumps(y, sort_keys=True)}")
if mode == "exact" and single["totals"] != merged["totals"]:
    sys.exit(f"error: totals differ: single {single['totals']}, merged {merged['totals']}")
print(f"   report: {len(a)} items as the single run's"
      + (f" ({unchanged} of them unchanged in the resubmitted task: done before the cancel)" if mode == "resumed" else f", totals {merged['totals']['ok']} ok, {merged['totals']['skipped']} skipped, {merged['totals']['outputs']} outputs"))
EOF
  if [[ -n $manifest ]]; then
    cmp "$work/single/out/$manifest" "$output/$manifest" || die "the merged manifest differs from the single run's"
    echo "   manifest: $manifest the same bytes as the single run's ($(stat -c %s "$output/$manifest") bytes)"
  fi
  # Every output, byte for byte; the shards' own manifests and the state are not the single run's.
  local excludes=(--exclude=.mediabatch)
  [[ -z $manifest ]] || excludes+=(--exclude="$(basename "${manifest%.*}").shard-*")
  diff -r "${excludes[@]}" "$work/single/out" "$output" || die "the outputs differ from the single run's"
  echo "   files: $(find "$output" -path "$output/.mediabatch" -prune -o -type f -print | wc -l) under the output, the same bytes as the single run's"
}

# The inputs of a shard report, one a line, sorted.
report_inputs() { python3 -c 'import json, sys; print("\n".join(sorted(i["input"] for i in json.load(open(sys.argv[1]))["items"])))' "$1"; }

# --- 1. one process ------------------------------------------------------------------------------
say "1. single-process run of $(basename "$pipeline") over samples/"
mkdir -p "$work/single"
"$mediabatch" run "$pipeline" --input "$input" --output "$work/single/out" --jobs "$cpus" \
  --report "$work/single/report.json" --quiet

# --- 2. the array and the merge ------------------------------------------------------------------
say "2. array of $shards shards, then the merge (afterany)"
out1=$work/out1
array=$(submit_array "$out1" --array=0-$((shards - 1)))
merge=$(submit_merge "$out1" --dependency=afterany:"$array")
wait_jobs "$array" "$merge"
states=$(field "$array" JobState | sort | uniq -c | xargs)
[[ $(field "$array" JobState | sort -u) == COMPLETED && $(field "$array" ExitCode | sort -u) == 0:0 ]] \
  || die "array $array: $states, exit codes $(field "$array" ExitCode | xargs)"
[[ $(field "$merge" JobState) == COMPLETED ]] || die "merge $merge: $(field "$merge" JobState) $(field "$merge" ExitCode)"
echo "   array $array: $states; merge $merge: COMPLETED"
compare "$out1" exact

# The shard to cancel: the one with the most outputs to make, so that it runs longest.
reports1=$out1/.mediabatch/reports/merged-shards
victim=$(python3 - "$reports1" "$shards" <<'EOF'
import json, sys
folder, n = sys.argv[1], int(sys.argv[2])
sizes = [json.load(open(f"{folder}/shard-{i}.json"))["totals"]["outputs"] for i in range(n)]
print(max(range(n), key=lambda i: sizes[i]))
EOF
)
report_inputs "$reports1/shard-$victim.json" >"$work/victim-inputs"
# Its outputs, relative to the output root (from the manifest-free field: each item's variants or output).
python3 - "$reports1/shard-$victim.json" >"$work/victim-outputs" <<'EOF'
import json, sys
for item in json.load(open(sys.argv[1]))["items"]:
    for v in item.get("variants") or []:
        print(v["path"])
    if not item.get("variants") and item.get("output"):
        print(item["output"])
EOF
victim_items=$(grep -c . "$work/victim-inputs")
victim_outputs=$(grep -c . "$work/victim-outputs")

# --- 3. one task cancelled midway, resubmitted ----------------------------------------------------
say "3. again, task $victim ($victim_items items, $victim_outputs outputs) cancelled midway and resubmitted"
out2=$work/out2
array=$(submit_array "$out2" --array=0-$((shards - 1)))
merge=$(submit_merge "$out2" --dependency=afterany:"$array")
# Midway: once it runs and its first output is in place.
done_at_cancel=
for (( i = 0; i < 3000; i++ )); do
  state=$(field "${array}_$victim" JobState)
  if [[ $state == RUNNING ]]; then
    done_at_cancel=$(while read -r f; do [[ -e $out2/$f ]] && echo "$f"; done <"$work/victim-outputs" | grep -c . || true)
    (( done_at_cancel > 0 )) && break
  fi
  [[ -z $state || $state == PENDING || $state == RUNNING ]] || die "task ${array}_$victim ended ($state) before it could be cancelled: too fast to cancel midway"
  sleep 0.1
done
(( ${done_at_cancel:-0} > 0 )) || die "task ${array}_$victim made no output in 5 minutes"
scancel "${array}_$victim"
(( done_at_cancel < victim_outputs )) || die "task $victim had made all its outputs before the cancel"
echo "   scancel ${array}_$victim with $done_at_cancel of its $victim_outputs outputs in place"
wait_jobs "$array" "$merge"
echo "   array $array, tasks: $(tasks "$array" | paste -sd, | sed 's/,/, /g')"
reports2=$out2/.mediabatch/reports
cancelled_state=$(field "${array}_$victim" JobState)
[[ $cancelled_state == CANCELLED* ]] || die "task ${array}_$victim ended $cancelled_state, not CANCELLED"
cancelled_report=$reports2/shard-$victim.json
[[ -f $cancelled_report ]] || cancelled_report=$reports2/merged-shards/shard-$victim.json
if [[ -f $cancelled_report ]]; then
  interrupted=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["interrupted"])' "$cancelled_report")
  echo "   the cancelled task drained and wrote its report (interrupted: $interrupted); merge $merge: $(field "$merge" JobState) $(field "$merge" ExitCode)"
  if [[ $interrupted == True && -n $manifest ]]; then
    [[ ! -e $out2/$manifest ]] || die "merge.sh published $manifest from an interrupted shard"
    echo "   and it published no $manifest from the interrupted shard"
  fi
else
  [[ $(field "$merge" JobState) == FAILED ]] || die "merge $merge should have failed: shard $victim left no report"
  echo "   the cancelled task left no report; merge $merge: FAILED, as it should (shard $victim missing)"
fi

# Resubmit it alone, as deploy/README.md says: the merged shard reports back first, if that merge was complete.
if [[ -d $reports2/merged-shards ]]; then mv "$reports2"/merged-shards/shard-*.json "$reports2"/; fi
# What the other shards left, to see that the resubmitted task does not touch it.
snapshot() {
  (cd "$out2" && find . -path ./.mediabatch/reports -prune -o -path ./.mediabatch/tmp -prune -o -type f -print0 \
    | xargs -0 stat -c '%n %s %Y.%.9Y' | grep -vFf <(sed 's|^|./|; s|$| |' "$work/victim-outputs") \
    | grep -v -e "state-shard-$victim-of-" -e "^\./${manifest:-/} " -e "metrics/shard-$victim\.prom" -e "\.shard-$victim-of-" | sort)
}
snapshot >"$work/others-before"
resubmit=$(MEDIABATCH_SHARD_COUNT=$shards submit_array "$out2" --array="$victim")
merge=$(submit_merge "$out2" --dependency=afterany:"$resubmit")
wait_jobs "$resubmit" "$merge"
[[ $(field "$resubmit" JobState) == COMPLETED && $(field "$resubmit" ExitCode) == 0:0 ]] \
  || die "resubmitted task $resubmit: $(field "$resubmit" JobState) $(field "$resubmit" ExitCode)"
[[ $(field "$merge" JobState) == COMPLETED ]] || die "merge $merge: $(field "$merge" JobState) $(field "$merge" ExitCode)"
report_inputs "$reports2/merged-shards/shard-$victim.json" | diff "$work/victim-inputs" - \
  || die "the resubmitted task did not do exactly shard $victim/$shards"
python3 - "$reports2/merged-shards/shard-$victim.json" <<'EOF'
import json, sys
from collections import Counter
report = json.load(open(sys.argv[1]))
status = Counter(i["status"] for i in report["items"])
assert not report["interrupted"], "the resubmitted task was interrupted"
assert status["unchanged"] > 0, f"nothing was left from before the cancel: {dict(status)}"
assert status["ok"] > 0, f"nothing was left to do after the cancel: {dict(status)}"
assert status["failed"] == 0, f"failed items: {dict(status)}"
print(f"   resubmitted task: exactly its shard's {len(report['items'])} items: "
      + ", ".join(f"{n} {s}" for s, n in sorted(status.items())))
EOF
snapshot | diff "$work/others-before" - || die "the resubmitted task changed files of other shards"
echo "   the other shards' $(grep -c . "$work/others-before") files untouched (size, mtime)"
compare "$out2" resumed

echo "== passed: deploy/slurm on a one-node Slurm $(sinfo -V | cut -d' ' -f2) cluster; wall time $((SECONDS - start)) s"
