"""One BFS step written out with the algebra: q' A over any_secondi, masked by ~visited.

    python examples/algebra.py
"""
import numpy as np

import lagraph_dist as ld


def main():
    #   0 -> 1 -> 2 -> 3,  0 -> 2,  4 isolated
    A = ld.Matrix.from_edges([0, 1, 2, 0], [1, 2, 3, 2], 5, backend="cpu")
    visited = ld.Vector.from_indices([0], A.n, values=np.array([0]), dtype=np.int64, grid=A.grid,
                                     backend="cpu").to_bitmap()
    frontier = visited.to_list()
    depth = 0
    while frontier.nvals:
        depth += 1
        # push: w = q' A; each value is the id of a parent (secondi); visited vertices masked out
        frontier = ld.vxm(frontier, A, ld.semirings.any_secondi, mask=visited, complement=True)
        ld.assign(visited, frontier)
        if A.grid.rank == 0 and frontier.nvals:
            print(f"level {depth}: {frontier.indices().tolist()} with parents "
                  f"{frontier.to_numpy()[frontier.indices()].tolist()}")
        frontier = frontier.to_list()
    # the same levels from python-graphblas, the reference
    levels, _ = ld.reference.bfs(A.to_scipy(), 0)
    print("python-graphblas levels:", levels.tolist())


if __name__ == "__main__":
    main()
