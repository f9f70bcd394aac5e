"""bfs_multi on a graph's degree-ordered twin (algorithms/degree_twin.py): its rows, in the graph's
own ids, equal scipy's hop distances and its parents pass ld.validate, on random (hypothesis),
directed, reversed (A.T), disconnected and Kronecker graphs with repeated sources, parents or
not, depth limits; the betweenness and closeness built on it equal networkx's; the policy
("auto" by the kernel set's MULTI_TWIN_AFTER, levels only, never on a thin graph; "always";
"never"), what res.stats says, and a bad setting."""
import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.algorithms import degree_twin
from lagraph_dist.core.settings import settings as ld_settings
from lagraph_dist.io.generators import grid2d_edges
from extras_checks import hop_levels, truncated
from helpers import BACKENDS, edge_graphs, edges_to_scipy


def _orders(res):
    return {s["order"] for s in res.stats}


def _check(A, S, sources, res, depth_limit=None):
    """Levels equal scipy's hop distances (cut at the limit); parents a BFS tree of A's ids."""
    expected = hop_levels(S, sources)
    if depth_limit is not None:
        expected = truncated(expected, depth_limit)
    levels = res.levels.to_numpy() if res.levels is not None else None
    if levels is not None:
        np.testing.assert_array_equal(levels, expected)
    if res.parents is not None:
        parents, edges = res.parents.to_numpy(), S.toarray() != 0
        for i, source in enumerate(sources):
            reached = np.flatnonzero(expected[i] > 0)
            assert parents[i, source] == (source if expected[i, source] == 0 else -1)
            np.testing.assert_array_equal(parents[i] >= 0, expected[i] >= 0)
            heads = parents[i, reached]
            np.testing.assert_array_equal(expected[i, heads], expected[i, reached] - 1)     # one level up
            assert edges[heads, reached].all()                                              # along an edge
            if depth_limit is None:
                ld.validate(A, source, None if levels is None else levels[i], parents[i])


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=9),
       parents=st.booleans(), limit=st.sampled_from([None, 1, 3]), reverse=st.booleans())
def test_rows_in_the_graphs_ids(backend, graph, picks, parents, limit, reverse):
    src, dst, n, symmetrize, _ = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize).tocsr()
    if reverse:                         # in-edges: the twin of the transposed view
        A, S = A.T, S.T.tocsr()
    sources = [p % n for p in picks]    # repeats happen
    with ld_settings.changed(multi_degree_order="always"):
        res = ld.bfs_multi(A, sources, parents=parents, depth_limit=limit)
    assert _orders(res) == {"by degree"}
    _check(A, S, sources, res, depth_limit=limit)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("parents", [False, True])
def test_kronecker_batch_equals_the_given_order(backend, parents):
    """A Kronecker graph (hubs scattered by the generator): the twin's rows equal the batch's on
    the graph as given, 64 and 130 sources (several words a vertex on one process)."""
    A = ld.kronecker(10, 16, seed=3, backend=backend)
    S = A.to_scipy().tocsr()
    rng = np.random.default_rng(4)
    for k in (64, 130):
        sources = rng.integers(0, A.n, k).tolist()
        with ld_settings.changed(multi_degree_order="never"):
            plain = ld.bfs_multi(A, sources, parents=parents)
        with ld_settings.changed(multi_degree_order="always"):
            twin = ld.bfs_multi(A, sources, parents=parents)
        assert _orders(plain) == {"as given"} and _orders(twin) == {"by degree"}
        np.testing.assert_array_equal(twin.levels.to_numpy(), plain.levels.to_numpy())
        _check(A, S, sources, twin)


