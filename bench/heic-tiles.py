#!/usr/bin/env python3
"""The HEVC stream of a HEIC's primary image, for the decode-only bound of libavcodec (`ffmpeg -f hevc`): the
parameter sets of its `hvcC`, then each tile's NAL units in grid order, as an Annex B elementary stream.

    bench/heic-tiles.py photo.heic photo.hevc

Reads only what the bound needs: `pitm`, `iinf`, `iloc` (construction method 0), `iref` `dimg`, `ipco`/`ipma`
`hvcC`. A file it cannot read this way (overlays, `idat` tiles…) is skipped with a message and exit 1."""
import struct
import sys


def boxes(data, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[start + 8:start + 16])[0], 16
        elif size == 0:
            size = end - start
        yield kind.decode("latin-1"), start + header, start + size
        start += size


def child(data, start, end, kind):
    return next(((s, e) for k, s, e in boxes(data, start, end) if k == kind), None)


def number(data, at, size):
    return int.from_bytes(data[at:at + size], "big") if size else 0


def read(path):
    data = open(path, "rb").read()
    meta = child(data, 0, len(data), "meta")
    start, end = meta[0] + 4, meta[1]
    version_at = lambda box: data[box[0]]
    pitm = child(data, start, end, "pitm")
    primary = number(data, pitm[0] + 4, 2 if version_at(pitm) == 0 else 4)
    iinf = child(data, start, end, "iinf")
    count_size = 2 if version_at(iinf) == 0 else 4
    types = {}
    for kind, s, e in boxes(data, iinf[0] + 4 + count_size, iinf[1]):
        version = data[s]
        id_size = 2 if version < 3 else 4
        item = number(data, s + 4, id_size)
        types[item] = data[s + 4 + id_size + 2:s + 4 + id_size + 6].decode("latin-1")
    iloc = child(data, start, end, "iloc")
    version, at = data[iloc[0]], iloc[0] + 4
    offset_size, length_size, base_size = data[at] >> 4, data[at] & 15, data[at + 1] >> 4
    index_size = data[at + 1] & 15 if version in (1, 2) else 0
    at += 2
    id_size = 2 if version < 2 else 4
    count = number(data, at, 2 if version < 2 else 4)
    at += 2 if version < 2 else 4
    locations = {}
    for _ in range(count):
        item = number(data, at, id_size)
        at += id_size
        method = 0
        if version in (1, 2):
            method = data[at + 1] & 15
            at += 2
        at += 2
        base = number(data, at, base_size)
        at += base_size
        extents = number(data, at, 2)
        at += 2
        spans = []
        for _ in range(extents):
            at += index_size
            offset = number(data, at, offset_size)
            at += offset_size
            length = number(data, at, length_size)
            at += length_size
            spans.append((base + offset, length))
        locations[item] = (method, spans)
    tiles = [primary]
    if types[primary] == "grid":
        iref = child(data, start, end, "iref")
        ref_size = 2 if version_at(iref) == 0 else 4
        for kind, s, e in boxes(data, iref[0] + 4, iref[1]):
            if kind == "dimg" and number(data, s, ref_size) == primary:
                n = number(data, s + ref_size, 2)
                tiles = [number(data, s + ref_size + 2 + i * ref_size, ref_size) for i in range(n)]
    if any(types.get(t) != "hvc1" or locations[t][0] != 0 for t in tiles):
        raise ValueError("not a grid of hvc1 tiles in the file")
    iprp = child(data, start, end, "iprp")
    ipco = child(data, iprp[0], iprp[1], "ipco")
    properties = list(boxes(data, ipco[0], ipco[1]))
    ipma = child(data, iprp[0], iprp[1], "ipma")
    version, flags = data[ipma[0]], number(data, ipma[0] + 1, 3)
    at = ipma[0] + 4
    entries = number(data, at, 4)
    at += 4
    hvcc = None
    for _ in range(entries):
        item = number(data, at, 2 if version < 1 else 4)
        at += 2 if version < 1 else 4
        n = data[at]
        at += 1
        for _ in range(n):
            value = number(data, at, 2 if flags & 1 else 1)
            at += 2 if flags & 1 else 1
            index = value & (0x7FFF if flags & 1 else 0x7F)
            if item == tiles[0] and index and properties[index - 1][0] == "hvcC":
                hvcc = data[properties[index - 1][1]:properties[index - 1][2]]
    return data, hvcc, [locations[t][1] for t in tiles]


def annex_b(data, hvcc, tiles):
    out = bytearray()
    length_size = (hvcc[21] & 3) + 1
    at, arrays = 23, hvcc[22]
    for _ in range(arrays):
        n = number(hvcc, at + 1, 2)
        at += 3
        for _ in range(n):
            size = number(hvcc, at, 2)
            out += b"\0\0\0\1" + hvcc[at + 2:at + 2 + size]
            at += 2 + size
    for spans in tiles:
        coded = b"".join(data[o:o + n] for o, n in spans)
        at = 0
        while at + length_size <= len(coded):
            size = number(coded, at, length_size)
            out += b"\0\0\0\1" + coded[at + length_size:at + length_size + size]
            at += length_size + size
    return bytes(out)


if __name__ == "__main__":
    try:
        data, hvcc, tiles = read(sys.argv[1])
    except (ValueError, KeyError, TypeError, IndexError) as error:
        sys.exit(f"{sys.argv[1]}: {error}")
    open(sys.argv[2], "wb").write(annex_b(data, hvcc, tiles))
