"""ld.bfs in one process (1 x 1 grid) against the python-graphblas reference and ld.validate:
generated graphs, explicit corner cases, the real test graphs and Kronecker graphs."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings

import lagraph_dist as ld
from lagraph_dist.io.mtx import write_mtx
from graphs import small_digraph, triangle_mesh, west_like_digraph, write_real_general
from helpers import (BACKENDS, DIRECTIONS, STATS_KEYS, check_bfs, data_file, data_params, edge_graphs,
                     edges_to_scipy, pattern, read_scipy_pattern, real_graphs, reference_levels)

OUTPUTS = [(True, False), (False, True), (True, True)]     # (levels, parents)


def run_all(S, A, source, expected=None):
    """Every direction x every output choice, checked against one reference run."""
    if expected is None:
        expected = reference_levels(S, source)
    for direction in DIRECTIONS:
        for levels, parents in OUTPUTS:
            check_bfs(S, A, source, direction, levels=levels, parents=parents, expected=expected)
    return expected


# -- generated graphs -------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs())
def test_bfs_generated(backend, graph):
    src, dst, n, symmetrize, source = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    assert A.n == n and A.nvals == S.nnz
    assert pattern(A.to_scipy()) == pattern(S)
    run_all(S, A, source)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=50, deadline=None)
@given(graph=edge_graphs())
def test_bfs_on_transpose_view(backend, graph):
    """A.T is the reverse graph; BFS on it follows A's in-edges."""
    src, dst, n, symmetrize, source = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    ST = sp.csr_matrix(S.T)
    assert pattern(A.T.to_scipy()) == pattern(ST)
    expected = reference_levels(ST, source)
    for direction in DIRECTIONS:
        check_bfs(ST, A.T, source, direction, expected=expected)


