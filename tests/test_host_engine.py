"""Small graphs of the GPU backend searched by the host's compiled kernels (issue 54, item 2):
``ld.bfs`` on a matrix of at most ``ld.settings.host_search_edges`` stored edges runs on its
host twin, and its vectors stay in host memory until a device operation reads them. Checked against the same calls run on the device (the GPU tests) and, without a GPU,
through a stand-in backend named "gpu" over numpy (the routing and the held vectors' life cycle,
which do not depend on where the arrays live)."""
import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.algebra.host_engine import HostHeldVector, host_twin
from lagraph_dist.algebra.matrix import LocalBlock, Matrix
from lagraph_dist.core.settings import Settings
from lagraph_dist.local import fit
from lagraph_dist.local.backend import Backend, get_backend

import graphs
from helpers import GPU, data_file, edges_to_scipy, read_scipy_pattern, reference_levels


class _WithoutQueueSearch:
    """The CPU set but its queue search and component sweeps, as the GPU set has neither: no
    ``queue_plan`` or ``component_sweeps``, and its batches' searches run apart as the fused
    search's (made once: a kernel set's optional members are worked out once a set, keyed by the
    set)."""

    def __init__(self, kernels):
        self.__dict__.update({name: getattr(kernels, name) for name in dir(kernels)
                              if name not in ("queue_plan", "component_sweeps") and not name.startswith("__")})

        def multi_bfs_fused(*args, **kwargs):
            with ld.settings.changed(queue_search_edges=0):
                return kernels.multi_bfs_fused(*args, **kwargs)
        self.multi_bfs_fused = multi_bfs_fused


_STAND_IN_KERNELS = _WithoutQueueSearch(get_backend("cpu").kernels)


class _GpuNamed(Backend):
    """A backend named "gpu" whose arrays are numpy's and kernels the CPU's but its queue search
    (the GPU set has none); its "device" memory is the host's."""

    def __init__(self):
        super().__init__("gpu", np, _STAND_IN_KERNELS)

    def free_device_bytes(self):
        return fit.host_memory()


def _stand_in(C):
    """``C`` (a CPU Matrix) as the matrix of the "gpu" stand-in backend."""
    gpu_named = _GpuNamed()
    block = LocalBlock(C.block.by_col, gpu_named, by_row_is_by_col=C.symmetric)
    return Matrix(C.n, C.grid, gpu_named, block, C.nvals, symmetric=C.symmetric)


def _digraph(backend="cpu"):
    (src, dst), n = graphs.west_like_digraph()
    return ld.Matrix.from_edges(src, dst, n, backend=backend), edges_to_scipy(src, dst, n)


def _mesh(backend="cpu"):
    (src, dst), n = graphs.triangle_mesh(12, 9)
    return ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend=backend)


def test_a_small_matrix_of_the_gpu_backend_is_searched_on_its_host_twin():
    C, _ = _digraph()
    A = _stand_in(C)
    with ld.settings.changed(host_search_edges=C.nvals):
        assert host_twin(A) is host_twin(A) and host_twin(A).backend.name == "cpu"
        res = ld.bfs(A, 3)
    mine = ld.bfs(C, 3)
    for got, want in ((res.levels, mine.levels), (res.parents, mine.parents)):
        assert isinstance(got, HostHeldVector) and got.backend is A.backend
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
        assert got.nvals == want.nvals and got.dtype == want.dtype and got.encoding == want.encoding
        np.testing.assert_array_equal(got.to_coo()[0], want.to_coo()[0])
        assert "local_nvals" in repr(got)
        assert got.held_on_host, "reading on the host must not copy the vector to the device"
    assert {r["engine"] for r in res.stats} == {"queue"}      # (the twin's small graph: its queue search)
    ld.validate(C, 3, res.levels.to_numpy(), res.parents.to_numpy())


def test_the_threshold_and_the_setting_decide_where_a_call_runs():
    """At most ``host_search_edges`` edges: the host; 0: the device whatever the graph (past the
    threshold the costs are weighed: the tests below)."""
    C, _ = _digraph()
    A = _stand_in(C)
    for threshold, queue, engine in ((C.nvals, C.nvals, "queue"), (C.nvals, 0, "cpu"), (0, C.nvals, "gpu")):
        with ld.settings.changed(host_search_edges=threshold, queue_search_edges=queue):
            res = ld.bfs(A, 0)
        assert {r["engine"] for r in res.stats} == {engine}, (threshold, queue)
        assert isinstance(res.levels, HostHeldVector) == (engine != "gpu")
    assert host_twin(C) is None          # a CPU matrix runs where it is


