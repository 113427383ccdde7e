/* mediabatch's resize and thumbnails (resize.c): libvips' own steps with the Lanczos-3 passes of
 * mediabatch_reduce.h. Return values follow libvips: 0 on success, -1 on failure with the reason
 * in vips_error_buffer().
 */
#ifndef MEDIABATCH_RESIZE_H
#define MEDIABATCH_RESIZE_H

#include <vips/vips.h>

#include "mediabatch_reduce.h"

/* vips_thumbnail(size=down, fail_on=error), with its Lanczos-3 passes computed by mb_resize where
 * it only decodes, reduces and rotates (resize.c). Shrinks on load to fit width x height (one
 * shrink for both axes, as vips_thumbnail's crop scales before it cuts), never upsizes, and
 * applies the orientation (EXIF for JPEG, irot/imir for HEIF). fail_on=error makes truncated and
 * corrupt files fail instead of decoding half grey. */
int mb_vips_thumbnail(const char *path, int width, int height, VipsImage **out);

/* The same, to exactly width x height (orientation applied, size=force): the caller computes both
 * sides from the upright source, so that an output's pixels are known before it is made. Shrinks
 * on load where the format allows. */
int mb_vips_thumbnail_exact(const char *path, int width, int height, VipsImage **out);

/* vips_thumbnail_image(size=force) the same way: resizes an image (in memory: no shrink-on-load)
 * to exactly width x height with the same kernel as vips_thumbnail. */
int mb_vips_resize_exact(VipsImage *in, int width, int height, VipsImage **out);

/* vips_resize(in, out, hscale, "vscale", vscale) through mb_reducev and mb_reduceh when it shrinks
 * an 8-bit image without alpha (the box shrink and residual reduce of each axis, vertical first);
 * anything else (upsizing, alpha, other formats) goes to vips_resize itself. */
int mb_resize(VipsImage *in, VipsImage **out, double hscale, double vscale);

/* libvips' own operations where mediabatch's do not apply, and for tests the reference its own are
 * compared with: vips_resize, vips_thumbnail (with fail_on=error, as mediabatch loads),
 * vips_thumbnail_image, and vips_shrink by `factor` each way with "ceil" (what mb_box_shrink makes). */
int mb_libvips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale);
int mb_libvips_thumbnail(const char *path, int width, int height, VipsSize size, VipsImage **out);
int mb_libvips_thumbnail_image(VipsImage *in, int width, int height, VipsSize size, VipsImage **out);
int mb_libvips_shrink(VipsImage *in, VipsImage **out, int factor);

#endif
