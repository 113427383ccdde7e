/* libvips 8.14's vips_shrinkv then vips_shrinkh ("ceil") for strips of rows: see mediabatch_shrink.h. */
#include "mediabatch_shrink.h"

#include <string.h>

/* One pass's mean of `factor` samples, rounded as libvips' integer paths round it. */
static inline uint32_t mean(uint32_t sum, int factor) {
    return (sum + (uint32_t) factor / 2) / (uint32_t) factor;
}

#define SHRINK_ROWS(NAME, T)                                                                            \
    static void NAME(const uint8_t *in, ptrdiff_t in_stride, int width, int rows, int bands, int factor,  \
                     uint8_t *out, ptrdiff_t out_stride, uint32_t *sums) {                               \
        const int samples = width * bands, out_width = (width + factor - 1) / factor;                   \
        for (int group = 0; group * factor < rows; group++) {                                            \
            memset(sums, 0, (size_t) samples * sizeof *sums);                                            \
            for (int i = 0; i < factor; i++) {                                                           \
                const int y = group * factor + i < rows ? group * factor + i : rows - 1;                 \
                const T *row = (const T *) (in + y * in_stride);                                         \
                for (int x = 0; x < samples; x++)                                                        \
                    sums[x] += row[x];                                                                   \
            }                                                                                            \
            for (int x = 0; x < samples; x++)                                                            \
                sums[x] = mean(sums[x], factor);                                                         \
            T *shrunk = (T *) (out + group * out_stride);                                                \
            for (int column = 0; column < out_width; column++)                                           \
                for (int b = 0; b < bands; b++) {                                                        \
                    uint32_t sum = 0;                                                                    \
                    for (int i = 0; i < factor; i++) {                                                   \
                        const int x = column * factor + i < width ? column * factor + i : width - 1;     \
                        sum += sums[x * bands + b];                                                      \
                    }                                                                                    \
                    shrunk[column * bands + b] = (T) mean(sum, factor);                                  \
                }                                                                                        \
        }                                                                                                \
    }

SHRINK_ROWS(shrink_rows8, uint8_t)
SHRINK_ROWS(shrink_rows16, uint16_t)

void mb_box_shrink(const void *in, ptrdiff_t in_stride, int width, int rows, int bands, int wide, int factor,
                   void *out, ptrdiff_t out_stride, uint32_t *sums) {
    (wide ? shrink_rows16 : shrink_rows8)(in, in_stride, width, rows, bands, factor, out, out_stride, sums);
}
