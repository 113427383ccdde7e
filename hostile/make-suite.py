#!/usr/bin/env python3
"""Generates mediabatch's hostile-input suite into DEST (python3 standard library only).

    hostile/make-suite.py DEST [--corpus DIR]

Every random choice comes from a generator seeded with SEED and the category name, so the same
corpus always gives the same suite, byte for byte. DEST/SUITE.tsv lists every generated path with
its category, what mediabatch should do with it, and how it was made. See hostile/README.md.
"""

import argparse
import csv
import os
import random
import socket
import stat
import struct
import sys
import zlib
from pathlib import Path

SEED = 20261121
REPO = Path(__file__).resolve().parent.parent

MEDIA_EXTENSIONS = ["jpg", "png", "heic", "gif", "webp", "tif", "mov", "mp4", "avif"]
# Truncated copies of bigger files would add little but size.
MAX_TRUNCATION_SOURCE_BYTES = 30 * 1024 * 1024
# Header flips copy the whole file each time: keep the suite a few hundred MB.
MAX_FLIP_SOURCE_BYTES = 2 * 1024 * 1024
FLIPS_PER_SOURCE_IN_FIRST_4K = 2
# Mutants per header structure, spread over the corpus files that have the structure.
STRUCTURE_MUTANTS = {
    "jpeg-app1": 80, "jpeg-sof": 40, "png-ihdr": 30, "png-exif": 20,
    "heif-ftyp": 20, "heif-meta": 60, "heif-iloc": 40,
    "mov-moov": 40, "mov-metadata": 40, "tiff-ifd0": 20,
}
# (label, how many of a file's bytes are kept)
TRUNCATIONS = [("first-1B", lambda size: 1), ("first-100B", lambda size: 100),
               ("first-10pct", lambda size: size // 10), ("first-50pct", lambda size: size // 2),
               ("first-90pct", lambda size: size * 9 // 10), ("last-byte-missing", lambda size: size - 1)]

# What mediabatch should do; the runner compares the report with it.
FAIL = "fail"                       # status failed, with an error code
OK = "ok"                           # status ok, one readable output
OK_OR_FAIL = "ok-or-fail"           # either, but never a crash, a hang or a partial output
REPORTED = "reported"               # listed with a reason (failed or skipped), never read as media


def sniff(data):
    """The format from the first bytes, as mediabatch's FormatSniffer decides it."""
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if data[4:8] == b"ftyp":
        brands = {data[i:i + 4] for i in range(8, min(len(data), 64) - 3, 4)}
        if brands & {b"avif", b"avis", b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}:
            return "heif"
        return "mov"
    if data[4:8] in (b"wide", b"mdat", b"moov", b"free", b"skip", b"pnot"):
        return "mov"
    return None


# --- structure finders: each yields (start, end) byte ranges of one kind of header structure ---

def jpeg_segments(data):
    """(marker, start, end) of every marker segment up to and including the start of scan."""
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0xD8 or 0xD0 <= marker <= 0xD7:  # markers without a length
            pos += 2
            continue
        end = pos + 2 + int.from_bytes(data[pos + 2:pos + 4], "big")
        yield marker, pos, min(end, len(data))
        if marker == 0xDA:
            return
        pos = end


def is_start_of_frame(marker):
    return 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC)


def png_chunks(data):
    """(type, start, end) of every chunk, from its length field to the end of its CRC."""
    pos = 8
    while pos + 12 <= len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        end = pos + 12 + length
        if end > len(data):
            return
        yield data[pos + 4:pos + 8], pos, end
        pos = end


def iso_boxes(data, start, end):
    """(type, start, end, content start) of the ISO-BMFF boxes in data[start:end]."""
    pos = start
    while pos + 8 <= end:
        size = int.from_bytes(data[pos:pos + 4], "big")
        header = 8
        if size == 1:
            size, header = int.from_bytes(data[pos + 8:pos + 16], "big"), 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            return
        yield data[pos + 4:pos + 8], pos, pos + size, pos + header
        pos += size


# Boxes whose content is more boxes.
ISO_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"udta", b"edts", b"meta", b"iprp", b"ipco", b"dinf"}


def iso_children_start(data, kind, content):
    """ISO `meta` is a full box (4 bytes of version and flags before its children); QuickTime's
    `moov/meta` is not, and starts straight with its `hdlr` box."""
    if kind == b"meta" and data[content + 4:content + 8] != b"hdlr":
        return content + 4
    return content


def iso_box_ranges(data, wanted, start=0, end=None):
    """Ranges of every box of a type in `wanted`, at any depth inside known containers."""
    end = len(data) if end is None else end
    for kind, box_start, box_end, content in iso_boxes(data, start, end):
        if kind in wanted:
            yield box_start, box_end
        if kind in ISO_CONTAINERS:
            yield from iso_box_ranges(data, wanted, iso_children_start(data, kind, content), box_end)


def tiff_ifd0(data):
    """The range of IFD0: entry count, entries and the next-IFD offset."""
    order = "little" if data[:2] == b"II" else "big"
    offset = int.from_bytes(data[4:8], order)
    if offset + 2 > len(data):
        return []
    count = int.from_bytes(data[offset:offset + 2], order)
    return [(offset, min(len(data), offset + 2 + 12 * count + 4))]


def png_fix_crc(data, start, end):
    """Recomputes the CRC of the chunk at data[start:end], so a reader gets past the CRC check."""
    body = bytes(data[start + 4:end - 4])
    data[end - 4:end] = struct.pack(">I", zlib.crc32(body))


def structure_ranges(structure, data):
    fmt = sniff(data)
    if structure == "jpeg-app1" and fmt == "jpeg":
        return [(s, e) for m, s, e in jpeg_segments(data) if m == 0xE1]
    if structure == "jpeg-sof" and fmt == "jpeg":
        return [(s, e) for m, s, e in jpeg_segments(data) if is_start_of_frame(m)]
    if structure == "png-ihdr" and fmt == "png":
        return [(s, e) for t, s, e in png_chunks(data) if t == b"IHDR"]
    if structure == "png-exif" and fmt == "png":
        return [(s, e) for t, s, e in png_chunks(data) if t == b"eXIf"]
    if structure == "heif-ftyp" and fmt == "heif":
        return list(iso_box_ranges(data, {b"ftyp"}))
    if structure == "heif-meta" and fmt == "heif":
        return [(s, e) for t, s, e, _ in iso_boxes(data, 0, len(data)) if t == b"meta"]
    if structure == "heif-iloc" and fmt == "heif":
        return list(iso_box_ranges(data, {b"iloc"}))
    if structure == "mov-moov" and fmt == "mov":
        return [(s, e) for t, s, e, _ in iso_boxes(data, 0, len(data)) if t == b"moov"]
    if structure == "mov-metadata" and fmt == "mov":
        # Where location sits and mediabatch's own parsers edit it in place.
        return list(iso_box_ranges(data, {b"udta", b"meta", b"keys", b"ilst"}))
    if structure == "tiff-ifd0" and fmt == "tiff":
        return tiff_ifd0(data)
    return []


def flip(data, rng, start, end):
    """XORs 1–8 random bytes of data[start:end] with non-zero values; returns the flipped offsets."""
    offsets = sorted(rng.sample(range(start, end), min(end - start, rng.randint(1, 8))))
    for offset in offsets:
        data[offset] ^= rng.randint(1, 255)
    return offsets


# --- synthetic files ---

def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_header_bomb(width, height):
    """A valid PNG header claiming width × height, with one tiny IDAT."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(b"\x00" * 16))
            + png_chunk(b"IEND", b""))


def png_of_zeros(width, height):
    """A real, complete greyscale PNG of black pixels: width × height bytes deflated to a few hundred KB."""
    compressor = zlib.compressobj(9)
    row = b"\x00" * (width + 1)  # filter byte + pixels
    idat = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")


def jpeg_claiming(source, width, height):
    """A real JPEG whose start-of-frame claims width × height; the scan still holds the small image."""
    data = bytearray(source)
    start = next(s for m, s, _ in jpeg_segments(source) if is_start_of_frame(m))
    data[start + 5:start + 9] = struct.pack(">HH", height, width)
    return bytes(data)


# The image data of a 1×1 GIF frame: LZW minimum code size 2, codes clear, 0, end.
GIF_ONE_PIXEL_DATA = b"\x02\x02\x44\x01\x00"


def gif(screen_width, screen_height, frames):
    """A GIF89a looping animation of `frames` 1×1 frames scattered over the screen."""
    header = b"GIF89a" + struct.pack("<HHBBB", screen_width, screen_height, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    frame_bytes = []
    for index in range(frames):
        control = b"\x21\xf9\x04\x00" + struct.pack("<H", 1) + b"\x00\x00"  # 10 ms per frame
        x, y = index % screen_width, (index // screen_width) % screen_height
        descriptor = b"\x2c" + struct.pack("<HHHHB", x, y, 1, 1, 0)
        frame_bytes.append(control + descriptor + GIF_ONE_PIXEL_DATA)
    return header + loop + b"".join(frame_bytes) + b"\x3b"


def tiff(width, height, pixel_bytes=64, strip_count_claimed=1, ifd_loops=False):
    """A little-endian greyscale TIFF of one strip of `pixel_bytes` zeros. `strip_count_claimed`
    makes StripOffsets and StripByteCounts claim that many values; `ifd_loops` points IFD0's
    next-IFD offset and an ExifIFD pointer back at IFD0 (a loop for readers that follow them)."""
    ifd_offset = 8 + pixel_bytes
    entries = [  # tag, type (3 short, 4 long), count, value; in tag order
        (256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
        (273, 4, strip_count_claimed, 8), (277, 3, 1, 1), (278, 4, 1, height),
        (279, 4, strip_count_claimed, pixel_bytes),
    ]
    if ifd_loops:
        entries.append((0x8769, 4, 1, ifd_offset))
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        ifd += struct.pack("<HHII", tag, kind, count, value)
    ifd += struct.pack("<I", ifd_offset if ifd_loops else 0)
    return b"II*\x00" + struct.pack("<I", ifd_offset) + b"\x00" * pixel_bytes + ifd


def jpeg_with_exif_ifd_loop(source):
    """A real JPEG whose EXIF is replaced by one where IFD0's ExifIFD pointer points at IFD0 itself
    and IFD0's next-IFD offset does too."""
    tiff_header = b"II*\x00" + struct.pack("<I", 8)
    ifd0 = struct.pack("<H", 2)
    ifd0 += struct.pack("<HHII", 0x0112, 3, 1, 1)      # Orientation 1
    ifd0 += struct.pack("<HHII", 0x8769, 4, 1, 8)      # ExifIFD -> IFD0
    ifd0 += struct.pack("<I", 8)                       # next IFD -> IFD0
    payload = b"Exif\x00\x00" + tiff_header + ifd0
    app1 = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    segments = list(jpeg_segments(source))  # up to the start of scan; the entropy-coded data follows
    kept = b"".join(source[start:end] for marker, start, end in segments if marker != 0xE1)
    return b"\xff\xd8" + app1 + kept + source[segments[-1][2]:]


def mov_nested_boxes(depth):
    """A QuickTime file whose moov holds `depth` trak boxes nested one in another: a stack
    overflow for parsers that recurse without a limit."""
    inner = b""
    for _ in range(depth):
        inner = struct.pack(">I", 8 + len(inner)) + b"trak" + inner
    moov = struct.pack(">I", 8 + len(inner)) + b"moov" + inner
    return struct.pack(">I", 20) + b"ftypqt  \x00\x00\x02\x00qt  " + moov


class Suite:
    def __init__(self, dest, corpus_files):
        self.dest = dest
        self.rows = []
        self.corpus = corpus_files  # [(relative name, Path)], sorted

    def path(self, relative):
        target = self.dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def add(self, relative, data, category, expected, how):
        self.path(relative).write_bytes(data)
        self.rows.append((relative, category, expected, how))

    def note(self, relative, category, expected, how):
        self.rows.append((relative, category, expected, how))

    def sources(self, formats, max_bytes=None):
        return [(name, path) for name, path in self.corpus
                if sniff(path.read_bytes()[:64]) in formats and (max_bytes is None or path.stat().st_size <= max_bytes)]

    def smallest(self, fmt, having=lambda data: True):
        """(name, bytes) of the smallest corpus file of a format that has what is asked, or None."""
        candidates = sorted(((p.stat().st_size, n, p) for n, p in self.sources({fmt})), key=lambda c: (c[0], c[1]))
        for _, name, path in candidates:
            data = path.read_bytes()
            if having(data):
                return name, data
        return None

    def photo(self):
        """A real JPEG for the cases that need one ordinary file: over 50 KB when there is one."""
        found = self.smallest("jpeg", lambda d: len(d) > 50_000) or self.smallest("jpeg")
        if not found:
            sys.exit("make-suite: the corpus has no JPEG")
        return found

    def write_manifest(self):
        with open(self.dest / "SUITE.tsv", "w", newline="") as manifest:
            writer = csv.writer(manifest, delimiter="\t", lineterminator="\n")
            writer.writerow(["path", "category", "expected", "how"])
            writer.writerows(sorted(self.rows))


def extension_of(name, data):
    """Keeps the source's own extension, so names never lie unless a category means them to."""
    return Path(name).suffix.lstrip(".").lower() or {"heif": "heic", "jpeg": "jpg", "tiff": "tif"}.get(sniff(data), "bin")


def make_empty(suite):
    for ext in MEDIA_EXTENSIONS:
        suite.add(f"empty/empty.{ext}", b"", "empty", FAIL, f"zero bytes named .{ext}")


def truncation_expected(fmt, label):
    """Cut to 1 or 100 bytes, nothing is left to decode. Cut later, a JPEG or PNG loses pixel data
    and a movie its media, but a GIF, WebP, TIFF or HEIF may lose only what follows the first image
    (frames, pages, a sequence track, a motion photo's video), and mediabatch decodes only that."""
    if label in ("first-1B", "first-100B"):
        return FAIL
    if label == "last-byte-missing" or fmt in ("gif", "webp", "tiff", "heif"):
        return OK_OR_FAIL
    return FAIL


def make_truncated(suite):
    for name, path in suite.sources({"jpeg", "png", "gif", "webp", "tiff", "heif", "mov"}, MAX_TRUNCATION_SOURCE_BYTES):
        data = path.read_bytes()
        stem, ext = str(Path(name).with_suffix("")), extension_of(name, data)
        for label, kept in TRUNCATIONS:
            length = kept(len(data))
            suite.add(f"truncated/{stem}.{label}.{ext}", data[:length], "truncated", truncation_expected(sniff(data), label),
                      f"{name} cut to its first {length} of {len(data)} bytes")


def make_header_flips(suite):
    rng = random.Random(f"{SEED}:first-4k")
    for name, path in suite.sources({"jpeg", "png", "gif", "webp", "tiff", "heif", "mov"}, MAX_FLIP_SOURCE_BYTES):
        source = path.read_bytes()
        stem, ext = str(Path(name).with_suffix("")), extension_of(name, source)
        for index in range(FLIPS_PER_SOURCE_IN_FIRST_4K):
            data = bytearray(source)
            offsets = flip(data, rng, 0, min(4096, len(data)))
            suite.add(f"header-flips/first-4k/{stem}.{index}.{ext}", bytes(data), "header-flip", OK_OR_FAIL,
                      f"{name} with bytes {offsets} XORed")
    for structure, count in STRUCTURE_MUTANTS.items():
        rng = random.Random(f"{SEED}:{structure}")
        eligible = []
        for name, path in suite.sources({"jpeg", "png", "tiff", "heif", "mov"}, MAX_FLIP_SOURCE_BYTES):
            source = path.read_bytes()
            ranges = structure_ranges(structure, source)
            if ranges:
                eligible.append((name, source, ranges))
        if not eligible:
            print(f"make-suite: no corpus file has {structure}; skipped", file=sys.stderr)
            continue
        for index in range(count):
            name, source, ranges = eligible[index % len(eligible)]  # every eligible file, in turn
            start, end = rng.choice(ranges)
            data = bytearray(source)
            offsets = flip(data, rng, start, end)
            how = f"{name} with bytes {offsets} of {structure} [{start}, {end}) XORed"
            # Half the PNG mutants get a correct CRC, so decoders read the flipped values instead of stopping at the CRC.
            if structure.startswith("png-") and (structure == "png-exif" or index % 2):
                png_fix_crc(data, start, end)
                how += ", chunk CRC recomputed"
            stem, ext = str(Path(name).with_suffix("")), extension_of(name, source)
            suite.add(f"header-flips/{structure}/{stem}.{index:03d}.{ext}", bytes(data), "header-flip", OK_OR_FAIL, how)


def make_bombs(suite):
    category = "bomb"
    suite.add("bombs/png-100000x100000-header.png", png_header_bomb(100_000, 100_000), category, FAIL,
              "valid IHDR (correct CRC) claiming 100 000 × 100 000 RGB, 16 zero bytes of IDAT: over maxPixels")
    suite.add("bombs/png-20000x20000-zeros.png", png_of_zeros(20_000, 20_000), category, FAIL,
              "complete 400 MP greyscale PNG of zeros (400 MB of pixels deflated, 1032 pixels a byte): a bomb")
    suite.add("bombs/png-16000x16000-zeros.png", png_of_zeros(16_000, 16_000), category, OK_OR_FAIL,
              "complete 256 MP greyscale PNG of zeros: just under a whole frame's maxPixels (268 402 689), so it is decoded")
    jpeg_name, jpeg_source = (suite.smallest("jpeg", lambda d: any(m == 0xC0 for m, _, _ in jpeg_segments(d)))
                              or sys.exit("make-suite: the corpus has no baseline (SOF0) JPEG"))
    suite.add("bombs/jpeg-65500x65500-sof.jpg", jpeg_claiming(jpeg_source, 65_500, 65_500), category, FAIL,
              f"{jpeg_name} with SOF0 patched to claim 65 500 × 65 500: over maxPixels")
    suite.add("bombs/jpeg-16000x16000-sof.jpg", jpeg_claiming(jpeg_source, 16_000, 16_000), category, FAIL,
              f"{jpeg_name} with SOF0 patched to claim 16 000 × 16 000 (under maxPixels): the scan ends early")
    suite.add("bombs/jpeg-exif-ifd-loop.jpg", jpeg_with_exif_ifd_loop(jpeg_source), category, OK_OR_FAIL,
              f"{jpeg_name} with an EXIF block whose ExifIFD pointer and next-IFD offset point back at IFD0")
    suite.add("bombs/gif-10000-frames.gif", gif(64, 64, 10_000), category, OK_OR_FAIL,
              "64 × 64 looping GIF of 10 000 1×1 frames")
    suite.add("bombs/gif-65535x65535-screen.gif", gif(65_535, 65_535, 1), category, OK_OR_FAIL,
              "GIF whose logical screen is 65 535 × 65 535, one 1×1 frame (libvips 8.14 sizes it by its frame: 1×1)")
    suite.add("bombs/tiff-100000x100000-header.tif", tiff(100_000, 100_000), category, FAIL,
              "TIFF claiming 100 000 × 100 000 with one 64-byte strip: over maxPixels")
    suite.add("bombs/tiff-4000000000-strips.tif", tiff(1000, 1000, strip_count_claimed=4_000_000_000), category, FAIL,
              "1000 × 1000 TIFF whose StripOffsets and StripByteCounts claim 4 000 000 000 values")
    suite.add("bombs/tiff-ifd-loop.tif", tiff(64, 64, pixel_bytes=64 * 64, ifd_loops=True), category, OK_OR_FAIL,
              "complete 64 × 64 TIFF whose next-IFD offset and ExifIFD pointer point back at IFD0")
    suite.add("bombs/mov-100000-nested-boxes.mov", mov_nested_boxes(100_000), category, FAIL,
              "QuickTime ftyp + moov holding 100 000 trak boxes nested one in another, no media")


def make_wrong_extensions(suite):
    category = "wrong-extension"
    for fmt, target in [("jpeg", "jpeg-named.png"), ("png", "png-named.heic"), ("heif", "heic-named.jpg"),
                        ("mov", "mov-named.jpg")]:
        # A QuickTime movie, not an MP4 (both sniff as "mov" here).
        found = suite.smallest(fmt, lambda d: fmt != "mov" or d[8:12] == b"qt  ")
        if not found:
            print(f"make-suite: the corpus has no {fmt} file for {target}; skipped", file=sys.stderr)
            continue
        name, data = found
        suite.add(f"wrong-extension/{target}", data, category, FAIL,
                  f"{name} ({fmt}); formatMismatch under the default input.extensionMismatch \"fail\"")
    suite.add("wrong-extension/text-named.jpg", b"This is not a JPEG.\n" * 50, category, FAIL,
              "plain text named .jpg: unsupportedFormat")
    suite.add("wrong-extension/text-named.heic", b"ftyp is not here\n" * 50, category, FAIL,
              "plain text named .heic: unsupportedFormat")


def make_links(suite):
    category = "symlink"
    links = suite.dest / "links"
    links.mkdir(parents=True)
    _, photo = suite.photo()
    os.symlink("loop-b.jpg", links / "loop-a.jpg")
    os.symlink("loop-a.jpg", links / "loop-b.jpg")
    suite.note("links/loop-a.jpg", category, REPORTED, "symlink -> loop-b.jpg -> loop-a.jpg (ELOOP)")
    suite.note("links/loop-b.jpg", category, REPORTED, "symlink -> loop-a.jpg -> loop-b.jpg (ELOOP)")
    os.symlink("does-not-exist.jpg", links / "dangling.jpg")
    suite.note("links/dangling.jpg", category, REPORTED, "symlink to a missing file")
    suite.add("links/dir-loop/photo.jpg", photo, category, OK, "a real JPEG beside a folder symlink to its own folder")
    (links / "dir-loop" / "inner").mkdir()
    os.symlink("..", links / "dir-loop" / "inner" / "to-parent")
    suite.note("links/dir-loop/inner/to-parent", category, REPORTED,
               "folder symlink -> .. (dir-loop): following it finds photo.jpg again, and inner/to-parent again, until ELOOP")
    os.symlink("/etc/passwd", links / "to-etc-passwd.jpg")
    suite.note("links/to-etc-passwd.jpg", category, REPORTED, "symlink leaving the input root -> /etc/passwd")
    outside = next(path for name, path in suite.corpus if sniff(path.read_bytes()[:64]) == "jpeg").resolve()
    os.symlink(outside, links / "to-outside-image.jpg")
    suite.note("links/to-outside-image.jpg", category, REPORTED, f"symlink leaving the input root -> {outside}")


def make_special_files(suite):
    category = "special-file"
    special = suite.dest / "special"
    special.mkdir(parents=True)
    os.mkfifo(special / "fifo.jpg")
    suite.note("special/fifo.jpg", category, REPORTED, "FIFO with no writer: opening it for reading blocks forever")
    try:
        os.mknod(special / "char-device-zero.jpg", 0o644 | stat.S_IFCHR, os.makedev(1, 5))
        suite.note("special/char-device-zero.jpg", category, REPORTED,
                   "character device 1:5 (/dev/zero): reads never end")
    except PermissionError as error:
        print(f"make-suite: cannot make a character device ({error}); skipped", file=sys.stderr)
    with socket.socket(socket.AF_UNIX) as unix_socket:
        unix_socket.bind(str(special / "socket.jpg"))
    suite.note("special/socket.jpg", category, REPORTED, "Unix socket: open(2) fails with ENXIO")
    _, photo = suite.photo()
    as_root = os.geteuid() == 0
    root_note = " (generated as root: root still reads it, so this tests nothing unless run as another user)" if as_root else ""
    suite.add("special/unreadable.jpg", photo, category, OK if as_root else FAIL, "real JPEG, mode 000" + root_note)
    os.chmod(special / "unreadable.jpg", 0)
    suite.add("special/unreadable-folder/photo.jpg", photo, category, OK if as_root else REPORTED,
              "real JPEG in a folder of mode 000" + root_note)
    os.chmod(special / "unreadable-folder", 0)
    if as_root:
        print("make-suite: running as root, so the mode-000 file and folder stay readable", file=sys.stderr)


def make_vanishing(suite):
    """Files (category "vanishing") that the runner moves out of the input root once mediabatch
    opens the first file of their folder: by then the folder is listed (mediabatch lists a whole
    folder before its first item) and twenty real JPEGs (category "control", which also show that
    plain files go through) still stand before them, so they are listed but not yet read."""
    _, photo = suite.photo()
    for index in range(20):
        suite.add(f"vanishing/a-{index:02d}.jpg", photo, "control", OK, "real JPEG, processed before the vanishing files")
    _, heic = suite.smallest("heif") or suite.photo()
    suite.add("vanishing/z-vanishes.jpg", photo, "vanishing", REPORTED, "moved away by the runner mid-run")
    suite.add("vanishing/z-vanishes.heic", heic, "vanishing", REPORTED, "moved away by the runner mid-run")


def corpus_files(corpus):
    """Media files of the corpus: MANIFEST.tsv's images and videos (its deliberately broken files
    are left out), or every media-named file when there is no manifest."""
    manifest = corpus / "MANIFEST.tsv"
    with open(manifest, newline="") if manifest.is_file() else open(os.devnull) as rows:
        listed = list(csv.DictReader(rows, delimiter="\t"))
    if listed and "media_kind" in listed[0]:
        names = [row["path"] for row in listed if not row["media_kind"].startswith("broken")]
    else:
        extensions = {"." + ext for ext in MEDIA_EXTENSIONS} | {".jpeg", ".heif", ".hif", ".3gp", ".tiff"}
        names = [str(path.relative_to(corpus)) for path in corpus.rglob("*")
                 if path.is_file() and not path.is_symlink() and path.suffix.lower() in extensions]
    return sorted((name, corpus / name) for name in names if (corpus / name).is_file())


def default_corpus():
    shared = REPO.parent / "shared" / "corpus"
    if shared.is_dir():
        return [("", shared)]
    return [("samples/", REPO / "samples"), ("fixtures/", REPO / "Tests" / "Fixtures")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--corpus", type=Path, help="default: ../shared/corpus, else samples/ and Tests/Fixtures/")
    args = parser.parse_args()
    if args.dest.exists() and any(args.dest.iterdir()):
        sys.exit(f"make-suite: {args.dest} is not empty; remove it first")
    roots = [("", args.corpus)] if args.corpus else default_corpus()
    files = [(prefix + name, path) for prefix, root in roots for name, path in corpus_files(root)]
    if not files:
        sys.exit("make-suite: no media files in the corpus")
    args.dest.mkdir(parents=True, exist_ok=True)
    suite = Suite(args.dest.resolve(), files)
    for make in (make_empty, make_truncated, make_header_flips, make_bombs, make_wrong_extensions,
                 make_links, make_special_files, make_vanishing):
        make(suite)
    suite.write_manifest()  # last: its presence says the suite is complete
    total = sum(os.lstat(os.path.join(folder, name)).st_size
                for folder, _, names in os.walk(suite.dest) for name in names)
    counts = {}
    for _, category, _, _ in suite.rows:
        counts[category] = counts.get(category, 0) + 1
    print(f"make-suite: {len(suite.rows)} paths in {suite.dest} ({total / 2**20:.0f} MiB): "
          + ", ".join(f"{n} {c}" for c, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
