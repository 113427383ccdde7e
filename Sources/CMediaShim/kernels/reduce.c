/* mb_reduceh and mb_reducev: libvips 8.14's vips_reduceh / vips_reducev with the Lanczos-3 kernel,
 * for 8-bit images, with SIMD inner loops (reduce_kernels.c). Each is a libvips pipeline node, as
 * libvips' own are: built the same way (output size, integer pre-shrink for a `gap`, the offset
 * that centres the samples, edge pixels repeated outwards: by vips_embed for the vertical pass, by
 * the horizontal pass itself), computing only the regions asked for. Images that are not 8-bit, a
 * libvips whose own pass computes other samples (mb_reduce_is_own), masks longer than ORC takes and
 * unoptimised builds (mb_reduce_level) go to libvips itself. Tests/VipsKitTests/ReduceTests.swift
 * proves every sample libvips' own (8.14's on Debian 12, 8.16's horizontal pass on 13), at every
 * level this CPU has; fuzz/ReduceFuzzer.c on random sizes, shrinks and pixels, under ASan. */
#include "mediabatch_reduce.h"
#include "reduce_kernels.h"

#include <math.h>
#include <string.h>

_Static_assert(MB_MASK_POSITIONS == VIPS_TRANSFORM_SCALE + 1, "one mask per subpixel position libvips tabulates");
/* The longest mask libvips accepts. */
#define MAX_POINT 2000
/* vips_reducev's ORC program takes 5 taps a pass and at most 10 passes; past that libvips uses its
 * C loop (12-bit), which mb_reducev leaves to it. */
#define ORC_MAX_POINT 50

static int forced_level = MB_REDUCE_AUTO;
static int builds;

static int cpu_level(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        return MB_REDUCE_AVX2;
    if (__builtin_cpu_supports("sse4.1"))
        return MB_REDUCE_SSE41;
#endif
    return MB_REDUCE_SCALAR;
}

int mb_reduce_level(void) {
    const int best = cpu_level(), forced = g_atomic_int_get(&forced_level);
    if (forced != MB_REDUCE_AUTO)
        return forced > best ? best : forced;
#if defined(__OPTIMIZE__)
    return best >= MB_REDUCE_SSE41 ? best : MB_REDUCE_LIBVIPS;
#else
    return MB_REDUCE_LIBVIPS;
#endif
}

int mb_reduce_builds(void) {
    return g_atomic_int_get(&builds);
}

int mb_reduce_force_level(int level) {
    g_atomic_int_set(&forced_level, level);
    return mb_reduce_level();
}

/* The images our loops take; the rest go to libvips. */
static gboolean reducible(VipsImage *in) {
    return in->Coding == VIPS_CODING_NONE && in->BandFmt == VIPS_FORMAT_UCHAR && in->Bands >= 1 && in->Bands <= 4;
}

/* libvips' Lanczos-3 weights for n taps at `shrink`, the output pixel's centre x (0..1) past the
 * middle tap, normalised to sum 1: the same expression, so that the same doubles come out. */
static void lanczos3_mask(double *c, int n, double shrink, double x) {
    const double half = x + n / 2.0 - 1;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        const double xp = (i - half) / shrink;
        double l;
        if (xp == 0.0)
            l = 1.0;
        else if (xp < -3 || xp > 3)
            l = 0.0;
        else
            l = 3.0 * sin(VIPS_PI * xp) * sin(VIPS_PI * xp / 3.0) / (VIPS_PI * VIPS_PI * xp * xp);
        c[i] = l;
        sum += l;
    }
    for (int i = 0; i < n; i++)
        c[i] /= sum;
}

/* The mask at subpixel position t of MB_MASK_POSITIONS, as libvips tabulates it. */
static void position_mask(double *c, int n, double shrink, int t) {
    lanczos3_mask(c, n, shrink, (float) t / VIPS_TRANSFORM_SCALE);
}

