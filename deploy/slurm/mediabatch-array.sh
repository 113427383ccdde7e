#!/usr/bin/env bash
# mediabatch as a Slurm job array: array task I runs shard I/N over one shared filesystem.
#
#   export MEDIABATCH_PIPELINE=/shared/pipelines/share-safe.json \
#          MEDIABATCH_INPUT=/shared/photos MEDIABATCH_OUTPUT=/shared/web
#   jid=$(sbatch --parsable deploy/slurm/mediabatch-array.sh)
#   sbatch --dependency=afterany:"${jid%%;*}" deploy/slurm/merge.sh 8
#
# sbatch passes the submitting shell's environment on (--export=ALL, its default).
# Optional: MEDIABATCH (the binary; default: mediabatch on PATH), MEDIABATCH_OVERHEAD_MIB (default 256),
# MEDIABATCH_SHARD_COUNT (N, when the array does not cover all of 0..N-1, e.g. re-running one task:
#   MEDIABATCH_SHARD_COUNT=8 sbatch --array=3 deploy/slurm/mediabatch-array.sh).
#
# #SBATCH lines are read only up to the first command; command-line options override them.
#SBATCH --job-name=mediabatch
# N = 8 shards. Contiguous from 0 (a throttle such as 0-7%4 is fine: N stays 8).
#SBATCH --array=0-7
# One libvips thread per item in flight, so --jobs is the CPU count.
#SBATCH --cpus-per-task=4
# The memory budget is this minus MEDIABATCH_OVERHEAD_MIB (below): 2048 - 256 = 1792 MiB,
# ~450 MiB per item in flight, enough for a 48 MP HEIC (~350 MiB) in every slot.
#SBATCH --mem=2G
#SBATCH --time=04:00:00
# %x the job name, %A the array's job id, %a the task id. Slurm creates no folders: a log path in a
# folder that does not exist yet makes the task fail without any log.
#SBATCH --output=%x-%A_%a.out
# SIGTERM to the batch shell (B:), which `exec` below makes mediabatch itself, 120 s before the time
# limit (Slurm may send it up to 60 s earlier): it stops admitting items, finishes those in flight,
# writes the report and exits 143. Without B: the signal would go only to job steps (srun), of which
# there are none. At the limit Slurm sends SIGTERM again (a second signal makes mediabatch remove its
# temporary files and exit at once, without a report), then SIGKILL after KillWait.
#SBATCH --signal=B:TERM@120

set -euo pipefail

die() { echo "error: $*" >&2; exit 2; }   # 2, as mediabatch's own usage errors

[[ -n ${MEDIABATCH_PIPELINE:-} ]] || die "set MEDIABATCH_PIPELINE to the pipeline file"
[[ -n ${MEDIABATCH_INPUT:-} ]] || die "set MEDIABATCH_INPUT to the input folder"
[[ -n ${MEDIABATCH_OUTPUT:-} ]] || die "set MEDIABATCH_OUTPUT to the output folder"
mediabatch=${MEDIABATCH:-mediabatch}
overhead_mib=${MEDIABATCH_OVERHEAD_MIB:-256}

# Shard I/N. Passed as --shard explicitly (mediabatch could read SLURM_ARRAY_TASK_ID/_COUNT/_MIN
# itself) so that the report's name and the shard come from the same two numbers, and so that a
# re-run of some tasks (--array=3,5 with MEDIABATCH_SHARD_COUNT=8) still means shards 3 and 5 of 8:
# from the array alone it would be shards 0 and 1 of 2, a different partition and fresh state.
[[ -n ${SLURM_ARRAY_TASK_ID:-} ]] || die "not an array task: submit with sbatch --array=0-<N-1>"
index=$SLURM_ARRAY_TASK_ID
if [[ -n ${MEDIABATCH_SHARD_COUNT:-} ]]; then
  count=$MEDIABATCH_SHARD_COUNT
else
  count=${SLURM_ARRAY_TASK_COUNT:-0}
  # An array such as 0-14:2 or 1-8 would leave some shards unprocessed.
  (( count > 0 && ${SLURM_ARRAY_TASK_MIN:-0} == 0 && ${SLURM_ARRAY_TASK_MAX:--1} == count - 1 )) \
    || die "array tasks ${SLURM_ARRAY_TASK_MIN:-?}-${SLURM_ARRAY_TASK_MAX:-?} are not shards 0..N-1:" \
           "submit --array=0-<N-1> without steps, or set MEDIABATCH_SHARD_COUNT=N to run some shards of N"
fi

# Memory: the job's cgroup limit (in MiB) minus the process's own overhead: ~100 MiB fixed (66 MiB
# measured over an empty folder, docs/performance.md "Memory") plus margin for estimate error. The limit must
# exceed budget + overhead, or the cgroup OOM-kills the task before the budget ever says no.
if [[ -n ${SLURM_MEM_PER_NODE:-} ]]; then
  mem_mib=$SLURM_MEM_PER_NODE
elif [[ -n ${SLURM_MEM_PER_CPU:-} ]]; then
  mem_mib=$(( SLURM_MEM_PER_CPU * ${SLURM_CPUS_PER_TASK:-1} ))
else
  die "no memory limit (SLURM_MEM_PER_NODE/SLURM_MEM_PER_CPU): submit with --mem"
fi
budget_mib=$(( mem_mib - overhead_mib ))
(( budget_mib > 0 )) || die "--mem ${mem_mib}M leaves no budget after ${overhead_mib} MiB overhead (--mem=0 is not supported)"
jobs=${SLURM_CPUS_PER_TASK:-1}

meta=$MEDIABATCH_OUTPUT/.mediabatch
report=$meta/reports/shard-$index.json
mkdir -p "$meta/reports" "$meta/metrics"
# A report left by an earlier run must not pass for this one's if this task dies before writing its own.
rm -f "$report"

echo "mediabatch: shard $index/$count on $(hostname), --jobs $jobs, --memory-budget ${budget_mib}MiB" >&2

# exec: mediabatch replaces the batch shell, so the B:TERM above reaches it directly, and its exit
# code (0, 1 some items failed, 2 invalid, 143 interrupted) is the task's.
# State: the default, $MEDIABATCH_OUTPUT/.mediabatch/state-shard-I-of-N.sqlite, one file per shard.
exec "$mediabatch" run "$MEDIABATCH_PIPELINE" \
  --input "$MEDIABATCH_INPUT" \
  --output "$MEDIABATCH_OUTPUT" \
  --shard "$index/$count" \
  --jobs "$jobs" \
  --memory-budget "${budget_mib}MiB" \
  --report "$report" \
  --metrics "$meta/metrics/shard-$index.prom"
