"""Paths: ``ld.bfs_path`` reads the path from the source to a target off a BFS result's
parents; ``ld.bfs_paths`` walks many targets at once.

    python examples/paths.py [scale] [targets]
    mpiexec -n 4 python -m mpi4py examples/paths.py
"""
import numpy as np

import lagraph_dist as ld
from arguments import integer, positive, run
from lagraph_dist.core.text import plural


def main(scale=10, count=5):
    A = ld.kronecker(scale, edgefactor=16, seed=0)
    source = int(A.out_degree().indices()[0])          # the first vertex with edges
    result = ld.bfs(A, source)                         # collective, like the paths below
    levels = result.levels.to_numpy()
    targets = np.argsort(-levels, kind="stable")[:count]     # the farthest vertices
    unreached = np.flatnonzero(levels < 0)[:1]               # and one the search did not reach
    paths = ld.bfs_paths(result, np.concatenate([targets, unreached]))
    deepest = ld.bfs_path(result, int(targets[0]))
    if A.grid.rank == 0:
        print(f"{A}, paths from {source}:")
        for path in paths:
            print("  " + (" -> ".join(map(str, path)) if path.size else "unreached"))
        print(f"the deepest target is {plural(len(deepest) - 1, 'step')} away")


if __name__ == "__main__":
    run(main, scale=integer, targets=positive)
