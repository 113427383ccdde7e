#!/usr/bin/env python3
"""Off-the-shelf perceptual hashes on the labelled duplicate set (issue 45).

usage (in /work/venv-dup):
  peers.py OUT_DIR [--methods phash,dhash,whash,pdq,imagededup_phash] [--json OUT.json]

Each method runs in its own child process (so its hashing time and peak RSS are
its own): decode every file with Pillow + pillow-heif, apply EXIF orientation
(ImageOps.exif_transpose), convert to RGB, hash.  A "decode" pseudo-method
(decode only) gives the baseline time/RSS.  Then, for every Hamming threshold t,
files are grouped by connected components over all pairs with distance <= t and
scored with evaluate.py (one samePhoto tier).  Reported per method: the t with
the best recall subject to precision >= 0.99, and the t with the best F1.

imagededup is installed with --no-deps (no torch).  Importing
imagededup.methods.hashing pulls in imagededup.methods.cnn and
imagededup.utils.models, which import torch/torchvision; we pre-register two
empty stand-in modules under those names (see _imagededup_hashing) and import
nothing else of the package.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evaluate  # noqa: E402

METHODS = ["phash", "dhash", "whash", "pdq", "imagededup_phash"]
MIN_PRECISION = 0.99


def _imagededup_hashing():
    import types
    for name, attr in (("imagededup.utils.models", "CustomModel"), ("imagededup.methods.cnn", "CNN")):
        if name not in sys.modules:
            m = types.ModuleType(name)
            setattr(m, attr, None)
            sys.modules[name] = m
    from imagededup.methods.hashing import PHash
    return PHash


def _hasher(method):
    import numpy as np
    if method == "decode":
        return lambda im: np.zeros(1, dtype=np.uint8)
    if method in ("phash", "dhash", "whash"):
        import imagehash
        f = getattr(imagehash, method)
        return lambda im: np.asarray(f(im).hash, dtype=np.uint8).ravel()
    if method == "pdq":
        import pdqhash
        return lambda im: np.asarray(pdqhash.compute(np.asarray(im))[0], dtype=np.uint8)
    if method == "imagededup_phash":
        PHash = _imagededup_hashing()
        ph = PHash(verbose=False)

        def h(im):
            hexs = ph.encode_image(image_array=np.asarray(im))
            return np.unpackbits(np.frombuffer(bytes.fromhex(hexs), dtype=np.uint8))
        return h
    raise ValueError(method)


def worker(method, out_dir, result_path):
    """Child process: hash every file, write {"bits": {path: "0101.."}, "failed": {...}, ...}."""
    import pillow_heif
    from PIL import Image, ImageOps
    pillow_heif.register_heif_opener()
    rows = evaluate.load_labels(os.path.join(out_dir, "labels.tsv"))
    h = _hasher(method)
    bits, failed = {}, {}
    t0 = time.perf_counter()
    for r in rows:
        p = os.path.join(out_dir, "files", r["path"])
        try:
            with Image.open(p) as im:
                im = ImageOps.exif_transpose(im)
                im = im.convert("RGB")
                v = h(im)
            bits[r["path"]] = "".join("1" if b else "0" for b in v)
        except Exception as e:  # noqa: BLE001 - report any decode/hash failure
            failed[r["path"]] = "%s: %s" % (type(e).__name__, e)
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    with open(result_path, "w") as f:
        json.dump({"method": method, "bits": bits, "failed": failed, "seconds": dt, "peak_rss_mib": rss}, f)


def run_method(method, out_dir, tmp_json):
    cmd = [sys.executable, os.path.abspath(__file__), out_dir, "--worker", method, "--json", tmp_json]
    subprocess.run(cmd, check=True)
    with open(tmp_json) as f:
        return json.load(f)


def sweep(idx, paths, bits_by_path, drop_flat=False):
    """(t, metrics) for every threshold; connected components over pairs <= t.
    drop_flat: leave labelled-flat files out of the grouping (as if a flat-frame
    detector ran first)."""
    import numpy as np
    n = len(paths)
    have = [i for i, p in enumerate(paths) if p in bits_by_path and not (drop_flat and idx.is_flat(i))]
    B = np.array([[c == "1" for c in bits_by_path[paths[i]]] for i in have], dtype=np.uint8)
    nbits = B.shape[1]
    D = (B[:, None, :] != B[None, :, :]).sum(axis=2)
    iu, ju = np.triu_indices(len(have), 1)
    d = D[iu, ju]
    order = np.argsort(d, kind="stable")
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    k = 0
    out = []
    for t in range(nbits + 1):
        while k < len(order) and d[order[k]] <= t:
            a, b = have[iu[order[k]]], have[ju[order[k]]]
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
            k += 1
        comp = [find(i) for i in range(n)]  # files without a hash stay alone
        out.append((t, idx.score_components(comp)))
    return out, D, have


def best(results):
    ok = [(m["recall"], -t, t, m) for t, m in results if m["precision"] >= MIN_PRECISION]
    b1 = max(ok)[2:] if ok else (None, None)
    bf = max((m["f1"], -t, t, m) for t, m in results)[2:]
    return b1, bf


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--json", default=None, help="write full results here (worker: hash output)")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.out_dir, a.json)
        return
    rows = evaluate.load_labels(os.path.join(a.out_dir, "labels.tsv"))
    idx = evaluate.PairIndex(rows, os.path.join(a.out_dir, "files"))
    paths = idx.paths
    methods = ["decode"] + [m for m in a.methods.split(",") if m]
    tmp = os.path.join(a.out_dir, ".peers-tmp.json")
    lines = ["| method | flats | bits | t (P>=0.99) | precision | recall | burst apart | diff apart | flat grouped "
             "| t (best F1) | P / R / F1 | burst apart | hash time (s) | peak RSS (MiB) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    full = {}
    failures = {}
    for method in methods:
        res = run_method(method, a.out_dir, tmp)
        for p, e in res["failed"].items():
            failures.setdefault(p, []).append("%s: %s" % (method, e))
        if method == "decode":
            lines.append("| decode only (Pillow+pillow-heif, exif_transpose) | - | - | - | - | - | - | - | - | - | - | - "
                         "| %.1f | %.0f |" % (res["seconds"], res["peak_rss_mib"]))
            continue
        nbits = len(next(iter(res["bits"].values())))
        for drop_flat in (False, True):
            results, D, have = sweep(idx, paths, res["bits"], drop_flat)
            (t1, m1), (tf, mf) = best(results)
            if t1 is None:
                c1 = "none | - | - | - | - | -"
            else:
                c1 = "%d | %.4f | %.4f | %.4f | %.4f | %d" % (t1, m1["precision"], m1["recall"], m1["burst_apart"],
                                                           m1["diff_apart"], m1["flat_grouped"])
            lines.append("| %s | %s | %d | %s | %d | %.3f / %.3f / %.3f | %.4f | %.1f | %.0f |" % (
                method, "left out" if drop_flat else "hashed", nbits, c1, tf, mf["precision"], mf["recall"],
                mf["f1"], mf["burst_apart"], res["seconds"], res["peak_rss_mib"]))
            strip = lambda m: {k: v for k, v in m.items() if k not in ("fn", "fp")}
            full["%s%s" % (method, "/noflat" if drop_flat else "")] = {
                "seconds": res["seconds"], "peak_rss_mib": res["peak_rss_mib"],
                "best_p99": {"t": t1, **(strip(m1) if m1 else {})},
                "best_f1": {"t": tf, **strip(mf)},
                "missed_at_best_p99": [idx.name_pair(q) for q in (m1["fn"] if m1 else [])],
                "wrong_at_best_p99": [idx.name_pair(q) for q in (m1["fp"] if m1 else [])],
                "wrong_at_best_f1": [idx.name_pair(q) for q in mf["fp"]],
                "sweep": [{"t": t, **strip(m)} for t, m in results]}
        full[method + "/hashes"] = res["bits"]
    if os.path.exists(tmp):
        os.remove(tmp)
    print("\n".join(lines))
    if failures:
        print("\nfiles that failed to decode/hash:")
        for p in sorted(failures):
            print("  %s  (%s)" % (p, "; ".join(failures[p])))
    else:
        print("\nall %d files decoded" % len(paths))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"methods": full, "failures": failures}, f, indent=1)


if __name__ == "__main__":
    main()
