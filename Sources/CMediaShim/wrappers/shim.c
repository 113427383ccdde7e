/* dladdr (mb_vips_module_folder) */
#define _GNU_SOURCE
#include "mediabatch_wrappers.h"
#include "mediabatch_savers.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <malloc.h>
#include <string.h>

static void mb_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
}

/* The folder libvips looks for its modules in: beside the libvips library this process runs
 * (libvips' own guess is its configure-time libdir, the same folder for a packaged libvips). */
static gchar *mb_vips_module_folder(void) {
    Dl_info library;
    if (!dladdr((void *) vips_init, &library) || !library.dli_fname)
        return NULL;
    gchar *folder = g_path_get_dirname(library.dli_fname);
    gchar *modules = g_strdup_printf("%s/vips-modules-%d.%d", folder, vips_version(0), vips_version(1));
    g_free(folder);
    return modules;
}

/* libvips scans $VIPSHOME's libdir when VIPSHOME is set: a prefix with no modules stops the scan.
 * The caller's value (or its absence) is put back after. */
static int mb_vips_init_without_modules(const char *argv0) {
    gchar *previous = g_strdup(g_getenv("VIPSHOME"));
    g_setenv("VIPSHOME", "/nonexistent", TRUE);
    int result = VIPS_INIT(argv0);
    if (previous)
        g_setenv("VIPSHOME", previous, TRUE);
    else
        g_unsetenv("VIPSHOME");
    g_free(previous);
    return result;
}

int mb_vips_startup(const char *argv0, const char *const *modules, int count) {
    if (mb_vips_init_without_modules(argv0) != 0)
        return -1;
    gchar *folder = mb_vips_module_folder();
    for (int i = 0; folder && i < count; i++) {
        gchar *path = g_strdup_printf("%s/vips-%s.so", folder, modules[i]);
        /* As libvips loads them: lazily bound, never unloaded (they register types). A module
         * this build lacks, or has built in, is simply not there. */
        GModule *module = g_file_test(path, G_FILE_TEST_EXISTS) ? g_module_open(path, G_MODULE_BIND_LAZY) : NULL;
        if (module)
            g_module_make_resident(module);
        g_free(path);
    }
    g_free(folder);
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_block_untrusted_set(TRUE);
    /* Per-tile warnings ("error in tile 0 x 688") flood stderr for one broken file; the item's
     * error, from the failing return code, already says what went wrong. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, mb_ignore_log, NULL);
    /* Frame-sized buffers (over 1 MiB) go straight back to the kernel when freed, and two arenas
     * hold what threads free: far less RSS for HEIC jobs than glibc's defaults. A lower threshold
     * (128 KiB) would also mmap line buffers, which costs JPEG throughput (bench/README.md). */
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
    mallopt(M_ARENA_MAX, 2);
    return 0;
}

