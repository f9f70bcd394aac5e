"""The compiled CPU search's queue levels (cpu_kernels.fused): a thin level claims with a branch
as it reads (_push_branching), a wider one lists the neighbours whose bit is clear before it
claims them (_push_listing), unless it has more edges than the queues have slots (K(40, 40)'s
second level: 1,600 edges, 80 vertices); either way each found vertex's parent is its first
frontier in-neighbour in the frontier's order, which on a push-only search of small levels is
what a FIFO queue BFS gives. On a graph of LOGGED_VERTICES or more a run of thin levels claims
into a log and writes the values of what it found when it leaves it (_thin_levels, the 400 x
400 mesh), on every core when they are PARALLEL_LOGGED or more (the 730 x 730 mesh)."""
import collections

import numpy as np
import pytest
import scipy.sparse as sp

import lagraph_dist as ld
from helpers import DIRECTIONS, check_bfs, reference_levels


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


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_queue_levels_are_the_search(case, direction):
    make, source = CASES[case]
    S, A = make()
    for levels, parents in ((True, True), (True, False), (False, True)):
        check_bfs(S, A, source, direction, levels=levels, parents=parents)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_push_parent_is_the_first_frontier_in_neighbour(case):
    make, source = CASES[case]
    S, A = make()
    res = ld.bfs(A, source, direction="push")
    np.testing.assert_array_equal(res.parents.to_numpy(), fifo_parents(S, source))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_both_ways_of_a_queue_level_claim_the_same(seed):
    """_push_listing and _push_branching, from the same frontier and visited bits, find the same
    vertices in the same order with the same parents, depths and bits (a level too wide for the
    queues to list branches instead)."""
    from lagraph_dist.local.cpu_kernels import fused
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
                               depth_words, depths, 7)
        got.append((nxt[:found].tolist(), edges, parents.tolist(), depths.tolist(), words.tolist(),
                    depth_words.tolist()))
    assert got[0] == got[1] and len(got[0][0]) > 100 and slots > n


def test_the_meshes_are_searched_through_the_log():
    from lagraph_dist.local.cpu_kernels import fused
    assert 160_000 >= fused.LOGGED_VERTICES and 730 * 730 - 1 >= fused.PARALLEL_LOGGED > 160_000


@pytest.mark.parametrize("direction", ["push", "auto"])     # (a pull level writes as it finds)
def test_a_log_written_on_every_core(direction):
    S, A = mesh(730, 730)
    for levels, parents in ((True, True), (False, True)):
        check_bfs(S, A, 0, direction, levels=levels, parents=parents)


@pytest.mark.parametrize("target", [1, 50_000, 400 * 400 - 1])
def test_a_logged_run_stopped_at_its_target(target):
    """A target reached in the middle of a run of logged levels: the values of every level the
    run searched are written, and nothing past the target's level."""
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
    from lagraph_dist.local.cpu_kernels import fused
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