def test_a_graph_past_the_threshold_that_is_not_thin_runs_on_the_host_only_while_its_edges_cost_less():
    """Shallow (not thin) graphs past ``host_search_edges``: 600 edges on the host (its edges
    cost the host less than the device's call), 200,000 on the device, by the models."""
    rng = np.random.default_rng(3)
    big = ld.Matrix.from_edges(np.repeat(np.arange(20_000), 10), rng.integers(0, 20_000, 200_000), 20_000)
    for M, engines in ((_dense_digraph(), HOST_ENGINES), (big, {"gpu"})):
        with ld.settings.changed(host_search_edges=16):
            got = _engines_of(ld.bfs(_stand_in(M), 0))
        assert got and got <= engines, M.nvals


def test_a_thin_graph_past_the_threshold_runs_where_the_models_put_its_search():
    """A long path past ``host_search_edges`` (a level a vertex: the device's levels cost more
    than the host's whole search) on the host, equal to the CPU matrix's search; a shallow thin
    graph (20,000 vertices of mean degree 6: the host reads 140,000 vertices and edges, the device
    runs a dozen levels) on the device; past ``DEPTH_PROBE_EDGES``, or with the setting at 0, on
    the device."""
    from lagraph_dist.algorithms import small_graphs
    rng = np.random.default_rng(7)
    P, M = _path(3000), ld.Matrix.from_edges(rng.integers(0, 20_000, 60_000), rng.integers(0, 20_000, 60_000),
                                             20_000, symmetrize=True)
    path = _stand_in(P)
    with ld.settings.changed(host_search_edges=16):
        res = ld.bfs(path, 1234)
        assert _engines_of(ld.bfs(_stand_in(M), 0)) == {"gpu"}
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(small_graphs, "DEPTH_PROBE_EDGES", P.nvals - 1)
            assert _engines_of(ld.bfs(_stand_in(P), 0)) == {"gpu"}
    with ld.settings.changed(host_search_edges=0):
        assert _engines_of(ld.bfs(path, 0)) == {"gpu"}
    assert _engines_of(res) == {"queue"} and isinstance(res.levels, HostHeldVector)
    # a 250 x 250 mesh: 499 levels of up to 250 vertices, 311,500 vertices and edges, narrow
    # levels (the queue search's): on the host, where one H100's device took 2.6x longer
    (src, dst), n = graphs.grid_edges(250, 250)
    mesh = ld.Matrix.from_edges(src, dst, n, symmetrize=True)
    with ld.settings.changed(host_search_edges=16):
        on_twin = ld.bfs(_stand_in(mesh), 0)
    assert _engines_of(on_twin) == {"queue"}
    rows, cols = np.divmod(np.arange(n), 250)
    np.testing.assert_array_equal(on_twin.levels.to_numpy(), rows + cols)     # (from its corner)
    want = ld.bfs(P, 1234)
    np.testing.assert_array_equal(res.levels.to_numpy(), want.levels.to_numpy())
    np.testing.assert_array_equal(res.levels.to_numpy(), np.abs(np.arange(3000) - 1234))
    ld.validate(P, 1234, res.levels.to_numpy(), res.parents.to_numpy())


def test_4elt_past_the_threshold_is_searched_on_the_host():
    """4elt (15,606 vertices, 91,756 stored edges, about 70 levels of 1,300 edges from its first
    vertex) past ``host_search_edges``: its search runs on the host twin, where one H100's host
    took 0.358 ms a search against the device's 0.411 (``h100-small-graphs-0f4b932.json``; the
    models put the two level while they priced the device's wide level at 2.5 us), with the
    levels of the python-graphblas reference; with the setting at 0, on the device."""
    path = data_file("networkit", "4elt.mtx")
    C = ld.Matrix.from_mtx(path, backend="cpu")
    default = Settings.host_search_edges          # (the fixture sets 0: the package's default here)
    assert C.nvals > default
    with ld.settings.changed(host_search_edges=default):
        res = ld.bfs(_stand_in(C), 0)
    with ld.settings.changed(host_search_edges=0):
        assert _engines_of(ld.bfs(_stand_in(C), 0)) == {"gpu"}
    assert _engines_of(res) == {"queue"} and isinstance(res.levels, HostHeldVector)
    np.testing.assert_array_equal(res.levels.to_numpy(), reference_levels(read_scipy_pattern(path), 0))


