"""A marked search's thin levels shared by two threads (cpu_kernels.fused._two_thread_levels,
meeting at cpu_kernels.spin's barrier): the same levels as scipy's, parents that pass the
Graph500 checks, and the same level records as the one-thread levels, for every output choice,
direction and depth limit. ``fused.TWO_THREAD_FRONTIER`` and ``TWO_THREAD_VERTICES`` are lowered
here so that small graphs' levels take the two-thread path (the benchmarks' meshes take it at
the package's values)."""
import numba
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.local.cpu_kernels import fused, spin


pytestmark = [pytest.mark.usefixtures("fused_searches_in_module"),      # (tests of the fused search)
              pytest.mark.skipif(not spin.two_threads_at_once(),
                                 reason="two threads of a numba parallel region do not run at once here "
                                        "(one core, one numba thread, or a work-stealing threading layer)")]

FIGURES = ("level", "direction", "frontier", "discovered", "edges_examined")
OUTPUTS = ((True, True), (True, False), (False, True))


def mesh(rows, cols, seed=None):
    """A rows x cols mesh, its vertices numbered row by row, or at random with ``seed``."""
    ids = np.arange(rows * cols).reshape(rows, cols)
    if seed is not None:
        ids = np.random.default_rng(seed).permutation(rows * cols).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    S = sp.csr_matrix((np.ones(2 * src.shape[0], np.int8), (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                      shape=(rows * cols, rows * cols))
    return S, ld.Matrix.from_scipy(S, backend="cpu")


def searches(A, source, frontier, **options):
    """Every output choice's (levels, parents, records) with the two-thread levels from
    ``frontier`` vertices (None: never), the search marked."""
    out = []
    with ld.settings.changed(marked_searches="always"):
        saved = fused.TWO_THREAD_FRONTIER, fused.TWO_THREAD_VERTICES
        fused.TWO_THREAD_FRONTIER, fused.TWO_THREAD_VERTICES = frontier, 0
        try:
            for levels, parents in OUTPUTS:
                res = ld.bfs(A, source, levels=levels, parents=parents, **options)
                out.append((None if res.levels is None else res.levels.to_numpy(),
                            None if res.parents is None else res.parents.to_numpy(),
                            [[r[k] for k in FIGURES] for r in res.stats]))
        finally:
            fused.TWO_THREAD_FRONTIER, fused.TWO_THREAD_VERTICES = saved
    return out


def check(S, A, source, frontier, **options):
    expected = csgraph.shortest_path(S, indices=source, unweighted=True)
    expected = np.where(np.isinf(expected), -1, expected).astype(np.int64)
    depth_limit = options.get("depth_limit")
    if depth_limit is not None:
        expected[expected > depth_limit] = -1
    two, one = searches(A, source, frontier, **options), searches(A, source, None, **options)
    for (levels, parents, records), (_, _, one_records) in zip(two, one):
        assert records == one_records
        if levels is not None:
            np.testing.assert_array_equal(levels, expected)
        if parents is not None:
            np.testing.assert_array_equal(parents >= 0, expected >= 0)
            if depth_limit is None:
                ld.validate(A, source, expected, parents)
            else:       # (validate wants a whole search): each parent one level up, along an edge
                found = np.flatnonzero((parents >= 0) & (np.arange(parents.shape[0]) != source))
                np.testing.assert_array_equal(expected[parents[found]], expected[found] - 1)
                assert np.all(S[parents[found], found] != 0)


@pytest.mark.parametrize("direction", ("push", "auto"))
@pytest.mark.parametrize("shape, source, seed", [
    ((120, 90), 0, None),                 # from the corner: frontiers grow, then shrink
    ((100, 100), 50 * 100 + 50, None),    # from the middle: a diamond
    ((60, 300), 0, 3),                    # numbered at random: every level's finds far apart
])
def test_mesh_levels_on_two_threads(shape, source, seed, direction):
    S, A = mesh(*shape, seed)
    check(S, A, source, 8, direction=direction)


def test_a_depth_limit_inside_the_two_thread_levels():
    S, A = mesh(80, 80)
    check(S, A, 0, 8, depth_limit=37)


def test_the_policy_frontier_on_a_big_mesh():
    """At the package's own TWO_THREAD_FRONTIER: a 400 x 400 mesh's levels of 256 vertices and
    more run on two threads, the others on one."""
    S, A = mesh(400, 400)
    assert A.n >= fused.TWO_THREAD_VERTICES
    check(S, A, 0, fused.TWO_THREAD_FRONTIER)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 40), cols=st.integers(1, 40), extra=st.integers(0, 200), seed=st.integers(0, 2**31),
       frontier=st.integers(2, 12), directed=st.booleans(), data=st.data())
