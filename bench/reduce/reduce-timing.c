/* The Lanczos-3 passes alone, one libvips thread: libvips' vips_reduceh / vips_reducev against
 * mediabatch's mb_reduceh / mb_reducev at each instruction-set level the CPU has, on one image
 * decoded into memory first, to 2048 px wide (so by the same factor vertically). Each case
 * computes the whole output into memory.
 *
 *   bench/reduce/build.sh && bench/.work/reduce/reduce-timing samples/livephoto/train.jpg 15 */
#include "mediabatch_shim.h"
#include "timing.h"

#include <stdio.h>
#include <vips/vector.h>

enum { MAX_RUNS = 101 };

typedef int (*Reduce)(VipsImage *in, VipsImage **out, double shrink, double gap);

static double run(Reduce reduce, VipsImage *in, double shrink) {
    const double start = now_ms();
    VipsImage *out;
    size_t size;
    void *pixels;
    if (reduce(in, &out, shrink, 2.0) || !(pixels = vips_image_write_to_memory(out, &size))) {
        fprintf(stderr, "%s\n", vips_error_buffer());
        exit(1);
    }
    const double elapsed = now_ms() - start;
    g_free(pixels);
    g_object_unref(out);
    return elapsed;
}

int main(int argc, char **argv) {
    if (argc < 2 || VIPS_INIT(argv[0]))
        return 2;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    VipsImage *file = vips_image_new_from_file(argv[1], NULL), *in;
    if (!file || !(in = vips_image_copy_memory(file)))
        return 1;
    const int runs = argc > 2 ? VIPS_CLIP(1, atoi(argv[2]), MAX_RUNS) : 11;
    const double shrink = in->Xsize / 2048.0;
    const struct {
        const char *name;
        Reduce reduce;
        int level;
    } cases[] = {
        {"vips_reduceh (libvips)", mb_libvips_reduceh, 0}, {"mb_reduceh scalar", mb_reduceh, MB_REDUCE_SCALAR},
        {"mb_reduceh SSE4.1", mb_reduceh, MB_REDUCE_SSE41}, {"mb_reduceh AVX2", mb_reduceh, MB_REDUCE_AVX2},
        {"vips_reducev (libvips)", mb_libvips_reducev, 0}, {"mb_reducev scalar", mb_reducev, MB_REDUCE_SCALAR},
        {"mb_reducev SSE4.1", mb_reducev, MB_REDUCE_SSE41}, {"mb_reducev AVX2", mb_reducev, MB_REDUCE_AVX2},
    };
    enum { CASES = sizeof cases / sizeof cases[0] };
    static double times[CASES][MAX_RUNS];
    for (int r = 0; r < runs; r++)
        for (int c = 0; c < CASES; c++) {
            mb_reduce_force_level(cases[c].level);
            times[c][r] = run(cases[c].reduce, in, shrink);
        }
    printf("%s: %dx%d by %.5f, libvips %s (vector %s), %d rounds; median (fastest) ms, one thread\n", argv[1], in->Xsize,
           in->Ysize, shrink, vips_version_string(), vips_vector_isenabled() ? "on" : "off", runs);
    for (int c = 0; c < CASES; c++) {
        if (cases[c].level && mb_reduce_force_level(cases[c].level) != cases[c].level)
            continue; /* the CPU lacks it: that row measured a lower level */
        const double median = median_ms(times[c], runs);
        printf("  %-24s %7.1f  (%.1f)\n", cases[c].name, median, times[c][0]);
    }
    return 0;
}
