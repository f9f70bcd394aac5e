"""The CPU backend's fused multi-source run (local/cpu_kernels/multi_fused.py) on one process:
levels equal to scipy.sparse.csgraph's hop distances, parents a BFS tree, for 1 to 512
searches (repeats and isolated sources among them), every direction and depth limit; its
records against a plain Python model of the levels (computed from the levels themselves) and
the direction rule's own ``choose``; the same result on one thread and on all of them. The
searches run one at a time (``settings.multi_searches``, the probe's choice on a mesh) give
the same tables, and records that are the sums of separate ``ld.bfs`` calls' records."""
import dataclasses

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.settings import settings as ld_settings
from lagraph_dist.local import engine
from lagraph_dist.local.cpu_kernels import multi_fused
from lagraph_dist.local.cpu_kernels.fused import FUSED_LEVEL_CLOCK
from lagraph_dist.local.cpu_kernels.multi_fused import multi_bfs_fused
from lagraph_dist.local.cpu_kernels import level_planes_rows
from lagraph_dist.core.stats import HOST_CLOCK
from lagraph_dist.local.engine import MULTI_FUSED_MAX_WIDTH, QUEUE_ENGINE, LevelPlanes, MultiFusedRun
from extras_checks import check_tree, hop_levels, truncated
from graphs import grid_edges
from helpers import DIRECTIONS, edge_graphs

NO_LIMIT = 10**9


def blocks(A):
    """(out-edges, in-edges, out-degrees) of a one-process matrix's block."""
    out = A.block.by_col
    return out, A.block.by_row, out.degrees()


def mesh(rows, cols):
    (src, dst), n = grid_edges(rows, cols)
    return ld.Matrix.from_edges(src, dst, n, symmetrize=True)


def run(A, sources, mode="auto", *, levels=True, parents=True, max_levels=NO_LIMIT, rows=None, rule=None,
        searches="together", planes=None):
    """The run, its searches bit-parallel unless ``searches`` says otherwise (the records'
    model below is the bit-parallel run's), its levels as bit planes as ``planes`` says (None:
    by the graph); levels kept as planes come back made into their table (by the twin of
    ld_level_planes_rows, which tests/test_level_planes.py checks against its own encoding),
    ``res.in_planes`` saying so."""
    out, inn, degrees = blocks(A)
    rule = rule or DirectionRule(mode, A.n, out.nnz)
    before = multi_fused.multi_fused_level_planes
    multi_fused.multi_fused_level_planes = planes
    try:
        with ld_settings.changed(multi_searches=searches):
            res = multi_bfs_fused(out, inn, np.asarray(sources, dtype=np.int64), degrees,
                                  rows=out.nmajor if rows is None else rows, levels=levels, parents=parents,
                                  rule=rule, max_levels=max_levels)
    finally:
        multi_fused.multi_fused_level_planes = before
    in_planes = isinstance(res.levels, LevelPlanes)
    if in_planes:
        res = dataclasses.replace(res, levels=level_planes_rows(res.levels, 0, res.levels.shape[0]).copy())
    res.in_planes = in_planes
    return res


# -- the records' model -----------------------------------------------------------------------
def model_records(A, sources, levels, mode, max_levels, alpha=None, beta=None):
    """The records and the rule's final state that the run must give, from the levels table
    ((n, k), checked against scipy first) alone: each level's frontier is the entries of the
    depth before it, the direction DirectionRule.choose's on the multi-source counts, the
    entries read the frontier's out-edges (push) or each unfinished row's in-edges up to the
    one that gives it its last wanted bit, counted 32 a step (pull)."""
    out, inn, degrees = blocks(A)
    n = A.n
    rule = DirectionRule(mode, n, out.nnz, **({} if alpha is None else {"alpha": alpha, "beta": beta}))
    reached = levels >= 0
    records, depth = [], 0
    while depth < max_levels:
        frontier = levels == depth
        rows = np.flatnonzero(frontier.any(axis=1))
        if len(rows) == 0:
            break
        seen = reached & (levels <= depth)
        complete = seen.all(axis=1)
        push = rule.choose(len(rows), int(degrees[rows].sum()),
                           unexplored=out.nnz - int(degrees[:n][complete].sum()))
        found = levels == depth + 1
        if push:
            examined = int(degrees[rows].sum())
        else:
            examined = pull_reads(inn, frontier, seen, frontier.any(axis=0), n)
        records.append((int(frontier.sum()), int(found.sum()), examined, int(push),
                        int(found.any(axis=1).sum())))
        depth += 1
    return records, rule


