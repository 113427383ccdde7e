#!/usr/bin/env python3
"""peak-pss.py PID: samples the proportional set size of PID and all its descendants (mediabatch's
worker processes, xargs' parallel peers) every 0.2 s until PID exits, then prints the peak in KiB.

PSS, not RSS: each worker maps the same ~54 MiB of shared libraries, which summed RSS would count
once per process. One long-lived sampler, not a `ps | awk` per sample: forking a dozen processes
every 0.1 s on a 2-core machine slowed the runs being measured by up to 30%."""
import os
import sys
import time


def descendants(root):
    parent = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    # the command name, in parentheses, may hold spaces: fields start after the last ')'
                    parent[int(name)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass  # it exited while we looked
    found, frontier = {root}, [root]
    while frontier:
        current = frontier.pop()
        children = [pid for pid, ppid in parent.items() if ppid == current]
        found.update(children)
        frontier.extend(children)
    return found


def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


root, peak = int(sys.argv[1]), 0
while os.path.exists(f"/proc/{root}"):
    peak = max(peak, sum(pss_kib(pid) for pid in descendants(root)))
    time.sleep(0.2)
print(peak)
