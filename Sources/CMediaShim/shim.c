#include "mediabatch_shim.h"

#include <malloc.h>

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

int mb_vips_save_buffer(VipsImage *in, MbSaver saver, int quality, int effort, void **buf, size_t *len) {
    switch (saver) {
    case MB_SAVER_JPEG:
        return vips_jpegsave_buffer(in, buf, len, "Q", quality, NULL);
    case MB_SAVER_PNG:
        return vips_pngsave_buffer(in, buf, len, NULL);
    case MB_SAVER_GIF:
        return vips_gifsave_buffer(in, buf, len, NULL);
    case MB_SAVER_WEBP:
        return vips_webpsave_buffer(in, buf, len, "Q", quality, "effort", effort, NULL);
    case MB_SAVER_TIFF:
        return vips_tiffsave_buffer(in, buf, len, NULL);
    case MB_SAVER_HEIC:
        return vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
    case MB_SAVER_AVIF:
        return vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort",
                                    effort, NULL);
    case MB_SAVER_JXL:
        return vips_jxlsave_buffer(in, buf, len, "Q", quality, "effort", effort, NULL);
    }
    vips_error("mediabatch", "no saver %d", (int) saver);
    return -1;
}

static const char *const mb_watch_key = "mediabatch-watch-failed";

static int mb_watch_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *in = (VipsRegion *) seq;
    VipsRect *valid = &out->valid;
    if (vips_region_prepare(in, valid)) {
        g_atomic_int_set((int *) b, 1);
        return -1;
    }
    return vips_region_region(out, in, valid, valid->left, valid->top);
}

int mb_vips_watch(VipsImage *in, VipsImage **out) {
    int *failed = g_new0(int, 1);
    *out = vips_image_new();
    g_object_set_data_full(G_OBJECT(*out), mb_watch_key, failed, g_free);
    /* The pass-through reads `in` for as long as it lives. */
    g_object_set_data_full(G_OBJECT(*out), "mediabatch-watch-in", g_object_ref(in), g_object_unref);
    if (vips_image_pipelinev(*out, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)
        || vips_image_generate(*out, vips_start_one, mb_watch_generate, vips_stop_one, in, failed)) {
        VIPS_UNREF(*out);
        return -1;
    }
    return 0;
}

int mb_vips_watch_failed(VipsImage *watched) {
    const int *failed = g_object_get_data(G_OBJECT(watched), mb_watch_key);
    return failed ? g_atomic_int_get(failed) : 0;
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
