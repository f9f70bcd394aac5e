"""Run under mpiexec: ``mpiexec -n R*C python -m mpi4py tests/mpi/check_extras.py R C WHICH DIR``,
or ``mpiexec -n N python -m mpi4py tests/mpi/check_extras.py RxC [RxC ...] WHICH DIR`` for
several grids in one start of the ranks (N: the largest grid's ranks; each grid runs on the
first ranks while the others wait).

Checks the BFS extras on an R x C grid against scipy.sparse.csgraph (tests/extras_checks.py):
``ld.bfs`` with ``depth_limit`` and ``target``, ``ld.bfs_multi`` (several batches, every
direction, duplicates, depth limits, levels or parents only) row by row, ``ld.bfs_path`` and
``ld.bfs_paths`` on single and multi-source results, and that bad input raises on every rank,
also when only one rank passes it. WHICH picks the graphs:

``generated DIR``  random, Kronecker and hand-drawn graphs built here (DIR is unused)
``real DIR``       some real graphs of the shared data folder DIR (its lagraph/)

Each rank prints ``rank K ok`` once at the end; any failure exits non-zero (``python -m mpi4py``
turns an uncaught exception into MPI_Abort), its message naming the grid.
"""
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))    # tests/extras_checks.py, graphs.py
from extras_checks import check_path, check_tree, hop_levels, truncated, until_target  # noqa: E402
from graphs import small_digraph, triangle_mesh, west_like_digraph  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))        # tests/mpi/common.py
from common import expect_error, gathered, grid_arguments, on_grids, parse_shapes  # noqa: E402

BACKEND = "cpu"
DIRECTIONS = ("push", "pull", "auto")
REAL_GRAPHS = ("west0067.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx", "bcsstk13.mtx")




def sources_of(S, count, seed):
    """Vertex 0, the largest out-degree and random vertices, a repeat among them."""
    degrees = np.diff(S.indptr)
    picks = [0, int(np.argmax(degrees))]
    picks += np.random.default_rng(seed).integers(0, S.shape[0], count).tolist()
    return picks + picks[:1]


def check_single(A, S, source, label):
    full = hop_levels(S, [source])[0]
    for direction in DIRECTIONS:
        for limit in (0, 1, 2):
            res = ld.bfs(A, source, direction=direction, depth_limit=limit)
            expected = truncated(full, limit)
            assert np.array_equal(res.levels.to_numpy(), expected), f"{label}: depth_limit={limit} {direction}"
            check_tree(S, source, expected, res.parents.to_numpy(), f"{label} limit {limit}")
        target = int(np.argmax(full))
        res = ld.bfs(A, source, direction=direction, target=target)
        expected = until_target(full, target)
        assert np.array_equal(res.levels.to_numpy(), expected), f"{label}: target={target} {direction}"
        check_tree(S, source, expected, res.parents.to_numpy(), f"{label} target {target}")
    res = ld.bfs(A, source)
    targets = np.arange(A.n)
    for target, path in zip(targets, ld.bfs_paths(res, targets)):
        check_path(S, path, source, int(target), int(full[target]), f"{label} path to {target}")
    np.testing.assert_array_equal(ld.bfs_path(res, int(targets[-1])), ld.bfs_paths(res, targets[-1:])[0])


def check_multi(A, S, sources, label):
    expected = hop_levels(S, sources)
    for direction in DIRECTIONS:
        for batch_size in (None, 3):
            res = ld.bfs_multi(A, sources, direction=direction, batch_size=batch_size)
            levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
            assert levels.shape == parents.shape == (len(sources), A.n)
            assert np.array_equal(levels, expected), f"{label}: bfs_multi levels ({direction}, {batch_size})"
            for i, source in enumerate(sources):
                ld.validate(A, source, levels[i], parents[i])
    limited = ld.bfs_multi(A, sources, depth_limit=2, batch_size=4)
    limited_levels = limited.levels.to_numpy()
    assert np.array_equal(limited_levels, truncated(expected, 2)), f"{label}: bfs_multi depth_limit"
    for i, source in enumerate(sources):
        check_tree(S, source, limited_levels[i], limited.parents.row(i), f"{label} multi limit row {i}")
    only_levels = ld.bfs_multi(A, sources, parents=False)
    assert only_levels.parents is None and np.array_equal(only_levels.levels.to_numpy(), expected)
    only_parents = ld.bfs_multi(A, sources, levels=False, direction="pull").parents.to_numpy()
    assert np.array_equal(only_parents >= 0, expected >= 0), f"{label}: parents-only reach"
    res = ld.bfs_multi(A, sources)
    last = len(sources) - 1
    for target, path in zip(range(A.n), ld.bfs_paths(res, np.arange(A.n), search=last)):
        check_path(S, path, sources[last], target, int(expected[last, target]), f"{label} multi path")


