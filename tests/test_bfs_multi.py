"""ld.bfs_multi in one process: every row equals what a single-source search gives (levels from
scipy.sparse.csgraph and from ld.bfs, parents valid by ld.validate), on generated, Kronecker and
real graphs, in every direction and batch size; the frontier-matrix product against scipy's
boolean product; the kernels' numpy twins against each other and (marker gpu) the CUDA kernels
against the twins; batch sizing by memory; bad input."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.core.settings import settings as ld_settings
from lagraph_dist.local import fit
from lagraph_dist.local import cpu_kernels
from lagraph_dist.algebra import memory
from lagraph_dist.algebra import multi
from lagraph_dist.local import wire
from lagraph_dist.comm.grid import IdMap
from lagraph_dist.local.engine import LevelPlanes
from lagraph_dist.local.parts import LocalCSR
from extras_checks import check_tree, hop_levels, truncated
from helpers import (BACKENDS, DIRECTIONS, data_file, data_params, edge_graphs, edges_to_scipy, needs_mpi,
                     read_scipy_pattern, real_graphs, run_mpi)

GPU_ONLY = [pytest.mark.gpu, pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")]


def check_rows(A, S, sources, res, *, depth_limit=None):
    """Every row: levels = csgraph's hop distances (truncated at the limit), parents a BFS tree
    (ld.validate for full searches, the independent tree check for limited ones)."""
    expected = hop_levels(S, sources)
    if depth_limit is not None:
        expected = truncated(expected, depth_limit)
    k = len(sources)
    levels = res.levels.to_numpy() if res.levels is not None else None
    parents = res.parents.to_numpy() if res.parents is not None else None
    if levels is not None:
        assert levels.dtype == np.int64 and levels.shape == (k, A.n)
        np.testing.assert_array_equal(levels, expected)
    if parents is not None:
        assert parents.dtype == np.int64 and parents.shape == (k, A.n)
        for i, source in enumerate(sources):
            if depth_limit is None:
                ld.validate(A, source, None if levels is None else levels[i], parents[i])
            else:
                check_tree(S, source, expected[i], parents[i], f"row {i}")
    assert sum(res.widths) == k
    return expected


# -- generated graphs -------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=9),
       direction=st.sampled_from(DIRECTIONS), batch=st.sampled_from([None, 1, 2, 5]),
       limit=st.sampled_from([None, 0, 1, 3]))
def test_rows_equal_single_searches_generated(backend, graph, picks, direction, batch, limit):
    src, dst, n, symmetrize, _ = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    sources = [p % n for p in picks]                    # repeats happen, and are rows of their own
    res = ld.bfs_multi(A, sources, direction=direction, batch_size=batch, depth_limit=limit)
    check_rows(A, S, sources, res, depth_limit=limit)
    if batch is not None:
        assert res.widths == [min(batch, len(sources) - b) for b in range(0, len(sources), batch)]


def _alpha_sensitive_graph():
    """A 98-vertex random graph and 4 sources whose batch pushes its second level at alpha 3 and
    pulls it at 4 (found by drawing: numpy's generator of seed 1, its second draw)."""
    rng = np.random.default_rng(1)
    for _ in range(2):
        n = int(rng.integers(30, 200))
        m = int(rng.integers(n, 6 * n))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        sources = [int(x) for x in rng.choice(n, int(rng.integers(1, 8)), replace=False)]
    return src, dst, n, sources


def _directions(res):
    return ["push" if r["direction"] == "push" else "pull" for r in res.stats]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_default_alpha_is_the_kernel_sets(backend):
    """``alpha=None`` takes the backend's batch alpha (engine.Kernels.MULTI_ALPHA: 3 on the CPU,
    4 on the GPU): the batch's directions are those of that alpha given, on a graph where 3 and 4
    choose differently; the levels are the single searches' either way. (The graph is thin: on
    the CPU its batch runs together only when told to.)"""
    src, dst, n, sources = _alpha_sensitive_graph()
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend=backend)
    S = edges_to_scipy(src, dst, n, symmetrize=True)
    with ld_settings.changed(multi_searches="together"):
        by_alpha = {a: ld.bfs_multi(A, sources, parents=False, alpha=a) for a in (3.0, 4.0)}
        default = ld.bfs_multi(A, sources, parents=False)
    assert _directions(by_alpha[3.0])[:2] == ["push", "push"] and _directions(by_alpha[4.0])[:2] == ["push", "pull"]
    assert A.backend.kernels.MULTI_ALPHA == {"cpu": 3.0, "gpu": 4.0}[A.backend.name]
    assert _directions(default) == _directions(by_alpha[A.backend.kernels.MULTI_ALPHA])
    for res in (default, *by_alpha.values()):
        check_rows(A, S, sources, res)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("levels,parents", [(True, False), (False, True)])
