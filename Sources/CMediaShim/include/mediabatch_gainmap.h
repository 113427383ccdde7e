/* Non-variadic wrappers for an HDR photo's gain map (see mediabatch_shim.h for why wrappers):
 * decoded from the JPEG bytes a file embeds it as, turned like its picture, its values mapped
 * from one curve to another. Return values follow libvips: 0 on success, -1 on failure. */
#ifndef MEDIABATCH_GAINMAP_H
#define MEDIABATCH_GAINMAP_H

#include <vips/vips.h>

/* The JPEG in `data` decoded into memory (fail_on=error), `shrink` (1, 2, 4 or 8) times smaller
 * by libjpeg itself: the caller's bytes may go as soon as this returns, which a lazy
 * vips_jpegload_buffer image would still read. Refused, from its header, when it has more than
 * `max_pixels` pixels: a gain map is no larger than its picture. Also a camera RAW's preview. */
int mb_vips_jpeg_decode_memory(const void *data, size_t length, double max_pixels, int shrink, VipsImage **out);

/* `in` turned and flipped as EXIF `orientation` (1-8) says: vips_autorot reads the orientation
 * from the image, and a gain map's own JPEG carries none (it follows its primary's). */
int mb_vips_oriented(VipsImage *in, int orientation, VipsImage **out);

/* Each uchar sample of `in` through the 256-entry table `lut` (vips_maplut). */
int mb_vips_map_uchar(VipsImage *in, const unsigned char *lut, VipsImage **out);

#endif