def test_a_held_vector_moves_to_the_device_once_an_operation_reads_it():
    C, _ = _digraph()
    A = _stand_in(C)
    with ld.settings.changed(host_search_edges=C.nvals):
        held = ld.bfs(A, 0, parents=False).levels
    with ld.settings.changed(host_search_edges=0):
        there = ld.bfs(A, 0, parents=False).levels
    want = there.to_numpy()
    both = ld.ewise_add(held, there, "min")
    assert not held.held_on_host and both.backend is A.backend
    np.testing.assert_array_equal(both.to_numpy(), want)
    ld.assign(held, there, value=7)                    # in place, on the device copy
    np.testing.assert_array_equal(held.to_numpy(), np.where(want >= 0, 7, -1))


def test_a_reverse_search_and_a_labelled_graph_run_on_the_twin_as_they_would_in_place():
    """``ld.bfs(A.T, s)`` searches in-edges on the twin too (its transposed view), and a graph
    from networkx keeps its node labels."""
    nx = pytest.importorskip("networkx")
    C, S = _digraph()
    A = _stand_in(C)
    with ld.settings.changed(host_search_edges=C.nvals):
        reverse = ld.bfs(A.T, 4, parents=False)
        G = nx.relabel_nodes(nx.DiGraph(S), {v: f"v{v}" for v in range(C.n)})
        labelled = ld.Matrix.from_networkx(G)
    np.testing.assert_array_equal(reverse.levels.to_numpy(), ld.bfs(C.T, 4, parents=False).levels.to_numpy())
    assert reverse.stats[0]["engine"] == "cpu"
    L = _stand_in(labelled)._with_labels(labelled.labels)
    with ld.settings.changed(host_search_edges=C.nvals):
        res = ld.bfs(L, "v4")
    assert res.levels_by_label(L) == nx.single_source_shortest_path_length(G, "v4")


def _dense_digraph(backend="cpu"):
    """Not thin: 50 vertices, 12 out-edges each."""
    rng = np.random.default_rng(5)
    src, dst = np.repeat(np.arange(50), 12), rng.integers(0, 50, 600)
    return ld.Matrix.from_edges(src, dst, 50, backend=backend)


def _engines_of(res):
    return {r["engine"] for r in res.stats}


#: the records' engines of a batch run by the host's kernels: the CPU set's batch loops, or its
#: queue searches one at a time (a small graph whose searches run apart)
HOST_ENGINES = {"cpu", "queue"}


def _on_host(res) -> bool:
    return bool(_engines_of(res)) and _engines_of(res) <= HOST_ENGINES


def _path(n, backend="cpu"):
    return ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, symmetrize=True, backend=backend)


def test_a_deep_small_graphs_batch_runs_on_the_host_twin():
    """``bfs_multi`` on a long path of the GPU backend (its batch's levels each a grid barrier on
    the device): on the twin, its rows the GPU backend's in host memory, equal to the CPU
    matrix's; ``settings.host_batches`` overrides either way and refuses an unknown value."""
    C = _path(3000)
    A = _stand_in(C)
    sources = [0, 5, 1700, 2999]
    mine = ld.bfs_multi(C, sources)
    with ld.settings.changed(host_search_edges=C.nvals):
        res = ld.bfs_multi(A, sources)
        with ld.settings.changed(host_batches="never"):
            there = ld.bfs_multi(A, sources)
        with ld.settings.changed(host_batches="sometimes"), pytest.raises(ValueError, match="host_batches"):
            ld.bfs_multi(A, sources)
    assert _engines_of(res) == {"queue"} and _engines_of(there) == {"gpu"}     # (a path's searches run apart)
    for rows in (res.levels, res.parents):
        assert rows.backend is A.backend and all(isinstance(b, np.ndarray) for b in rows.blocks)
    np.testing.assert_array_equal(res.levels.to_numpy(), mine.levels.to_numpy())
    np.testing.assert_array_equal(there.levels.to_numpy(), mine.levels.to_numpy())
    for i, s in enumerate(sources):
        ld.validate(C, s, res.levels.row(i), res.parents.row(i))


