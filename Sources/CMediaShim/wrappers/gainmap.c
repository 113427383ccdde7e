#include "mediabatch_gainmap.h"

int mb_vips_jpeg_decode_memory(const void *data, size_t length, double max_pixels, int shrink, VipsImage **out) {
    VipsImage *lazy;
    if (vips_jpegload_buffer((void *) data, length, &lazy, "fail_on", VIPS_FAIL_ON_ERROR, "shrink", shrink, NULL))
        return -1;
    if ((double) lazy->Xsize * lazy->Ysize > max_pixels) {
        vips_error("mediabatch", "%d x %d is larger than its picture allows", lazy->Xsize, lazy->Ysize);
        g_object_unref(lazy);
        return -1;
    }
    *out = vips_image_copy_memory(lazy);
    g_object_unref(lazy);
    return *out ? 0 : -1;
}

int mb_vips_oriented(VipsImage *in, int orientation, VipsImage **out) {
    VipsImage *tagged;
    if (vips_copy(in, &tagged, NULL))
        return -1;
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    int status = vips_autorot(tagged, out, NULL);
    g_object_unref(tagged);
    return status;
}

int mb_vips_map_uchar(VipsImage *in, const unsigned char *lut, VipsImage **out) {
    VipsImage *table = vips_image_new_from_memory_copy(lut, 256, 256, 1, 1, VIPS_FORMAT_UCHAR);
    if (!table)
        return -1;
    int status = vips_maplut(in, out, table, NULL);
    g_object_unref(table);
    return status;
}