/* vips_vector_to_fixed_point (public in 8.14, gone from 8.16's API), which rounds vips_reducev's
 * masks for ORC: integers that add up to rint(scale × the mask's sum). It bisects for a scale
 * whose rounded weights hit that total and, failing that, spreads what is left one unit at a
 * time from the first tap. The same steps, so the same integers. */
static void fixed_point_mask(const double *mask, int16_t *out, int n, int scale) {
    double fsum = 0;
    for (int i = 0; i < n; i++)
        fsum += mask[i];
    const int target = VIPS_RINT(fsum * scale);
    double high = scale + (n + 1) / 2, low = scale - (n + 1) / 2;
    int sum;
    do {
        const double guess = (high + low) / 2.0;
        sum = 0;
        for (int i = 0; i < n; i++)
            sum += out[i] = (int) VIPS_RINT(mask[i] * guess);
        if (sum == target)
            break;
        if (sum < target)
            low = guess;
        else
            high = guess;
    } while (high - low > 0.01);
    if (sum != target) {
        const int each = (target - sum) / n, extra = (target - sum) % n;
        for (int i = 0; i < n; i++)
            out[i] += each + (i < abs(extra) ? (extra > 0 ? 1 : -1) : 0);
    }
}

/* The part of vips_reduceh_build / vips_reducev_build before the kernel, for an axis of `size`
 * pixels: the output size from the whole shrink; the integer box shrink a gap asks for; the
 * residual shrink and its taps; the offset that discards (or invents) input equally on both
 * sides. */
typedef struct {
    int out_size, box_shrink, n_point;
    double shrink, offset;
} AxisPlan;

static int plan_axis(AxisPlan *plan, int size, double shrink, double gap, const char *name) {
    if (shrink < 1.0) {
        vips_error(name, "%s", "reduce factor should be >= 1.0");
        return -1;
    }
    if (gap > 0.0 && gap < 1.0) {
        vips_error(name, "%s", "reduce gap should be >= 1.0");
        return -1;
    }
    plan->out_size = VIPS_ROUND_UINT((double) size / shrink);
    if (plan->out_size <= 0) {
        vips_error(name, "%s", "image has shrunk to nothing");
        return -1;
    }
    double extra = plan->out_size * shrink - size;
    plan->box_shrink = gap > 0.0 ? VIPS_MAX(1, VIPS_FLOOR((double) size / plan->out_size / gap)) : 1;
    plan->shrink = shrink / plan->box_shrink;
    plan->offset = (1 + extra / plan->box_shrink) / 2.0 - 1;
    plan->n_point = 2 * rint(3 * plan->shrink) + 1;
    if (plan->n_point > MAX_POINT) {
        vips_error(name, "%s", "reduce factor too large");
        return -1;
    }
    return 0;
}

/* The input of a reduce: `in` box-shrunk as planned (a new reference either way). */
typedef int (*BoxShrink)(VipsImage *in, VipsImage **out, int shrink, ...);

static VipsImage *box_shrunk(VipsImage *in, const AxisPlan *plan, BoxShrink box) {
    VipsImage *out;
    if (plan->box_shrink == 1)
        return g_object_ref(in);
    return box(in, &out, plan->box_shrink, "ceil", TRUE, NULL) ? NULL : out;
}

/* A new pipeline node reading `in` (which it takes over: the node unrefs it when closed). */
static VipsImage *new_node(VipsImage *in) {
    VipsImage *node = vips_image_new();
    vips_object_local(node, in);
    return node;
}

/* Makes `node` (from new_node) width × height, `generate` reading regions of `in` through
 * `start`/`stop`. */
static int generate_node(VipsImage *node, VipsImage *in, int width, int height, int n_point,
                         VipsStartFn start, VipsGenerateFn generate, VipsStopFn stop, void *state) {
    if (vips_image_pipelinev(node, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL))
        return -1;
    node->Xsize = width;
    node->Ysize = height;
    if (vips_image_generate(node, start, generate, stop, in, state))
        return -1;
    vips_reorder_margin_hint(node, n_point);
    return 0;
}

