"""Independent HDR reader for mediabatch's tests: libvips 8.18 + libultrahdr (pyvips-binary), libheif
(pillow-heif), exiftool and numpy. No mediabatch code is involved; run it with the python that
scripts/test-python.sh prints. Each subcommand prints one JSON object.

  describe OUTPUT.jpg                      what uhdrload reads: size, gain map size and its metadata
  compare INPUT OUTPUT [--apple-headroom H] does OUTPUT's HDR/SDR ratio match INPUT's, at OUTPUT's size?
  reference INPUT OUTPUT [--width N] [--flip] [--apple-headroom H]
                                           writes an Ultra HDR JPEG made by pyvips alone (Ultra HDR input:
                                           libvips' own thumbnail; Apple input: map converted to ISO form;
                                           ISO-only input: its map and metadata as they are); --flip mirrors
                                           the gain map left to right, a known-bad output for negative tests

The compare works on luminance Y = 0.2126 R + 0.7152 G + 0.0722 B of linear light, in 4x4-pixel blocks of
the output's grid: ratio r = mean Y_hdr / mean Y_sdr per block, kept where the input's SDR is not dark
(mean Y_sdr > DARK, noise and JPEG rounding dominate ratios below it) and its gain is real (r_in > MIN_GAIN).
"""
import json
import subprocess
import sys

import numpy as np
import pillow_heif
import pyvips

APPLE_AUX = "urn:com:apple:photo:2020:aux:hdrgainmap"
ISO_URN = b"urn:iso:std:iso:ts:21496:-1\0"
DARK, MIN_GAIN, BLOCK = 0.01, 1.1, 4
pyvips.cache_set_max(0)   # get_gainmap() mutates a loaded image: a cached one would come back changed
SRGB_EOTF = np.array([v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
                      for v in np.arange(256) / 255.0], dtype=np.float32)


def luminance(rgb):
    """Y of linear Rec.709/sRGB primaries: HDR and SDR are compared as light, not as code values."""
    return rgb[..., 0] * 0.2126 + rgb[..., 1] * 0.7152 + rgb[..., 2] * 0.0722


def vips_array(a):
    """A numpy array as a pyvips image (single band or H x W x bands)."""
    return pyvips.Image.new_from_array(np.ascontiguousarray(a))


def upright(a, orientation):
    """Applies EXIF orientation the way libvips does (autorot): outputs are upright, stored pixels are not."""
    if orientation in (None, 1):
        return a
    image = vips_array(a).copy()
    image.set_type(pyvips.GValue.gint_type, "orientation", int(orientation))
    return image.autorot().numpy()


def orientation_of(image):
    return image.get("orientation") if "orientation" in image.get_fields() else 1


def resize_to(a, width, height, kernel="lanczos3"):
    """Resamples a float map to exactly width x height (libvips resize; rounding fixed by a crop/extend)."""
    h, w = a.shape[:2]
    if (w, h) == (width, height):
        return a
    out = vips_array(a).resize(width / w, vscale=height / h, kernel=kernel)
    if (out.width, out.height) != (width, height):
        out = out.embed(0, 0, width, height, extend="copy")
    return out.numpy()


def exiftool_json(path, *tags):
    """exiftool -n -ee (numbers, embedded images such as the MPF gain map) as one dict."""
    out = subprocess.run(["exiftool", "-j", "-n", "-ee", *tags, path], capture_output=True, check=True)
    return json.loads(out.stdout)[0]


def mpf_gainmap(path):
    """The second MPF image's bytes (the gain map JPEG of Apple, Ultra HDR and ISO 21496-1 JPEGs)."""
    data = subprocess.run(["exiftool", "-b", "-MPImage2", path], capture_output=True, check=True).stdout
    if not data:
        sys.exit(f"{path}: no MPF gain map image")
    return data