def test_the_batch_policy_weighs_the_searches_against_the_levels():
    """By the models of ``algorithms/small_graphs.py``: a few searches of a shallow mesh on the
    host, as many as its vertices on the device; a graph that is not thin on the device, unless
    "always"; a graph past ``host_search_edges`` on the device whatever the setting."""
    from lagraph_dist.algorithms import small_graphs
    M = _stand_in(_mesh())
    D = _stand_in(_dense_digraph())
    with ld.settings.changed(host_search_edges=1 << 16):
        assert small_graphs._batch_twin(M, 4) is not None and small_graphs._batch_twin(M, M.n) is None
        assert _on_host(ld.bfs_multi(M, [0, 1, 2]))
        assert _engines_of(ld.bfs_multi(M, list(range(M.n)), parents=False)) == {"gpu"}
        assert small_graphs._batch_twin(D, 2) is None
        with ld.settings.changed(host_batches="always"):
            assert _on_host(ld.bfs_multi(D, [0, 1]))
    with ld.settings.changed(host_search_edges=D.nvals - 1, host_batches="always"):
        assert _engines_of(ld.bfs_multi(D, [0, 1])) == {"gpu"}


def test_a_deep_graphs_depth_is_measured_from_a_vertex_with_an_edge():
    """Vertex 0 isolated beside a 15,000-vertex path (45,000 vertices and edges: more than the
    device's call by the host's model, whatever the depth): the depth the models weigh is the
    path's, not the one level of a search from vertex 0, so the search runs on the host."""
    n = 15_001
    C = ld.Matrix.from_edges(np.arange(1, n - 1), np.arange(2, n), n, symmetrize=True)
    with ld.settings.changed(host_search_edges=16):
        res = ld.bfs(_stand_in(C), 5)
    assert _engines_of(res) == {"queue"}
    np.testing.assert_array_equal(res.levels.to_numpy()[1:], np.abs(np.arange(1, n) - 5))


def test_a_deep_graphs_batch_past_the_threshold_runs_where_the_models_put_it():
    """A path past ``host_search_edges``: a batch of its searches on the host twin ("auto", by
    the models), on the device with "never"; "always" takes only graphs within the threshold."""
    C = _path(3000)
    A = _stand_in(C)
    sources = [0, 1500, 2999]
    with ld.settings.changed(host_search_edges=16):
        res = ld.bfs_multi(A, sources)
        for mode in ("never", "always"):
            with ld.settings.changed(host_batches=mode):
                assert _engines_of(ld.bfs_multi(A, sources)) == {"gpu"}, mode
    assert _on_host(res)
    np.testing.assert_array_equal(res.levels.to_numpy(), ld.bfs_multi(C, sources).levels.to_numpy())


def test_the_family_on_a_small_graph_runs_on_the_host_twin():
    """Betweenness (its batch and sweeps together), closeness and eccentricity (their batches)
    on the twin give the CPU matrix's values, as GPU backend vectors."""
    C = _mesh()
    A = _stand_in(C)
    with ld.settings.changed(host_search_edges=C.nvals, host_batches="always"):
        got = {"betweenness": ld.betweenness_centrality(A), "closeness": ld.closeness_centrality(A),
               "eccentricity": ld.eccentricity(A)}
    want = {"betweenness": ld.betweenness_centrality(C), "closeness": ld.closeness_centrality(C),
            "eccentricity": ld.eccentricity(C)}
    assert isinstance(got["betweenness"], HostHeldVector)
    for name, vector in got.items():
        assert vector.backend is A.backend, name
        np.testing.assert_allclose(vector.to_numpy(), want[name].to_numpy(), rtol=1e-12, err_msg=name)


