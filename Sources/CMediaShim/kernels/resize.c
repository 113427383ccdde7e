/* mb_resize and the thumbnails mediabatch makes: libvips 8.14's vips_resize, vips_thumbnail and
 * vips_thumbnail_image for shrinking, step for step, with the Lanczos-3 passes replaced by
 * mb_reducev / mb_reduceh (reduce.c). Where libvips would do more than decode, reduce and rotate
 * (pyramids, pages, alpha premultiplication, colour conversion, upsizing), libvips' own operation
 * runs instead, so that every image gets what vips_thumbnail gives it. Tests/VipsKitTests/ResizeTests.swift
 * compares sizes, orientation and pixels with libvips' own operations, whichever of the two reduced. */
#include "mediabatch_resize.h"

/* ---- resize ---- */

int mb_libvips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

int mb_libvips_shrink(VipsImage *in, VipsImage **out, int factor) {
    return vips_shrink(in, out, factor, factor, "ceil", TRUE, NULL);
}

/* `*image` reduced by `pass` where `scale` shrinks it, the result in its place (the reference to
 * the image before handed over either way). */
static int reduce_by(VipsImage **image, int (*pass)(VipsImage *, VipsImage **, double, double), double scale, double gap) {
    VipsImage *next;
    if (scale >= 1.0)
        return 0;
    const int failed = pass(*image, &next, 1.0 / scale, gap);
    g_object_unref(*image);
    *image = failed ? NULL : next;
    return failed;
}

/* vips_resize's shrinking, for 8-bit images without alpha: its default kernel (Lanczos 3) and
 * gap (2: an integer box shrink first while that leaves at least twice the target), the vertical
 * pass before the horizontal, and no axis below one pixel. */
int mb_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    if (in->Coding != VIPS_CODING_NONE || in->BandFmt != VIPS_FORMAT_UCHAR || in->Bands > 4
        || vips_image_hasalpha(in) || hscale > 1.0 || vscale > 1.0)
        return mb_libvips_resize(in, out, hscale, vscale);
    const double gap = 2.0;
    hscale = VIPS_MAX(hscale, 1.0 / in->Xsize);
    vscale = VIPS_MAX(vscale, 1.0 / in->Ysize);
    VipsImage *reduced = g_object_ref(in);
    if (reduce_by(&reduced, mb_reducev, vscale, gap) || reduce_by(&reduced, mb_reduceh, hscale, gap))
        return -1;
    const int result = vips_copy(reduced, out, NULL);
    g_object_unref(reduced);
    return result;
}

/* ---- thumbnails ---- */

/* What a thumbnail is asked for: fit within width × height (VIPS_SIZE_DOWN, never upsized) or
 * exactly width × height (VIPS_SIZE_FORCE), both upright. */
typedef struct {
    int width, height;
    VipsSize size;
} Target;

