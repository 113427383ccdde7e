#!/usr/bin/env python3
"""Prototype of duplicate-detection "method A" (issue 45), numpy + pyvips.

usage (in /work/venv-dup):
  method_a.py OUT_DIR [--grid 16|32|both] [--variant NAME ...] [--json OUT.json]
              [--libvips binary|system]

Fingerprint per file (decoded by libvips through pyvips):
  picture  pyvips.Image.thumbnail(path, 32, height=32, size="force") (autorotates),
           -> sRGB -> "b-w", band 0, 32x32 floats 0..255
  aspect   upright width/height from the header (w/h swapped for EXIF orientation 5..8)
  flat     std(picture) < 4.0 -> no fingerprint (never grouped, except byte copies)
  hash     orthonormal 2-D DCT-II of the picture, 8x8 lowest block, bit = coef >
           median of the 63 AC coefficients (DC included with the same rule): 64 bits
Fine distance(A, B), both orders X/Y, minimum over windows of Y:
  window  relative size sw, sh in SIZES with |log(aspectX) - log(aspectY*sw/sh)| <= 0.03,
          offsets in steps of 0.0125 within [0, 1-s]
  sample  Y bilinearly (pixel centres at (i+0.5)/32 on [0,1]^2) at the GxG cell centres of
          the window; X is its 32x32 averaged to GxG (G=16) or itself (G=32)
  d       mean |x - y - (mean x - mean y)| / 255
Grouping: identical tier = byte-identical files; samePhoto = connected components of
pairs with Hamming <= R and fine <= T.  Scored with evaluate.py.

Variants (--variant, repeatable; default: base and hires) test fixes, one change each:
  base     as above (grid 16 and/or 32 per --grid)
  area     Y cells area-averaged (exact, via a summed-area table) instead of bilinear
  hires64  fine stage on a 64x64 thumbnail (same libvips call), 16x16 grid, area cells
  hires    fine stage on a 128x128 thumbnail, 32x32 grid, area cells (the proposed fix;
           X = its 128x128 averaged 4x4).  The hash stays on the 32x32.
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np

# --libvips system: make pyvips skip the pyvips-binary wheel (its libvips has no
# HEVC decoder, so it cannot read .heic) and dlopen the system libvips
# (libvips.so.42, 8.14 here, the one the vips CLI and mediabatch use) in ABI mode.
LIBVIPS = "binary"
for _i, _a in enumerate(sys.argv):
    if _a.startswith("--libvips"):
        LIBVIPS = _a.split("=", 1)[1] if "=" in _a else sys.argv[_i + 1]
if os.environ.get("METHOD_A_LIBVIPS"):
    LIBVIPS = os.environ["METHOD_A_LIBVIPS"]
if LIBVIPS == "system":
    sys.modules["_libvips"] = None
import pyvips  # noqa: E402
from scipy.fft import dctn
from scipy.spatial.distance import cdist

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evaluate  # noqa: E402

PIC = 32
FLAT_STD = 4.0
SIZES = [1.0, 0.975, 0.95, 0.925, 0.9, 0.875]
STEP = 0.0125
ASPECT_TOL = 0.03
R_SWEEP = list(range(8, 33, 4))
T_SWEEP = ([round(0.0005 * k, 4) for k in range(0, 41)]            # 0 .. 0.02 fine
           + [round(0.0025 * k, 4) for k in range(9, 41)])         # 0.0225 .. 0.1

# Variants change one thing at a time.  "grid": None = the --grid choice(s).
# For pictures larger than 32 the fine distance is computed only for pairs with
# Hamming <= max(R_SWEEP) (the only ones the sweep can group) to save time.
VARIANTS = {
    "base": {"size": 32, "grid": None, "sample": "bilinear"},
    # Y cells area-averaged (summed-area table) instead of bilinear point samples
    "area": {"size": 32, "grid": 16, "sample": "area"},
    # fine stage on a 64x64 thumbnail, 16x16 grid, area cells
    "hires64": {"size": 64, "grid": 16, "sample": "area"},
    # proposed fix: fine stage on a 128x128 thumbnail, 32x32 grid, area cells
    "hires": {"size": 128, "grid": 32, "sample": "area"},
    # the proposed fix at half the stored picture: 64x64 thumbnail, 32x32 grid, area cells
    "hires64g32": {"size": 64, "grid": 32, "sample": "area"},
}


# -- fingerprint --------------------------------------------------------------
def upright_aspect(path):
    im = pyvips.Image.new_from_file(path)
    w, h = im.width, im.height
    try:
        o = im.get("orientation") if im.get_typeof("orientation") else 1
    except pyvips.Error:
        o = 1
    if o in (5, 6, 7, 8):
        w, h = h, w
    return w / h


def picture(path, size=PIC):
    t = pyvips.Image.thumbnail(path, size, height=size, size="force")
    t = t.colourspace("srgb").colourspace("b-w")[0]
    a = np.ndarray(buffer=t.cast("uchar").write_to_memory(), dtype=np.uint8, shape=(t.height, t.width))
    return a.astype(np.float64)


def dct_hash(pic):
    c = dctn(pic, type=2, norm="ortho")[:8, :8].ravel()
    med = np.median(c[1:])
    return c > med


def fingerprints(out_dir, rows, extra_sizes=()):
    """Per file dict; files that fail to decode get flat=True (no fingerprint) and an error.
    extra_sizes: also keep picture(path, s) as "pic<s>" for the fine stage."""
    fp = []
    t0 = time.perf_counter()
    for r in rows:
        p = os.path.join(out_dir, "files", r["path"])
        sha = hashlib.sha256(open(p, "rb").read()).hexdigest()
        try:
            pic = picture(p)
            f = {"pic": pic, "aspect": upright_aspect(p), "flat": float(pic.std()) < FLAT_STD,
                 "hash": dct_hash(pic), "sha": sha, "error": None}
            for s in extra_sizes:
                f["pic%d" % s] = picture(p, s)
            fp.append(f)
        except pyvips.Error as e:
            f = {"pic": np.zeros((PIC, PIC)), "aspect": 1.0, "flat": True,
                 "hash": np.zeros(64, dtype=bool), "sha": sha,
                 "error": str(e).strip().splitlines()[-1][:120]}
            for s in extra_sizes:
                f["pic%d" % s] = np.zeros((s, s))
            fp.append(f)
    return fp, time.perf_counter() - t0


# -- fine distance --------------------------------------------------------------
def _bilinear(pic, us, vs):
    """Sample pic (32x32 on [0,1]^2, centres (i+.5)/32) at a grid us (x) x vs (y)."""
    n = pic.shape[0]
    px = np.clip(us * n - 0.5, 0, n - 1)
    py = np.clip(vs * n - 0.5, 0, n - 1)
    x0 = np.minimum(np.floor(px).astype(int), n - 2)
    y0 = np.minimum(np.floor(py).astype(int), n - 2)
    fx = px - x0
    fy = py - y0
    a = pic[np.ix_(y0, x0)]
    b = pic[np.ix_(y0, x0 + 1)]
    c = pic[np.ix_(y0 + 1, x0)]
    d = pic[np.ix_(y0 + 1, x0 + 1)]
    fx = fx[None, :]
    fy = fy[:, None]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


def _sat(pic):
    n = pic.shape[0]
    sat = np.zeros((n + 1, n + 1))
    sat[1:, 1:] = pic.cumsum(0).cumsum(1)
    return sat


def _area(pic, us0, us1, vs0, vs1, sat=None):
    """Mean of pic (piecewise constant on [0,1]^2) over cells [us0,us1] x [vs0,vs1]:
    bilinear interpolation of the summed-area table at the cell corners is exact."""
    n = pic.shape[0]
    if sat is None:
        sat = _sat(pic)

    def at(vs, us):
        py = np.clip(vs * n, 0, n)
        px = np.clip(us * n, 0, n)
        y0 = np.minimum(np.floor(py).astype(int), n - 1)
        x0 = np.minimum(np.floor(px).astype(int), n - 1)
        fy = (py - y0)[:, None]
        fx = (px - x0)[None, :]
        a = sat[np.ix_(y0, x0)]
        b = sat[np.ix_(y0, x0 + 1)]
        c = sat[np.ix_(y0 + 1, x0)]
        d = sat[np.ix_(y0 + 1, x0 + 1)]
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    tot = at(vs1, us1) - at(vs0, us1) - at(vs1, us0) + at(vs0, us0)
    area = np.outer((vs1 - vs0) * n, (us1 - us0) * n)
    return tot / area


def _offsets(s, step):
    k = int(round((1 - s) / step))
    return [i * step for i in range(k + 1)]


def _normalise(v, norm):
    v = v - v.mean(axis=-1, keepdims=True)
    if norm == "std":
        v = v / np.maximum(v.std(axis=-1, keepdims=True), 1.0) * 50.0  # back to a ~0..255-like scale
    return v


def window_bank(pic, grid, sizes, step, norm, sample="bilinear"):
    """{(sw, sh): matrix (n_windows x grid^2)} of Y samplings, normalised.
    sample: "bilinear" at cell centres, or "area" (mean over each cell)."""
    k = (np.arange(grid) + 0.5) / grid
    e0, e1 = np.arange(grid) / grid, (np.arange(grid) + 1) / grid
    sat = _sat(pic)
    bank = {}
    for sw in sizes:
        for sh in sizes:
            rows = []
            for oy in _offsets(sh, step):
                vs = oy + sh * k
                for ox in _offsets(sw, step):
                    if sample == "area":
                        rows.append(_area(pic, ox + sw * e0, ox + sw * e1, oy + sh * e0, oy + sh * e1, sat).ravel())
                    else:
                        rows.append(_bilinear(pic, ox + sw * k, vs).ravel())
            bank[(sw, sh)] = _normalise(np.array(rows), norm)
    return bank


def own_grid(pic, grid, norm):
    n = pic.shape[0]
    if grid == n:
        v = pic
    else:
        f = n // grid
        v = pic.reshape(grid, f, grid, f).mean(axis=(1, 3))
    return _normalise(v.ravel()[None, :], norm)[0]


def fine_matrix(fp, grid, sizes=SIZES, step=STEP, norm="mean", tol=ASPECT_TOL, only=None, pic="pic",
                sample="bilinear"):
    """F[x, y] = min over windows of Y compared with all of X; result symmetric min(F, F.T).
    `only`: optional boolean matrix of pairs to compute (others stay inf).
    `pic`: which fingerprint picture to use ("pic" = the 32x32; variants may add larger ones)."""
    n = len(fp)
    ok = np.array([not f["flat"] for f in fp])
    X = np.array([own_grid(f[pic], grid, norm) if ok[i] else np.zeros(grid * grid) for i, f in enumerate(fp)])
    la = np.log(np.array([f["aspect"] for f in fp]))
    F = np.full((n, n), np.inf)
    for y in range(n):
        if not ok[y]:
            continue
        bank = window_bank(fp[y][pic], grid, sizes, step, norm, sample)
        for (sw, sh), S in bank.items():
            m = ok & (np.abs(la - (la[y] + math.log(sw / sh))) <= tol)
            m[y] = False
            if only is not None:
                m &= only[:, y] | only[y, :]
            xs = np.nonzero(m)[0]
            if len(xs) == 0:
                continue
            d = cdist(X[xs], S, "cityblock").min(axis=1)
            F[xs, y] = np.minimum(F[xs, y], d)
    F = np.minimum(F, F.T) / (grid * grid * 255.0)
    np.fill_diagonal(F, 0.0)
    return F


# -- evaluation -----------------------------------------------------------------
def hamming_matrix(fp):
    H = np.array([f["hash"] for f in fp], dtype=np.uint8)
    D = (H[:, None, :] != H[None, :, :]).sum(axis=2)
    for i, f in enumerate(fp):
        if f["flat"]:
            D[i, :] = 999
            D[:, i] = 999
    np.fill_diagonal(D, 0)
    return D


def components(n, edges):
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return [find(i) for i in range(n)]


def identical_edges(fp):
    by = {}
    for i, f in enumerate(fp):
        by.setdefault(f["sha"], []).append(i)
    return [(g[0], j) for g in by.values() for j in g[1:]]


def sweep(idx, fp, D, F, rs=R_SWEEP, ts=T_SWEEP):
    n = len(fp)
    ident = identical_edges(fp)
    iu, ju = np.triu_indices(n, 1)
    d, f = D[iu, ju], F[iu, ju]
    out = []
    for R in rs:
        for T in ts:
            sel = (d <= R) & (f <= T)
            edges = list(zip(iu[sel].tolist(), ju[sel].tolist())) + ident
            m = idx.score_components(components(n, edges))
            out.append((R, T, m))
    return out


def pair_classes(idx, fp):
    """true (same photo, not byte-identical), burst, diff; flats excluded."""
    cls = {"true": [], "burst": [], "diff": []}
    n = len(fp)
    for i in range(n):
        for j in range(i + 1, n):
            if fp[i]["flat"] or fp[j]["flat"] or idx.rows[i]["flat"] or idx.rows[j]["flat"]:
                continue
            ri, rj = idx.rows[i], idx.rows[j]
            if ri["photo"] == rj["photo"]:
                if fp[i]["sha"] != fp[j]["sha"]:
                    cls["true"].append((i, j))
            elif ri["burst"] and ri["burst"] == rj["burst"]:
                cls["burst"].append((i, j))
            else:
                cls["diff"].append((i, j))
    return cls


def dist_summary(v):
    v = np.asarray(v, dtype=float)
    v = v[np.isfinite(v)] if v.dtype.kind == "f" else v
    if len(v) == 0:
        return "n=0"
    q = np.percentile(v, [1, 5, 50, 95, 99])
    return "n=%d min=%.4g p1=%.4g p5=%.4g p50=%.4g p95=%.4g p99=%.4g max=%.4g" % (
        len(v), v.min(), q[0], q[1], q[2], q[3], q[4], v.max())


def best_point(results, min_p=0.99, min_burst=0.99):
    ok = [(m["recall"], -R, -T, R, T, m) for R, T, m in results
          if m["precision"] >= min_p and m["burst_apart"] >= min_burst]
    if not ok:
        return None
    r = max(ok)
    return r[3], r[4], r[5]


def report_variant(name, idx, fp, D, F, cls, out, top=6):
    lines = ["### %s" % name]
    for c in ("true", "burst", "diff"):
        pairs = cls[c]
        fv = np.array([F[i, j] for i, j in pairs])
        nfin = int(np.isinf(fv).sum())
        lines.append("- %s pairs: fine %s; no comparable window (aspect): %d" % (c, dist_summary(fv), nfin))
    srt = sorted(cls["true"], key=lambda q: -F[q])
    lines.append("- worst true pairs (fine, ham): " + "; ".join(
        "%s %.4f/%d" % (idx.name_pair(q), F[q], D[q]) for q in srt[:top]))
    srt = sorted(cls["burst"], key=lambda q: F[q])
    lines.append("- closest burst pairs (fine, ham): " + "; ".join(
        "%s %.4f/%d" % (idx.name_pair(q), F[q], D[q]) for q in srt[:top]))
    srt = sorted(cls["diff"], key=lambda q: F[q])
    lines.append("- closest different-photo pairs (fine, ham): " + "; ".join(
        "%s %.4f/%d" % (idx.name_pair(q), F[q], D[q]) for q in srt[:top]))
    results = sweep(idx, fp, D, F)
    b = best_point(results)
    if b:
        R, T, m = b
        lines.append("- best (R, T) with P>=0.99 and burst apart>=0.99: R=%d T=%.4f  %s" % (
            R, T, evaluate.row(name, m)))
        if m["fn"]:
            lines.append("  missed at best: " + "; ".join(idx.name_pair(q) for q in m["fn"][:12])
                         + (" ... (+%d)" % (len(m["fn"]) - 12) if len(m["fn"]) > 12 else ""))
        if m["fp"]:
            lines.append("  wrong at best: " + "; ".join(idx.name_pair(q) for q in m["fp"][:12]))
    else:
        lines.append("- no (R, T) reaches P>=0.99 with burst apart>=0.99")
    # compact sweep table: for each R, best T
    lines.append("")
    lines.append("| R | best T | precision | recall | burst apart | diff apart | T meeting P>=.99, R>=.95, burst>=.99 |")
    lines.append("|---|---|---|---|---|---|---|")
    for R in R_SWEEP:
        sub = [(m["recall"], -T, T, m) for RR, T, m in results if RR == R
               and m["precision"] >= 0.99 and m["burst_apart"] >= 0.99]
        good = [T for RR, T, m in results if RR == R and m["precision"] >= 0.99
                and m["recall"] >= 0.95 and m["burst_apart"] >= 0.99]
        rng = "%.4f .. %.4f" % (min(good), max(good)) if good else "none"
        if sub:
            _, _, T, m = max(sub)
            lines.append("| %d | %.4f | %.4f | %.4f | %.4f | %.4f | %s |" % (
                R, T, m["precision"], m["recall"], m["burst_apart"], m["diff_apart"], rng))
        else:
            lines.append("| %d | - | - | - | - | - | %s |" % (R, rng))
    out[name] = {"best": None if not b else {"R": b[0], "T": b[1], **{k: v for k, v in b[2].items()
                                                                       if k not in ("fn", "fp")}},
                 "sweep": [{"R": R, "T": T, **{k: v for k, v in m.items() if k not in ("fn", "fp")}}
                           for R, T, m in results]}
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--grid", default="both", choices=["16", "32", "both"])
    ap.add_argument("--variant", action="append", default=None, choices=sorted(VARIANTS))
    ap.add_argument("--json", default=None)
    ap.add_argument("--libvips", default="binary", choices=["binary", "system"],
                    help="binary: pyvips-binary's bundled libvips; system: the system libvips (ABI mode)")
    a = ap.parse_args()
    rows = evaluate.load_labels(os.path.join(a.out_dir, "labels.tsv"))
    idx = evaluate.PairIndex(rows, os.path.join(a.out_dir, "files"))
    variants = a.variant or ["base", "hires"]
    extra = sorted({VARIANTS[v]["size"] for v in variants} - {PIC})
    fp, secs = fingerprints(a.out_dir, rows, extra)
    print("libvips %d.%d.%d via pyvips (%s, API mode %s); fingerprinted %d files in %.1f s" % (
        pyvips.version(0), pyvips.version(1), pyvips.version(2), LIBVIPS, pyvips.API_mode, len(fp), secs))
    print("flat (no fingerprint): %s" % ", ".join(r["path"] for r, f in zip(rows, fp) if f["flat"] and not f["error"]))
    bad = [(r["path"], f["error"]) for r, f in zip(rows, fp) if f["error"]]
    if bad:
        print("failed to decode (%d, treated as no fingerprint): %s" % (len(bad), "; ".join(
            "%s (%s)" % b for b in bad[:5]) + (" ..." if len(bad) > 5 else "")))
    unflat = [r["path"] for r, f in zip(rows, fp) if r["flat"] and not f["flat"]]
    wrongflat = [r["path"] for r, f in zip(rows, fp) if f["flat"] and not r["flat"] and not f["error"]]
    if unflat or wrongflat:
        print("flat mismatch: labelled flat but fingerprinted: %s; fingerprint-flat but not labelled: %s" % (
            unflat, wrongflat))
    D = hamming_matrix(fp)
    cls = pair_classes(idx, fp)
    lines = ["## Hamming distance (64-bit DCT hash)"]
    for c in ("true", "burst", "diff"):
        lines.append("- %s pairs: %s" % (c, dist_summary([D[q] for q in cls[c]])))
    srt = sorted(cls["true"], key=lambda q: -D[q])
    lines.append("- worst true pairs by Hamming: " + "; ".join("%s %d" % (idx.name_pair(q), D[q]) for q in srt[:6]))
    srt = sorted(cls["burst"], key=lambda q: D[q])
    lines.append("- closest burst pairs by Hamming: " + "; ".join("%s %d" % (idx.name_pair(q), D[q]) for q in srt[:6]))
    out = {}
    grids = [16, 32] if a.grid == "both" else [int(a.grid)]
    for v in variants:
        cfg = VARIANTS[v]
        for g in ([cfg["grid"]] if cfg["grid"] else grids):
            t0 = time.perf_counter()
            size = cfg["size"]
            only = (D <= max(R_SWEEP)) if size != PIC else None
            F = fine_matrix(fp, g, pic="pic" if size == PIC else "pic%d" % size, sample=cfg["sample"], only=only)
            dt = time.perf_counter() - t0
            name = "A-%s-p%d-g%d-%s" % (v, size, g, cfg["sample"])
            if only is not None:
                lines.append("")
                lines.append("(fine distance computed only for pairs with Hamming <= %d)" % max(R_SWEEP))
            lines.append("")
            lines += report_variant(name, idx, fp, D, F, cls, out)
            lines.append("(fine matrix: %.1f s for %d files)" % (dt, len(fp)))
            print("\n".join(lines))
            sys.stdout.flush()
            lines = []
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