def pull_reads(inn, frontier, seen, live, n):
    """In-edges a pull level reads: every row wanting some live search's bit scans its
    in-neighbours in order until it holds all it wants; read 32 a step when it stops early.
    (Step by step over every wanting row at once, each row's bits packed: after its j-th
    in-edge a row holds the OR of its first j + 1 in-neighbours' frontier bits.)"""
    wanted = live & ~seen[:n]                                  # (n, k): the bits each row wants
    rows = np.flatnonzero(wanted.any(axis=1))
    starts = inn.indptr[rows].astype(np.int64)
    lengths = inn.indptr[rows + 1].astype(np.int64) - starts
    want = np.packbits(wanted[rows], axis=1)
    offers = np.packbits(frontier, axis=1)
    held = np.zeros_like(want)
    stop_at = np.full(rows.shape[0], np.iinfo(np.int64).max)  # the in-edge at which a row holds all it wants
    scanning = np.arange(rows.shape[0])
    for j in range(int(lengths.max(initial=0))):
        scanning = scanning[lengths[scanning] > j]
        held[scanning] |= offers[inn.indices[starts[scanning] + j]]
        holds = ((held[scanning] & want[scanning]) == want[scanning]).all(axis=1)
        stop_at[scanning[holds]] = j
        scanning = scanning[~holds]
    early = stop_at < lengths
    reads = lengths.copy()
    reads[early] = np.minimum(lengths[early], (stop_at[early] // 32 + 1) * 32)
    return int(reads.sum())


def check_tables(A, S, sources, res, max_levels):
    """Levels equal scipy's (truncated at the limit), parents a BFS tree of them, rows past the
    graph's -1; returns scipy's levels, (k, n)."""
    k, n = len(sources), A.n
    expected = hop_levels(S, sources)
    if max_levels < NO_LIMIT:
        expected = truncated(expected, max_levels)
    assert isinstance(res, MultiFusedRun)
    assert res.clock == (HOST_CLOCK if res.engine == QUEUE_ENGINE else FUSED_LEVEL_CLOCK)
    if res.levels is not None:
        assert res.levels.dtype == np.int32 and res.levels.shape[1] == k
        np.testing.assert_array_equal(res.levels[:n].T, expected)
        assert (res.levels[n:] == -1).all()
    if res.parents is not None:
        assert res.parents.dtype == np.int32 and res.parents.shape[1] == k
        assert (res.parents[n:] == -1).all()
        for i, source in enumerate(sources):
            check_tree(S, source, expected[i], res.parents[:n, i].astype(np.int64), f"search {i}")
    return expected


def check_run(A, S, sources, res, mode, max_levels=NO_LIMIT, rule=None):
    """The tables (:func:`check_tables`) of a bit-parallel run, and its records and the rule's
    state those of the model."""
    k = len(sources)
    assert not res.separate
    expected = check_tables(A, S, sources, res, max_levels)
    records, model_rule = model_records(A, sources, expected.T, mode, max_levels,
                                        *((rule.alpha, rule.beta) if rule is not None else ()))
    assert res.counts.dtype == np.int64 and res.counts.shape == (len(records), 5)
    assert [tuple(r) for r in res.counts.tolist()] == records
    assert res.seconds.dtype == np.float64 and res.seconds.shape == (len(records),)
    assert (res.seconds >= 0).all()
    if len(records):
        assert res.counts[:, 1].sum() == (expected >= 0).sum() - k
        assert res.counts[0, 0] == k
    return model_rule


def check_separate(A, S, sources, res, mode, max_levels=NO_LIMIT):
    """A run whose searches ran one at a time: the tables (:func:`check_tables`), and each
    depth's record the sums of that level's records of separate ``ld.bfs`` calls (push only
    where every search that ran it pushed; its vertices its entries found). Each search is the
    queue search where the graph has at most ``settings.queue_search_edges`` edges and the
    mode may push, its depths then timed as one run, else the fused single search, each depth
    timed; the ``ld.bfs`` calls run the same search."""
    assert res.separate
    queued = 0 < ld_settings.queue_search_edges >= A.nvals and mode != "pull"
    assert res.engine == (QUEUE_ENGINE if queued else None)
    check_tables(A, S, sources, res, max_levels)
    depths = {}
    for source in sources:
        limit = None if max_levels >= NO_LIMIT else max_levels
        with ld_settings.changed(queue_search_edges=ld_settings.queue_search_edges if queued else 0):
            stats = ld.bfs(A, int(source), direction=mode, depth_limit=limit).stats
        assert {level["engine"] for level in stats} <= {QUEUE_ENGINE if queued else "cpu"}
        for d, level in enumerate(stats):
            total = depths.setdefault(d, [0, 0, 0, 1, 0])
            total[0] += level["frontier"]
            total[1] += level["discovered"]
            total[2] += level["edges_examined"]
            total[3] &= int(level["direction"] == "push")
            total[4] += level["discovered"]
    assert [tuple(r) for r in res.counts.tolist()] == [tuple(depths[d]) for d in range(len(depths))]
    assert res.seconds.shape == (len(depths),)
    timed = res.seconds[-1:] if queued else res.seconds
    assert (timed >= 0).all() and (not queued or np.isnan(res.seconds[:-1]).all())


# -- generated graphs -------------------------------------------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), data=st.data(), mode=st.sampled_from(DIRECTIONS),
       width=st.sampled_from([1, 2, 7, 63, 64, 65, 130]), limit=st.sampled_from([NO_LIMIT, 0, 1, 3]),
       outputs=st.sampled_from([(True, True), (True, False), (False, True)]),
       planes=st.sampled_from([None, True, False]))
def test_generated(graph, data, mode, width, limit, outputs, planes):
    src, dst, n, symmetrize, _ = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize)
    S = sp.csr_matrix(A.to_scipy())
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=width, max_size=width))   # repeats happen
    rule = DirectionRule(mode, n, A.block.by_col.nnz)
    res = run(A, sources, levels=outputs[0], parents=outputs[1], max_levels=limit, rule=rule, planes=planes)
    if planes is not None:
        assert res.in_planes == (planes and outputs[0])
    assert (res.levels is None) != outputs[0] and (res.parents is None) != outputs[1]
    model_rule = check_run(A, S, sources, res, mode, limit)
    assert (rule.push, rule.previous, rule.unexplored) == (model_rule.push, model_rule.previous,
                                                          model_rule.unexplored)


