#!/usr/bin/env bash
# compare-builds.sh OLD_BINARY NEW_BINARY [WORKDIR]
#
# Shows that two mediabatch builds look the same to a user (issue 43: "nothing a user sees
# changes"), e.g. the release build before a change and one after:
#   nice -n 10 scripts/compare-builds.sh /path/to/old/mediabatch .build/release/mediabatch
# Both binaries run one after the other, from the repository root, with the same paths (so the
# absolute paths in reports, messages and `status` agree without being rewritten), over every
# pipelines/*.json × {samples/, ../shared/corpus or $MEDIABATCH_CORPUS when it exists}, with
# --jobs 2 and a state database (--state beside the output root):
#   dry run    run --dry-run before anything is written: listing (stdout), messages, JSON report
#   run        run --quiet --report --metrics, and the manifest: the pipeline's own
#              output.manifest (in the output tree) where it has one, else --manifest beside it
#   JUnit      merge-reports --report-format junit of the run's report (one run writes one format)
#   rerun      the same run again over its state database with --report-format junit: the
#              incremental path (unchanged items, failed ones redone) and run's own JUnit
#   status     of the state database; html (and html --json) of the manifest
# and compares per pipeline × root: exit codes; the output trees byte for byte (same file list,
# same bytes; OUTPUT/.mediabatch, mediabatch's own work folder -- tmp/ for outputs being staged,
# renditions/ for a movie's finished renditions until its files are published, and the state
# database when no --state is given -- is compared by file names only: after a run it holds
# nothing but an empty tmp/all/); the reports, manifest, JUnit, metrics, status, html and the
# messages on stderr. Then `validate` of every pipelines/*.json and
# Tests/Fixtures/invalid-pipelines/*.json, `schema`, `--version`, every --help, `inspect` (text
# and --json) of every file of each root, and refused command lines: stdout, stderr, exit code.
#
# Normalised before comparing (found by running one binary twice; nothing else is touched):
#   JSON reports  "milliseconds" (the run's and each item's), "startedAt": wall-clock times;
#                 "decoderThreads": libavcodec's frame threads for a HEIC, 2 for items admitted
#                 once the input listing has ended (ItemJob.isTail), which depends on timing
#                 (the pixels do not: the outputs are compared byte for byte)
#   JUnit         time="…" and timestamp="…"
#   metrics       mediabatch_run_duration_seconds, _peak_memory_bytes, _last_run_timestamp_seconds
#   stderr        the summary line's "in N s (N items/s)"; progress log lines (one every 10 s in a
#                 long run); line order (items' errors are printed as two jobs finish them)
#   status        "started …, finished …" of the last run
# Two differences seen between runs of the SAME binary are not normalised but reported as VARIES
# (with the reason), and only when they are all that differs:
#   - an item's libvips error message carrying another item's line (libvips keeps one error
#     buffer per process, see VipsError): "cannot read the gif header: VipsJpeg: Corrupt JPEG
#     data: 7 extraneous bytes before marker 0xdb; gifload: …" for the corpus' broken/truncated.gif
#   - the key order of status's "last run totals" JSON (written by JSONEncoder without
#     .sortedKeys, so in the order of Swift's per-process hash seed)
#
# One line per comparison: OK, VARIES or DIFFERS with the first differing path; then a summary.
# Exit 0 when nothing DIFFERS (STRICT=1: nor VARIES), 1 otherwise, 2 on a usage error. Compare a
# binary with itself first. Work files go to WORKDIR (default /tmp/compare-builds; its old/, new/
# and cur/ are replaced), never into the repository. About 20 minutes for the two binaries on 2
# busy cores, half of it videos-web over the corpus: video/quicktime-jpeg.mov's AV1 encoder (SVT-AV1)
# hangs at its flush until limits.timeout abandons it, 138 s in the run and again in the rerun.
# Environment: JOBS (default 2), MEDIABATCH_CORPUS, PIPELINES (e.g. "quickstart share-safe";
# default all), ROOTS (e.g. "samples"; default "samples corpus"), STRICT.
set -uo pipefail

