#!/usr/bin/env python3
"""Snapshots for hostile/run.sh and the figures it prints (python3 standard library only).

    hostile/figures.py before SUITE SCRATCH   # before the first run: snapshot the inputs, list the files
    hostile/figures.py table SUITE SCRATCH    # after the last run: the same again, and the figures

SCRATCH is laid out by run.sh: output/ (mediabatch's output root), private-tmp/ (mediabatch's /tmp,
when a mount namespace could give it one), meta/ (the runner's own files: inputs-before.json,
files-before.txt, figures.txt, and attempt-N/ with pipeline.json, report.json, time.txt, stdout.log,
stderr.log, supervise.json, stacks.txt, isolate.json). The last attempt is the run the figures
describe; earlier ones found inputs that crash or hang mediabatch, which later runs left out.
`table` exits 1 when a figure that must be 0 is not, or when the last run did not complete.
"""

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

EXPECTATIONS = {  # SUITE.tsv's expected column -> the report outcomes that meet it
    "ok": {"ok"}, "fail": {"failed"}, "ok-or-fail": {"ok", "failed"},
    "reported": {"failed", "skipped"},
}
VIDEO_EXTENSIONS = {".mov", ".mp4", ".m4v", ".3gp", ".3g2"}  # mediabatch names outputs after their format
EXAMPLES_SHOWN = 6
OWN_FRAME = re.compile(r"\((\w+/\w+\.swift:\d+)\)$")  # a frame in mediabatch's Sources/MODULE/FILE.swift


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def snapshot_inputs(suite, out):
    """Every regular file under the suite, and every regular file a suite symlink leads to outside it."""
    snapshot = {}
    for folder, _, names in os.walk(suite):
        for name in names:
            path = os.path.join(folder, name)
            real = os.path.realpath(path)
            if os.path.islink(path) and real.startswith(suite + os.sep):
                continue  # listed under its own name
            if not os.path.isfile(real):
                continue  # FIFOs, devices, sockets, dangling or looping links: nothing to hash (a FIFO would block)
            info = os.stat(real)
            snapshot[os.path.relpath(path, suite) if real == path else real] = {
                "sha256": sha256(real), "mtime_ns": info.st_mtime_ns, "mode": oct(info.st_mode), "size": info.st_size}
    Path(out).write_text(json.dumps(snapshot, indent=1, sort_keys=True))


def watched_folders(suite, scratch):
    """Where a new file is an output outside the output root (unless under an ignored folder).
    With a private /tmp (scratch/private-tmp, bound over /tmp for mediabatch alone) the shared /tmp,
    where other processes on the machine write too, needs no watching."""
    folders = [str(scratch), suite]
    if not (scratch / "private-tmp").is_dir():
        folders.append("/tmp")
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and os.path.realpath(tmpdir) != "/tmp":
        folders.append(tmpdir)
    return folders


def list_files(out, folders):
    paths = []
    for top in folders:
        for folder, subfolders, names in os.walk(top):
            paths.extend(os.path.join(folder, name) for name in names)
            paths.extend(os.path.join(folder, name) for name in subfolders if os.path.islink(os.path.join(folder, name)))
    Path(out).write_text("".join(path + "\n" for path in sorted(set(paths))))


def before(suite, scratch):
    suite, scratch = os.path.realpath(suite), Path(scratch).resolve()
    snapshot_inputs(suite, scratch / "meta" / "inputs-before.json")
    list_files(scratch / "meta" / "files-before.txt", watched_folders(suite, scratch))
    return 0


def read_time(path):
    """Peak RSS (KiB) and wall seconds, from /usr/bin/time -v."""
    text = Path(path).read_text(errors="replace") if Path(path).exists() else ""
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text)
    seconds = None
    if wall:
        seconds = 0.0
        for part in wall.group(1).split(":"):
            seconds = seconds * 60 + float(part)
    return int(rss.group(1)) if rss else None, seconds


def how_it_ended(supervised):
    """mediabatch's end, as seen through `time` and `timeout` (which re-raises a signal that killed
    mediabatch, so `time` exits 128 + signal)."""
    status = supervised["exit_status"]
    if supervised["stalled"]:
        return "stalled"
    if status in (0, 1):
        return "completed"
    if status == 124:
        return "timed out"
    return f"died by signal {status - 128}" if status > 128 else f"exited {status}"


def unreadable(path):
    """Why an output cannot be read back by tools other than mediabatch, or None."""
    if Path(path).suffix.lower() in VIDEO_EXTENSIONS:
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_format", path], capture_output=True, text=True)
        return None if probe.returncode == 0 else "ffprobe: " + (probe.stderr.strip().splitlines() or ["failed"])[-1]
    header = subprocess.run(["vipsheader", path], capture_output=True, text=True)
    if header.returncode != 0:
        return "vipsheader: " + (header.stderr.strip().splitlines() or ["failed"])[-1]
    pixels = subprocess.run(["vips", "avg", f"{path}[fail_on=error]"], capture_output=True, text=True)
    if pixels.returncode != 0:
        return "full decode: " + (pixels.stderr.strip().splitlines() or ["failed"])[-1]
    return None