def test_one_output_only(backend, levels, parents):
    A = ld.kronecker(8, backend=backend)
    S = A.to_scipy()
    sources = [1, 7, 100, 7]
    res = ld.bfs_multi(A, sources, levels=levels, parents=parents)
    assert (res.levels is None) != levels and (res.parents is None) != parents
    expected = check_rows(A, S, sources, res)
    if not levels:
        np.testing.assert_array_equal(res.parents.to_numpy() >= 0, expected >= 0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_kronecker_rows_equal_ld_bfs(backend, direction):
    """70 sources: one fused batch of two words a vertex on one process, or with batch_size=64
    a batch of 64 and one of 6; each row is ld.bfs's levels, parents valid."""
    A = ld.kronecker(10, seed=3, backend=backend)
    sources = [int(s) for s in np.random.default_rng(1).choice(A.n, 70, replace=False)]
    assert ld.bfs_multi(A, sources, direction=direction).widths == [70]
    res = ld.bfs_multi(A, sources, direction=direction, batch_size=64)
    assert res.widths == [64, 6]
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    for i, source in enumerate(sources):
        single = ld.bfs(A, source, direction=direction)
        np.testing.assert_array_equal(levels[i], single.levels.to_numpy(), err_msg=f"row {i}")
        ld.validate(A, source, levels[i], parents[i])
        np.testing.assert_array_equal(res.levels.row(i), levels[i])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("searches", ["together", "separate"])
def test_stats_count_the_entries(backend, searches):
    """Per level: the frontier's and the found entries are the (search, vertex) pairs of
    consecutive levels, summed over the searches of the batch; its vertices those with some
    search's bit where the searches ran together (the GPU's always do), the entries found where
    the CPU ran them one at a time (each search's rows its own)."""
    A = ld.kronecker(9, backend=backend)
    sources = [0, 5, 9]
    with ld_settings.changed(multi_searches=searches):
        res = ld.bfs_multi(A, sources, direction="auto")
    separate = backend == "cpu" and searches == "separate"
    assert {s["searches"] for s in res.stats} == {"separate" if separate else "together"}
    levels = res.levels.to_numpy()
    per_level = np.bincount(levels[levels >= 0]).tolist() + [0]
    assert [s["frontier"] for s in res.stats] == per_level[:-2] + [per_level[-2]]
    assert [s["discovered"] for s in res.stats] == per_level[1:]
    assert all(s["batch"] == 0 and s["direction"] in ("push", "pull") for s in res.stats)
    assert [s["level"] for s in res.stats] == list(range(1, len(res.stats) + 1))
    columns = [int(np.count_nonzero((levels == d).any(axis=0))) for d in range(1, len(res.stats) + 1)]
    assert [s["vertices"] for s in res.stats] == (per_level[1:] if separate else columns)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("count", [65, 200, 512, 600])
def test_wide_fused_batches(backend, count):
    """Up to 512 searches a fused batch (several words a vertex; 600 make two batches), repeated
    sources their own rows: levels are scipy's hop counts, parents valid; the levels-only run
    gives the same levels; every level is recorded as the fused run's, its one launch on its
    first level and its reads on its last."""
    A = ld.kronecker(9, seed=5, backend=backend)
    S = A.to_scipy()
    rng = np.random.default_rng(count)
    sources = [int(s) for s in rng.integers(0, A.n, count)]        # repeats, isolated vertices
    res = ld.bfs_multi(A, sources, direction="auto")
    assert res.widths == ([512, count - 512] if count > 512 else [count])
    expected = check_rows(A, S, sources[:40], _first_rows(res, 40))
    np.testing.assert_array_equal(res.levels.to_numpy(), hop_levels(S, sources))
    levels_only = ld.bfs_multi(A, sources, parents=False)
    assert levels_only.parents is None
    np.testing.assert_array_equal(levels_only.levels.to_numpy()[:40], expected)
    first_batch = [s for s in res.stats if s["batch"] == 0]
    assert all(s["fused"] for s in res.stats)
    assert all(s["seconds"] >= 0 for s in res.stats) and sum(s["seconds"] for s in first_batch) > 0
    if backend == "gpu":
        assert first_batch[0]["launches"] >= 1 and all(s["launches"] == 0 for s in first_batch[1:])
        assert first_batch[-1]["host_reads"] >= 1


def _first_rows(res, k):
    """A MultiBFSResult of the first k rows of ``res``'s first batch."""
    cut = [None if rows is None else multi.DenseRows(rows.n, rows.grid, rows.backend, [next(rows.tables())[:, :k]])
           for rows in (res.levels, res.parents)]
    return ld.MultiBFSResult(res.sources[:k], *cut, res.stats, [k])


@pytest.mark.parametrize("backend", BACKENDS)
def test_reverse_searches_follow_in_edges(backend):
    """bfs_multi on A.T of a directed graph searches along in-edges: each row is the hop
    distance to the source in A (scipy on the transpose), with no transposed copy made."""
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 300, 1200), rng.integers(0, 300, 1200)
    S = edges_to_scipy(src, dst, 300)
    A = ld.Matrix.from_edges(src, dst, 300, backend=backend)
    sources = [0, 5, 5, 299, 17]
    res = ld.bfs_multi(A.T, sources, direction="auto")
    np.testing.assert_array_equal(res.levels.to_numpy(), hop_levels(S.T.tocsr(), sources))
    for i, source in enumerate(sources):
        ld.validate(A.T, source, res.levels.to_numpy()[i], res.parents.to_numpy()[i])