/* ---- horizontal ---- */

typedef struct {
    MbHMasks masks;
    int level;
    double shrink, offset;
    /* How many of the n columns of edge pixels vips_reduceh's embed puts left of the input (the
     * embedded image's column c is the input's c - pad), and the input's width. */
    int pad, width;
} HReduce;

/* A region's plan: where each output pixel's taps start and which mask it takes, shared by every
 * row of the region. Columns [inner, inner_end) read only input the region holds; the few at
 * the image's edges read edge pixels repeated outwards (offsets[x]: their first input column). */
typedef struct {
    VipsRegion *ir;
    int *offsets, *positions;
    int capacity;
    int inner, inner_end, vector_end;
    uint8_t *taps;
} HSequence;

static void *hreduce_start(VipsImage *out, void *a, void *b) {
    const HReduce *h = b;
    HSequence *seq = g_new0(HSequence, 1);
    seq->taps = g_malloc(h->masks.n_point * h->masks.bands);
    if (!(seq->ir = vips_region_new((VipsImage *) a))) {
        g_free(seq->taps);
        g_free(seq);
        return NULL;
    }
    return seq;
}

static int hreduce_stop(void *vseq, void *a, void *b) {
    HSequence *seq = vseq;
    VIPS_UNREF(seq->ir);
    g_free(seq->offsets);
    g_free(seq->positions);
    g_free(seq->taps);
    g_free(seq);
    return 0;
}

/* Fills the plan for output columns r->left.. as vips_reduceh_gen walks them (X accumulated from
 * the region's left, as there, in the embedded image's columns `s` covers), and the ranges the
 * loops take; -1 if a tap would fall outside what libvips' embedded region would hold. */
static int plan_columns(HSequence *seq, const HReduce *h, const VipsRect *r, const VipsRect *s) {
    if (r->width > seq->capacity) {
        seq->offsets = g_renew(int, seq->offsets, r->width);
        seq->positions = g_renew(int, seq->positions, r->width);
        seq->capacity = r->width;
    }
    const VipsRect *valid = &seq->ir->valid;
    const int bands = h->masks.bands, n = h->masks.n_point;
    const int embedded_left = VIPS_MAX(s->left, 0), embedded_right = VIPS_MIN(s->left + s->width, h->width + n);
    const int row_bytes = valid->width * bands, span = mb_vector_span(&h->masks);
    seq->inner = r->width;
    seq->inner_end = seq->vector_end = 0;
    double X = (r->left + 0.5) * h->shrink - 0.5 - h->offset;
    for (int x = 0; x < r->width; x++, X += h->shrink) {
        const int ix = X, sx = X * VIPS_TRANSFORM_SCALE * 2, first = ix - h->pad;
        if (ix < embedded_left || ix + n > embedded_right) {
            vips_error("mb_reduceh", "taps of column %d outside the input region", r->left + x);
            return -1;
        }
        seq->positions[x] = ((sx & (VIPS_TRANSFORM_SCALE * 2 - 1)) + 1) >> 1;
        if (first < valid->left || first + n > valid->left + valid->width) {
            seq->offsets[x] = first;
            continue;
        }
        seq->offsets[x] = (first - valid->left) * bands;
        seq->inner = VIPS_MIN(seq->inner, x);
        seq->inner_end = x + 1;
        if (seq->offsets[x] + span <= row_bytes)
            seq->vector_end = x + 1;
    }
    seq->inner_end = VIPS_MAX(seq->inner_end, seq->inner);
    seq->vector_end = VIPS_MAX(seq->vector_end, seq->inner);
    return 0;
}

/* Output column x of a row whose taps pass the image's edge: its taps gathered with the edge
 * pixels repeated, as libvips' embed (extend copy) would have them. */
