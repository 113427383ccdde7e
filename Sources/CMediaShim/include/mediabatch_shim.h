/* CMediaShim, the one C target beside the system libraries', in two halves:
 *
 * - wrappers (wrappers/; mediabatch_wrappers.h, mediabatch_savers.h, mediabatch_gainmap.h):
 *   non-variadic wrappers over libvips, which Swift cannot call itself (every libvips operation
 *   takes a NULL-terminated option list, VIPS_INIT is a macro); each fixes the options mediabatch
 *   uses;
 * - kernels (kernels/; mediabatch_reduce.h, mediabatch_resize.h, mediabatch_ycbcr.h,
 *   mediabatch_shrink.h, mediabatch_colour.h): loops that compute what an upstream library computes, sample for sample;
 *   each file names the library and version it matches and the test that proves it.
 *
 * This header includes them all (Swift sees every header of include/ as the module CMediaShim).
 */
#ifndef MEDIABATCH_SHIM_H
#define MEDIABATCH_SHIM_H

#include "mediabatch_wrappers.h"
#include "mediabatch_savers.h"
#include "mediabatch_gainmap.h"

#include "mediabatch_reduce.h"
#include "mediabatch_resize.h"
#include "mediabatch_ycbcr.h"
#include "mediabatch_shrink.h"
#include "mediabatch_colour.h"

#endif
