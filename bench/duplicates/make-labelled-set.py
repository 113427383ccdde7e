#!/usr/bin/env python3
"""Build a labelled duplicate / near-duplicate photo set from the shared corpus (issue 45).

usage: make-labelled-set.py SRC_DIR OUT_DIR [--raw DNG] [--keep-existing]

SRC_DIR is the shared corpus (e.g. /work/shared/corpus).  OUT_DIR gets
  files/<photo>/<transform>.<ext>   the media
  labels.tsv                        path, photo, burst, transform, flat
  sources.tsv                       photo -> source file it was made from

Uses only the command-line tools vips (libvips >= 8.14), ffmpeg, exiftool and,
for the optional RAW, dcraw_emu (or dcraw).  Python stdlib only.
Deterministic: sorted hard-coded inputs, crops chosen by random.Random(seeded
with a string), encoders run with fixed settings.

Labels:
  photo     capture id: every file showing the same capture shares it
  burst     id shared by frames of one burst / video (and the Live Photo still
            of that video), else empty; different frames have different photo ids
  transform what was done to the photo's `original` export
  flat      1 for uniform black / white frames
"""
import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile

# --- sources ---------------------------------------------------------------
# (photo id, path under SRC_DIR).  One entry per distinct picture: corpus
# near-duplicates are represented once (seine_*: only the SDR JPEG; sample.tif ==
# indexed.png: only sample.tif; jpeg/orientation: only Landscape_1 and
# Portrait_1).  samsung_issue437_clap.heic is left out: libvips 8.14 "decodes"
# it to a uniform grey (tile errors, exit code 0), hence the std guard below.  Left out on
# purpose: tiny/flat/synthetic files (exiftool_IPTC/XMP 8x8, L_exif_xmp_iptc,
# grid_avif_800x600 (black), 16-bit-grey-alpha, rgba.png, rainbow,
# G31D_MULTI fax, parrot multispectral), graphics (iptc_reference_2019,
# exif_orientation_6.png), grid_960x640 (collage overlapping alpha_1440x960),
# animations (gif/, animation_lossy.webp), broken/, and a few photos to keep
# the set near 450 files (random_collection_1440x960, iphone_x_exif_gps.webp,
# samsung motion photo, thompson-springs).
PHOTOS = [
    ("avif_hdr_p3", "avif/10bit-HDR-P3-nclx.avif"),
    ("avif_example", "avif/example.avif"),
    ("hdr_apple_gainmap", "hdr/apple_gainmap_new.jpg"),
    ("hdr_paris", "hdr/paris_exif_xmp_gainmap_littleendian.jpg"),
    ("hdr_seine", "hdr/seine_sdr_gainmap_srgb.jpg"),
    ("heic_img1034", "heic/IMG_1034.heic"),
    ("heic_alpha_1440", "heic/alpha_1440x960.heic"),
    ("heic_candle", "heic/candle_animation.heic"),
    ("heic_iphone_xr", "heic/iphone_xr_issue263.heic"),
    ("heic_pug", "heic/pug.heic"),
    ("heic_samsung_200mp", "heic/samsung_200MP.heic"),
    ("heic_samsung_s10", "heic/samsung_s10_issue487.heic"),
    ("heic_xiaomi", "heic/xiaomi.heic"),
    ("jpeg_dscn0010", "jpeg/DSCN0010.jpg"),
    ("jpeg_dscn0021", "jpeg/DSCN0021.jpg"),
    ("jpeg_android_depth", "jpeg/android_depth_map.jpg"),
    ("jpeg_iphone4", "jpeg/apple_iphone_4.jpg"),
    ("jpeg_iphone6", "jpeg/apple_iphone_6.jpg"),
    ("jpeg_canon_7d", "jpeg/canon_eos_7d_iptc_city.jpg"),
    ("jpeg_cmyk", "jpeg/cmyk_Channel_digital_image.jpg"),
    ("jpeg_nikon_d5000", "jpeg/nikon_d5000_xmp_gps_only.jpg"),
    ("jpeg_nokia_lumia", "jpeg/nokia_lumia_800.jpg"),
    ("jpeg_landscape", "jpeg/orientation/Landscape_1.jpg"),
    ("jpeg_portrait", "jpeg/orientation/Portrait_1.jpg"),
    ("jpeg_gt_i9000_rot90", "jpeg/samsung_gt-i9000_gps00_rot90.jpg"),
    ("jpeg_ultra_hdr", "jpeg/ultra-hdr.jpg"),
    ("live_train_still", "livephoto/train.jpg"),
    ("png_macos_screenshot", "png/macos_screenshot_exif.png"),
    ("tiff_sample", "tiff/sample.tif"),
    ("webp_rose_alpha", "webp/alpha_lossless.webp"),
]
# The Live Photo still belongs to the same moment sequence as train.mov's frames.
PHOTO_BURST = {"live_train_still": "burst_train"}