@pytest.mark.parametrize("mode", DIRECTIONS)
@pytest.mark.parametrize("width", [64, 130, MULTI_FUSED_MAX_WIDTH])
def test_wide_batches_with_isolated_and_repeated_sources(mode, width):
    """Up to 512 searches (8 words a vertex) on a graph with isolated vertices, a directed
    chain and a dense part; sources repeated, some isolated."""
    rng = np.random.default_rng(width)
    n = 300
    src, dst = rng.integers(0, 200, 1500), rng.integers(0, 200, 1500)
    chain = np.arange(200, 260)                    # 200 -> 201 -> ... -> 259: deep levels
    src, dst = np.concatenate([src, chain[:-1]]), np.concatenate([dst, chain[1:]])
    A = ld.Matrix.from_edges(src, dst, n)
    S = sp.csr_matrix(A.to_scipy())
    sources = rng.integers(0, n, width)            # 260 .. 299 are isolated
    sources[:3] = [299, 299, 200]
    check_run(A, S, sources.tolist(), run(A, sources, mode), mode)


@pytest.mark.parametrize("mode", ["push", "auto"])
def test_table_from_the_log_with_sources_out_of_order(mode):
    """A levels table of CHUNKED_TABLE slots or more is written from the log at the end; the
    sources' segment of the log is in the sources' order, not the vertices', and with more
    sources than 4 a chunk it was once searched as if sorted (most sources lost their 0)."""
    rng = np.random.default_rng(7)
    n = 3000
    A = ld.Matrix.from_edges(rng.integers(0, n, 6000), rng.integers(0, n, 6000), n, symmetrize=True)
    S = sp.csr_matrix(A.to_scipy())
    sources = rng.choice(n, MULTI_FUSED_MAX_WIDTH, replace=False)
    assert n * len(sources) >= multi_fused.CHUNKED_TABLE and not (np.diff(sources) > 0).all()
    check_run(A, S, sources.tolist(), run(A, sources, mode, parents=False), mode)