def graphs(grid, which, folder):
    """(label, Matrix, gathered scipy pattern) of each graph to check."""
    if which == "real":
        for name in REAL_GRAPHS:
            A = ld.Matrix.from_mtx(folder / "lagraph" / name, grid=grid, backend=BACKEND)
            yield name, A, gathered(grid, A)
        return
    rng = np.random.default_rng(11)
    n = 97
    src, dst = rng.integers(0, n, 300), rng.integers(0, n, 300)
    mine = slice(grid.rank, None, grid.size)
    A = ld.Matrix.from_edges(src[mine], dst[mine], n, grid=grid, backend=BACKEND)
    yield "random digraph", A, gathered(grid, A)
    A = ld.kronecker(8, seed=5, grid=grid, backend=BACKEND)
    yield "kronecker 8", A, gathered(grid, A)
    for label, make, symmetrize in (("west-like", west_like_digraph, False), ("mesh", triangle_mesh, False),
                                    ("hand-drawn digraph", small_digraph, False)):
        (src, dst), n = make()
        A = ld.Matrix.from_edges(src if grid.rank == 0 else [], dst if grid.rank == 0 else [], n,
                                 symmetrize=symmetrize, grid=grid, backend=BACKEND)
        yield label, A, gathered(grid, A)




def bad_input(grid):
    A = ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 10, grid=grid, backend=BACKEND)
    expect_error(grid, ld.InvalidValue, ld.bfs_multi, A, [])
    expect_error(grid, ld.IndexOutOfBound, ld.bfs_multi, A, [0, 10])
    expect_error(grid, ld.DomainMismatch, ld.bfs_multi, A, [0, 1.5])
    expect_error(grid, ld.DomainMismatch, ld.bfs_multi, A, 3)
    expect_error(grid, ld.InvalidValue, ld.bfs_multi, A, [0], batch_size=513)
    expect_error(grid, ld.InvalidValue, ld.bfs, A, 0, depth_limit=-1)
    expect_error(grid, ld.IndexOutOfBound, ld.bfs, A, 0, target=99)
    res = ld.bfs(A, 0)
    expect_error(grid, ld.IndexOutOfBound, ld.bfs_path, res, 10)
    expect_error(grid, ld.DomainMismatch, ld.bfs_paths, res, [1, 2.5])
    # bad input on one rank only: the ranks disagree, and every rank says which argument
    if grid.size > 1:
        said = expect_error(grid, ld.InvalidValue, ld.bfs_multi, A, [0, 99] if grid.rank == grid.size - 1 else [0, 1])
        assert "different sources (" in said, said
        said = expect_error(grid, ld.InvalidValue, ld.bfs_path, res, 10 if grid.rank == grid.size - 1 else 3)
        assert "different target (" in said, said
    expect_error(grid, ld.InvalidValue, ld.bfs_path, ld.bfs(A, 0, parents=False), 3)
    expect_error(grid, ld.InvalidValue, ld.bfs_path, ld.bfs_multi(A, [0, 1]), 3)
    # nobody was left inside a collective
    assert list(ld.bfs_path(res, 3)) == [0, 1, 2, 3]
    assert ld.bfs_multi(A, [0, 2]).levels.to_numpy()[1, 3] == 1


def arguments():
    parser = grid_arguments(__doc__)
    return parser.parse_args()


def main():
    args = arguments()

    def check_grid(grid):
        for label, A, S in graphs(grid, args.which, args.folder):
            sources = sources_of(S, 5, A.n)
            check_single(A, S, sources[1], label)
            check_multi(A, S, sources, label)
        bad_input(grid)
    on_grids(parse_shapes(args.shape), check_grid)


if __name__ == "__main__":
    main()
