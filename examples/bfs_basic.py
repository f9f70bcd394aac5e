"""BFS on a generated Graph500 graph, checked against the Graph500 rules.

    python examples/bfs_basic.py [scale]            # GPU when CuPy sees one, else CPU
    mpiexec -n 4 python -m mpi4py examples/bfs_basic.py 14    # the same on a 2 x 2 grid

Every rank runs every line (the constructors, ``bfs``, the gathers and ``validate`` are
collective); only rank 0 prints.
"""
import time

import lagraph_dist as ld
from arguments import integer, run
from lagraph_dist.core.text import plural


def main(scale=12):
    A = ld.kronecker(scale, edgefactor=16, seed=0)
    source = int(A.out_degree().indices()[0])     # the first vertex with edges
    started = time.perf_counter()
    result = ld.bfs(A, source, direction="auto")
    elapsed = time.perf_counter() - started
    levels, parents = result.levels.to_numpy(), result.parents.to_numpy()
    ld.validate(A, source, levels, parents)
    if A.grid.rank == 0:
        print(f"{A}: from {source}, reached {plural((levels >= 0).sum(), 'vertex')} in "
              f"{plural(levels.max(), 'level')}, {1e3 * elapsed:.1f} ms, valid")
        for s in result.stats:
            print(f"  level {s['level']}: {s['direction']:4s} frontier {s['frontier']:>8d} "
                  f"-> {s['discovered']:>8d}, bytes expand {s['bytes']['expand']} fold {s['bytes']['fold']}")


if __name__ == "__main__":
    run(main, scale=integer)
