"""Where a GPU BFS spends its host time: cProfile over a few searches, top functions.

    python3 benchmarks/profile_bfs.py SCALE [direction]
"""
import cProfile
import pstats
import sys
import time

import lagraph_dist as ld


def main(scale, direction="auto"):
    import cupy as cp
    A = ld.kronecker(scale, backend="gpu")
    roots = [int(r) for r in A.out_degree().indices()[:6]]
    ld.bfs(A, roots[0], direction=direction)
    cp.cuda.Device().synchronize()
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    for root in roots:
        result = ld.bfs(A, root, direction=direction)
    cp.cuda.Device().synchronize()
    profile.disable()
    elapsed = time.perf_counter() - started
    print(f"scale {scale} {direction}: {1e3 * elapsed / len(roots):.2f} ms per BFS, "
          f"{len(result.stats)} levels in the last", flush=True)
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main(int(sys.argv[1]), *(sys.argv[2:]))
