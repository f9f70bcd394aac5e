"""levels.repeat_masked_vxm started at a source vertex (``source=``, q None): the engine makes the
search's start itself (on one rank inside the fused run's kernel, elsewhere with the start's
launch before the first product), over visited and depths that may hold anything before.
Checked against python-graphblas's levels and ld.validate, on every backend, fused and as
separate products; and the start's own corner cases."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.algebra.levels import RepeatLimits, repeat_masked_vxm, separate_levels
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.errors import DomainMismatch, IndexOutOfBound, InvalidValue
from lagraph_dist.semirings import any_pair, any_secondi
from helpers import BACKENDS, edge_graphs, edges_to_scipy, reference_levels

FUSED = [True, False]       # the fused run's start, or the separate products' (separate_levels)


def _outputs(A, *, parents, garbage):
    """visited and depths as a search's bitmaps; with ``garbage``, every word and value set
    first, which the start must clear."""
    visited, depths = Vector._unset(A.n, [np.int64 if parents else bool, np.int64], grid=A.grid, backend=A.backend)
    if garbage:
        for vector in (visited, depths):
            vector.part.words[...] = np.uint32(0xFFFFFFFF)
            vector.part.values[...] = 7
    return visited, depths


def _search(A, source, *, parents=True, fused=True, garbage=True, direction="auto", max_levels=None, target=None):
    visited, depths = _outputs(A, parents=parents, garbage=garbage)
    rule = DirectionRule(direction, A.n, A.nvals)
    limits = RepeatLimits(max_levels=A.n if max_levels is None else max_levels, target=target)
    if direction != "push":
        A.T.prepare_pull()
    semiring = any_secondi if parents else any_pair
    if fused:
        q, records = repeat_masked_vxm(None, A, semiring, visited, depths=depths, limits=limits, rule=rule,
                                       source=source)
    else:
        with separate_levels():
            q, records = repeat_masked_vxm(None, A, semiring, visited, depths=depths, limits=limits, rule=rule,
                                           source=source)
    return visited, depths, q, records


def _dense(vector, fill=-1):
    ids, values = vector.to_coo()
    out = np.full(vector.n, fill, dtype=np.int64)
    out[ids] = values
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fused", FUSED)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=edge_graphs(), parents=st.booleans(), direction=st.sampled_from(["push", "pull", "auto"]))
def test_started_search_matches_reference(backend, fused, graph, parents, direction):
    src, dst, n, symmetrize, source = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    visited, depths, q, records = _search(A, source, parents=parents, fused=fused, direction=direction)
    expected = reference_levels(S, source)
    levels = _dense(depths)
    np.testing.assert_array_equal(levels, expected)
    assert visited.nvals == int((expected >= 0).sum()) == depths.nvals
    np.testing.assert_array_equal(visited.to_coo()[0], np.flatnonzero(expected >= 0))
    if parents:
        got = _dense(visited)
        assert got[source] == source
        ld.validate(A, source, levels, got)
    else:
        assert visited.to_coo()[1].all()
    # one record a level that found something, and the last (empty) one
    assert len(records) == int(expected.max()) + 1
    assert q.nvals == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fused", FUSED)
def test_start_alone_when_no_level_runs(backend, fused):
    A = ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 40, backend=backend)
    for limits in ({"max_levels": 0}, {"target": 1}):
        visited, depths, q, records = _search(A, 1, fused=fused, direction="push", **limits)
        assert len(records) == 0
        np.testing.assert_array_equal(visited.to_coo()[0], [1])
        np.testing.assert_array_equal(_dense(visited)[1], 1)
        np.testing.assert_array_equal(depths.to_coo()[0], [1])
        np.testing.assert_array_equal(depths.to_coo()[1], [0])
        np.testing.assert_array_equal(q.to_coo()[0], [1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_at_an_isolated_vertex_and_a_limit(backend):
    A = ld.Matrix.from_edges([0, 1, 2, 3], [1, 2, 3, 4], 70, backend=backend)
    visited, depths, q, records = _search(A, 69)
    assert len(records) == 1 and visited.nvals == 1 and q.nvals == 0
    visited, depths, q, records = _search(A, 0, max_levels=2, direction="push")
    np.testing.assert_array_equal(_dense(depths)[:5], [0, 1, 2, -1, -1])
    np.testing.assert_array_equal(q.to_coo()[0], [2])     # the last level's result


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_needs_one_of_q_and_source_and_a_vertex(backend):
    A = ld.Matrix.from_edges([0], [1], 4, backend=backend)
    visited, depths = _outputs(A, parents=True, garbage=False)
    limits = RepeatLimits(max_levels=4)
    q = Vector.single(0, True, 4, dtype=bool, backend=backend)
    with pytest.raises(InvalidValue, match="one of the two"):
        repeat_masked_vxm(q, A, any_secondi, visited, depths=depths, limits=limits, source=0)
    with pytest.raises(InvalidValue, match="one of the two"):
        repeat_masked_vxm(None, A, any_secondi, visited, depths=depths, limits=limits)
    for bad, error in ((4, IndexOutOfBound), (-1, IndexOutOfBound), (1.0, DomainMismatch), (True, DomainMismatch)):
        with pytest.raises(error, match="source"):
            repeat_masked_vxm(None, A, any_secondi, visited, depths=depths, limits=limits, source=bad)


def _mesh_edges(side):
    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return src, dst, side * side


def _random_edges(n, m, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), n


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("graph", ["mesh", "wide-mesh", "random", "path"])
@pytest.mark.parametrize("block_edges", [0, None, 1 << 40])
@pytest.mark.parametrize("cache_visited", [True, False])
@pytest.mark.parametrize("push_cap", [None, 32])
def test_started_gpu_search_in_every_shape(graph, block_edges, cache_visited, push_cap, monkeypatch):
    """A search started in the fused kernel, through its block levels (never, by default,
    whenever they fit), with and without block 0's shared copy of the visited words, and with
    big push levels handed to the tile push (cap 32 edges): levels equal python-graphblas's,
    parents valid, and the depths' bits (copied from the visited words as each run exits)
    exactly the reached vertices."""
    from lagraph_dist.local.gpu_kernels import fused
    # (the wide mesh's block levels of 1,025-2,048 edges take a thread an entry: fused.cu's thin level)
    src, dst, n = {"mesh": lambda: _mesh_edges(60), "wide-mesh": lambda: _mesh_edges(400),
                   "random": lambda: _random_edges(3000, 9000, 7),
                   "path": lambda: (np.arange(499), np.arange(1, 500), 500)}[graph]()
    S = edges_to_scipy(src, dst, n, symmetrize=True)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="gpu")
    kernels = A.backend.kernels
    if push_cap is not None:
        monkeypatch.setattr(fused, "FUSED_MAX_PUSH_EDGES", push_cap)
    monkeypatch.setattr(kernels, "fused_block_edges", kernels.fused_block_edges if block_edges is None else block_edges)
    monkeypatch.setattr(kernels, "fused_cache_visited", cache_visited)
    for source in (0, n // 2):
        for direction in ("push", "auto"):
            visited, depths, q, records = _search(A, source, direction=direction)
            assert q.nvals == 0 and q.to_coo()[0].shape == (0,)      # the end made while the kernel ran
            expected = reference_levels(S, source)
            np.testing.assert_array_equal(_dense(depths), expected)
            reached = np.flatnonzero(expected >= 0)
            np.testing.assert_array_equal(depths.to_coo()[0], reached)
            np.testing.assert_array_equal(visited.to_coo()[0], reached)
            ld.validate(A, source, _dense(depths), _dense(visited))


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("blocks_per_sm", [1, 3, None])
@pytest.mark.parametrize("parents", [True, False])
def test_started_gpu_search_at_each_push_launch_shape(blocks_per_sm, parents, monkeypatch):
    """Push levels of more than 32 out-edges handed to push.cu in place, launched one block a
    multiprocessor, three, and by the policy (push.py's PUSH_BLOCKS_PER_SM; the level's tiles
    bound it), so that the warps' runs of tiles split differently: levels equal
    python-graphblas's and the result valid by the Graph500 rules, from the vertex of most edges
    and one of fewest."""
    from lagraph_dist.local.gpu_kernels import fused
    src, dst, n = _random_edges(30_000, 240_000, 11)
    S = edges_to_scipy(src, dst, n, symmetrize=True)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="gpu")
    monkeypatch.setattr(fused, "FUSED_MAX_PUSH_EDGES", 32)
    monkeypatch.setattr(A.backend.kernels, "push_blocks_per_sm", blocks_per_sm)
    degrees = np.diff(S.indptr)
    for source in (int(np.argmax(degrees)), int(np.argmin(np.where(degrees > 0, degrees, degrees.max() + 1)))):
        for direction in ("push", "auto"):
            visited, depths, _, _ = _search(A, source, parents=parents, direction=direction)
            np.testing.assert_array_equal(_dense(depths), reference_levels(S, source))
            ld.validate(A, source, _dense(depths), _dense(visited) if parents else None)


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_gpu_searches_take_outputs_made_while_the_last_one_ran(monkeypatch):
    """One GPU makes the next search's outputs while a search's kernel runs
    (``made_ahead``): the next search of the same graph takes them, no two results share
    memory (the first result reads the same after three more searches), a graph of another size
    gets its own, and outputs over ``settings.results_ahead_bytes`` are not held ahead."""
    from lagraph_dist.core.settings import settings as package_settings
    A = ld.kronecker(10, seed=2, backend="gpu")
    S = A.to_scipy()
    kernels = A.backend.kernels
    roots = [int(v) for v in np.flatnonzero(np.diff(S.indptr))[:4]]
    first = ld.bfs(A, roots[0])
    held_levels, held_parents = first.levels.to_numpy(), first.parents.to_numpy()
    made_ahead = [array.data.ptr for array in kernels._ahead[1][0]]      # (the search plan's four arrays)
    later = [ld.bfs(A, root) for root in roots[1:]]
    taken = [later[0].parents.part.words, later[0].parents.part.values, later[0].levels.part.words,
             later[0].levels.part.values]
    assert [array.data.ptr for array in taken] == made_ahead
    pointers = {result.levels.part.values.data.ptr for result in [first] + later}
    assert len(pointers) == len(roots)
    np.testing.assert_array_equal(first.levels.to_numpy(), held_levels)
    np.testing.assert_array_equal(first.parents.to_numpy(), held_parents)
    for root, result in zip(roots[1:], later):
        np.testing.assert_array_equal(result.levels.to_numpy(), reference_levels(S, root))
        ld.validate(A, root, result.levels.to_numpy(), result.parents.to_numpy())
    B = ld.kronecker(9, seed=2, backend="gpu")
    other = ld.bfs(B, 0, parents=False)
    assert other.levels.part.values.data.ptr not in made_ahead
    np.testing.assert_array_equal(other.levels.to_numpy(), reference_levels(B.to_scipy(), 0))
    monkeypatch.setattr(package_settings, "results_ahead_bytes", 1024)
    ld.bfs(A, roots[0])
    assert kernels._ahead is None


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("graph", ["kronecker", "handed", "path"])
def test_gpu_plan_search_is_the_engines_search(graph, monkeypatch):
    """``ld.bfs`` on one GPU runs the kernel set's ``search_plan`` (levels.search_from); the level
    engine's fused runs, on vectors made beforehand, reach the same levels, with parents one
    level up along an edge, the same counts and the same level records, with every output
    choice, direction, depth limit and target: on a Kronecker graph, the same with its big push
    levels handed to push.cu between runs, and a path deeper than two runs' FUSED_MAX_LEVELS
    (the plan goes on from where a run stopped, as the engine does). Checked against the
    reference's levels, cut at the limit or at the target's level."""
    from lagraph_dist.algebra import levels as engine_levels
    from lagraph_dist.local.gpu_kernels import fused
    from lagraph_dist.local.layout import FUSED_MAX_LEVELS
    if graph == "path":
        n = 2 * FUSED_MAX_LEVELS + 500
        A = ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, symmetrize=True, backend="gpu")
        source, depth_limit, target = 0, FUSED_MAX_LEVELS + 100, 2 * FUSED_MAX_LEVELS + 7
    else:
        A = ld.kronecker(14, seed=3, backend="gpu")
        source = int(np.argmax(A.out_degree().to_numpy()))
    S = A.to_scipy()
    expected = reference_levels(S, source)
    if graph != "path":
        depth_limit, target = 2, int(np.flatnonzero(expected == 3)[0])
    kernels = A.backend.kernels
    handed = []
    if graph == "handed":                 # (flat levels, at most 2,048 entries, stay in the kernel)
        monkeypatch.setattr(fused, "FUSED_MAX_PUSH_EDGES", 32)
        push_level = kernels._push_level
        monkeypatch.setattr(kernels, "_push_level", lambda *args: handed.append(1) or push_level(*args))
    for direction in ("push", "pull", "auto"):
        for limit, goal in ((None, None), (depth_limit, None), (None, target)):
            last = expected[target] if goal is not None else limit
            want = expected if last is None else np.where(expected <= last, expected, -1)
            for levels, parents in ((True, True), (True, False), (False, True)):
                kwargs = dict(levels=levels, parents=parents, direction=direction, depth_limit=limit, target=goal)
                planned = ld.bfs(A, source, **kwargs)
                with pytest.MonkeyPatch.context() as m:
                    m.setattr(engine_levels, "offers", lambda kernels, member: False)
                    by_engine = ld.bfs(A, source, **kwargs)
                for res in (planned, by_engine):
                    reached = np.flatnonzero(want >= 0)
                    if levels:
                        np.testing.assert_array_equal(res.levels.to_numpy(), want)
                        assert res.levels.nvals == reached.shape[0]
                    if parents:
                        got = res.parents.to_numpy()
                        np.testing.assert_array_equal(np.flatnonzero(got >= 0), reached)
                        assert res.parents.nvals == reached.shape[0] and got[source] == source
                        found = reached[reached != source]
                        np.testing.assert_array_equal(want[got[found]], want[found] - 1)
                        assert (np.asarray(S[got[found], found]).ravel() != 0).all()
                figures = ("level", "direction", "frontier", "discovered", "fused")
                assert ([[r[k] for k in figures] for r in planned.stats]
                        == [[r[k] for k in figures] for r in by_engine.stats])
                # (a pull level's examined edges depend on where its warps stop)
                assert ([r["edges_examined"] for r in planned.stats if r["direction"] == "push"]
                        == [r["edges_examined"] for r in by_engine.stats if r["direction"] == "push"])
    assert bool(handed) == (graph == "handed")


class _HostRunsAsTheGpus:
    """The GPU's SearchPlan's kernel set stood in for on the host: the CPU's fused run as
    ``bfs_fused`` (the same arguments and returns as the GPU's), numpy as ``cp``, the outputs
    made when asked; each run's levels counted."""

    cp = np

    def __init__(self):
        self.runs = []

    def made_ahead(self, key, make):
        return make()[0]

    def bfs_fused(self, *args, **kwargs):
        from lagraph_dist.local import cpu_kernels
        made = cpu_kernels.bfs_fused(*args, **kwargs)
        self.runs.append(len(made[0]))
        return made


@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
@pytest.mark.parametrize("depths", [True, False])
def test_gpu_plan_goes_on_past_a_runs_levels(direction, depths):
    """The GPU's search plan (gpu_kernels.fused.SearchPlan, its runs made here by the host's fused
    run, which takes the same arguments) on a path deeper than two runs of FUSED_MAX_LEVELS:
    the search goes on from the frontier each run left, in runs of at most that many levels, to
    the reference's levels and parents along the path, its records one a level; and it stops at
    a level limit past the first run and at a target in the third."""
    from lagraph_dist.algebra import levels
    from lagraph_dist.local.cpu_kernels.bitmap import list_from_bitmap
    from lagraph_dist.local.gpu_kernels.fused import SearchPlan
    from lagraph_dist.local.layout import FUSED_MAX_LEVELS, STOP_EMPTY, STOP_LEVELS, STOP_TARGET
    n = 2 * FUSED_MAX_LEVELS + 500
    A = ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, symmetrize=True, backend="cpu")
    kernels = _HostRunsAsTheGpus()
    rule = DirectionRule(direction, A.n, A.nvals)
    out_csr, in_csr = levels._search_blocks(A, rule)
    plan = SearchPlan(kernels, out_csr, in_csr, A.layout.block_len, positional=True, depths=depths, rule=rule,
                      workspace=levels._fused_workspace(A))
    source = 3
    for max_levels, target, last, reason in ((n, -1, n - 1 - source, STOP_EMPTY),
                                             (FUSED_MAX_LEVELS + 100, -1, FUSED_MAX_LEVELS + 100, STOP_LEVELS),
                                             (n, 2 * FUSED_MAX_LEVELS + 7, 2 * FUSED_MAX_LEVELS + 7 - source,
                                              STOP_TARGET)):
        kernels.runs.clear()
        rule = DirectionRule(direction, A.n, A.nvals)
        words, parents, depth_words, kept, records, stopped = plan(source, rule, A.n, 1 << 62, max_levels, target)
        reached = list_from_bitmap(words)
        np.testing.assert_array_equal(reached, np.arange(max(source - last, 0), source + last + 1))
        assert stopped == reason and records.discovered == reached.shape[0] - 1
        found = reached[reached != source]
        np.testing.assert_array_equal(parents[found], found + np.where(found < source, 1, -1))
        assert parents[source] == source
        assert (depth_words is None) == (kept is None) == (not depths)
        if depths:
            np.testing.assert_array_equal(list_from_bitmap(depth_words), reached)
            np.testing.assert_array_equal(kept[reached], np.abs(reached - source))
        # runs of the cap, then the rest; a record a level (the path's last level finds nothing)
        ran = last + (reason == STOP_EMPTY)
        assert kernels.runs == [FUSED_MAX_LEVELS] * (ran // FUSED_MAX_LEVELS) + [ran % FUSED_MAX_LEVELS] * bool(
            ran % FUSED_MAX_LEVELS)
        assert len(records) == ran and [r[1] for r in records][:3] == [2, 2, 2]


