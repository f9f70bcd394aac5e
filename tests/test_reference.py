"""The graphblas reference BFS against the scipy oracle, and its argument checks."""

import os
import re
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mpi4py import MPI

from graphs import small_digraph, triangle_mesh, west_like_digraph, write_real_general
from helpers import data_file
from lagraph_dist.io import mtx
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidValue,
)
import lagraph_dist as ld
from lagraph_dist.tools import reference
from lagraph_dist.tools.reference import bfs, bfs_levels_scipy
from lagraph_dist.tools.validate import validate

gb = pytest.importorskip("graphblas")

DIRECTIONS = ["push", "pushpull"]


def _csr(n, edges):
    """n-by-n CSR matrix with a 1 at every (i, j) of ``edges`` (duplicates summed)."""
    rows = np.array([e[0] for e in edges], dtype=np.int64)
    cols = np.array([e[1] for e in edges], dtype=np.int64)
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))


def _fake_matrix(S):
    """Single-rank stand-in for a distributed matrix, holding the pattern of ``S``."""
    coo = sp.coo_array(S)
    n = coo.shape[0]
    key = np.unique(coo.row.astype(np.int64) * n + coo.col.astype(np.int64))
    src, dst = key // n, key % n
    return SimpleNamespace(n=n, grid=SimpleNamespace(comm=MPI.COMM_SELF),
                           local_edges=lambda: (src, dst))


def _check_against_oracle(S, source, direction):
    """Levels equal the scipy oracle, and the parents pass the validator."""
    levels, parents = bfs(S, source, direction=direction)
    assert levels.dtype == np.int64 and parents.dtype == np.int64
    np.testing.assert_array_equal(levels, bfs_levels_scipy(S, source))
    assert levels[source] == 0 and parents[source] == source
    np.testing.assert_array_equal(levels < 0, parents < 0)
    validate(_fake_matrix(S), source, levels, parents)


HAND_MADE = {
    "path": (5, [(0, 1), (1, 2), (2, 3), (3, 4)]),
    "star": (6, [(0, k) for k in range(1, 6)] + [(k, 0) for k in range(1, 6)]),
    "two_components": (6, [(0, 1), (1, 0), (1, 2), (2, 1), (3, 4), (4, 3), (4, 5), (5, 4)]),
    "directed_unreachable": (6, [(0, 1), (1, 2), (3, 0), (3, 4), (4, 5), (2, 0)]),
    "self_loops": (4, [(0, 0), (0, 1), (1, 1), (1, 2), (3, 3)]),
    "duplicates": (4, [(0, 1), (0, 1), (0, 1), (1, 2), (1, 2), (2, 3)]),
    "single_vertex": (1, []),
    "single_vertex_loop": (1, [(0, 0)]),
}


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_hand_made_graphs(name, direction):
    n, edges = HAND_MADE[name]
    S = _csr(n, edges)
    for source in range(n):
        _check_against_oracle(S, source, direction)


def test_path_exact_values():
    levels, parents = bfs(_csr(5, HAND_MADE["path"][1]), 1)
    np.testing.assert_array_equal(levels, [-1, 0, 1, 2, 3])
    np.testing.assert_array_equal(parents, [-1, 1, 1, 2, 3])