static void hreduce_edge(const HReduce *h, const HSequence *seq, const VipsPel *in, VipsPel *out, int x) {
    const int bands = h->masks.bands, left = seq->ir->valid.left;
    for (int t = 0; t < h->masks.n_point; t++) {
        const int column = VIPS_CLIP(0, seq->offsets[x] + t, h->width - 1);
        memcpy(seq->taps + t * bands, in + (column - left) * bands, bands);
    }
    const int start = 0;
    mb_reduceh_row_scalar(&h->masks, seq->taps, out + x * bands, &start, &seq->positions[x], 0, 1);
}

/* One row's columns: the inner ones from `vector_from` on (those before it already done) with the
 * scalar loop, and the edge ones. */
static void hreduce_row_rest(const HReduce *h, const HSequence *seq, const VipsPel *in, VipsPel *out, int width, int vector_from) {
    mb_reduceh_row_scalar(&h->masks, in, out, seq->offsets, seq->positions, vector_from, seq->inner_end);
    for (int x = 0; x < seq->inner; x++)
        hreduce_edge(h, seq, in, out, x);
    for (int x = seq->inner_end; x < width; x++)
        hreduce_edge(h, seq, in, out, x);
}

/* Rows y and y + 1 of the region (or y alone when `pair` is false) with the loops of h's level. */
static void hreduce_rows(const HReduce *h, const HSequence *seq, VipsRegion *out_region, int y, gboolean pair) {
    const VipsRect *r = &out_region->valid, *valid = &seq->ir->valid;
    const int width = r->width, skip = seq->inner * h->masks.bands, count = seq->vector_end - seq->inner;
    const VipsPel *in0 = VIPS_REGION_ADDR(seq->ir, valid->left, y);
    VipsPel *out0 = VIPS_REGION_ADDR(out_region, r->left, y);
    const VipsPel *in1 = pair ? VIPS_REGION_ADDR(seq->ir, valid->left, y + 1) : NULL;
    VipsPel *out1 = pair ? VIPS_REGION_ADDR(out_region, r->left, y + 1) : NULL;
    const int *offsets = seq->offsets + seq->inner, *positions = seq->positions + seq->inner;
    int scalar_from = seq->inner;
#if defined(__x86_64__)
    if (h->level >= MB_REDUCE_AVX2 && pair) {
        mb_reduceh_rows_avx2(&h->masks, in0, in1, out0 + skip, out1 + skip, offsets, positions, count);
        scalar_from = seq->vector_end;
    } else if (h->level >= MB_REDUCE_SSE41) {
        mb_reduceh_row_sse41(&h->masks, in0, out0 + skip, offsets, positions, count);
        if (pair)
            mb_reduceh_row_sse41(&h->masks, in1, out1 + skip, offsets, positions, count);
        scalar_from = seq->vector_end;
    }
#endif
    hreduce_row_rest(h, seq, in0, out0, width, scalar_from);
    if (pair)
        hreduce_row_rest(h, seq, in1, out1, width, scalar_from);
}

static int hreduce_gen(VipsRegion *out_region, void *vseq, void *a, void *b, gboolean *stop) {
    HSequence *seq = vseq;
    const HReduce *h = b;
    const VipsRect *r = &out_region->valid;
    VipsRect s, need;
    /* The embedded image's columns vips_reduceh_gen asks for (truncated as there), and the input's
     * under them (prepare clips them to the image). */
    s.left = r->left * h->shrink - h->offset;
    s.top = r->top;
    s.width = r->width * h->shrink + h->masks.n_point;
    s.height = r->height;
    need = s;
    need.left -= h->pad;
    if (vips_region_prepare(seq->ir, &need) || plan_columns(seq, h, r, &s))
        return -1;
    for (int y = 0; y < r->height; y += 2)
        hreduce_rows(h, seq, out_region, r->top + y, y + 1 < r->height);
    return 0;
}

/* Fills h's masks: libvips' 12-bit integers (truncated, as its table builder does) and their
 * layout for the vector loops. */