# (burst id, video under SRC_DIR, frame times in seconds).  Skipped:
# with-gps_xyz.mp4 (0.1 s, 3 frames), quicktime-jpeg.mov (ffmpeg cannot decode
# it), sample.3gp (a logo animation, not a photo burst; late frames identical).
BURSTS = [
    ("burst_iphone6", "video/iphone6_with-gps.mov", [0.5, 1.0, 1.5, 2.0, 2.5]),
    ("burst_loci", "video/loci_gps_issue515.mp4", [0.4, 0.8, 1.2, 1.6, 2.0]),
    ("burst_xmp480", "video/xmp480qt.mov", [0.0, 0.25, 0.5, 0.75]),
    ("burst_train", "livephoto/train.mov", [0.0, 0.3, 0.6, 0.9, 1.2]),
]

FLAT_SIZES = [(640, 480), (1024, 768), (2048, 1536)]
MAX_SIDE = 2048

TRANSFORMS = ["original", "identical", "q60", "resize50", "png", "webp", "heic",
              "orient6", "stripped", "edited", "crop5", "crop10", "crop5_q70_resize"]


def run(*args, **kw):
    r = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (r.returncode, " ".join(map(str, args)), r.stderr))
    return r.stdout


def header(path, field):
    return run("vipsheader", "-f", field, path).strip()


def dims(path):
    return int(header(path, "width")), int(header(path, "height"))


def exif_set(path, *assignments):
    run("exiftool", "-q", "-q", "-m", "-overwrite_original", "-n", *assignments, path)


def to_srgb8(src_v, tmp, out_jpg, q=90):
    """Any vips image -> 3-band 8-bit sRGB JPEG (alpha flattened on white), metadata kept."""
    a = os.path.join(tmp, "cs.v")
    run("vips", "colourspace", src_v, a, "srgb")
    if int(header(a, "bands")) == 4:
        b = os.path.join(tmp, "flat.v")
        run("vips", "flatten", a, b, "--background", "255")
        a = b
    c = os.path.join(tmp, "u8.v")
    run("vips", "cast", a, c, "uchar")
    run("vips", "jpegsave", c, out_jpg, "--Q", q)


def export_original(src, out_jpg, tmp):
    """Upright, sRGB, q90, metadata kept, longest side <= 2048."""
    t = os.path.join(tmp, "thumb.v")
    run("vips", "thumbnail", src, t, MAX_SIDE, "--height", MAX_SIDE, "--size", "down",
        "--export-profile", "srgb")
    to_srgb8(t, tmp, out_jpg, 90)
    std = float(run("vips", "deviate", out_jpg).strip())
    if std < 8.0:
        raise RuntimeError("%s: export is nearly uniform (std %.1f): failed decode?" % (src, std))
    # thumbnail already turned the pixels upright; libvips 8.14 keeps the EXIF tag,
    # so reset IFD0 Orientation (IFD1 describes the untouched embedded thumbnail).
    exif_set(out_jpg, "-IFD0:Orientation=1")


