/* 8-bit RGB from one matrix-shaper ICC profile to another (Display P3 or Adobe RGB to sRGB), as Little CMS 2.14
 * evaluates such a transform for 8-bit pixels (OptimizeMatrixShaper, MatShaperEval16): input curves and the matrix
 * in 1.14 fixed point, the output curves as tables of 16385 entries (kernels/colour.c). libvips' icc_transform runs
 * the same transform through lcms' generic per-pixel loop, a large share of a photo's item (bench/README.md).
 * Tests/MediaBatchCoreTests/ICCMatrixShaperTests.swift compares both loops, scalar and SSE4.1, with Little CMS
 * through libvips on real photos, sample for sample. */
#ifndef MEDIABATCH_COLOUR_H
#define MEDIABATCH_COLOUR_H

#include <stddef.h>
#include <stdint.h>

#include <vips/vips.h>

/* Each input channel's contribution to the three output rows, for its 256 sample values: its curve (1.14 fixed
 * point, 3 × 256 in `input`) times the matrix's column (1.14 fixed point, row by row, 9 in `matrix`), the exact
 * products lcms sums. `contributions`: 3 × 256 × 4 (the fourth lane 0). */
void mb_matrix_shaper_contributions(const int32_t *input, const int32_t *matrix, int32_t *contributions);

/* `pixels` pixels of `bands` bytes (3, or 4 with alpha copied as it is) from `in` to `out`: each row's sum of the
 * three contributions, rounded, then `output`: each channel's 8-bit value for 0...16384 (3 × 16385). */
void mb_matrix_shaper_8(const int32_t *contributions, const uint8_t *output, const uint8_t *in, uint8_t *out,
                        size_t pixels, int bands);

/* Makes mb_matrix_shaper_8 take its scalar loop (1) or the best this CPU has (0), process-wide: for the tests,
 * which compare both with Little CMS. */
void mb_matrix_shaper_force_scalar(int scalar);

/* 8-bit RGB(A) converted by mb_matrix_shaper_8's tables into `out`, a memory image of `in`'s size (the caller's
 * buffer), given `in`'s fields and `profile` as its ICC profile: what mb_vips_icc_to_srgb makes of a
 * matrix-shaper profile, without lcms' generic per-pixel loop. `in` is computed and converted region by region
 * straight into `out`, with no buffer of its own: a whole copy of the picture would be fresh pages every photo,
 * faulted in and zeroed. */
int mb_vips_matrix_shaper(VipsImage *in, const int32_t *input, const int32_t *matrix, const uint8_t *output,
                          const void *profile, size_t profile_length, VipsImage *out);

#endif
