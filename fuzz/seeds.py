#!/usr/bin/env python3
"""Writes the header fuzzer's seed files into fuzz/corpus/header from the repository's samples.

Each seed is at most 64 KiB and keeps what the header readers look at: a JPEG's segments up to
the start of scan, a PNG's chunks up to its image data, an ISO-BMFF file's boxes with `mdat`
emptied; and the metadata blocks libvips hands over on their own (EXIF, XMP, IPTC, the Apple
MakerNote), as the fuzzer dispatches them by their first byte.
"""
import glob
import os
import struct

LIMIT = 64 << 10
OUT = "fuzz/corpus/header"
written = set()


def write(name, data):
    if len(data) <= LIMIT and data not in written:
        written.add(data)
        with open(os.path.join(OUT, name), "wb") as file:
            file.write(data)


def jpeg_segments(data):
    """(marker, whole segment) from SOI up to and including SOS; the scan that follows is dropped."""
    segments, offset = [], 2
    while offset + 4 <= len(data) and data[offset] == 0xFF:
        marker = data[offset + 1]
        length = struct.unpack(">H", data[offset + 2:offset + 4])[0]
        segments.append((marker, data[offset:offset + 2 + length]))
        if marker == 0xDA:
            break
        offset += 2 + length
    return segments


def jpeg_head(data):
    """The metadata segments and a token scan; the largest segments go first if it would not fit."""
    segments = jpeg_segments(data)
    scan = b"\x00" * 16 + b"\xFF\xD9"
    while sum(len(s) for _, s in segments) + 2 + len(scan) > LIMIT:
        segments.remove(max((s for s in segments if s[0] != 0xDA), key=lambda s: len(s[1])))
    return b"\xFF\xD8" + b"".join(s for _, s in segments) + scan


def metadata_blocks(stem, data):
    for marker, segment in jpeg_segments(data):
        payload = segment[4:]
        if marker == 0xE1 and payload.startswith(b"Exif\x00\x00"):
            write(f"block-exif-{stem}", payload)
            write(f"tiff-{stem}.tif", payload[6:])
            note = payload.find(b"Apple iOS\x00")
            if note >= 0:
                write(f"block-applemakernote-{stem}", payload[note:])
        elif marker == 0xE1 and payload.startswith(b"http://ns.adobe.com/xap/1.0/\x00"):
            write(f"block-xmp-{stem}.xml", payload[29:])
        elif marker == 0xED:
            write(f"block-iptc-{stem}", payload)


def iso_boxes(data):
    offset = 0
    while len(data) - offset >= 8:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
        elif size == 0:
            size = len(data) - offset
        if size < 8:
            return
        yield kind, data[offset:offset + size]
        offset += size


def iso_without_media(data):
    return b"".join(struct.pack(">I4s", 8, b"mdat") if kind == b"mdat" else box for kind, box in iso_boxes(data))


def png_head(data):
    chunks, offset = [data[:8]], 8
    while offset + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if kind in (b"IDAT", b"IEND"):
            break
        chunks.append(data[offset:offset + 12 + length])
        offset += 12 + length
    return b"".join(chunks) + struct.pack(">I4sI", 0, b"IEND", 0xAE426082)


def main():
    os.makedirs(OUT, exist_ok=True)
    small = glob.glob("Tests/Fixtures/kinds/*/*") + glob.glob("Tests/Fixtures/broken/*") + glob.glob("samples/*/*") \
        + glob.glob("Tests/Fixtures/metadata/*") + glob.glob("Tests/Fixtures/hdr/*") \
        + glob.glob("samples/jpeg/orientation/Landscape_[16].jpg")
    for path in sorted(p for p in small if os.path.isfile(p)):
        stem = os.path.basename(path)
        data = open(path, "rb").read()
        if stem == "MANIFEST.tsv" or not data:
            continue
        if data[:3] == b"\xFF\xD8\xFF":
            write(stem, data if len(data) <= LIMIT else jpeg_head(data))
            metadata_blocks(os.path.splitext(stem)[0], data)
        elif data[:8] == b"\x89PNG\r\n\x1a\n":
            write(stem, data if len(data) <= LIMIT else png_head(data))
        elif data[4:8] in (b"ftyp", b"wide", b"moov", b"mdat"):
            write(stem, data if len(data) <= LIMIT else iso_without_media(data))
        else:
            write(stem, data)  # GIF, WebP: the sniffer alone reads them
    for index, text in enumerate(["+51.4169-000.0806/", "+52.2097-000.8955+103.640/",
                                  "+3541.2308+13946.6115+035.123CRSWGS_84/", "-335152.5+1511230.2/"]):
        write(f"iso6709-{index}.txt", text.encode())


main()
