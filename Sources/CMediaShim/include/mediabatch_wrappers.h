/* Non-variadic wrappers around the libvips calls mediabatch needs.
 *
 * Swift cannot call C variadic functions (every libvips operation takes a NULL-terminated
 * option list) nor expand function-like macros (VIPS_INIT), so each wrapper here fixes the
 * options mediabatch uses and exposes a plain signature. Return values follow libvips:
 * 0 on success, -1 on failure with the reason in vips_error_buffer().
 */
#ifndef MEDIABATCH_WRAPPERS_H
#define MEDIABATCH_WRAPPERS_H

#include <vips/vips.h>

/* VIPS_INIT is a macro. Also sets libvips up for item-level parallelism: one libvips worker
 * thread per pipeline, operation cache off (every file is seen once), untrusted loaders
 * (ImageMagick, PDF, SVG, ...) blocked, and glibc malloc tuned against the RSS growth that
 * arena fragmentation causes in long libvips batches. Of libvips' modules (a build's optional
 * loaders, each a shared library beside libvips') it loads only the `count` named in `modules`
 * ("heif" for vips-heif.so): libvips loads every one it finds, and Debian's PDF and OpenSlide
 * modules would cost every process their dynamic linking, for formats mediabatch never reads. */
int mb_vips_startup(const char *argv0, const char *const *modules, int count);

/* vips_copy is variadic. A copy shares pixels but owns its metadata, so fields can be removed
 * without touching the image it came from. */
int mb_vips_copy(VipsImage *in, VipsImage **out);

/* A pass-through image over `in` that remembers whether computing `in` failed, so that a save
 * that fails can tell a decoder's error (a truncated file: the source failed) from the
 * encoder's, from return codes rather than from libvips' words. */
int mb_vips_watch(VipsImage *in, VipsImage **out);

/* 1 when computing the image `mb_vips_watch` made failed upstream of it, else 0. */
int mb_vips_watch_failed(VipsImage *watched);

/* A pass-through image over `in` (8- or 16-bit, 1 to 4 bands) that adds up each pixel's luma
 * into a `side` × `side` grid of cells as it streams into a saver: a small picture of what was
 * written, for a fingerprint, without keeping or decoding the picture again. */
int mb_vips_tally(VipsImage *in, int side, VipsImage **out);

/* The mean luma (0-255) of each cell of the image `mb_vips_tally` made, row by row, into `grid`
 * (side × side bytes); -1 when some row was not computed (the save failed) or `in` was not 8- or 16-bit. */
int mb_vips_tally_grid(VipsImage *tallied, unsigned char *grid);

/* vips_autorot is variadic. Turns the pixels as the orientation field says and resets it to 1:
 * for outputs whose orientation tag a keep-list drops. */
int mb_vips_autorot(VipsImage *in, VipsImage **out);

/* vips_extract_area is variadic: `cover`'s cut at a known place. */
int mb_vips_crop(VipsImage *in, int left, int top, int width, int height, VipsImage **out);

/* vips_arrayjoin is variadic, and its result keeps the first image's page-height: an animation's
 * frames, each shaped alike, stacked again into one tall image whose page-height is a frame's. */
int mb_vips_join_frames(VipsImage **frames, int n, VipsImage **out);

/* vips_smartcrop is variadic, and says where it cut only through its result's offsets: the
 * region `interesting` picks, and its place in `in` (for the gain map, cut the same way). */
int mb_vips_smartcrop(VipsImage *in, int width, int height, VipsInteresting interesting, VipsImage **out, int *left, int *top);

/* `contain`'s padding: `in` at left, top of a width x height canvas of `rgba` (8-bit values,
 * scaled for 16-bit images). A grey image is made sRGB for a colour that is not grey, and an
 * opaque alpha band is added for a background that is not opaque, so the padding shows as asked. */
int mb_vips_pad(VipsImage *in, int left, int top, int width, int height, const double rgba[4], VipsImage **out);

/* vips_flatten is variadic: an image with alpha over white, for a format without alpha. */
int mb_vips_flatten_white(VipsImage *in, VipsImage **out);

/* vips_icc_transform is variadic. Converts with the embedded profile to sRGB. */
int mb_vips_icc_to_srgb(VipsImage *in, VipsImage **out);

/* vips_profile_load is variadic: the sRGB profile icc_transform converts to (a new reference). */
int mb_vips_srgb_profile(VipsBlob **out);

/* vips_image_new_from_file is variadic. Opens lazily (only the header is read now); with
 * fail_on=error a truncated or corrupt file fails when its pixels are read. */
VipsImage *mb_vips_open_strict(const char *path);

/* The same, from the whole file read into memory first, for a loader that reads the header a few
 * bytes at a time: libheif asks libvips' file source for every box field on its own, a read() of 1
 * to 4 bytes each, thousands for an iPhone HEIC (bench/README.md). */
VipsImage *mb_vips_open_strict_in_memory(const char *path);

/* malloc_trim and mallinfo2 live in <malloc.h>, which no Swift module map exports. A worker
 * process calls this after each item: glibc otherwise keeps the freed heap of a 48 MP decode
 * resident, and every worker would hold its largest item's memory for the rest of the run.
 * Trimming only when more than `keep_bytes` is free spares small items the page faults of
 * refilling a heap the next item would reuse anyway. Returns 1 if memory was released. */
int mb_release_free_memory(size_t keep_bytes);

#endif
