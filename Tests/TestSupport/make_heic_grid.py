"""A HEIC whose primary image is a true grid of HEVC tiles (ISO/IEC 23008-12 `grid`), as phones
write panoramas: pillow-heif's libheif 1.23 writes grids (its `tile_size`), where Debian's
`heif-enc` writes one picture (and libheif 1.15 none over 16384 a side).

make_heic_grid.py TILE HEIC PNG WIDTH HEIGHT: a smooth picture (a gradient each way, a wave across)
    of WIDTH x HEIGHT, written to PNG, then coded in TILE x TILE tiles;
make_heic_grid.py TILE HEIC PICTURE: PICTURE (any file Pillow reads) coded so.
Quality 90, x265's fastest preset (a fifth of its default's time; the pictures are for decoding).
Used by the tests (MediaTestSupport's HEICGrid) and by bench/run.sh's `huge` set."""
import sys

import numpy as np
import pillow_heif
from PIL import Image

Image.MAX_IMAGE_PIXELS = None  # the bench's pictures are huge on purpose
tile, heic, png = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if len(sys.argv) > 4:
    width, height = int(sys.argv[4]), int(sys.argv[5])
    x = np.arange(width, dtype=np.uint32)[None, :]
    y = np.arange(height, dtype=np.uint32)[:, None]
    red = np.broadcast_to(x * 255 // max(1, width - 1), (height, width))
    green = np.broadcast_to(y * 255 // max(1, height - 1), (height, width))
    blue = np.broadcast_to(128 + 100 * np.sin(x / 111.0), (height, width))
    picture = Image.fromarray(np.dstack([red, green, blue]).astype(np.uint8), "RGB")
    picture.save(png)
else:
    picture = Image.open(png).convert("RGB")
pillow_heif.from_pillow(picture).save(heic, quality=90, tile_size=tile, enc_params={"preset": "ultrafast"})