@pytest.mark.parametrize("backend", BACKENDS)
def test_family_on_the_twin(backend):
    """Betweenness and closeness, whose batches run on the twin, against networkx."""
    A = ld.kronecker(8, 8, seed=5, backend=backend)
    G = nx.from_scipy_sparse_array(A.to_scipy())
    with ld_settings.changed(multi_degree_order="always"):
        bc = ld.betweenness_centrality(A).to_numpy()
        closeness = ld.closeness_centrality(A).to_numpy()
    want_bc = nx.betweenness_centrality(G)
    want_closeness = nx.closeness_centrality(G)
    np.testing.assert_allclose(bc, [want_bc[v] for v in range(A.n)], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(closeness, [want_closeness[v] for v in range(A.n)], rtol=1e-9, atol=1e-12)




def test_auto_waits_for_the_searches(monkeypatch):
    """"auto" makes the twin once the graph's levels-only calls have asked for MULTI_TWIN_AFTER
    searches in all, keeps it, and never makes one for a call with parents, a thin graph, or a
    kernel set that says never."""
    A = ld.kronecker(9, 16, seed=2, backend="cpu")
    monkeypatch.setattr(A.backend.kernels, "MULTI_TWIN_AFTER", 100)
    sources = list(range(0, 120, 3))                     # 40 a call
    assert _orders(ld.bfs_multi(A, sources, parents=False)) == {"as given"}          # 40
    assert _orders(ld.bfs_multi(A, sources, parents=True)) == {"as given"}           # 80, with parents
    assert _orders(ld.bfs_multi(A, sources, parents=False)) == {"by degree"}         # 120
    twin = degree_twin.degree_twin(A, 0, parents=False)
    assert twin is not None and twin.build_seconds > 0
    assert _orders(ld.bfs_multi(A, sources[:1], parents=False)) == {"by degree"}     # kept
    rows, cols = grid2d_edges(20, 20)
    mesh = ld.Matrix.from_edges(rows, cols, 400, symmetrize=True, backend="cpu")
    assert _orders(ld.bfs_multi(mesh, list(range(200)), parents=False)) == {"as given"}     # thin
    B = ld.kronecker(9, 16, seed=2, backend="cpu")
    monkeypatch.setattr(B.backend.kernels, "MULTI_TWIN_AFTER", None)
    assert _orders(ld.bfs_multi(B, list(range(400)), parents=False)) == {"as given"}


def test_never_and_bad_setting():
    A = ld.kronecker(8, 8, seed=1, backend="cpu")
    with ld_settings.changed(multi_degree_order="never"):
        assert _orders(ld.bfs_multi(A, list(range(200)) * 400, parents=False)) == {"as given"}
    with ld_settings.changed(multi_degree_order="sometimes"):
        with pytest.raises(ld.InvalidValue, match="multi_degree_order must be one of auto, always, never"):
            ld.bfs_multi(A, [0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_read_the_twins_rows_as_they_are(backend):
    """A reduction of levels over each search's vertices (closeness's, eccentricity's) reads the
    twin's block without putting it back; reading the rows puts it back once."""
    A = ld.kronecker(9, 16, seed=6, backend=backend)
    sources = list(range(0, A.n, 5))[:70]
    with ld_settings.changed(multi_degree_order="never"):
        plain = ld.bfs_multi(A, sources, parents=False).levels
    with ld_settings.changed(multi_degree_order="always"):
        twin = ld.bfs_multi(A, sources, parents=False).levels
    got = twin.reduce_rows("plus", "max", nvals=True)
    assert all(block._in_order is None for block in twin.blocks)          # (not put back)
    for mine, theirs in zip(got, plain.reduce_rows("plus", "max", nvals=True)):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(twin.to_numpy(), plain.to_numpy())
    assert all(block._in_order is not None for block in twin.blocks)


def test_auto_leaves_a_twin_that_does_not_fit(monkeypatch):
    """Where the twin does not fit, "auto" runs the batches on the graph as given and does not
    try again; "always" raises the memory error."""
    A = ld.kronecker(8, 8, seed=3, backend="cpu")
    monkeypatch.setattr(A.backend.kernels, "MULTI_TWIN_AFTER", 1)
    tries = []

    def no_room(*args, **kwargs):
        tries.append(1)
        raise ld.OutOfHostMemory("no room for the renumbered graph (test)")
    monkeypatch.setattr(ld.Matrix, "permuted", no_room)
    for _ in range(2):
        assert _orders(ld.bfs_multi(A, [0, 1, 2], parents=False)) == {"as given"}
    assert tries == [1]
    with ld_settings.changed(multi_degree_order="always"):
        with pytest.raises(ld.OutOfHostMemory, match="no room for the renumbered graph"):
            ld.bfs_multi(A, [0])
