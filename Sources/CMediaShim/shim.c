#include "mediabatch_shim.h"

#include <malloc.h>
#include <string.h>

static void mb_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
}

int mb_vips_startup(const char *argv0) {
    if (VIPS_INIT(argv0) != 0)
        return -1;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_block_untrusted_set(TRUE);
    /* Per-tile warnings ("error in tile 0 x 688") flood stderr for one broken file; the item's
     * error, from the failing return code, already says what went wrong. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, mb_ignore_log, NULL);
    /* Measured here: 2 HEIC jobs peak at ~460 MiB RSS with glibc defaults, ~250 MiB with these.
     * Frame-sized buffers (over 1 MiB) go straight back to the kernel when freed; a lower
     * threshold (128 KiB) also mmaps line buffers and cost 8% of JPEG throughput. */
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
    mallopt(M_ARENA_MAX, 2);
    return 0;
}

VipsImage *mb_vips_open_strict(const char *path) {
    return vips_image_new_from_file(path, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

int mb_vips_copy(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, NULL);
}

int mb_vips_save(VipsImage *in, const char *path, const char *format, int quality, int effort) {
    if (strcmp(format, "jpeg") == 0)
        return vips_jpegsave(in, path, "Q", quality, NULL);
    if (strcmp(format, "png") == 0)
        return vips_pngsave(in, path, NULL);
    if (strcmp(format, "webp") == 0)
        return vips_webpsave(in, path, "Q", quality, "effort", effort, NULL);
    if (strcmp(format, "gif") == 0)
        return vips_gifsave(in, path, NULL);
    if (strcmp(format, "tiff") == 0)
        return vips_tiffsave(in, path, NULL);
    if (strcmp(format, "heif") == 0)
        return vips_heifsave(in, path, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
    if (strcmp(format, "avif") == 0)
        return vips_heifsave(in, path, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", effort, NULL);
    vips_error("mediabatch", "no saver for format \"%s\"", format);
    return -1;
}

int mb_vips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

int mb_vips_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, NULL);
}

int mb_release_free_memory(size_t keep_bytes) {
    if (mallinfo2().fordblks <= keep_bytes)
        return 0;
    return malloc_trim(0);
}
