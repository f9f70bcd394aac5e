"""Conversions both ways (scipy, cupyx, graphblas, networkx, edge lists, Matrix Market .mtx and
.mtx.gz), ld.bfs on foreign graphs, reference.compare and ``lagraph-dist check``."""
import gzip

import graphblas as gb
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
import lagraph_dist.algorithms
from helpers import BACKENDS, edges_to_scipy, pattern, reference_levels
from lagraph_dist.tools import cli


@st.composite
def graphs(draw, max_n=50):
    """(n, src, dst, directed): duplicates and self-loops allowed, isolated vertices too."""
    n = draw(st.integers(1, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    return n, src, dst, draw(st.booleans())


def built(graph, backend="cpu"):
    """The graph as an ld.Matrix (symmetric when undirected) and its scipy pattern."""
    n, src, dst, directed = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=not directed, backend=backend)
    return A, edges_to_scipy(src, dst, n, symmetrize=not directed)


def same_graph(A, B):
    assert (A.n, A.nvals, A.symmetric) == (B.n, B.nvals, B.symmetric)
    np.testing.assert_array_equal(A.to_edgelist(), B.to_edgelist())


# -- round trips --------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(graph=graphs())
def test_round_trips_preserve_the_graph(backend, graph, tmp_path_factory):
    A, S = built(graph, backend)
    assert pattern(A.to_scipy()) == pattern(S) and A.to_scipy().shape == S.shape
    # scipy
    same_graph(ld.Matrix.from_scipy(A.to_scipy(), symmetric=False, backend=backend),
               ld.Matrix.from_edgelist(A.to_edgelist(), A.n, backend=backend))
    assert pattern(ld.Matrix.from_scipy(S, backend=backend).to_scipy()) == pattern(S)
    # python-graphblas
    M = A.to_graphblas()
    assert M.dtype == gb.dtypes.BOOL and (M.nrows, M.ncols, M.nvals) == (A.n, A.n, A.nvals)
    assert pattern(ld.Matrix.from_graphblas(M, backend=backend).to_scipy()) == pattern(S)
    # networkx: directedness travels with the type
    G = A.to_networkx()
    assert isinstance(G, nx.DiGraph) == (not A.symmetric) and G.number_of_nodes() == A.n
    same_graph(ld.Matrix.from_networkx(G, backend=backend), A)
    assert nx.utils.graphs_equal(ld.Matrix.from_networkx(G, backend=backend).to_networkx(), G)
    # edge lists
    E = A.to_edgelist()
    assert E.dtype == np.int64 and E.shape == (A.nvals, 2)
    assert set(map(tuple, E.tolist())) == pattern(S)
    back = ld.Matrix.from_edgelist(E, A.n, symmetrize=A.symmetric, backend=backend)
    same_graph(back, A)
    # Matrix Market, plain and compressed; a symmetric matrix is a symmetric file
    folder = tmp_path_factory.mktemp("mtx")
    for name in ("g.mtx", "g.mtx.gz"):
        A.to_mtx(folder / name)
        same_graph(ld.Matrix.from_mtx(folder / name, backend=backend), A)
    assert gzip.open(folder / "g.mtx.gz").readline().split()[-1] == (
        b"symmetric" if A.symmetric else b"general")


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 100), data=st.data(), dtype=st.sampled_from([np.int64, np.bool_, np.float64]))
def test_vector_round_trips(backend, n, data, dtype):
    ids = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1)))), dtype=np.int64)
    values = np.array(data.draw(st.lists(st.integers(-9, 9), min_size=len(ids), max_size=len(ids))),
                      dtype=dtype)
    x = gb.Vector.from_coo(ids, values, dtype=dtype, size=n) if ids.size else gb.Vector(dtype, n)
    v = ld.Vector.from_graphblas(x, backend=backend)
    assert v.size == n and v.dtype == dtype
    got_ids, got_values = v.to_coo()
    np.testing.assert_array_equal(got_ids, ids)
    np.testing.assert_array_equal(got_values, values)
    assert v.to_graphblas().isequal(x, check_dtype=True)


