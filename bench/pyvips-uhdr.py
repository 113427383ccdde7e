#!/usr/bin/env python3
"""What bench/hdr-2048-keep.json does, written with pyvips and pyvips-binary's libvips 8.18 (libultrahdr):
each Ultra HDR JPEG shrunk on load to fit 2048 px (thumbnail keeps the gain map and resizes it with the
picture), upright, sRGB, saved as JPEG q80 (jpegsave of an image with a gain map writes Ultra HDR).
--drop saves without the gain map (SDR only), as "hdr": "drop". Run with the python that
scripts/test-python.sh prints.

    pyvips-uhdr.py [--jobs N] [--drop] OUTPUT FILE...   # N processes (default 1: all files in one process)
    pyvips-uhdr.py --check FILE...                      # what 8.18 finds in each file: loader, gain map, decodes?
"""
import argparse
import os
import sys
from multiprocessing import Pool

import pyvips

KEEP_SDR = pyvips.enums.ForeignKeep.ALL & ~pyvips.enums.ForeignKeep.GAINMAP


def convert(job):
    path, out, drop = job
    stem = os.path.splitext(os.path.basename(path))[0]
    image = pyvips.Image.thumbnail(path, 2048, size="down", export_profile="srgb")
    if drop:
        image.jpegsave(f"{out}/{stem}.jpg", Q=80, keep=KEEP_SDR)
    else:
        image.jpegsave(f"{out}/{stem}.jpg", Q=80)


def check(path):
    try:
        image = pyvips.Image.new_from_file(path)
    except pyvips.Error as error:
        return f"{path}: cannot open: {str(error).splitlines()[0]}"
    loader = image.get("vips-loader")
    gainmap = "gainmap-data" in image.get_fields()
    try:
        image.avg()
        decodes = "decodes"
    except pyvips.Error as error:
        reason = [line for line in str(error).splitlines() if line.strip() and "unable to call" not in line]
        decodes = f"pixels fail: {reason[0].strip() if reason else error}"
    return f"{path}: libvips {pyvips.version(0)}.{pyvips.version(1)} {loader}, gain map {'found' if gainmap else 'not found'}, {decodes}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--drop", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    if args.check:
        for path in args.paths:
            print(check(path))
        sys.exit(0)
    out, files = args.paths[0], args.paths[1:]
    jobs = [(path, out, args.drop) for path in files]
    if args.jobs == 1:
        for job in jobs:
            convert(job)
    else:
        with Pool(args.jobs) as pool:
            pool.map(convert, jobs, chunksize=1)