static int hreduce_masks(HReduce *h, VipsImage *owner, int bands, int n) {
    int *masks = VIPS_ARRAY(owner, MB_MASK_POSITIONS * n, int);
    double *mask = VIPS_ARRAY(owner, n, double);
    const int steps = (n + mb_taps_per_step(bands) - 1) / mb_taps_per_step(bands);
    int16_t *vector_masks = VIPS_ARRAY(owner, MB_MASK_POSITIONS * steps * 16, int16_t);
    if (!masks || !mask || !vector_masks)
        return -1;
    for (int t = 0; t < MB_MASK_POSITIONS; t++) {
        position_mask(mask, n, h->shrink, t);
        for (int i = 0; i < n; i++)
            masks[t * n + i] = mask[i] * VIPS_INTERPOLATE_SCALE;
    }
    mb_reduceh_layout(masks, n, bands, vector_masks);
    h->masks = (MbHMasks){.bands = bands, .n_point = n, .masks = masks, .vector_masks = vector_masks,
                          .steps = steps, .step_bytes = mb_taps_per_step(bands) * bands};
    return 0;
}

/* `in` (box-shrunk), reduced as `plan` says. vips_reduceh reads an embedded copy of its input,
 * edge pixels repeated outwards so that every tap reads a pixel: this reads the input itself
 * (a 12 MP picture's every row copied less) and repeats the edge pixels where a tap needs them. */
static int hreduce_build(VipsImage *in, VipsImage **out, const AxisPlan *plan) {
    const int n = plan->n_point;
    VipsImage *node = new_node(g_object_ref(in));
    HReduce *h = VIPS_NEW(node, HReduce);
    if (!h) {
        g_object_unref(node);
        return -1;
    }
    h->shrink = plan->shrink;
    h->offset = plan->offset;
    h->level = mb_reduce_level();
    h->pad = VIPS_CEIL(n / 2.0) - 1;
    h->width = in->Xsize;
    if (hreduce_masks(h, node, in->Bands, n)
        || generate_node(node, in, plan->out_size, in->Ysize, n, hreduce_start, hreduce_gen, hreduce_stop, h)) {
        g_object_unref(node);
        return -1;
    }
    *out = node;
    return 0;
}

/* Applies the planned box shrink and reduces the rest with `reduce` (a copy when nothing is left
 * to reduce, as libvips does); counts the reduces built (mb_reduce_builds). */
typedef int (*Reduce)(VipsImage *in, VipsImage **out, const AxisPlan *plan);

static int reduce_axis(VipsImage *in, VipsImage **out, const AxisPlan *plan, BoxShrink box, Reduce reduce) {
    VipsImage *shrunk = box_shrunk(in, plan, box);
    if (!shrunk)
        return -1;
    const int result = plan->shrink == 1.0 ? vips_copy(shrunk, out, NULL) : reduce(shrunk, out, plan);
    g_object_unref(shrunk);
    if (!result && plan->shrink != 1.0)
        g_atomic_int_inc(&builds);
    return result;
}

int mb_libvips_reduceh(VipsImage *in, VipsImage **out, double hshrink, double gap) {
    return vips_reduceh(in, out, hshrink, "kernel", VIPS_KERNEL_LANCZOS3, "gap", gap, NULL);
}

/* ---- vertical ---- */

typedef struct {
    const int16_t *masks; /* MB_MASK_POSITIONS × n_point, 6-bit */
    int n_point, level;
    double shrink, offset;
} VReduce;

