#!/usr/bin/env python3
"""The Pillow script a user would write for responsive images: each photo opened once,
turned upright, converted from its ICC profile to sRGB, then every size made from it and
saved as WebP and JPEG at quality 80. HEIC through pillow-heif. One process per core.

    pillow-variants.py OUTPUT FILE...
"""
import io
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageCms, ImageOps
from pillow_heif import register_heif_opener

register_heif_opener()
SIZES = (2048, 1280, 640)
SRGB = ImageCms.createProfile("sRGB")


def convert(path):
    out = sys.argv[1]
    stem = os.path.splitext(os.path.basename(path))[0]
    with Image.open(path) as image:
        image.draft("RGB", (SIZES[0], SIZES[0]))  # JPEG shrink-on-load, as libvips does
        image = ImageOps.exif_transpose(image)
        profile = image.info.get("icc_profile")
        if profile:
            image = ImageCms.profileToProfile(image, ImageCms.ImageCmsProfile(io.BytesIO(profile)), SRGB, outputMode="RGB")
        image = image.convert("RGB")
        for size in SIZES:
            image.thumbnail((size, size), Image.LANCZOS)  # each size from the one above
            image.save(f"{out}/{stem}-{size}.webp", quality=80)
            image.save(f"{out}/{stem}-{size}.jpg", quality=80)


if __name__ == "__main__":
    with Pool(os.cpu_count()) as pool:
        pool.map(convert, sys.argv[2:], chunksize=1)
