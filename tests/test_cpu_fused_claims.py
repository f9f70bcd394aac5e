"""The compiled CPU search's queue levels (cpu_kernels.fused): a thin level claims with a branch
as it reads (_push_branching), a wider one lists the neighbours whose bit is clear before it
claims them (_push_listing), unless it has more edges than the queues have slots (K(40, 40)'s
second level: 1,600 edges, 80 vertices); either way each found vertex's parent is its first
frontier in-neighbour in the frontier's order, which on a push-only search of small levels is
what a FIFO queue BFS gives (on one thread: not in a marked search's levels shared by two). On a graph of LOGGED_VERTICES or more a run of thin levels claims
into a log and writes the values of what it found when it leaves it (_thin_levels, the 400 x
400 mesh), on every core when they are PARALLEL_LOGGED or more (the 730 x 730 mesh), unless
the search is marked: a thin graph that fits the cache (marked_values) tests its values, -1
until found, instead of its bits, and keeps no log. The tests below force each way where the
policy would pick the other on some machine (its last-level cache decides)."""
import collections

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings

import lagraph_dist as ld
from helpers import DIRECTIONS, check_bfs, edge_graphs, reference_levels
from lagraph_dist.local import fit
from lagraph_dist.local.cpu_kernels import fused


pytestmark = pytest.mark.usefixtures("fused_searches_in_module")     # (tests of the fused search)


@pytest.fixture
def unmarked(monkeypatch):
    """Searches as on a machine whose cache no search fits: bits tested, logs kept."""
    monkeypatch.setattr(ld.settings, "marked_searches", "never")


@pytest.fixture
def marked(monkeypatch):
    """Every search from a source marked, whatever the graph and the cache."""
    monkeypatch.setattr(ld.settings, "marked_searches", "always")


def symmetric(src, dst, n):
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    S = sp.csr_matrix((np.ones(2 * src.shape[0], np.int8), (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                      shape=(n, n))
    S.sum_duplicates()
    return S, ld.Matrix.from_scipy(S, backend="cpu")


def bipartite(a, b):
    """Complete bipartite K(a, b): from a vertex of the a side, the second level's frontier (the
    b side) has a * b edges, many more than a + b vertices."""
    src, dst = np.meshgrid(np.arange(a), np.arange(a, a + b), indexing="ij")
    return symmetric(src.ravel(), dst.ravel(), a + b)


def dense_random(n, density, seed):
    rng = np.random.default_rng(seed)
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < density, 1))
    return symmetric(src, dst, n)


def mesh(rows, cols):
    ids = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return symmetric(src, dst, rows * cols)


CASES = {
    "bipartite 40x40": (lambda: bipartite(40, 40), 0),
    "bipartite 3x900": (lambda: bipartite(3, 900), 1),
    "dense random 300": (lambda: dense_random(300, 0.3, 0), 7),
    "dense random 3000": (lambda: dense_random(3000, 0.004, 1), 5),
    "mesh 60x45": (lambda: mesh(60, 45), 0),
    "mesh 400x400": (lambda: mesh(400, 400), 0),
    "mesh 400x400, from the middle": (lambda: mesh(400, 400), 200 * 400 + 200),
}


def fifo_parents(S, source):
    """A queue BFS's parents: vertices taken in the order they were found, neighbours in
    adjacency order, each claimed by the first that reaches it."""
    parents = np.full(S.shape[0], -1, np.int64)
    parents[source] = source
    queue = collections.deque([source])
    while queue:
        u = queue.popleft()
        for v in S.indices[S.indptr[u]:S.indptr[u + 1]]:
            if parents[v] < 0:
                parents[v] = u
                queue.append(v)
    return parents


@pytest.mark.parametrize("way", ["unmarked", "marked"])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_queue_levels_are_the_search(case, direction, way, request):
    request.getfixturevalue(way)
    make, source = CASES[case]
    S, A = make()
    for levels, parents in ((True, True), (True, False), (False, True)):
        check_bfs(S, A, source, direction, levels=levels, parents=parents)


