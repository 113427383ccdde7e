/* YCbCr to RGB as libheif 1.15 converts it (heif_colorconversion.cc's Op_YCbCr_to_RGB, nclx.cc's coefficients), and
 * 10- to 16-bit samples shifted up as libvips 8.14's heifload shifts them: see mediabatch_ycbcr.h. Proven by
 * Tests/VipsKitTests/YCbCrToRGBTests.swift (coefficients; the AVX2 rows are the scalar ones) and
 * Tests/MediaBatchCoreTests/HEIFPictureTests.swift (samples against libheif's, through heifload, on real HEICs). */
#include "mediabatch_ycbcr.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* libheif's own float arithmetic: no fused multiply-adds where a compiler could make them. */
#pragma STDC FP_CONTRACT OFF

typedef struct { float kr, kb; } KrKb;

/* get_colour_primaries: green, blue, red, white (x, y) each; zeros where undefined. */
static int primaries_of(int code, float p[8]) {
    static const struct { int code; float v[8]; } table[] = {
        {1, {0.300f, 0.600f, 0.150f, 0.060f, 0.640f, 0.330f, 0.3127f, 0.3290f}},
        {4, {0.21f, 0.71f, 0.14f, 0.08f, 0.67f, 0.33f, 0.310f, 0.316f}},
        {5, {0.29f, 0.60f, 0.15f, 0.06f, 0.64f, 0.33f, 0.3127f, 0.3290f}},
        {6, {0.310f, 0.595f, 0.155f, 0.070f, 0.630f, 0.340f, 0.3127f, 0.3290f}},
        {7, {0.310f, 0.595f, 0.155f, 0.070f, 0.630f, 0.340f, 0.3127f, 0.3290f}},
        {8, {0.243f, 0.692f, 0.145f, 0.049f, 0.681f, 0.319f, 0.310f, 0.316f}},
        {9, {0.170f, 0.797f, 0.131f, 0.046f, 0.708f, 0.292f, 0.3127f, 0.3290f}},
        {10, {0.0f, 1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.333333f, 0.33333f}},
        {11, {0.265f, 0.690f, 0.150f, 0.060f, 0.680f, 0.320f, 0.314f, 0.351f}},
        {12, {0.265f, 0.690f, 0.150f, 0.060f, 0.680f, 0.320f, 0.3127f, 0.3290f}},
        {22, {0.295f, 0.605f, 0.155f, 0.077f, 0.630f, 0.340f, 0.3127f, 0.3290f}},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].code == code) {
            for (int j = 0; j < 8; j++) p[j] = table[i].v[j];
            return 1;
        }
    for (int j = 0; j < 8; j++) p[j] = 0;
    return 0;
}

/* get_Kr_Kb. */
static KrKb kr_kb(int matrix, int primaries) {
    KrKb k = {0, 0};
    if (matrix == 12 || matrix == 13) {
        float p[8];
        primaries_of(primaries, p);
        float gx = p[0], gy = p[1], bx = p[2], by = p[3], rx = p[4], ry = p[5], wx = p[6], wy = p[7];
        float zr = 1 - (rx + ry), zg = 1 - (gx + gy), zb = 1 - (bx + by), zw = 1 - (wx + wy);
        float denom = wy * (rx * (gy * zb - by * zg) + gx * (by * zr - ry * zb) + bx * (ry * zg - gy * zr));
        if (denom == 0.0f) return k;
        k.kr = (ry * (wx * (gy * zb - by * zg) + wy * (bx * zg - gx * zb) + zw * (gx * by - bx * gy))) / denom;
        k.kb = (by * (wx * (ry * zg - gy * zr) + wy * (gx * zr - rx * zg) + zw * (rx * gy - gx * ry))) / denom;
        return k;
    }
    switch (matrix) {
    case 1: k.kr = 0.2126f; k.kb = 0.0722f; break;
    case 4: k.kr = 0.30f; k.kb = 0.11f; break;
    case 5: case 6: k.kr = 0.299f; k.kb = 0.114f; break;
    case 7: k.kr = 0.212f; k.kb = 0.087f; break;
    case 9: case 10: k.kr = 0.2627f; k.kb = 0.0593f; break;
    default: break;
    }
    return k;
}

