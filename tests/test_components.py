"""Connected components (lagraph_dist.algorithms.components, issue 52): every vertex's label is
the smallest id of its (weakly, on a directed graph) connected component, checked against
networkx (the same partition, the same smallest ids), scipy.sparse.csgraph (connection='weak')
and python-graphblas's label propagation (ld.reference.connected_components), on hand graphs,
directed, disconnected and deep ones, self-loops, duplicates, a Kronecker graph and hypothesis's
graphs; each method's path (the hub's search, more searches, propagation) is run. The same
checks on 2 x 2 and 2 x 3 grids: tests/mpi/check_components.py."""
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from scipy.sparse.csgraph import connected_components as scipy_components

import lagraph_dist as ld
from lagraph_dist.algorithms import components
from lagraph_dist.algorithms.components import connected_components, number_connected_components
from lagraph_dist.tools import reference

sys.path.insert(0, str(Path(__file__).resolve().parent))
from helpers import BACKENDS, edge_graphs, edges_to_scipy, needs_mpi, run_mpi    # noqa: E402

HERE = Path(__file__).resolve().parent


# -- what the labels must be ----------------------------------------------------------------------
def smallest_ids(S):
    """(labels, count) by scipy: each vertex's weakly connected component named by its smallest id."""
    count, labels = scipy_components(S, directed=True, connection="weak")
    smallest = np.full(count, S.shape[0], dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(S.shape[0], dtype=np.int64))
    return smallest[labels], count


def networkx_parts(S, directed):
    """networkx's components of the pattern S, as a set of frozensets."""
    G = nx.from_scipy_sparse_array(S, create_using=nx.DiGraph if directed else nx.Graph)
    parts = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
    return {frozenset(part) for part in parts}


def parts_of(labels):
    groups = {}
    for vertex, label in enumerate(labels.tolist()):
        groups.setdefault(label, set()).add(vertex)
    return {frozenset(part) for part in groups.values()}


def check(A, S, *, directed, oracles=("scipy", "networkx", "graphblas")):
    """Our labels and count on the Matrix A against the oracles on its pattern S."""
    got = connected_components(A)
    assert got.dtype == np.int64 and got.n == A.n and got.nvals == A.n
    assert got.grid is A.grid and got.backend is A.backend
    labels = got.to_numpy()
    expected, count = smallest_ids(S)
    if "scipy" in oracles:
        np.testing.assert_array_equal(labels, expected)
    if "networkx" in oracles:
        parts = networkx_parts(S, directed)
        assert parts_of(labels) == parts
        assert all(labels[min(part)] == min(part) for part in parts)
    if "graphblas" in oracles:
        np.testing.assert_array_equal(labels, reference.connected_components(S))
    assert number_connected_components(A) == count
    return labels


def build(src, dst, n, *, directed, backend):
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=not directed, backend=backend)
    return A, edges_to_scipy(src, dst, n, symmetrize=not directed)


def mesh_edges(rows, cols, base=0):
    ids = np.arange(rows * cols).reshape(rows, cols) + base
    return (np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()]),
            np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()]))


# -- hand graphs ----------------------------------------------------------------------------------
HAND = {
    "one vertex": ([], [], 1),
    "no edges": ([], [], 5),
    "one edge": ([3], [1], 4),
    "self-loops only": ([0, 2, 2], [0, 2, 2], 4),
    "triangle, pair, isolated": ([4, 5, 6, 1], [5, 6, 4, 2], 8),
    "duplicates": ([0, 0, 0, 2, 2, 3], [1, 1, 1, 3, 3, 2], 5),
    "star into a hub": ([1, 2, 3, 4, 6], [0, 0, 0, 0, 5], 7),
    "hub is not the smallest": ([9, 9, 9, 9, 7, 3], [2, 4, 6, 8, 5, 0], 10),
}


@pytest.fixture(params=["kernel", "sweeps", "searches"])
def method(request, monkeypatch):
    """How the labels are made: by the kernel set's components kernel where it has one (one
    process: the union-find, or its sweeps, one queue search a component, on chain-like graphs;
    the sweeps forced here wherever the set has them), or by searches and label propagation
    (grids) forced here."""
    if request.param == "searches":
        monkeypatch.setattr(components, "labels_fusable", lambda A: False)
    if request.param == "sweeps":
        from lagraph_dist.algebra import components as kernel_components
        from lagraph_dist.local.engine import ComponentSweeps, offers
        monkeypatch.setattr(kernel_components, "_by_sweeps", lambda A: offers(A.backend.kernels, ComponentSweeps))
    return request.param


