#!/usr/bin/env python3
"""What sharp does for `resize({width, height, fit: "cover", position: "attention"})`, through pyvips-binary's
bundled libvips (8.18): libvips' thumbnail with crop=attention, sRGB, JPEG q80; each photo as a 1200×630 social card
and a 400×400 square. One process per core.

    pyvips-cover.py OUTPUT FILE...
"""
import os
import sys
from multiprocessing import Pool

import pyvips


def convert(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    for width, height in ((1200, 630), (400, 400)):
        image = pyvips.Image.thumbnail(path, width, height=height, crop="attention", export_profile="srgb")
        image.jpegsave(f"{sys.argv[1]}/{stem}-{width}x{height}.jpg", Q=80)


if __name__ == "__main__":
    with Pool(os.cpu_count()) as pool:
        pool.map(convert, sys.argv[2:], chunksize=1)