# -- real graphs ------------------------------------------------------------------------------
SMALL_GRAPHS = real_graphs("lagraph")
BIG_GRAPHS = real_graphs("networkit")


def real_sources(S, count):
    degrees = np.diff(S.indptr)
    rng = np.random.default_rng(S.shape[0])
    return [0, int(np.argmax(degrees))] + rng.integers(0, S.shape[0], count - 2).tolist()


@pytest.mark.parametrize("path", data_params(SMALL_GRAPHS, "lagraph"))
def test_real_lagraph_graphs(path):
    S = read_scipy_pattern(path)
    A = ld.Matrix.from_mtx(path, backend="cpu")
    sources = real_sources(S, 6)
    for direction in DIRECTIONS:
        check_rows(A, S, sources, ld.bfs_multi(A, sources, direction=direction, batch_size=4))


@pytest.mark.slow
@pytest.mark.parametrize("path", data_params(BIG_GRAPHS, "networkit"))
def test_real_networkit_graphs(path):
    S = read_scipy_pattern(path)
    A = ld.Matrix.from_mtx(path, backend="cpu")
    sources = real_sources(S, 12)
    res = ld.bfs_multi(A, sources)
    levels = check_rows(A, S, sources, res)
    for i in (0, 1):
        np.testing.assert_array_equal(ld.bfs(A, sources[i]).levels.to_numpy(), levels[i])


# -- the algebra: one level is the masked boolean product -------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel", ["push", "pull"])
def test_masked_vxm_is_the_masked_product(backend, kernel):
    """Level by level: F' = (F A) and not V (scipy, from the previous F and V); V' = V or F';
    each new entry's level is the depth and its parent a vertex of F's row joined by an edge."""
    rng = np.random.default_rng(5)
    n = 150
    src, dst = rng.integers(0, n, 450), rng.integers(0, n, 450)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    S = sp.csr_matrix(edges_to_scipy(src, dst, n), dtype=np.int64)
    sources = np.array([3, 40, 3, 99], dtype=np.int64)
    F, V = multi.sources_frontier(A, sources, levels=True, parents=True)
    seen = F.to_numpy()
    assert seen.sum() == 4 and F.nvals == 4 and F.nvertices == 3
    for depth in range(1, 8):
        frontier = F.to_numpy()
        product = (sp.csr_matrix(frontier.astype(np.int64)) @ S).toarray() > 0
        expected = product & ~seen
        F = multi.masked_vxm(F, A, V, depth=depth, kernel=kernel)
        np.testing.assert_array_equal(F.to_numpy(), expected, err_msg=f"level {depth}")
        assert F.nvals == expected.sum() and F.nvertices == expected.any(axis=0).sum()
        seen |= expected
        levels = multi.DenseRows(n, A.grid, A.backend, [V.levels]).to_numpy()
        parents = multi.DenseRows(n, A.grid, A.backend, [V.parents]).to_numpy()
        rows, cols = np.nonzero(expected)
        assert (levels[rows, cols] == depth).all()
        assert frontier[rows, parents[rows, cols]].all() and (S[parents[rows, cols], cols] > 0).all()
        np.testing.assert_array_equal(levels >= 0, seen)


def test_masked_vxm_rejects_strangers():
    A = ld.kronecker(6, backend="cpu")
    B = ld.kronecker(6, seed=1, backend="cpu")
    F, V = multi.sources_frontier(A, np.array([1, 2]), levels=True, parents=False)
    with pytest.raises(ld.DimensionMismatch):
        multi.masked_vxm(F, B, V, depth=1, kernel="push")
    with pytest.raises(ld.DomainMismatch, match="kernel"):
        multi.masked_vxm(F, A, V, depth=1, kernel="sideways")


# -- the kernels' twins -----------------------------------------------------------------------
def random_csr(rng, nmajor, nminor, density):
    dense = rng.random((nmajor, nminor)) < density
    dense[nmajor // 2, :] = rng.random(nminor) < 0.9          # a hub: long rows and columns
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(nmajor + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=nmajor), out=indptr[1:])
    return LocalCSR(indptr, cols.astype(np.int32), nminor), dense


