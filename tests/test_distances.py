"""Eccentricity and closeness centrality (lagraph_dist.algorithms.distances) against networkx:
eccentricities exactly, closeness to 1e-9 relative, on small, directed, disconnected, deep,
self-loop and duplicate-edge, Kronecker and generated graphs; the per-row reduction of
multi-source levels (DenseRows.reduce_rows) against numpy on the gathered table; bad input; and
(mpiexec) both on 2 x 2 and 2 x 3 grids, on the CPU and (marker gpu) the GPU."""
from __future__ import annotations

import functools
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import lagraph_dist as ld
from lagraph_dist.comm.transport import TRANSPORT_ENV
from lagraph_dist.algebra.multi import DenseRows
from lagraph_dist.algorithms import distances
from lagraph_dist.algorithms.distances import closeness_centrality, eccentricity
from lagraph_dist.tools import reference
from helpers import BACKENDS, edge_graphs, needs_mpi, run_mpi

HERE = Path(__file__).resolve().parent
GPU_ONLY = [pytest.mark.gpu, pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")]


# -- graphs (networkx, nodes 0..n-1) ----------------------------------------------------------
def _strongly_connected_digraph():
    """A directed cycle with chords: strongly connected, not symmetric."""
    rng = np.random.default_rng(3)
    G = nx.DiGraph([(k, (k + 1) % 40) for k in range(40)])
    G.add_edges_from((int(a), int(b)) for a, b in rng.integers(0, 40, size=(30, 2)))
    return G


def _loops_and_duplicates():
    """An undirected graph given with self-loops and repeated edges (a MultiGraph: networkx
    keeps the repeats, the matrix merges them; distances are the same)."""
    G = nx.MultiGraph(nx.petersen_graph())
    G.add_edges_from([(0, 0), (3, 3), (0, 1), (0, 1), (5, 7), (7, 5)])
    return G


def _kronecker_component():
    """The largest connected component of a Kronecker graph (scale 8), relabelled 0..m-1."""
    G = nx.from_scipy_sparse_array(ld.kronecker(8, seed=2, backend="cpu").to_scipy())
    giant = max(nx.connected_components(G), key=len)
    return nx.convert_node_labels_to_integers(G.subgraph(giant))


GRAPHS = {
    "karate": nx.karate_club_graph,
    "petersen_loops_duplicates": _loops_and_duplicates,
    "directed": _strongly_connected_digraph,
    "path_300": lambda: nx.path_graph(300),                 # deep
    "mesh_10x30": lambda: nx.convert_node_labels_to_integers(nx.grid_2d_graph(10, 30)),
    "kronecker_component": _kronecker_component,
    "single_vertex": lambda: nx.empty_graph(1),
}
DISCONNECTED = {
    "directed_gnp": lambda: nx.gnp_random_graph(80, 0.03, seed=4, directed=True),
    "parts_and_isolated": lambda: nx.disjoint_union_all([nx.path_graph(9), nx.star_graph(6), nx.empty_graph(3)]),
    "kronecker": lambda: nx.from_scipy_sparse_array(ld.kronecker(8, seed=2, backend="cpu").to_scipy()),
    "directed_star_in": lambda: nx.DiGraph([(k, 0) for k in range(1, 12)]),
}


@functools.lru_cache(maxsize=None)
def graph(name):
    return {**GRAPHS, **DISCONNECTED}[name]()


@functools.lru_cache(maxsize=None)
def nx_eccentricity(name):
    return nx.eccentricity(graph(name))


@functools.lru_cache(maxsize=None)
def nx_closeness(name, wf_improved):
    return nx.closeness_centrality(graph(name), wf_improved=wf_improved)


def matrix(G, backend):
    """The pattern of G (self-loops kept, repeats merged) as an ld.Matrix."""
    S = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr")
    return ld.Matrix.from_scipy(S, backend=backend)


def values_at(vector, sources, dtype):
    """The vector's values at ``sources``, after checking it has an entry at each and no other."""
    assert vector.dtype == np.dtype(dtype)
    assert sorted(vector.indices().tolist()) == sorted(set(int(s) for s in sources))
    return vector.to_numpy()[np.asarray(sources, dtype=np.int64)]


def check_closeness(G, A, expected, *, wf_improved=True, sources=None):
    nodes = list(range(len(G))) if sources is None else sources
    got = values_at(closeness_centrality(A, sources=sources, wf_improved=wf_improved), nodes, "float64")
    np.testing.assert_allclose(got, [expected[v] for v in nodes], rtol=1e-9, atol=0)


# -- against networkx -------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_eccentricity_equals_networkx(name, backend):
    G, expected = graph(name), nx_eccentricity(name)
    got = values_at(eccentricity(matrix(G, backend)), range(len(G)), "int64")
    assert got.tolist() == [expected[v] for v in range(len(G))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(GRAPHS) + sorted(DISCONNECTED))
def test_closeness_equals_networkx(name, backend):
    G = graph(name)
    A = matrix(G, backend)
    check_closeness(G, A, nx_closeness(name, True))
    if len(G) <= 100:
        check_closeness(G, A, nx_closeness(name, False), wf_improved=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_some_sources_repeated_and_in_any_order(backend):
    G = graph("directed")
    A = matrix(G, backend)
    sources = [17, 3, 3, 39, 0]
    got = values_at(eccentricity(A, sources), sources, "int64")
    assert got.tolist() == [nx.eccentricity(G, v=s) for s in sources]
    check_closeness(G, A, nx_closeness("directed", True), sources=sources)
    single = eccentricity(A, np.int32(5))             # one vertex id: one entry
    assert values_at(single, [5], "int64").tolist() == [nx.eccentricity(G, v=5)]


def test_closeness_counts_inward_distances_on_a_directed_graph():
    """networkx's convention: the distances *to* u. Every vertex of an in-star reaches its
    centre in one hop, so the centre has closeness 1 and the leaves 0 (nobody reaches them);
    along out-edges it would be the other way round."""
    A = matrix(graph("directed_star_in"), "cpu")
    got = closeness_centrality(A).to_numpy()
    assert got[0] == 1.0 and (got[1:] == 0).all()
    assert (closeness_centrality(A.T).to_numpy()[1:] == 1.0 / 11).all()      # the reverse graph's


def test_other_graph_kinds_are_converted():
    G = graph("karate")
    S = nx.to_scipy_sparse_array(G, format="csr")
    expected = nx_eccentricity("karate")
    assert eccentricity(S).to_numpy().tolist() == [expected[v] for v in range(len(G))]
    np.testing.assert_allclose(closeness_centrality(G).to_numpy(),
                               [nx_closeness("karate", True)[v] for v in range(len(G))], rtol=1e-9)


def test_many_calls_of_searches(monkeypatch):
    """More sources than one call takes: each call's rows land at their sources."""
    monkeypatch.setattr(distances, "SEARCHES_A_CALL", 7)
    G = graph("mesh_10x30")
    A = matrix(G, "cpu")
    sources = list(range(0, 300, 7))
    expected = nx_eccentricity("mesh_10x30")
    assert values_at(eccentricity(A, sources), sources, "int64").tolist() == [expected[s] for s in sources]
    check_closeness(G, A, nx_closeness("mesh_10x30", True), sources=sources)


def test_more_sources_than_one_call_on_a_long_path():
    """600 sources (two calls of 512) on a 600-vertex path, against the path's formulas:
    eccentricity max(v, n - 1 - v), distances summing to v(v + 1)/2 + (n - 1 - v)(n - v)/2."""
    n = 600
    A = ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, symmetrize=True, backend="cpu")
    v = np.arange(n)
    assert (eccentricity(A).to_numpy() == np.maximum(v, n - 1 - v)).all()
    total = v * (v + 1) // 2 + (n - 1 - v) * (n - v) // 2
    np.testing.assert_allclose(closeness_centrality(A).to_numpy(), (n - 1) / total, rtol=1e-12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=edge_graphs())
def test_generated_graphs_equal_networkx(edges):
    src, dst, n, symmetrize, _ = edges
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    G = (nx.Graph if symmetrize else nx.DiGraph)()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend="cpu")
    check_closeness(G, A, nx.closeness_centrality(G))
    connected = nx.is_strongly_connected(G) if G.is_directed() else nx.is_connected(G)
    if connected:
        expected = nx.eccentricity(G)
        assert eccentricity(A).to_numpy().tolist() == [expected[v] for v in range(n)]
    else:
        with pytest.raises(ld.InvalidValue, match="infinite path length"):
            eccentricity(A)