@pytest.mark.parametrize("mode", ["push", "auto"])
@pytest.mark.parametrize("width", [64, 130])
def test_a_full_log_written_before_the_end(mode, width):
    """A batch run together on a mesh from sources along a row finds each vertex at many
    depths, so its levels log passes LOG_ROWS_PER_VERTEX rows a vertex: its levels are written
    to the table then and the log starts over, several times; the tables and records are the
    model's all the same (the rows past the graph's -1)."""
    A = mesh(130, 130)
    S = sp.csr_matrix(A.to_scipy())
    sources = [(7 * i) % 130 for i in range(width)]          # (row 0's vertices, some twice)
    rows = A.block.by_col.nmajor + 5
    assert rows * width >= multi_fused.CHUNKED_TABLE
    res = run(A, sources, mode, rows=rows)
    assert res.counts[:, 4].sum() > 3 * multi_fused.LOG_ROWS_PER_VERTEX * (A.n + 64)     # (three logs' worth)
    check_run(A, S, sources, res, mode)

@pytest.mark.parametrize("mode", DIRECTIONS)
@pytest.mark.parametrize("limit", [0, 1, 2, 5])
def test_depth_limits(mode, limit):
    A = ld.kronecker(8, seed=3)
    S = sp.csr_matrix(A.to_scipy())
    sources = [0, 5, 5, 17, 100, 255]
    check_run(A, S, sources, run(A, sources, mode, max_levels=limit), mode, limit)


def test_rows_past_the_graph_and_directed_in_edges():
    """A directed graph (in-edges differ from out-edges) into an output of more rows than its
    block; a pull finds a row's bits through its in-neighbours only."""
    A = ld.Matrix.from_edges([0, 1, 2, 3, 3], [1, 2, 0, 4, 0], 5)
    S = sp.csr_matrix(A.to_scipy())
    for mode in DIRECTIONS:
        res = run(A, [0, 3, 4, 0], mode, rows=A.block.by_col.nmajor + 7)
        assert res.levels.shape == (A.block.by_col.nmajor + 7, 4)
        check_run(A, S, [0, 3, 4, 0], res, mode)


@pytest.mark.parametrize("mode", DIRECTIONS)
def test_rule_parameters_and_state(mode):
    """Other alpha and beta, and a rule already used: the run starts from its state and leaves
    it as choose would have."""
    A = ld.kronecker(9, seed=1)
    S = sp.csr_matrix(A.to_scipy())
    sources = list(range(0, 512, 9))
    rule = DirectionRule(mode, A.n, A.block.by_col.nnz, alpha=2.0, beta=4.0)
    model_rule = check_run(A, S, sources, run(A, sources, rule=rule), mode, rule=rule)
    assert (rule.push, rule.previous, rule.unexplored) == (model_rule.push, model_rule.previous,
                                                          model_rule.unexplored)