static int vreduce_gen(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *ir = seq;
    const VReduce *v = b;
    const VipsRect *r = &out_region->valid;
    const int n = v->n_point, ne = r->width * ir->im->Bands;
    VipsRect s;
    s.left = r->left;
    s.top = r->top * v->shrink - v->offset;
    s.width = r->width;
    s.height = r->height * v->shrink + n;
    if (vips_region_prepare(ir, &s))
        return -1;
    const VipsRect *valid = &ir->valid;
    double Y = (r->top + 0.5) * v->shrink - 0.5 - v->offset;
    for (int y = 0; y < r->height; y++, Y += v->shrink) {
        const int py = Y, sy = Y * VIPS_TRANSFORM_SCALE * 2;
        if (py < valid->top || py + n > valid->top + valid->height) {
            vips_error("mb_reducev", "taps of row %d outside the input region", r->top + y);
            return -1;
        }
        const VipsPel *p = VIPS_REGION_ADDR(ir, r->left, py);
        const int16_t *k = v->masks + (((sy & (VIPS_TRANSFORM_SCALE * 2 - 1)) + 1) >> 1) * n;
        VipsPel *q = VIPS_REGION_ADDR(out_region, r->left, r->top + y);
        const int lskip = VIPS_REGION_LSKIP(ir);
#if defined(__x86_64__)
        if (v->level >= MB_REDUCE_AVX2)
            mb_reducev_row_avx2(p, lskip, k, n, q, ne);
        else if (v->level >= MB_REDUCE_SSE41)
            mb_reducev_row_sse41(p, lskip, k, n, q, ne);
        else
#endif
            mb_reducev_row_scalar(p, lskip, k, n, q, ne);
    }
    return 0;
}

/* Whether ORC's saturating 16-bit sums, started at 32, stay within 16 bits for every mask and any
 * 8-bit samples: then the kernels' plain sums give the same results. Lanczos-3 masks in 6 bits
 * peak near 32 + 255 × 70. */
static gboolean sums_fit_16_bits(const int16_t *masks, int count, int n) {
    for (int t = 0; t < count; t += n) {
        int high = 32, low = 32;
        for (int i = 0; i < n; i++) {
            high += 255 * VIPS_MAX(masks[t + i], 0);
            low += 255 * VIPS_MIN(masks[t + i], 0);
        }
        if (high > INT16_MAX || low < INT16_MIN)
            return FALSE;
    }
    return TRUE;
}

static int vreduce_build(VipsImage *in, VipsImage **out, const AxisPlan *plan) {
    const int n = plan->n_point;
    VipsImage *embedded;
    if (vips_embed(in, &embedded, 0, VIPS_CEIL(n / 2.0) - 1, in->Xsize, in->Ysize + n, "extend", VIPS_EXTEND_COPY, NULL))
        return -1;
    VipsImage *node = new_node(embedded);
    VReduce *v = VIPS_NEW(node, VReduce);
    int16_t *masks = VIPS_ARRAY(node, MB_MASK_POSITIONS * n, int16_t);
    double *mask = VIPS_ARRAY(node, n, double);
    if (!v || !masks || !mask) {
        g_object_unref(node);
        return -1;
    }
    for (int t = 0; t < MB_MASK_POSITIONS; t++) {
        position_mask(mask, n, plan->shrink, t);
        fixed_point_mask(mask, masks + t * n, n, 64);
    }
    if (!sums_fit_16_bits(masks, MB_MASK_POSITIONS * n, n)) {
        g_object_unref(node);
        vips_error("mb_reducev", "%s", "mask too large for 16-bit sums");
        return -1;
    }
    *v = (VReduce){.masks = masks, .n_point = n, .level = mb_reduce_level(), .shrink = plan->shrink, .offset = plan->offset};
    if (generate_node(node, embedded, in->Xsize, plan->out_size, n, vips_start_one, vreduce_gen, vips_stop_one, v)) {
        g_object_unref(node);
        return -1;
    }
    /* As vips_reducev: a line cache after a sequential source, so that a thread running late still
     * finds the input lines it needs. */
    if (!vips_image_get_typeof(node, VIPS_META_SEQUENTIAL)) {
        *out = node;
        return 0;
    }
    const int result = vips_sequential(node, out, "tile_height", 10, NULL);
    g_object_unref(node);
    return result;
}