def test_explicit_zero_is_an_edge():
    S = sp.csr_array((np.array([0.0, 2.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    assert S.nnz == 2
    for direction in DIRECTIONS:
        levels, parents = bfs(S, 0, direction=direction)
        np.testing.assert_array_equal(levels, [0, 1, 2])
    np.testing.assert_array_equal(bfs_levels_scipy(S, 0), [0, 1, 2])


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok"])
def test_any_scipy_format(fmt):
    S = _csr(6, HAND_MADE["directed_unreachable"][1]).asformat(fmt)
    levels, _ = bfs(S, 3)
    np.testing.assert_array_equal(levels, [1, 2, 3, 0, 1, 2])


def test_graphblas_matrix_input():
    rows, cols = np.array([0, 1, 2]), np.array([1, 2, 3])
    M = gb.Matrix.from_coo(rows, cols, np.array([0, 5, -1]), nrows=4, ncols=4)
    for direction in DIRECTIONS:
        levels, parents = bfs(M, 0, direction=direction)
        np.testing.assert_array_equal(levels, [0, 1, 2, 3])
        np.testing.assert_array_equal(parents, [0, 0, 1, 2])


def _check_file(path, direction):
    """The oracle check from several sources on a Matrix Market file, as scipy reads it."""
    S = scipy.io.mmread(path)
    n = S.shape[0]
    for source in sorted({0, 1, n // 3, n // 2, n - 1}):
        _check_against_oracle(S, source, direction)


def _write_stand_in(tmp_path, name):
    """A file the test writes, standing in for a real one: a valued unsymmetric digraph (as
    west0067), a symmetric mesh with its diagonal (as jagmesh7), a digraph with parts a source
    cannot reach (as ldbc-directed-example)."""
    path = tmp_path / f"{name}.mtx"
    if name == "west_like":
        (src, dst), n = west_like_digraph()
        write_real_general(path, src, dst, n)
    elif name == "mesh":
        (src, dst), n = triangle_mesh()
        mtx.write_mtx(path, src, dst, n, symmetric=True)
    else:
        (src, dst), n = small_digraph()
        write_real_general(path, src, dst, n)
    return path


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", ["west_like", "mesh", "small_digraph"])
def test_matrix_market_files_written(tmp_path, name, direction):
    _check_file(_write_stand_in(tmp_path, name), direction)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", ["west0067", "jagmesh7"])
def test_matrix_market_files_real(name, direction):
    _check_file(data_file("lagraph", f"{name}.mtx"), direction)


def test_pushpull_really_pulls(monkeypatch):
    """A dense-ish random graph must make the Beamer heuristic choose pull at least once."""
    seen = []
    original = DirectionRule.choose

    def spy(self, nvals, edges, unexplored=None):
        seen.append(original(self, nvals, edges, unexplored))
        return seen[-1]

    monkeypatch.setattr(DirectionRule, "choose", spy)
    rng = np.random.default_rng(1)
    edges = list(zip(rng.integers(0, 2000, 20000).tolist(), rng.integers(0, 2000, 20000).tolist()))
    S = _csr(2000, edges)
    _check_against_oracle(S, 0, "pushpull")
    assert False in seen and seen[0] is True


@st.composite
def _random_graph(draw):
    n = draw(st.integers(1, 30))
    m = draw(st.integers(0, 3 * n))
    ends = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(ends, ends), min_size=m, max_size=m))
    source = draw(ends)
    return _csr(n, edges), source


@settings(max_examples=60, deadline=None)
@given(_random_graph(), st.sampled_from(DIRECTIONS))
def test_random_graphs_match_oracle(graph, direction):
    S, source = graph
    _check_against_oracle(S, source, direction)


# ----------------------------------------------------------------------------- bad inputs


def test_non_square_raises():
    S = sp.csr_array((3, 4))
    with pytest.raises(DimensionMismatch, match="square"):
        bfs(S, 0)
    with pytest.raises(DimensionMismatch):
        bfs(gb.Matrix(bool, 3, 4), 0)
    with pytest.raises(ValueError):
        bfs_levels_scipy(S, 0)


@pytest.mark.parametrize("source", [True, 1.0, "1", None, np.float64(2)])
def test_non_integer_source_raises(source):
    S = _csr(3, [(0, 1)])
    with pytest.raises(DomainMismatch, match=re.escape(repr(source))):
        bfs(S, source)
    with pytest.raises(TypeError):
        bfs_levels_scipy(S, source)


@pytest.mark.parametrize("source", [-1, 3, 100])
def test_out_of_range_source_raises(source):
    S = _csr(3, [(0, 1)])
    with pytest.raises(IndexOutOfBound, match=rf"{source}.*\b3\b"):
        bfs(S, source)
    with pytest.raises(IndexError):
        bfs_levels_scipy(S, source)


def test_numpy_integer_source_ok():
    S = _csr(3, [(0, 1), (1, 2)])
    levels, _ = bfs(S, np.int32(1))
    np.testing.assert_array_equal(levels, [-1, 0, 1])
    np.testing.assert_array_equal(bfs_levels_scipy(S, np.uint8(1)), [-1, 0, 1])


def test_empty_graph_has_no_valid_source():
    with pytest.raises(IndexOutOfBound):
        bfs(sp.csr_array((0, 0)), 0)


def test_bad_direction_and_type():
    S = _csr(3, [(0, 1)])
    with pytest.raises(InvalidValue, match="direction"):
        bfs(S, 0, direction="pull")
    with pytest.raises(DomainMismatch):
        bfs(np.eye(3), 0)


def test_missing_graphblas_message(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_graphblas(name, *args, **kwargs):
        if name == "graphblas" or name.startswith("graphblas."):
            raise ImportError("no graphblas here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_graphblas)
    with pytest.raises(ImportError, match=r"pip install lagraph-dist\[reference\]"):
        bfs(_csr(2, [(0, 1)]), 0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), data=st.data(), symmetric=st.booleans())
def test_prepared_pattern_from_csr_or_coo(n, data, symmetric):
    """A canonical CSR (sorted rows, no duplicates: what Matrix.to_scipy gives) is imported row
    by row, anything else through COO: the same pattern either way; a pattern declared
    symmetric is its own transpose (none made), and searches on it give scipy's levels."""
    from lagraph_dist.tools.reference import prepare
    src = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=120)), dtype=np.int64)
    dst = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=len(src), max_size=len(src))), dtype=np.int64)
    if symmetric:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    S = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))      # duplicates summed: canonical
    assert S.has_canonical_format
    loose = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))  # duplicates kept
    from_csr, from_coo = prepare(S, symmetric=symmetric), prepare(loose)
    assert from_csr.A.isequal(from_coo.A) and from_csr.AT.isequal(from_coo.AT)
    assert (from_csr.AT is from_csr.A) == symmetric
    for root in range(min(n, 3)):
        expected = bfs_levels_scipy(S, root)
        for direction in ("push", "pushpull"):
            np.testing.assert_array_equal(bfs(from_csr, root, direction=direction)[0], expected)


