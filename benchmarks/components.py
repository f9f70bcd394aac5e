"""Connected components: ours (``lagraph_dist.algorithms.components``) against
``scipy.sparse.csgraph.connected_components`` on the host, in one process, alternating.

For each graph: warm-up calls first (every kernel compiled), then ``--repeats`` rounds, each
timing ours once and scipy twice, on the matrix as ``A.to_scipy()`` gives it (a bool CSR,
which scipy converts to float64 inside its call) and on a float64 CSR made beforehand (scipy's
best case: no conversion in its time). The labels are checked: ours equal the smallest id of
each of scipy's components, and the counts agree. The record keeps every call's seconds.

    python3 benchmarks/components.py --graph kron:20 --graph mesh:1000x1000 --json out.json
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_components

import lagraph_dist as ld
from lagraph_dist.algorithms.components import connected_components, number_connected_components
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
from multi_source import build      # noqa: E402  (kron:SCALE, mesh:RxC, mtx:PATH)


def smallest_ids(labels, count):
    """Each vertex's component named by its smallest vertex id, from any labelling 0..count-1."""
    smallest = np.full(count, labels.shape[0], dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(labels.shape[0], dtype=np.int64))
    return smallest[labels]


def seconds(A, func, *args):
    started = time.perf_counter()
    result = func(*args)
    A.backend.sync()
    return result, time.perf_counter() - started


def run_graph(spec, args):
    A, name, _ = build(spec, args.backend)
    S = A.to_scipy()
    F = sp.csr_array(S, dtype=np.float64)
    F.sort_indices()
    directed = not A.symmetric
    calls = {"ours": lambda: connected_components(A),
             "scipy": lambda: scipy_components(S, directed=directed, connection="weak"),
             "scipy_float64": lambda: scipy_components(F, directed=directed, connection="weak")}
    for _ in range(args.warmup):
        for call in calls.values():
            call()
    times = {key: [] for key in calls}
    for _ in range(args.repeats):
        for key, call in calls.items():
            result, took = seconds(A, call)
            times[key].append(took)
            if key == "ours":
                ours = result
            elif key == "scipy":
                count, labels = result
    expected = smallest_ids(labels, count)
    equal = bool(np.array_equal(ours.to_numpy(), expected))
    number = number_connected_components(A)
    run = {"graph": name, "spec": spec, "n": A.n, "nvals": A.nvals, "components": int(count),
           "labels_equal": equal, "number_equal": number == count,
           "seconds": times,
           "median_ms": {key: 1e3 * float(np.median(v)) for key, v in times.items()},
           "best_ms": {key: 1e3 * float(np.min(v)) for key, v in times.items()}}
    if not (equal and number == count):
        raise SystemExit(f"{name}: our components differ from scipy's")
    return A, run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", action="append", required=True, help="kron:SCALE, mesh:RxC or mtx:PATH")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    runs = []
    for spec in args.graph:
        A, run = run_graph(spec, args)
        runs.append(run)
        med, best = run["median_ms"], run["best_ms"]
        print(f"{run['graph']}: {run['components']:,} components; median (best) ms: "
              + ", ".join(f"{key} {med[key]:.1f} ({best[key]:.1f})" for key in med), flush=True)
        if args.json:
            write_json({"benchmark": "components", "environment": environment(A), "runs": runs}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