# -- explicit cases ---------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("loop", [False, True])
def test_single_vertex(backend, loop):
    A = ld.Matrix.from_edges([0] if loop else [], [0] if loop else [], 1, backend=backend)
    S = edges_to_scipy([0] if loop else [], [0] if loop else [], 1)
    for direction in DIRECTIONS:
        res = check_bfs(S, A, 0, direction)
        assert res.levels.to_numpy().tolist() == [0]
        assert res.parents.to_numpy().tolist() == [0]
        assert len(res.stats) == 1 and res.stats[0]["discovered"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("symmetrize", [False, True])
def test_star_with_huge_hub(backend, symmetrize):
    n, hub = 500, 137
    leaves = np.array([v for v in range(n) if v != hub], dtype=np.int64)
    src, dst = np.full(leaves.shape, hub), leaves
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    expected = np.ones(n, np.int64)
    expected[hub] = 0
    np.testing.assert_array_equal(run_all(S, A, hub), expected)
    leaf = int(leaves[-1])
    lv = run_all(S, A, leaf)
    if symmetrize:
        assert lv[leaf] == 0 and lv[hub] == 1 and (np.delete(lv, [leaf, hub]) == 2).all()
        res = ld.bfs(A, leaf)
        assert (res.parents.to_numpy()[leaves[leaves != leaf]] == hub).all()
    else:
        assert lv[leaf] == 0 and (np.delete(lv, leaf) == -1).all()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("orientation", ["forward", "backward", "both"])
def test_long_path(backend, orientation):
    n = 400
    perm = np.random.default_rng(7).permutation(n)          # labels scattered over the blocks
    a, b = perm[:-1], perm[1:]
    src, dst = (b, a) if orientation == "backward" else (a, b)
    S = edges_to_scipy(src, dst, n, symmetrize=orientation == "both")
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=orientation == "both", backend=backend)
    position = np.empty(n, np.int64)
    position[perm] = np.arange(n)
    head, tail = int(perm[0]), int(perm[-1])
    start = tail if orientation == "backward" else head
    distance_from_start = np.abs(position - position[start])
    np.testing.assert_array_equal(run_all(S, A, start), distance_from_start)
    res = ld.bfs(A, start, direction="auto")
    assert len(res.stats) == n
    parents = res.parents.to_numpy()
    step = 1 if orientation != "backward" else -1
    others = perm[1:] if step == 1 else perm[:-1]
    np.testing.assert_array_equal(parents[others], perm[position[others] - step])
    # from the other end: nothing (directed) or everything (symmetric)
    other_end = head if start == tail else tail
    lv = run_all(S, A, other_end)
    if orientation == "both":
        np.testing.assert_array_equal(lv, np.abs(position - position[other_end]))
    else:
        assert (np.delete(lv, other_end) == -1).all()
    middle = int(perm[n // 2])
    run_all(S, A, middle)


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_components(backend):
    rng = np.random.default_rng(3)
    n = 90
    first, second = np.arange(0, n, 2), np.arange(1, n, 2)       # interleaved ids
    src = np.concatenate([rng.choice(first, 150), rng.choice(second, 150)])
    dst = np.concatenate([rng.choice(first, 150), rng.choice(second, 150)])
    S = edges_to_scipy(src, dst, n, symmetrize=True)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend=backend)
    for source in (0, 1):
        lv = run_all(S, A, source)
        other = second if source == 0 else first
        assert (lv[other] == -1).all()
        res = ld.bfs(A, source)
        assert (res.parents.to_numpy()[other] == -1).all()
        assert res.levels.nvals == res.parents.nvals == int((lv >= 0).sum())


@pytest.mark.parametrize("backend", BACKENDS)
def test_source_reaches_nothing(backend):
    n = 50
    sink = 17
    src = np.array([v for v in range(n) if v != sink] + [3, 4], dtype=np.int64)
    dst = np.array([sink] * (n - 1) + [4, 5], dtype=np.int64)
    S = edges_to_scipy(src, dst, n)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    for direction in DIRECTIONS:
        res = check_bfs(S, A, sink, direction)
        lv, pa = res.levels.to_numpy(), res.parents.to_numpy()
        assert lv[sink] == 0 and pa[sink] == sink
        assert (np.delete(lv, sink) == -1).all() and (np.delete(pa, sink) == -1).all()
        assert res.levels.nvals == 1 and res.parents.nvals == 1
        assert len(res.stats) == 1 and res.stats[0]["frontier"] == 1
        assert res.stats[0]["discovered"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_numpy_integer_source_and_repeat_runs(backend):
    rng = np.random.default_rng(11)
    n = 200
    src, dst = rng.integers(0, n, 600), rng.integers(0, n, 600)
    S = edges_to_scipy(src, dst, n)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    expected = reference_levels(S, 5)
    for source in (np.int64(5), np.int32(5), np.uint16(5), 5):
        for direction in ("pull", "push", "auto"):     # pull first: blocks built lazily
            res = check_bfs(S, A, source, direction, expected=expected)
            assert res.source == 5 and type(res.source) is int


# -- real graphs ------------------------------------------------------------------------------
def _sources(S, count):
    """Vertex 0, the largest out-degree vertex, and others with out-edges (deterministic)."""
    degrees = np.diff(sp.csr_matrix(S).indptr)
    picks = [0, int(np.argmax(degrees))]
    with_edges = np.flatnonzero(degrees)
    if with_edges.size:
        picks += np.random.default_rng(S.shape[0]).choice(with_edges, 3).tolist()
    picks.append(S.shape[0] - 1)
    return list(dict.fromkeys(picks))[:count]


SMALL_GRAPHS = real_graphs("lagraph")
BIG_GRAPHS = real_graphs("networkit")
STAND_INS = {"west_like": west_like_digraph, "mesh": triangle_mesh, "small_digraph": small_digraph}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(STAND_INS))
def test_written_stand_in_graphs(tmp_path, backend, name):
    """The real graphs' kinds, written by the test: read back by from_mtx, then every BFS."""
    (src, dst), n = STAND_INS[name]()
    path = tmp_path / f"{name}.mtx"
    if name == "mesh":
        write_mtx(path, src, dst, n, symmetric=True)
    else:
        write_real_general(path, src, dst, n)
    S = edges_to_scipy(src, dst, n)
    assert pattern(read_scipy_pattern(path)) == pattern(S)
    A = ld.Matrix.from_mtx(path, backend=backend)
    assert A.n == n and A.nvals == S.nnz
    assert pattern(A.to_scipy()) == pattern(S)
    for source in _sources(S, 4):
        run_all(S, A, source)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", data_params(SMALL_GRAPHS, "lagraph"))
def test_real_lagraph_graphs(backend, path):
    S = read_scipy_pattern(path)
    A = ld.Matrix.from_mtx(path, backend=backend)
    assert A.n == S.shape[0] and A.nvals == S.nnz
    assert pattern(A.to_scipy()) == pattern(S)
    for source in _sources(S, 4):
        run_all(S, A, source)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", data_params(BIG_GRAPHS, "networkit"))
def test_real_networkit_graphs(backend, path):
    S = read_scipy_pattern(path)
    A = ld.Matrix.from_mtx(path, backend=backend)
    assert A.n == S.shape[0] and A.nvals == S.nnz
    for source in _sources(S, 3)[1:]:          # two sources that have out-edges
        expected = reference_levels(S, source)
        for direction in DIRECTIONS:
            check_bfs(S, A, source, direction, expected=expected)
        check_bfs(S, A, source, "auto", levels=False, expected=expected)


def test_real_graph_lists_are_not_empty():
    data_file("lagraph")
    data_file("networkit")
    names = {p.name for p in SMALL_GRAPHS + BIG_GRAPHS}
    assert {"west0067.mtx", "bcsstk13.mtx", "wing.mtx", "wiki-Vote.mtx"} <= names
    assert not any(n.startswith("mangled") or n.endswith("_noheader.mtx") for n in names)


# -- Kronecker graphs -------------------------------------------------------------------------
def kronecker_scipy(scale, edgefactor=16, seed=0):
    """The symmetric, loop-free Kronecker pattern built straight from the generator."""
    from lagraph_dist.io.generators import kronecker_edges
    src, dst = kronecker_edges(scale, edgefactor, seed=seed)
    keep = src != dst
    return edges_to_scipy(src[keep], dst[keep], 1 << scale, symmetrize=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scale", range(4, 11))
def test_kronecker(backend, scale):
    seed = 100 + scale
    A = ld.kronecker(scale, seed=seed, backend=backend)
    S = kronecker_scipy(scale, seed=seed)
    assert A.n == 1 << scale and A.nvals == S.nnz
    got = A.to_scipy()
    assert pattern(got) == pattern(S)
    assert (got != got.T).nnz == 0 and got.diagonal().sum() == 0
    degrees = np.diff(S.indptr)
    for source in (int(np.argmax(degrees)), int(np.flatnonzero(degrees)[-1])):
        run_all(S, A, source)


def test_kronecker_is_deterministic():
    a = ld.kronecker(6, seed=5, backend="cpu").to_scipy()
    b = ld.kronecker(6, seed=5, backend="cpu").to_scipy()
    c = ld.kronecker(6, seed=6, backend="cpu").to_scipy()
    assert pattern(a) == pattern(b)
    assert pattern(a) != pattern(c)
    d = ld.kronecker(6, edgefactor=4, seed=5, backend="cpu")
    assert d.nvals < a.nnz


# -- per-level statistics ---------------------------------------------------------------------
@pytest.mark.usefixtures("fused_single_searches")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_stats_records(backend, direction):
    A = ld.kronecker(8, seed=1, backend=backend)
    S = kronecker_scipy(8, seed=1)
    source = int(np.argmax(np.diff(S.indptr)))
    res = check_bfs(S, A, source, direction)
    assert len(res.stats) >= 2
    steps = {r["direction"] for r in res.stats}
    if direction != "auto":
        assert steps == {direction}
    for r in res.stats:
        assert STATS_KEYS <= set(r)
        assert set(r["bytes"]) >= {"expand", "fold"} and set(r["encoding"]) >= {"expand", "fold"}
        assert all(isinstance(v, (int, np.integer)) and v >= 0 for v in r["bytes"].values())
        assert isinstance(r["seconds"], float)
    assert res.stats[0]["frontier"] == 1
    assert sum(r["discovered"] for r in res.stats) + 1 == res.levels.nvals


@pytest.mark.usefixtures("fused_single_searches")
@pytest.mark.parametrize("backend", BACKENDS)
def test_auto_switches_to_pull_on_kronecker(backend):
    A = ld.kronecker(10, seed=0, backend=backend)
    S = kronecker_scipy(10, seed=0)
    source = int(np.argmax(np.diff(S.indptr)))
    res = check_bfs(S, A, source, "auto")
    steps = [r["direction"] for r in res.stats]
    assert "pull" in steps, steps
    # the pull levels examine fewer edges than pushing the same frontiers would
    pushed = check_bfs(S, A, source, "push")
    assert sum(r["edges_examined"] for r in res.stats) < sum(r["edges_examined"] for r in pushed.stats)


# -- levels only, parents only; the compiled search's wide levels -----------------------------
@pytest.mark.usefixtures("fused_single_searches")
def test_levels_only_and_parents_only_ask_the_fused_run_for_their_own_work(monkeypatch):
    """A levels-only search asks the kernel set's one call for no parents to write (a pair
    product, True for all at once) and a parents-only one for no depths; both results are the
    full search's."""
    from lagraph_dist.algebra import levels as engine_levels
    asked = []
    original = engine_levels._search_plan

    def spy(A, positional, depths, rule):
        plan = original(A, positional, depths, rule)

        def call(*args):
            made = plan(*args)
            asked.append((positional, made[1].dtype, made[3] is not None))
            return made
        return call
    monkeypatch.setattr(engine_levels, "_search_plan", spy)
    nx = pytest.importorskip("networkx")
    G = nx.gnm_random_graph(300, 900, seed=3, directed=True)
    A = ld.Matrix.from_networkx(G, backend="cpu")
    expected = np.full(300, -1)
    for v, d in nx.single_source_shortest_path_length(G, 5).items():
        expected[v] = d
    for direction in DIRECTIONS:
        asked.clear()
        only_levels = ld.bfs(A, 5, parents=False, direction=direction)
        assert only_levels.parents is None and asked == [(False, np.dtype(bool), True)]
        np.testing.assert_array_equal(only_levels.levels.to_numpy(), expected)
        asked.clear()
        only_parents = ld.bfs(A, 5, levels=False, direction=direction)
        assert only_parents.levels is None and asked == [(True, np.dtype(np.int64), False)]
        parents = only_parents.parents.to_numpy()
        np.testing.assert_array_equal(parents >= 0, expected >= 0)
        ld.validate(A, 5, None, parents)
        ld.validate(A, 5, expected, parents)      # one level up, every one of them


@pytest.fixture(scope="module")
def kron16():
    """A graph wide enough for every parallel path of the compiled search: pulls over 65,536
    rows, pushes of more than 65,536 frontier edges finding more than 16,384 vertices."""
    return ld.kronecker(16, seed=2, backend="cpu"), kronecker_scipy(16, seed=2)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_wide_levels_give_the_one_thread_result(kron16, direction):
    """Levels equal scipy's, parents Graph500-valid, for every output choice; the parents are
    the same on one thread as on all of them (each chunk of the work writes its own slots)."""
    numba = pytest.importorskip("numba")
    A, S = kron16
    source = int(np.argmax(np.diff(S.indptr)))
    expected = reference_levels(S, source)
    for levels, parents in OUTPUTS:
        check_bfs(S, A, source, direction, levels=levels, parents=parents, expected=expected)
    res = ld.bfs(A, source, direction=direction)
    if direction == "push":
        assert max(r["edges_examined"] for r in res.stats) > 1 << 16
    else:
        assert "pull" in {r["direction"] for r in res.stats}
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        alone = ld.bfs(A, source, direction=direction)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(alone.parents.to_numpy(), res.parents.to_numpy())
    np.testing.assert_array_equal(alone.levels.to_numpy(), expected)


# -- the kernel set's one call against the level engine ----------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs())
def test_one_call_search_is_the_engines_search(graph):
    """``ld.bfs`` on one process runs the CPU set's ``search_plan`` (levels.search_from); the level
    engine's fused runs, on outputs made beforehand, give the same levels, parents and level
    records, with every output choice, direction, depth limit and target."""
    from lagraph_dist.algebra import levels as engine_levels
    src, dst, n, symmetrize, source = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend="cpu")
    target = (source * 7 + 3) % n
    for direction in DIRECTIONS:
        for depth_limit, goal in ((None, None), (2, None), (None, target)):
            for levels, parents in OUTPUTS:
                kwargs = dict(levels=levels, parents=parents, direction=direction, depth_limit=depth_limit,
                              target=goal)
                with ld.settings.changed(queue_search_edges=0):
                    one_call = ld.bfs(A, source, **kwargs)
                with pytest.MonkeyPatch.context() as m:
                    m.setattr(engine_levels, "offers", lambda kernels, member: False)
                    by_engine = ld.bfs(A, source, **kwargs)
                for name in ("levels", "parents"):
                    mine, theirs = getattr(one_call, name), getattr(by_engine, name)
                    assert (mine is None) == (theirs is None)
                    if mine is not None:
                        np.testing.assert_array_equal(mine.to_numpy(), theirs.to_numpy())
                        assert mine.nvals == theirs.nvals
                figures = ("level", "direction", "frontier", "discovered", "edges_examined", "fused")
                assert ([[r[k] for k in figures] for r in one_call.stats]
                        == [[r[k] for k in figures] for r in by_engine.stats])


@pytest.mark.usefixtures("fused_single_searches")
def test_the_kept_plan_follows_each_calls_rule_parameters():
    """The one call's plan is kept with the matrix for each kind of search: calls with other
    ``alpha`` and ``beta`` on the same matrix, in any order, choose their directions as the
    level engine does with those parameters, and a call after them as before them."""
    from lagraph_dist.algebra import levels as engine_levels
    A = ld.kronecker(10, 8, seed=5, backend="cpu")
    source = int(np.argmax(A.out_degree().to_numpy()))
    seen = set()
    for alpha, beta in ((15.0, 18.0), (0.01, 18.0), (1e6, 1e6), (15.0, 0.5), (15.0, 18.0)):
        one_call = ld.bfs(A, source, alpha=alpha, beta=beta)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(engine_levels, "offers", lambda kernels, member: False)
            by_engine = ld.bfs(A, source, alpha=alpha, beta=beta)
        directions = [r["direction"] for r in one_call.stats]
        assert directions == [r["direction"] for r in by_engine.stats]
        np.testing.assert_array_equal(one_call.levels.to_numpy(), by_engine.levels.to_numpy())
        seen.add(tuple(directions))
    assert len(seen) >= 2            # (the parameters chosen do change the directions)
