#!/usr/bin/python3
"""Clustered, L2-normalised vectors for the vector-index benchmark, fixed seed.

Writes DIR/base.fvecs (N vectors), DIR/queries.fvecs (Q vectors from the same
clusters) and DIR/groundtruth.ivecs (the exact 100 nearest base rows of each
query by inner product). Vectors are a cluster centre plus Gaussian noise, so
neighbourhoods have the structure of real embeddings rather than of uniform
noise. Needs python3-numpy (Debian).

Usage: bench/gen-vectors.py DIR [--n 100000] [--queries 1000] [--dims 384]
                                [--clusters 1000] [--seed 7] [--noise 1.5]
"""
import argparse
import os

import numpy as np


def write_vecs(path, rows, dtype):
    rows = np.ascontiguousarray(rows, dtype=dtype)
    n, d = rows.shape
    out = np.empty((n, d + 1), dtype=np.int32)
    out[:, 0] = d
    out[:, 1:] = rows.view(np.int32)
    out.tofile(path)


def normalise(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--dims", type=int, default=384)
    ap.add_argument("--clusters", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--noise", type=float, default=1.5,
                    help="mean norm of the noise added to a unit centre (larger: harder)")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    centres = normalise(rng.standard_normal((a.clusters, a.dims), dtype=np.float32))
    # Spread per cluster varies, as topics in a corpus do.
    spread = rng.uniform(0.5 * a.noise, 1.5 * a.noise, a.clusters).astype(np.float32) / np.sqrt(a.dims)

    def draw(n):
        out = np.empty((n, a.dims), dtype=np.float32)
        step = 100000
        for i in range(0, n, step):
            m = min(step, n - i)
            c = rng.integers(0, a.clusters, m)
            noise = rng.standard_normal((m, a.dims), dtype=np.float32) * spread[c, None]
            out[i:i + m] = normalise(centres[c] + noise)
        return out

    base = draw(a.n)
    queries = draw(a.queries)
    write_vecs(os.path.join(a.dir, "base.fvecs"), base, np.float32)
    write_vecs(os.path.join(a.dir, "queries.fvecs"), queries, np.float32)
    k = 100
    best = np.empty((a.queries, k), dtype=np.int32)
    for i in range(0, a.queries, 100):
        s = queries[i:i + 100] @ base.T
        idx = np.argpartition(-s, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(s, idx, axis=1), axis=1, kind="stable")
        best[i:i + 100] = np.take_along_axis(idx, order, axis=1)
    write_vecs(os.path.join(a.dir, "groundtruth.ivecs"), best, np.int32)
    print(f"wrote {a.n} base, {a.queries} queries, dims {a.dims}, {a.clusters} clusters to {a.dir}")


if __name__ == "__main__":
    main()