def mean_abs_diff(a, b, tmp):
    d = os.path.join(tmp, "diff.v")
    run("vips", "subtract", a, b, d)
    e = os.path.join(tmp, "absd.v")
    run("vips", "abs", d, e)
    return float(run("vips", "avg", e).strip())


def crop_box(w, h, rng, frac):
    """Crop `frac` off one side, or off one horizontal and one vertical side."""
    mode = rng.choice(["l", "r", "t", "b", "lt", "lb", "rt", "rb"])
    dx, dy = int(round(w * frac)), int(round(h * frac))
    left = dx if "l" in mode else 0
    top = dy if "t" in mode else 0
    cw = w - (dx if ("l" in mode or "r" in mode) else 0)
    ch = h - (dy if ("t" in mode or "b" in mode) else 0)
    return left, top, max(1, cw), max(1, ch), mode


def make_photo(pid, orig_src, files_dir, tmp, rows, log):
    d = os.path.join(files_dir, pid)
    os.makedirs(d, exist_ok=True)
    rel = lambda name: os.path.join(pid, name)
    burst = PHOTO_BURST.get(pid, "")
    o = os.path.join(d, "original.jpg")
    export_original(orig_src, o, tmp)
    w, h = dims(o)
    out = {}
    out["original"] = "original.jpg"
    shutil.copyfile(o, os.path.join(d, "identical.jpg")); out["identical"] = "identical.jpg"
    run("vips", "jpegsave", o, os.path.join(d, "q60.jpg"), "--Q", 60); out["q60"] = "q60.jpg"
    r50 = os.path.join(tmp, "r50.v")
    run("vips", "resize", o, r50, 0.5)
    run("vips", "jpegsave", r50, os.path.join(d, "resize50.jpg"), "--Q", 90); out["resize50"] = "resize50.jpg"
    run("vips", "pngsave", o, os.path.join(d, "png.png")); out["png"] = "png.png"
    run("vips", "webpsave", o, os.path.join(d, "webp.webp"), "--Q", 85); out["webp"] = "webp.webp"
    run("vips", "heifsave", o, os.path.join(d, "heic.heic"), "--Q", 60, "--compression", "hevc"); out["heic"] = "heic.heic"
    # orient6: store pixels turned 90 deg counter-clockwise; Orientation=6 ("rotate
    # 90 CW to display") shows them upright again.
    rot = os.path.join(tmp, "rot.v")
    run("vips", "rot", o, rot, "d270")
    o6 = os.path.join(d, "orient6.jpg")
    run("vips", "jpegsave", rot, o6, "--Q", 90)
    exif_set(o6, "-IFD0:Orientation=6")
    ar = os.path.join(tmp, "autorot.v")
    run("vips", "autorot", o6, ar)
    if dims(ar) != (w, h):
        raise RuntimeError("%s: autorot of orient6 gives %s, original %s" % (pid, dims(ar), (w, h)))
    mad = mean_abs_diff(ar, o, tmp)
    if mad > 6.0:
        raise RuntimeError("%s: autorot(orient6) differs from original (mean |d| %.2f)" % (pid, mad))
    out["orient6"] = "orient6.jpg"
    s = os.path.join(d, "stripped.jpg")
    shutil.copyfile(o, s); run("exiftool", "-q", "-q", "-m", "-overwrite_original", "-all=", s)
    out["stripped"] = "stripped.jpg"
    e = os.path.join(d, "edited.jpg")
    shutil.copyfile(o, e)
    exif_set(e, "-Artist=Edited Artist (dupset)", "-DateTimeOriginal=2001:02:03 04:05:06",
             "-Copyright=(c) dupset edit test")
    out["edited"] = "edited.jpg"
    rng = random.Random("crop5:" + pid)
    l, t, cw, ch, mode = crop_box(w, h, rng, 0.05)
    c5 = os.path.join(tmp, "c5.v")
    run("vips", "crop", o, c5, l, t, cw, ch)
    run("vips", "jpegsave", c5, os.path.join(d, "crop5.jpg"), "--Q", 90); out["crop5"] = "crop5.jpg"
    log.append("%s crop5 %s -> %dx%d+%d+%d" % (pid, mode, cw, ch, l, t))
    dx, dy = int(round(w * 0.05)), int(round(h * 0.05))
    c10 = os.path.join(tmp, "c10.v")
    run("vips", "crop", o, c10, dx, dy, max(1, w - 2 * dx), max(1, h - 2 * dy))
    run("vips", "jpegsave", c10, os.path.join(d, "crop10.jpg"), "--Q", 90); out["crop10"] = "crop10.jpg"
    rng = random.Random("crop5_q70_resize:" + pid)
    l, t, cw, ch, mode = crop_box(w, h, rng, 0.05)
    c5b = os.path.join(tmp, "c5b.v")
    run("vips", "crop", o, c5b, l, t, cw, ch)
    c5r = os.path.join(tmp, "c5r.v")
    run("vips", "resize", c5b, c5r, 0.75)
    run("vips", "jpegsave", c5r, os.path.join(d, "crop5_q70_resize.jpg"), "--Q", 70)
    out["crop5_q70_resize"] = "crop5_q70_resize.jpg"
    log.append("%s crop5_q70_resize %s -> %dx%d+%d+%d then 75%%" % (pid, mode, cw, ch, l, t))
    for tr in TRANSFORMS:
        rows.append((rel(out[tr]), pid, burst, tr, "0"))


