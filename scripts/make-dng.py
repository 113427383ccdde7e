#!/usr/bin/env python3
"""Makes a developable DNG from a real photo, for the RAW tests and bench/ (no camera's RAW is committed).

  make-dng.py SOURCE OUT [--width PX] [--orientation N] [--preview PX] [--preview-orientation N] [--gps]
              [--baseline-exposure EV] [--truncate FRACTION] [--broken-preview] [--empty-sensor-data]

The photo (resized so its longest side is --width) is taken back to linear light, through a known
camera: linear sRGB primaries seen with gains (0.55, 1, 0.7) — ColorMatrix1 says so and AsShotNeutral
is that white — and sampled as an RGGB colour filter array of 14-bit values. Laid out as cameras lay
a DNG out: IFD0 a 256 px RGB thumbnail with the camera's tags, EXIF (and --gps: a GPS directory,
49°10'48"N 0°22'12"W), SubIFD 1 the CFA, SubIFD 2 (--preview PX, longest side) the photo as a JPEG,
stored like the sensor data (unturned) and carrying its own EXIF orientation (--preview-orientation),
as some cameras' previews do. --orientation is the RAW's own; the sensor data comes last, and --truncate
keeps only that fraction of it; --empty-sensor-data keeps 16 bytes of it and says that is all;
--broken-preview cuts the preview's JPEG in half. Needs numpy and pyvips (the tests' venv).
"""
import argparse
import struct

import numpy
import pyvips

GAINS = (0.55, 1.0, 0.7)
WHITE = 16383
# XYZ (D65) to linear sRGB.
XYZ_TO_SRGB = numpy.array([[3.2404542, -1.5371385, -0.4985314],
                           [-0.9692660, 1.8760108, 0.0415560],
                           [0.0556434, -0.2040259, 1.0572252]])


def linear(srgb):
    srgb = srgb / 255.0
    return numpy.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def mosaic(photo):
    """RGGB samples of the photo as the camera above sees it."""
    rgb = linear(photo.astype(numpy.float64)) * numpy.array(GAINS)
    height, width = rgb.shape[:2]
    cfa = numpy.empty((height, width), numpy.float64)
    cfa[0::2, 0::2] = rgb[0::2, 0::2, 0]
    cfa[0::2, 1::2] = rgb[0::2, 1::2, 1]
    cfa[1::2, 0::2] = rgb[1::2, 0::2, 1]
    cfa[1::2, 1::2] = rgb[1::2, 1::2, 2]
    return numpy.clip(numpy.rint(cfa * WHITE), 0, WHITE).astype('<u2')


def rationals(values):
    return [(int(round(value * 10000)), 10000) for value in values]


class TIFF:
    """A little-endian TIFF written front to back: blobs first, then directories (children before parents)."""
    TYPES = {'byte': (1, 'B'), 'ascii': (2, 'B'), 'short': (3, 'H'), 'long': (4, 'I'), 'rational': (5, 'II'),
             'srational': (10, 'ii')}

    def __init__(self):
        self.data = bytearray(b'II*\0\0\0\0\0')

    def blob(self, payload):
        self.align()
        offset = len(self.data)
        self.data += payload
        return offset

    def align(self):
        if len(self.data) % 2:
            self.data += b'\0'

    def directory(self, entries):
        """entries: (tag, type, values); returns the directory's offset."""
        self.align()
        start = len(self.data)
        overflow_at = start + 2 + 12 * len(entries) + 4
        table, overflow = bytearray(struct.pack('<H', len(entries))), bytearray()
        for tag, kind, values in sorted(entries, key=lambda entry: entry[0]):
            code, form = self.TYPES[kind]
            if kind == 'ascii':
                values = list(values.encode() + b'\0')
            flat = [part for value in values for part in (value if isinstance(value, tuple) else (value,))]
            payload = struct.pack('<' + form[0] * len(flat), *flat)
            if len(payload) <= 4:
                field = payload.ljust(4, b'\0')
            else:
                field = struct.pack('<I', overflow_at + len(overflow))
                overflow += payload + (b'\0' if len(payload) % 2 else b'')
            table += struct.pack('<HHI', tag, code, len(values)) + field
        self.data += table + b'\0\0\0\0' + overflow
        return start

    def finish(self, ifd0):
        self.data[4:8] = struct.pack('<I', ifd0)
        return bytes(self.data)


def make(arguments):
    photo = pyvips.Image.new_from_file(arguments.source).autorot()
    photo = photo.thumbnail_image(arguments.width, height=arguments.width)
    photo = photo[:3] if photo.bands > 3 else photo
    width, height = photo.width & ~1, photo.height & ~1
    photo = photo.crop(0, 0, width, height).copy_memory()
    pixels = numpy.ndarray(buffer=photo.write_to_memory(), dtype=numpy.uint8, shape=(height, width, 3))
    cfa = mosaic(pixels).tobytes()
    # The sensor data last, as cameras write it (a cut-off file loses pixels, not directories):
    # laid out once to learn where it goes.
    sensor_bytes = 16 if arguments.empty_sensor_data else len(cfa)
    head = layout(arguments, photo, 0, sensor_bytes)
    head = layout(arguments, photo, len(head), sensor_bytes)
    cut = len(cfa) if arguments.truncate is None else int(len(cfa) * arguments.truncate)
    if arguments.empty_sensor_data:
        cfa, cut = cfa[:16], 16
    with open(arguments.out, 'wb') as out:
        out.write(head + cfa[:cut])