def test_a_small_graphs_components_are_labelled_on_the_host_twin():
    """``connected_components`` and ``number_connected_components`` of a small GPU-backend graph
    run on the twin: the CPU matrix's labels, as a GPU-backend Vector held on the host; past
    ``host_search_edges`` too while the host's union-find costs less than the device's call (the
    models); with the setting at 0, where the matrix lives."""
    src, dst = np.array([0, 1, 3, 5, 6]), np.array([1, 2, 4, 6, 7])
    C = ld.Matrix.from_edges(src, dst, 9, symmetrize=True)           # {0,1,2} {3,4} {5,6,7} {8}
    A = _stand_in(C)
    want = ld.connected_components(C).to_numpy()
    np.testing.assert_array_equal(want, [0, 0, 0, 3, 3, 5, 5, 5, 8])
    with ld.settings.changed(host_search_edges=C.nvals):
        labels = ld.connected_components(A)
        assert ld.number_connected_components(A) == 4
    assert isinstance(labels, HostHeldVector) and labels.backend is A.backend and labels.held_on_host
    np.testing.assert_array_equal(labels.to_numpy(), want)
    with ld.settings.changed(host_search_edges=C.nvals - 1):
        assert isinstance(ld.connected_components(A), HostHeldVector)
    with ld.settings.changed(host_search_edges=0):
        there = ld.connected_components(A)
        assert ld.number_connected_components(A) == 4
    assert not isinstance(there, HostHeldVector) and there.backend is A.backend
    np.testing.assert_array_equal(there.to_numpy(), want)


def test_a_graphs_components_past_the_threshold_run_on_the_device_once_they_cost_the_host_more():
    """By the models of ``algorithms/small_graphs.py``: a path of 90,000 vertices (270,000
    vertices and edges of a thin graph) is labelled on the host; one of 120,000 (360,000) costs
    the host's union-find more than the device's call and is labelled where the matrix lives; a
    graph that is not thin (mean degree 20) of 420,000 is labelled on the host."""
    rng = np.random.default_rng(5)
    dense = ld.Matrix.from_edges(np.repeat(np.arange(20_000), 10), rng.integers(0, 20_000, 200_000), 20_000,
                                 symmetrize=True)
    for M, on_host in ((_path(90_000), True), (_path(120_000), False), (dense, True)):
        with ld.settings.changed(host_search_edges=16):
            labels = ld.connected_components(_stand_in(M))
        assert isinstance(labels, HostHeldVector) == on_host, (M.n, M.nvals)
        want = ld.connected_components(M).to_numpy()
        np.testing.assert_array_equal(labels.to_numpy(), want)


