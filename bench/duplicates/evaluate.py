#!/usr/bin/env python3
"""Score a duplicate grouping against a labelled set (issue 45).

usage: evaluate.py OUT_DIR/labels.tsv GROUPING.json [--name NAME] [--header]

GROUPING.json: {"groups": [{"tier": "identical|samePhoto|similar",
                            "keeper": P, "members": [P, ...]}, ...]}
with paths relative to OUT_DIR/files (the directory next to labels.tsv).

Over all unordered pairs of files listed in labels.tsv:
  true pair       same `photo`; a pair involving a flat file counts only when
                  the two files are byte-identical
  predicted pair  both files in one group of tier identical or samePhoto
                  ("similar" groups do not make a pair)
  precision, recall of predicted vs true pairs
  burst apart     fraction of burst pairs (same `burst`, different `photo`)
                  not predicted
  diff apart      fraction of other different-photo pairs (not same burst)
                  not predicted
  flat grouped    predicted pairs involving a flat file that are not
                  byte-identical (should be 0)
Prints one markdown table row (with --header, the header first).

Library use (stdlib only):
  idx = PairIndex(load_labels(path))
  m = idx.score_groups(groups)            # groups as in the JSON
  m = idx.score_components(comp)          # comp[i]: component id of file i (None = alone)
"""
import argparse
import csv
import hashlib
import json
import os
import sys

HEADER = ("| method | precision | recall | F1 | burst apart | diff apart | flat grouped "
          "| TP / pred / true |\n|---|---|---|---|---|---|---|---|")


def load_labels(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        r["flat"] = str(r.get("flat", "0")).strip() == "1"
        r["burst"] = r.get("burst") or ""
    return rows


def _sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class PairIndex:
    """Pair classes of a labelled set, computed once."""

    def __init__(self, rows, files_dir=None):
        self.rows = rows
        self.paths = [r["path"] for r in rows]
        self.pos = {p: i for i, p in enumerate(self.paths)}
        self.files_dir = files_dir
        n = len(rows)
        self._sha = {}
        self.true, self.burst, self.diff = set(), [], []
        self.flat_byte_identical = set()
        for i in range(n):
            ri = rows[i]
            for j in range(i + 1, n):
                rj = rows[j]
                same = ri["photo"] == rj["photo"]
                if ri["flat"] or rj["flat"]:
                    if same and self._byte_identical(i, j):
                        self.true.add((i, j))
                        self.flat_byte_identical.add((i, j))
                    elif not same:
                        self.diff.append((i, j))
                    continue
                if same:
                    self.true.add((i, j))
                elif ri["burst"] and ri["burst"] == rj["burst"]:
                    self.burst.append((i, j))
                else:
                    self.diff.append((i, j))

    def _byte_identical(self, i, j):
        if self.files_dir is None:
            return True  # same photo id for flats means byte copy in make-labelled-set.py
        for k in (i, j):
            if k not in self._sha:
                self._sha[k] = _sha(os.path.join(self.files_dir, self.paths[k]))
        return self._sha[i] == self._sha[j]

    def is_flat(self, i):
        return self.rows[i]["flat"]

    # -- scoring ------------------------------------------------------------
    def _score(self, pred):
        tp = len(pred & self.true)
        npred, ntrue = len(pred), len(self.true)
        p = tp / npred if npred else 1.0
        r = tp / ntrue if ntrue else 1.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        burst_apart = (sum(1 for q in self.burst if q not in pred) / len(self.burst)) if self.burst else 1.0
        diff_apart = (sum(1 for q in self.diff if q not in pred) / len(self.diff)) if self.diff else 1.0
        flat_grouped = sum(1 for (i, j) in pred
                           if (self.is_flat(i) or self.is_flat(j)) and (i, j) not in self.flat_byte_identical)
        return {"precision": p, "recall": r, "f1": f1, "burst_apart": burst_apart,
                "diff_apart": diff_apart, "flat_grouped": flat_grouped, "tp": tp,
                "pred": npred, "true": ntrue, "fn": sorted(self.true - pred),
                "fp": sorted(pred - self.true)}

    def score_groups(self, groups, unknown=None):
        pred = set()
        for g in groups:
            if g.get("tier") not in ("identical", "samePhoto"):
                continue
            idx = []
            for m in g["members"]:
                if m in self.pos:
                    idx.append(self.pos[m])
                elif unknown is not None:
                    unknown.append(m)
            idx = sorted(set(idx))
            for a in range(len(idx)):
                for b in range(a + 1, len(idx)):
                    pred.add((idx[a], idx[b]))
        return self._score(pred)

    def score_components(self, comp):
        by = {}
        for i, c in enumerate(comp):
            if c is not None:
                by.setdefault(c, []).append(i)
        pred = set()
        for idx in by.values():
            for a in range(len(idx)):
                for b in range(a + 1, len(idx)):
                    pred.add((idx[a], idx[b]))
        return self._score(pred)

    def name_pair(self, q):
        return "%s ~ %s" % (self.paths[q[0]], self.paths[q[1]])


def row(name, m):
    return "| %s | %.4f | %.4f | %.4f | %.4f | %.4f | %d | %d / %d / %d |" % (
        name, m["precision"], m["recall"], m["f1"], m["burst_apart"], m["diff_apart"],
        m["flat_grouped"], m["tp"], m["pred"], m["true"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels")
    ap.add_argument("grouping")
    ap.add_argument("--name", default=None)
    ap.add_argument("--header", action="store_true")
    ap.add_argument("--show-errors", type=int, default=0, metavar="N",
                    help="also list up to N missed and N wrong pairs")
    a = ap.parse_args()
    rows = load_labels(a.labels)
    idx = PairIndex(rows, os.path.join(os.path.dirname(os.path.abspath(a.labels)), "files"))
    with open(a.grouping) as f:
        groups = json.load(f)["groups"]
    unknown = []
    m = idx.score_groups(groups, unknown)
    if unknown:
        print("warning: %d grouped paths not in labels, e.g. %s" % (len(unknown), unknown[:3]), file=sys.stderr)
    if a.header:
        print(HEADER)
    print(row(a.name or os.path.basename(a.grouping), m))
    for key, title in (("fn", "missed"), ("fp", "wrong")):
        for q in m[key][:a.show_errors]:
            print("%s: %s" % (title, idx.name_pair(q)), file=sys.stderr)


if __name__ == "__main__":
    main()