def test_prepared_symmetric_graph_within_the_bench_estimate():
    """The bench checks python-graphblas's graph against free host memory before making it
    (tools.bench.part_bytes): a symmetric graph's import (its rows, int64 indices, taken over,
    no transpose) grows the process by no more than that estimate."""
    import lagraph_dist as ld
    from lagraph_dist.tools.bench import part_bytes
    from lagraph_dist.tools.reference import prepare

    def resident():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    A = ld.kronecker(16, backend="cpu")
    S = A.to_scipy()
    prepare(sp.csr_matrix((2, 2)), symmetric=True)      # the library loaded first
    before = resident()
    graph = prepare(S, symmetric=True)
    grown = resident() - before
    assert graph.AT is graph.A and graph.A.nvals == S.nnz
    assert grown <= part_bytes("graphblas", A)[0], grown


def test_a_host_pattern_and_its_graph_within_the_bench_estimates():
    """One GPU's level check: the host pattern's arrays (host_csr) and python-graphblas's graph
    taken over from them grow the process by no more than the bench's estimates of each."""
    from lagraph_dist.tools.bench import part_bytes

    def resident():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    A = ld.kronecker(16, backend="cpu")
    reference.prepare(sp.csr_matrix((2, 2)), symmetric=True)      # the library loaded first
    before = resident()
    pattern = reference.HostPattern(A.n, *A.host_csr(np.uint64))
    made = resident()
    graph = reference.prepare(pattern, symmetric=True)
    taken = resident()
    assert graph.A.nvals == A.nvals
    assert made - before <= part_bytes("host pattern", A)[0], made - before
    assert taken - made <= part_bytes("graphblas from its arrays", A)[0], taken - made


def test_a_host_pattern_is_taken_as_it_is():
    """A one-rank matrix's host_csr as uint64 arrays: python-graphblas takes them without a
    copy (it owns their memory after: the arrays no longer do) and searches the same graph as
    through scipy."""
    A = ld.kronecker(9, seed=4, backend="cpu")
    S = A.to_scipy()
    indptr, indices = A.host_csr(np.uint64)
    assert indptr.dtype == indices.dtype == np.uint64
    np.testing.assert_array_equal(indptr, S.indptr)
    np.testing.assert_array_equal(indices, S.indices)
    given = reference.prepare(reference.HostPattern(A.n, indptr, indices), symmetric=True)
    assert not indices.flags.owndata and not indptr.flags.owndata     # given away, not copied
    from_scipy = reference.prepare(S, symmetric=True)
    for root in (0, 17, 300):
        np.testing.assert_array_equal(reference.bfs(given, root)[0], reference.bfs(from_scipy, root)[0])


def test_host_csr_refuses_what_it_cannot_read_as_stored():
    A = ld.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), 3, backend="cpu")
    with pytest.raises(ld.Unsupported, match="transposed view"):
        A.T.host_csr()
