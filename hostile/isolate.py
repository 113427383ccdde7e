#!/usr/bin/env python3
"""After a run crashed or stalled, finds the inputs that crash or hang mediabatch on their own
(python3 standard library only).

    hostile/isolate.py --suite DIR --pipeline FILE --state DB --supervised FILE --work DIR --record FILE
                       [--suspects N] [--timeout S] -- MEDIABATCH [EXTRA ARGS...]

Suspects: after a stall, the suite files mediabatch held or waited on (supervise.py's candidates);
after a crash, the first --suspects inputs, in mediabatch's walk order, that its state database does
not hold yet (it records each item as the item ends, so the one that killed it is among them).
Each suspect is run alone (the pipeline's include narrowed to that one path); one whose run dies
is run again under gdb for its stack. Prints the culprits one per line and writes a JSON record.
"""

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

FRAMES_KEPT = 12


def glob(pattern):
    """mediabatch's globs: `*` and `?` within a folder name, `**/` across folders."""
    regex, index = "", 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            regex, index = regex + "(?:.*/)?", index + 3
        else:
            regex += {"*": "[^/]*", "?": "[^/]"}.get(pattern[index], re.escape(pattern[index]))
            index += 1
    return re.compile(regex + r"\Z")


def walk_order(root, include, exclude):
    """Input paths in mediabatch's InputWalker order: a folder's files (sorted), then its
    subfolders depth first (sorted); symlinks followed, as mediabatch follows them; an excluded
    folder is not entered."""
    includes, excludes = [glob(p) for p in include], [glob(p) for p in exclude]
    excluded = lambda relative: any(e.match(relative) for e in excludes)
    order, folders = [], [""]
    while folders:
        folder = folders.pop()
        try:
            names = sorted(os.listdir(os.path.join(root, folder)))
        except OSError:
            continue
        subfolders = []
        for name in names:
            relative = f"{folder}/{name}" if folder else name
            path = os.path.join(root, relative)
            if not os.path.exists(path):  # dangling or looping symlink: mediabatch skips it too
                continue
            if os.path.isdir(path):
                if not excluded(relative):
                    subfolders.append(relative)
            elif any(i.match(relative) for i in includes) and not excluded(relative):
                order.append(relative)
        folders.extend(reversed(subfolders))
    return order


def recorded_inputs(state):
    try:
        with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as database:
            return {row[0] for row in database.execute("SELECT input FROM items")}
    except sqlite3.Error:
        return set()


def demangle(names):
    if not names or not shutil.which("swift-demangle"):
        return names
    run = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                         capture_output=True, text=True)
    lines = run.stdout.splitlines()
    return lines if run.returncode == 0 and len(lines) == len(names) else names


def gdb_stack(command, timeout):
    """The signal and the crashing thread's frames, as `function (file:line or library)`."""
    if not shutil.which("gdb"):
        return None, []
    try:
        run = subprocess.run(["gdb", "-q", "-batch", "-ex", "run", "-ex", f"bt {FRAMES_KEPT}", "--args"] + command,
                             capture_output=True, text=True, errors="replace", timeout=timeout,
                             env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
    except subprocess.TimeoutExpired:
        return None, []
    signal = next((m.group(1) for m in re.finditer(r"received signal (\w+)", run.stdout)), None)
    frames = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*?\)(?: at (\S+))?", run.stdout, re.MULTILINE)
    names = demangle([name for name, _ in frames])
    return signal, [f"{name} ({where.split('/Sources/')[-1] if '/Sources/' in where else os.path.basename(where) or '?'})"
                    for name, (_, where) in zip(names, frames)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", required=True)
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--supervised", required=True, help="supervise.py's record of the run")
    parser.add_argument("--work", required=True, type=Path)
    parser.add_argument("--record", required=True)
    parser.add_argument("--suspects", type=int, default=8)  # more than items in flight at --jobs 2, and some
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("mediabatch", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    mediabatch = args.mediabatch[1:] if args.mediabatch[:1] == ["--"] else args.mediabatch

    pipeline = json.loads(Path(args.pipeline).read_text())
    supervised = json.loads(Path(args.supervised).read_text())
    if supervised["stalled"]:
        suspects = [candidate["input"] for candidate in supervised["candidates"]]
    else:
        selection = pipeline.get("input", {})
        order = walk_order(args.suite, selection.get("include", ["**/*"]), selection.get("exclude", ["**/.*"]))
        recorded = recorded_inputs(args.state)
        suspects = [path for path in order if path not in recorded][:args.suspects]

    args.work.mkdir(parents=True, exist_ok=True)
    findings = []
    for index, suspect in enumerate(suspects):
        alone = dict(pipeline, input=dict(pipeline.get("input", {}), include=[suspect]))
        alone_file = args.work / f"pipeline-{index}.json"
        alone_file.write_text(json.dumps(alone, indent=2))
        command = mediabatch[:1] + ["run", str(alone_file), "--input", args.suite, "--output",
                                    str(args.work / f"output-{index}"), "--quiet"] + mediabatch[1:]
        finding = {"input": suspect}
        try:
            run = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=args.timeout)
            finding["alone"] = ("ok" if run.returncode in (0, 1) else f"killed by signal {-run.returncode}"
                                if run.returncode < 0 else f"exit {run.returncode}")
            (args.work / f"stderr-{index}.log").write_text(run.stderr)
        except subprocess.TimeoutExpired:
            finding["alone"] = f"still running after {args.timeout:.0f} s"
        if finding["alone"].startswith(("killed", "exit")):
            shutil.rmtree(args.work / f"output-{index}", ignore_errors=True)
            finding["signal"], finding["frames"] = gdb_stack(command, args.timeout)
        findings.append(finding)
    Path(args.record).write_text(json.dumps({"after": "stall" if supervised["stalled"] else "crash",
                                             "suspects": findings}, indent=2) + "\n")
    for finding in findings:
        if finding["alone"] != "ok":
            print(finding["input"])


if __name__ == "__main__":
    main()