def random_words(rng, length, width, density):
    bits = rng.random((length, width)) < density
    return (bits.astype(np.uint64) << np.arange(width, dtype=np.uint64)).sum(axis=1).astype(np.uint64)


def fresh_target(xp, words, width, depth, out_degree, parents=True):
    length = words.shape[0]
    return cpu_kernels.MultiTarget(
        xp.asarray(words).copy(), xp.zeros(length, dtype=np.uint64), xp.zeros(length, dtype=np.int32),
        xp.full((length, width), -1, dtype=np.int64) if parents else None,
        xp.full((length, width), -1, dtype=np.int64), width, depth, (1 << width) - 1,
        None if out_degree is None else xp.asarray(out_degree), xp.zeros(cpu_kernels.M_NCOUNTERS, dtype=np.uint64))


def kernel_case(seed, width=37):
    rng = np.random.default_rng(seed)
    n = 320
    by_source, dense = random_csr(rng, n, n, 0.03)            # rows: sources (push)
    rows, cols = np.nonzero(dense.T)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    by_target = LocalCSR(indptr, cols.astype(np.int32), n)   # rows: targets (pull)
    frontier = random_words(rng, n, width, 0.02)
    visited = random_words(rng, n, width, 0.3) | frontier
    degrees = dense.sum(axis=1).astype(np.int64)
    return by_source, by_target, dense, frontier, visited, degrees, width


def expected_claims(dense, frontier, visited, live):
    """Plain loops: the new bits of every vertex."""
    n = dense.shape[0]
    fresh = np.zeros(n, dtype=np.uint64)
    for u, v in zip(*np.nonzero(dense)):
        fresh[v] |= frontier[u] & live
    return fresh & ~visited


@pytest.mark.parametrize("seed", range(4))
def test_push_and_pull_twins_claim_the_same_bits(seed):
    by_source, by_target, dense, frontier, visited, degrees, width = kernel_case(seed)
    identity = IdMap(dense.shape[0], dense.shape[0], 0)
    live = int(np.bitwise_or.reduce(frontier))
    fresh = expected_claims(dense, frontier, visited, live)
    for kernel in ("push", "pull"):
        target = fresh_target(np, visited, width, 4, degrees)
        if kernel == "push":
            ids = np.flatnonzero(frontier).astype(np.int32)
            counters = cpu_kernels.multi_push(by_source, ids, frontier, identity, target)
        else:
            counters = cpu_kernels.multi_pull(by_target, frontier, live, identity, target)
        np.testing.assert_array_equal(target.next, fresh, err_msg=kernel)
        np.testing.assert_array_equal(target.words, visited | fresh)
        queued = target.queue[:int(counters[cpu_kernels.M_FOUND])]
        assert sorted(queued.tolist()) == np.flatnonzero(fresh).tolist()
        assert int(counters[cpu_kernels.M_BITS]) == int(np.bitwise_count(fresh).sum())
        assert int(counters[cpu_kernels.M_LIVE]) == int(np.bitwise_or.reduce(fresh))
        assert int(counters[cpu_kernels.M_PUSH_EDGES]) == int(degrees[fresh != 0].sum())
        full = (1 << width) - 1
        done = ((visited | fresh) == full) & (fresh != 0)
        assert int(counters[cpu_kernels.M_COMPLETED]) == int(degrees[done].sum())
        for v in np.flatnonzero(fresh):
            for i in range(width):
                if int(fresh[v]) >> i & 1:
                    p = target.parents[v, i]
                    assert target.levels[v, i] == 4 and dense[p, v] and int(frontier[p]) >> i & 1


