#include "mediabatch_colour.h"

static inline int32_t clamp14(int32_t v) {
    return v < 0 ? 0 : v > 16384 ? 16384 : v;
}

void mb_matrix_shaper_8(const int32_t *input, const int32_t *matrix, const uint8_t *output, const uint8_t *in,
                        uint8_t *out, size_t pixels, int bands) {
    const int32_t *m = matrix;
    const uint8_t *out_r = output, *out_g = output + 16385, *out_b = output + 2 * 16385;
    for (size_t i = 0; i < pixels; i++, in += bands, out += bands) {
        const int32_t r = input[in[0]], g = input[256 + in[1]], b = input[512 + in[2]];
        /* lcms rounds each row's sum once: + 0x2000, then >> 14 (an arithmetic shift, as lcms'). */
        out[0] = out_r[clamp14((m[0] * r + m[1] * g + m[2] * b + 0x2000) >> 14)];
        out[1] = out_g[clamp14((m[3] * r + m[4] * g + m[5] * b + 0x2000) >> 14)];
        out[2] = out_b[clamp14((m[6] * r + m[7] * g + m[8] * b + 0x2000) >> 14)];
        if (bands == 4)
            out[3] = in[3];
    }
}
