/* The encoders mediabatch writes with, in one list: MB_SAVERS(X) calls X(NAME, SAVER, CALL) for each,
 * which makes both the enum MbSaver (MB_SAVER_NAME) and the cases of mb_vips_save_buffer, where CALL
 * encodes `in` into `*buf` and `*len` with `quality` and `effort` and the options mediabatch sets.
 * SAVER names the libvips saver CALL is, as libvips names its operations but without the variant
 * (`jpegsave` for jpegsave, jpegsave_buffer, jpegsave_target): the saver libvips itself picks for a
 * file of that format's extension, which VipsKit's tests check for every codec that encodes
 * (Codec+LibvipsTests).
 *
 * Savers are picked by this enum, never by a string, because outputs go to memory, where no file
 * name could pick one; and every libvips saver is variadic, which Swift cannot call. A new saver is
 * a line here and its Codec's case in VipsKit's Codec+Libvips.swift.
 */
#ifndef MEDIABATCH_SAVERS_H
#define MEDIABATCH_SAVERS_H

#include <vips/vips.h>

/* effort is the encoder's CPU effort: libwebp's (0-6) for WebP, libaom's (0-9) for AVIF, libjxl's
 * (1-9) for JPEG XL; the others take none (libheif's x265 encoder has no speed setting for libvips to
 * pass it to). AVIF is libvips' HEIF saver with AV1 compression, which is what its avifsave is (a
 * target saver only: it has no buffer variant). */
#define MB_SAVERS(X)                                                                                                  \
    X(JPEG, "jpegsave", vips_jpegsave_buffer(in, buf, len, "Q", quality, NULL))                                      \
    X(PNG, "pngsave", vips_pngsave_buffer(in, buf, len, NULL))                                                       \
    X(GIF, "gifsave", vips_gifsave_buffer(in, buf, len, NULL))                                                       \
    X(WEBP, "webpsave", vips_webpsave_buffer(in, buf, len, "Q", quality, "effort", effort, NULL))                     \
    X(TIFF, "tiffsave", vips_tiffsave_buffer(in, buf, len, NULL))                                                    \
    X(HEIC, "heifsave",                                                                                               \
      vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL))     \
    X(AVIF, "avifsave",                                                                                               \
      vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort",   \
                           effort, NULL))                                                                             \
    X(JXL, "jxlsave", vips_jxlsave_buffer(in, buf, len, "Q", quality, "effort", effort, NULL))

#define MB_SAVER_ENUM_CASE(name, saver, call) MB_SAVER_##name,
typedef enum { MB_SAVERS(MB_SAVER_ENUM_CASE) } MbSaver;
#undef MB_SAVER_ENUM_CASE

/* Encodes `in` into memory (freed with g_free) with `saver`: mediabatch writes the file itself, after
 * its container writer has put the metadata in, so that a full disk is the system's error and not
 * libvips'. */
int mb_vips_save_buffer(VipsImage *in, MbSaver saver, int quality, int effort, void **buf, size_t *len);

/* The libvips saver `saver` is, as MB_SAVERS names it ("avifsave"); NULL for a value that is no saver. */
const char *mb_vips_saver_nickname(MbSaver saver);

/* The saver libvips itself picks for a file named with `suffix` (".avif"), named as MB_SAVERS names
 * one: its target variant's nickname without "_target" (the variant every saver has; AVIF's has no
 * other). NULL where libvips has none; else freed with g_free. */
char *mb_vips_saver_for_suffix(const char *suffix);

#endif
