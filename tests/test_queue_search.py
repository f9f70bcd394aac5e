"""A small graph's search as the host's one-pass queue search (``ld.settings.queue_search_edges``,
issue 54 item 2): the levels of the python-graphblas reference, the parents and level records
of the fused search pushing from the same source (both take a vertex's first in-neighbour in
the frontier's claim order), every output choice, depth limit and target; the policy's terms
and its override; bad arguments refused as the general path refuses them."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import lagraph_dist as ld
from lagraph_dist.local.engine import QueueSearch, offers

from helpers import check_bfs, edge_graphs, edges_to_scipy, reference_levels

OUTPUTS = [(True, True), (True, False), (False, True)]
FIGURES = ("level", "direction", "frontier", "discovered", "edges_examined")


def _mesh(rows, cols):
    ids = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return src, dst, rows * cols


def _engines(res):
    return {r["engine"] for r in res.stats}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs())
def test_the_queue_search_is_the_fused_push_search(graph):
    """Levels, parents and the records' counts equal the fused search's with direction="push",
    for every output choice, a depth limit and a target; the levels are the reference's."""
    src, dst, n, symmetrize, source = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend="cpu")
    S = edges_to_scipy(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), n, symmetrize=symmetrize)
    target = (source * 7 + 3) % n
    for depth_limit, goal in ((None, None), (2, None), (None, target), (1, target)):
        for levels, parents in OUTPUTS:
            kwargs = dict(levels=levels, parents=parents, depth_limit=depth_limit, target=goal)
            queued = ld.bfs(A, source, **kwargs)
            with ld.settings.changed(queue_search_edges=0):
                fused = ld.bfs(A, source, direction="push", **kwargs)
            assert _engines(queued) == (set() if goal == source else {"queue"})     # (a target at the source: no level)
            assert _engines(fused) <= {"cpu"}
            for name in ("levels", "parents"):
                mine, theirs = getattr(queued, name), getattr(fused, name)
                assert (mine is None) == (theirs is None)
                if mine is not None:
                    np.testing.assert_array_equal(mine.to_numpy(), theirs.to_numpy())
                    assert mine.nvals == theirs.nvals and mine.dtype == theirs.dtype
            assert [[r[k] for k in FIGURES] for r in queued.stats] == [[r[k] for k in FIGURES] for r in fused.stats]
    full = ld.bfs(A, source, parents=False).levels.to_numpy()
    np.testing.assert_array_equal(full, reference_levels(S, source))


@pytest.mark.parametrize("src, dst, n", [
    (np.arange(36), np.arange(1, 37), 37),               # a path of 37: the last word partly set
    (np.arange(63), np.arange(1, 64), 64),               # whole words only
    _mesh(5, 7),
    (np.arange(30), np.arange(1, 31), 40),               # 9 vertices never reached
], ids=["path-37", "path-64", "mesh-5x7", "path-and-isolated"])
@pytest.mark.parametrize("positional", [True, False])
def test_the_visited_bits_are_the_reached_vertices_and_no_padding(src, dst, n, positional):
    """The kernel set's queue search's visited words (and the depths' copy) hold exactly the bits
    of the vertices scipy's search reaches, none past them in the block's padding, where every
    vertex is reached (one sweep of the words) and where some are not (a bit a reached vertex);
    without parents, the values are True exactly there."""
    from lagraph_dist.local.cpu_kernels.queue import queue_plan
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="cpu")
    S = edges_to_scipy(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), n, symmetrize=True)
    length = A.layout.block_len
    reached = np.zeros(length, dtype=bool)
    reached[:n] = reference_levels(S, 3) >= 0
    expected = np.packbits(reached, bitorder="little").view(np.uint32)
    words, values, depth_words, _, _, found = queue_plan(A.block.by_col, length, n).search(3, positional, True, n,
                                                                                          -1)
    assert found == reached.sum()
    np.testing.assert_array_equal(words, expected)
    np.testing.assert_array_equal(depth_words, expected)
    if not positional:
        np.testing.assert_array_equal(values[:n][reached[:n]], True)


def test_a_matrix_keeps_one_plan_and_each_search_its_own_outputs():
    """The queue plan is made once a matrix and kept; searches from other sources through it
    leave the earlier results as they were: each result's levels stay the reference's from its
    own source, its parents pass the Graph500 checks."""
    src, dst, n = _mesh(12, 9)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="cpu")
    S = edges_to_scipy(src, dst, n, symmetrize=True)
    sources = (0, 53, n - 1, 17)
    results = [ld.bfs(A, source) for source in sources]
    plan = A._cache["queue_plan"]
    results += [ld.bfs(A, source) for source in sources]
    assert A._cache["queue_plan"] is plan
    for source, res in zip(sources + sources, results):
        assert _engines(res) == {"queue"}
        np.testing.assert_array_equal(res.levels.to_numpy(), reference_levels(S, source))
        ld.validate(A, source, res.levels, res.parents)


