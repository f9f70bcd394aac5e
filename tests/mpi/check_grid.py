"""Run under mpiexec: ``mpiexec -n R*C python tests/mpi/check_grid.py R C``.

Checks on an R x C grid that BFS levels equal python-graphblas's and parents pass the Graph500
rules in every direction, on random, Kronecker and real graphs; that a Kronecker seed gives the
same graph as one process does; that list and bitmap messages give identical results; and that
bad input raises on every rank without a hang. Each rank prints ``rank K ok`` at the end; any
failure exits non-zero (``python -m mpi4py`` turns an uncaught exception into MPI_Abort).
"""
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.generators import kronecker_edges
from lagraph_dist.wire import forced_wire_encoding

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
BACKEND = "cpu"


def reference_levels(grid, S, source):
    """python-graphblas levels, computed on rank 0 and broadcast."""
    levels = ld.reference.bfs(S, source)[0] if grid.rank == 0 else None
    return grid.comm.bcast(levels, root=0)


def check_bfs(grid, A, S, sources, label):
    for source in sources:
        expected = reference_levels(grid, S, source)
        for direction in ("push", "pull", "auto"):
            result = ld.bfs(A, source, direction=direction)
            levels = result.levels.to_numpy()
            assert np.array_equal(levels, expected), f"{label}: levels differ ({direction}, {source})"
            ld.validate(A, source, levels, result.parents.to_numpy())
            only_levels = ld.bfs(A, source, parents=False, direction=direction).levels.to_numpy()
            assert np.array_equal(only_levels, expected), f"{label}: levels-only differ ({direction})"


def gathered(grid, A):
    S = A.to_scipy(root=0)
    return grid.comm.bcast(S, root=0)


def random_graphs(grid):
    rng = np.random.default_rng(7)
    n = 97
    src, dst = rng.integers(0, n, 300), rng.integers(0, n, 300)
    mine = slice(grid.rank, None, grid.size)      # each rank passes a different share
    for symmetrize in (False, True):
        A = ld.Matrix.from_edges(src[mine], dst[mine], n, symmetrize=symmetrize, grid=grid, backend=BACKEND)
        S = gathered(grid, A)
        expected = sp.csr_matrix((np.ones(300, bool), (src, dst)), shape=(n, n))
        if symmetrize:
            expected = expected + expected.T
        assert (S != expected.astype(bool)).nnz == 0, "from_edges lost or invented edges"
        check_bfs(grid, A, S, [0, 5, 96], f"random symmetrize={symmetrize}")


def kronecker_graph(grid):
    A = ld.kronecker(8, seed=3, grid=grid, backend=BACKEND)
    S = gathered(grid, A)
    src, dst = kronecker_edges(8, 16, seed=3)
    keep = src != dst
    one_process = sp.csr_matrix((np.ones(int(keep.sum()), bool), (src[keep], dst[keep])), shape=(256, 256))
    one_process = (one_process + one_process.T).astype(bool)
    assert (S != one_process).nnz == 0, "the same Kronecker seed gave another graph on this grid"
    roots = [int(v) for v in np.flatnonzero(np.diff(S.indptr))[:3]]
    check_bfs(grid, A, S, roots, "kronecker 8")
    expected_levels = reference_levels(grid, S, roots[0])
    for encoding in ("list", "bitmap"):
        with forced_wire_encoding(encoding):
            for direction in ("push", "pull"):
                for parents in (True, False):
                    result = ld.bfs(A, roots[0], direction=direction, parents=parents)
                    levels = result.levels.to_numpy()
                    assert np.array_equal(levels, expected_levels)
                    if parents:
                        ld.validate(A, roots[0], levels, result.parents.to_numpy())
                    used = {s["encoding"]["fold"] for s in result.stats} - {"none"}
                    # pieces whose values travel (the parents) are lists whatever is forced
                    expected = {"list"} if parents else {encoding}
                    assert used <= expected, f"fold used {used} while {encoding} was forced"
                    # push folds along the grid row, pull (mxv on A.T) along the grid column
                    fold_ranks = grid.cols if direction == "push" else grid.rows
                    assert fold_ranks == 1 or used == expected, f"{direction} fold used {used}"


def real_graphs(grid):
    for name in ("lagraph/west0067.mtx", "lagraph/jagmesh7.mtx", "lagraph/ldbc-directed-example.mtx"):
        A = ld.Matrix.from_mtx(DATA / name, grid=grid, backend=BACKEND)
        S = gathered(grid, A)
        check_bfs(grid, A, S, [0, A.n // 2], name)


def expect_error(me, exc_type, func, *args, **kwargs):
    try:
        func(*args, **kwargs)
    except exc_type as exc:
        return str(exc)
    raise AssertionError(f"rank {me.rank}: {func.__name__} did not raise {exc_type.__name__}")


def bad_input(grid):
    # a bad id passed by one rank only must raise on every rank
    src = [0, 1] if grid.rank != grid.size - 1 else [0, 99]
    expect_error(grid, IndexError, ld.Matrix.from_edges, src, [1, 2], 10, grid=grid, backend=BACKEND)
    expect_error(grid, ValueError, ld.Matrix.from_edges, [0, 1], [1] if grid.rank == 0 else [1, 2],
                 10, grid=grid, backend=BACKEND)
    nan_ids = np.array([0.0, np.nan]) if grid.rank == 0 else np.array([0, 1])
    expect_error(grid, TypeError, ld.Matrix.from_edges, nan_ids, [1, 2], 10, grid=grid, backend=BACKEND)
    A = ld.Matrix.from_edges([0, 1], [1, 2], 10, grid=grid, backend=BACKEND)
    expect_error(grid, IndexError, ld.bfs, A, 10)
    expect_error(grid, IndexError, ld.bfs, A, -1)
    expect_error(grid, TypeError, ld.bfs, A, 1.5)
    expect_error(grid, ValueError, ld.bfs, A, 0, direction="sideways")
    expect_error(grid, ValueError, ld.kronecker, 0, grid=grid, backend=BACKEND)
    expect_error(grid, ValueError, ld.Matrix.from_mtx, DATA / "lagraph/mangled1.mtx", grid=grid, backend=BACKEND)
    expect_error(grid, ValueError, ld.Matrix.from_mtx, DATA / "lagraph/complex.mtx", grid=grid, backend=BACKEND)
    expect_error(grid, (OSError, ValueError), ld.Matrix.from_mtx, DATA / "missing.mtx", grid=grid, backend=BACKEND)
    expect_error(grid, ValueError, ld.Grid, rows=grid.size + 1, cols=1)
    # after all those errors the grid still works: nobody was left inside a collective
    assert ld.bfs(A, 0).levels.to_numpy()[2] == 2


def main():
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    grid = ld.Grid(rows=rows, cols=cols)
    random_graphs(grid)
    kronecker_graph(grid)
    real_graphs(grid)
    bad_input(grid)
    grid.comm.Barrier()
    print(f"rank {grid.rank} ok", flush=True)


if __name__ == "__main__":
    main()
