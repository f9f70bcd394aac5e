"""Quick GPU timing (no peers, no validation): graph build and BFS ms per direction, with each
level's direction, sizes, seconds, host reads and whether it ran fused; with ``--json PATH``
also a record of it (e.g. to compare two commits in one device call).

    python3 benchmarks/gpu_quick.py kron:20 kron:22 mesh:1000x1000 path:1000000 road:1000000 [--json out.json]
"""
import importlib
import os
import sys
import time

import numpy as np

import lagraph_dist as ld

try:
    from lagraph_dist.io.generators import grid2d_edges
except ImportError:          # a commit from before the layer folders, timed beside this one
    grid2d_edges = importlib.import_module("lagraph_dist.generators").grid2d_edges
    write_json = importlib.import_module("lagraph_dist.bench").write_json
else:
    from lagraph_dist.tools.bench import write_json
try:
    from lagraph_dist.core.version import code_identity
except ImportError:          # a commit from before records named their code, timed beside this one (device.sh's
    def code_identity():     # compare and blocks-ab, host_ab.py): the commit its harness names, as code_identity would
        commit = os.environ.get("LAGRAPH_DIST_COMMIT")
        return {"version": getattr(ld, "__version__", None), "commit": commit, "dirty": None,
                "commit_from": "$LAGRAPH_DIST_COMMIT" if commit else "unknown"}


def build(spec, backend="gpu"):
    """The graph a spec names (kron:SCALE, mesh:RxC, path:N, road:N) on ``backend``, and its
    roots (None: the caller picks them)."""
    kind, _, size = spec.partition(":")
    if kind == "kron":
        return ld.kronecker(int(size), backend=backend), None
    if kind == "mesh":
        rows, cols = (int(x) for x in size.split("x"))
        src, dst = grid2d_edges(rows, cols)
        return ld.Matrix.from_edges(src, dst, rows * cols, symmetrize=True, backend=backend), [0]
    if kind == "path":
        n = int(size)
        ids = np.arange(n - 1)
        return ld.Matrix.from_edges(ids, ids + 1, n, symmetrize=True, backend=backend), [0]
    if kind == "road":
        from lagraph_dist.io.generators import knn_edges
        src, dst = knn_edges(int(size))
        return ld.Matrix.from_edges(src, dst, int(size), symmetrize=True, backend=backend), [0]
    raise SystemExit(f"unknown graph {spec!r}: kron:SCALE, mesh:RxC, path:N or road:N")


def timed_searches(A, roots, direction="auto"):
    """(ms of each search, the last search's result), after one untimed search: each root but
    the first once, or the one root three times."""
    import cupy as cp
    ld.bfs(A, roots[0], direction=direction)
    times = []
    for root in (roots[1:] or roots) * (1 if len(roots) > 1 else 3):
        started = time.perf_counter()
        result = ld.bfs(A, root, direction=direction)
        cp.cuda.Device().synchronize()
        times.append(1e3 * (time.perf_counter() - started))
    return times, result


def main(specs, json_path=None):
    import cupy as cp
    record = {"commit": code_identity()["commit"], "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
              "graphs": {}}
    for spec in specs:
        started = time.perf_counter()
        A, roots = build(spec)
        cp.cuda.Device().synchronize()
        built = time.perf_counter() - started
        print(f"{spec}: built in {built:.2f} s, {A}", flush=True)
        record["graphs"][spec] = {"build_seconds": built}
        if roots is None:
            roots = [int(v) for v in A.out_degree().indices()[:7]]
        for direction in ("push", "auto"):
            times, result = timed_searches(A, roots, direction)
            fused = sum(1 for s in result.stats if s["fused"])
            level_ms = 1e3 * sum(s["seconds"] for s in result.stats)     # each level's own (last search)
            record["graphs"][spec][direction] = {"ms": times, "median_ms": float(np.median(times)),
                                                 "levels": len(result.stats), "fused_levels": fused,
                                                 "level_ms_last": level_ms}
            print(f"  {direction}: ms {[round(t, 3) for t in times]}, {len(result.stats)} levels "
                  f"({fused} fused), {1e3 * np.median(times) / max(len(result.stats), 1):.1f} us/level, "
                  f"levels' own ms (last search) {level_ms:.3f}", flush=True)
            for s in result.stats[:40]:
                if not s["fused"] or s["level"] < 4 or len(result.stats) <= 12:     # a deep search: its first
                    print(f"    {s['level']} {s['direction']} fused={s['fused']} frontier={s['frontier']} "
                          f"found={s['discovered']} edges={s['edges_examined']} ms={1e3 * s['seconds']:.3f} "
                          f"reads={s['host_reads']}", flush=True)


    if json_path:
        write_json(record, json_path)


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args[args.index("--json") + 1] if "--json" in args else None
    main([a for a in args if a not in ("--json", path)], path)
