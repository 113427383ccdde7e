/* libFuzzer harness for mediabatch's Lanczos-3 reduce (Sources/CMediaShim/kernels/reduce.c and
 * reduce_kernels.c, compiled into it with ASan), over random sizes, band counts, shrinks and
 * pixels. For each input it reduces one way at every level the CPU has and checks:
 *
 * - every level gives the same samples as the scalar loop (they compute the same integers);
 * - those samples are libvips' own (vips_reduceh / vips_reducev, run beside) within 1;
 * - the output is the size libvips gives, and both fail or neither does.
 *
 * ASan catches reads outside the regions and the mask tables. The input image goes through
 * vips_invert first, so that each region the reduce reads is a buffer libvips allocated for that
 * request (ASan's redzones right behind it), not a window into one large image.
 *
 * Input: 8 bytes of parameters, then the pixels (repeated to fill the image):
 *   0-1 width - 1 (little endian, up to 1023)   2 height - 1 (up to 63)   3 bands (1-4)
 *   4-5 shrink: 1 + value / 4096 (up to 17)      6 bit 0: vertical, bit 1: gap 2 (else none)
 *   7   unused (room for the dictionary-free mutator to shift bytes through)
 */
#include "mediabatch_shim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(int condition, const char *what, const uint8_t *params) {
    if (condition)
        return;
    fprintf(stderr, "finding: %s (width %d, height %d, bands %d, shrink raw %d, flags %d)\n", what,
            (params[0] | params[1] << 8) % 1024 + 1, params[2] % 64 + 1, params[3] % 4 + 1, params[4] | params[5] << 8,
            params[6]);
    abort();
}

/* The samples of `image`, or NULL (with libvips' error cleared) when computing it fails. */
static uint8_t *samples(VipsImage *image, size_t *size) {
    uint8_t *bytes = vips_image_write_to_memory(image, size);
    if (!bytes)
        vips_error_clear();
    return bytes;
}

typedef int (*Reduce)(VipsImage *in, VipsImage **out, double shrink, double gap);

/* Reduces `in` with `reduce`; the samples and size, or NULL when it fails. */
static uint8_t *reduced(Reduce reduce, VipsImage *in, double shrink, double gap, int *width, int *height, size_t *size) {
    VipsImage *out;
    if (reduce(in, &out, shrink, gap)) {
        vips_error_clear();
        return NULL;
    }
    *width = out->Xsize;
    *height = out->Ysize;
    uint8_t *bytes = samples(out, size);
    g_object_unref(out);
    return bytes;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    if (VIPS_INIT((*argv)[0]))
        abort();
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 9)
        return 0;
    const int width = (data[0] | data[1] << 8) % 1024 + 1, height = data[2] % 64 + 1, bands = data[3] % 4 + 1;
    const double shrink = 1 + (data[4] | data[5] << 8) / 4096.0, gap = data[6] & 2 ? 2.0 : 0.0;
    const int vertical = data[6] & 1;
    const size_t count = (size_t) width * height * bands;
    uint8_t *pixels = malloc(count);
    for (size_t i = 0; i < count; i++)
        pixels[i] = data[8 + i % (size - 8)];
    VipsImage *memory = vips_image_new_from_memory(pixels, count, width, height, bands, VIPS_FORMAT_UCHAR), *in;
    require(memory && !vips_invert(memory, &in, NULL), "input image", data);

    int ref_width = 0, ref_height = 0;
    size_t ref_size = 0;
    uint8_t *reference = reduced(vertical ? mb_libvips_reducev : mb_libvips_reduceh, in, shrink, gap, &ref_width, &ref_height, &ref_size);
    uint8_t *scalar = NULL;
    for (int level = MB_REDUCE_SCALAR; level <= MB_REDUCE_AVX2 && mb_reduce_force_level(level) == level; level++) {
        int our_width = 0, our_height = 0;
        size_t our_size = 0;
        uint8_t *ours = reduced(vertical ? mb_reducev : mb_reduceh, in, shrink, gap, &our_width, &our_height, &our_size);
        require(!ours == !reference, "one failed, the other did not", data);
        if (ours) {
            require(our_width == ref_width && our_height == ref_height && our_size == ref_size, "size differs from libvips'", data);
            for (size_t i = 0; i < our_size; i++)
                require(abs(ours[i] - reference[i]) <= 1, "sample off libvips' by more than 1", data);
            require(!scalar || memcmp(ours, scalar, our_size) == 0, "a vector level differs from the scalar loop", data);
        }
        if (level == MB_REDUCE_SCALAR)
            scalar = ours;
        else
            g_free(ours);
    }
    mb_reduce_force_level(MB_REDUCE_AUTO);
    g_free(scalar);
    g_free(reference);
    g_object_unref(in);
    g_object_unref(memory);
    free(pixels);
    return 0;
}