def test_records_count_each_level_and_time_the_levels_as_one_run():
    """A 30 x 40 mesh from a corner: one record a level, frontier and discovered the diagonals'
    sizes, the out-edges of each frontier examined, every level pushed; the levels timed as one
    run (seconds None, the last level's ``run_seconds`` their time)."""
    src, dst, n = _mesh(30, 40)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="cpu")
    S = edges_to_scipy(src, dst, n, symmetrize=True)
    res = check_bfs(S, A, 0)
    stats = res.stats
    levels = res.levels.to_numpy()
    assert len(stats) == levels.max() + 1 == 30 + 40 - 1
    degrees = np.diff(S.tocsr().indptr)
    for k, record in enumerate(stats):
        assert record["engine"] == "queue" and record["direction"] == "push" and record["fused"]
        assert record["frontier"] == np.count_nonzero(levels == k)
        assert record["discovered"] == np.count_nonzero(levels == k + 1)
        assert record["edges_examined"] == degrees[levels == k].sum()
        assert record["host_reads"] == 0 and record["launches"] == 0
    assert all(r["seconds"] is None for r in stats)
    assert stats[-1]["run_levels"] == len(stats) and stats[-1]["run_seconds"] > 0
    assert sum(map(ld.measured_seconds, stats)) == stats[-1]["run_seconds"]


def test_the_policy_and_its_override_decide_which_search_runs():
    src, dst, n = _mesh(10, 10)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="cpu")
    assert offers(A.backend.kernels, QueueSearch)
    want = ld.bfs(A, 0).levels.to_numpy()
    cases = [(dict(), "auto", "queue"), (dict(), "push", "queue"), (dict(), "pull", "cpu"),
             (dict(queue_search_edges=0), "auto", "cpu"), (dict(queue_search_edges=A.nvals), "auto", "queue"),
             (dict(queue_search_edges=A.nvals - 1), "push", "queue")]     # (past it, narrow levels: below)
    for changed, direction, engine in cases:
        with ld.settings.changed(**changed):
            res = ld.bfs(A, 0, direction=direction)
        assert _engines(res) == {engine}, (changed, direction)
        np.testing.assert_array_equal(res.levels.to_numpy(), want)
    D = ld.Matrix.from_edges(src, dst, n, backend="cpu")
    reverse = ld.bfs(D.T, 55, parents=False)         # a transposed view runs the fused search
    assert D.T.transposed and _engines(reverse) == {"cpu"}
    np.testing.assert_array_equal(reverse.levels.to_numpy(), reference_levels(edges_to_scipy(dst, src, n), 55))
    from lagraph_dist.algebra.levels import separate_levels
    with separate_levels():                       # levels as separate products are not fused at all
        assert _engines(ld.bfs(A, 0)) == {"cpu"} and not any(r["fused"] for r in ld.bfs(A, 0).stats)


def test_past_the_threshold_a_thin_graph_of_narrow_levels_takes_the_queue_search():
    """Past ``queue_search_edges``: a path (a vertex a level) and a 40 x 400 mesh (at most 40 a
    level) take the queue search, a shallow thin graph (20,000 vertices of mean degree 6, ten
    levels of 12,000 edges) and a dense one (1,000 vertices of 100 out-edges, three levels) the
    fused one; the depth is measured once a matrix (``graph_depth``), from the first vertex with
    an edge."""
    from lagraph_dist.algebra.levels import graph_depth
    rng = np.random.default_rng(11)
    path = ld.Matrix.from_edges(np.arange(1, 3000), np.arange(2, 3001), 3001, symmetrize=True)    # vertex 0 alone
    mesh = ld.Matrix.from_edges(*_mesh(40, 400)[:2], 16_000, symmetrize=True)
    shallow = ld.Matrix.from_edges(rng.integers(0, 20_000, 60_000), rng.integers(0, 20_000, 60_000), 20_000,
                                   symmetrize=True)
    dense = ld.Matrix.from_edges(np.repeat(np.arange(1000), 100), rng.integers(0, 1000, 100_000), 1000)
    with ld.settings.changed(queue_search_edges=16):
        for A, engine in ((path, "queue"), (mesh, "queue"), (shallow, "cpu"), (dense, "cpu")):
            res = ld.bfs(A, 7)
            assert _engines(res) == {engine}, A.n
            np.testing.assert_array_equal(res.levels.to_numpy(), reference_levels(A.to_scipy(), 7))
    assert graph_depth(path) == 3000 and graph_depth(mesh) == 40 + 400 - 1      # (the eccentricity and one)
    with ld.settings.changed(queue_search_edges=0):
        assert _engines(ld.bfs(path, 7)) == {"cpu"}