# -- on the device ------------------------------------------------------------------------------
def _gpu_graphs():
    (src, dst), n = graphs.west_like_digraph()
    yield "west-like digraph", src, dst, n, False
    src, dst, n = *np.array(graphs.SMALL_DIGRAPH_EDGES).T, 10
    yield "digraph with an isolated vertex", src, dst, n, False
    (src, dst), n = graphs.triangle_mesh(20, 15)
    yield "triangle mesh", src, dst, n, True
    (src, dst), n = graphs.grid_edges(6, 40)
    keep = (src // 40 != 2) | (dst // 40 != 3)          # a cut: two components
    yield "cut mesh", src[keep], dst[keep], n, True


@pytest.mark.parametrize("backend", [GPU])
@pytest.mark.parametrize("name, src, dst, n, symmetrize", list(_gpu_graphs()), ids=lambda x: x if isinstance(x, str) else "")
def test_on_the_gpu_a_small_graphs_search_runs_on_the_host_and_agrees_with_the_device(backend, name, src, dst, n,
                                                                                      symmetrize):
    A = ld.Matrix.from_edges(np.asarray(src), np.asarray(dst), n, symmetrize=symmetrize, backend=backend)
    runs = {}
    reverse_on_host = "cpu" if A.T.transposed else "queue"          # (a transposed view: no queue search)
    for where, threshold, engines in (("cpu", A.nvals, ("queue", reverse_on_host)), ("gpu", 0, ("gpu", "gpu"))):
        with ld.settings.changed(host_search_edges=threshold):
            runs[where] = ld.bfs(A, 1), ld.bfs(A.T, n - 1, parents=False)
        assert [{r["engine"] for r in res.stats} for res in runs[where]] == [{e} for e in engines], where
    (res, reverse), (dev, dev_reverse) = runs["cpu"], runs["gpu"]
    np.testing.assert_array_equal(res.levels.to_numpy(), dev.levels.to_numpy())
    np.testing.assert_array_equal(reverse.levels.to_numpy(), dev_reverse.levels.to_numpy())
    ld.validate(A, 1, res.levels.to_numpy(), res.parents.to_numpy())
    assert res.levels.held_on_host and res.parents.held_on_host
    both = ld.ewise_add(res.levels, dev.levels, "min")          # the held vector, read on the device
    assert not res.levels.held_on_host and type(res.levels.part.values).__module__.startswith("cupy")
    np.testing.assert_array_equal(both.to_numpy(), dev.levels.to_numpy())


@pytest.mark.parametrize("backend", [GPU])
@pytest.mark.parametrize("name, src, dst, n, symmetrize", list(_gpu_graphs()), ids=lambda x: x if isinstance(x, str) else "")
def test_on_the_gpu_a_small_graphs_components_run_on_the_host_and_agree_with_the_device(backend, name, src, dst, n,
                                                                                         symmetrize):
    """The components of a small graph on the twin against the device's union-find: the same
    labels and count; the twin's labels a GPU-backend Vector held on the host until read there."""
    A = ld.Matrix.from_edges(np.asarray(src), np.asarray(dst), n, symmetrize=symmetrize, backend=backend)
    runs = {}
    for where, threshold in (("host", A.nvals), ("device", 0)):
        with ld.settings.changed(host_search_edges=threshold):
            runs[where] = ld.connected_components(A), ld.number_connected_components(A)
    (labels, count), (theirs, their_count) = runs["host"], runs["device"]
    assert isinstance(labels, HostHeldVector) and labels.held_on_host and not isinstance(theirs, HostHeldVector)
    np.testing.assert_array_equal(labels.to_numpy(), theirs.to_numpy())
    assert count == their_count == np.unique(theirs.to_numpy()).shape[0]


@pytest.mark.parametrize("backend", [GPU])
@pytest.mark.parametrize("name, src, dst, n, symmetrize", list(_gpu_graphs()), ids=lambda x: x if isinstance(x, str) else "")
def test_on_the_gpu_a_small_graphs_batch_runs_on_the_host_and_agrees_with_the_device(backend, name, src, dst, n,
                                                                                         symmetrize):
    """``bfs_multi`` and the family on the twin against the same calls on the device: levels
    equal, parents valid, the family's values equal; the rows and vectors the GPU backend's."""
    A = ld.Matrix.from_edges(np.asarray(src), np.asarray(dst), n, symmetrize=symmetrize, backend=backend)
    sources = [0, 1, n // 2, n - 1]
    runs = {}
    for where, threshold in (("host", A.nvals), ("device", 0)):
        with ld.settings.changed(host_search_edges=threshold, host_batches="always"):
            runs[where] = (ld.bfs_multi(A, sources), ld.betweenness_centrality(A), ld.closeness_centrality(A),
                           ld.eccentricity(A) if symmetrize and name != "cut mesh" else None)
    (batch, betweenness, closeness, eccentricity), device = runs["host"], runs["device"]
    assert _on_host(batch) and _engines_of(device[0]) == {"gpu"}
    assert batch.levels.backend is A.backend and all(isinstance(b, np.ndarray) for b in batch.levels.blocks)
    np.testing.assert_array_equal(batch.levels.to_numpy(), device[0].levels.to_numpy())
    for i, s in enumerate(sources):
        ld.validate(A, s, batch.levels.row(i), batch.parents.row(i))
    for mine, theirs in zip((betweenness, closeness, eccentricity), device[1:]):
        if mine is not None:
            assert mine.backend is A.backend
            np.testing.assert_allclose(mine.to_numpy(), theirs.to_numpy(), rtol=1e-9)


@pytest.mark.parametrize("backend", [GPU])
def test_on_the_gpu_a_long_paths_search_past_the_threshold_runs_on_the_host_and_agrees_with_the_device(backend):
    """A 3,000-vertex path past ``host_search_edges``: its search and its batch weighed onto the
    host twin (the device's 3,000 levels cost more than the host's whole search), with the
    device's levels; 0 keeps both on the device."""
    A = _path(3000, backend)
    sources = [0, 1234, 2999]
    runs = {}
    for where, threshold in (("host", 16), ("device", 0)):
        with ld.settings.changed(host_search_edges=threshold):
            runs[where] = ld.bfs(A, 1234), ld.bfs_multi(A, sources)
    (res, batch), (dev, dev_batch) = runs["host"], runs["device"]
    assert _engines_of(res) == {"queue"} and _on_host(batch)
    assert _engines_of(dev) == _engines_of(dev_batch) == {"gpu"}
    np.testing.assert_array_equal(res.levels.to_numpy(), dev.levels.to_numpy())
    np.testing.assert_array_equal(batch.levels.to_numpy(), dev_batch.levels.to_numpy())
    ld.validate(A, 1234, res.levels.to_numpy(), res.parents.to_numpy())