def make_bursts(src_dir, files_dir, tmp, rows, log):
    for bid, video, times in BURSTS:
        vpath = os.path.join(src_dir, video)
        d = os.path.join(files_dir, bid)
        os.makedirs(d, exist_ok=True)
        frames = []
        for t in times:
            png = os.path.join(tmp, "frame.png")
            if os.path.exists(png):
                os.remove(png)
            # ffmpeg applies the display matrix (rotation) by default -> upright frame
            run("ffmpeg", "-nostdin", "-v", "error", "-ss", "%.3f" % t, "-i", vpath,
                "-frames:v", "1", "-y", png)
            name = "frame_%05.2fs.jpg" % t
            to_srgb8(png, tmp, os.path.join(d, name), 90)
            pid = "%s_t%.2f" % (bid, t)
            rows.append((os.path.join(bid, name), pid, bid, "frame", "0"))
            frames.append((pid, name))
        # guard: consecutive frames must actually differ, else they are not distinct captures
        for (p1, n1), (p2, n2) in zip(frames, frames[1:]):
            mad = mean_abs_diff(os.path.join(d, n1), os.path.join(d, n2), tmp)
            log.append("%s %s vs %s mean|d|=%.2f" % (bid, n1, n2, mad))
            if mad < 0.5:
                raise RuntimeError("%s: frames %s and %s are identical" % (bid, n1, n2))
        pid, name = frames[len(frames) // 2]
        q = name.replace(".jpg", "_q60.jpg")
        run("vips", "jpegsave", os.path.join(d, name), os.path.join(d, q), "--Q", 60)
        rows.append((os.path.join(bid, q), pid, bid, "q60", "0"))


def make_flats(files_dir, tmp, rows):
    d = os.path.join(files_dir, "flat")
    os.makedirs(d, exist_ok=True)
    for colour, val in (("black", 0), ("white", 255)):
        for w, h in FLAT_SIZES:
            b = os.path.join(tmp, "black.v")
            run("vips", "black", b, w, h, "--bands", 3)
            f = os.path.join(tmp, "flat.v")
            run("vips", "linear", b, f, 1, val, "--uchar")
            for ext in ("jpg", "png"):
                name = "%s_%dx%d.%s" % (colour, w, h, ext)
                p = os.path.join(d, name)
                if ext == "jpg":
                    run("vips", "jpegsave", f, p, "--Q", 90)
                else:
                    run("vips", "pngsave", f, p)
                pid = "flat_%s_%dx%d_%s" % (colour, w, h, ext)
                rows.append((os.path.join("flat", name), pid, "", "flat", "1"))
    # byte-identical copies (the only flat pairs that may be grouped)
    for name in ("black_640x480.jpg", "white_1024x768.png"):
        base, ext = os.path.splitext(name)
        copy = base + "_copy" + ext
        shutil.copyfile(os.path.join(d, name), os.path.join(d, copy))
        pid = "flat_%s_%s" % (base, ext[1:])
        rows.append((os.path.join("flat", copy), pid, "", "identical", "1"))


def develop_raw(dng, tmp):
    """Return a TIFF developed from the DNG, or None (vips cannot develop raw)."""
    for tool in ("dcraw_emu", "dcraw"):
        if shutil.which(tool) is None:
            continue
        t = os.path.join(tmp, "raw.dng")
        shutil.copyfile(dng, t)
        try:
            run(tool, "-T", "-w", t)
        except RuntimeError:
            continue
        if os.path.exists(t + ".tiff"):
            return t + ".tiff", tool
        if os.path.exists(os.path.join(tmp, "raw.tiff")):
            return os.path.join(tmp, "raw.tiff"), tool
    return None, None


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--raw", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "..", "Tests", "Fixtures", "kinds", "images",
                                                  "raw_synthetic.dng"),
                    help="DNG to develop with dcraw_emu/dcraw ('' to skip)")
    a = ap.parse_args()
    files_dir = os.path.join(a.out_dir, "files")
    if os.path.exists(files_dir):
        shutil.rmtree(files_dir)
    os.makedirs(files_dir)
    rows, log, sources = [], [], []
    with tempfile.TemporaryDirectory(prefix="dupset-") as tmp:
        for pid, rel in PHOTOS:
            src = os.path.join(a.src_dir, rel)
            print("photo", pid, "<-", rel, file=sys.stderr)
            make_photo(pid, src, files_dir, tmp, rows, log)
            sources.append((pid, rel))
        if a.raw and os.path.exists(a.raw):
            tif, tool = develop_raw(a.raw, tmp)
            if tif:
                print("photo raw_synthetic <- %s via %s" % (a.raw, tool), file=sys.stderr)
                make_photo("raw_synthetic", tif, files_dir, tmp, rows, log)
                sources.append(("raw_synthetic", "%s (developed with %s -T -w)" % (a.raw, tool)))
            else:
                print("RAW skipped: no dcraw_emu/dcraw could develop %s" % a.raw, file=sys.stderr)
        make_bursts(a.src_dir, files_dir, tmp, rows, log)
        for bid, video, _ in BURSTS:
            sources.append((bid, video))
        make_flats(files_dir, tmp, rows)
    rows.sort()
    with open(os.path.join(a.out_dir, "labels.tsv"), "w") as f:
        f.write("path\tphoto\tburst\ttransform\tflat\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    with open(os.path.join(a.out_dir, "sources.tsv"), "w") as f:
        f.write("photo\tsource\n")
        for r in sources:
            f.write("\t".join(r) + "\n")
    with open(os.path.join(a.out_dir, "make.log"), "w") as f:
        f.write("\n".join(log) + "\n")
    # summary
    by_t = {}
    for r in rows:
        by_t[r[3]] = by_t.get(r[3], 0) + 1
    print("%d files, %d photo ids, %d bursts" % (len(rows), len({r[1] for r in rows}),
                                                  len({r[2] for r in rows if r[2]})), file=sys.stderr)
    for t in sorted(by_t):
        print("  %-18s %d" % (t, by_t[t]), file=sys.stderr)


if __name__ == "__main__":
    main()
