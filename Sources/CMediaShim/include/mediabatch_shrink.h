/* libvips 8.14's integer box shrink (vips_shrinkv, then vips_shrinkh, both with "ceil": an edge group
 * that the factor does not fill repeats the last row or column, as their vips_embed with
 * VIPS_EXTEND_COPY makes it; each pass rounds its mean to nearest, as their integer paths do), applied
 * to a picture a strip of rows at a time (kernels/shrink.c): so that a HEIC's tiles, decoded a row of
 * tiles at a time, are shrunk as they come and the whole picture is never held (a 21694 × 10847
 * panorama is 706 MB of RGB). It is what vips_resize's integer shrink ("gap" 2) does before its
 * Lanczos pass. Tests/VipsKitTests/ShrinkingStripsTests.swift compares it with vips_shrink, sample for sample. */
#ifndef MEDIABATCH_SHRINK_H
#define MEDIABATCH_SHRINK_H

#include <stddef.h>
#include <stdint.h>

/* `rows` rows of `width` pixels of `bands` samples (8-bit, or 16-bit where `wide`) from `in` (rows of
 * `in_stride` bytes) into ceil(rows / factor) rows of ceil(width / factor) pixels at `out` (rows of
 * `out_stride` bytes): each group of `factor` rows (the last one filled out by repeating its last
 * row) averaged, then each group of `factor` pixels of that. `sums` holds width × bands values. */
void mb_box_shrink(const void *in, ptrdiff_t in_stride, int width, int rows, int bands, int wide, int factor,
                   void *out, ptrdiff_t out_stride, uint32_t *sums);

#endif
