"""Where a BFS level's time goes on one GPU: cProfile of repeated searches (host time by
function) and device-synchronised timings of one product, one assign and one fused run.

    python3 benchmarks/probes/profile_level.py 22
"""
import cProfile
import pstats
import sys
import time

import numpy as np

import lagraph_dist as ld
from lagraph_dist.semirings import any_secondi


def timed(label, func, repeats=20):
    import cupy as cp
    func()
    cp.cuda.Device().synchronize()
    started = time.perf_counter()
    for _ in range(repeats):
        func()
    cp.cuda.Device().synchronize()
    print(f"{label}: {1e6 * (time.perf_counter() - started) / repeats:.1f} us", flush=True)


ld.settings.host_search_edges = 0      # the device's kernels are what this measures, however small the graph


def main(scale):
    A = ld.kronecker(scale, backend="gpu")
    roots = [int(v) for v in A.out_degree().indices()[:8]]
    for root in roots:
        ld.bfs(A, root)
    profile = cProfile.Profile()
    profile.enable()
    for root in roots * 3:
        ld.bfs(A, root)
    profile.disable()
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)
    # one small push product and its assignments, synchronised
    grid = A.grid
    q = ld.Vector.from_indices([roots[0]], A.n, values=np.array([roots[0]]), grid=grid, backend="gpu",
                               dtype=np.int64)
    visited = q.to_bitmap()
    timed("from_indices", lambda: ld.Vector.from_indices([roots[0]], A.n, values=np.array([roots[0]]),
                                                          grid=grid, backend="gpu", dtype=np.int64))
    timed("vxm one vertex", lambda: ld.vxm(q.to_list(), A, any_secondi, mask=visited, complement=True))
    w = ld.vxm(q.to_list(), A, any_secondi, mask=visited, complement=True)
    depths = visited.dup() if hasattr(visited, "dup") else visited
    timed("assign value", lambda: ld.assign(depths, w, value=np.int64(1)))
    timed("bfs whole", lambda: ld.bfs(A, roots[1]), repeats=10)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 22)
