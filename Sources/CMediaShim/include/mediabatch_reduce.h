/* mediabatch's own Lanczos-3 reduce for 8-bit images (kernels/reduce.c, kernels/reduce_kernels.c):
 * libvips 8.14's vips_reduceh and vips_reducev, sample for sample, with SIMD loops picked at run time
 * (AVX2, SSE4.1, or plain C), because libvips 8.14's horizontal pass is scalar C, a large share of a
 * JPEG thumbnail's time (bench/README.md, "The reduce of our own"). Tests/VipsKitTests/ReduceTests.swift
 * compares every level this CPU has with libvips, sample for sample, on random images and photos; the
 * reduce fuzzer (fuzz/ReduceFuzzer.c) on random sizes, shrinks and pixels.
 * Return values follow libvips: 0 on success, -1 on failure with the reason in vips_error_buffer().
 */
#ifndef MEDIABATCH_REDUCE_H
#define MEDIABATCH_REDUCE_H

#include <vips/vips.h>

/* The instruction sets the reduce loops exist for, in increasing order. */
typedef enum {
    MB_REDUCE_LIBVIPS = -1, /* none of them: libvips' own passes */
    MB_REDUCE_AUTO = 0,     /* for mb_reduce_force_level: the default again */
    MB_REDUCE_SCALAR = 1,
    MB_REDUCE_SSE41 = 2,
    MB_REDUCE_AVX2 = 3,
} MbReduceLevel;

/* The level the reduces built from here on use: the forced one if the CPU has it (else its best).
 * By default the CPU's best, but MB_REDUCE_LIBVIPS where ours would be slower than libvips' own
 * passes (timings in bench/README.md):
 * - an unoptimised build (SwiftPM's debug build compiles the shim with -O0): our loops unoptimised
 *   against libvips' optimised ones;
 * - a CPU with neither SSE4.1 nor AVX2 (aarch64 too: no NEON loops here): our scalar horizontal
 *   loop is no faster than libvips' (scalar too), and our scalar vertical one slower than its ORC
 *   program. */
int mb_reduce_level(void);

/* For tests: makes the reduces built from here on use `level` (MB_REDUCE_AUTO: the default again), so
 * that each loop is compared with libvips on this machine, in any build. Returns mb_reduce_level(). */
int mb_reduce_force_level(int level);

/* For tests: how many reduces mediabatch's own loops have been built for, process-wide, so that a
 * comparison with libvips can tell it did not compare libvips with itself (a fallback). */
int mb_reduce_builds(void);

/* Whether mediabatch computes the vertical (1) or horizontal (0) pass of 8-bit images itself; if
 * not, mb_reducev / mb_reduceh hand them to libvips. Decided once per process, by what libvips
 * computes, not by its version: ours runs where libvips' own pass gives exactly its samples for a
 * probe image, and is then faster (libvips 8.14's horizontal pass is scalar C and its vertical one
 * ORC; libvips 8.16's horizontal pass, in Highway, gives the same samples too). libvips 8.16's
 * vertical pass rounds its masks to 12 bits, not ORC's 6, so there libvips' own runs: a loop of
 * ours with that arithmetic was slower than its Highway one on an AVX-512 CPU (bench/README.md). */
int mb_reduce_is_own(int vertical);

/* vips_reduceh(in, out, hshrink, "kernel", LANCZOS3, "gap", gap): the same samples, from SIMD loops
 * for uchar images of 1-4 bands (see mb_reduce_is_own); anything else goes to vips_reduceh itself. */
int mb_reduceh(VipsImage *in, VipsImage **out, double hshrink, double gap);

/* vips_reducev(in, out, vshrink, "kernel", LANCZOS3, "gap", gap): the same samples as libvips 8.14's
 * ORC path (6-bit masks, saturating 16-bit sums), from SIMD loops for uchar images of 1-4 bands
 * where libvips runs that path (see mb_reduce_is_own; not past 50 taps); otherwise vips_reducev. */
int mb_reducev(VipsImage *in, VipsImage **out, double vshrink, double gap);

/* libvips' own passes, where mediabatch's do not apply, and for tests the reference its own are
 * compared with: vips_reduceh, vips_reducev (Lanczos 3). */
int mb_libvips_reduceh(VipsImage *in, VipsImage **out, double hshrink, double gap);
int mb_libvips_reducev(VipsImage *in, VipsImage **out, double vshrink, double gap);

#endif