def app2_iso_payload(jpeg):
    """The ISO 21496-1 APP2 payload of a JPEG (after the URN), or None: walks markers up to SOS."""
    i = 2
    while i + 4 <= len(jpeg) and jpeg[i] == 0xFF and jpeg[i + 1] != 0xDA:
        length = int.from_bytes(jpeg[i + 2:i + 4], "big")
        body = jpeg[i + 4:i + 2 + length]
        if jpeg[i + 1] == 0xE2 and body.startswith(ISO_URN):
            return body[len(ISO_URN):]
        i += 2 + length
    return None


def parse_iso_metadata(payload):
    """ISO 21496-1 binary metadata (libultrahdr gainmapmetadata.cpp layout, big-endian) as per-channel
    log2 min/max, gamma and offsets; the primary image's 4-byte version-only payload gives None."""
    if payload is None or len(payload) <= 4:
        return None
    pos = 5
    flags = payload[4]
    channels = 3 if flags & 0x80 else 1
    if flags & 4:
        sys.exit("ISO gain map with an HDR base (backward direction) is not supported")

    def read(signed):
        nonlocal pos
        value = int.from_bytes(payload[pos:pos + 4], "big", signed=signed)
        pos += 4
        return value
    common = read(False) if flags & 8 else None
    fraction = (lambda s: read(s) / common) if common else (lambda s: read(s) / read(False))
    fraction(False), fraction(False)                   # base and alternate HDR headroom: unused at full weight
    fields = {k: [] for k in ("min", "max", "gamma", "offset_sdr", "offset_hdr")}
    for _ in range(channels):
        for key, signed in (("min", True), ("max", True), ("gamma", False), ("offset_sdr", True), ("offset_hdr", True)):
            fields[key].append(fraction(signed))
    return {k: v * (3 // channels) for k, v in fields.items()}


def xmp_iso_metadata(gainmap_jpeg):
    """Google's hdrgm XMP of the gain map image (log2 min/max), with the format's defaults."""
    tags = json.loads(subprocess.run(["exiftool", "-j", "-n", "-XMP-hdrgm:all", "-"], input=gainmap_jpeg,
                                     capture_output=True, check=True).stdout)[0]
    if "GainMapMax" not in tags:
        sys.exit("gain map has neither ISO 21496-1 metadata nor hdrgm XMP")
    if str(tags.get("BaseRenditionIsHDR", "False")).lower() == "true":
        sys.exit("hdrgm gain map with an HDR base is not supported")

    def per_channel(name, default):
        value = tags.get(name, default)
        values = [float(x) for x in value.split(",")] if isinstance(value, str) else \
            list(value) if isinstance(value, list) else [float(value)]
        return values * 3 if len(values) == 1 else values
    return {"min": per_channel("GainMapMin", 0), "max": per_channel("GainMapMax", 0),
            "gamma": per_channel("Gamma", 1), "offset_sdr": per_channel("OffsetSDR", 1 / 64),
            "offset_hdr": per_channel("OffsetHDR", 1 / 64)}


def apply_iso(sdr, gainmap, meta):
    """ISO 21496-1 at full weight, per channel: HDR = (SDR + offSDR) * 2^lerp(min, max, v^(1/gamma)) - offHDR,
    v the gain map's code value / 255 (no transfer curve). sdr: linear H x W x 3; gainmap: uint8, same size."""
    v = gainmap.astype(np.float32) / 255.0
    v = v if v.ndim == 3 else v[..., None]
    hdr = np.empty_like(sdr)
    for c in range(3):
        vc = v[..., min(c, v.shape[2] - 1)] ** (1.0 / meta["gamma"][c])
        log_gain = meta["min"][c] + (meta["max"][c] - meta["min"][c]) * vc
        hdr[..., c] = (sdr[..., c] + meta["offset_sdr"][c]) * np.exp2(log_gain) - meta["offset_hdr"][c]
    return hdr


def uhdr_maps(path):
    """(Y_sdr, Y_hdr) of a file libultrahdr reads, upright: uhdr2scRGB renders at full boost (no display
    headroom in libvips 8.18; checked: ratio = maxContentBoost^v) and colourspace('scrgb') is the SDR base.
    For 3-channel gain maps libvips 8.18 sRGB-linearises the map first, which ISO does not do, so those
    go through apply_iso with uhdrload's metadata instead."""
    image = pyvips.Image.uhdrload(path)
    sdr = image.colourspace("scrgb").numpy()
    gainmap = image.get_gainmap()
    if gainmap.bands == 1:
        hdr = image.uhdr2scRGB().numpy()
    else:
        g = gainmap.resize(image.width / gainmap.width, vscale=image.height / gainmap.height, kernel="linear")
        meta = {"min": np.log2(image.get("gainmap-min-content-boost")), "max": np.log2(image.get("gainmap-max-content-boost")),
                "gamma": image.get("gainmap-gamma"), "offset_sdr": image.get("gainmap-offset-sdr"),
                "offset_hdr": image.get("gainmap-offset-hdr")}
        hdr = apply_iso(sdr, g.numpy(), meta)
    if sdr.shape != hdr.shape:
        sys.exit(f"{path}: uhdr2scRGB gives {hdr.shape}, the SDR base {sdr.shape}")
    o = orientation_of(image)
    return upright(luminance(sdr), o), upright(luminance(hdr), o)


def iso_maps(path, gainmap_jpeg):
    """(Y_sdr, Y_hdr) of an ISO 21496-1 / hdrgm JPEG that uhdrload does not detect: our own formula."""
    meta = parse_iso_metadata(app2_iso_payload(gainmap_jpeg)) or xmp_iso_metadata(gainmap_jpeg)
    image = pyvips.Image.jpegload(path)
    gainmap = pyvips.Image.new_from_buffer(gainmap_jpeg, "")
    g = gainmap.resize(image.width / gainmap.width, vscale=image.height / gainmap.height, kernel="linear")
    sdr = SRGB_EOTF[image.extract_band(0, n=3).numpy()]
    o = orientation_of(image)
    return upright(luminance(sdr), o), upright(luminance(apply_iso(sdr, g.numpy(), meta)), o)


def apple_headroom(path):
    """Apple's linear headroom H: XMP HDRGainMap:HDRGainMapHeadroom (linear, as libavif reads it; libultrahdr
    1.4 takes it as log2), else MakerNote 0x0021/0x0030 by Apple's published formula."""
    tags = exiftool_json(path, "-HDRGainMapHeadroom", "-HDRHeadroom", "-HDRGain")
    if "HDRGainMapHeadroom" in tags:
        return float(tags["HDRGainMapHeadroom"])
    if "HDRHeadroom" not in tags:
        sys.exit(f"{path}: Apple gain map without headroom (XMP or MakerNote 0x0021); pass --apple-headroom")
    maker33, maker48 = float(tags["HDRHeadroom"]), float(tags.get("HDRGain", 0.0))
    if maker33 < 1:
        stops = -20 * maker48 + 1.8 if maker48 <= 0.01 else -0.101 * maker48 + 1.601
    else:
        stops = -70 * maker48 + 3.0 if maker48 <= 0.01 else -0.303 * maker48 + 2.303
    return 2 ** max(stops, 0)


def apple_planes(path, gainmap_jpeg=None):
    """Apple's upright SDR primary (uint8 RGB) and gain map (uint8, its own size). HEIC: libheif applies
    the transforms to both; JPEG: the MPF map is stored like the primary, so EXIF orientation goes on both."""
    if gainmap_jpeg is None:
        heif = pillow_heif.open_heif(path)
        ids = heif.info.get("aux", {}).get(APPLE_AUX)
        if not ids:
            sys.exit(f"{path}: no Apple HDR gain map auxiliary image")
        return np.asarray(heif.to_pillow().convert("RGB")), np.asarray(heif.get_aux_image(ids[0]).to_pillow())
    image = pyvips.Image.jpegload(path)
    gainmap = pyvips.Image.new_from_buffer(gainmap_jpeg, "").extract_band(0)
    o = orientation_of(image)
    return upright(image.extract_band(0, n=3).numpy(), o), upright(gainmap.numpy(), o)


def apple_maps(path, headroom, gainmap_jpeg=None):
    """(Y_sdr, Y_hdr) by Apple's formula: HDR = SDR * (1 + (H - 1) * g), g the sRGB-linearised map
    upsampled (bilinear, like uhdr2scRGB does) to the primary's size; luminance map, so Y scales alike."""
    primary, gainmap = apple_planes(path, gainmap_jpeg)
    g = SRGB_EOTF[gainmap]
    g = resize_to(g, primary.shape[1], primary.shape[0], kernel="linear")
    y_sdr = luminance(SRGB_EOTF[primary])
    return y_sdr, y_sdr * (1 + (headroom - 1) * g)


def input_kind(path):
    """'apple-heic', 'apple-jpeg', 'uhdr' (uhdrload reads it) or 'iso' (ISO/hdrgm that uhdrload misses),
    with the gain map JPEG for JPEGs. The gain map's own metadata decides, not the primary's XMP."""
    if open(path, "rb").read(12)[4:8] == b"ftyp":
        return "apple-heic", None
    gainmap_jpeg = mpf_gainmap(path)
    iso = app2_iso_payload(gainmap_jpeg) is not None or b"hdrgm" in gainmap_jpeg
    if not iso and (b"HDRGainMap" in gainmap_jpeg or APPLE_AUX.encode() in gainmap_jpeg):
        return "apple-jpeg", gainmap_jpeg
    loader = pyvips.Image.new_from_file(path).get("vips-loader")
    return ("uhdr" if loader == "uhdrload" else "iso"), gainmap_jpeg


def describe(path):
    """What an independent Ultra HDR reader sees in an output: loader, sizes and gain map metadata."""
    image = pyvips.Image.new_from_file(path)
    fields = image.get_fields()
    result = {"loader": image.get("vips-loader"), "width": image.width, "height": image.height, "gainmap": None}
    if "gainmap-data" in fields:
        gm = pyvips.Image.new_from_buffer(image.get("gainmap-data"), "")
        result["gainmap"] = {"width": gm.width, "height": gm.height, "bands": gm.bands}
    for key, field in (("maxContentBoost", "max-content-boost"), ("minContentBoost", "min-content-boost"),
                       ("gamma", "gamma"), ("offsetSdr", "offset-sdr"), ("offsetHdr", "offset-hdr"),
                       ("hdrCapacityMin", "hdr-capacity-min"), ("hdrCapacityMax", "hdr-capacity-max")):
        result[key] = image.get("gainmap-" + field) if "gainmap-" + field in fields else None
    return result


def block_means(a):
    """Means of BLOCK x BLOCK tiles (partial tiles at the right and bottom edges dropped)."""
    h, w = a.shape[0] // BLOCK * BLOCK, a.shape[1] // BLOCK * BLOCK
    return a[:h, :w].reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK).mean(axis=(1, 3), dtype=np.float64)


def compare(input_path, output_path, headroom=None):
    """Median and 95th percentile of |r_out - r_in| / r_in over bright, boosted 4x4 blocks, the input's
    linear light resampled (lanczos3) to the output's size."""
    out_sdr, out_hdr = uhdr_maps(output_path)
    height, width = out_sdr.shape
    kind, gainmap_jpeg = input_kind(input_path)
    if kind.startswith("apple"):
        headroom = headroom or apple_headroom(input_path)
        in_sdr, in_hdr = apple_maps(input_path, headroom, gainmap_jpeg)
    else:
        in_sdr, in_hdr = uhdr_maps(input_path) if kind == "uhdr" else iso_maps(input_path, gainmap_jpeg)
    if abs(in_sdr.shape[1] * height / in_sdr.shape[0] - width) > 2:
        sys.exit(f"aspect ratios differ: input {in_sdr.shape[1]}x{in_sdr.shape[0]}, output {width}x{height}")
    in_sdr, in_hdr = resize_to(in_sdr, width, height), resize_to(in_hdr, width, height)
    s_in, h_in, s_out, h_out = (block_means(a) for a in (in_sdr, in_hdr, out_sdr, out_hdr))
    r_in = h_in / np.maximum(s_in, 1e-9)
    r_out = h_out / np.maximum(s_out, 1e-9)
    keep = (s_in > DARK) & (r_in > MIN_GAIN)
    rel = np.abs(r_out[keep] - r_in[keep]) / r_in[keep]
    return {"blocks": int(keep.sum()), "median": float(np.median(rel)) if rel.size else None,
            "p95": float(np.percentile(rel, 95)) if rel.size else None, "input": kind,
            "appleHeadroom": headroom if kind.startswith("apple") else None}


def reference(input_path, output_path, width=None, flip=False, headroom=None):
    """An Ultra HDR JPEG made by libvips alone, the yardstick for compare: Ultra HDR input through libvips'
    thumbnail (which resizes the gain map too); Apple input with its map re-encoded in ISO form (min 1,
    max H, gamma 1, offsets 0, v = log2(1 + (H - 1) g) / log2 H); ISO-only input with its own map and
    metadata (full size). --flip mirrors the map left to right: a known-bad file for negative tests."""
    kind, gainmap_jpeg = input_kind(input_path)
    if kind == "uhdr":
        image = pyvips.Image.thumbnail(input_path, width or 10 ** 6, size="down")
        gainmap = image.get_gainmap()
    else:
        if kind.startswith("apple"):
            headroom = headroom or apple_headroom(input_path)
            primary, g = apple_planes(input_path, gainmap_jpeg)
            v = np.log2(1 + (headroom - 1) * SRGB_EOTF[g]) / np.log2(headroom)
            g = np.round(np.clip(v, 0, 1) * 255).astype(np.uint8)
            meta = {"min": [0.0] * 3, "max": [np.log2(headroom)] * 3, "gamma": [1.0] * 3,
                    "offset_sdr": [0.0] * 3, "offset_hdr": [0.0] * 3}
        else:
            meta = parse_iso_metadata(app2_iso_payload(gainmap_jpeg)) or xmp_iso_metadata(gainmap_jpeg)
            jpeg = pyvips.Image.jpegload(input_path)
            o = orientation_of(jpeg)
            primary = upright(jpeg.extract_band(0, n=3).numpy(), o)
            g = upright(pyvips.Image.new_from_buffer(gainmap_jpeg, "").numpy(), o)
        image = vips_array(primary).copy(interpretation="srgb")
        gainmap = vips_array(g).copy(interpretation="b-w" if g.ndim == 2 else "srgb")
        for field, value in (("max-content-boost", np.exp2(meta["max"])), ("min-content-boost", np.exp2(meta["min"])),
                             ("gamma", meta["gamma"]), ("offset-sdr", meta["offset_sdr"]),
                             ("offset-hdr", meta["offset_hdr"])):
            image.set_type(pyvips.GValue.array_double_type, "gainmap-" + field, [float(x) for x in value])
        image.set_type(pyvips.GValue.gdouble_type, "gainmap-hdr-capacity-min", 1.0)
        image.set_type(pyvips.GValue.gdouble_type, "gainmap-hdr-capacity-max", float(np.exp2(max(meta["max"]))))
        image.set_type(pyvips.GValue.gint_type, "gainmap-use-base-cg", 1)
    image = image.copy()
    image.set_type(pyvips.GValue.image_type, "gainmap", gainmap.fliphor() if flip else gainmap)
    image.uhdrsave(output_path, Q=95)
    return describe(output_path)


def main(argv):
    """CLI: see the module docstring."""
    options = {"--apple-headroom": None, "--width": None}
    flip = "--flip" in argv
    args = [a for a in argv if a != "--flip"]
    for name in options:
        if name in args:
            i = args.index(name)
            options[name] = float(args[i + 1])
            del args[i:i + 2]
    headroom = options["--apple-headroom"]
    if args[:1] == ["describe"] and len(args) == 2:
        result = describe(args[1])
    elif args[:1] == ["compare"] and len(args) == 3:
        result = compare(args[1], args[2], headroom)
    elif args[:1] == ["reference"] and len(args) == 3:
        width = int(options["--width"]) if options["--width"] else None
        result = reference(args[1], args[2], width, flip, headroom)
    else:
        sys.exit(__doc__)
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
