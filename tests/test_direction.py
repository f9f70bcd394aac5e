"""Beamer's push/pull rule has one home, lagraph_dist.core.direction.DirectionRule: ld.bfs, ld.bfs_multi
and the python-graphblas reference all ask it, so changing it changes every search, and the
reference takes the same directions as ld.bfs from the same counts and defaults."""
import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.tools import reference
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.algebra.levels import RepeatLimits, repeat_masked_vxm
from lagraph_dist.algebra.vector import Vector
from helpers import BACKENDS, edges_to_scipy

gb = pytest.importorskip("graphblas")


def random_digraph(n=2000, m=20000, seed=1, hub=0):
    """Dense enough for Beamer's rule to go pull and back; vertex 0 has ``hub`` more out-edges."""
    rng = np.random.default_rng(seed)
    src = np.concatenate([rng.integers(0, n, m), np.zeros(hub, dtype=np.int64)])
    dst = np.concatenate([rng.integers(0, n, m), rng.choice(n, hub, replace=False)])
    return edges_to_scipy(src, dst, n)


def reference_directions(monkeypatch, S, source):
    """(levels, the push (True) / pull choice of each level) of reference.bfs(direction="pushpull")."""
    chosen = []

    def record(q, push):
        chosen.append(push)
        q.ss.config["sparsity_control"] = ["sparse"] if push else ["bitmap"]
    monkeypatch.setattr(reference, "_set_frontier_format", record)
    levels, _ = reference.bfs(S, source, direction="pushpull")
    return levels, chosen


@pytest.mark.usefixtures("fused_single_searches")      # (Beamer's rule: not the small graphs' queue search)
@pytest.mark.parametrize("graph", [dict(), dict(m=4000, hub=600)], ids=["random", "hub source"])
def test_the_reference_takes_the_directions_of_ld_bfs(monkeypatch, graph):
    """The same counts (frontier size, its out-edges) and the same defaults: the same choices
    level by level, pull among them (a source of many out-edges is pushed from, as ld.bfs does)."""
    S = random_digraph(**graph)
    levels, chosen = reference_directions(monkeypatch, S, 0)
    ours = ld.bfs(ld.Matrix.from_scipy(S, backend="cpu"), 0, direction="auto")
    np.testing.assert_array_equal(ours.levels.to_numpy(), levels)
    assert ["push" if push else "pull" for push in chosen] == [s["direction"] for s in ours.stats]
    assert False in chosen


def test_changing_the_rule_changes_every_search(monkeypatch):
    """A rule that pulls at every level makes ld.bfs, ld.bfs_multi and the reference pull at
    every level, and their levels stay scipy's."""
    monkeypatch.setattr(DirectionRule, "choose", lambda self, nvals, edges, unexplored=None: False)
    S = random_digraph(n=300, m=900, seed=4)
    expected = reference.bfs_levels_scipy(S, 3)
    A = ld.Matrix.from_scipy(S, backend="cpu")
    single = ld.bfs(A, 3, direction="auto")
    multi = ld.bfs_multi(A, [3, 7], direction="auto")
    levels, chosen = reference_directions(monkeypatch, S, 3)
    assert {s["direction"] for s in single.stats} == {"pull"}
    assert {s["direction"] for s in multi.stats} == {"pull"}
    assert chosen and not any(chosen)
    for found in (single.levels.to_numpy(), multi.levels.to_numpy()[0], levels):
        np.testing.assert_array_equal(found, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("on", ["class", "instance"])
def test_a_replaced_rule_is_asked_every_level_on_every_backend(monkeypatch, backend, on):
    """A rule whose choose is replaced (the class's, or one rule's own) is asked once a level
    on both backends and its choice taken: the GPU's fused kernel, which evaluates only the
    stock arithmetic, is not used for it; the CPU's asks it level by level."""
    S = random_digraph(n=300, m=900, seed=5)
    A = ld.Matrix.from_scipy(S, backend=backend)
    A.T.prepare_pull()
    asked = []

    def alternate(self, nvals, edges, unexplored=None):
        asked.append(nvals)
        return len(asked) % 2 == 1            # push, pull, push, ...
    rule = DirectionRule("auto", A.n, A.nvals)
    if on == "class":
        monkeypatch.setattr(DirectionRule, "choose", alternate)
    else:
        rule.choose = alternate.__get__(rule)
    assert rule.replaced and DirectionRule("auto", 1, 1).replaced == (on == "class")
    visited, depths = Vector._unset(A.n, (bool, np.int64), grid=A.grid, backend=A.backend)
    _, records = repeat_masked_vxm(None, A, "any_pair", visited, depths=depths,
                                   limits=RepeatLimits(max_levels=A.n), rule=rule, source=3)
    assert [r.push for r in records] == [k % 2 == 0 for k in range(len(records))]
    assert len(asked) == len(records) > 2
    np.testing.assert_array_equal(depths.to_numpy(), reference.bfs_levels_scipy(S, 3))


def test_bfs_multi_hands_the_rule_the_edges_some_search_has_still_to_explore(monkeypatch):
    """Each level, bfs_multi tells the rule the out-edges of the vertices that not every search
    has reached yet (counted here from its levels and scipy's out-degrees)."""
    told = []
    original = DirectionRule.choose

    def spy(self, nvals, edges, unexplored=None):
        told.append(unexplored)
        return original(self, nvals, edges, unexplored)
    monkeypatch.setattr(DirectionRule, "choose", spy)
    S = random_digraph(n=500, m=3000, seed=2)
    res = ld.bfs_multi(ld.Matrix.from_scipy(S, backend="cpu"), [0, 1, 2], direction="auto")
    levels = res.levels.to_numpy()
    degree = np.diff(S.indptr)
    everyone = np.where((levels >= 0).all(axis=0), levels.max(axis=0), np.iinfo(np.int64).max)
    expected = [int(S.nnz - degree[everyone <= depth].sum()) for depth in range(len(told))]
    assert told == expected


def test_a_count_handed_over_replaces_the_rules_own():
    counted, told = DirectionRule("auto", 100, 1000), DirectionRule("auto", 100, 1000)
    assert counted.choose(1, 5) and told.choose(1, 5, unexplored=900)     # the sources' level
    assert counted.choose(10, 100)              # 100 edges of 900 unexplored: push on
    assert counted.unexplored == 900
    assert not told.choose(10, 100, unexplored=700)      # 100 > 700 / 8: pull
    assert told.unexplored == 700