int mb_libvips_reducev(VipsImage *in, VipsImage **out, double vshrink, double gap) {
    return vips_reducev(in, out, vshrink, "kernel", VIPS_KERNEL_LANCZOS3, "gap", gap, NULL);
}

/* ---- either pass ---- */

/* mb_reduceh or mb_reducev: ours where it computes libvips' samples faster, libvips' own pass otherwise (see
 * mb_reduce_is_own and mb_reduce_level); vertically not past ORC_MAX_POINT taps, where libvips' C loop computes
 * other samples than its ORC path. */
static int reduce_either(VipsImage *in, VipsImage **out, double shrink, double gap, gboolean vertical) {
    int (*const libvips)(VipsImage *, VipsImage **, double, double) = vertical ? mb_libvips_reducev : mb_libvips_reduceh;
    AxisPlan plan;
    if (!reducible(in) || mb_reduce_level() == MB_REDUCE_LIBVIPS || !mb_reduce_is_own(vertical))
        return libvips(in, out, shrink, gap);
    if (plan_axis(&plan, vertical ? in->Ysize : in->Xsize, shrink, gap, vertical ? "mb_reducev" : "mb_reduceh"))
        return -1;
    if (vertical && plan.n_point > ORC_MAX_POINT)
        return libvips(in, out, shrink, gap);
    return reduce_axis(in, out, &plan, vertical ? vips_shrinkv : vips_shrinkh, vertical ? vreduce_build : hreduce_build);
}

int mb_reduceh(VipsImage *in, VipsImage **out, double hshrink, double gap) {
    return reduce_either(in, out, hshrink, gap, FALSE);
}

int mb_reducev(VipsImage *in, VipsImage **out, double vshrink, double gap) {
    return reduce_either(in, out, vshrink, gap, TRUE);
}

/* ---- which passes are ours ---- */

/* Whether libvips' own pass (vertical or horizontal) gives exactly our samples for a probe image:
 * hard edges, where 6-bit and 12-bit masks part most, and levels between, reduced by a factor
 * that visits many subpixel positions. */
static gboolean same_as_libvips(gboolean vertical) {
    enum { SIZE = 97 };
    const double shrink = 1.37;
    uint8_t pixels[SIZE * 2];
    for (int i = 0; i < SIZE * 2; i++)
        pixels[i] = i % 7 < 3 ? 255 : i * 29 % 256;
    VipsImage *probe = vips_image_new_from_memory(pixels, sizeof pixels, vertical ? 2 : SIZE, vertical ? SIZE : 2, 1,
                                                  VIPS_FORMAT_UCHAR);
    VipsImage *ours = NULL, *theirs = NULL;
    void *our_samples = NULL, *their_samples = NULL;
    size_t our_size = 0, their_size = 0;
    AxisPlan plan;
    if (probe && !plan_axis(&plan, SIZE, shrink, 0, "mb_reduce")
        && !(vertical ? vreduce_build(probe, &ours, &plan) : hreduce_build(probe, &ours, &plan))
        && !(vertical ? mb_libvips_reducev : mb_libvips_reduceh)(probe, &theirs, shrink, 0)) {
        our_samples = vips_image_write_to_memory(ours, &our_size);
        their_samples = vips_image_write_to_memory(theirs, &their_size);
    }
    const gboolean same = our_samples && their_samples && our_size == their_size
        && memcmp(our_samples, their_samples, our_size) == 0;
    g_free(our_samples);
    g_free(their_samples);
    VIPS_UNREF(ours);
    VIPS_UNREF(theirs);
    VIPS_UNREF(probe);
    return same;
}

int mb_reduce_is_own(int vertical) {
    static gsize decided[2];
    if (g_once_init_enter(&decided[!!vertical]))
        g_once_init_leave(&decided[!!vertical], same_as_libvips(vertical) ? 2 : 1);
    return decided[!!vertical] == 2;
}
