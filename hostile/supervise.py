#!/usr/bin/env python3
"""Runs one mediabatch command over the hostile suite and watches it (python3 standard library only).

    hostile/supervise.py --suite DIR --vanish-to DIR --record FILE [--hang-seconds N] -- COMMAND...

- Vanishing files: the suite's "vanishing" files are moved to --vanish-to as soon as any other file
  of their folder is opened (inotify IN_OPEN). mediabatch lists a whole folder before it reads the
  first file there, and twenty files stand before them, so they are listed but not yet read: the
  moment is tied to mediabatch's own progress, not to a clock. They are moved back when the
  command ends, so the suite stays as it was.
- Hangs: mediabatch opens suite files and folders as it goes (inotify IN_OPEN on every suite
  folder). When it has opened none for --hang-seconds, the run has stalled: the suite files its
  processes (mediabatch and any workers; not `time` or `timeout`) then hold open (/proc/PID/fd) or
  are blocked opening (/proc/PID/task/TID/syscall, the path read from /proc/PID/mem: a reader
  waiting on a FIFO shows this way) are recorded as candidates, with every thread's stack (gdb)
  when gdb is there, and the processes are killed. isolate.py then tells which candidates hang alone.

Writes a JSON record to --record and exits with COMMAND's exit status.
"""

import argparse
import csv
import ctypes
import json
import os
import platform
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

IN_OPEN = 0x20
IN_ISDIR = 0x40000000
LOOK_SECONDS = 0.5
# Syscalls whose path argument names the file a blocked thread waits to open: number -> argument index.
OPEN_SYSCALLS = {"x86_64": {2: 0, 257: 1}, "aarch64": {56: 1}}.get(platform.machine(), {})
AT_FDCWD = 0xFFFFFF9C
# Wrappers around mediabatch in the command: never candidates, never killed.
WRAPPERS = {"time", "timeout", "unshare"}


class OpenWatch:
    """inotify IN_OPEN events for every folder under a root, through libc."""

    def __init__(self, root):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.folders = {}
        for folder, _, _ in os.walk(root):
            watch = self.libc.inotify_add_watch(self.fd, os.fsencode(folder), IN_OPEN)
            if watch < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch {folder}")
            self.folders[watch] = folder

    def opened(self, timeout):
        """(files, any event) since the last call, waiting up to `timeout` seconds for the first.
        An overflowed queue or a folder opened counts as an event, not as a file."""
        if not select.select([self.fd], [], [], timeout)[0]:
            return [], False
        buffer = os.read(self.fd, 65536)
        files, offset = [], 0
        while offset + 16 <= len(buffer):
            watch, mask, _cookie, length = struct.unpack_from("iIII", buffer, offset)
            name = buffer[offset + 16:offset + 16 + length].rstrip(b"\0")
            offset += 16 + length
            if watch in self.folders and name and not mask & IN_ISDIR:
                files.append(os.path.join(self.folders[watch], os.fsdecode(name)))
        return files, True