@pytest.mark.parametrize("name", ["karate", "directed", "mesh_10x30", "kronecker_component", "single_vertex"])
def test_eccentricity_equals_the_graphblas_reference(name):
    """python-graphblas running the same method in its own grammar (tools.reference)."""
    G = graph(name)
    S = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr")
    assert eccentricity(matrix(G, "cpu")).to_numpy().tolist() == reference.eccentricity(S).tolist()


def test_the_graphblas_reference_refuses_what_networkx_refuses():
    S = nx.to_scipy_sparse_array(nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)]), format="csr")
    assert reference.eccentricity(S, [0, 1]).tolist() == [3, 2]
    with pytest.raises(ld.InvalidValue, match="source 3"):
        reference.eccentricity(S, [0, 3])


# -- the reduction of multi-source levels -----------------------------------------------------
def numpy_reductions(table):
    entries = table >= 0
    return (np.where(entries, table, 0).sum(axis=1), np.where(entries, table, np.iinfo(np.int64).max).min(axis=1),
            np.where(entries, table, np.iinfo(np.int64).min).max(axis=1), entries.sum(axis=1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_rows_equals_numpy_on_the_gathered_table(backend):
    S = nx.to_scipy_sparse_array(graph("directed_gnp"), format="csr")
    A = ld.Matrix.from_scipy(S, backend=backend)
    res = ld.bfs_multi(A, [0, 5, 5, 79, 40, 12, 3], batch_size=3)       # three batches
    assert len(res.levels.blocks) == 3
    for rows in (res.levels, res.parents):
        got = rows.reduce_rows("plus", ld.monoids.min, "max", nvals=True)
        for mine, theirs in zip(got, numpy_reductions(rows.to_numpy())):
            assert mine.dtype == np.int64
            np.testing.assert_array_equal(mine, theirs)
    only_max = res.levels.reduce_rows("max")
    assert len(only_max) == 1 and (only_max[0] == res.levels.to_numpy().max(axis=1)).all()


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_reduce_rows_reads_only_the_vertices_and_sums_past_int32(dtype, monkeypatch):
    """Rows past n pad a block and are not read; a row without entries gets each monoid's
    identity; a sum is exact past 2**31, whether the slices are summed in int64 (one slice of
    all rows) or in int32 (slices of 1000 rows: the values, below n, cannot overflow them)."""
    grid, backend = ld.Grid(), ld.get_backend("cpu")
    n = 70_000                                          # a block of 70,016 rows: 16 of padding
    block = np.full((70_016, 3), -1, dtype=dtype)
    block[:n, 0] = n - 1                                # sums to 70,000 * 69,999 > 2**32
    block[5, 1], block[9, 1] = 7, 2
    block[n:] = 99                                      # padding, never read
    rows = DenseRows(n, grid, backend, [block])
    expected = (np.array([n * (n - 1), 9, 0]), np.array([n - 1, 2, np.iinfo(np.int64).max]),
                np.array([n - 1, 7, np.iinfo(np.int64).min]), np.array([n, 2, 0]))
    for slice_elements in (1 << 22, 3000):
        monkeypatch.setattr("lagraph_dist.algebra.multi._REDUCE_SLICE", slice_elements)
        for got, want in zip(rows.reduce_rows("plus", "min", "max", nvals=True), expected):
            np.testing.assert_array_equal(got, want)
    assert DenseRows(n, grid, backend, []).reduce_rows("plus", nvals=True)[1].shape == (0,)


def test_reduce_rows_takes_plus_min_max():
    rows = DenseRows(4, ld.Grid(), ld.get_backend("cpu"), [np.zeros((32, 1), dtype=np.int64)])
    for bad in ("lor", ld.monoids.any, "times", 3):
        with pytest.raises(ld.DomainMismatch):
            rows.reduce_rows(bad)


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [eccentricity, lambda A, s: closeness_centrality(A, sources=s)],
                         ids=["eccentricity", "closeness"])
@pytest.mark.parametrize("sources, error", [
    ([0, 34], ld.IndexOutOfBound), (-1, ld.IndexOutOfBound), ([1.0, 2.0], ld.DomainMismatch),
    ("0", ld.DomainMismatch), (True, ld.DomainMismatch), ([[0, 1]], ld.InvalidValue), (2.5, ld.DomainMismatch),
])
def test_bad_sources_raise(call, sources, error):
    A = matrix(graph("karate"), "cpu")
    with pytest.raises(error, match="source"):
        call(A, sources)


def test_no_sources_give_an_empty_vector():
    A = matrix(graph("karate"), "cpu")
    assert eccentricity(A, []).nvals == 0
    assert closeness_centrality(A, sources=np.zeros(0, dtype=np.int64)).nvals == 0


def test_a_graph_not_connected_has_no_eccentricity():
    with pytest.raises(ld.InvalidValue, match=r"source 9: it reaches 7 of the 19 vertices.*graph is not connected"):
        eccentricity(matrix(graph("parts_and_isolated"), "cpu"), [9, 1])
    A = matrix(nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)]), "cpu")
    with pytest.raises(ld.InvalidValue, match="source 3: .*digraph is not strongly connected"):
        eccentricity(A, [0, 3])
    assert values_at(eccentricity(A, [0, 1]), [0, 1], "int64").tolist() == [3, 2]     # these reach all


