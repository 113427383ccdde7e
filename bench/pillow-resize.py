#!/usr/bin/env python3
"""The Pillow script a user who cares for speed would write: each photo opened once (JPEG shrunk on
load), brought to the largest size, then turned upright and converted from its ICC profile to sRGB
(cheaper there than at full size), each smaller size made from the one above, every size saved in every
format at quality 80. HEIC through pillow-heif. One process per core.

    pillow-resize.py OUTPUT SIZES FORMATS FILE...     # pillow-resize.py out 2048,1280,640 webp,jpg a.heic
"""
import io
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageCms, ImageOps
from pillow_heif import register_heif_opener

register_heif_opener()
SIZES = sorted((int(size) for size in sys.argv[2].split(",")), reverse=True)
FORMATS = sys.argv[3].split(",")
SRGB = ImageCms.createProfile("sRGB")


def convert(path):
    out = sys.argv[1]
    stem = os.path.splitext(os.path.basename(path))[0]
    suffix = len(SIZES) > 1
    with Image.open(path) as image:
        image.draft("RGB", (SIZES[0], SIZES[0]))  # JPEG shrink-on-load, as libvips does
        profile = image.info.get("icc_profile")
        image.thumbnail((SIZES[0], SIZES[0]), Image.LANCZOS)
        image = ImageOps.exif_transpose(image)
        if profile:
            image = ImageCms.profileToProfile(image, ImageCms.ImageCmsProfile(io.BytesIO(profile)), SRGB, outputMode="RGB")
        image = image.convert("RGB")
        for size in SIZES:
            image.thumbnail((size, size), Image.LANCZOS)  # each size from the one above
            for ext in FORMATS:
                image.save(f"{out}/{stem}{f'-{size}' if suffix else ''}.{ext}", quality=80)


if __name__ == "__main__":
    with Pool(os.cpu_count()) as pool:
        pool.map(convert, sys.argv[4:], chunksize=1)