def _hubs_and_leaves(hubs, leaves, shared):
    """Vertex 0 joined to ``hubs`` hubs (1..hubs), leaf i joined to hub (i mod hubs), and the
    first ``shared`` leaves to the next hub too: (src, dst, n). From vertex 0 a search's second
    level is the hubs' flat push of ``leaves + shared`` edges, each leaf found there."""
    hub = 1 + np.arange(leaves) % hubs
    leaf = 1 + hubs + np.arange(leaves)
    src = np.concatenate([np.zeros(hubs, np.int64), hub, 1 + hub[:shared] % hubs])
    dst = np.concatenate([1 + np.arange(hubs), leaf, leaf[:shared]])
    return src, dst, 1 + hubs + leaves


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("blocks_per_sm", [None, 2])
def test_a_flat_level_of_a_million_finds(backend, blocks_per_sm):
    """A flat push level (16 entries, 1,040,000 edges, under the fused run's hand-over to
    push.cu) that finds a million vertices: on one GPU each warp stages some 250-500 finds and
    flushes its stage within the level, in the one- and the two-block build. Every leaf is at
    depth 2 with one of its own hubs as its parent, the hubs at depth 1 under vertex 0."""
    if backend == "cpu" and blocks_per_sm is not None:
        pytest.skip("blocks a multiprocessor are the GPU's")
    hubs, leaves, shared = 16, 1_000_000, 40_000
    src, dst, n = _hubs_and_leaves(hubs, leaves, shared)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend=backend)
    if blocks_per_sm is not None:
        A.backend.kernels.fused_blocks_per_sm = blocks_per_sm
    try:
        res = ld.bfs(A, 0, direction="push")
    finally:
        if blocks_per_sm is not None:
            A.backend.kernels.fused_blocks_per_sm = None
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    expected = np.full(n, 2, dtype=np.int64)
    expected[0], expected[1:1 + hubs] = 0, 1
    np.testing.assert_array_equal(levels, expected)
    leaf_ids = np.arange(leaves)
    first_hub = 1 + leaf_ids % hubs
    np.testing.assert_array_equal(parents[:1 + hubs], np.zeros(1 + hubs, dtype=np.int64))
    own = parents[1 + hubs:]
    assert ((own == first_hub) | ((leaf_ids < shared) & (own == 1 + first_hub % hubs))).all()
    level_two = res.stats[1]
    assert (level_two["frontier"], level_two["discovered"]) == (hubs, leaves)