def _small_world(n, rewired, seed):
    """A ring of degree 4 with a share ``rewired`` of its edges sent to random vertices: a thin
    graph whose levels widen as the share grows."""
    rng = np.random.default_rng(seed)
    src = np.concatenate([np.arange(n), np.arange(n)])
    dst = np.concatenate([(np.arange(n) + 1) % n, (np.arange(n) + 2) % n])
    moved = rng.random(2 * n) < rewired
    dst[moved] = rng.integers(0, n, int(moved.sum()))
    keep = src != dst
    return ld.Matrix.from_edges(src[keep], dst[keep], n, symmetrize=True)


def _band(n, diagonals):
    """n vertices, each joined to the ``diagonals`` / 2 next ones: a graph that is not thin, of
    narrow levels."""
    src = np.concatenate([np.arange(n - k) for k in range(1, diagonals // 2 + 1)])
    dst = np.concatenate([np.arange(k, n) for k in range(1, diagonals // 2 + 1)])
    return ld.Matrix.from_edges(src, dst, n, symmetrize=True)


def test_a_small_graph_takes_the_queue_search_while_its_levels_read_few_edges():
    """Up to ``QUEUE_SMALL_GRAPH_EDGES`` stored edges any graph takes the queue search while its
    levels read fewer than ``QUEUE_SMALL_LEVEL_EDGES`` edges on average; past that size only a
    thin one of fewer than ``QUEUE_LEVEL_VERTICES`` vertices a level. A small world of 20,000
    vertices (thin, some 1,700 edges and 430 vertices a level) and a band of 30 diagonals (not
    thin, some 450 edges a level) take it, and would not as larger graphs."""
    from lagraph_dist.algebra.levels import graph_depth
    from lagraph_dist.local import engine
    world, band = _small_world(20_000, 0.03, 5), _band(3000, 30)
    for A in (world, band):
        assert A.nvals <= engine.QUEUE_SMALL_GRAPH_EDGES and A.nvals < engine.QUEUE_SMALL_LEVEL_EDGES * graph_depth(A)
    assert world.n >= engine.QUEUE_LEVEL_VERTICES * graph_depth(world) and not engine.thin_graph(band.nvals, band.n)
    with ld.settings.changed(queue_search_edges=16):
        for A in (world, band):
            res = ld.bfs(A, 11)
            assert _engines(res) == {"queue"}, A.n
            np.testing.assert_array_equal(res.levels.to_numpy(), reference_levels(A.to_scipy(), 11))
            ld.validate(A, 11, res.levels.to_numpy(), res.parents.to_numpy())
        with pytest.MonkeyPatch.context() as patch:     # (the same graphs, had they more edges than the bound)
            patch.setattr(engine, "QUEUE_SMALL_GRAPH_EDGES", min(world.nvals, band.nvals) - 1)
            for A in (world, band):
                assert _engines(ld.bfs(A, 11)) == {"cpu"}, A.n


def test_a_labelled_graph_and_a_converted_one_take_the_queue_search():
    nx = pytest.importorskip("networkx")
    G = nx.relabel_nodes(nx.grid_2d_graph(6, 7), lambda node: f"{node[0]}-{node[1]}")
    A = ld.Matrix.from_networkx(G)
    res = ld.bfs(A, "0-0")
    assert _engines(res) == {"queue"}
    assert res.levels_by_label(A) == nx.single_source_shortest_path_length(G, "0-0")
    res = ld.bfs(G, "2-3")                        # converted by the call
    assert _engines(res) == {"queue"}


@pytest.mark.parametrize("call, error", [
    (dict(source=100), ld.IndexOutOfBound), (dict(source=-1), ld.IndexOutOfBound),
    (dict(source=1.5), ld.DomainMismatch), (dict(source=0, direction="sideways"), ld.InvalidValue),
    (dict(source=0, levels=False, parents=False), ld.InvalidValue), (dict(source=0, alpha=0), ld.InvalidValue),
    (dict(source=0, beta=True), ld.InvalidValue), (dict(source=0, depth_limit=-1), ld.InvalidValue),
    (dict(source=0, target=100), ld.IndexOutOfBound), (dict(source=0, target="x"), ld.DomainMismatch)],
    ids=lambda x: str(x) if not isinstance(x, dict) else ",".join(f"{k}={v}" for k, v in x.items()))
def test_bad_arguments_are_refused_as_the_general_path_refuses_them(call, error):
    src, dst, n = _mesh(10, 10)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="cpu")
    source = call.pop("source")
    with pytest.raises(error) as queued:
        ld.bfs(A, source, **call)
    with ld.settings.changed(queue_search_edges=0), pytest.raises(error) as fused:
        ld.bfs(A, source, **call)
    assert str(queued.value) == str(fused.value)