def test_fold_twins_round_trip():
    """Candidates packed by owner and merged give the claims of the candidates themselves."""
    rng = np.random.default_rng(2)
    width, block_len, owners = 9, 64, 3
    length = block_len * owners
    words = random_words(rng, length, width, 0.1)
    queue = np.flatnonzero(words).astype(np.int32)
    rng.shuffle(queue)
    counters = np.zeros(cpu_kernels.M_NCOUNTERS, dtype=np.uint64)
    counters[cpu_kernels.M_FOUND] = queue.shape[0]
    counts = cpu_kernels.multi_fold_count(queue, counters, words, block_len, owners)
    owner = queue // block_len
    assert counts[:owners].tolist() == np.bincount(owner, minlength=owners).tolist()
    assert counts[owners:].tolist() == [int(np.bitwise_count(words[queue[owner == k]]).sum()) for k in range(owners)]
    cand_parents = rng.integers(0, 10**6, (length, width))
    order = queue[np.argsort(owner, kind="stable")]
    sent = words[order]
    offsets = np.cumsum(cpu_kernels.multi_popcounts(sent)) - cpu_kernels.multi_popcounts(sent)
    packed = cpu_kernels.multi_pack_parents(order, sent, offsets, cand_parents, int(counts[owners:].sum()))
    target = fresh_target(np, np.zeros(length, dtype=np.uint64), width, 2, None)
    cpu_kernels.multi_merge(order, sent, offsets, packed, target)
    np.testing.assert_array_equal(target.words, words)
    for v in queue[:20]:
        for i in range(width):
            expected = cand_parents[v, i] if int(words[v]) >> i & 1 else -1
            assert target.parents[v, i] == expected


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("with_parents", [True, False])
@pytest.mark.parametrize("kernel", ["push", "pull", "merge"])
@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_cuda_kernels_match_the_twins(seed, with_parents, kernel):
    import cupy as cp
    gpu = ld.get_backend("gpu")
    by_source, by_target, dense, frontier, visited, degrees, width = kernel_case(seed, width=64)
    identity = IdMap(dense.shape[0], dense.shape[0], 0)
    live = int(np.bitwise_or.reduce(frontier))
    to_gpu = lambda c: LocalCSR(cp.asarray(c.indptr), cp.asarray(c.indices), c.nminor)   # noqa: E731
    twin = fresh_target(np, visited, width, 3, degrees, with_parents)
    cuda = fresh_target(cp, visited, width, 3, degrees, with_parents)
    if kernel == "push":
        ids = np.flatnonzero(frontier).astype(np.int32)
        cpu_kernels.multi_push(by_source, ids, frontier, identity, twin)
        gpu.kernels.multi_push(to_gpu(by_source), cp.asarray(ids), cp.asarray(frontier), identity, cuda)
    elif kernel == "pull":
        cpu_kernels.multi_pull(by_target, frontier, live, identity, twin)
        gpu.kernels.multi_pull(to_gpu(by_target), cp.asarray(frontier), live, identity, cuda)
    else:
        ids = np.flatnonzero(frontier).astype(np.int32)
        offsets = np.cumsum(np.bitwise_count(frontier[ids]).astype(np.int64)) - np.bitwise_count(frontier[ids])
        parents = np.arange(int(np.bitwise_count(frontier).sum()), dtype=np.int64)
        cpu_kernels.multi_merge(ids, frontier[ids], offsets if with_parents else None,
                                parents if with_parents else None, twin)
        gpu.kernels.multi_merge(cp.asarray(ids), cp.asarray(frontier[ids]),
                                cp.asarray(offsets) if with_parents else None,
                                cp.asarray(parents) if with_parents else None, cuda)
    host = {name: cp.asnumpy(getattr(cuda, name)) for name in ("words", "next", "levels", "counters")}
    np.testing.assert_array_equal(host["words"], twin.words)
    np.testing.assert_array_equal(host["next"], twin.next)
    np.testing.assert_array_equal(host["levels"], twin.levels)
    np.testing.assert_array_equal(host["counters"], twin.counters)
    found = int(twin.counters[cpu_kernels.M_FOUND])
    assert sorted(cp.asnumpy(cuda.queue[:found]).tolist()) == sorted(twin.queue[:found].tolist())
    if with_parents and kernel != "merge":       # first-come parents: any valid one will do
        got = cp.asnumpy(cuda.parents)
        np.testing.assert_array_equal(got >= 0, twin.parents >= 0)
        for v, i in zip(*np.nonzero(twin.parents >= 0)):
            parent, bit = int(got[v, i]), int(i)      # Python ints: word 63 of a uint64 word
            assert dense[parent, v] and int(frontier[parent]) >> bit & 1
    elif with_parents:
        np.testing.assert_array_equal(cp.asnumpy(cuda.parents), twin.parents)


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_cuda_fold_helpers_match_the_twins():
    import cupy as cp
    gpu = ld.get_backend("gpu")
    rng = np.random.default_rng(4)
    width, block_len, owners = 64, 256, 4
    words = random_words(rng, block_len * owners, width, 0.05)
    queue = np.flatnonzero(words).astype(np.int32)
    rng.shuffle(queue)
    counters = np.zeros(cpu_kernels.M_NCOUNTERS, dtype=np.uint64)
    counters[cpu_kernels.M_FOUND] = queue.shape[0]
    np.testing.assert_array_equal(
        cp.asnumpy(gpu.kernels.multi_fold_count(cp.asarray(queue), cp.asarray(counters), cp.asarray(words),
                                                block_len, owners)),
        cpu_kernels.multi_fold_count(queue, counters, words, block_len, owners))
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.multi_popcounts(cp.asarray(words))),
                                  cpu_kernels.multi_popcounts(words))
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.multi_nonzero_ids(cp.asarray(words), queue.shape[0])),
                                  cpu_kernels.multi_nonzero_ids(words))
    cand = rng.integers(0, 10**6, (words.shape[0], width))
    sent = words[queue]
    offsets = np.cumsum(cpu_kernels.multi_popcounts(sent)) - cpu_kernels.multi_popcounts(sent)
    total = int(cpu_kernels.multi_popcounts(sent).sum())
    np.testing.assert_array_equal(
        cp.asnumpy(gpu.kernels.multi_pack_parents(cp.asarray(queue), cp.asarray(sent), cp.asarray(offsets),
                                                  cp.asarray(cand), total)),
        cpu_kernels.multi_pack_parents(queue, sent, offsets, cand, total))