/* get_YCbCr_to_RGB_coefficients: BT.601's defaults where the matrix gives no Kr and Kb. */
MbYCbCrCoefficients mb_ycbcr_coefficients(int matrix, int primaries, int full_range) {
    MbYCbCrCoefficients c = {matrix, full_range, 1.402f, -0.344136f, -0.714136f, 1.772f};
    KrKb k = kr_kb(matrix, primaries);
    if (k.kb != 0 || k.kr != 0) {
        c.r_cr = 2 * (-k.kr + 1);
        c.g_cb = 2 * k.kb * (-k.kb + 1) / (k.kb + k.kr - 1);
        c.g_cr = 2 * k.kr * (-k.kr + 1) / (k.kb + k.kr - 1);
        c.b_cb = 2 * (-k.kb + 1);
    }
    return c;
}

#define CLIP_INT_U8(x) ((x) < 0 ? 0 : (x) > 255 ? 255 : (uint8_t) (x))

/* clip_f_u16 into a T, shifted up `up` bits, a macro: a debug build (-O0) calls functions, and 36 calls a pixel
 * would be much of a photo's item there. Each result is stored where it is made: the 8-bit row is slower with the
 * three computed first and stored after (bench/README.md). */
#define CLIP_F(fx, maxi, up, T, out) do { long x_ = (long) ((fx) + 0.5f); (out) = (T) ((x_ < 0 ? 0 : x_ > (maxi) ? (maxi) : (int) x_) << (up)); } while (0)

/* One row from pixel `x` on, as Op_YCbCr_to_RGB<Pixel>'s inner loop (its matrix test hoisted out of the loop),
 * for samples of type T holding `bits`-bit values. A 16-bit sample's result is shifted up to fill 16 bits, as
 * libvips 8.14's heifload shifts what libheif gives it. One body for both types, as libheif's is one template;
 * GBR and YCgCo as libheif 1.15 has them at any depth: limited-range GBR scales by 219/256 and YCgCo clips to 255. */
#define YCBCR_ROW(NAME, T)                                                                                            \
    static void NAME(const MbYCbCrCoefficients *c, int bits, const T *y, const T *cb, const T *cr, int shift_x,      \
                     T *out, int bands, int x, int width) {                                                          \
        const float r_cr = c->r_cr, g_cb = c->g_cb, g_cr = c->g_cr, b_cb = c->b_cb;                                  \
        const int half = 1 << (bits - 1), maxi = (1 << bits) - 1, offset = 16 << (bits - 8);                         \
        const int up = sizeof(T) == 1 ? 0 : 16 - bits;                                                               \
        const float offset_f = (float) offset;                                                                       \
        for (out += (ptrdiff_t) x * bands; x < width; x++, out += bands) {                                           \
            int cx = x >> shift_x;                                                                                   \
            int in_cb = cb ? cb[cx] : half, in_cr = cr ? cr[cx] : half;                                              \
            if (c->matrix == 0) {                                                                                    \
                if (c->full_range) {                                                                                 \
                    out[0] = (T) (in_cr << up); out[1] = (T) (y[x] << up); out[2] = (T) (in_cb << up);               \
                } else {                                                                                             \
                    out[0] = (T) ((((in_cr * 219 + 128) >> 8) + offset) << up);                                      \
                    out[1] = (T) ((((y[x] * 219 + 128) >> 8) + offset) << up);                                       \
                    out[2] = (T) ((((in_cb * 219 + 128) >> 8) + offset) << up);                                      \
                }                                                                                                    \
            } else if (c->matrix == 8) {                                                                             \
                int yv = y[x], u = in_cb - half, v = in_cr - half;                                                   \
                out[0] = (T) (CLIP_INT_U8(yv - u + v) << up);                                                        \
                out[1] = (T) (CLIP_INT_U8(yv + u) << up);                                                            \
                out[2] = (T) (CLIP_INT_U8(yv - u - v) << up);                                                        \
            } else {                                                                                                 \
                float yv = (float) y[x], u = (float) (in_cb - half), v = (float) (in_cr - half);                     \
                if (!c->full_range) {                                                                                \
                    yv = (yv - offset_f) * 1.1689f;                                                                  \
                    u = u * 1.1429f;                                                                                 \
                    v = v * 1.1429f;                                                                                 \
                }                                                                                                    \
                CLIP_F(yv + r_cr * v, maxi, up, T, out[0]);                                                          \
                CLIP_F(yv + g_cb * u + g_cr * v, maxi, up, T, out[1]);                                               \
                CLIP_F(yv + b_cb * u, maxi, up, T, out[2]);                                                          \
            }                                                                                                        \
        }                                                                                                            \
    }

