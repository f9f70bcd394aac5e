"""Quick GPU timing (no peers, no validation): graph build and BFS ms per direction.

    python3 benchmarks/gpu_quick.py 18 20 22
"""
import sys
import time

import lagraph_dist as ld


def main(scales):
    import cupy as cp
    for scale in scales:
        started = time.perf_counter()
        A = ld.kronecker(scale, backend="gpu")
        cp.cuda.Device().synchronize()
        print(f"scale {scale}: built in {time.perf_counter() - started:.2f} s, {A}", flush=True)
        for direction in ("push", "auto"):
            ld.bfs(A, 1, direction=direction)
            times = []
            for root in range(2, 8):
                started = time.perf_counter()
                result = ld.bfs(A, root, direction=direction)
                cp.cuda.Device().synchronize()
                times.append(1e3 * (time.perf_counter() - started))
            print(f"  {direction}: ms {[round(t, 2) for t in times]}, {len(result.stats)} levels", flush=True)
            for s in result.stats:
                print(f"    {s['level']} {s['direction']} frontier={s['frontier']} found={s['discovered']} "
                      f"edges={s['edges_examined']} ms={1e3 * s['seconds']:.3f}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]])