# -- batches sized by memory ------------------------------------------------------------------
def test_no_room_for_one_search_raises(monkeypatch):
    A = ld.kronecker(8, backend="cpu")
    monkeypatch.setattr(fit, "available_bytes", lambda backend: (1000, 10**6))
    with pytest.raises(ld.OutOfHostMemory, match="bfs_multi of 3 sources"):
        ld.bfs_multi(A, [1, 2, 3])


def test_batch_plans():
    """Every output kept where it is made while that fits; on the GPU, narrower batches whose
    outputs go to the host when it does not; nothing when even that does not fit."""
    n, nvals, sources = 1 << 20, 32 << 20, 200
    options = dict(grid_shape=(2, 2), levels=True, parents=True, symmetric=True)
    every = memory.multi_search_bytes(n, nvals, width=64, sources=sources, backend="gpu", **options)
    plan = memory.plan_multi_batches(every, 0, n, nvals, sources=sources, backend="gpu", **options)
    assert plan == memory.MultiPlan(64, False)
    assert memory.plan_multi_batches(every, 0, n, nvals, sources=5, backend="gpu", **options).width == 5
    # wide batches would not fit beside all outputs: narrower ones first
    narrower = memory.multi_search_bytes(n, nvals, width=20, sources=sources, backend="gpu", **options)
    assert memory.plan_multi_batches(narrower, 0, n, nvals, sources=sources, backend="gpu",
                                     **options) == memory.MultiPlan(20, False)
    # the outputs of 200 searches do not fit on the device at all: batches of 10 and the host
    ten = memory.multi_search_bytes(n, nvals, width=10, sources=10, backend="gpu", **options)
    outputs = memory.multi_output_bytes(n, grid_shape=(2, 2), sources=sources)
    assert ten < memory.multi_search_bytes(n, nvals, width=1, sources=sources, backend="gpu", **options)
    assert memory.plan_multi_batches(ten, outputs, n, nvals, sources=sources, backend="gpu",
                                     **options) == memory.MultiPlan(10, True)
    assert memory.plan_multi_batches(ten, outputs - 1, n, nvals, sources=sources, backend="gpu",
                                     **options).width == 0
    assert memory.plan_multi_batches(ten, outputs, n, nvals, sources=sources, backend="cpu",
                                     **options).width == 0          # the CPU's outputs stay where they are


def test_batch_plans_read_the_host_only_to_offload():
    """The host's free memory, given as a function, is read only when the device cannot keep
    every output (a read costs a small graph's call more than its search)."""
    n, nvals, sources = 1 << 20, 32 << 20, 200
    options = dict(grid_shape=(1, 1), levels=True, parents=False, symmetric=True)
    reads = []

    def host_free():
        reads.append(1)
        return 1 << 62

    every = memory.multi_search_bytes(n, nvals, width=64, sources=sources, backend="gpu", **options)
    assert memory.plan_multi_batches(every, host_free, n, nvals, sources=sources, backend="gpu",
                                     **options) == memory.MultiPlan(64, False)
    assert reads == []
    ten = memory.multi_search_bytes(n, nvals, width=10, sources=10, backend="gpu", **options)
    assert memory.plan_multi_batches(ten, host_free, n, nvals, sources=sources, backend="gpu",
                                     **options) == memory.MultiPlan(10, True)
    assert reads == [1]


def test_a_call_reads_the_host_memory_once_on_the_cpu(monkeypatch):
    """bfs_multi's plan on the CPU backend reads the host's free memory once: the device's
    share and the offload's host share are the same read there, and no offload is asked for."""
    A = ld.kronecker(6, backend="cpu")
    reads = []
    real = fit.host_memory
    monkeypatch.setattr(fit, "host_memory", lambda: reads.append(1) or real())
    ld.bfs_multi(A, [0, 1, 2], parents=False)
    assert len(reads) == 1


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_gpu_offloads_batches_when_the_device_is_short(monkeypatch):
    A = ld.kronecker(10, backend="gpu")
    S = A.to_scipy()
    sources = list(range(1, 140))
    options = dict(grid_shape=(1, 1), backend="gpu", levels=True, parents=True, symmetric=True)
    room = memory.multi_search_bytes(A.n, A.nvals, width=30, sources=30, **options)
    monkeypatch.setattr(A.backend, "free_device_bytes", lambda: (room, room))
    res = ld.bfs_multi(A, sources)
    assert res.widths == [30, 30, 30, 30, 19]
    assert all(isinstance(block.words if isinstance(block, LevelPlanes) else block, np.ndarray)
               for block in res.levels.blocks[:-1])
    check_rows(A, S, sources, res)