int mb_libvips_thumbnail(const char *path, int width, int height, VipsSize size, VipsImage **out) {
    return vips_thumbnail(path, out, width, "height", height, "size", size, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

int mb_libvips_thumbnail_image(VipsImage *in, int width, int height, VipsSize size, VipsImage **out) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", size, NULL);
}

/* vips_thumbnail_calculate_shrink without crop, orientation applied: the target swapped for an
 * image stored sideways; one shrink for both axes unless forced; no upsizing with
 * VIPS_SIZE_DOWN; no axis shrunk below one pixel. */
static void thumbnail_shrink(const Target *t, gboolean swap, int width, int height, double *hshrink, double *vshrink) {
    *hshrink = (double) width / (swap ? t->height : t->width);
    *vshrink = (double) height / (swap ? t->width : t->height);
    if (t->size != VIPS_SIZE_FORCE)
        *hshrink = *vshrink = VIPS_MAX(*hshrink, *vshrink);
    if (t->size == VIPS_SIZE_DOWN) {
        *hshrink = VIPS_MAX(1, *hshrink);
        *vshrink = VIPS_MAX(1, *vshrink);
    }
    *hshrink = VIPS_MIN(*hshrink, width);
    *vshrink = VIPS_MIN(*vshrink, height);
}

static double common_shrink(const Target *t, gboolean swap, int width, int height) {
    double hshrink, vshrink;
    thumbnail_shrink(t, swap, width, height, &hshrink, &vshrink);
    return VIPS_MIN(hshrink, vshrink);
}

/* Whether vips_thumbnail would do no more to `image` than reduce it (and rotate it): one page of
 * 8-bit sRGB or greyscale without alpha, which its processing colour space leaves as it is. */
static gboolean only_reduced(VipsImage *image) {
    const VipsInterpretation interpretation = vips_image_get_interpretation(image);
    return image->Coding == VIPS_CODING_NONE && image->BandFmt == VIPS_FORMAT_UCHAR && !vips_image_hasalpha(image)
        && ((image->Bands == 3 && interpretation == VIPS_INTERPRETATION_sRGB)
            || (image->Bands == 1 && interpretation == VIPS_INTERPRETATION_B_W))
        && vips_image_get_n_pages(image) == 1 && vips_image_get_page_height(image) == image->Ysize
        && vips_image_get_n_subifds(image) == 0;
}

/* The second half of vips_thumbnail_build for an image only_reduced accepts: into the processing
 * colour space (sRGB or B_W: nothing to do), the shrink, back out of it, then upright. `in` is
 * the loaded (maybe shrunk-on-load) image; `orientation` and `swap` are the file's. */
static int shrink_and_rotate(VipsImage *in, const Target *t, int orientation, gboolean swap, VipsImage **out) {
    const VipsInterpretation space = in->Bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    VipsImage *x[5] = {NULL};
    double hshrink, vshrink;
    thumbnail_shrink(t, swap, in->Xsize, in->Ysize, &hshrink, &vshrink);
    int failed = vips_colourspace(in, &x[0], space, NULL) || mb_resize(x[0], &x[1], 1.0 / hshrink, 1.0 / vshrink)
        || vips_colourspace(x[1], &x[2], space, NULL);
    if (!failed && orientation != 1)
        /* In memory first, as vips_thumbnail does: rotating reads the image out of order. */
        failed = !(x[3] = vips_image_copy_memory(x[2])) || vips_autorot(x[3], &x[4], NULL);
    if (!failed)
        *out = g_object_ref(orientation != 1 ? x[4] : x[2]);
    for (int i = 0; i < 5; i++)
        VIPS_UNREF(x[i]);
    return failed ? -1 : 0;
}

/* What vips_thumbnail reads from the header before choosing how to load. */
typedef struct {
    const char *loader;
    int width, height, orientation, pages;
    gboolean swap, only_reduced;
} Header;

/* The loaders whose vips_thumbnail_file_open open_shrunk repeats. */
static gboolean loader_taken(const char *loader) {
    static const char *const taken[] = {"VipsForeignLoadJpeg", "VipsForeignLoadWebp", "VipsForeignLoadHeif",
                                        "VipsForeignLoadPng", "VipsForeignLoadTiff"};
    for (size_t i = 0; i < G_N_ELEMENTS(taken); i++)
        if (vips_isprefix(taken[i], loader))
            return TRUE;
    return FALSE;
}

static int read_header(const char *path, Header *h) {
    VipsImage *image;
    if (!(h->loader = vips_foreign_find_load(path)) || !(image = vips_image_new_from_file(path, NULL)))
        return -1;
    h->width = image->Xsize;
    h->height = image->Ysize;
    h->orientation = vips_image_get_orientation(image);
    h->swap = vips_image_get_orientation_swap(image);
    h->pages = image->Ysize / vips_image_get_page_height(image);
    h->only_reduced = loader_taken(h->loader) && only_reduced(image);
    g_object_unref(image);
    return 0;
}

/* vips_thumbnail's HEIF choice: its embedded thumbnail when that is still larger than the target
 * (a thumbnail that cannot be opened counts as none, as there). */
static VipsImage *open_heif(const char *path, const Header *h, const Target *t) {
    VipsImage *thumb = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                                                "thumbnail", TRUE, NULL);
    const gboolean use_thumbnail = thumb && thumb->Xsize < h->width
        && common_shrink(t, h->swap, thumb->Xsize, thumb->Ysize) > 1.0;
    VIPS_UNREF(thumb);
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                                    "thumbnail", use_thumbnail, NULL);
}

/* vips_thumbnail_file_open for the loaders taken (loader_taken): JPEG shrinks by 1, 2, 4 or 8
 * leaving at least twice the target for the reduce; WebP scales to the target; HEIF may take its
 * thumbnail; PNG and single-image TIFF load as they are. */
static VipsImage *open_shrunk(const char *path, const Header *h, const Target *t) {
    const double shrink = common_shrink(t, h->swap, h->width, h->height);
    if (vips_isprefix("VipsForeignLoadJpeg", h->loader)) {
        const int factor = shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1;
        return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                                        "shrink", factor, NULL);
    }
    if (vips_isprefix("VipsForeignLoadWebp", h->loader))
        return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR,
                                        "scale", 1.0 / VIPS_MAX(1.0, shrink), NULL);
    if (vips_isprefix("VipsForeignLoadHeif", h->loader))
        return open_heif(path, h, t);
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