YCBCR_ROW(row, uint8_t)
YCBCR_ROW(row16, uint16_t)

#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2")))

/* 8 chroma samples for pixels x..x+7, each as its float minus 128: 4 samples each taken twice where chroma
 * is halved across (shift_x 1), else 8. */
static inline AVX2 __m256 chroma8(const uint8_t *plane, int x, int shift_x) {
    __m128i bytes;
    if (shift_x) {
        uint32_t four;
        memcpy(&four, plane + (x >> 1), 4);
        bytes = _mm_cvtsi32_si128((int) four);
        bytes = _mm_unpacklo_epi8(bytes, bytes);
    } else {
        bytes = _mm_loadl_epi64((const __m128i *) (plane + x));
    }
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(bytes), _mm256_set1_epi32(128)));
}

/* (long) (f + 0.5f) as the scalar path rounds, for values the clamp then bounds. */
static inline AVX2 __m256i rounded(__m256 f) {
    return _mm256_cvttps_epi32(_mm256_add_ps(f, _mm256_set1_ps(0.5f)));
}

/* The float formula of `row` for 3-band pixels, 8 at a time: the same single-precision operations in the same
 * order, so every sample is the scalar's (libheif's). Stops where a 16-byte store would pass the row's end (the
 * scalar loop finishes it: the region's right neighbour may be written already); returns where it stopped. */
static AVX2 int row_avx2(const MbYCbCrCoefficients *c, const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                         int shift_x, uint8_t *out, int width) {
    const __m256 r_cr = _mm256_set1_ps(c->r_cr), g_cb = _mm256_set1_ps(c->g_cb), g_cr = _mm256_set1_ps(c->g_cr),
                 b_cb = _mm256_set1_ps(c->b_cb);
    /* Per 128-bit lane r0..r3 g0..g3 b0..b3 b0..b3 becomes r0 g0 b0 r1 g1 b1 … b3, then 4 bytes not kept. */
    const __m256i interleave = _mm256_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1,
                                                0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1);
    int x = 0;
    for (; x + 10 <= width; x += 8) {
        __m256 yv = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *) (y + x))));
        __m256 u = chroma8(cb, x, shift_x), v = chroma8(cr, x, shift_x);
        if (!c->full_range) {
            yv = _mm256_mul_ps(_mm256_sub_ps(yv, _mm256_set1_ps(16.0f)), _mm256_set1_ps(1.1689f));
            u = _mm256_mul_ps(u, _mm256_set1_ps(1.1429f));
            v = _mm256_mul_ps(v, _mm256_set1_ps(1.1429f));
        }
        __m256i r = rounded(_mm256_add_ps(yv, _mm256_mul_ps(r_cr, v)));
        __m256i g = rounded(_mm256_add_ps(_mm256_add_ps(yv, _mm256_mul_ps(g_cb, u)), _mm256_mul_ps(g_cr, v)));
        __m256i b = rounded(_mm256_add_ps(yv, _mm256_mul_ps(b_cb, u)));
        /* Saturating packs clamp to 0...255 as the scalar clip does. */
        __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(r, g), _mm256_packs_epi32(b, b));
        bytes = _mm256_shuffle_epi8(bytes, interleave);
        _mm_storeu_si128((__m128i *) (out + 3 * x), _mm256_castsi256_si128(bytes));
        _mm_storeu_si128((__m128i *) (out + 3 * x + 12), _mm256_extracti128_si256(bytes, 1));
    }
    return x;
}
#endif

/* Whether the vector row applies: the float formula (not GBR or YCgCo), colour, 3 bands, on a CPU with AVX2. */
static int vector_row(const MbYCbCrCoefficients *c, const void *cb, int shift_x, int bands) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return c->matrix != 0 && c->matrix != 8 && cb && shift_x <= 1 && bands == 3 && __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* Where an 8-bit row's scalar loop starts: past what the vector row did, where it applies. */
static inline int vector_row_end(int vector, const MbYCbCrCoefficients *c, const uint8_t *y, const uint8_t *cb,
                                 const uint8_t *cr, int shift_x, uint8_t *out, int width) {
#if defined(__x86_64__)
    if (vector)
        return row_avx2(c, y, cb, cr, shift_x, out, width);
#endif
    return 0;
}

/* 16-bit rows have no vector loop: the scalar one does each whole. */
static inline int no_vector_row(int vector, const MbYCbCrCoefficients *c, const uint16_t *y, const uint16_t *cb,
                                const uint16_t *cr, int shift_x, uint16_t *out, int width) {
    return 0;
}