def layout(arguments, photo, cfa_at, sensor_bytes):
    """The file up to the sensor data, sensor_bytes long from cfa_at."""
    width, height = photo.width, photo.height
    tiff = TIFF()
    thumbnail = photo.thumbnail_image(256)
    thumbnail_at = tiff.blob(thumbnail.write_to_memory())
    subifds = [tiff.directory([
        (0x00FE, 'long', [0]), (0x0100, 'long', [width]), (0x0101, 'long', [height]), (0x0102, 'short', [16]),
        (0x0103, 'short', [1]), (0x0106, 'short', [32803]), (0x0111, 'long', [cfa_at]), (0x0115, 'short', [1]),
        (0x0116, 'long', [height]), (0x0117, 'long', [sensor_bytes]), (0x011C, 'short', [1]),
        (0x828D, 'short', [2, 2]), (0x828E, 'byte', [0, 1, 1, 2]), (0xC61A, 'long', [0]), (0xC61D, 'long', [WHITE])])]
    if arguments.preview:
        preview = photo.thumbnail_image(arguments.preview, height=arguments.preview)
        preview = preview.copy()
        preview.set_type(pyvips.GValue.gint_type, 'orientation', arguments.preview_orientation)
        jpeg = preview.jpegsave_buffer(Q=92)
        if arguments.broken_preview:
            jpeg = jpeg[:len(jpeg) // 2]
        preview_at = tiff.blob(jpeg)
        subifds.append(tiff.directory([
            (0x00FE, 'long', [1]), (0x0100, 'long', [preview.width]), (0x0101, 'long', [preview.height]),
            (0x0102, 'short', [8, 8, 8]), (0x0103, 'short', [7]), (0x0106, 'short', [6]), (0x0111, 'long', [preview_at]),
            (0x0115, 'short', [3]), (0x0116, 'long', [preview.height]), (0x0117, 'long', [len(jpeg)])]))
    exif = tiff.directory([(0x829A, 'rational', [(1, 250)]), (0x9003, 'ascii', '2024:05:01 10:11:12')])
    ifd0 = [(0x00FE, 'long', [1]), (0x0100, 'long', [thumbnail.width]), (0x0101, 'long', [thumbnail.height]),
            (0x0102, 'short', [8, 8, 8]), (0x0103, 'short', [1]), (0x0106, 'short', [2]), (0x010F, 'ascii', 'Mediabatch'),
            (0x0110, 'ascii', 'Test Camera'), (0x0111, 'long', [thumbnail_at]), (0x0112, 'short', [arguments.orientation]),
            (0x0115, 'short', [3]), (0x0116, 'long', [thumbnail.height]),
            (0x0117, 'long', [thumbnail.width * thumbnail.height * 3]), (0x0132, 'ascii', '2024:05:01 10:11:12'),
            (0x014A, 'long', subifds), (0x8769, 'long', [exif]),
            (0xC612, 'byte', [1, 4, 0, 0]), (0xC613, 'byte', [1, 1, 0, 0]), (0xC614, 'ascii', 'Mediabatch Test Camera'),
            (0xC621, 'srational', rationals((numpy.diag(GAINS) @ XYZ_TO_SRGB).flatten().tolist())),
            (0xC628, 'rational', rationals(GAINS)), (0xC65A, 'short', [21])]
    if arguments.baseline_exposure is not None:
        ifd0.append((0xC62A, 'srational', rationals([arguments.baseline_exposure])))
    if arguments.gps:
        gps = tiff.directory([(0x0000, 'byte', [2, 3, 0, 0]), (0x0001, 'ascii', 'N'),
                              (0x0002, 'rational', [(49, 1), (10, 1), (48, 1)]), (0x0003, 'ascii', 'W'),
                              (0x0004, 'rational', [(0, 1), (22, 1), (12, 1)])])
        ifd0.append((0x8825, 'long', [gps]))
    head = tiff.finish(tiff.directory(ifd0))
    return head + b'\0' * (cfa_at - len(head)) if cfa_at else head


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('source')
    parser.add_argument('out')
    parser.add_argument('--width', type=int, default=1200)
    parser.add_argument('--orientation', type=int, default=1)
    parser.add_argument('--preview', type=int, default=0)
    parser.add_argument('--preview-orientation', type=int, default=1)
    parser.add_argument('--gps', action='store_true')
    parser.add_argument('--baseline-exposure', type=float)
    parser.add_argument('--truncate', type=float, help='keep this fraction of the sensor data (a file cut off)')
    parser.add_argument('--broken-preview', action='store_true', help='the preview JPEG cut in half')
    parser.add_argument('--empty-sensor-data', action='store_true',
                        help='16 bytes of sensor data, said to be all of it (as exiftool\'s test images are)')
    make(parser.parse_args())