def test_other_bad_arguments_raise():
    A = matrix(graph("karate"), "cpu")
    with pytest.raises(ld.DomainMismatch, match="wf_improved"):
        closeness_centrality(A, wf_improved="yes")
    with pytest.raises(ld.DomainMismatch):
        eccentricity([[0, 1], [1, 0]])
    with pytest.raises(TypeError):
        closeness_centrality(A, [0])                    # sources is keyword-only, as in the issue


# -- grids ------------------------------------------------------------------------------------
def check_on_grids(backend, *shapes):
    """tests/mpi/check_distances.py on each grid shape, in one start of as many ranks as the
    largest holds (each start of the ranks costs seconds on 2 cores)."""
    ranks = max(rows * cols for rows, cols in shapes)
    done = run_mpi(ranks, HERE / "mpi" / "check_distances.py", backend,
                   *(f"{rows}x{cols}" for rows, cols in shapes), timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("ok") == ranks, done.stdout


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(300)
def test_distances_on_grids():
    """2 x 3 (ranks without vertices, blocks of several ranks) and 2 x 2."""
    check_on_grids("cpu", (2, 3), (2, 2))


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(300)
@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_distances_on_grids_gpu(monkeypatch):
    """The same on the GPU backend, the ranks sharing one device over host MPI (NCCL refuses
    two ranks a device)."""
    monkeypatch.setenv(TRANSPORT_ENV, "mpi-host")
    check_on_grids("gpu", (2, 3), (2, 2))