def test_networkx_labels_and_kinds():
    G = nx.Graph()
    G.add_nodes_from([3, 0, 2, 1])                 # 0..n-1 keep their numbers in any order
    G.add_edges_from([(3, 0), (2, 2)])
    A = ld.Matrix.from_networkx(G, backend="cpu")
    assert A.symmetric and set(map(tuple, A.to_edgelist().tolist())) == {(0, 3), (3, 0), (2, 2)}
    H = nx.DiGraph([("a", "b"), ("b", "c")])        # other labels: numbered in node order
    B = ld.Matrix.from_networkx(H, backend="cpu")
    assert not B.symmetric and B.to_edgelist().tolist() == [[0, 1], [1, 2]]
    C = ld.Matrix.from_networkx(H, nodelist=["c", "b", "a"], backend="cpu")
    assert C.to_edgelist().tolist() == [[1, 0], [2, 1]]
    M = nx.MultiDiGraph([(0, 1), (0, 1), (1, 0)])   # multi-edges merge
    D = ld.Matrix.from_networkx(M, backend="cpu")
    assert D.nvals == 2 and isinstance(D.to_networkx(), nx.DiGraph)
    assert isinstance(D.to_networkx(directed=False), nx.Graph)
    with pytest.raises(ld.InvalidValue, match="nodelist"):
        ld.Matrix.from_networkx(H, nodelist=["a", "b"], backend="cpu")


def test_graphblas_values_and_transposes():
    M = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [5, 0, -1], nrows=4, ncols=4)
    A = ld.Matrix.from_graphblas(M, backend="cpu")
    assert pattern(A.to_scipy()) == {(0, 1), (1, 2), (2, 0)}        # an explicit 0 is an edge
    assert pattern(ld.Matrix.from_graphblas(M.T, backend="cpu").to_scipy()) == {(1, 0), (2, 1), (0, 2)}


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_cupyx_and_cupy_edge_lists(backend):
    import cupy
    import cupyx.scipy.sparse as csp
    S = edges_to_scipy([0, 1, 2, 2], [1, 2, 0, 2], 5)
    A = ld.Matrix.from_scipy(csp.csr_matrix(S.astype(np.float32)), backend=backend)
    assert pattern(A.to_scipy()) == pattern(S)
    out = A.to_cupyx()
    assert isinstance(out, csp.csr_matrix) and pattern(out.get()) == pattern(S)
    E = cupy.asarray([[0, 1], [1, 2], [2, 0], [2, 2]])
    assert pattern(ld.Matrix.from_edgelist(E, 5, backend=backend).to_scipy()) == pattern(S)


# -- Matrix Market specifics --------------------------------------------------------------------
DUPLICATED = "%%MatrixMarket matrix coordinate pattern general\n4 4 3\n1 2\n2 3\n1 2\n"


def test_mtx_gz_and_duplicates(tmp_path):
    plain = tmp_path / "d.mtx"
    plain.write_text(DUPLICATED)
    packed = tmp_path / "d.mtx.gz"
    packed.write_bytes(gzip.compress(DUPLICATED.encode()))
    for path in (plain, packed):
        with pytest.raises(ld.MatrixMarketError, match="duplicate"):
            ld.Matrix.from_mtx(path, backend="cpu")
        A = ld.Matrix.from_mtx(path, merge_duplicates=True, backend="cpu")
        assert A.n == 4 and pattern(A.to_scipy()) == {(0, 1), (1, 2)}
    broken = tmp_path / "broken.mtx.gz"
    broken.write_bytes(packed.read_bytes()[:15])
    with pytest.raises(ld.MatrixMarketError, match="broken.mtx.gz.*gzip") as info:
        ld.Matrix.from_mtx(broken, backend="cpu")
    assert "\\x" not in str(info.value)                 # no raw compressed bytes in the message


# -- bfs on foreign graphs ----------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(graph=graphs(), data=st.data())
def test_bfs_converts_foreign_graphs(graph, data):
    n, src, dst, directed = graph
    S = edges_to_scipy(src, dst, n, symmetrize=not directed)
    source = data.draw(st.integers(0, n - 1))
    expected = reference_levels(S, source)
    A = ld.Matrix.from_scipy(S, backend="cpu")
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    for X in (S, sp.coo_array(S), A.to_graphblas(), G):
        result = ld.bfs(X, source)
        np.testing.assert_array_equal(result.levels.to_numpy(), expected)
        ld.validate(A, source, None, result.parents.to_numpy())


