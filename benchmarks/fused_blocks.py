"""The fused search's grid size: BFS time with 1 block a multiprocessor against 2 (as many as
fit with our kernel's registers) and the default policy, on deep and on wide graphs, ms per search (median of runs
from several roots, warm-up excluded), one GPU.

    python3 benchmarks/fused_blocks.py kron:20 kron:22 kron:26 mesh:1000x1000
"""
import sys
import time

import numpy as np

import lagraph_dist as ld
from gpu_quick import build


def main(specs):
    import cupy as cp
    kernels = ld.get_backend("gpu").kernels
    for spec in specs:
        A, roots = build(spec)
        roots = roots or [int(v) for v in A.out_degree().indices()[:7]]
        for blocks in (1, 2, None):
            kernels.fused_blocks_per_sm = blocks
            ld.bfs(A, roots[0])
            times = []
            for root in (roots[1:] or roots) * (1 if len(roots) > 1 else 3):
                started = time.perf_counter()
                result = ld.bfs(A, root)
                cp.cuda.Device().synchronize()
                times.append(1e3 * (time.perf_counter() - started))
            print(f"{spec} blocks/SM={blocks or 'policy'}: median {np.median(times):.3f} ms {[round(t, 3) for t in times]}"
                  f" {len(result.stats)} levels", flush=True)
    kernels.fused_blocks_per_sm = None


if __name__ == "__main__":
    main(sys.argv[1:])
