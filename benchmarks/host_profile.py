"""Where one ``ld.bfs`` call's host time goes on a 1x1 grid: the call's wall time against the
levels' own device time, then cProfile over many calls (internal and cumulative time), so that
the Python set-up around the fused kernel can be read function by function.

    python3 benchmarks/host_profile.py kron:20 [--calls 50] [--backend gpu] [--lines 35]
"""
import argparse
import cProfile
import pstats
import time

import numpy as np

import lagraph_dist as ld
from gpu_quick import build


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--lines", type=int, default=35)
    args = parser.parse_args()
    A, roots = build(args.graph)
    roots = roots or [int(v) for v in A.out_degree().indices()[:8]]
    for root in roots:
        ld.bfs(A, root)
    walls, own = [], []
    for k in range(args.calls):
        A.backend.sync()
        started = time.perf_counter()
        result = ld.bfs(A, roots[k % len(roots)])
        A.backend.sync()
        walls.append(time.perf_counter() - started)
        own.append(sum(s["seconds"] for s in result.stats))
    print(f"{args.graph}: call median {1e6 * np.median(walls):.1f} us, levels' own median {1e6 * np.median(own):.1f} us, "
          f"host beyond the levels {1e6 * (np.median(walls) - np.median(own)):.1f} us, {len(result.stats)} levels")
    profile = cProfile.Profile()
    profile.enable()
    for k in range(args.calls):
        ld.bfs(A, roots[k % len(roots)])
    A.backend.sync()
    profile.disable()
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(args.lines)
    stats.sort_stats("cumulative").print_stats(args.lines)


if __name__ == "__main__":
    main()
