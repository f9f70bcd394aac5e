"""Per-operation GPU costs inside one BFS level (host-synchronised wall times, microseconds).

    python3 benchmarks/micro_gpu.py SCALE
"""
import sys
import time

import numpy as np

import lagraph_dist as ld
from lagraph_dist.semirings import any_secondi, binary, plus


def timed(label, func, repeats=20):
    import cupy as cp
    func()
    cp.cuda.Device().synchronize()
    started = time.perf_counter()
    for _ in range(repeats):
        result = func()
    cp.cuda.Device().synchronize()
    print(f"{label:40s} {1e6 * (time.perf_counter() - started) / repeats:9.1f} us", flush=True)
    return result


def main(scale):
    A = ld.kronecker(scale, backend="gpu")
    n = A.n
    q = ld.Vector.from_indices([1], n, values=np.array([1]), dtype=np.int64, backend="gpu")
    visited = q.to_bitmap()
    timed("vxm push, 1-entry frontier", lambda: ld.vxm(q.to_list(), A, any_secondi, mask=visited, complement=True))
    w = ld.vxm(q.to_list(), A, any_secondi, mask=visited, complement=True)
    print("stage seconds", {k: round(v * 1e6, 1) for k, v in w.op_stats.seconds.items()})
    timed("to_list of the result", lambda: w.to_list())
    timed("to_bitmap of a list", lambda: q.to_bitmap())
    timed("assign(visited copy, w)", lambda: ld.assign(ld.apply(visited, binary.first), w))
    degrees = A.out_degree()
    timed("reduce(ewise_mult(q, degrees))", lambda: ld.reduce(ld.ewise_mult(w, degrees, binary.second), plus))
    timed("nvals", lambda: w.nvals)
    timed("mxv pull, bitmap frontier", lambda: ld.mxv(A.T, w.to_bitmap(), any_secondi, mask=visited, complement=True))
    timed("from_indices one source", lambda: ld.Vector.from_indices([1], n, values=np.array([1]), dtype=np.int64, backend="gpu"))
    kernels = A.backend.kernels
    words = visited.part.words
    timed("kernel list_from_bitmap", lambda: kernels.list_from_bitmap(words, 1))
    timed("kernel popcount", lambda: kernels.popcount(words))
    import cupy as cp
    timed("cupy.cumsum n/32", lambda: cp.cumsum(words.astype(cp.int32)))
    timed("empty sync", lambda: cp.cuda.Device().synchronize())


if __name__ == "__main__":
    main(int(sys.argv[1]))
