#!/usr/bin/python3
"""hnswlib (Debian python3-hnswlib) on the same fvecs files as `engram bench
vector`, printing the same JSON fields. Vectors are L2-normalised and compared
by inner product ("ip" space), as engram does.

Usage: bench/hnswlib_bench.py --base B.fvecs --queries Q.fvecs
         [--groundtruth G.ivecs] [--k 10] [--m 16] [--ef-construction 200]
         [--ef-search 64] [--threads 1] [--build-threads 1]
"""
import argparse
import json
import time

import hnswlib
import numpy as np


def read_vecs(path, dtype):
    a = np.fromfile(path, dtype=np.int32)
    d = int(a[0])
    return a.reshape(-1, d + 1)[:, 1:].copy().view(dtype)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--groundtruth")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=200)
    ap.add_argument("--ef-search", default="64", help="one value, or several separated by commas")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--build-threads", type=int, default=1)
    a = ap.parse_args()
    base = read_vecs(a.base, np.float32)
    queries = read_vecs(a.queries, np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    n, d = base.shape
    if a.groundtruth:
        truth = read_vecs(a.groundtruth, np.int32)[:, :a.k]
    else:
        s = queries @ base.T
        truth = np.argsort(-s, axis=1)[:, :a.k]
    index = hnswlib.Index(space="ip", dim=d)
    index.init_index(max_elements=n, ef_construction=a.ef_construction, M=a.m, random_seed=100)
    t0 = time.perf_counter()
    index.add_items(base, np.arange(n), num_threads=a.build_threads)
    build = time.perf_counter() - t0
    size0 = index.M * 2 * 4 + 4 + d * 4 + 8  # hnswlib's level-0 block: links, vector, label
    for ef in [int(x) for x in str(a.ef_search).split(",")]:
        index.set_ef(ef)
        index.set_num_threads(a.threads)
        index.knn_query(queries[:50], k=a.k)  # warm-up
        t0 = time.perf_counter()
        # One batch call: hnswlib's C++ loop over the queries on a.threads threads (no Python per query).
        labels = index.knn_query(queries, k=a.k, num_threads=a.threads)[0]
        search = time.perf_counter() - t0
        hits = sum(len(set(labels[i]) & set(truth[i])) for i in range(len(queries)))
        print(json.dumps({"engine": "hnswlib " + getattr(hnswlib, "__version__", "0.6.2"),
                          "recall": hits / (len(queries) * a.k), "qps": len(queries) / search,
                          "build_seconds": build, "ef_search": ef,
                          "bytes_per_vector": size0 + (a.m * 4 + 4) / np.log(a.m),
                          "threads": a.threads, "build_threads": a.build_threads}), flush=True)


if __name__ == "__main__":
    main()