def test_multi_search_bytes_cover_the_cpu_peak(monkeypatch):
    """tracemalloc's peak of a multi-source search stays within the estimate (and near it, its
    levels written as a table; kept as bit planes, the search holds less)."""
    import tracemalloc
    from lagraph_dist.local.cpu_kernels import multi_fused
    A = ld.kronecker(12, backend="cpu")
    sources = list(range(1, 65))
    estimate = memory.multi_search_bytes(A.n, A.nvals, backend="cpu", width=64, sources=64, symmetric=True)

    def peak(planes):
        monkeypatch.setattr(multi_fused, "multi_fused_level_planes", planes)
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            for direction in DIRECTIONS:
                ld.bfs_multi(A, sources, direction=direction)
            return tracemalloc.get_traced_memory()[1] - start
        finally:
            tracemalloc.stop()
    as_table, as_planes = peak(False), peak(True)
    assert as_planes < as_table <= estimate
    assert as_table >= estimate / 8, "the multi-source estimate is far too high"


# -- the wire's encoding rule -----------------------------------------------------------------
WIRE_SCRIPT = """
import numpy as np
import lagraph_dist as ld
from lagraph_dist.local.wire import forced_wire_encoding

grid = ld.Grid(2, 2)
rng = np.random.default_rng(3)
n = 400
src, dst = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
mine = slice(grid.rank, None, grid.size)
A = ld.Matrix.from_edges(src[mine], dst[mine], n, grid=grid, backend="cpu")
sources = [0, 1, 2, 3]
expected = ld.bfs_multi(A, sources).levels.to_numpy()


def used(result, stage):
    return {s["encoding"][stage] for s in result.stats} - {"none"}


for encoding in ("list", "bitmap"):
    with forced_wire_encoding(encoding):
        many = ld.bfs_multi(A, sources, direction="push")
        one = ld.bfs(A, 0, parents=False, direction="push")
    assert used(many, "expand") == {encoding}, (encoding, used(many, "expand"))
    assert used(one, "expand") == used(one, "fold") == {encoding}, (encoding, one.stats)
    assert np.array_equal(many.levels.to_numpy(), expected)
    assert np.array_equal(one.levels.to_numpy(), expected[0])
print(f"rank {grid.rank} ok", flush=True)
"""


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(300)
def test_one_encoding_rule_for_both_searches_on_a_grid(tmp_path):
    """Forcing the wire's encoding (wire.bitmap_threshold, the one rule) reaches the frontier
    matrix's expand as it reaches the single search's expand and fold (the fold's pieces read
    back by the numpy twin), on a 2x2 grid; the levels do not change."""
    run_on_four_ranks(tmp_path / "wire_rule.py", WIRE_SCRIPT)


def run_on_four_ranks(script, text):
    """``text`` written to ``script`` and run on 4 ranks; every rank must report ok."""
    script.write_text(text)
    done = run_mpi(4, script, timeout=240)
    report = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    assert all(f"rank {rank} ok" in done.stdout for rank in range(4)), report


def test_the_frontier_matrix_rule_is_the_wires(monkeypatch):
    """12 bytes an (id, word) pair against 8 bytes a vertex's word: dense past two thirds; and
    whatever wire.bitmap_threshold says, words_prefer_dense says too."""
    assert not wire.words_prefer_dense(60, 90) and wire.words_prefer_dense(61, 90)
    monkeypatch.setattr(wire, "bitmap_threshold", lambda length, **costs: length)
    assert not wire.words_prefer_dense(61, 90)


