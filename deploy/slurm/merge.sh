#!/usr/bin/env bash
# Merges the shard reports of mediabatch-array.sh once every array task has ended:
#
#   jid=$(sbatch --parsable deploy/slurm/mediabatch-array.sh)
#   sbatch --dependency=afterany:"${jid%%;*}" deploy/slurm/merge.sh 8
#
# afterany on the array's job id waits for all its tasks, whatever their exit codes: a task that
# exited 1 (some items failed) still wrote a report, and afterok would never merge it.
# Argument: N, the shard count (default: MEDIABATCH_SHARD_COUNT). Needs MEDIABATCH_OUTPUT (and
# MEDIABATCH, if not on PATH), as the array did; sbatch passes the environment on.
# Result: $MEDIABATCH_OUTPUT/.mediabatch/reports/merged.json; exit 1 if a shard left no report (merged.json
# then covers the others) or merge-reports refused the reports.
# A pipeline with output.manifest: each shard writes NAME.shard-I-of-N.EXT, and nothing else joins them.
# Set MEDIABATCH_MANIFEST to that output.manifest (e.g. manifest.json) and, once every shard has
# reported and none was interrupted, the shard manifests are merged into $MEDIABATCH_OUTPUT/NAME.EXT
# (what a site build reads).
#SBATCH --job-name=mediabatch-merge
#SBATCH --cpus-per-task=1
#SBATCH --mem=512M
#SBATCH --time=00:15:00
#SBATCH --output=%x-%j.out

set -euo pipefail

count=${1:-${MEDIABATCH_SHARD_COUNT:?give the shard count: merge.sh N}}
: "${MEDIABATCH_OUTPUT:?set MEDIABATCH_OUTPUT to the output folder}"
mediabatch=${MEDIABATCH:-mediabatch}
dir=$MEDIABATCH_OUTPUT/.mediabatch/reports

# Exactly shards 0..N-1, by name: a glob would also take reports left by a larger, earlier shard
# count, whose inputs overlap this one's.
reports=()
missing=0
for (( i = 0; i < count; i++ )); do
  if [[ -f $dir/shard-$i.json ]]; then
    reports+=("$dir/shard-$i.json")
  else
    echo "error: shard $i/$count wrote no report (never started, or killed before writing it)" >&2
    missing=1
  fi
done
(( ${#reports[@]} > 0 )) || exit 1

rm -f "$dir/merged.json"   # a failed merge must not leave an earlier run's in its place
"$mediabatch" merge-reports "$dir/merged.json" "${reports[@]}"
if (( missing )); then
  echo "error: $dir/merged.json covers only the shards not listed above" >&2
  exit 1
fi

if [[ -n ${MEDIABATCH_MANIFEST:-} ]]; then
  # manifest.json of shard 0 of 4 is manifest.shard-0-of-4.json (a name without extension: tag at the end).
  name=$MEDIABATCH_MANIFEST ext=
  if [[ ${name##*/} == *.* ]]; then ext=.${name##*.} name=${name%.*}; fi
  manifests=()
  for (( i = 0; i < count; i++ )); do
    manifests+=("$MEDIABATCH_OUTPUT/$name.shard-$i-of-$count$ext")
  done
  # An interrupted shard's manifest lacks what it did not get to: a site built from it would lose
  # those items until the shard runs again. Keep the manifest of the last complete run instead.
  if grep -Eq '^  "interrupted" ?: ?true' "${reports[@]}"; then
    echo "note: a shard was interrupted (its report says so): $MEDIABATCH_MANIFEST not merged, left as it was" >&2
  else
    # merge-manifests refuses a missing or overlapping shard manifest and then writes nothing.
    "$mediabatch" merge-manifests "$MEDIABATCH_OUTPUT/$MEDIABATCH_MANIFEST" "${manifests[@]}"
  fi
fi

# Complete and merged: move the shard reports aside, so that a shard report in $dir is always one not
# merged yet. Otherwise a task that never runs in a later array (cancelled while pending) would leave
# this run's report to be merged as that run's.
rm -rf "$dir/merged-shards"
mkdir "$dir/merged-shards"
mv "${reports[@]}" "$dir/merged-shards/"
echo "merged $count shard reports into $dir/merged.json" >&2
