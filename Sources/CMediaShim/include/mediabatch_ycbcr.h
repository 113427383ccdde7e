/* YCbCr to RGB exactly as libheif 1.15 converts a decoded HEVC picture (heif_colorconversion.cc,
 * Op_YCbCr_to_RGB<Pixel>, the step its tile decoding always takes, to planar RGB; nclx.cc for the coefficients), ported
 * line for line, for the pictures mediabatch decodes with libavcodec (kernels/ycbcr.c): in C, not Swift, because a
 * debug build's Swift loop is too slow for the tests' worker timeouts, and in libheif's own float operations, so
 * every sample is libheif's. Tests/VipsKitTests/YCbCrToRGBTests.swift checks the coefficients and that the AVX2 rows
 * are the scalar ones; Tests/MediaBatchCoreTests/HEIFPictureTests.swift compares the samples with libheif's through
 * libvips' heifload on real HEICs: 8-bit, 10- and 12-bit (testDeeperPicturesDecodeAsLibheifDoes), an alpha image's
 * and a gain map's luma (testAlphaImageIsTheFourthBand, testAppleGainMapDecodesAsLibheifDecodesIt). */
#ifndef MEDIABATCH_YCBCR_H
#define MEDIABATCH_YCBCR_H

#include <stddef.h>
#include <stdint.h>

/* libheif's YCbCr_to_RGB_coefficients for a matrix and primaries (ISO/IEC 23091-2 code points), and
 * how it converts: matrix 0 (GBR) and 8 (YCgCo) by their own formulas, every other by these. */
typedef struct {
    int matrix;
    int full_range;
    float r_cr, g_cb, g_cr, b_cb;
} MbYCbCrCoefficients;

MbYCbCrCoefficients mb_ycbcr_coefficients(int matrix, int primaries, int full_range);

/* Converts a width × height picture into the region at (left, top) of `out` (rows of `out_stride`
 * bytes, pixels of `bands` bytes, red first). Chroma sample (x >> shift_x, y >> shift_y), nearest
 * neighbour as libheif's; `cb` and `cr` NULL for monochrome (libheif goes through 4:2:0 at 128). */
void mb_ycbcr_to_rgb(const MbYCbCrCoefficients *c, const uint8_t *y, ptrdiff_t y_stride, const uint8_t *cb,
                     ptrdiff_t cb_stride, const uint8_t *cr, ptrdiff_t cr_stride, int shift_x, int shift_y,
                     uint8_t *out, ptrdiff_t out_stride, int bands, int left, int top, int width, int height);

/* The same for a 10- to 16-bit picture (`bits`: its depth; libavcodec's YUV4xxP10LE and GRAY10LE planes,
 * native-endian 16-bit samples; strides in bytes) into 16-bit RGB as libvips 8.14's heifload gives it: libheif's
 * Op_YCbCr_to_RGB<uint16_t> at the picture's depth (then only interleaved, Op_RGB_HDR_to_RRGGBBaa_BE), each
 * sample then shifted up to fill 16 bits. */
void mb_ycbcr16_to_rgb(const MbYCbCrCoefficients *c, int bits, const uint16_t *y, ptrdiff_t y_stride, const uint16_t *cb,
                       ptrdiff_t cb_stride, const uint16_t *cr, ptrdiff_t cr_stride, int shift_x, int shift_y,
                       uint16_t *out, ptrdiff_t out_stride, int bands, int left, int top, int width, int height);

/* The luma plane as it is into band `band` (libheif takes an alpha image's Y plane unconverted). */
void mb_copy_luma(const uint8_t *y, ptrdiff_t y_stride, uint8_t *out, ptrdiff_t out_stride, int bands, int band,
                  int left, int top, int width, int height);

/* The same for a `bits`-bit plane into 16-bit samples, shifted up to fill them as heifload does. */
void mb_copy_luma16(const uint16_t *y, ptrdiff_t y_stride, int bits, uint16_t *out, ptrdiff_t out_stride, int bands,
                    int band, int left, int top, int width, int height);

#endif
