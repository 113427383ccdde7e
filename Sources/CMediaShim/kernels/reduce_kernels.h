/* The inner loops of mediabatch's Lanczos-3 reduce (reduce.c), one set per instruction set.
 * Private to the shim: reduce.c picks a set at run time, tests reach them through it.
 *
 * Both passes compute exactly what libvips 8.14 computes for 8-bit samples, integer for integer,
 * so that a thumbnail is the same whichever level ran:
 * - horizontal (vips_reduceh's C loop): masks in 12-bit fixed point (VIPS_INTERPOLATE_SHIFT),
 *   sums in 32 bits, + 2048, >> 12, clipped to 0..255;
 * - vertical (vips_reducev's ORC program): masks in 6-bit fixed point, the sum a saturating
 *   16-bit one started at 32, >> 6, clipped to 0..255; reduce.c checks that no sum can saturate.
 * Tests/VipsKitTests/ReduceTests.swift proves it for every level this CPU has.
 */
#ifndef MEDIABATCH_REDUCE_KERNELS_H
#define MEDIABATCH_REDUCE_KERNELS_H

#include <stdint.h>

/* Masks per reduce: one per subpixel position of an output pixel's centre, as libvips tabulates
 * them (VIPS_TRANSFORM_SCALE + 1; reduce.c checks). */
#define MB_MASK_POSITIONS 65

/* The horizontal masks of one reduce, MB_MASK_POSITIONS of them. */
typedef struct {
    int bands;              /* 1..4, interleaved */
    int n_point;            /* taps */
    const int *masks;       /* positions × n_point, the scalar loop's */
    /* The vector loops' copy: per position `steps` groups of two 8 × int16 vectors, each group
     * covering the taps one 16-byte load holds (16 / bands of them; 4 for 3 bands), laid out as
     * the loop pairs them with samples (see reduce_kernels.c); taps past n_point are 0. */
    const int16_t *vector_masks;
    int steps;
    int step_bytes;         /* input bytes from one group to the next */
} MbHMasks;

/* How many taps one vector group covers for `bands`. */
static inline int mb_taps_per_step(int bands) {
    return bands == 3 ? 4 : 16 / bands;
}

/* Bytes the vector loop reads from the first tap of a pixel on: output pixels whose reads would
 * pass the end of the input row go through the scalar loop. */
static inline int mb_vector_span(const MbHMasks *m) {
    return (m->steps - 1) * m->step_bytes + 16;
}

/* Lays out masks (positions × n_point) for the vector loops into vector_masks (positions × steps × 16). */
void mb_reduceh_layout(const int *masks, int n_point, int bands, int16_t *vector_masks);

/* One row: out[x] from in + offsets[x] (bytes) with mask positions[x], for x in [from, to). */
void mb_reduceh_row_scalar(const MbHMasks *m, const uint8_t *in, uint8_t *out,
                           const int *offsets, const int *positions, int from, int to);

/* One row of the vertical pass: ne samples, n taps `lskip` bytes apart, 6-bit mask k. */
void mb_reducev_row_scalar(const uint8_t *in, int lskip, const int16_t *k, int n, uint8_t *out, int ne);

#if defined(__x86_64__)
/* The same loops with SSE4.1 (16 bytes at a time) and AVX2 (two rows at a time horizontally,
 * 32 samples vertically); only for x in [0, count) whose reads stay in the row (mb_vector_span). */
void mb_reduceh_row_sse41(const MbHMasks *m, const uint8_t *in, uint8_t *out,
                          const int *offsets, const int *positions, int count);
void mb_reduceh_rows_avx2(const MbHMasks *m, const uint8_t *in0, const uint8_t *in1, uint8_t *out0, uint8_t *out1,
                          const int *offsets, const int *positions, int count);
void mb_reducev_row_sse41(const uint8_t *in, int lskip, const int16_t *k, int n, uint8_t *out, int ne);
void mb_reducev_row_avx2(const uint8_t *in, int lskip, const int16_t *k, int n, uint8_t *out, int ne);
#endif

#endif