def test_random_thin_graphs(rows, cols, extra, seed, frontier, directed, data):
    """Meshes with random extra edges (shortcuts that make two threads claim one vertex in one
    level), undirected or with each edge one way only, from a random source."""
    rng = np.random.default_rng(seed)
    n = rows * cols
    ids = np.arange(n).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel(), rng.integers(0, n, extra)])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel(), rng.integers(0, n, extra)])
    if not directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    # (float64: an edge drawn hundreds of times sums past int8, and scipy then warns of negative weights)
    S = sp.csr_matrix((np.ones(src.shape[0]), (src, dst)), shape=(n, n))
    S.sum_duplicates()
    A = ld.Matrix.from_scipy(S, backend="cpu")
    check(S, A, data.draw(st.integers(0, n - 1)), frontier, direction=data.draw(st.sampled_from(("push", "auto"))))


def test_one_numba_thread_takes_one_thread_levels():
    """With one numba thread (as under mpiexec, the cores shared among ranks) no level is shared;
    nor on a small graph, nor in an unmarked search (no marks)."""
    big = np.zeros(fused.TWO_THREAD_VERTICES, np.int64)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert not spin.two_threads_at_once()
        assert fused._two_thread_from(big) == 0
    finally:
        numba.set_num_threads(threads)
    assert fused._two_thread_from(big) == fused.TWO_THREAD_FRONTIER
    assert fused._two_thread_from(big[:-1]) == 0
    assert fused._two_thread_from(big[:0]) == 0


@pytest.mark.parametrize("environment", [{"OMP_DYNAMIC": "true"}, {"OMP_THREAD_LIMIT": "1"}])
def test_openmp_that_may_give_fewer_threads_takes_one_thread_levels(monkeypatch, environment):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert not spin.two_threads_at_once()


def test_the_barrier_orders_the_threads_stores():
    """Each thread writes its round number, passes the barrier and reads the other's: always the
    same round (a barrier that let a thread through early would show the round before)."""
    wrong, tired = _barrier_rounds(np.zeros(64, np.int64), np.zeros(16, np.int64), 20_000, 1 << 56, 0)
    assert wrong.tolist() == [0, 0]
    assert tired.tolist() == [0, 0]


def test_a_thread_that_waits_out_its_patience_says_so():
    """Thread 1 arrives late (a long loop first, its progress count standing still): the thread
    that waits, whose patience is 0 ticks, says it waited it out, and the one that finds the
    barrier passed does not; with a patience of years neither does. (Which one waits is the
    machine's: thread 0 as a rule, but on a busy machine thread 0 can start after thread 1's
    loop ends, as it did once under CI's two test workers.)"""
    for patience, tired_threads in ((0, 1), (1 << 56, 0)):
        wrong, tired = _barrier_rounds(np.zeros(64, np.int64), np.zeros(16, np.int64), 1, patience, 20_000_000)
        assert wrong.tolist() == [0, 0]
        assert sorted(tired.tolist()) == [0] * (2 - tired_threads) + [1] * tired_threads


@numba.njit(parallel=True)
def _barrier_rounds(control, slots, rounds, patience, late):
    wrong, tired = np.zeros(2, np.int64), np.zeros(2, np.int64)
    for t in numba.prange(2):
        spent = 0
        for k in range(late * t):          # (thread 1 comes late)
            spent += k & 7
        slots[8 * t + 1] = spent
        arrivals = 0
        for r in range(1, rounds + 1):
            slots[8 * t] = r
            arrivals += 2
            tired[t] |= spin.barrier(control, arrivals, patience, slots, 8 * (1 - t) + 2)
            if slots[8 * (1 - t)] != r:
                wrong[t] += 1
            arrivals += 2
            spin.barrier(control, arrivals, patience, slots, 8 * (1 - t) + 2)
    return wrong, tired
