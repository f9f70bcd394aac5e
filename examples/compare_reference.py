"""Our BFS against python-graphblas (SuiteSparse:GraphBLAS), in every direction.

    python examples/compare_reference.py                      # a generated Kronecker graph
    python examples/compare_reference.py graph.mtx [source]   # a Matrix Market file
    mpiexec -n 4 python -m mpi4py examples/compare_reference.py [graph.mtx [source]]

Levels must equal the reference's exactly. Parents are not unique (a vertex may have several
parents one level up), so they are checked by the Graph500 rules instead. Needs
python-graphblas (the ``reference`` or ``test`` extra).
"""
import numpy as np

import lagraph_dist as ld
from arguments import file_name, integer, run
from lagraph_dist.core.text import plural

SCALE = 10    # the generated graph: 2**10 vertices, edge factor 16


def say(A, text):
    if A.grid.rank == 0:
        print(text, flush=True)


def load(path=None, source=None):
    """The graph and the source: a .mtx file (source 0 unless given), or a Kronecker graph
    searched from its first vertex with edges."""
    A = ld.kronecker(SCALE, seed=0) if path is None else ld.Matrix.from_mtx(path)
    if source is None:
        source = 0 if path is not None else int(A.out_degree().indices()[0])   # collective
    return A, source


def main(path=None, source=None):
    A, source = load(path, source)
    S = A.to_scipy()          # collective gather; the reference runs on rank 0 and sends its levels
    expected = A.grid.bcast_from(0, lambda: ld.reference.bfs(S, source)[0])
    say(A, f"{A}, source {source}: python-graphblas reaches {plural((expected >= 0).sum(), 'vertex')} "
           f"in {plural(expected.max(), 'level')}")
    for direction in ("push", "pull", "auto"):
        result = ld.bfs(A, source, direction=direction)
        levels = result.levels.to_numpy()
        ld.validate(A, source, levels, result.parents.to_numpy())      # raises on every rank
        same = np.array_equal(levels, expected)
        say(A, f"{direction:4s}: levels {'equal' if same else 'DIFFER'}, parents valid, "
               f"{int((levels >= 0).sum())} reached")
        if not same:          # the same verdict on every rank, so all ranks exit alike
            raise SystemExit(1)


if __name__ == "__main__":
    run(main, path=file_name, source=integer)
