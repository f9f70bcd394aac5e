"""Run under mpiexec: ``mpiexec -n R*C python -m mpi4py tests/mpi/check_grammar.py R C``, or
``mpiexec -n N python -m mpi4py tests/mpi/check_grammar.py RxC [RxC ...]`` for several grids in
one start of the ranks (N: the largest grid's ranks; each grid runs on the first ranks while
the others wait, and calls given no grid use the grid under test).

Checks on an R x C grid that the programs of tests/programs.py (written once) give
python-graphblas's results, that random updates ``w(mask, accum, replace) << rhs`` agree with
python-graphblas, that conversions read on rank 0 round-trip, that ``reference.compare``
agrees on every rank, and that bad grammar and bad input raise on every rank without a hang.
Each rank prints ``rank K ok`` once at the end; ``python -m mpi4py`` turns an uncaught exception
on any rank into MPI_Abort (its message names the grid).
"""
import os
import sys
import tempfile
from pathlib import Path

import graphblas as gb
import networkx as nx
import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))                                   # tests/mpi/common.py

import lagraph_dist as ld  # noqa: E402
import programs  # noqa: E402
from common import on_grids, parse_shapes  # noqa: E402

DATA = HERE.parents[2] / "shared" / "data"
BACKEND = "cpu"


def graphblas_matrix(S):
    coo = sp.coo_matrix(S)
    n = S.shape[0]
    return gb.Matrix.from_coo(coo.row, coo.col, True, nrows=n, ncols=n) if coo.nnz else gb.Matrix(bool, n, n)


def on_root(grid, value):
    """What rank 0 passes; the others pass None (conversions read on rank 0 only)."""
    return value if grid.rank == 0 else None


def same_vector(ours, theirs, what):
    ids, values = ours.to_coo()
    their_ids, their_values = theirs.to_coo()
    assert np.array_equal(ids, their_ids.astype(np.int64)), f"{what}: patterns differ"
    assert np.array_equal(values, their_values), f"{what}: values differ"


def check_programs(grid, S, sources, label):
    lib = programs.library(ld, grid=grid, backend=BACKEND)
    A = ld.Matrix.from_scipy(on_root(grid, S), grid=grid, backend=BACKEND)
    G = graphblas_matrix(S)
    for source in sources:
        levels, parents = programs.bfs(lib, A, source)
        expected_levels, _ = programs.bfs(gb, G, source)
        same_vector(levels, expected_levels, f"{label}: bfs levels from {source}")
        ld.validate(A, source, levels.to_numpy(), parents.to_numpy())
        same_vector(programs.bfs_pull_levels(lib, A, source), programs.bfs_pull_levels(gb, G, source),
                    f"{label}: pulled levels from {source}")
    symmetric = (S + S.T).astype(bool)
    B = ld.Matrix.from_scipy(on_root(grid, symmetric), grid=grid, backend=BACKEND)
    same_vector(programs.components(lib, B), programs.components(gb, graphblas_matrix(symmetric)),
                f"{label}: components")