@pytest.mark.parametrize("way", ["unmarked", "marked"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_push_parent_is_the_first_frontier_in_neighbour(case, way, request, monkeypatch):
    request.getfixturevalue(way)
    # (levels shared by two threads give any frontier in-neighbour: tests/test_two_thread_levels.py)
    monkeypatch.setattr(fused, "TWO_THREAD_FRONTIER", None)
    make, source = CASES[case]
    S, A = make()
    res = ld.bfs(A, source, direction="push")
    np.testing.assert_array_equal(res.parents.to_numpy(), fifo_parents(S, source))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs())
def test_a_marked_search_is_the_search_of_bits(graph):
    """The same levels, parents and level records whether the search tests values or bits
    (``settings.marked_searches``, read at each call), on random graphs, for every output
    choice, direction, depth limit and target."""
    src, dst, n, symmetrize, source = graph
    target = (source * 7 + 3) % n
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend="cpu")
    results = {}
    for way in ("never", "always"):
        with ld.settings.changed(marked_searches=way):
            for direction in DIRECTIONS:
                for depth_limit, goal in ((None, None), (2, None), (None, target)):
                    for levels, parents in ((True, True), (True, False), (False, True)):
                        res = ld.bfs(A, source, levels=levels, parents=parents, direction=direction,
                                     depth_limit=depth_limit, target=goal)
                        figures = ("level", "direction", "frontier", "discovered", "edges_examined")
                        results.setdefault(way, []).append((
                            None if res.levels is None else res.levels.to_numpy().tolist(),
                            None if res.parents is None else res.parents.to_numpy().tolist(),
                            [[r[k] for k in figures] for r in res.stats]))
    assert results["always"] == results["never"]


def test_the_marked_searches_setting(monkeypatch):
    """"auto" follows the policy (marked_values, worked out once a block), "always" and "never"
    override it at each call; anything else raises, naming the choices."""
    S, A = mesh(30, 30)
    seen = []
    real = fused._marks
    monkeypatch.setattr(fused, "_marks", lambda *args: seen.append(True) or real(*args))
    for value, policy, expected in (("auto", True, True), ("auto", False, False), ("always", False, True),
                                    ("never", True, False)):
        monkeypatch.setattr(fused, "marked_values", lambda csr, policy=policy: policy)
        seen.clear()
        with ld.settings.changed(marked_searches=value):
            check_bfs(S, ld.Matrix.from_scipy(S, backend="cpu"), 0, "auto")
        assert bool(seen) is expected, (value, policy)
    with ld.settings.changed(marked_searches="sometimes"):
        with pytest.raises(ValueError, match="settings.marked_searches must be one of 'auto', 'always', 'never', "
                                             "got 'sometimes'"):
            ld.bfs(A, 0)


def test_which_searches_are_marked(monkeypatch):
    """A thin graph whose arrays and two values a vertex fit in MARKED_CACHE_SHARE of the
    last-level cache; not a denser graph, not a larger one, not where the cache is unknown."""
    mesh_csr = mesh(100, 100)[1].block.by_col
    dense_csr = dense_random(300, 0.3, 0)[1].block.by_col
    need = mesh_csr.indptr.nbytes + mesh_csr.indices.nbytes + 16 * mesh_csr.nmajor
    for cache, expected in ((need / fused.MARKED_CACHE_SHARE, True), (need / fused.MARKED_CACHE_SHARE - 64, False),
                            (None, False)):
        monkeypatch.setattr(fused, "last_level_cache", lambda cache=cache: cache)
        assert fused.marked_values(mesh_csr) is expected
    monkeypatch.setattr(fused, "last_level_cache", lambda: 1 << 40)
    assert fused.marked_values(dense_csr) is False


@pytest.mark.parametrize("text, expected", [(b"32768K\n", 32 << 20), (b"1M", 1 << 20), (b"512", 512), (b"", None),
                                            (b"big", None), (b"12Q", None)])
