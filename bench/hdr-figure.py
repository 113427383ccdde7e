#!/usr/bin/env python3
# Run: mkdir -p /tmp/hdr-in && cp Tests/Fixtures/hdr/paris_exif_xmp_gainmap_littleendian.jpg /tmp/hdr-in/paris.jpg && cp samples/heic/pug.heic /tmp/hdr-in/ &&
#      .build/release/mediabatch run bench/hdr-figure.json --input /tmp/hdr-in --output /tmp/hdr-figure && P="$(scripts/test-python.sh)" &&
#      $P bench/hdr-figure.py /tmp/hdr-figure/paris.jpg docs/hdr-figure.png && $P bench/hdr-figure.py /tmp/hdr-figure/pug.jpg docs/hdr-figure-iphone.png
"""docs/hdr-figure.png and docs/hdr-figure-iphone.png: an Ultra HDR JPEG made by mediabatch (from an ISO 21496-1
JPEG, paris, and from samples/heic/pug.heic, Apple's gain map, through bench/hdr-figure.json: decode, downsample
1200, transcode jpeg, write), drawn twice side by side for an SDR page, both at the same exposure: the picture's brightest light, the HDR rendition's peak, is the page's white.
Left, the SDR base that any viewer shows (linear light from the sRGB base, libvips 8.18 colourspace scrgb);
right, the HDR rendition libvips 8.18 reconstructs from the gain map (uhdr2scRGB, linear light). Both are
scaled by 1 / peak (log2(peak) stops down) and sRGB-encoded, nothing else: where the two differ is what the
gain map adds, light above SDR white that an HDR screen shows and an SDR file cannot hold. An inset in the
right half maps the gain itself (HDR / SDR, black 1x, white the largest), to show where it is.

    hdr-figure.py INPUT.jpg OUTPUT.png [--width 1200]
"""
import argparse

import numpy as np
import pyvips


def srgb_encode(linear):
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * np.power(linear, 1 / 2.4) - 0.055)


def to_image(linear):
    return pyvips.Image.new_from_array((srgb_encode(linear) * 255 + 0.5).astype(np.uint8)).copy(interpretation="srgb")


def label(panel, text, corner=8, font="sans 11"):
    """Small white text on a dark band in the panel's top left corner."""
    words = pyvips.Image.text(text, font=font, dpi=96)
    band = pyvips.Image.black(words.width + 12, words.height + 8).new_from_image([0, 0, 0]).copy(interpretation="srgb")
    band = band.insert(words.new_from_image([255, 255, 255]).bandjoin(words).copy(interpretation="srgb")
                       .flatten(background=[0, 0, 0]).cast("uchar"), 6, 4)
    return panel.insert(band, corner, corner)


def inset(gain, width):
    """The HDR/SDR ratio as a small grey map with a white frame: black 1x, white the picture's largest."""
    top = max(float(np.percentile(gain, 99.9)), 1.01)
    grey = (np.clip((gain - 1) / (top - 1), 0, 1) * 255).astype(np.uint8)
    small = pyvips.Image.new_from_array(grey).resize(width / gain.shape[1], kernel="linear")
    small = label(small.bandjoin([small, small]).copy(interpretation="srgb"), f"gain 1-{top:.2f}x", corner=2, font="sans 8")
    return small.embed(1, 1, small.width + 2, small.height + 2, extend="white")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--width", type=int, default=1200, help="of the whole figure")
    args = parser.parse_args()

    image = pyvips.Image.new_from_file(args.input)
    assert image.get("vips-loader") == "uhdrload", "not an Ultra HDR JPEG"
    sdr = image.colourspace("scrgb").numpy().astype(np.float32)[..., :3]   # the base picture, linear light
    hdr = image.uhdr2scRGB().numpy().astype(np.float32)[..., :3]           # with the gain map, SDR white = 1
    peak = float(np.percentile(hdr.max(axis=2), 99.9))
    stops = np.log2(peak)
    gain = hdr.max(axis=2) / np.maximum(sdr.max(axis=2), 1e-4)
    boosted = 100 * float((gain > 1.1).mean())

    half = (args.width - 4) // 2
    scale = half / image.width
    left = label(to_image(sdr / peak).resize(scale, kernel="lanczos3"),
                 f"SDR base (any viewer), {stops:.2f} stops down")
    right = label(to_image(hdr / peak).resize(scale, kernel="lanczos3"),
                  f"HDR from the gain map, same exposure: peak {peak:.2f}x SDR white")
    right = right.insert(inset(gain, half // 4), half - half // 4 - 8, right.height - round(half // 4 * gain.shape[0] / gain.shape[1]) - 8)
    figure = left.join(right, "horizontal", shim=4, background=[255, 255, 255])
    figure.pngsave(args.output, compression=9, palette=True, Q=90, effort=10, dither=0.5)
    print(f"{args.output}: peak {peak:.3f}x SDR white ({stops:.2f} stops), {boosted:.0f}% of pixels over 1.1x, "
          f"gain map max content boost {image.get('gainmap-max-content-boost')}")


if __name__ == "__main__":
    main()
