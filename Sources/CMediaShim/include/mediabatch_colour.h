/* 8-bit RGB from one matrix-shaper ICC profile to another (Display P3 or Adobe RGB to sRGB), as Little CMS 2.14
 * evaluates such a transform for 8-bit pixels (OptimizeMatrixShaper, MatShaperEval16): input curves and the matrix
 * in 1.14 fixed point, the output curves as tables of 16385 entries. libvips' icc_transform runs the same transform
 * through lcms' generic per-pixel loop: about 10 ns a pixel, 12% of a 12 MP iPhone photo's whole item. */
#ifndef MEDIABATCH_COLOUR_H
#define MEDIABATCH_COLOUR_H

#include <stddef.h>
#include <stdint.h>

/* `pixels` pixels of `bands` bytes (3, or 4 with alpha copied as it is) from `in` to `out`. `input`: each
 * channel's curve in 1.14 fixed point for the 256 sample values (3 × 256); `matrix`: row by row, 1.14 fixed
 * point (9); `output`: each channel's 8-bit value for 0...16384 (3 × 16385). */
void mb_matrix_shaper_8(const int32_t *input, const int32_t *matrix, const uint8_t *output, const uint8_t *in,
                        uint8_t *out, size_t pixels, int bands);

#endif