# -- a pull level run from its frontier -------------------------------------------------------
def level_state(A, sources, depth):
    """The words of a run about to expand ``depth``, from scipy's hop levels: (seen, the
    frontier's words, its vertices, the live bits, the full words)."""
    k, n = len(sources), A.n
    hops = hop_levels(sp.csr_matrix(A.to_scipy()), sources).T           # (n, k)
    width = -(-k // 64)
    seen, cur = np.zeros((n, width), np.uint64), np.zeros((n, width), np.uint64)
    for i in range(k):
        bit = np.uint64(1) << np.uint64(i % 64)
        seen[(hops[:, i] >= 0) & (hops[:, i] <= depth), i // 64] |= bit
        cur[hops[:, i] == depth, i // 64] |= bit
    cq = np.flatnonzero(cur.any(axis=1)).astype(np.int32)
    return seen, cur, cq, np.bitwise_or.reduce(cur, axis=0), multi_fused.full_words(k)


def pull_both_ways(A, sources, depth, with_parents, scan_parents=False):
    """One pull level from the state of ``depth`` as the row scans run it (:func:`_pull_level`,
    one core) and from the frontier (:func:`_scatter_pull_level`, its push on one core and
    shared by ``parts`` ranges of rows (:func:`_push_level`), then :func:`_finish_level`, which
    counts the rows found; with ``scan_parents`` its found rows' scans write the
    parents, as where the in-neighbours are not in order): for each, (the counts, the next
    words, the seen words, the parents, the found rows in increasing order, the live bits)."""
    out, inn, degrees = blocks(A)
    n, k = A.n, len(sources)
    results = []
    for scatter, parts in ((False, 1), (True, 1), (True, 2), (True, 5)):
        seen, cur, cq, live, full = level_state(A, sources, depth)
        nxt, nq = np.zeros_like(cur), np.empty(n, np.int32)
        rows = np.empty(n, np.int32)
        nrows, reads = multi_fused._wanting_rows(inn.indptr, seen, live, rows)
        parents = np.full((n, k), -1, np.int32) if with_parents else multi_fused._NO_TABLE
        args = (cur, cq, np.int64(len(cq)))
        if scatter:
            long_rows = bool((np.diff(inn.indptr) > 32).any())
            ordered = (not scan_parents and multi_fused._sorted_rows(inn.indptr, inn.indices)
                       and multi_fused._increasing(cq, len(cq)))
            marks = np.zeros(-(-n // 64), np.uint64)
            nn, examined = multi_fused._scatter_pull_level(out.indptr, out.indices, inn.indptr, inn.indices, *args,
                                                           nxt, nq, marks, seen, live, parents, with_parents, reads,
                                                           long_rows, ordered, np.int64(parts))
            assert not marks.any()
            live[:] = 0
            found, edges, done = multi_fused._finish_level(nq, nn, nxt, seen, full, degrees, live,
                                                           multi_fused._NO_TABLE, np.int64(1), False)
            assert not marks.any() and (np.diff(nq[:nn]) > 0).all()
            got = (nn, found, examined, edges, done)
        else:
            fbits, fcounts = np.empty(-(-n // 64), np.uint64), np.empty(-(-n // 64), np.uint32)
            got = multi_fused._pull_level(inn.indptr, inn.indices, *args, fbits, fcounts, rows, nrows, nxt, seen,
                                          live, full, degrees, parents, with_parents, nq, 1)[:5]
        results.append((got, nxt, seen, parents, np.sort(nq[:got[0]]), live))
    return results


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), data=st.data(), width=st.sampled_from([1, 5, 64, 70]), with_parents=st.booleans())
def test_scatter_pull_is_the_pull(graph, data, width, with_parents):
    """From the same state, the pull run from its frontier finds what the row scans find: the
    same rows and words, the same parents (each row's first in-neighbour holding the bit, which
    the push writes when the in-neighbours are listed in increasing order), and
    the same counts, the in-edges read included (counted 32 a step where a scan stops)."""
    src, dst, n, symmetrize, _ = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize)
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=width, max_size=width))
    depth = data.draw(st.integers(0, 4))
    (pulled, *pull_state), *scatters = pull_both_ways(A, sources, depth, with_parents)
    for scattered, *scatter_state in scatters:
        assert tuple(int(x) for x in pulled) == tuple(int(x) for x in scattered)
        for a, b in zip(pull_state, scatter_state):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("with_parents", [False, True])
def test_scatter_pull_long_rows(with_parents):
    """Rows of more than 32 in-edges that a scan stops early (every wanted bit found) and rows
    it reads to the end, beside a mesh's short rows."""
    rng = np.random.default_rng(5)
    n = 400
    ids = np.arange(300).reshape(15, 20)                  # a 15 x 20 mesh
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    near = np.concatenate([np.arange(40), np.arange(200, 240)])      # each hub: 80 in-edges from the mesh
    src = np.concatenate([src, np.tile(near, 20), rng.integers(0, 300, 1000)])
    dst = np.concatenate([dst, np.repeat(np.arange(300, 320), 80), rng.integers(320, 400, 1000)])
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True)
    for width, among in ((3, 10), (64, 10), (100, 300)):  # (sources near the hubs: scans stop early)
        sources = rng.integers(0, among, width)
        for depth, scan_parents in zip(range(4), (False, True, False, True)):
            (pulled, *pull_state), *scatters = pull_both_ways(A, sources, depth, with_parents, scan_parents)
            for scattered, *scatter_state in scatters:
                assert tuple(int(x) for x in pulled) == tuple(int(x) for x in scattered)
                for a, b in zip(pull_state, scatter_state):
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode", DIRECTIONS)
@pytest.mark.parametrize("width", [16, 70])
def test_mesh(mode, width):
    """A 2D mesh (the graphs whose pull levels run from the frontier: a wave's edges are a few
    of the rows still short of some search), every direction."""
    A = mesh(40, 30)
    S = sp.csr_matrix(A.to_scipy())
    sources = np.random.default_rng(width).integers(0, A.n, width)
    check_run(A, S, sources.tolist(), run(A, sources, mode), mode)


# -- the searches one at a time ---------------------------------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), data=st.data(), mode=st.sampled_from(DIRECTIONS),
       width=st.sampled_from([1, 3, 9, 70]), limit=st.sampled_from([NO_LIMIT, 0, 1, 3]),
       outputs=st.sampled_from([(True, True), (True, False), (False, True)]), marked=st.booleans(),
       queue=st.booleans())
