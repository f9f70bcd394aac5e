"""Renumbering a graph: ``A.permuted(order)`` is python-graphblas's ``A[order, order]`` (checked
against scipy's indexing), searches of it read as the original's renumbered, and
``ld.sort_by_degree`` orders by degree as LAGraph's ``LAGr_SortByDegree`` does (checked against
numpy's counts of the edges)."""
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from helpers import BACKENDS, edges_to_scipy


def edges_strategy():
    return st.integers(1, 40).flatmap(lambda n: st.tuples(
        st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=120),
        st.booleans(), st.randoms(use_true_random=False)))


@settings(max_examples=40, deadline=None)
@given(edges_strategy())
def test_permuted_is_the_extract_of_the_order(case):
    n, edges, symmetrize, rng = case
    src, dst = (np.array([e[k] for e in edges], dtype=np.int64) for k in (0, 1))
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend="cpu")
    order = np.array(rng.sample(range(n), n), dtype=np.int64)
    B = A.permuted(order)
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    assert (B.to_scipy() != S[order][:, order]).nnz == 0
    assert B.symmetric == A.symmetric and B.nvals == A.nvals


@pytest.mark.parametrize("backend", BACKENDS)
def test_permuted_in_many_slices_is_the_same_graph(backend, monkeypatch):
    """A big graph is renumbered a slice of its edges at a time (2 * EDGES_PER_CHUNK edges);
    made small, the slices must still give scipy's A[order][:, order], transposed views too."""
    import lagraph_dist.algebra.matrix as matrix_module
    rng = np.random.default_rng(9)
    n = 200
    src, dst = rng.integers(0, n, 1500), rng.integers(0, n, 1500)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    order = rng.permutation(n)
    monkeypatch.setattr(matrix_module, "EDGES_PER_CHUNK", 50)
    S = edges_to_scipy(src, dst, n)
    for graph, expected in ((A, S), (A.T, S.T.tocsr())):
        B = graph.permuted(order)
        assert (B.to_scipy() != expected[order][:, order]).nnz == 0
        assert B.nvals == A.nvals


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_search_of_the_renumbered_graph_is_the_original_renumbered(backend):
    """Levels from scipy's shortest paths on the renumbered pattern equal ld.bfs's on the
    original; the renumbered search's parents pass the Graph500 rules there, and read back in
    the original's ids, there."""
    A = ld.kronecker(9, seed=4, backend=backend)
    order = ld.sort_by_degree(A)
    new = np.argsort(order)
    B = A.permuted(order)
    for root in (int(order[0]), int(order[-1]), 17):
        hops = csgraph.shortest_path(B.to_scipy(), indices=int(new[root]), unweighted=True)
        expected = np.where(np.isinf(hops), -1, hops).astype(np.int64)
        assert np.array_equal(expected[new], ld.bfs(A, root).levels.to_numpy())
        result = ld.bfs(B, int(new[root]))
        ld.validate(B, int(new[root]), result.levels.to_numpy(), result.parents.to_numpy())
        parents = result.parents.to_numpy()[new]               # read back in A's ids (docs/api.md)
        parents = np.where(parents >= 0, order[parents], -1)
        ld.validate(A, root, result.levels.to_numpy()[new], parents)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_by_degree_orders_hubs_first_ties_by_id(backend):
    rng = np.random.default_rng(5)
    n = 60
    src, dst = rng.integers(0, n, 300), rng.integers(0, n // 2, 300)      # in-degrees differ from out-degrees
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    S = edges_to_scipy(src, dst, n)
    out_degrees, in_degrees = np.diff(S.indptr), np.bincount(S.indices, minlength=n)
    for by, degrees in (("out", out_degrees), ("in", in_degrees)):
        expected = sorted(range(n), key=lambda v: (-degrees[v], v))
        assert ld.sort_by_degree(A, by=by).tolist() == expected
        rising = sorted(range(n), key=lambda v: (degrees[v], v))
        assert ld.sort_by_degree(A, by=by, ascending=True).tolist() == rising
    hubs_first = A.permuted(ld.sort_by_degree(A)).out_degree().to_numpy(fill=0)
    assert np.all(np.diff(hubs_first) <= 0)


def test_labels_follow_their_vertices():
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("a", "d"), ("e", "a")])
    A = ld.Matrix.from_networkx(G, backend="cpu")
    B = A.permuted(ld.sort_by_degree(A, by="in"))
    assert nx.utils.graphs_equal(B.to_networkx(), G)
    assert ld.bfs(B, "e").levels_by_label(B) == nx.single_source_shortest_path_length(G, "e")


def test_a_transposed_view_is_renumbered_as_it_reads():
    src, dst = np.array([0, 0, 1, 3]), np.array([1, 2, 2, 0])
    A = ld.Matrix.from_edges(src, dst, 4, backend="cpu")
    order = np.array([2, 0, 3, 1])
    S = edges_to_scipy(src, dst, 4).T.tocsr()
    assert (A.T.permuted(order).to_scipy() != S[order][:, order]).nnz == 0


@pytest.mark.parametrize("order,error,said", [
    ([0, 1, 2], ld.DimensionMismatch, "3 ids for 4 vertices"),
    ([0, 1, 1, 3], ld.InvalidValue, "vertex 1 is listed 2 times"),
    ([0, 1, 2, 4], ld.IndexOutOfBound, "outside [0, 4)"),
    ([0.0, 1.0, 2.0, 3.0], ld.DomainMismatch, "must be integers"),
    ([[0, 1], [2, 3]], ld.InvalidValue, "one-dimensional"),
])
def test_an_order_that_is_not_a_permutation_is_refused(order, error, said):
    A = ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 4, backend="cpu")
    with pytest.raises(error, match=said.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        A.permuted(order)


def test_sort_by_degree_refuses_an_unknown_degree():
    A = ld.Matrix.from_edges([0], [1], 2, backend="cpu")
    with pytest.raises(ld.InvalidValue, match="by must be 'out' or 'in'"):
        ld.sort_by_degree(A, by="total")
