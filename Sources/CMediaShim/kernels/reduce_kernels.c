/* The inner loops of the Lanczos-3 reduce: what libvips 8.14 computes, integer for integer (see
 * reduce_kernels.h), as plain C and with SSE4.1 and AVX2. SwiftPM builds the shim with the
 * default target (x86-64 without SSE4.1), so the vector loops carry their instruction set in a
 * target attribute and reduce.c calls them only where the CPU has it. Tests/VipsKitTests/ReduceTests.swift
 * runs each level against libvips 8.14's passes, sample for sample. */
#include "reduce_kernels.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* libvips' integer rounding: + half, then shift (arithmetic for a negative sum). */
#define H_SHIFT 12
#define V_SHIFT 6

static inline uint8_t clip_uchar(int v) {
    return v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v;
}

void mb_reduceh_layout(const int *masks, int n_point, int bands, int16_t *vector_masks) {
    const int per_step = mb_taps_per_step(bands);
    const int steps = (n_point + per_step - 1) / per_step;
    for (int t = 0; t < MB_MASK_POSITIONS; t++) {
        const int *k = masks + t * n_point;
        int16_t *v = vector_masks + t * steps * 16;
        for (int s = 0; s < steps; s++, v += 16) {
            const int b = s * per_step;
            /* Tap b + i's weight, 0 past the mask: those lanes multiply samples of later pixels. */
#define TAP(i) ((int16_t) (b + (i) < n_point ? k[b + (i)] : 0))
            for (int j = 0; j < 8; j++) {
                /* Each int32 lane of a multiply-add sums a pair of taps: which pair, by bands. */
                switch (bands) {
                case 1: /* lane j/2 sums taps j, j+1 of the one band; hi: the next 8 taps */
                    v[j] = TAP(j);
                    v[8 + j] = TAP(8 + j);
                    break;
                case 2: /* lanes: (taps 0,1) of band 0, band 1, (taps 2,3) of band 0, band 1 */
                    v[j] = TAP((j & 1) + (j >= 4 ? 2 : 0));
                    v[8 + j] = TAP(4 + (j & 1) + (j >= 4 ? 2 : 0));
                    break;
                default: /* 3, 4: lane c is band c, taps 0,1 (lo) and 2,3 (hi); no band 3 for 3 */
                    v[j] = j / 2 < bands ? TAP(j & 1) : 0;
                    v[8 + j] = j / 2 < bands ? TAP(2 + (j & 1)) : 0;
                    break;
                }
            }
#undef TAP
        }
    }
}

void mb_reduceh_row_scalar(const MbHMasks *m, const uint8_t *in, uint8_t *out,
                           const int *offsets, const int *positions, int from, int to) {
    const int bands = m->bands, n = m->n_point;
    for (int x = from; x < to; x++) {
        const uint8_t *p = in + offsets[x];
        const int *k = m->masks + positions[x] * n;
        for (int c = 0; c < bands; c++) {
            int sum = 0;
            for (int i = 0; i < n; i++)
                sum += k[i] * p[i * bands + c];
            out[x * bands + c] = clip_uchar((sum + (1 << (H_SHIFT - 1))) >> H_SHIFT);
        }
    }
}

/* ORC keeps the low 16 bits of each product and adds with 16-bit saturation; reduce.c takes only
 * masks whose sums stay within 16 bits whatever the samples, so plain sums are the same. */
void mb_reducev_row_scalar(const uint8_t *in, int lskip, const int16_t *k, int n, uint8_t *out, int ne) {
    /* A block of sums at a time, each input row read along: compilers vectorise this by
     * themselves where they may, and it walks memory in order. */
    enum { BLOCK = 64 };
    int sums[BLOCK];
    for (int z = 0; z < ne; z += BLOCK) {
        const int count = ne - z < BLOCK ? ne - z : BLOCK;
        for (int j = 0; j < count; j++)
            sums[j] = 1 << (V_SHIFT - 1);
        for (int i = 0; i < n; i++) {
            const uint8_t *p = in + i * lskip + z;
            for (int j = 0; j < count; j++)
                sums[j] += p[j] * k[i];
        }
        for (int j = 0; j < count; j++)
            out[z + j] = clip_uchar(sums[j] >> V_SHIFT);
    }
}

#if defined(__x86_64__)

#define SSE41 __attribute__((target("sse4.1")))
#define AVX2 __attribute__((target("avx2")))
#define INLINE static inline __attribute__((always_inline))
#define Z -1 /* pshufb: a zero byte */

/* pshufb patterns turning a 16-byte load into 8 int16 lanes ordered as mb_reduceh_layout pairs
 * the taps: [bands][lo, hi]. */
