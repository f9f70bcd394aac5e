"""BFS spelled out in the algebra: each level is q' A over any_secondi, masked by ~visited.

    python examples/algebra.py                           # the 5-vertex graph drawn below
    python examples/algebra.py graph.mtx [source]        # a Matrix Market file
    mpiexec -n 4 python -m mpi4py examples/algebra.py    # the same on a 2 x 2 grid

Every call on a distributed Vector or Matrix is collective (``nvals``, ``indices()`` and
``to_numpy()`` too), so every rank makes each call; only the printing is left to rank 0.
The levels are compared with python-graphblas at the end (the ``reference`` or ``test`` extra).
"""
import numpy as np

import lagraph_dist as ld
from arguments import file_name, integer, run
from lagraph_dist.core.text import plural

SHOWN = 8     # vertex ids printed per level


def small_graph():
    #   0 -> 1 -> 2 -> 3,  0 -> 2,  4 isolated
    return ld.Matrix.from_edges([0, 1, 2, 0], [1, 2, 3, 2], 5)


def say(A, text):
    if A.grid.rank == 0:
        print(text, flush=True)


def listed(ids):
    return f"{ids[:SHOWN].tolist()}{' ...' if len(ids) > SHOWN else ''}"


def bfs_by_hand(A, source):
    """The levels from ``source``, one masked product a level, printing what each level found."""
    # any rank may pass any entry and duplicates merge, so every rank passes the source
    frontier = ld.Vector.from_indices([source], A.n, values=np.array([source]), dtype=np.int64,
                                      grid=A.grid, backend=A.backend)
    visited = frontier.to_bitmap()      # the parent of every vertex found so far; grows in place
    levels = ld.apply(frontier, ld.binary.second, right=np.int64(0)).to_bitmap()
    depth = 0
    while True:
        depth += 1
        # push: w = q' A; each value is the id of a parent (secondi); visited vertices masked out
        frontier = ld.vxm(frontier.to_list(), A, ld.semirings.any_secondi, mask=visited, complement=True)
        found = frontier.nvals
        if not found:
            return levels.to_numpy()
        ld.assign(visited, frontier)
        ld.assign(levels, frontier, value=depth)
        ids = frontier.indices()
        parents = frontier.to_numpy()[ids]
        say(A, f"level {depth}: {plural(found, 'vertex')} {listed(ids)} with parents {listed(parents)}")


def reference_levels(A, source):
    """python-graphblas's levels, computed on rank 0 (where the gathered matrix is) and sent to all."""
    S = A.to_scipy()                    # collective; None off rank 0
    return A.grid.bcast_from(0, lambda: ld.reference.bfs(S, source)[0])


def main(path=None, source=0):
    A = small_graph() if path is None else ld.Matrix.from_mtx(path)
    if not 0 <= source < A.n:           # every rank knows A.n, so every rank stops here
        raise ld.IndexOutOfBound(f"source {source} is out of range for a graph of {plural(A.n, 'vertex')}")
    levels = bfs_by_hand(A, source)
    expected = reference_levels(A, source)
    same = np.array_equal(levels, expected)
    say(A, f"levels by the algebra: {listed(levels)}")
    say(A, f"python-graphblas levels: {listed(expected)}")
    say(A, f"levels {'equal' if same else 'DIFFER'}, {int((levels >= 0).sum())} reached")
    if not same:        # the same verdict on every rank, so all ranks exit alike
        raise SystemExit(1)


if __name__ == "__main__":
    run(main, path=file_name, source=integer)
