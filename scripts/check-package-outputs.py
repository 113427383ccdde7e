#!/usr/bin/env python3
"""Reads back, with the host's own tools, what the installed package wrote in a clean root.

Usage: check-package-outputs.py REPORT INPUT OUTPUT [--no-location]

REPORT is the JSON report of a `mediabatch run` that fitted images to 2048 px; INPUT and OUTPUT are its
folders as the host sees them. Images are read with vipsheader (the loader the output's extension
calls for, from the bytes; the longest side fitted to 2048 px and never upscaled), videos with ffprobe
(the same streams and duration), and with --no-location every output with exiftool (no location
left). Prints one line per output; exits 1 on any mismatch.
"""
import json
import os
import subprocess
import sys

LOADERS = {"jpg": "jpegload", "png": "pngload", "webp": "webpload", "gif": "gifload", "heic": "heifload", "avif": "heifload"}


def vips(path, field):
    return subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True, check=True).stdout.strip()


def probe(path):
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type:format=duration",
                             "-of", "json", path], capture_output=True, text=True, check=True)
    data = json.loads(result.stdout)
    return sorted(s["codec_type"] for s in data["streams"]), round(float(data["format"]["duration"]), 2)


def check_image(source, written, extension):
    loader = vips(written, "vips-loader")
    longest_in = max(int(vips(source, "width")), int(vips(source, "height")))
    longest_out = max(int(vips(written, "width")), int(vips(written, "height")))
    problems = []
    if loader != LOADERS.get(extension):
        problems.append(f"read as {loader}, named .{extension}")
    if longest_out != min(2048, longest_in):
        problems.append(f"longest side {longest_out}, expected {min(2048, longest_in)} (input {longest_in})")
    return problems, f"{loader} {vips(written, 'width')}x{vips(written, 'height')}"


def check_video(source, written):
    expected, got = probe(source), probe(written)
    return ([] if got == expected else [f"streams/duration {got}, expected {expected}"]), f"{got[0]} {got[1]} s"


def main():
    report_path, input_root, output_root = sys.argv[1:4]
    no_location = "--no-location" in sys.argv[4:]
    with open(report_path) as f:
        report = json.load(f)
    failures, checked = 0, 0
    for item in report["items"]:
        if item["status"] != "ok":
            print(f"FAIL {item['input']}: status {item['status']} {item.get('error', '')}")
            failures += 1
            continue
        source, written = os.path.join(input_root, item["input"]), os.path.join(output_root, item["output"])
        extension = written.rsplit(".", 1)[-1].lower()
        if item["format"] in ("mov", "mp4", "3gp"):
            problems, summary = check_video(source, written)
        else:
            problems, summary = check_image(source, written, extension)
        location = no_location and subprocess.run(["exiftool", "-s", "-s", "-s", "-gps:all", "-location:all", written],
                                                  capture_output=True, text=True, check=True).stdout.strip()
        if location:
            problems.append(f"location left: {location}")
        checked += 1
        failures += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {item['output']}: {summary} {'; '.join(problems)}")
    print(f"{checked} outputs read back, {failures} problems")
    if failures or checked == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