# All in one function, read whole before it runs: editing this file during a run cannot derail it.
main() {

usage() { echo "usage: $0 OLD_BINARY NEW_BINARY [WORKDIR]" >&2; exit 2; }
[[ $# -ge 2 && $# -le 3 ]] || usage
OLD=$(readlink -f -- "$1") NEW=$(readlink -f -- "$2")
for binary in "$OLD" "$NEW"; do
    [[ -f $binary && -x $binary ]] || { echo "error: not an executable file: $binary" >&2; exit 2; }
done
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(realpath -m -- "${3:-/tmp/compare-builds}")
case "$WORK/" in "$REPO/"*) echo "error: WORKDIR must be outside the repository ($REPO)" >&2; exit 2 ;; esac
mkdir -p -- "$WORK" || exit 2
JOBS=${JOBS:-2}
STARTED=$(date +%s.%N)

# Both binaries see the same environment: nothing that picks a shard, a decoder or a fault.
unset MEDIABATCH_FAULT_INJECTION MEDIABATCH_HEIF_DECODER MEDIABATCH_SHARD_COUNT JOB_COMPLETION_INDEX \
      SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_COUNT AWS_BATCH_JOB_ARRAY_INDEX

declare -A ROOT_PATH=([samples]="$REPO/samples")
CORPUS=${MEDIABATCH_CORPUS:-$REPO/../shared/corpus}
[[ -d $CORPUS ]] && ROOT_PATH[corpus]=$(cd -- "$CORPUS" && pwd)
read -r -a ROOT_NAMES <<<"${ROOTS:-samples corpus}"
for root in "${ROOT_NAMES[@]}"; do [[ -n ${ROOT_PATH[$root]:-} ]] || echo "note: no input root $root (skipped)"; done
if [[ -n ${PIPELINES:-} ]]; then
    PIPELINE_FILES=(); for name in $PIPELINES; do PIPELINE_FILES+=("pipelines/${name%.json}.json"); done
else
    PIPELINE_FILES=($(cd "$REPO" && ls pipelines/*.json))
fi

rm -rf -- "$WORK/old" "$WORK/new" "$WORK/cur"
mkdir -p -- "$WORK/old" "$WORK/new"
HELPER=$WORK/compare.py
# The comparisons and normalisations (stdlib only).
cat >"$HELPER" <<'PYTHON'
import itertools, json, os, re, sys

VARIES = '"<varies>"'

def read(path):
    with open(path, 'rb') as f:
        return f.read().decode('utf-8', 'surrogateescape')

# --- Normalisations: what differs between two runs of one binary by design (times) ---------------

def report(text):
    """JSON reports: wall-clock times, and libavcodec's frame threads for a HEIC (timing-dependent)."""
    text = re.sub(r'("(?:milliseconds|startedAt)" : )("[^"]*"|[-0-9.eE+]+)', r'\1' + VARIES, text)
    return re.sub(r'("decoderThreads" : )([0-9]+)', r'\1' + VARIES, text)

def junit(text):
    return re.sub(r' (time|timestamp)="[^"]*"', r' \1="<varies>"', text)

def metrics(text):
    return re.sub(r'^(mediabatch_(?:run_duration_seconds|peak_memory_bytes|last_run_timestamp_seconds)\{[^}]*\}) .*$',
                  r'\1 <varies>', text, flags=re.M)

PROGRESS = re.compile(r'^[0-9]+/([0-9]+|\?) items(, | \()')

def messages(text):
    """stderr: the summary line's time and rate; progress log lines; error lines in completion order."""
    text = re.sub(r' in [0-9.]+ s \([0-9.]+ items/s\)', ' in <varies> s (<varies> items/s)', text)
    return '\n'.join(sorted(line for line in text.split('\n') if not PROGRESS.match(line)))

def status(text):
    return re.sub(r'started [^ ,]+, finished [^ ,]+', 'started <varies>, finished <varies>', text)

KINDS = {'raw': lambda text: text, 'report': report, 'junit': junit, 'metrics': metrics, 'messages': messages,
         'status': status}

# --- Known run-to-run variations: reported as VARIES, never as OK ---------------------------------

# A libvips error line ("domain: text; ") that follows ": " or "; " in a message.
LIBVIPS_LINE = re.compile(r'(?<=: |; )(?=([A-Za-z][A-Za-z0-9_]*: [^;]*; ))')

def leaked_lines(old, new):
    """The lines one message has and the other lacks, when that is the only difference."""
    if len(old) == len(new):
        return None
    shorter, longer, side = (old, new, 'new') if len(old) < len(new) else (new, old, 'old')
    spans = [(m.start(), m.start() + len(m.group(1))) for m in LIBVIPS_LINE.finditer(longer)][:10]
    for count in range(1, len(spans) + 1):
        for chosen in itertools.combinations(spans, count):
            if any(a[1] > b[0] for a, b in zip(chosen, chosen[1:])):
                continue
            kept, last = [], 0
            for start, end in chosen:
                kept.append(longer[last:start])
                last = end
            kept.append(longer[last:])
            if ''.join(kept) == shorter:
                return side, list(dict.fromkeys(longer[start:end - 2] for start, end in chosen))
    return None

TOTALS = 'last run totals: '

def explain(old, new):
    """Why a value may differ between two runs of the same binary, or None."""
    if not (isinstance(old, str) and isinstance(new, str)):
        return None
    leaked = leaked_lines(old, new)
    if leaked:
        side, lines = leaked
        return (f"the {side} one also carries another item's libvips error line {short(lines[0], 60)!r} "
                "(libvips keeps one error buffer per process, see VipsError)")
    if old.startswith(TOTALS) and new.startswith(TOTALS):
        try:
            if json.loads(old[len(TOTALS):]) == json.loads(new[len(TOTALS):]):
                return ("key order of the totals JSON kept in the state database (JSONEncoder without "
                        ".sortedKeys: the order follows Swift's per-process hash seed)")
        except ValueError:
            pass
    return None

# --- Comparing ------------------------------------------------------------------------------------

def json_differences(a, b, path='$'):
    if type(a) != type(b):
        yield path, a, b
    elif isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                yield f'{path}.{key}', a.get(key, '<absent>'), b.get(key, '<absent>')
            else:
                yield from json_differences(a[key], b[key], f'{path}.{key}')
    elif isinstance(a, list):
        for index, (x, y) in enumerate(zip(a, b)):
            yield from json_differences(x, y, f'{path}[{index}]')
        if len(a) != len(b):
            yield f'{path} length', len(a), len(b)
    elif a != b:
        yield path, a, b

def short(value, width=90):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[:width] + '…'

def shown(value):
    """A value in a DIFFERS line: strings quoted, anything else as JSON."""
    return repr(short(value)) if isinstance(value, str) else short(value)

def first_line_difference(name, a, b):
    la, lb = a.split('\n'), b.split('\n')
    for number, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f'{name}: line {number}: old {shown(x)} | new {shown(y)}'
    return f'{name}: old has {len(la)} lines, new {len(lb)}'

def compare_file(kind, old, new):
    """(verdict, detail): OK, VARIES (only known run-to-run variations) or DIFFERS."""
    name = os.path.basename(old)
    if not os.path.exists(old) and not os.path.exists(new):
        return 'OK', ''
    if not os.path.exists(old) or not os.path.exists(new):
        return 'DIFFERS', f'{name}: only the {"new" if os.path.exists(new) else "old"} binary wrote it'
    a, b = read(old), read(new)
    if a == b:
        return 'OK', ''
    a, b = KINDS[kind](a), KINDS[kind](b)
    if a == b:
        return 'OK', ''
    differences = []
    if name.endswith('.json'):
        try:
            ja, jb = json.loads(a), json.loads(b)
        except ValueError:
            return 'DIFFERS', first_line_difference(name, a, b)
        for path, x, y in json_differences(ja, jb):
            item = re.match(r'\$\.items\[(\d+)\]', path)
            if item and isinstance(ja, dict):
                path += f' ({ja["items"][int(item.group(1))].get("input")})'
            differences.append((f'{name}: {path}', x, y))
        if not differences: # the same values written differently
            return 'DIFFERS', first_line_difference(name, a, b)
    else:
        la, lb = a.split('\n'), b.split('\n')
        if len(la) != len(lb):
            return 'DIFFERS', first_line_difference(name, a, b)
        differences = [(f'{name}: line {number}', x, y) for number, (x, y) in enumerate(zip(la, lb), 1) if x != y]
    unexplained = [(where, x, y) for where, x, y in differences if not explain(x, y)]
    more = lambda found: f' (+{len(found) - 1} more)' if len(found) > 1 else ''
    if unexplained:
        where, x, y = unexplained[0]
        return 'DIFFERS', f'{where}: old {shown(x)} | new {shown(y)}{more(unexplained)}'
    where, x, y = differences[0]
    return 'VARIES', f'{where}: {explain(x, y)}{more(differences)}'

def compare_files(kind, old_root, new_root, files):
    verdicts = [compare_file(kind, os.path.join(old_root, f), os.path.join(new_root, f)) for f in files]
    for wanted in ('DIFFERS', 'VARIES'):
        for verdict, detail in verdicts:
            if verdict == wanted:
                return verdict, detail
    return 'OK', ''

def listing(root, skip_top=None, names_only=False):
    entries = {}
    for folder, dirs, files in os.walk(root):
        relative = os.path.relpath(folder, root)
        if relative == '.' and skip_top in dirs:
            dirs.remove(skip_top)
        for name in dirs + files:
            path = os.path.join(folder, name)
            key = os.path.normpath(os.path.join(relative, name))
            if os.path.islink(path):
                entries[key] = ('link', os.readlink(path))
            elif os.path.isdir(path):
                entries[key] = ('dir', None)
            else:
                entries[key] = ('file', None if names_only else path)
    return entries

def compare_trees(old, new, skip_top=None, names_only=False):
    """(verdict, detail): the file count when equal, else the first differing path."""
    if not os.path.isdir(old) and not os.path.isdir(new):
        return 'OK', 'absent in both'
    a, b = listing(old, skip_top, names_only), listing(new, skip_top, names_only)
    total = 0
    for key in sorted(set(a) | set(b)):
        if key not in a: return 'DIFFERS', f'{key}: only the new binary wrote it'
        if key not in b: return 'DIFFERS', f'{key}: only the old binary wrote it'
        (kind_a, value_a), (kind_b, value_b) = a[key], b[key]
        if kind_a != kind_b: return 'DIFFERS', f'{key}: a {kind_a} in old, a {kind_b} in new'
        if kind_a == 'link' and value_a != value_b: return 'DIFFERS', f'{key}: links to {value_a} | {value_b}'
        if kind_a == 'file' and not names_only:
            with open(value_a, 'rb') as fa, open(value_b, 'rb') as fb:
                x, y = fa.read(), fb.read()
            if x != y:
                at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
                return 'DIFFERS', f'{key}: bytes differ ({len(x)} and {len(y)} bytes, first at offset {at})'
            total += len(x)
    files = sorted(key for key, (kind, _) in a.items() if kind == 'file')
    if names_only:
        return 'OK', f'({len(files)} files' + (f': {", ".join(files)})' if files else ')')
    return 'OK', f'({len(files)} files, {total} bytes)'

def main():
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == 'files':     # files KIND OLD_ROOT NEW_ROOT FILE...
        verdict, detail = compare_files(arguments[0], arguments[1], arguments[2], arguments[3:])
    elif command == 'tree':    # tree OLD NEW [--skip-top NAME] [--names-only]
        skip = arguments[arguments.index('--skip-top') + 1] if '--skip-top' in arguments else None
        verdict, detail = compare_trees(arguments[0], arguments[1], skip, '--names-only' in arguments)
    elif command == 'manifest': # manifest PIPELINE: its output.manifest, or nothing
        with open(arguments[0]) as f:
            print(json.load(f).get('output', {}).get('manifest', ''))
        return
    else:
        sys.exit(f'unknown command {command}')
    print(f'{verdict}\t{detail}')

main()
PYTHON

OK_COUNT=0 VARIES_COUNT=0 DIFF_COUNT=0
DIFFERING=() VARYING=()
say() { # say OK|VARIES|DIFFERS WHAT DETAIL
    case $1 in
        OK) OK_COUNT=$((OK_COUNT + 1)) ;;
        VARIES) VARIES_COUNT=$((VARIES_COUNT + 1)); VARYING+=("$2") ;;
        *) DIFF_COUNT=$((DIFF_COUNT + 1)); DIFFERING+=("$2") ;;
    esac
    printf '%-8s %-44s %s\n' "$1" "$2" "$3"
}
# check WHAT KIND FILE...: each FILE (relative to $WORK/old and $WORK/new) after KIND's normalisation.
check() {
    local what=$1 kind=$2 result; shift 2
    result=$(python3 "$HELPER" files "$kind" "$WORK/old" "$WORK/new" "$@") || result=$'DIFFERS\tthe comparison failed'
    say "${result%%$'\t'*}" "$what" "${result#*$'\t'}"
}
# check_tree WHAT RELATIVE [--skip-top NAME] [--names-only]: two folders, byte for byte.
check_tree() {
    local what=$1 relative=$2 result; shift 2
    result=$(python3 "$HELPER" tree "$WORK/old/$relative" "$WORK/new/$relative" "$@") || result=$'DIFFERS\tthe comparison failed'
    say "${result%%$'\t'*}" "$what" "${result#*$'\t'}"
}
# mb DIR NAME BINARY ARGS...: runs BINARY from the repository root; DIR/NAME.{stdout,stderr,rc}.
mb() {
    local dir=$1 name=$2 binary=$3; shift 3
    mkdir -p -- "$(dirname "$dir/$name")"
    (cd "$REPO" && "$binary" "$@" >"$dir/$name.stdout" 2>"$dir/$name.stderr"); echo $? >"$dir/$name.rc"
}
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }

echo "old: $OLD ($(sha256sum "$OLD" | cut -c1-12))"
echo "new: $NEW ($(sha256sum "$NEW" | cut -c1-12))"
echo "repository: $REPO; work folder: $WORK; --jobs $JOBS"
for root in "${ROOT_NAMES[@]}"; do [[ -n ${ROOT_PATH[$root]:-} ]] && echo "input root $root: ${ROOT_PATH[$root]}"; done
echo

# --- Pipelines × input roots ------------------------------------------------------------------
CUR=$WORK/cur
for root in "${ROOT_NAMES[@]}"; do
    [[ -n ${ROOT_PATH[$root]:-} ]] || continue
    input=${ROOT_PATH[$root]}
    for pipeline in "${PIPELINE_FILES[@]}"; do
        case_name=$(basename "$pipeline" .json)@$root
        own_manifest=$(python3 "$HELPER" manifest "$REPO/$pipeline")
        times=()
        for side in old new; do
            binary=$OLD; [[ $side == new ]] && binary=$NEW
            started=$(date +%s.%N)
            rm -rf -- "$CUR"; mkdir -p -- "$CUR"
            common=(run "$pipeline" --input "$input" --output "$CUR/out" --state "$CUR/state.sqlite" --jobs "$JOBS")
            mb "$CUR" dry-run "$binary" "${common[@]}" --dry-run --report "$CUR/dry-run-report.json"
            if [[ -n $own_manifest ]]; then
                mb "$CUR" run "$binary" "${common[@]}" --quiet --report "$CUR/report.json" --metrics "$CUR/metrics.prom"
                manifest=$CUR/out/$own_manifest
            else
                mb "$CUR" run "$binary" "${common[@]}" --quiet --report "$CUR/report.json" --metrics "$CUR/metrics.prom" \
                   --manifest "$CUR/manifest.json"
                manifest=$CUR/manifest.json
            fi
            cp -- "$manifest" "$CUR/manifest.copy.json" 2>/dev/null
            # The first run's report as JUnit too (merge-reports of the one report: the same renderer).
            mb "$CUR" junit-run "$binary" merge-reports "$CUR/junit-run.xml" --report-format junit "$CUR/report.json"
            mb "$CUR" rerun "$binary" "${common[@]}" --quiet --report "$CUR/junit.xml" --report-format junit
            mb "$CUR" status "$binary" status "$pipeline" --output "$CUR/out" --state "$CUR/state.sqlite"
            if [[ -f $manifest ]]; then
                mb "$CUR" html "$binary" html "$manifest"
                mb "$CUR" html-json "$binary" html "$manifest" --json
            fi
            times+=("$side $(elapsed "$started") s")
            mkdir -p -- "$WORK/$side/runs"
            mv -- "$CUR" "$WORK/$side/runs/$case_name"
        done
        echo "--- $case_name ($pipeline over $input): ${times[0]}, ${times[1]}"
        r=runs/$case_name
        check "$case_name exit codes ($(cat "$WORK/old/$r/run.rc"))" raw \
            $r/{dry-run,run,junit-run,rerun,status,html,html-json}.rc
        check "$case_name dry-run listing" raw $r/dry-run.stdout
        check "$case_name dry-run report" report $r/dry-run-report.json
        check_tree "$case_name outputs" $r/out --skip-top .mediabatch
        check_tree "$case_name work folder (names)" $r/out/.mediabatch --names-only
        check "$case_name report" report $r/report.json
        check "$case_name manifest" raw $r/manifest.copy.json
        check "$case_name JUnit (run, by merge-reports)" junit $r/junit-run.xml
        check "$case_name JUnit (rerun)" junit $r/junit.xml
        check "$case_name status after the rerun" status $r/status.stdout $r/status.stderr
        check "$case_name metrics" metrics $r/metrics.prom
        check "$case_name html" raw $r/html.stdout $r/html.stderr $r/html-json.stdout $r/html-json.stderr
        check "$case_name messages" messages $r/{dry-run,run,rerun,junit-run}.stderr $r/{run,rerun,junit-run}.stdout
    done
done

# --- Commands without a run: validate, schema, help, inspect, refused command lines ---------------
echo "--- other commands"
SCRATCH=$WORK/cli-scratch
for side in old new; do
    binary=$OLD; [[ $side == new ]] && binary=$NEW
    started=$(date +%s.%N)
    cli=$WORK/$side/cli
    for file in $(cd "$REPO" && ls pipelines/*.json); do mb "$cli/validate-pipelines" "$(basename "$file")" "$binary" validate "$file"; done
    for file in $(cd "$REPO" && ls Tests/Fixtures/invalid-pipelines/*.json); do
        mb "$cli/validate-invalid" "$(basename "$file")" "$binary" validate "$file"
    done
    mb "$cli/schema" schema "$binary" schema
    mb "$cli/help" version "$binary" --version
    mb "$cli/help" help "$binary" --help
    for command in run validate schema inspect status merge-reports merge-manifests html; do
        mb "$cli/help" "$command" "$binary" "$command" --help
    done
    for root in "${ROOT_NAMES[@]}"; do
        [[ -n ${ROOT_PATH[$root]:-} ]] || continue
        # Every file of the root in one command line (one process start, not hundreds): each file
        # is shown or refused on its own ("error: FILE: reason" on stderr), in argument order.
        # samples/ by its path in the repository (as a user types it), the corpus by its absolute path.
        files=()
        while IFS= read -r -d '' file; do
            [[ $root == samples ]] && file=${file#"$REPO/"}
            files+=("$file")
        done < <(find "${ROOT_PATH[$root]}" -type f -print0 | LC_ALL=C sort -z)
        mb "$cli/inspect-$root" text "$binary" inspect "${files[@]}"
        mb "$cli/inspect-$root" json "$binary" inspect "${files[@]}" --json
    done
    # Command lines that are refused (or fail) before anything is processed.
    rm -rf -- "$SCRATCH"; mkdir -p -- "$SCRATCH/in" "$SCRATCH/empty"
    echo '{"version": 1}' >"$SCRATCH/not-a-report.json"
    refused=(
        "run"
        "run pipelines/quickstart.json --jobs 0"
        "run pipelines/quickstart.json --dry-run --force"
        "run pipelines/quickstart.json --report-format xml"
        "run pipelines/quickstart.json --memory-budget lots"
        "run pipelines/quickstart.json --shard 3/2"
        "run pipelines/no-such-pipeline.json"
        "run pipelines/quickstart.json --input $SCRATCH/in --output $SCRATCH/in"
        "run pipelines/quickstart.json --input $SCRATCH/no-such-folder --output $SCRATCH/out"
        "validate"
        "validate $SCRATCH/no-such-pipeline.json"
        "inspect"
        "inspect $SCRATCH/no-such-file.jpg"
        "status pipelines/quickstart.json --output $SCRATCH/empty"
        "merge-reports $SCRATCH/merged.json $SCRATCH/not-a-report.json"
        "merge-manifests $SCRATCH/merged.json $SCRATCH/no-such-manifest.json"
        "html $SCRATCH/no-such-manifest.json"
        "frobnicate"
    )
    n=0
    for line in "${refused[@]}"; do
        n=$((n + 1)); read -r -a argv <<<"$line"
        mb "$cli/refused" "$(printf '%02d' $n)-${argv[0]}" "$binary" "${argv[@]}"
    done
    rm -rf -- "$SCRATCH"
    echo "$side: $(elapsed "$started") s"
done
count() { find "$WORK/old/cli/$1" -name '*.rc' 2>/dev/null | wc -l; }
check_tree "validate pipelines/*.json [$(count validate-pipelines)]" cli/validate-pipelines
check_tree "validate invalid-pipelines/*.json [$(count validate-invalid)]" cli/validate-invalid
check_tree "schema" cli/schema
check_tree "--version and --help [$(count help)]" cli/help
for root in "${ROOT_NAMES[@]}"; do
    [[ -n ${ROOT_PATH[$root]:-} ]] || continue
    check_tree "inspect $root ($(find "${ROOT_PATH[$root]}" -type f | wc -l) files), text and --json" cli/inspect-$root
done
check_tree "refused command lines [$(count refused)]" cli/refused

echo
echo "summary: $OK_COUNT OK, $VARIES_COUNT VARIES, $DIFF_COUNT DIFFERS; total time $(elapsed "$STARTED") s"
if ((VARIES_COUNT > 0)); then
    printf 'varies: %s\n' "${VARYING[@]}"
    echo "(VARIES: differs only as two runs of one binary can, for the reason given on its line; STRICT=1 counts it as DIFFERS)"
fi
if ((DIFF_COUNT > 0)); then
    printf 'differs: %s\n' "${DIFFERING[@]}"
    exit 1
fi
if ((VARIES_COUNT > 0)) && [[ ${STRICT:-0} == 1 ]]; then exit 1; fi
echo "old and new agree on everything compared (outputs, reports less times, manifests, messages)"
}

main "$@"