VipsImage *mb_vips_open_strict(const char *path) {
    return vips_image_new_from_file(path, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

VipsImage *mb_vips_open_strict_in_memory(const char *path) {
    gchar *contents;
    gsize length;
    GError *error = NULL;
    if (!g_file_get_contents(path, &contents, &length, &error)) {
        vips_error("mediabatch", "%s", error->message);
        g_error_free(error);
        return NULL;
    }
    /* The source holds the blob, the loader the source: the bytes go with the last of them. */
    VipsBlob *blob = vips_blob_new((VipsCallbackFn) g_free, contents, length);
    VipsSource *source = vips_source_new_from_blob(blob);
    vips_area_unref(VIPS_AREA(blob));
    if (!source)
        return NULL;
    VipsImage *image = vips_image_new_from_source(source, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    g_object_unref(source);
    return image;
}

int mb_vips_copy(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, NULL);
}

int mb_vips_save_buffer(VipsImage *in, MbSaver saver, int quality, int effort, void **buf, size_t *len) {
    switch (saver) {
#define SAVE(name, nickname, call) case MB_SAVER_##name: return call;
        MB_SAVERS(SAVE)
#undef SAVE
    }
    vips_error("mediabatch", "no saver %d", (int) saver);
    return -1;
}

const char *mb_vips_saver_nickname(MbSaver saver) {
    switch (saver) {
#define NICKNAME(name, nickname, call) case MB_SAVER_##name: return nickname;
        MB_SAVERS(NICKNAME)
#undef NICKNAME
    }
    return NULL;
}

char *mb_vips_saver_for_suffix(const char *suffix) {
    const char *name = vips_foreign_find_save_target(suffix);
    const char *nickname = name ? vips_nickname_find(g_type_from_name(name)) : NULL;
    if (!nickname)
        return NULL;
    return g_str_has_suffix(nickname, "_target") ? g_strndup(nickname, strlen(nickname) - strlen("_target")) : g_strdup(nickname);
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

/* What a tally adds up: each cell's luma sum and pixel count; each row's pixels added, and which
 * row segments were (libvips computes strips or tiles, and may compute one twice: the segments of
 * one image are the same each time). One worker thread computes here, but a lock costs nothing a tile. */
typedef struct {
    GMutex lock;
    int side, width, height, bands, depth;
    double *sums;
    double *counts;
    int *added;
    unsigned char *starts;
    /* Each column's cell across, and the sampling step. */
    int *cells;
    int step;
} MbTally;

static void mb_tally_free(void *data) {
    MbTally *tally = data;
    g_mutex_clear(&tally->lock);
    g_free(tally->sums);
    g_free(tally->counts);
    g_free(tally->added);
    g_free(tally->starts);
    g_free(tally->cells);
    g_free(tally);
}

static double mb_tally_luma(const MbTally *tally, const VipsPel *pixel) {
    double sample[3];
    for (int band = 0; band < 3; band++) {
        const int from = tally->bands >= 3 ? band : 0;
        sample[band] = tally->depth == 2 ? ((const unsigned short *) pixel)[from] / 257.0 : pixel[from];
    }
    return 0.299 * sample[0] + 0.587 * sample[1] + 0.114 * sample[2];
}

static void mb_tally_add(MbTally *tally, VipsRegion *region, const VipsRect *rect) {
    g_mutex_lock(&tally->lock);
    for (int y = rect->top; y < rect->top + rect->height; y++) {
        const long start = (long) y * tally->width + rect->left;
        if (tally->starts[start])
            continue;
        tally->starts[start] = 1;
        tally->added[y] += rect->width;
        /* One pixel in `step` across and down is enough for a cell's mean: cells are step² pixels or more. */
        if (y % tally->step)
            continue;
        const int row = (int) ((long) y * tally->side / tally->height) * tally->side;
        const int first = (rect->left + tally->step - 1) / tally->step * tally->step;
        const int stride = tally->bands * tally->depth * tally->step;
        const VipsPel *pixel = VIPS_REGION_ADDR(region, first, y);
        for (int x = first; x < rect->left + rect->width; x += tally->step, pixel += stride) {
            const int cell = row + tally->cells[x];
            tally->sums[cell] += mb_tally_luma(tally, pixel);
            tally->counts[cell] += 1;
        }
    }
    g_mutex_unlock(&tally->lock);
}

static int mb_tally_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *in = (VipsRegion *) seq;
    VipsRect *valid = &out->valid;

    if (vips_region_prepare(in, valid) || vips_region_region(out, in, valid, valid->left, valid->top))
        return -1;
    mb_tally_add((MbTally *) b, in, valid);
    return 0;
}

int mb_vips_tally(VipsImage *in, int side, VipsImage **out) {
    MbTally *tally = g_new0(MbTally, 1);
    g_mutex_init(&tally->lock);
    tally->side = side;
    tally->width = in->Xsize;
    tally->height = in->Ysize;
    tally->bands = in->Bands;
    tally->depth = in->BandFmt == VIPS_FORMAT_USHORT ? 2 : in->BandFmt == VIPS_FORMAT_UCHAR ? 1 : 0;
    tally->sums = g_new0(double, side * side);
    tally->counts = g_new0(double, side * side);
    tally->added = g_new0(int, in->Ysize);
    tally->starts = g_new0(unsigned char, (gsize) in->Xsize * in->Ysize);
    tally->cells = g_new(int, in->Xsize);
    for (int x = 0; x < in->Xsize; x++)
        tally->cells[x] = (int) ((long) x * side / in->Xsize);
    tally->step = VIPS_MAX(1, VIPS_MIN(in->Xsize, in->Ysize) / (8 * side));
    *out = vips_image_new();
    g_object_set_data_full(G_OBJECT(*out), "mediabatch-tally", tally, mb_tally_free);
    g_object_set_data_full(G_OBJECT(*out), "mediabatch-tally-in", g_object_ref(in), g_object_unref);
    if (vips_image_pipelinev(*out, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)
        || vips_image_generate(*out, vips_start_one, mb_tally_generate, vips_stop_one, in, tally)) {
        VIPS_UNREF(*out);
        return -1;
    }
    return 0;
}

int mb_vips_tally_grid(VipsImage *tallied, unsigned char *grid) {
    MbTally *tally = g_object_get_data(G_OBJECT(tallied), "mediabatch-tally");
    if (!tally || tally->depth == 0)
        return -1;
    for (int y = 0; y < tally->height; y++)
        if (tally->added[y] != tally->width)
            return -1;
    for (int cell = 0; cell < tally->side * tally->side; cell++)
        grid[cell] = tally->counts[cell] > 0 ? (unsigned char) (tally->sums[cell] / tally->counts[cell] + 0.5) : 0;
    return 0;
}

int mb_vips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

int mb_vips_crop(VipsImage *in, int left, int top, int width, int height, VipsImage **out) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int mb_vips_join_frames(VipsImage **frames, int n, VipsImage **out) {
    VipsImage *joined;
    if (vips_arrayjoin(frames, &joined, n, "across", 1, NULL))
        return -1;
    const int failed = vips_copy(joined, out, NULL);
    g_object_unref(joined);
    if (!failed)
        vips_image_set_int(*out, "page-height", frames[0]->Ysize);
    return failed;
}

int mb_vips_smartcrop(VipsImage *in, int width, int height, VipsInteresting interesting, VipsImage **out, int *left, int *top) {
    if (vips_smartcrop(in, out, width, height, "interesting", interesting, NULL))
        return -1;
    /* It ends in vips_extract_area, whose image records the cut as a negative offset. */
    *left = -(*out)->Xoffset;
    *top = -(*out)->Yoffset;
    return 0;
}

static double sample_scale(const VipsImage *image) {
    return image->BandFmt == VIPS_FORMAT_USHORT ? 257.0 : 1.0;
}

int mb_vips_pad(VipsImage *in, int left, int top, int width, int height, const double rgba[4], VipsImage **out) {
    VipsImage *t[2] = {NULL}, *x = in;
    int failed = 0;
    if (in->Bands < 3 && (rgba[0] != rgba[1] || rgba[1] != rgba[2])) {
        failed = vips_colourspace(x, &t[0], VIPS_INTERPRETATION_sRGB, NULL);
        x = t[0];
    }
    if (!failed && rgba[3] < 255 && !vips_image_hasalpha(x)) {
        failed = vips_bandjoin_const1(x, &t[1], 255 * sample_scale(x), NULL);
        x = t[1];
    }
    if (!failed) {
        const gboolean alpha = vips_image_hasalpha(x);
        const int colours = x->Bands - (alpha ? 1 : 0);
        double ink[4];
        int n = 0;
        for (int i = 0; i < colours && n < 3; i++)
            ink[n++] = rgba[colours >= 3 ? i : 0] * sample_scale(x);
        if (alpha)
            ink[n++] = rgba[3] * sample_scale(x);
        VipsArrayDouble *background = vips_array_double_new(ink, n);
        failed = vips_embed(x, out, left, top, width, height, "extend", VIPS_EXTEND_BACKGROUND, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
    }
    for (int i = 0; i < 2; i++)
        VIPS_UNREF(t[i]);
    return failed ? -1 : 0;
}

int mb_vips_flatten_white(VipsImage *in, VipsImage **out) {
    const double white[3] = {255 * sample_scale(in), 255 * sample_scale(in), 255 * sample_scale(in)};
    VipsArrayDouble *background = vips_array_double_new(white, in->Bands >= 4 ? 3 : 1);
    const int failed = vips_flatten(in, out, "background", background, "max_alpha", 255 * sample_scale(in), NULL);
    vips_area_unref(VIPS_AREA(background));
    return failed;
}

int mb_vips_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, NULL);
}

int mb_vips_srgb_profile(VipsBlob **out) {
    return vips_profile_load("srgb", out, NULL);
}

int mb_release_free_memory(size_t keep_bytes) {
    if (mallinfo2().fordblks <= keep_bytes)
        return 0;
    return malloc_trim(0);
}