static const int8_t pair_shuffles[5][2][16] = {
    [1] = {{0, Z, 1, Z, 2, Z, 3, Z, 4, Z, 5, Z, 6, Z, 7, Z},
           {8, Z, 9, Z, 10, Z, 11, Z, 12, Z, 13, Z, 14, Z, 15, Z}},
    [2] = {{0, Z, 2, Z, 1, Z, 3, Z, 4, Z, 6, Z, 5, Z, 7, Z},
           {8, Z, 10, Z, 9, Z, 11, Z, 12, Z, 14, Z, 13, Z, 15, Z}},
    [3] = {{0, Z, 3, Z, 1, Z, 4, Z, 2, Z, 5, Z, Z, Z, Z, Z},
           {6, Z, 9, Z, 7, Z, 10, Z, 8, Z, 11, Z, Z, Z, Z, Z}},
    [4] = {{0, Z, 4, Z, 1, Z, 5, Z, 2, Z, 6, Z, 3, Z, 7, Z},
           {8, Z, 12, Z, 9, Z, 13, Z, 10, Z, 14, Z, 11, Z, 15, Z}},
};

/* Sums the int32 lanes that hold the same band (1 and 2 bands spread a band over lanes), rounds
 * and shifts as libvips does, and clips through two saturating packs. Lanes 0..bands-1 of the
 * low 4 bytes are the pixel. */
INLINE SSE41 uint32_t finish_sse41(__m128i acc, const int bands) {
    if (bands <= 2)
        acc = _mm_add_epi32(acc, _mm_srli_si128(acc, 8));
    if (bands == 1)
        acc = _mm_add_epi32(acc, _mm_srli_si128(acc, 4));
    acc = _mm_srai_epi32(_mm_add_epi32(acc, _mm_set1_epi32(1 << (H_SHIFT - 1))), H_SHIFT);
    acc = _mm_packs_epi32(acc, acc);
    return (uint32_t) _mm_cvtsi128_si32(_mm_packus_epi16(acc, acc));
}

INLINE SSE41 void row_sse41(const MbHMasks *m, const uint8_t *in, uint8_t *out,
                            const int *offsets, const int *positions, int count, const int bands) {
    const __m128i lo = _mm_loadu_si128((const __m128i *) pair_shuffles[bands][0]);
    const __m128i hi = _mm_loadu_si128((const __m128i *) pair_shuffles[bands][1]);
    const int steps = m->steps, step_bytes = m->step_bytes;
    for (int x = 0; x < count; x++) {
        const uint8_t *p = in + offsets[x];
        const int16_t *k = m->vector_masks + positions[x] * steps * 16;
        __m128i acc = _mm_setzero_si128();
        for (int s = 0; s < steps; s++, p += step_bytes, k += 16) {
            const __m128i source = _mm_loadu_si128((const __m128i *) p);
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_shuffle_epi8(source, lo), _mm_loadu_si128((const __m128i *) k)));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_shuffle_epi8(source, hi), _mm_loadu_si128((const __m128i *) (k + 8))));
        }
        const uint32_t pixel = finish_sse41(acc, bands);
        memcpy(out + x * bands, &pixel, bands);
    }
}

/* CALL(n) for n = `bands` (1 to 4), each call with its own constant: one copy of an inlined loop per band count, so
 * that its shuffles, its folding and its store are constants. */
#define BY_BANDS(bands, CALL)                                                                                         \
    switch (bands) {                                                                                                  \
    case 1: CALL(1); break;                                                                                           \
    case 2: CALL(2); break;                                                                                           \
    case 3: CALL(3); break;                                                                                           \
    default: CALL(4); break;                                                                                          \
    }

SSE41 void mb_reduceh_row_sse41(const MbHMasks *m, const uint8_t *in, uint8_t *out,
                                const int *offsets, const int *positions, int count) {
#define ROW(bands) row_sse41(m, in, out, offsets, positions, count, bands)
    BY_BANDS(m->bands, ROW)
#undef ROW
}

/* Two rows at once, one per 128-bit half: the halves share every mask load, which is what the
 * second half of the register buys over SSE4.1 (a pixel's taps are too few to fill 16 lanes). */