def descendants(root_pid):
    """(pid, command name) of every process under root_pid."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            name = status[status.index("(") + 1:status.rindex(")")]
            parents[int(entry)] = (int(status[status.rindex(")") + 2:].split()[1]), name)
    found, frontier = [], [root_pid]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, name) in parents.items():
            if ppid == parent:
                found.append((pid, name))
                frontier.append(pid)
    return found


def path_argument(pid, tid):
    """The path a thread is blocked opening, or None."""
    try:
        fields = Path(f"/proc/{pid}/task/{tid}/syscall").read_text().split()
        index = OPEN_SYSCALLS.get(int(fields[0])) if fields[0].isdigit() else None
        if index is None:
            return None
        arguments = [int(field, 16) for field in fields[1:7]]
        with open(f"/proc/{pid}/mem", "rb") as memory:
            memory.seek(arguments[index])
            path = os.fsdecode(memory.read(4096).split(b"\0", 1)[0])
        if not path.startswith("/"):
            folder = arguments[0] if index == 1 and arguments[0] != AT_FDCWD else None
            base = os.readlink(f"/proc/{pid}/fd/{folder}" if folder is not None else f"/proc/{pid}/cwd")
            path = os.path.join(base, path)
        return path
    except (OSError, ValueError, OverflowError):
        return None


def suite_files_in_use(pids, suite):
    """{real path: how} for every suite file the processes hold open or are blocked opening."""
    in_use = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith(suite + os.sep):
                    in_use[target] = "held open"
            for tid in os.listdir(f"/proc/{pid}/task"):
                path = path_argument(pid, tid)
                if path and os.path.realpath(path).startswith(suite + os.sep):
                    in_use[os.path.realpath(path)] = "blocked in open(2)"
        except OSError:
            continue  # the process ended meanwhile
    return in_use


def stacks(pids):
    """Every thread's stack, from gdb, or why there are none."""
    if not shutil.which("gdb"):
        return "gdb is not installed: no stacks\n"
    text = ""
    for pid in pids:
        try:
            dump = subprocess.run(["gdb", "-q", "-batch", "-p", str(pid), "-ex", "thread apply all bt 40"],
                                  capture_output=True, text=True, errors="replace", timeout=120)
            text += f"== process {pid}\n{dump.stdout}\n"
        except subprocess.TimeoutExpired:
            text += f"== process {pid}: gdb took too long\n"
    return text


def vanishing_files(suite):
    with open(os.path.join(suite, "SUITE.tsv"), newline="") as manifest:
        return [os.path.join(suite, row["path"]) for row in csv.DictReader(manifest, delimiter="\t")
                if row["category"] == "vanishing"]


def relative(path, suite):
    return os.path.relpath(path, suite)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", required=True)
    parser.add_argument("--vanish-to", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--hang-seconds", type=float, default=60)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    suite = os.path.realpath(args.suite)

    vanishing = [path for path in vanishing_files(suite) if os.path.exists(path)]
    vanishing_folders = {os.path.dirname(path) for path in vanishing}
    watch = OpenWatch(suite)
    record = {"command": command, "stalled": False, "candidates": [], "vanished": []}
    moved = []
    started = last_activity = time.monotonic()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    child = subprocess.Popen(command)
    try:
        in_use, next_look = {}, started
        while child.poll() is None:
            files, activity = watch.opened(0.05)
            now = time.monotonic()
            if activity:
                last_activity = now
            trigger = next((f for f in files if os.path.dirname(f) in vanishing_folders and f not in vanishing), None)
            if trigger and vanishing:
                for path in vanishing:
                    shutil.move(path, os.path.join(args.vanish_to, os.path.basename(path)))
                    moved.append(path)
                    record["vanished"].append({"input": relative(path, suite), "after_open_of": relative(trigger, suite),
                                               "seconds": round(now - started, 2)})
                vanishing = []
            if now < next_look:
                continue
            next_look = now + LOOK_SECONDS
            workers = [pid for pid, name in descendants(child.pid) if name not in WRAPPERS]
            in_use = suite_files_in_use(workers, suite) or in_use  # a deadlock may hold nothing now: keep the last seen
            if now - last_activity >= args.hang_seconds:
                record["stalled"] = True
                record["stalled_after_seconds"] = round(now - started, 1)
                record["candidates"] = [{"input": relative(path, suite), "how": how} for path, how in sorted(in_use.items())]
                stacks_file = Path(args.record).with_name("stacks.txt")
                stacks_file.write_text(stacks(workers))
                record["stacks"] = str(stacks_file)
                for pid in workers:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                child.wait()
    finally:
        if child.poll() is None:
            for pid, name in descendants(child.pid):
                if name not in WRAPPERS:
                    os.kill(pid, signal.SIGKILL)
            child.wait()
        for path in moved:
            shutil.move(os.path.join(args.vanish_to, os.path.basename(path)), path)
        record["exit_status"] = child.returncode
        record["seconds"] = round(time.monotonic() - started, 1)
        Path(args.record).write_text(json.dumps(record, indent=2) + "\n")
    sys.exit(child.returncode if child.returncode >= 0 else 128 - child.returncode)


if __name__ == "__main__":
    main()