def test_separate_generated(graph, data, mode, width, limit, outputs, marked, queue):
    """Forced one at a time, on random graphs (directed ones too): scipy's levels, BFS trees,
    records the sums of separate ``ld.bfs`` calls' (on a graph under a core's rows, the searches
    run side by side on the cores), each search the queue search (``queue``, a mode that may
    push) or the fused one, testing its bits or, ``marked``, its values
    (``settings.marked_searches``); the rule is left as it was given."""
    src, dst, n, symmetrize, _ = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize)
    S = sp.csr_matrix(A.to_scipy())
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=width, max_size=width))
    rule = DirectionRule(mode, n, A.block.by_col.nnz)
    before = (rule.push, rule.previous, rule.unexplored)
    with ld_settings.changed(marked_searches="always" if marked else "never",
                             queue_search_edges=ld_settings.queue_search_edges if queue else 0):
        res = run(A, sources, levels=outputs[0], parents=outputs[1], max_levels=limit, rule=rule,
                  searches="separate")
        assert (res.levels is None) != outputs[0] and (res.parents is None) != outputs[1]
        check_separate(A, S, sources, res, mode, limit)
    assert (rule.push, rule.previous, rule.unexplored) == before


@pytest.mark.parametrize("mode", DIRECTIONS)
@pytest.mark.parametrize("graph", ["mesh", "marked mesh", "kronecker"])
def test_separate_on_a_big_graph(mode, graph, monkeypatch):
    """A graph of more rows than a core's (fused.py's PARALLEL_ROWS): a thin one's searches
    (a mesh's) side by side on the cores, each on one, as its levels would run anyway, testing
    their bits or (marked) their values; another's (Kronecker's) one after another, each using
    the cores as ld.bfs does; rows past the graph's -1."""
    monkeypatch.setattr(ld_settings, "marked_searches", "always" if graph == "marked mesh" else "never")
    pools = []
    made = multi_fused._side_by_side
    monkeypatch.setattr(multi_fused, "_side_by_side", lambda: pools.append(made()) or pools[-1])
    if graph.endswith("mesh"):
        A, sources = mesh(300, 230), [0, 68999, 345, 345]
    else:
        A = ld.kronecker(17, seed=1)
        sources = np.flatnonzero(A.block.by_col.degrees()[:A.n] > 0)[::4099][:4].tolist()
    assert A.n >= multi_fused.SINGLE_PARALLEL_ROWS and len(sources) == 4
    S = sp.csr_matrix(A.to_scipy())
    res = run(A, sources, mode, rows=A.block.by_col.nmajor + 5, searches="separate")
    check_separate(A, S, sources, res, mode)
    assert bool(pools) == (graph.endswith("mesh") and numba.get_num_threads() > 1)


@pytest.mark.parametrize("share_elements", [1, None])
def test_queue_searches_share_the_threads_by_their_work(share_elements, monkeypatch):
    """A small graph's batch run apart as queue searches: on one thread while the batch reads
    fewer than ``QUEUE_SHARE_ELEMENTS`` vertices and edges a thread (the pool's hand-over costs
    more), else side by side; the tables and records are the single searches' either way."""
    if share_elements is not None:
        monkeypatch.setattr(engine, "QUEUE_SHARE_ELEMENTS", share_elements)
    pools = []
    made = multi_fused._side_by_side
    monkeypatch.setattr(multi_fused, "_side_by_side", lambda: pools.append(made()) or pools[-1])
    A = mesh(20, 15)
    S = sp.csr_matrix(A.to_scipy())
    sources = [0, 299, 150, 7, 7]
    res = run(A, sources, rows=A.block.by_col.nmajor + 3, searches="separate")
    assert res.engine == QUEUE_ENGINE
    check_separate(A, S, sources, res, "auto")
    assert bool(pools) == (share_elements == 1 and numba.get_num_threads() > 1)


