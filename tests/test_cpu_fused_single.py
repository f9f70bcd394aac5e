"""The compiled CPU search's levels of a one-vertex frontier (cpu_kernels.fused._single_levels):
a path's levels run in a loop of their own; what they find, their records and where a run of
them stops must be what the general level loop gives."""
import numpy as np
import pytest
import scipy.sparse as sp

import lagraph_dist as ld
from graphs import grid_edges
from helpers import DIRECTIONS, check_bfs, reference_levels

fused = pytest.importorskip("lagraph_dist.local.cpu_kernels.fused")

from lagraph_dist.core.direction import DirectionRule  # noqa: E402
from lagraph_dist.local.layout import STOP_EMPTY, STOP_LEVELS, STOP_TARGET, STOP_TOO_BIG  # noqa: E402


pytestmark = pytest.mark.usefixtures("fused_searches_in_module")     # (tests of the fused search)


def graph(src, dst, n, symmetric=True):
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    if symmetric:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    S = sp.csr_matrix((np.ones(src.shape[0], np.int8), (src, dst)), shape=(n, n))
    S.sum_duplicates()
    return S, ld.Matrix.from_scipy(S, backend="cpu")


def path(n, symmetric=True):
    return graph(np.arange(n - 1), np.arange(1, n), n, symmetric)


def broom(handle, bristles):
    """A path of ``handle`` vertices whose last one is joined to ``bristles`` leaves: levels of
    one vertex, then one that finds many."""
    n = handle + bristles
    src = np.concatenate([np.arange(handle - 1), np.full(bristles, handle - 1)])
    dst = np.concatenate([np.arange(1, handle), np.arange(handle, n)])
    return graph(src, dst, n)


def knot(width, tail):
    """The source joined to ``width`` vertices, each joined to one vertex that starts a path of
    ``tail``: a wide level (a pull when the rule says so), then one-vertex levels again."""
    n = 1 + width + tail
    hub = 1 + width
    src = np.concatenate([np.zeros(width, np.int64), np.arange(1, hub), np.arange(hub, n - 1)])
    dst = np.concatenate([np.arange(1, hub), np.full(width, hub), np.arange(hub + 1, n)])
    return graph(src, dst, n)


CASES = {
    "path from its end": (lambda: path(3000), 0),
    "path from its middle": (lambda: path(3000), 1500),
    "directed path": (lambda: path(3000, symmetric=False), 0),
    "broom": (lambda: broom(500, 3000), 0),
    "knot": (lambda: knot(3000, 800), 0),
}


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_one_vertex_levels_are_the_search(case, direction):
    """Levels equal the reference, parents Graph500-valid, each level's record right (frontier,
    discovered, edges of a push), and every level timed: alone, or as part of a run of
    one-vertex levels whose last record holds the run's length and seconds."""
    make, source = CASES[case]
    S, A = make()
    res = check_bfs(S, A, source, direction)
    if fused.seconds_per_tick() is not None:
        check_timing(res.stats)


def check_timing(stats):
    """Each level is timed alone (``seconds`` > 0) or within the run its None-seconds streak
    ends in: the run's last record says how many levels it covers, and its seconds are > 0."""
    streak = 0
    for r in stats:
        if r["seconds"] is not None:
            assert r["seconds"] > 0 and "run_levels" not in r and streak == 0
            continue
        streak += 1
        if "run_levels" in r:
            assert r["run_levels"] == streak >= 2 and r["run_seconds"] > 0
            streak = 0
    assert streak == 0, "a run's levels end without the run's record"


