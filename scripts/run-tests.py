#!/usr/bin/env python3
"""Runs the built test bundle's test classes on every CPU at once, and says where the time went.

    scripts/run-tests.py [--scratch-path .build] [--jobs N] [--slowest 20] [FILTER...]

`swift test` runs the classes one after the other; most of them wait on one decoder thread, an
encoder or a worker process. Here each class runs in an `xctest` process of its own (its
`setUp` once, its tests in order), one more at a time than there are CPUs (one of them is often
waiting on a tool's process, an encoder thread or the disk), the longest classes of
the last run first (`SCRATCH/test-times.tsv`; before there is one, `scripts/test-times.tsv`, a copy of
one made on 2 CPUs), so that the jobs finish together. A FILTER keeps
the classes whose `Module.Class` contains it. Prints each failure with its class's output, the
slowest tests and the wall time; exits 1 when a test failed or a class's process did not end
cleanly.
"""
import argparse, collections, concurrent.futures, os, re, subprocess, sys, time

RESULT = re.compile(r"Test Case '(?:-\[)?([\w.]+)[ .](\w+)\]?' (passed|failed|skipped) \((\d+\.\d+) seconds\)")


def bundle(scratch):
    path = os.path.join(scratch, "debug", "mediabatchPackageTests.xctest")
    if not os.path.exists(path):
        sys.exit(f"run-tests: no {path}: build the tests first (swift build --build-tests)")
    return path


def classes(xctest, filters):
    listed = subprocess.run([xctest, "--list-tests"], capture_output=True, text=True, check=True).stdout.split()
    names = sorted({test.split("/")[0] for test in listed if "/" in test})
    return [name for name in names if not filters or any(f in name for f in filters)]


def previous_times(path):
    times = {}
    if os.path.exists(path):
        for line in open(path):
            name, seconds = line.rstrip("\n").split("\t")
            times[name] = float(seconds)
    return times


def run_class(xctest, name):
    began = time.monotonic()
    process = subprocess.run([xctest, name], capture_output=True, text=True)
    output = process.stdout + process.stderr
    return name, process.returncode, output, time.monotonic() - began


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch-path", default=".build")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)) + 1)
    parser.add_argument("--slowest", type=int, default=20)
    parser.add_argument("filters", nargs="*")
    options = parser.parse_args()
    xctest = bundle(options.scratch_path)
    times_file = os.path.join(options.scratch_path, "test-times.tsv")
    # A first build's run (CI's) takes its order from the times committed beside this script.
    earlier = previous_times(times_file if os.path.exists(times_file) else os.path.join(os.path.dirname(__file__), "test-times.tsv"))
    todo = sorted(classes(xctest, options.filters), key=lambda name: -earlier.get(name, 1e9))
    began = time.monotonic()
    results, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        for name, code, output, seconds in pool.map(lambda name: run_class(xctest, name), todo):
            tests = [(float(m.group(4)), m.group(1), m.group(2), m.group(3)) for m in RESULT.finditer(output)]
            results.append((name, seconds, tests))
            bad = [t for t in tests if t[3] == "failed"]
            if code != 0 or bad:
                failed.append(name)
                print(f"== {name}: {'exit ' + str(code) if code else str(len(bad)) + ' failed'}\n{output}", flush=True)
    wall = time.monotonic() - began
    earlier.update({name: seconds for name, seconds, _ in results})
    with open(times_file, "w") as file:
        for name, seconds in sorted(earlier.items()):
            file.write(f"{name}\t{seconds:.2f}\n")
    tests = sorted((t for _, _, ts in results for t in ts), reverse=True)
    counts = collections.Counter(t[3] for t in tests)
    print(f"\n{options.slowest} slowest tests:")
    for seconds, cls, test, _ in tests[:options.slowest]:
        print(f"  {seconds:7.2f} s  {cls}.{test}")
    print(f"\n{options.slowest // 2} slowest classes (their process: set-up and tests):")
    for name, seconds, _ in sorted(results, key=lambda result: -result[1])[:options.slowest // 2]:
        print(f"  {seconds:7.2f} s  {name}")
    print(f"\n{len(tests)} tests in {len(results)} classes: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped; {sum(t[0] for t in tests):.0f} s of tests in {wall:.0f} s, "
          f"{options.jobs} at a time on {len(os.sched_getaffinity(0))} CPUs")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