# -- bad input ----------------------------------------------------------------------------------
def test_bad_conversions():
    with pytest.raises(ld.DomainMismatch, match="bfs needs a graph.*scipy.*graphblas.*networkx.*list"):
        ld.bfs([[0, 1], [1, 0]], 0)
    with pytest.raises(ld.DimensionMismatch, match=r"\(m, 2\).*\(2, 3\)"):
        ld.Matrix.from_edgelist(np.zeros((2, 3), int), 4, backend="cpu")
    with pytest.raises(ld.DomainMismatch, match="integers"):
        ld.Matrix.from_edgelist(np.zeros((2, 2)), 4, backend="cpu")
    with pytest.raises(ld.IndexOutOfBound, match="7"):
        ld.Matrix.from_edgelist(np.array([[0, 7]]), 4, backend="cpu")
    with pytest.raises(ld.InvalidValue, match="n="):
        ld.Matrix.from_edgelist(np.zeros((0, 2), int), backend="cpu")
    assert ld.Matrix.from_edgelist(np.array([[0, 7]]), backend="cpu").n == 8
    with pytest.raises(ld.DomainMismatch, match="networkx graph.*list"):
        ld.Matrix.from_networkx([(0, 1)], backend="cpu")
    with pytest.raises(ld.DomainMismatch, match="graphblas.Matrix.*Vector"):
        ld.Matrix.from_graphblas(gb.Vector(int, 3), backend="cpu")
    with pytest.raises(ld.DimensionMismatch, match="square.*2 x 3"):
        ld.Matrix.from_graphblas(gb.Matrix(bool, 2, 3), backend="cpu")
    with pytest.raises(ld.DomainMismatch, match="graphblas.Vector"):
        ld.Vector.from_graphblas(gb.Matrix(bool, 2, 2), backend="cpu")
    with pytest.raises(ld.DomainMismatch, match="scipy or cupyx"):
        ld.Matrix.from_scipy(nx.Graph(), backend="cpu")
    with pytest.raises(ld.InvalidValue, match="root"):
        ld.Matrix.from_scipy(sp.eye(3), root=1, backend="cpu")
    with pytest.raises(ld.InvalidValue, match="number of networkx nodes"):
        ld.Matrix.from_networkx(nx.Graph(), backend="cpu")


# -- reference.compare and lagraph-dist check ------------------------------------------------------
def corrupting_bfs(real_bfs):
    """ld.bfs whose levels are wrong at one vertex and whose parents point off the edges."""
    def broken(A, source, **options):
        result = real_bfs(A, source, **options)
        reached = result.levels.to_coo()[0]
        victim = int(reached[-1])
        result.levels[victim] = 99
        if victim != source:
            result.parents[victim] = victim
        return result
    return broken


def test_compare_reports_agreement_and_differences(monkeypatch):
    S = edges_to_scipy([0, 1, 2, 3], [1, 2, 3, 4], 6)
    report = ld.reference.compare(S, 0, backend="cpu")
    assert report.ok and report.level_differences == 0 and report.reached == 5
    assert "levels equal, parents valid" in str(report)
    monkeypatch.setattr(lagraph_dist.algorithms, "bfs", corrupting_bfs(lagraph_dist.algorithms.bfs))
    report = ld.reference.compare(ld.Matrix.from_scipy(S, backend="cpu"), 0)
    assert not report.ok and report.level_differences == 1 and report.examples == [(4, 99, 4)]
    assert report.parents_error is not None and "DIFFERENT" in str(report)


def test_check_command(tmp_path, monkeypatch, capsys):
    path = tmp_path / "path.mtx.gz"
    ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 5, symmetrize=True, backend="cpu").to_mtx(path)
    assert cli.main(["check", str(path), "--roots", "2", "--backend", "cpu"]) == 0
    assert "all 2 roots agree" in capsys.readouterr().out
    assert cli.main(["check", "--scale", "6", "--root", "1", "--backend", "cpu"]) == 0
    assert cli.main(["check", str(tmp_path / "missing.mtx")]) == 2
    monkeypatch.setattr(lagraph_dist.algorithms, "bfs", corrupting_bfs(lagraph_dist.algorithms.bfs))
    assert cli.main(["check", str(path), "--root", "0", "--backend", "cpu"]) == 1
    assert "1 of 1 root differs" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["check", str(path), "--scale", "4"])         # a file or a scale, not both
