#!/usr/bin/env python3
"""The pyvips script a user would write with pyvips-binary's bundled libvips (8.18: Highway SIMD,
mozjpeg): each photo shrunk on load to fit 2048 px, upright, converted to sRGB, saved as JPEG q80.
One process per core, libvips' own threads as it sets them.

    pyvips-resize.py OUTPUT FILE...
"""
import os
import sys
from multiprocessing import Pool

import pyvips


def convert(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    image = pyvips.Image.thumbnail(path, 2048, size="down", export_profile="srgb")
    image.jpegsave(f"{sys.argv[1]}/{stem}.jpg", Q=80)


if __name__ == "__main__":
    with Pool(os.cpu_count()) as pool:
        pool.map(convert, sys.argv[2:], chunksize=1)