/* The picture row by row into its region of `out`, for samples of type T (every stride in bytes): ROW_START's
 * vector loop first, then ROW from where it stopped. One body for both sample types. */
#define YCBCR_PICTURE(NAME, T, ROW, ROW_START)                                                                        \
    static void NAME(const MbYCbCrCoefficients *c, int bits, const T *y, ptrdiff_t y_stride, const T *cb,            \
                     ptrdiff_t cb_stride, const T *cr, ptrdiff_t cr_stride, int shift_x, int shift_y, T *out,         \
                     ptrdiff_t out_stride, int bands, int left, int top, int width, int height) {                    \
        const int vector = sizeof(T) == 1 && vector_row(c, cb, shift_x, bands);                                      \
        for (int j = 0; j < height; j++) {                                                                           \
            const ptrdiff_t cy = j >> shift_y;                                                                       \
            const T *yr = (const T *) ((const char *) y + j * y_stride);                                              \
            const T *cbr = cb ? (const T *) ((const char *) cb + cy * cb_stride) : NULL;                             \
            const T *crr = cr ? (const T *) ((const char *) cr + cy * cr_stride) : NULL;                             \
            T *o = (T *) ((char *) out + (top + j) * out_stride) + (ptrdiff_t) left * bands;                         \
            ROW(c, bits, yr, cbr, crr, shift_x, o, bands, ROW_START(vector, c, yr, cbr, crr, shift_x, o, width),     \
                width);                                                                                              \
        }                                                                                                            \
    }

YCBCR_PICTURE(picture, uint8_t, row, vector_row_end)
YCBCR_PICTURE(picture16, uint16_t, row16, no_vector_row)

void mb_ycbcr_to_rgb(const MbYCbCrCoefficients *c, const uint8_t *y, ptrdiff_t y_stride, const uint8_t *cb,
                     ptrdiff_t cb_stride, const uint8_t *cr, ptrdiff_t cr_stride, int shift_x, int shift_y,
                     uint8_t *out, ptrdiff_t out_stride, int bands, int left, int top, int width, int height) {
    picture(c, 8, y, y_stride, cb, cb_stride, cr, cr_stride, shift_x, shift_y, out, out_stride, bands, left, top, width,
            height);
}

void mb_ycbcr16_to_rgb(const MbYCbCrCoefficients *c, int bits, const uint16_t *y, ptrdiff_t y_stride, const uint16_t *cb,
                       ptrdiff_t cb_stride, const uint16_t *cr, ptrdiff_t cr_stride, int shift_x, int shift_y,
                       uint16_t *out, ptrdiff_t out_stride, int bands, int left, int top, int width, int height) {
    picture16(c, bits, y, y_stride, cb, cb_stride, cr, cr_stride, shift_x, shift_y, out, out_stride, bands, left, top,
              width, height);
}

/* A plane as it is into one band of the region, each sample shifted up `up` bits (every stride in bytes). One body
 * for both sample types. */
#define COPY_LUMA(NAME, T)                                                                                            \
    static void NAME(const T *y, ptrdiff_t y_stride, int up, T *out, ptrdiff_t out_stride, int bands, int band,      \
                     int left, int top, int width, int height) {                                                     \
        for (int j = 0; j < height; j++) {                                                                           \
            const T *in = (const T *) ((const char *) y + j * y_stride);                                              \
            T *o = (T *) ((char *) out + (top + j) * out_stride) + (ptrdiff_t) left * bands + band;                  \
            for (int x = 0; x < width; x++)                                                                          \
                o[(ptrdiff_t) x * bands] = (T) (in[x] << up);                                                        \
        }                                                                                                            \
    }

COPY_LUMA(copy_luma, uint8_t)
COPY_LUMA(copy_luma16, uint16_t)

void mb_copy_luma(const uint8_t *y, ptrdiff_t y_stride, uint8_t *out, ptrdiff_t out_stride, int bands, int band,
                  int left, int top, int width, int height) {
    copy_luma(y, y_stride, 0, out, out_stride, bands, band, left, top, width, height);
}

void mb_copy_luma16(const uint16_t *y, ptrdiff_t y_stride, int bits, uint16_t *out, ptrdiff_t out_stride, int bands, int band,
                    int left, int top, int width, int height) {
    copy_luma16(y, y_stride, 16 - bits, out, out_stride, bands, band, left, top, width, height);
}