def test_a_path_is_one_run_and_a_wide_level_is_timed_alone():
    """The clock is read once a run of one-vertex levels (10-22 ns a read, more than such a
    level): the whole path is one run, from the source; the broom's handle is one (499 levels:
    the handle's end, with 3,001 out-edges, is past the run's edge limit), and the two wide
    levels after it are timed alone."""
    if fused.seconds_per_tick() is None:
        pytest.skip("this machine has no tick counter the CPU kernels read")
    S, A = path(3000)
    stats = ld.bfs(A, 0).stats
    assert [r.get("run_levels") for r in stats if "run_levels" in r] == [len(stats)] == [3000]
    assert ld.measured_seconds(stats[-1]) == stats[-1]["run_seconds"] > 0
    assert sum(map(ld.measured_seconds, stats)) == stats[-1]["run_seconds"]
    S, A = broom(500, 3000)
    stats = ld.bfs(A, 0, direction="push").stats
    check_timing(stats)
    assert [r.get("run_levels") for r in stats if "run_levels" in r] == [499]
    assert [r["frontier"] for r in stats[-2:]] == [1, 3000] and all(r["seconds"] > 0 for r in stats[-2:])


def run(A, source, max_levels=None, max_frontier=None, max_edges=None, target=-1, mode="auto"):
    """bfs_fused straight from ``source``, levels and parents kept: (depths, parents, records,
    frontier, why it stopped)."""
    n, csr = A.n, A.block.by_col
    words = np.zeros(-(-n // 32), np.uint32)
    words[source >> 5] = np.uint32(1) << np.uint32(source & 31)
    parents, depths = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    parents[source], depths[source] = source, 0
    rule = DirectionRule(mode, n, A.nvals)
    records, frontier, _, reason = fused.bfs_fused(
        csr, csr, words, parents, words.copy(), depths, 1, np.array([source], np.int32), True, rule,
        n if max_frontier is None else max_frontier, (1 << 63) - 1 if max_edges is None else max_edges,
        n if max_levels is None else max_levels, target)
    return depths, parents, list(records), frontier, reason


def test_a_run_of_one_vertex_levels_stops_where_asked():
    """Room for 5 levels: 5 run, the frontier the 6th vertex; a frontier cap of none: one
    level; a push of more edges than allowed: not run; a target: the level that reaches it."""
    _, A = path(100)
    depths, parents, records, frontier, reason = run(A, 0, max_levels=5)
    assert reason == STOP_LEVELS and len(records) == 5 and frontier.tolist() == [5]
    assert depths[:7].tolist() == [0, 1, 2, 3, 4, 5, -1] and parents[1:6].tolist() == [0, 1, 2, 3, 4]
    assert [r[:4] for r in records] == [(1, 1, 1 if k == 0 else 2, 1) for k in range(5)]

    _, _, records, frontier, reason = run(A, 0, max_frontier=0)
    assert reason == STOP_TOO_BIG and len(records) == 1 and frontier.tolist() == [1]

    _, _, records, frontier, reason = run(A, 0, max_edges=1)    # vertex 1 has 2 out-edges
    assert reason == STOP_TOO_BIG and len(records) == 1 and frontier.tolist() == [1]

    depths, _, records, frontier, reason = run(A, 0, target=40)
    assert reason == STOP_TARGET and len(records) == 40 and frontier.tolist() == [40] and depths[41] == -1

    depths, _, records, frontier, reason = run(A, 0)
    assert reason == STOP_EMPTY and len(records) == 100 and frontier.shape[0] == 0
    assert records[-1][:4] == (1, 0, 1, 1)                        # the level that empties it
    np.testing.assert_array_equal(depths, np.arange(100))


def test_the_rule_is_asked_once_a_level():
    """From a wide level back to one vertex: the rule's state after the run is the one its
    choose gives level by level (a DirectionRule subclass makes bfs_fused ask it from Python)."""
    S, A = knot(3000, 50)

    class Asked(DirectionRule):
        def choose(self, nf, edges):
            return super().choose(nf, edges)

    stock, asked = DirectionRule("auto", A.n, A.nvals), Asked("auto", A.n, A.nvals)
    for rule in (stock, asked):
        words = np.zeros(-(-A.n // 32), np.uint32)
        words[0] = 1
        depths = np.full(A.n, -1, np.int64)
        depths[0] = 0
        csr = A.block.by_col
        A.T.prepare_pull()
        records, _, _, reason = fused.bfs_fused(csr, A.block.by_row, words, np.zeros(A.n, np.int64), words.copy(),
                                                depths, 1, np.zeros(1, np.int32), True, rule, A.n, (1 << 63) - 1,
                                                A.n, -1)
        np.testing.assert_array_equal(depths, reference_levels(S, 0))
        rule.directions = [r[3] for r in records]
    assert stock.directions == asked.directions and 0 in stock.directions
    assert (stock.push, stock.previous, stock.unexplored) == (asked.push, asked.previous, asked.unexplored)


# -- the thin levels' loop on a graph numbered locally ------------------------------------------------
def mesh(rows, cols):
    (src, dst), n = grid_edges(rows, cols)
    return graph(src, dst, n)


def test_a_mesh_is_numbered_locally_a_kronecker_graph_is_not():
    """The median |u - v| of sampled edges: a mesh's rows (1 or cols apart) are local, a path's
    too (and a graph without edges); Kronecker's permuted labels and a random relabelling of the
    mesh are not. The block keeps the answer (worked out once)."""
    S, A = mesh(300, 200)
    assert fused.local_numbering(A.block.by_col)
    assert fused.thin_edges(A.block.by_col) == fused.LOCAL_THIN_EDGES
    assert A.block.by_col.derived["thin_edges"] == fused.LOCAL_THIN_EDGES
    assert fused.local_numbering(path(5000)[1].block.by_col)
    K = ld.kronecker(13, backend="cpu")
    assert not fused.local_numbering(K.block.by_col)
    assert fused.thin_edges(K.block.by_col) == fused.THIN_EDGES
    relabel = np.random.default_rng(1).permutation(S.shape[0])
    shuffled = S[relabel][:, relabel].tocsr()
    assert not fused.local_numbering(ld.Matrix.from_scipy(shuffled, backend="cpu").block.by_col)
    assert fused.local_numbering(ld.Matrix.from_scipy(sp.csr_matrix((5, 5)), backend="cpu").block.by_col)


@pytest.mark.parametrize("threshold", ["THIN_EDGES", "LOCAL_THIN_EDGES"])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_mesh_levels_the_same_in_either_loop(threshold, direction):
    """A mesh's levels of 1,000 to 8,000 out-edges in the thin levels' loop or as wide levels:
    levels equal to scipy's and parents a BFS tree either way."""
    S, A = mesh(400, 300)
    A.block.by_col.derived["thin_edges"] = getattr(fused, threshold)
    res = check_bfs(S, A, 0, direction)
    assert max(r["edges_examined"] for r in res.stats) > fused.THIN_EDGES


def test_a_run_of_one_vertex_levels_keeps_each_levels_out_edges():
    """The levels of a one-vertex run but its last keep only their out-edges, as spans of
    equal ones: a directed path whose even vertices also point two back (out-degrees 1, 2, 1,
    2, ...: a span a level) gives each level its own row when read, timed with its run."""
    n = 60
    src = list(range(n - 1)) + list(range(2, n, 2))
    dst = list(range(1, n)) + [k - 2 for k in range(2, n, 2)]
    _, A = graph(src, dst, n, symmetric=False)
    out_degree = [1 + (k % 2 == 0 and k >= 2) if k < n - 1 else 0 for k in range(n)]
    depths, _, records, _, reason = run(A, 0, mode="push")
    assert reason == STOP_EMPTY and len(records) == n
    assert [r[:4] for r in records] == [(1, int(k < n - 1), out_degree[k], 1) for k in range(n)]
    assert all(np.isnan(r[4]) for r in records[:-1]) and records[-1][4] > 0
    np.testing.assert_array_equal(depths, np.arange(n))