def examples(items):
    items = sorted(items, key=lambda item: (len(item), item))
    shown = ", ".join(items[:EXAMPLES_SHOWN])
    return shown + (f", … ({len(items) - EXAMPLES_SHOWN} more)" if len(items) > EXAMPLES_SHOWN else "")


def crash_summary(culprit):
    frames = culprit.get("frames") or []
    own = next((frame for frame in frames if OWN_FRAME.search(frame)), None)
    where = f" in {frames[0]}" if frames else ""
    if own and own != (frames or [None])[0]:
        where += f", called from {own}"
    return f"{culprit['input']}: {culprit.get('signal') or culprit['alone']}{where}"


def crashes_and_hangs(attempts):
    """(crashes, hangs, inputs left out, runs whose death no single input explains)."""
    crashes, hangs, left_out, unexplained = [], [], [], []
    for attempt in attempts:
        supervised = json.loads((attempt / "supervise.json").read_text())
        ended = how_it_ended(supervised)
        if ended == "completed":
            continue
        isolated = json.loads((attempt / "isolate.json").read_text()) if (attempt / "isolate.json").exists() else {}
        culprits = [s for s in isolated.get("suspects", []) if s["alone"] != "ok"]
        how_held = {c["input"]: c["how"] for c in supervised["candidates"]}
        for culprit in culprits:
            left_out.append(culprit["input"])
            if culprit["alone"].startswith("still running"):
                held = f"{how_held[culprit['input']]} when the run stalled; " if culprit["input"] in how_held else ""
                hangs.append(f"{culprit['input']}: {held}alone: {culprit['alone']}")
            else:
                crashes.append(crash_summary(culprit))
        if not culprits:
            unexplained.append(attempt.name)
            what = f"{attempt.name}: {ended}" + (f" {supervised['stalled_after_seconds']} s in" if supervised["stalled"] else "")
            suspects = ", ".join(s["input"] for s in isolated.get("suspects", [])) or "none"
            message = f"{what}; no single input does it alone (suspects run alone: {suspects})"
            if supervised.get("stacks"):
                message += f"; stacks: {supervised['stacks']}"
            (hangs if ended in ("stalled", "timed out") else crashes).append(message)
    return crashes, hangs, left_out, unexplained