def check_random_programs(grid):
    rng = np.random.default_rng(5)
    for n in (1, 37, 150):
        src, dst = programs.random_edges(rng, n, 2 * n)
        S = sp.csr_matrix((np.ones(src.shape[0], bool), (src, dst)), shape=(n, n))
        check_programs(grid, S, sorted({0, n // 2, n - 1}), f"random n={n}")
    S = ld.kronecker(7, 4, seed=1, grid=grid, backend=BACKEND).to_scipy(root=0)
    check_programs(grid, grid.comm.bcast(S, root=0), [0, 100], "kronecker")
    for name in ("west0067.mtx", "LFAT5.mtx", "msf1.mtx"):
        path = DATA / "lagraph" / name
        if path.exists():
            S = ld.Matrix.from_mtx(path, grid=grid, backend=BACKEND).to_scipy(root=0)
            check_programs(grid, grid.comm.bcast(S, root=0), [0], name)


def check_random_updates(grid, count=150):
    lib = programs.library(ld, grid=grid, backend=BACKEND)
    rng = np.random.default_rng(9)
    for k in range(count):
        case = programs.random_case(rng, n=int(rng.integers(1, 120)))
        n = case["n"]
        src, dst = programs.random_edges(rng, n)
        A = ld.Matrix.from_edges(src, dst, n, grid=grid, backend=BACKEND)
        G = graphblas_matrix(sp.csr_matrix((np.ones(src.shape[0], bool), (src, dst)), shape=(n, n)))
        bitmaps = {name for name in "wum" if rng.random() < 0.5}
        ids, values = programs.run_update(lib, A, case,
                                          prepare=lambda v, name: v.to_bitmap() if name in bitmaps else v)
        expected_ids, expected_values = programs.run_update(gb, G, case)
        assert np.array_equal(ids, expected_ids), f"update {k} {case}: patterns differ"
        assert not programs.comparable(case) or np.array_equal(values, expected_values), \
            f"update {k} {case}: values differ"


def check_conversions(grid):
    rng = np.random.default_rng(2)
    n = 61
    src, dst = programs.random_edges(rng, n, 150)
    for directed in (True, False):
        G = nx.DiGraph() if directed else nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(zip(src.tolist(), dst.tolist()))
        A = ld.Matrix.from_networkx(on_root(grid, G), grid=grid, backend=BACKEND)
        assert A.symmetric == (not directed)
        back = A.to_networkx()
        assert (back is None) == (grid.rank != 0)
        if grid.rank == 0:
            assert nx.utils.graphs_equal(back, G), "networkx round trip"
        E = grid.comm.bcast(A.to_edgelist(), root=0)
        share = E[grid.rank::grid.size]                       # each rank passes a share
        B = ld.Matrix.from_edgelist(share, n, symmetrize=A.symmetric, grid=grid, backend=BACKEND)
        assert np.array_equal(grid.comm.bcast(B.to_edgelist(), root=0), E) and B.symmetric == A.symmetric
        M = A.to_graphblas()
        C = ld.Matrix.from_graphblas(M, grid=grid, backend=BACKEND)
        assert np.array_equal(grid.comm.bcast(C.to_edgelist(), root=0), E)
        folder = grid.comm.bcast(tempfile.mkdtemp() if grid.rank == 0 else None, root=0)
        path = os.path.join(folder, "g.mtx.gz")
        A.to_mtx(path)
        D = ld.Matrix.from_mtx(path, grid=grid, backend=BACKEND)
        assert np.array_equal(grid.comm.bcast(D.to_edgelist(), root=0), E) and D.symmetric == A.symmetric
        S = grid.comm.bcast(A.to_scipy(root=0), root=0)
        for X in (S, G, M):                 # converted once, read on rank 0
            result = ld.bfs(on_root(grid, X), 3)
            assert np.array_equal(result.levels.to_numpy(), ld.reference.bfs(S, 3)[0]), type(X)
        report = ld.reference.compare(on_root(grid, S), 3, grid=grid, backend=BACKEND)
        assert report.ok and str(report) == grid.comm.bcast(str(report), root=0)
    v = ld.Vector.from_coo([5, 40], [7, -1], size=n, grid=grid, backend=BACKEND)
    x = v.to_graphblas()                                   # on every rank
    assert x.isequal(gb.Vector.from_coo([5, 40], [7, -1], size=n))
    assert ld.Vector.from_graphblas(on_root(grid, x), grid=grid, backend=BACKEND).isequal(v)


def expect(exc_type, action, what):
    """``action()`` must raise ``exc_type`` here (so on every rank, as each rank checks)."""
    try:
        action()
    except exc_type:
        return
    raise AssertionError(f"rank did not raise {exc_type.__name__}: {what}")   # on_grids adds the grid


def check_errors(grid):
    lib = programs.library(ld, grid=grid, backend=BACKEND)
    A = ld.Matrix.from_edges([0, 1], [1, 2], 10, grid=grid, backend=BACKEND)
    w = lib.Vector.from_coo([0, 9], [1, 2], size=10)
    u = lib.Vector.from_coo([1, 2], [3, 4], size=10)

    def lshift(output, expr):
        output << expr

    expect(TypeError, lambda: lshift(w(replace=True), u), "replace without a mask")
    expect(TypeError, lambda: lshift(w(u), u), "an int vector as a mask")
    expect(TypeError, lambda: bool(u.S), "bool of a mask")
    expect(TypeError, lambda: bool(u.vxm(A, ld.semiring.any_pair)), "bool of an expression")
    expect(ld.Unsupported, lambda: lshift(w(ld.binary.land), u), "accumulator land")
    expect(ld.Unsupported, lambda: u.ewise_mult(w, ld.binary.secondi), "ewise_mult of a positional op")
    expect(ld.DimensionMismatch, lambda: lshift(w, lib.Vector(int, 11)), "sizes")
    expect(IndexError, lambda: w.__setitem__(10, 1), "index out of range")
    expect(ld.InvalidValue, lambda: w.__setitem__(1, grid.rank), "different values per rank")
    if grid.size > 1:
        expect(ld.InvalidValue, lambda: w.__setitem__(grid.rank % 2, 1), "different indices per rank")
    # bad input on one rank only still raises everywhere
    bad_share = np.array([[0, 99]]) if grid.rank == grid.size - 1 else np.zeros((0, 2), int)
    expect(IndexError, lambda: ld.Matrix.from_edgelist(bad_share, 10, grid=grid, backend=BACKEND),
           "an edge list id out of range on the last rank")
    expect(ld.DomainMismatch, lambda: ld.Matrix.from_networkx(on_root(grid, "not a graph"), grid=grid,
                                                              backend=BACKEND), "not a graph on root")
    expect(ld.DomainMismatch, lambda: ld.bfs(on_root(grid, [[0]]), 0), "bfs of a list")
    expect(ld.MatrixMarketError, lambda: ld.Matrix.from_mtx(
        on_root(grid, HERE / "check_grammar.py"), grid=grid, backend=BACKEND), "not a .mtx file")
    assert w.nvals == 2 and u.nvals == 2          # nobody is left waiting: collectives still match


def check_grid(grid):
    check_random_programs(grid)
    check_random_updates(grid)
    check_conversions(grid)
    check_errors(grid)


def main():
    on_grids(parse_shapes(sys.argv[1:]), check_grid)


if __name__ == "__main__":
    main()
