"""Many searches at once: ``ld.bfs_multi`` runs up to 512 BFS a batch on one process (all their
levels in one call of the backend) and 64 a batch on a grid (a masked product of the k x n
frontier matrix with the graph a level); either way one bit per search and vertex.

    python examples/multi_source.py [scale] [sources]
    mpiexec -n 4 python -m mpi4py examples/multi_source.py

Every row is what ``ld.bfs`` gives from that source; the example checks it and times both.
"""
import time

import numpy as np

import lagraph_dist as ld
from arguments import integer, positive, run
from lagraph_dist.core.text import plural


def main(scale=12, count=16):
    A = ld.kronecker(scale, edgefactor=16, seed=0)
    sources = [int(v) for v in A.out_degree().indices()[:count]]     # vertices with edges
    started = time.perf_counter()
    result = ld.bfs_multi(A, sources)                  # collective, like everything below
    A.backend.sync()
    together = time.perf_counter() - started
    levels, parents = result.levels.to_numpy(), result.parents.to_numpy()     # (count, n) int64
    started = time.perf_counter()
    singles = [ld.bfs(A, s).levels.to_numpy() for s in sources]
    one_at_a_time = time.perf_counter() - started
    equal = all(np.array_equal(levels[i], singles[i]) for i in range(len(sources)))
    for i, source in enumerate(sources):
        ld.validate(A, source, levels[i], parents[i])      # Graph500 rules, row by row
    if A.grid.rank == 0:
        print(f"{A}: {plural(len(sources), 'search')} in {plural(len(result.widths), 'batch')}: "
              f"{1e3 * together:.1f} ms together, {1e3 * one_at_a_time:.1f} ms one at a time")
        for source, row in zip(sources, levels):
            print(f"  source {source}: reached {plural((row >= 0).sum(), 'vertex')} in {plural(row.max(), 'level')}")
        print(f"rows equal single searches: {equal}; parents valid")


if __name__ == "__main__":
    run(main, scale=integer, sources=positive)