INLINE AVX2 void rows_avx2(const MbHMasks *m, const uint8_t *in0, const uint8_t *in1, uint8_t *out0, uint8_t *out1,
                           const int *offsets, const int *positions, int count, const int bands) {
    const __m256i lo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) pair_shuffles[bands][0]));
    const __m256i hi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) pair_shuffles[bands][1]));
    const int steps = m->steps, step_bytes = m->step_bytes;
    for (int x = 0; x < count; x++) {
        const uint8_t *p0 = in0 + offsets[x], *p1 = in1 + offsets[x];
        const int16_t *k = m->vector_masks + positions[x] * steps * 16;
        __m256i acc = _mm256_setzero_si256();
        for (int s = 0; s < steps; s++, p0 += step_bytes, p1 += step_bytes, k += 16) {
            const __m256i source = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *) p0)),
                                                           _mm_loadu_si128((const __m128i *) p1), 1);
            const __m256i k_lo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) k));
            const __m256i k_hi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) (k + 8)));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_shuffle_epi8(source, lo), k_lo));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_shuffle_epi8(source, hi), k_hi));
        }
        const uint32_t pixel0 = finish_sse41(_mm256_castsi256_si128(acc), bands);
        const uint32_t pixel1 = finish_sse41(_mm256_extracti128_si256(acc, 1), bands);
        memcpy(out0 + x * bands, &pixel0, bands);
        memcpy(out1 + x * bands, &pixel1, bands);
    }
}

AVX2 void mb_reduceh_rows_avx2(const MbHMasks *m, const uint8_t *in0, const uint8_t *in1, uint8_t *out0, uint8_t *out1,
                               const int *offsets, const int *positions, int count) {
#define ROWS(bands) rows_avx2(m, in0, in1, out0, out1, offsets, positions, count, bands)
    BY_BANDS(m->bands, ROWS)
#undef ROWS
}

/* Vertical: 16-bit sums (see mb_reducev_row_scalar), 16 samples a block with SSE4.1, 32 with AVX2. */
INLINE SSE41 void vertical_block_sse41(const uint8_t *p, int lskip, const int16_t *k, int n, uint8_t *out) {
    __m128i sum0 = _mm_set1_epi16(1 << (V_SHIFT - 1)), sum1 = sum0;
    for (int i = 0; i < n; i++, p += lskip) {
        const __m128i weight = _mm_set1_epi16(k[i]);
        const __m128i source = _mm_loadu_si128((const __m128i *) p);
        sum0 = _mm_add_epi16(sum0, _mm_mullo_epi16(_mm_cvtepu8_epi16(source), weight));
        sum1 = _mm_add_epi16(sum1, _mm_mullo_epi16(_mm_unpackhi_epi8(source, _mm_setzero_si128()), weight));
    }
    _mm_storeu_si128((__m128i *) out, _mm_packus_epi16(_mm_srai_epi16(sum0, V_SHIFT), _mm_srai_epi16(sum1, V_SHIFT)));
}

INLINE AVX2 void vertical_block_avx2(const uint8_t *p, int lskip, const int16_t *k, int n, uint8_t *out) {
    __m256i sum0 = _mm256_set1_epi16(1 << (V_SHIFT - 1)), sum1 = sum0;
    for (int i = 0; i < n; i++, p += lskip) {
        const __m256i weight = _mm256_set1_epi16(k[i]);
        const __m256i source0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *) p));
        const __m256i source1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *) (p + 16)));
        sum0 = _mm256_add_epi16(sum0, _mm256_mullo_epi16(source0, weight));
        sum1 = _mm256_add_epi16(sum1, _mm256_mullo_epi16(source1, weight));
    }
    /* packus works within 128-bit halves: put the four quarters back in order. */
    const __m256i packed = _mm256_packus_epi16(_mm256_srai_epi16(sum0, V_SHIFT), _mm256_srai_epi16(sum1, V_SHIFT));
    _mm256_storeu_si256((__m256i *) out, _mm256_permute4x64_epi64(packed, 0xD8));
}

/* A row of `ne` samples in blocks of WIDTH with BLOCK, to the last sample: the tail is done again from
 * ne - WIDTH (the same samples give the same results); a row shorter than one block goes to SHORTER. */
#define VERTICAL_ROW(WIDTH, BLOCK, SHORTER)                                                                           \
    do {                                                                                                              \
        if (ne < (WIDTH)) {                                                                                           \
            SHORTER(in, lskip, k, n, out, ne);                                                                        \
            return;                                                                                                   \
        }                                                                                                             \
        for (int z = 0;; z += (WIDTH)) {                                                                              \
            if (z > ne - (WIDTH))                                                                                     \
                z = ne - (WIDTH);                                                                                     \
            BLOCK(in + z, lskip, k, n, out + z);                                                                      \
            if (z == ne - (WIDTH))                                                                                    \
                break;                                                                                                \
        }                                                                                                             \
    } while (0)

SSE41 void mb_reducev_row_sse41(const uint8_t *in, int lskip, const int16_t *k, int n, uint8_t *out, int ne) {
    VERTICAL_ROW(16, vertical_block_sse41, mb_reducev_row_scalar);
}

AVX2 void mb_reducev_row_avx2(const uint8_t *in, int lskip, const int16_t *k, int n, uint8_t *out, int ne) {
    VERTICAL_ROW(32, vertical_block_avx2, mb_reducev_row_sse41);
}

#endif