@pytest.fixture
def searches_only(monkeypatch):
    """The tests of the searches' method itself (which searches ran, from where)."""
    monkeypatch.setattr(components, "labels_fusable", lambda A: False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_graphs(backend, directed, name, method):
    src, dst, n = HAND[name]
    A, S = build(src, dst, n, directed=directed, backend=backend)
    check(A, S, directed=directed)


@pytest.mark.parametrize("backend", BACKENDS)
def test_known_labels(backend, method):
    """Weak components: 0 -> 1 <- 2 is one; 3 -> 4 -> 3 another; 5 alone; 7 -> 6 and its self-loop."""
    A = ld.Matrix.from_edges([0, 2, 3, 4, 7, 7], [1, 1, 4, 3, 6, 7], 8, backend=backend)
    assert connected_components(A).to_numpy().tolist() == [0, 0, 0, 3, 3, 5, 6, 6]
    assert number_connected_components(A) == 4
    B = ld.Matrix.from_edges([1, 2], [2, 3], 5, symmetrize=True, backend=backend)
    assert connected_components(B).to_numpy().tolist() == [0, 1, 1, 1, 4]
    assert number_connected_components(B) == 3
    assert isinstance(number_connected_components(B), int)


# -- deep, skewed and several large components -----------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
def test_deep_path_and_mesh(backend, directed, method):
    """A path of 300 vertices numbered backwards (the smallest id at the far end of the hub's
    search) beside a 30 x 30 mesh and isolated vertices."""
    path = np.arange(300)[::-1]
    ms, md = mesh_edges(30, 30, base=300)
    src = np.concatenate([path[:-1], ms])
    dst = np.concatenate([path[1:], md])
    A, S = build(src, dst, 300 + 900 + 7, directed=directed, backend=backend)
    check(A, S, directed=directed)


def test_chain_like_graphs_are_labelled_by_sweeps():
    """On one CPU process a symmetric thin graph of chain-like levels (a path beside isolated
    vertices, a 3 x 2000 strip, each numbered backwards) is labelled by queue sweeps; a 40 x 50
    mesh (45 vertices a level), a random tree and every directed graph by the union-find: the
    trace's record says which, and the labels are scipy's smallest ids either way."""
    from lagraph_dist.algebra.trace import product_trace
    rng = np.random.default_rng(4)
    strip_src, strip_dst = mesh_edges(3, 2000)
    mesh_src, mesh_dst = mesh_edges(40, 50)
    tree = np.arange(1, 3000)
    cases = {"path": (np.arange(2999, 0, -1), np.arange(2998, -1, -1), 3005, "queue sweeps"),
             "strip": (5999 - strip_src, 5999 - strip_dst, 6000, "queue sweeps"),
             "mesh": (mesh_src, mesh_dst, 2000, "union-find"),
             "tree": (tree, (rng.random(2999) * tree).astype(np.int64), 3000, "union-find")}
    for name, (src, dst, n, expected) in cases.items():
        for directed in (False, True):
            A, S = build(src, dst, n, directed=directed, backend="cpu")
            with product_trace() as records:
                labels = connected_components(A).to_numpy()
            assert [r["direction"] for r in records] == ["union-find" if directed else expected], (name, directed)
            np.testing.assert_array_equal(labels, smallest_ids(S)[0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_connected_mesh_is_one_search(backend, monkeypatch, searches_only):
    """From vertex 0, which has an edge: no hub is looked for."""
    src, dst = mesh_edges(40, 50)
    A, S = build(src, dst, 2000, directed=False, backend=backend)
    searches = []
    real = components._search
    monkeypatch.setattr(components, "_search", lambda A, source: searches.append(source) or real(A, source))
    monkeypatch.setattr(components, "_hub", None)
    labels = check(A, S, directed=False, oracles=("scipy",))
    assert not labels.any() and searches == [0, 0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
def test_several_large_components_are_searched(backend, directed, monkeypatch, searches_only):
    """Two meshes side by side and a small one, vertex 0 isolated: the hub's search (from 750, of
    degree 7) takes one mesh, a search from the smallest unsettled id (1) the other, propagation
    the small one."""
    monkeypatch.setattr(components, "SEARCH_AT_LEAST_VERTICES", 500)
    first, second, third = mesh_edges(20, 30, base=700), mesh_edges(25, 25, base=1), mesh_edges(3, 4, base=626)
    hub = ([750, 750, 750], [790, 820, 1000])
    src = np.concatenate([first[0], second[0], third[0], hub[0]])
    dst = np.concatenate([first[1], second[1], third[1], hub[1]])
    A, S = build(src, dst, 1300 + 5, directed=directed, backend=backend)
    searches = []
    real = components._search
    monkeypatch.setattr(components, "_search", lambda A, source: searches.append(source) or real(A, source))
    check(A, S, directed=directed, oracles=("scipy", "graphblas"))
    assert searches == [750, 1] * 2        # once for the labels, once for the count


@pytest.mark.parametrize("backend", BACKENDS)
def test_vertex_zero_in_a_small_component(backend, monkeypatch, searches_only):
    """The first search (from 0) settles a pair; the mesh is then searched from its smallest id."""
    monkeypatch.setattr(components, "SEARCH_AT_LEAST_VERTICES", 500)
    ms, md = mesh_edges(20, 30, base=5)
    A, S = build(np.concatenate([[0], ms]), np.concatenate([[1], md]), 610, directed=False, backend=backend)
    searches = []
    real = components._search
    monkeypatch.setattr(components, "_search", lambda A, source: searches.append(source) or real(A, source))
    check(A, S, directed=False, oracles=("scipy",))
    assert searches == [0, 5] * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_kronecker(backend, method):
    """Skewed: a giant component, isolated vertices and small components."""
    A = ld.kronecker(11, edgefactor=4, seed=3, backend=backend)
    S = A.to_scipy()
    labels = check(A, S, directed=False)
    sizes = np.bincount(labels, minlength=A.n)
    assert sizes.max() > A.n // 2 and np.count_nonzero(sizes == 1) > 100 and np.count_nonzero(sizes == 2) > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_other_graph_kinds_are_converted(backend):
    G = nx.Graph([(0, 1), (2, 3), (3, 4)])
    G.add_node(5)
    assert connected_components(nx.to_scipy_sparse_array(G)).to_numpy().tolist() == [0, 0, 2, 2, 2, 5]
    assert number_connected_components(G) == 3
    D = nx.DiGraph([(1, 0), (2, 3)])
    assert number_connected_components(D) == nx.number_weakly_connected_components(D) == 2


# -- random graphs -------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("searches", ["kernel", False, True], ids=["kernel", "propagation", "searches"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs())
def test_random_graphs(backend, searches, graph):
    """Hypothesis's graphs (duplicates, self-loops, chains, several components, directed or not)
    labelled by the kernel where the backend has one, or by searches and propagation;
    ``searches``: every component after the hub's found by a search of its own."""
    src, dst, n, symmetrize, _ = graph
    with pytest.MonkeyPatch.context() as patch:
        if searches != "kernel":
            patch.setattr(components, "labels_fusable", lambda A: False)
        if searches is True:
            patch.setattr(components, "SEARCH_AT_LEAST", 0)
            patch.setattr(components, "SEARCH_AT_LEAST_VERTICES", 1)
        A, S = build(src, dst, n, directed=not symmetrize, backend=backend)
        check(A, S, directed=not symmetrize)


# -- bad input -------------------------------------------------------------------------------
def test_bad_input():
    for call in (connected_components, number_connected_components):
        with pytest.raises(ld.DimensionMismatch):
            call(sp.csr_matrix((3, 4)))
        with pytest.raises(ld.DomainMismatch):
            call("not a matrix")
        with pytest.raises(ld.DomainMismatch):
            call(np.eye(3))


def test_reference_bad_input():
    with pytest.raises(ld.DimensionMismatch):
        reference.connected_components(sp.csr_matrix((2, 3)))
    with pytest.raises(ld.DomainMismatch):
        reference.connected_components([[0, 1], [1, 0]])


# -- grids -------------------------------------------------------------------------------------
@needs_mpi
def test_components_on_grids():
    """2 x 3, then 2 x 2 on its first four ranks, in one launch (the kernels load once)."""
    done = run_mpi(6, HERE / "mpi" / "check_components.py", "2x3", "2x2", timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for shape, ranks in (("2x3", 6), ("2x2", 4)):
        assert done.stdout.count(f"{shape} rank") == ranks and done.stdout.count("ok") == 10, done.stdout
