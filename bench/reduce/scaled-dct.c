/* Would decoding a JPEG smaller (libjpeg-turbo's scaled IDCT, 5/8, 6/8 or 7/8) and reducing less
 * beat decoding it whole and reducing more, now that the reduce is fast? One JPEG, read into
 * memory once, to fit 2048 px, one thread:
 *
 * - "shipped": mb_vips_thumbnail, what VImage.thumbnail does (libvips' jpegload, whole, and
 *   mediabatch's reduce, streaming);
 * - for each scale M/8: libjpeg-turbo decodes at M/8 into a buffer, then mb_resize reduces that
 *   to the same size; decode and reduce are timed apart.
 *
 * Each scaled result is compared with the shipped thumbnail (mean and largest sample difference):
 * a smaller decode is not the same image.
 *
 *   bench/reduce/build.sh && bench/.work/reduce/scaled-dct samples/livephoto/train.jpg 15 */
#include "mediabatch_shim.h"
#include "timing.h"

#include <jpeglib.h>
#include <stdio.h>
#include <string.h>

enum { MAX_RUNS = 101, TARGET = 2048 };

typedef struct {
    unsigned char *pixels;
    int width, height;
} Decoded;

/* Decodes `jpeg` to RGB at scale/8 with libjpeg's defaults (as libvips' jpegload leaves them). */
static Decoded decode(const unsigned char *jpeg, size_t size, int scale) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error;
    cinfo.err = jpeg_std_error(&error);
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, jpeg, size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = scale;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    Decoded d = {g_malloc((size_t) cinfo.output_width * cinfo.output_height * 3), cinfo.output_width, cinfo.output_height};
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = d.pixels + (size_t) cinfo.output_scanline * d.width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return d;
}

/* `d` reduced to fit TARGET with mb_resize (as mb_vips_thumbnail shrinks), into memory. */
static unsigned char *reduced(const Decoded *d, int *width, int *height) {
    VipsImage *in = vips_image_new_from_memory(d->pixels, (size_t) d->width * d->height * 3, d->width, d->height, 3,
                                               VIPS_FORMAT_UCHAR), *out;
    const double shrink = VIPS_MAX((double) d->width / TARGET, (double) d->height / TARGET);
    size_t size;
    unsigned char *pixels;
    if (!in || mb_resize(in, &out, 1.0 / shrink, 1.0 / shrink) || !(pixels = vips_image_write_to_memory(out, &size))) {
        fprintf(stderr, "%s\n", vips_error_buffer());
        exit(1);
    }
    *width = out->Xsize;
    *height = out->Ysize;
    g_object_unref(out);
    g_object_unref(in);
    return pixels;
}

static unsigned char *shipped(const char *path, size_t *size) {
    VipsImage *out;
    unsigned char *pixels;
    if (mb_vips_thumbnail(path, TARGET, TARGET, &out) || !(pixels = vips_image_write_to_memory(out, size))) {
        fprintf(stderr, "%s\n", vips_error_buffer());
        exit(1);
    }
    g_object_unref(out);
    return pixels;
}

int main(int argc, char **argv) {
    gsize jpeg_size;
    gchar *jpeg;
    if (argc < 2 || mb_vips_startup(argv[0], NULL, 0) || !g_file_get_contents(argv[1], &jpeg, &jpeg_size, NULL))
        return 2;
    const int runs = argc > 2 ? VIPS_CLIP(1, atoi(argv[2]), MAX_RUNS) : 11;
    static const int scales[] = {8, 7, 6, 5};
    static double decode_ms[4][MAX_RUNS], reduce_ms[4][MAX_RUNS], total_ms[4][MAX_RUNS], shipped_ms[MAX_RUNS];
    double mean[4] = {0};
    int largest[4] = {0}, sizes[4][2];
    for (int r = 0; r < runs; r++) {
        size_t reference_size;
        double start = now_ms();
        unsigned char *reference = shipped(argv[1], &reference_size);
        shipped_ms[r] = now_ms() - start;
        for (int s = 0; s < 4; s++) {
            start = now_ms();
            Decoded d = decode((const unsigned char *) jpeg, jpeg_size, scales[s]);
            const double decoded = now_ms();
            unsigned char *pixels = reduced(&d, &sizes[s][0], &sizes[s][1]);
            const double end = now_ms();
            decode_ms[s][r] = decoded - start;
            reduce_ms[s][r] = end - decoded;
            total_ms[s][r] = end - start;
            if (r == 0 && (size_t) sizes[s][0] * sizes[s][1] * 3 == reference_size) {
                long sum = 0;
                for (size_t i = 0; i < reference_size; i++) {
                    const int difference = abs(pixels[i] - reference[i]);
                    sum += difference;
                    largest[s] = VIPS_MAX(largest[s], difference);
                }
                mean[s] = (double) sum / reference_size;
            }
            g_free(pixels);
            g_free(d.pixels);
        }
        g_free(reference);
    }
    printf("%s to fit %d px, one thread, %d rounds; median ms\n", argv[1], TARGET, runs);
    printf("  shipped (jpegload whole + mb_resize, streaming)    %6.1f\n", median_ms(shipped_ms, runs));
    for (int s = 0; s < 4; s++)
        printf("  libjpeg %d/8 (%dx%d) + mb_resize: decode %6.1f  reduce %5.1f  total %6.1f   vs shipped: mean %.3f, largest %d\n",
               scales[s], sizes[s][0], sizes[s][1], median_ms(decode_ms[s], runs), median_ms(reduce_ms[s], runs),
               median_ms(total_ms[s], runs), mean[s], largest[s]);
    return 0;
}
