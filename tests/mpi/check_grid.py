"""Run under mpiexec: ``mpiexec -n R*C python -m mpi4py tests/mpi/check_grid.py R C WHICH DIR``.

Checks on an R x C grid that BFS levels equal python-graphblas's and parents pass the Graph500
rules in every direction; that a Kronecker seed gives the same graph as one process does; that
list and bitmap messages give identical results; and that bad input raises on every rank
without a hang. WHICH picks the graphs:

``generated DIR``  random and Kronecker graphs, and Matrix Market files this script writes into
                   the (empty, shared) folder DIR: stand-ins for the real graphs and bad files.
``real DIR``       the real graphs and bad files of the shared data folder DIR (its lagraph/).

Each rank prints ``rank K ok`` at the end; any failure exits non-zero (``python -m mpi4py``
turns an uncaught exception into MPI_Abort).
"""
import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.generators import kronecker_edges
from lagraph_dist.wire import forced_wire_encoding
from lagraph_dist.mtx import write_mtx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))    # tests/graphs.py
from graphs import (MALFORMED_MTX, small_digraph, triangle_mesh,  # noqa: E402
                    west_like_digraph, write_real_general)

BACKEND = "cpu"
REAL_GRAPHS = ("west0067.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx")
REAL_BAD_FILES = ("mangled1.mtx", "complex.mtx")


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


def stand_in_files(grid, folder):
    """Rank 0 writes the stand-ins of the real graphs into ``folder``; every rank gets
    {file: the edges written} to compare what from_mtx builds against."""
    written = {}
    for name, make, symmetric in (("west_like.mtx", west_like_digraph, False),
                                  ("mesh.mtx", triangle_mesh, True),
                                  ("small_digraph.mtx", small_digraph, False)):
        (src, dst), n = make()
        path = folder / name
        if grid.rank == 0:
            if symmetric:
                write_mtx(path, src, dst, n, symmetric=True)
            else:
                write_real_general(path, src, dst, n)
        written[path] = sp.csr_matrix((np.ones(src.size, bool), (src, dst)), shape=(n, n))
    if grid.rank == 0:
        for name, text in MALFORMED_MTX.items():
            (folder / name).write_text(text)
    grid.comm.Barrier()                     # the files exist before anyone reads them
    return written


def written_graphs(grid, written):
    for path, expected in written.items():
        A = ld.Matrix.from_mtx(path, grid=grid, backend=BACKEND)
        S = gathered(grid, A)
        assert (S != expected).nnz == 0, f"{path.name}: from_mtx lost or invented edges"
        check_bfs(grid, A, S, [0, A.n // 2, A.n - 1], path.name)


def real_graphs(grid, folder):
    for name in REAL_GRAPHS:
        A = ld.Matrix.from_mtx(folder / name, grid=grid, backend=BACKEND)
        S = gathered(grid, A)
        check_bfs(grid, A, S, [0, A.n // 2], name)


def expect_error(me, exc_type, func, *args, **kwargs):
    try:
        func(*args, **kwargs)
    except exc_type as exc:
        return str(exc)
    raise AssertionError(f"rank {me.rank}: {func.__name__} did not raise {exc_type.__name__}")


def bad_input(grid, bad_files, folder):
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
    for path in bad_files:
        expect_error(grid, ValueError, ld.Matrix.from_mtx, path, grid=grid, backend=BACKEND)
    expect_error(grid, (OSError, ValueError), ld.Matrix.from_mtx, folder / "missing.mtx", grid=grid, backend=BACKEND)
    expect_error(grid, ValueError, ld.Grid, rows=grid.size + 1, cols=1)
    # after all those errors the grid still works: nobody was left inside a collective
    assert ld.bfs(A, 0).levels.to_numpy()[2] == 2


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("cols", type=int)
    parser.add_argument("which", choices=("generated", "real"))
    parser.add_argument("folder", type=Path, help="scratch folder (generated) or data folder (real)")
    return parser.parse_args()


def main():
    args = arguments()
    grid = ld.Grid(rows=args.rows, cols=args.cols)
    if args.which == "generated":
        random_graphs(grid)
        kronecker_graph(grid)
        written_graphs(grid, stand_in_files(grid, args.folder))
        bad_input(grid, [args.folder / name for name in sorted(MALFORMED_MTX)], args.folder)
    else:
        lagraph = args.folder / "lagraph"
        real_graphs(grid, lagraph)
        bad_input(grid, [lagraph / name for name in REAL_BAD_FILES], lagraph)
    grid.comm.Barrier()
    print(f"rank {grid.rank} ok", flush=True)


if __name__ == "__main__":
    main()
