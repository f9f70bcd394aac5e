"""Host vs device time of one GPU BFS and of its main pieces (cupyx.profiler.benchmark).

    python3 benchmarks/split_gpu.py SCALE
"""
import sys

import numpy as np
from cupyx.profiler import benchmark

import lagraph_dist as ld
from lagraph_dist.semirings import any_secondi


def report(label, func, n_repeat=20):
    result = benchmark(func, n_repeat=n_repeat, n_warmup=3)
    print(f"{label:34s} host {1e6 * np.mean(result.cpu_times):9.1f} us   device "
          f"{1e6 * np.mean(result.gpu_times[0]):9.1f} us", flush=True)


def main(scale):
    A = ld.kronecker(scale, backend="gpu")
    root = int(A.out_degree().indices()[0])
    for direction in ("push", "auto"):
        report(f"bfs {direction}", lambda: ld.bfs(A, root, direction=direction))
    report("bfs levels only, push", lambda: ld.bfs(A, root, parents=False, direction="push"))
    q = ld.Vector.from_indices([root], A.n, values=np.array([root]), dtype=np.int64, backend="gpu")
    visited = q.to_bitmap()
    report("vxm push from one vertex", lambda: ld.vxm(q, A, any_secondi, mask=visited, complement=True))
    w = ld.vxm(q, A, any_secondi, mask=visited, complement=True)
    report("mxv pull", lambda: ld.mxv(A.T, w, any_secondi, mask=visited, complement=True))
    report("from_indices", lambda: ld.Vector.from_indices([root], A.n, values=np.array([root]),
                                                           dtype=np.int64, backend="gpu"))
    report("to_bitmap", lambda: q.to_bitmap())
    report("list_from_bitmap", lambda: A.backend.kernels.list_from_bitmap(w.part.words, w.part.nvals))


if __name__ == "__main__":
    main(int(sys.argv[1]))
