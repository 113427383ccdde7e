/* An 8-bit matrix-shaper transform as Little CMS 2.14 evaluates it (cmsopt.c: OptimizeMatrixShaper, MatShaperEval16),
 * sample for sample: see mediabatch_colour.h. Tests/MediaBatchCoreTests/ICCMatrixShaperTests.swift proves both loops,
 * scalar and SSE4.1, against Little CMS through libvips' icc_transform on real photos. */
#include "mediabatch_colour.h"

#include <stdatomic.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static atomic_int forced_scalar;

void mb_matrix_shaper_force_scalar(int scalar) {
    atomic_store(&forced_scalar, scalar);
}

void mb_matrix_shaper_contributions(const int32_t *input, const int32_t *matrix, int32_t *contributions) {
    for (int channel = 0; channel < 3; channel++)
        for (int value = 0; value < 256; value++) {
            int32_t *lanes = contributions + (channel * 256 + value) * 4;
            for (int row = 0; row < 3; row++)
                lanes[row] = matrix[row * 3 + channel] * input[channel * 256 + value];
            lanes[3] = 0;
        }
}

static inline int32_t clamp14(int32_t v) {
    return v < 0 ? 0 : v > 16384 ? 16384 : v;
}

/* lcms rounds each row's sum once: + 0x2000, then >> 14 (an arithmetic shift, as lcms'). */
static void shaper_scalar(const int32_t *contributions, const uint8_t *output, const uint8_t *in, uint8_t *out,
                          size_t pixels, int bands) {
    for (size_t i = 0; i < pixels; i++, in += bands, out += bands) {
        const int32_t *r = contributions + in[0] * 4, *g = contributions + (256 + in[1]) * 4,
                      *b = contributions + (512 + in[2]) * 4;
        for (int row = 0; row < 3; row++)
            out[row] = output[row * 16385 + clamp14((r[row] + g[row] + b[row] + 0x2000) >> 14)];
        if (bands == 4)
            out[3] = in[3];
    }
}

#if defined(__x86_64__)
/* The same sums, a pixel's three rows in one vector (three adds instead of nine multiplies). */
static __attribute__((target("sse4.1"))) void shaper_sse41(const int32_t *contributions, const uint8_t *output,
                                                           const uint8_t *in, uint8_t *out, size_t pixels, int bands) {
    const __m128i round = _mm_set1_epi32(0x2000), zero = _mm_setzero_si128(), top = _mm_set1_epi32(16384);
    for (size_t i = 0; i < pixels; i++, in += bands, out += bands) {
        const __m128i r = _mm_loadu_si128((const __m128i *) (contributions + in[0] * 4));
        const __m128i g = _mm_loadu_si128((const __m128i *) (contributions + (256 + in[1]) * 4));
        const __m128i b = _mm_loadu_si128((const __m128i *) (contributions + (512 + in[2]) * 4));
        __m128i sum = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(_mm_add_epi32(r, g), b), round), 14);
        sum = _mm_min_epi32(_mm_max_epi32(sum, zero), top);
        out[0] = output[_mm_cvtsi128_si32(sum)];
        out[1] = output[16385 + _mm_extract_epi32(sum, 1)];
        out[2] = output[2 * 16385 + _mm_extract_epi32(sum, 2)];
        if (bands == 4)
            out[3] = in[3];
    }
}
#endif

void mb_matrix_shaper_8(const int32_t *contributions, const uint8_t *output, const uint8_t *in, uint8_t *out,
                        size_t pixels, int bands) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.1") && !atomic_load(&forced_scalar))
        return shaper_sse41(contributions, output, in, out, pixels, bands);
#endif
    shaper_scalar(contributions, output, in, out, pixels, bands);
}

typedef struct {
    int32_t contributions[3 * 256 * 4];
    const uint8_t *output;
} MbShaperTables;

static int matrix_shaper_gen(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *ir = seq;
    const MbShaperTables *t = b;
    const VipsRect *r = &out_region->valid;
    if (vips_region_prepare(ir, r))
        return -1;
    for (int y = r->top; y < VIPS_RECT_BOTTOM(r); y++)
        mb_matrix_shaper_8(t->contributions, t->output, VIPS_REGION_ADDR(ir, r->left, y),
                           VIPS_REGION_ADDR(out_region, r->left, y), r->width, ir->im->Bands);
    return 0;
}

int mb_vips_matrix_shaper(VipsImage *in, const int32_t *input, const int32_t *matrix, const uint8_t *output,
                          const void *profile, size_t profile_length, VipsImage *out) {
    MbShaperTables tables = {.output = output};
    mb_matrix_shaper_contributions(input, matrix, tables.contributions);
    VipsImage *converted = vips_image_new();
    const int failed = vips_image_pipelinev(converted, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)
        || vips_image_generate(converted, vips_start_one, matrix_shaper_gen, vips_stop_one, in, &tables)
        || vips_image_write(converted, out);
    g_object_unref(converted);
    if (!failed)
        vips_image_set_blob_copy(out, VIPS_META_ICC_NAME, profile, profile_length);
    return failed ? -1 : 0;
}