WORDS_SCRIPT = """
import numpy as np
import lagraph_dist as ld
from lagraph_dist.comm import collectives
from lagraph_dist.local.backend import get_backend
from lagraph_dist.local.wire import forced_wire_encoding

grid = ld.Grid(2, 2)
backend = get_backend("cpu")
channel = grid.transport.world
block_len = 64
rng = np.random.default_rng(11)
everyone = np.zeros((channel.size, block_len), dtype=np.uint64)      # the same on every rank
for k in range(channel.size):
    at = rng.choice(block_len, size=5 * k, replace=False)
    everyone[k, at] = rng.integers(1, 2**62, size=at.shape[0]).astype(np.uint64)
mine = everyone[channel.rank]
counts = [int(np.count_nonzero(w)) for w in everyone]
part = collectives.WordPart(np.flatnonzero(mine).astype(np.int32)[::-1].copy(), mine)   # ids in any order
for encoding, sent in (("list", 12 * counts[channel.rank]), ("bitmap", 8 * block_len)):
    for want_ids in (True, False):
        with forced_wire_encoding(encoding):
            (ids, words), traffic = collectives.expand(part, channel, backend, member_counts=counts,
                                                       block_len=block_len, want_ids=want_ids)
        assert (traffic.encoding, traffic.bytes) == (encoding, sent * (channel.size - 1)), (encoding, traffic)
        assert np.array_equal(words, everyone.ravel())
        if want_ids or encoding == "list":
            assert np.array_equal(np.sort(ids), np.flatnonzero(everyone.ravel()))
        else:
            assert ids is None
print(f"rank {grid.rank} ok", flush=True)
"""


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(300)
def test_expand_of_words_on_a_grid(tmp_path):
    """collectives.expand of a WordPart (the frontier matrix's word type) over 4 ranks: as
    (id, word) pairs or as the dense words, every member's words land at its block's offset,
    with their ids (any order) when asked, and the bytes are 12 a pair or 8 a vertex's word."""
    run_on_four_ranks(tmp_path / "expand_words.py", WORDS_SCRIPT)


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("sources, kwargs, error, text", [
    ([], {}, ld.InvalidValue, "at least one source"),
    ([1, 64], {}, ld.IndexOutOfBound, "sources contain 64"),
    ([-1], {}, ld.IndexOutOfBound, "sources contain -1"),
    ([1, 2.5], {}, ld.DomainMismatch, "sources must be integers"),
    ([True, False], {}, ld.DomainMismatch, "sources must be integers"),
    (5, {}, ld.DomainMismatch, "sequence of vertex ids"),
    ("12", {}, ld.DomainMismatch, "sequence of vertex ids"),
    ([[1, 2]], {}, ld.InvalidValue, "one-dimensional"),
    ([1], {"direction": "up"}, ld.InvalidValue, "unknown direction"),
    ([1], {"levels": False, "parents": False}, ld.InvalidValue, "levels=True or parents=True"),
    ([1], {"depth_limit": -1}, ld.InvalidValue, "depth_limit must be >= 0"),
    ([1], {"depth_limit": 2.0}, ld.DomainMismatch, "depth_limit must be an integer"),
    ([1], {"batch_size": 0}, ld.InvalidValue, "batch_size must be >= 1"),
    ([1], {"batch_size": 513}, ld.InvalidValue, "batch_size must be <= 512"),
    ([1], {"alpha": 0}, ld.InvalidValue, "alpha must be a positive number"),
    ([1], {"batch_size": True}, ld.DomainMismatch, "batch_size must be an integer or None"),
    ([1], {"batch_size": 2.0}, ld.DomainMismatch, "batch_size must be an integer or None"),
])
def test_bad_input(sources, kwargs, error, text):
    A = ld.kronecker(6, backend="cpu")
    with pytest.raises(error, match=text):
        ld.bfs_multi(A, sources, **kwargs)


def test_scipy_input_is_converted_once():
    S = edges_to_scipy([0, 1, 2], [1, 2, 3], 5)
    res = ld.bfs_multi(S, [0, 2])
    np.testing.assert_array_equal(res.levels.to_numpy(), [[0, 1, 2, 3, -1], [-1, -1, 0, 1, -1]])
    with pytest.raises(ld.DomainMismatch, match="bfs_multi"):
        ld.bfs_multi([[0, 1]], [0])


def test_real_graph_data_is_found():
    """west0067 is among the real graphs test_real_lagraph_graphs searches (so that test does
    not pass by finding none), and ld.bfs_multi from every one of its 67 vertices gives
    networkx's hop distances, and parents along its edges, on the file as scipy.io.mmread reads
    it (neither the oracle nor the reading goes through the package)."""
    import networkx as nx
    import scipy.io

    path = data_file("lagraph", "west0067.mtx")
    assert path in SMALL_GRAPHS
    coo = sp.coo_matrix(scipy.io.mmread(path))
    n = coo.shape[0]
    assert coo.shape == (67, 67) and coo.nnz == 294          # the file's size line
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(coo.row.tolist(), coo.col.tolist()))
    expected = np.full((n, n), -1, dtype=np.int64)
    for source, hops in nx.all_pairs_shortest_path_length(G):
        for vertex, hop in hops.items():
            expected[source, vertex] = hop
    assert (expected >= 0).sum() > n                           # the searches go somewhere

    A = ld.Matrix.from_mtx(path, backend="cpu")
    res = ld.bfs_multi(A, list(range(n)))
    assert sum(res.widths) == n
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    np.testing.assert_array_equal(levels, expected)
    for source in range(n):
        assert parents[source, source] == source
        np.testing.assert_array_equal(parents[source] >= 0, expected[source] >= 0)
        for vertex in np.flatnonzero(expected[source] > 0).tolist():
            parent = int(parents[source, vertex])
            assert expected[source, parent] == expected[source, vertex] - 1, (source, vertex, parent)
            assert G.has_edge(parent, vertex), (source, vertex, parent)
