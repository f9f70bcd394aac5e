"""One algebra, two libraries: the programs of tests/programs.py, written once, run on
python-graphblas objects and on lagraph_dist objects, and their results compared (levels and
components exactly, parents by the Graph500 rules). Under mpiexec: tests/mpi/check_grammar.py."""
import re
from pathlib import Path

import graphblas as gb
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
import programs
from helpers import BACKENDS, _mtx_header, edges_to_scipy, read_scipy_pattern, real_graphs, needs_mpi, run_mpi, data_params

HERE = Path(__file__).resolve().parent


def both(S, backend):
    """The graph S as (graphblas.Matrix, ld.Matrix), each built from S by its own library."""
    coo = sp.coo_matrix(S)
    G = gb.Matrix.from_coo(coo.row, coo.col, True, nrows=S.shape[0], ncols=S.shape[0]) \
        if coo.nnz else gb.Matrix(bool, *S.shape)
    return G, ld.Matrix.from_scipy(S, backend=backend)


def as_arrays(v):
    ids, values = v.to_coo()
    return ids.astype(np.int64), values


def assert_same_vector(ours, theirs, what):
    got, expected = as_arrays(ours), as_arrays(theirs)
    np.testing.assert_array_equal(got[0], expected[0], err_msg=f"{what}: patterns differ")
    np.testing.assert_array_equal(got[1], expected[1], err_msg=f"{what}: values differ")


def check_programs(S, backend, sources):
    G, A = both(S, backend)
    ours = programs.library(ld, backend=backend)
    for source in sources:
        (lev_gb, par_gb), (lev, par) = programs.bfs(gb, G, source), programs.bfs(ours, A, source)
        assert_same_vector(lev, lev_gb, f"bfs levels from {source}")
        assert_same_vector(programs.bfs_pull_levels(ours, A, source),
                           programs.bfs_pull_levels(gb, G, source), f"pulled levels from {source}")
        # parents are not unique: each library's must pass the Graph500 rules on its own
        ld.validate(A, source, lev.to_numpy(), par.to_numpy())
        ld.validate(A, source, None, par_gb.to_dense(fill_value=-1).astype(np.int64))
        np.testing.assert_array_equal(lev.to_numpy(), ld.reference.bfs(S, source)[0])
    symmetric = (S + S.T).astype(bool)
    G, A = both(symmetric, backend)
    assert_same_vector(programs.components(ours, A), programs.components(gb, G), "components")


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), data=st.data())
def test_programs_agree_on_random_graphs(backend, n, data):
    edges = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))
    S = edges_to_scipy([e[0] for e in edges], [e[1] for e in edges], n)
    check_programs(S, backend, sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=3))))


@pytest.mark.parametrize("backend", BACKENDS)
def test_programs_agree_on_kronecker(backend):
    S = ld.kronecker(8, 4, seed=3, backend="cpu").to_scipy()
    check_programs(S, backend, [0, 17, 200])


SMALL_REAL_GRAPHS = [p for p in real_graphs("lagraph") if _mtx_header(p)[1] <= 2500]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", data_params(SMALL_REAL_GRAPHS, "lagraph"))
def test_programs_agree_on_real_graphs(backend, path):
    S = read_scipy_pattern(path)
    check_programs(S, backend, [0, S.shape[0] // 2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_tour_agrees(backend):
    rng = np.random.default_rng(11)
    n = 90
    S = edges_to_scipy(*programs.random_edges(rng, n, 250), n)
    G, A = both(S, backend)
    vectors = {}
    for name in ("u", "v"):
        ids = np.flatnonzero(rng.random(n) < 0.3)
        vectors[name] = (ids, rng.integers(-3, 4, ids.shape[0]))
    theirs = programs.tour(gb, G, *(gb.Vector.from_coo(*vectors[k], size=n) for k in ("u", "v")))
    ours = programs.tour(programs.library(ld, backend=backend), A,
                         *(ld.Vector.from_coo(*vectors[k], size=n, backend=backend) for k in ("u", "v")))
    assert theirs.keys() == ours.keys()
    for name, expected in theirs.items():
        if isinstance(expected, gb.Vector):
            assert_same_vector(ours[name], expected, name)
        else:
            assert ours[name] == expected, name


# -- the same under mpiexec -----------------------------------------------------------------------
MPI_GRIDS = ["2x2", "1x4", "3x1"]


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(660)
def test_grammar_under_mpiexec():
    """Every grid of MPI_GRIDS in one start of 4 ranks (each start of the ranks costs seconds on
    2 cores): each grid runs on the first ranks while the others wait; a failure names its grid."""
    ranks = max(int(r) * int(c) for r, c in (shape.split("x") for shape in MPI_GRIDS))
    done = run_mpi(ranks, HERE / "mpi" / "check_grammar.py", *MPI_GRIDS)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"grids {MPI_GRIDS}:\n" + output[-4000:]
    assert sorted(re.findall(r"rank (\d+) ok", done.stdout)) == sorted(str(r) for r in range(ranks)), \
        f"grids {MPI_GRIDS}: not every rank reported ok\n" + output[-4000:]
