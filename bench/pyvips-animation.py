#!/usr/bin/env python3
"""What sharp does for `sharp(file, {animated: true}).resize(320, 320, {fit: "inside"}).webp({quality: 80})`, through
pyvips-binary's bundled libvips (8.18): every frame loaded (n=-1), libvips' thumbnail, WebP q80 at effort 4 (sharp's
default). One process per core.

    pyvips-animation.py OUTPUT FILE...
"""
import os
import sys
from multiprocessing import Pool

import pyvips


def convert(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    image = pyvips.Image.thumbnail(path + "[n=-1]", 320, height=320, size="down")
    image.webpsave(f"{sys.argv[1]}/{stem}.webp", Q=80, effort=4)


if __name__ == "__main__":
    with Pool(os.cpu_count()) as pool:
        pool.map(convert, sys.argv[2:], chunksize=1)