/* An animated GIF's frames, stacked, resized as vips_thumbnail_image resizes them: each frame's shrink from its
 * height, the vertical one set so that frames stay whole rows, then one resize of the whole stack. */
static int resize_frames(VipsImage *in, int pages, const Target *t, VipsImage **out) {
    const int page_height = in->Ysize / pages;
    double hshrink, vshrink;
    thumbnail_shrink(t, FALSE, in->Xsize, page_height, &hshrink, &vshrink);
    const int target_page_height = VIPS_MAX(1, VIPS_RINT(page_height / vshrink));
    VipsImage *resized;
    if (mb_resize(in, &resized, 1.0 / hshrink, (double) (target_page_height * pages) / in->Ysize))
        return -1;
    const int failed = vips_copy(resized, out, NULL);
    g_object_unref(resized);
    if (!failed)
        vips_image_set_int(*out, "page-height", target_page_height);
    return failed;
}

/* libvips 8.14's GIF loader gives every frame an alpha band, which vips_thumbnail premultiplies and reduces in float:
 * most of an animation's time (bench/README.md). Where every pixel is opaque,
 * the frames are the same without that band, and mb_resize reduces them in 8 bits; else vips_thumbnail_image. */
static int thumbnail_gif_frames(const char *path, const Header *h, const Target *t, VipsImage **out) {
    VipsImage *x[4] = {NULL};
    double alpha = 255;
    int failed = !(x[0] = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL))
        || !(x[1] = vips_image_copy_memory(x[0]));
    if (!failed && x[1]->Bands == 4)
        failed = vips_extract_band(x[1], &x[2], 3, NULL) || vips_min(x[2], &alpha, NULL);
    const gboolean opaque = !failed && alpha == 255 && x[1]->BandFmt == VIPS_FORMAT_UCHAR && x[1]->Bands >= 3;
    if (!failed && opaque)
        failed = vips_extract_band(x[1], &x[3], 0, "n", 3, NULL) || resize_frames(x[3], h->pages, t, out);
    else if (!failed)
        failed = mb_libvips_thumbnail_image(x[1], t->width, t->height, t->size, out);
    for (int i = 0; i < 4; i++)
        VIPS_UNREF(x[i]);
    return failed ? -1 : 0;
}

static int thumbnail_file(const char *path, const Target *t, VipsImage **out) {
    Header h;
    if (read_header(path, &h))
        return -1;
    if (h.pages > 1 && vips_isprefix("VipsForeignLoadNsgif", h.loader))
        return thumbnail_gif_frames(path, &h, t, out);
    if (!h.only_reduced)
        return mb_libvips_thumbnail(path, t->width, t->height, t->size, out);
    VipsImage *in = open_shrunk(path, &h, t);
    if (!in)
        return -1;
    /* A HEIF thumbnail may differ from the image it stands for: the loaded image decides too. */
    const int result = only_reduced(in) ? shrink_and_rotate(in, t, h.orientation, h.swap, out)
                                        : mb_libvips_thumbnail(path, t->width, t->height, t->size, out);
    g_object_unref(in);
    return result;
}

int mb_vips_thumbnail(const char *path, int width, int height, VipsImage **out) {
    const Target t = {width, height, VIPS_SIZE_DOWN};
    return thumbnail_file(path, &t, out);
}

int mb_vips_thumbnail_exact(const char *path, int width, int height, VipsImage **out) {
    const Target t = {width, height, VIPS_SIZE_FORCE};
    return thumbnail_file(path, &t, out);
}

int mb_vips_resize_exact(VipsImage *in, int width, int height, VipsImage **out) {
    const Target t = {width, height, VIPS_SIZE_FORCE};
    if (!only_reduced(in))
        return mb_libvips_thumbnail_image(in, width, height, VIPS_SIZE_FORCE, out);
    /* vips_thumbnail_image reads through a line cache, so that a source opened sequentially is read
     * in order. Any other (a picture decoded into memory, and what is cut or turned from it) is read
     * in any order: a cache would only copy it (36 MB for a 12 MP HEIC), and bring a second one
     * after the vertical pass (mb_reducev, as vips_reducev, adds one after a sequential source). */
    VipsImage *source;
    if (!vips_image_is_sequential(in))
        source = g_object_ref(in);
    else if (vips_sequential(in, &source, "tile_height", 16, NULL))
        return -1;
    const int result = shrink_and_rotate(source, &t, vips_image_get_orientation(in),
                                         vips_image_get_orientation_swap(in), out);
    g_object_unref(source);
    return result;
}