@pytest.mark.parametrize("width", [16, 130])
def test_probe_parts_a_mesh_not_a_kronecker_graph(width):
    """Auto: a mesh's batch, whose first levels find about one entry a vertex, runs one search
    at a time; a Kronecker graph's, whose second level finds many, runs bit-parallel, exactly
    as the forced bit-parallel run (records included)."""
    A = mesh(40, 30)
    S = sp.csr_matrix(A.to_scipy())
    sources = np.random.default_rng(width).integers(0, A.n, width).tolist()
    check_separate(A, S, sources, run(A, sources, searches="auto"), "auto")
    K = ld.kronecker(12, seed=1)
    degrees = K.block.by_col.degrees()
    sources = np.flatnonzero(degrees[:K.n] > 0)[::31][:width]
    auto, together = run(K, sources, searches="auto"), run(K, sources)
    assert not auto.separate
    np.testing.assert_array_equal(auto.levels, together.levels)
    np.testing.assert_array_equal(auto.counts, together.counts)
    check_run(K, sp.csr_matrix(K.to_scipy()), sources.tolist(), auto, "auto")



@pytest.mark.parametrize("width", [64, 512])
def test_probe_on_a_thin_graph_asks_more_a_word(width):
    """Auto, on a thin graph: sources side by side on a mesh's row find a few entries a vertex in
    the probe (more than MIN_SHARING), which is not enough for a batch of ``width`` searches
    there; a batch of a few distinct sources repeated finds ``width`` / 4 a vertex and runs
    together. The rows are the single searches' either way."""
    A = mesh(60, 60)
    S = sp.csr_matrix(A.to_scipy())
    assert multi_fused._min_sharing(A.nvals, A.n, width // 64) == multi_fused.THIN_SHARING_PER_WORD * (width // 64)
    assert multi_fused._min_sharing(40 * A.n, A.n, width // 64) == multi_fused.MIN_SHARING
    in_a_row = list(range(60)) * (width // 60) + list(range(width % 60))
    ran = run(A, in_a_row, searches="auto")
    together = run(A, in_a_row)
    first_two = together.counts[:2]
    assert first_two[:, 1].sum() > multi_fused.MIN_SHARING * first_two[:, 4].sum()    # (1.5 ran it together)
    check_separate(A, S, in_a_row, ran, "auto")
    repeated = [5, 1800, 3599, 2222] * (width // 4)
    ran = run(A, repeated, searches="auto")
    assert not ran.separate
    check_run(A, S, repeated, ran, "auto")

def test_bfs_multi_names_what_ran():
    """``ld.bfs_multi``'s records say whether a batch's searches ran together or apart, and
    apart, what ran each (the queue search on a small graph, unless ``queue_search_edges`` is
    0); the rows are those of ld.bfs either way."""
    A = mesh(40, 30)
    sources = [0, 500, 1199]
    single = np.array([ld.bfs(A, s).levels.to_numpy() for s in sources])
    for searches in ("auto", "separate", "together"):
        with ld_settings.changed(multi_searches=searches):
            res = ld.bfs_multi(A, sources)
        np.testing.assert_array_equal(res.levels.to_numpy(), single)
        expected = "together" if searches == "together" else "separate"
        assert {r["searches"] for r in res.stats} == {expected}
        # (one at a time on this small graph: each the queue search, the depths timed as one run)
        assert {r["engine"] for r in res.stats} == {"cpu" if searches == "together" else QUEUE_ENGINE}
        if searches != "together":
            *inner, last = res.stats
            assert all(r["seconds"] is None for r in inner) and last["run_levels"] == len(res.stats)
            assert last["run_seconds"] > 0
    with ld_settings.changed(multi_searches="separate", queue_search_edges=0):
        res = ld.bfs_multi(A, sources)
    np.testing.assert_array_equal(res.levels.to_numpy(), single)
    assert {r["engine"] for r in res.stats} == {"cpu"} and all(r["seconds"] >= 0 for r in res.stats)


def test_a_batch_past_the_threshold_on_narrow_levels_runs_queue_searches():
    """Past ``queue_search_edges``, a thin graph whose levels are narrow (a path beside an isolated
    vertex 0, a 20 x 300 mesh) runs its searches apart as queue searches, as ``ld.bfs`` would;
    a shallow thin graph's as the fused search; the rows are ld.bfs's either way."""
    rng = np.random.default_rng(4)
    path = ld.Matrix.from_edges(np.arange(1, 3000), np.arange(2, 3001), 3001, symmetrize=True)
    shallow = ld.Matrix.from_edges(rng.integers(0, 20_000, 60_000), rng.integers(0, 20_000, 60_000), 20_000,
                                   symmetrize=True)
    for A, engine_ran in ((path, QUEUE_ENGINE), (mesh(20, 300), QUEUE_ENGINE), (shallow, "cpu")):
        sources = [1, A.n // 2, A.n - 1]
        with ld_settings.changed(queue_search_edges=16, multi_searches="separate"):
            res = ld.bfs_multi(A, sources)
            single = np.array([ld.bfs(A, s).levels.to_numpy() for s in sources])
        assert {r["engine"] for r in res.stats} == {engine_ran}, A.n
        np.testing.assert_array_equal(res.levels.to_numpy(), single)


def test_queue_searches_need_no_cleared_buffers(monkeypatch):
    """A batch's queue searches take their buffers as recycled arrays hold them: every record
    row the walks reach is cleared by the first walk that reaches it, so the records are the
    sums of separate searches' even where each buffer comes full of another batch's numbers
    (sources of different depths on a path and a mesh, each thread's deepest walk not its
    first; no depth limit, and a limit of 7 levels)."""
    made = multi_fused.recycle.empty

    def spoiled(shape, dtype):
        array = made(shape, dtype)
        array.fill(7)
        return array
    monkeypatch.setattr(multi_fused.recycle, "empty", spoiled)
    path = ld.Matrix.from_edges(np.arange(0, 4999), np.arange(1, 5000), 5000, symmetrize=True)
    for A, sources in ((path, [2500, 2400, 0, 4999, 1200, 2500, 10]), (mesh(60, 70), [2100, 0, 4199, 35, 2100])):
        S = sp.csr_matrix(A.to_scipy())
        for limit in (NO_LIMIT, 7):
            res = run(A, sources, levels=True, parents=True, max_levels=limit, searches="separate")
            assert res.engine == QUEUE_ENGINE
            check_separate(A, S, sources, res, "auto", limit)


def test_searches_setting_checked():
    A = mesh(4, 4)
    with pytest.raises(ValueError, match="multi_searches must be one of 'auto', 'together', 'separate'"):
        run(A, [0], searches="apart")


# -- the cores --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["pull", "auto"])
def test_same_on_one_thread_and_all(mode):
    """Pull levels over enough rows, and the tables, are cut in chunks on all the cores: levels,
    parents and records (but the seconds) are those of one thread."""
    A = ld.kronecker(17, seed=2)
    degrees = A.block.by_col.degrees()
    sources = np.flatnonzero(degrees[:A.n] > 0)[::997][:65]
    assert (degrees > 0).sum() >= multi_fused.PARALLEL_ROWS
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run(A, sources, mode)
    finally:
        numba.set_num_threads(threads)
    every = run(A, sources, mode)
    np.testing.assert_array_equal(one.levels, every.levels)
    np.testing.assert_array_equal(one.parents, every.parents)
    np.testing.assert_array_equal(one.counts, every.counts)
    S = sp.csr_matrix(A.to_scipy())
    np.testing.assert_array_equal(every.levels[:A.n, :4].T, hop_levels(S, sources[:4]))
    if mode == "pull":
        assert (every.counts[:, 3] == 0).all()


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("width", [0, MULTI_FUSED_MAX_WIDTH + 1])
def test_batch_width_checked(width):
    A = ld.kronecker(5)
    with pytest.raises(ValueError, match="sources"):
        run(A, np.zeros(width, np.int64))


@pytest.mark.parametrize("source", [-1, 32])
def test_sources_checked(source):
    A = ld.kronecker(5)
    with pytest.raises(ValueError, match="sources"):
        run(A, [0, source])


def test_rows_checked():
    A = ld.kronecker(5)
    with pytest.raises(ValueError, match="rows"):
        run(A, [0], rows=A.block.by_col.nmajor - 1)


# -- the levels as bit planes -----------------------------------------------------------------
def test_levels_as_planes_by_the_graph():
    """By the graph (engine.levels_as_planes): a Kronecker graph's levels come back as bit
    planes, a mesh's (thin) as the table; forced either way, the same levels and records; a
    mesh forced into planes makes as many as its depths take."""
    K = ld.kronecker(10, seed=1)
    sources = np.flatnonzero(K.block.by_col.degrees()[:K.n] > 0)[::13][:70]
    by_graph, table = run(K, sources), run(K, sources, planes=False)
    assert by_graph.in_planes and not table.in_planes
    np.testing.assert_array_equal(by_graph.levels, table.levels)
    np.testing.assert_array_equal(by_graph.counts, table.counts)
    M = mesh(20, 20)
    S = sp.csr_matrix(M.to_scipy())
    assert not run(M, [0, 5, 399]).in_planes
    forced = run(M, [0, 5, 399], planes=True)
    assert forced.in_planes
    check_run(M, S, [0, 5, 399], forced, "auto")
