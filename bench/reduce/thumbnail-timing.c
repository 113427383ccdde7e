/* A whole thumbnail as VImage.thumbnail(of:maxSize:) makes it (decode with shrink-on-load,
 * reduce, orientation applied; pixels computed into memory, then also saved as JPEG q80), set up
 * as mediabatch sets libvips up (mb_vips_startup: one libvips thread per image, no cache):
 * libvips' own vips_thumbnail, which mediabatch called before, against mb_vips_thumbnail.
 *
 *   bench/reduce/build.sh && bench/.work/reduce/thumbnail-timing 15 2048 samples/livephoto/train.jpg samples/heic/IMG_1034.heic */
#include "mediabatch_shim.h"
#include "timing.h"

#include <stdio.h>

enum { MAX_RUNS = 101, CASES = 4 };

static double once(const char *path, int size, gboolean ours, gboolean save) {
    const double start = now_ms();
    VipsImage *out;
    if (ours ? mb_vips_thumbnail(path, size, size, &out) : mb_libvips_thumbnail(path, size, size, VIPS_SIZE_DOWN, &out)) {
        fprintf(stderr, "%s\n", vips_error_buffer());
        exit(1);
    }
    void *bytes = NULL;
    size_t length;
    if (save ? vips_jpegsave_buffer(out, &bytes, &length, "Q", 80, NULL) : !(bytes = vips_image_write_to_memory(out, &length))) {
        fprintf(stderr, "%s\n", vips_error_buffer());
        exit(1);
    }
    const double elapsed = now_ms() - start;
    g_free(bytes);
    g_object_unref(out);
    return elapsed;
}

int main(int argc, char **argv) {
    /* The module of HEIF's loader, as mediabatch loads it: the inputs may be HEICs. */
    static const char *const modules[] = {"heif"};
    if (argc < 4 || mb_vips_startup(argv[0], modules, 1))
        return 2;
    const int runs = VIPS_CLIP(1, atoi(argv[1]), MAX_RUNS), size = atoi(argv[2]);
    static const char *names[CASES] = {"vips_thumbnail, pixels", "mb_vips_thumbnail, pixels",
                                       "vips_thumbnail + jpegsave q80", "mb_vips_thumbnail + jpegsave q80"};
    for (int f = 3; f < argc; f++) {
        static double times[CASES][MAX_RUNS];
        for (int r = 0; r < runs; r++)
            for (int c = 0; c < CASES; c++)
                times[c][r] = once(argv[f], size, c & 1, c >> 1);
        printf("%s to %d px, libvips %s, %d rounds; median (fastest) ms\n", argv[f], size, vips_version_string(), runs);
        for (int c = 0; c < CASES; c++) {
            const double median = median_ms(times[c], runs);
            printf("  %-34s %7.1f  (%.1f)\n", names[c], median, times[c][0]);
        }
    }
    return 0;
}