def table(suite, scratch):
    suite, scratch = os.path.realpath(suite), Path(scratch).resolve()
    meta, output = scratch / "meta", scratch / "output"
    attempts = sorted(meta.glob("attempt-*"), key=lambda p: int(p.name.split("-")[1]))
    if not attempts:
        sys.exit("figures: no run to describe")
    with open(os.path.join(suite, "SUITE.tsv"), newline="") as manifest:
        expected = {row["path"]: row for row in csv.DictReader(manifest, delimiter="\t")}

    crashes, hangs, left_out, unexplained = crashes_and_hangs(attempts)
    final = attempts[-1]
    final_supervised = json.loads((final / "supervise.json").read_text())
    report = json.loads((final / "report.json").read_text()) if (final / "report.json").exists() else None
    completed = report is not None and how_it_ended(final_supervised) == "completed"
    items = {item["input"]: item for item in (report["items"] if report else [])}
    by_status, by_code = {}, {}
    for item in items.values():
        by_status[item["status"]] = by_status.get(item["status"], 0) + 1
        if item["status"] == "failed":
            code = (item.get("error") or {}).get("code", "(none)")
            by_code[code] = by_code.get(code, 0) + 1

    # Outputs outside the output root: new paths in the watched folders, except the ignored ones.
    ignored = [str(output), str(meta)]
    before_files = set((meta / "files-before.txt").read_text().splitlines())
    list_files(meta / "files-after.txt", watched_folders(suite, scratch))
    new_files = set((meta / "files-after.txt").read_text().splitlines()) - before_files
    outside = sorted(p for p in new_files if not any(p == i or p.startswith(i + os.sep) for i in ignored))

    # Inputs modified: the snapshot again.
    snapshot_inputs(suite, meta / "inputs-after.json")
    inputs_before = json.loads((meta / "inputs-before.json").read_text())
    inputs_after = json.loads((meta / "inputs-after.json").read_text())
    modified = sorted(f"{path} ({', '.join(k for k in facts if inputs_after[path].get(k) != facts[k])})"
                      if path in inputs_after else f"{path} (gone)"
                      for path, facts in inputs_before.items() if inputs_after.get(path) != facts)

    # Partial outputs: temporary files left, outputs other tools cannot read back.
    temporary = sorted(str(p.relative_to(output)) for p in (output / ".mediabatch" / "tmp").rglob("*") if not p.is_dir())
    outputs = sorted(p for p in output.rglob("*") if p.is_file() and ".mediabatch" not in p.relative_to(output).parts)
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        verdicts = list(pool.map(lambda p: unreadable(str(p)), outputs))
    broken = [f"{p.relative_to(output)} ({why})" for p, why in zip(outputs, verdicts) if why]

    rss, wall = read_time(final / "time.txt")
    rows = [  # (figure, value, must be 0, details)
        ("files tried (items in the report)", len(items), False,
         f"plus {len(left_out)} left out after they crashed or hung mediabatch (below)" if left_out else ""),
        ("ok", by_status.get("ok", 0), False, ""),
        ("failed cleanly (status failed, with an error code)", sum(n for c, n in by_code.items() if c != "(none)"),
         False, ", ".join(f"{c} {n}" for c, n in sorted(by_code.items()) if c != "(none)")),
        ("failed without an error code", by_code.get("(none)", 0), True, ""),
        ("skipped", by_status.get("skipped", 0), False, ""),
        ("crashes (mediabatch died: signal, or exit not 0/1)", len(crashes), True, "\n".join(crashes)),
        ("hangs (run stalled or timed out)", len(hangs), True, "\n".join(hangs)),
        ("outputs outside the output root", len(outside), True, examples(outside)),
        ("inputs modified", len(modified), True, examples(modified)),
        ("partial outputs left (.mediabatch/tmp files, unreadable outputs)", len(temporary) + len(broken), True,
         examples(temporary + broken)),
        ("peak RSS", f"{rss / 1024:.0f} MiB" if rss else "n/a", False, ""),
        ("wall time", f"{wall:.1f} s" if wall is not None else "n/a", False,
         f"of the last run; {len(attempts)} runs in all" if len(attempts) > 1 else ""),
    ]
    failing = [name for name, value, must_be_zero, _ in rows if must_be_zero and value != 0]

    print(f"\nmediabatch over {suite}: {len(attempts)} run(s); the figures are the last one's"
          + ("" if completed else " — it did NOT complete"))
    for name, value, must_be_zero, details in rows:
        print(f"  {name:<66} {value!s:>9}" + ("  <- must be 0" if must_be_zero and value != 0 else ""))
        for line in details.splitlines():
            print(f"      {line}")
    informational(suite, items, expected, left_out, final_supervised, completed)
    print("  not counted as outputs outside the output root: " + ", ".join(ignored)
          + " (outputs, .mediabatch/ state and tmp; the runner's logs, reports, time -v files and snapshots); watched: "
          + ", ".join(watched_folders(suite, scratch)))

    print("\n| figure | value |\n| --- | --- |")
    for name, value, must_be_zero, _ in rows:
        print(f"| {name} | {value}{' ✗' if must_be_zero and value != 0 else ''} |")
    if by_code:
        print("| failures by error code | " + ", ".join(f"`{c}` {n}" for c, n in sorted(by_code.items())) + " |")
    return 0 if completed and not failing else 1


def informational(suite, items, expected, left_out, supervised, completed):
    """Symlinks, the vanishing files, outcomes SUITE.tsv does not expect: facts for the lead's policy."""
    print("\n  informational:")
    leaving_root = sorted(path for path, item in items.items() if item["status"] == "ok" and path in expected
                          and os.path.islink(os.path.join(suite, path))
                          and not os.path.realpath(os.path.join(suite, path)).startswith(suite + os.sep))
    print(f"  {'inputs read through a symlink leaving the input root':<66} {len(leaving_root):>9}")
    if leaving_root:
        print(f"      {examples(leaving_root)}")
    through_folder_links = sorted(path for path in items if path not in expected)
    print(f"  {'items reached through a folder symlink (paths not in SUITE.tsv)':<66} {len(through_folder_links):>9}")
    if through_folder_links:
        shortest = min(through_folder_links, key=len)
        deepest = max(path.count("/") for path in through_folder_links)
        print(f"      {shortest} … down to {deepest} folders deep")
    for moved in supervised["vanished"]:
        item = items.get(moved["input"], {})
        error = item.get("error") or {}
        print(f"  vanishing: {moved['input']}: moved away {moved['seconds']} s in, once {moved['after_open_of']} was "
              f"opened; then {item.get('status', 'not listed')} {error.get('code', '')} {error.get('message', '')}".rstrip())
    if not completed:
        return
    mismatches = {}
    for path, row in expected.items():
        got = items.get(path, {}).get("status", "not listed")
        if path not in left_out and got not in EXPECTATIONS[row["expected"]]:
            mismatches.setdefault(f"{row['category']}: expected {row['expected']}, got {got}", []).append(path)
    print(f"  outcomes other than SUITE.tsv expects: {sum(len(v) for v in mismatches.values())}")
    for what, paths in sorted(mismatches.items()):
        print(f"      {what}: {len(paths)}: {examples(paths)}")


def main():
    commands = {"before": before, "table": table}
    if len(sys.argv) != 4 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    sys.exit(commands[sys.argv[1]](sys.argv[2], sys.argv[3]))


if __name__ == "__main__":
    main()