def test_the_cache_sizes_sysfs_gives(monkeypatch, text, expected):
    """fit.last_level_cache reads the deepest level sysfs lists for CPU 0; a size it cannot
    read counts as unknown (None)."""
    files = {f"/sys/devices/system/cpu/cpu0/cache/index{i}/{name}": value
             for i, (level, size) in enumerate([(b"1\n", b"32K\n"), (b"2\n", b"1024K\n"), (b"3\n", text)])
             for name, value in (("level", level), ("size", size))}
    monkeypatch.setattr(fit, "_read_head", lambda path: files.get(path))
    monkeypatch.setattr(fit.os, "sysconf_names", {})
    fit.last_level_cache.cache_clear()
    try:
        assert fit.last_level_cache() == (expected if expected is not None else 1 << 20)
    finally:
        fit.last_level_cache.cache_clear()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_both_ways_of_a_queue_level_claim_the_same(seed):
    """_push_listing and _push_branching, from the same frontier and visited bits, find the same
    vertices in the same order with the same parents, depths and bits (a level too wide for the
    queues to list branches instead)."""
    rng = np.random.default_rng(seed)
    n = 2048
    S, A = dense_random(n, 0.01, seed)
    csr = A.block.by_col
    visited = rng.random(n) < 0.4
    frontier = rng.permutation(np.flatnonzero(visited))[:150].astype(np.int32)
    slots = int((csr.indptr[frontier + 1] - csr.indptr[frontier]).sum())     # listing needs one an edge
    got = []
    for way in (fused._push_listing, fused._push_branching):
        words = np.packbits(visited, bitorder="little").view(np.uint32).copy()
        depth_words = words.copy()
        parents, depths = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
        nxt, sources = np.empty(slots, np.int32), np.empty(slots, np.int32)
        if way is fused._push_listing:
            found, edges = way(csr.indptr, csr.indices, frontier, frontier.shape[0], nxt, sources, words, parents,
                               True, depth_words, depths, 7)
        else:
            found, edges = way(csr.indptr, csr.indices, frontier, frontier.shape[0], nxt, words, parents, True,
                               depth_words, depths, 7, depths[:0])
        got.append((nxt[:found].tolist(), edges, parents.tolist(), depths.tolist(), words.tolist(),
                    depth_words.tolist()))
    assert got[0] == got[1] and len(got[0][0]) > 100 and slots > n


def test_the_meshes_are_searched_through_the_log():
    assert 160_000 >= fused.LOGGED_VERTICES and 730 * 730 - 1 >= fused.PARALLEL_LOGGED > 160_000


@pytest.mark.parametrize("direction", ["push", "auto"])     # (a pull level writes as it finds)
def test_a_log_written_on_every_core(direction, unmarked):
    S, A = mesh(730, 730)
    for levels, parents in ((True, True), (True, False), (False, True)):
        check_bfs(S, A, 0, direction, levels=levels, parents=parents)


@pytest.mark.parametrize("way", ["unmarked", "marked"])
@pytest.mark.parametrize("target", [1, 50_000, 400 * 400 - 1])
def test_a_logged_run_stopped_at_its_target(target, way, request):
    """A target reached in the middle of a run of logged (or marked) levels: the values of
    every level the run searched are written, and nothing past the target's level."""
    request.getfixturevalue(way)
    S, A = mesh(400, 400)
    full = reference_levels(S, 0)
    res = ld.bfs(A, 0, direction="push", target=target)
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    expected = np.where(full <= full[target], full, -1)
    np.testing.assert_array_equal(levels, expected)
    np.testing.assert_array_equal(parents >= 0, expected >= 0)
    assert (full[parents[expected > 0]] == expected[expected > 0] - 1).all()


def test_a_frontier_of_unvisited_vertices_too_big_for_a_log():
    """A grammar frontier need not be visited: from all 64 vertices of a cycle, none visited,
    the first level finds all 64 again (frontier and found more than a log of 64 slots holds:
    claimed as it is), each by its first frontier in-neighbour, and the second finds none."""
    from lagraph_dist.core.direction import DirectionRule
    from lagraph_dist.local.layout import STOP_EMPTY
    n = 64
    S, A = symmetric(np.arange(n), (np.arange(n) + 1) % n, n)
    csr = A.block.by_col
    claimed = np.full(n, -1, np.int64)
    for u in range(n):
        for v in S.indices[S.indptr[u]:S.indptr[u + 1]]:
            if claimed[v] < 0:
                claimed[v] = u
    words, depth_words = np.zeros(n // 32, np.uint32), np.zeros(n // 32, np.uint32)
    parents, depths = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    records, frontier, _, reason = fused.bfs_fused(
        csr, csr, words, parents, depth_words, depths, 3, np.arange(n, dtype=np.int32), True,
        DirectionRule("push", n, A.nvals), n, (1 << 63) - 1, n, -1)
    assert reason == STOP_EMPTY and [r[:4] for r in records] == [(n, n, 2 * n, 1), (n, 0, 2 * n, 1)]
    np.testing.assert_array_equal(parents, claimed)
    np.testing.assert_array_equal(depths, np.full(n, 3))
    assert (words == 0xFFFFFFFF).all() and (depth_words == 0xFFFFFFFF).all() and frontier.shape[0] == 0
