"""The fused multi-source search's kernel (kernels/multi_fused.cu, marker gpu): every search's
levels equal scipy.sparse.csgraph's hop distances (truncated at a depth limit), parents form a
BFS tree, the level records count the (search, vertex) pairs, and the direction rule's choices
and final state are those DirectionRule.choose makes from the same inputs; on random directed
and undirected graphs, from isolated and repeated sources, for widths of one to eight words;
against the CPU twin where it exists."""
import importlib.util

import numpy as np
import pytest
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.settings import settings as ld_settings
from lagraph_dist.local.cpu_kernels import level_planes_rows
from lagraph_dist.local.engine import MULTI_FUSED_MAX_WIDTH, MULTI_RECORD_FIELDS, LevelPlanes
from lagraph_dist.local.layout import MULTI_FUSED_PULL_LANES_BUILT
from extras_checks import check_tree, hop_levels, truncated
from helpers import edges_to_scipy

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")]


@pytest.fixture(scope="module")
def kernels():
    from lagraph_dist.local.gpu_kernels import GpuKernels
    from lagraph_dist.local.gpu_kernels.multi_fused import MultiFusedKernels

    class K(GpuKernels, MultiFusedKernels):
        pass

    return K()


def host(array):
    """A run's output on the host; levels kept as bit planes made into their (rows, k) table
    (by the CPU twin, which tests/test_level_planes.py checks on its own)."""
    if isinstance(array, LevelPlanes):
        return level_planes_rows(LevelPlanes(host(array.words), array.k), 0, array.shape[0])
    return array.get() if hasattr(array, "get") else np.asarray(array)


def random_graph(seed, n, m, *, symmetrize, isolated=0):
    """(src, dst) of m random edges over the first n - isolated vertices (the rest isolated),
    self-loops dropped."""
    rng = np.random.default_rng(seed)
    live = n - isolated
    src, dst = rng.integers(0, live, m), rng.integers(0, live, m)
    keep = src != dst
    return src[keep].astype(np.int64), dst[keep].astype(np.int64), n, symmetrize


def run(kernels, graph, sources, *, mode="auto", depth_limit=None, levels=True, parents=True, extra_rows=0):
    src, dst, n, symmetrize = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=getattr(kernels, "backend", "gpu"))
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    out_csr, in_csr = A.block.by_col, A.block.by_row
    degrees = A.out_degree().part.values
    rows = out_csr.nmajor + extra_rows
    rule = DirectionRule(mode, A.n, A.nvals)
    max_levels = A.n if depth_limit is None else depth_limit
    res = kernels.multi_bfs_fused(out_csr, in_csr, np.asarray(sources, dtype=np.int64), degrees, rows=rows,
                                  levels=levels, parents=parents, rule=rule, max_levels=max_levels)
    return A, S, res, rule, rows


def check(kernels, graph, sources, *, mode="auto", depth_limit=None, levels=True, parents=True, extra_rows=0):
    A, S, res, rule, rows = run(kernels, graph, sources, mode=mode, depth_limit=depth_limit, levels=levels,
                                parents=parents, extra_rows=extra_rows)
    n, k = A.n, len(sources)
    expected = hop_levels(S, sources)
    if depth_limit is not None:
        expected = truncated(expected, depth_limit)
    if levels:
        got = host(res.levels)
        assert got.dtype == np.int32 and got.shape == (rows, k)
        np.testing.assert_array_equal(got[:n].T, expected)
        assert (got[n:] == -1).all()
    else:
        assert res.levels is None
    if parents:
        got = host(res.parents)
        assert got.dtype == np.int32 and got.shape == (rows, k)
        assert (got[n:] == -1).all()
        for i, source in enumerate(sources):
            check_tree(S, source, expected[i], got[:n, i].astype(np.int64), f"search {i}")
    else:
        assert res.parents is None
    check_records(S, A, sources, expected, res, rule, mode, depth_limit)
    return res


def check_records(S, A, sources, expected, res, rule, mode, depth_limit):
    """The counts of each level, and the rule's choices and state, from the expected levels:
    DirectionRule.choose asked as algebra/multi.py's _MatrixLevels.step asks it."""
    degrees = np.diff(sp.csr_matrix(S).indptr)
    depth = int(expected.max())
    ran = depth + 1 if depth_limit is None or depth < depth_limit else depth
    assert res.counts.shape == (ran, len(MULTI_RECORD_FIELDS)) and res.counts.dtype == np.int64
    assert res.seconds.shape == (ran,) and (res.seconds >= 0).all() and res.clock
    twin = DirectionRule(mode, A.n, A.nvals)
    for level in range(ran):
        here, after = expected == level, expected == level + 1
        reached = (expected >= 0) & (expected <= level)
        complete = reached.all(axis=0)
        frontier_vertices = here.any(axis=0)
        push = twin.choose(int(frontier_vertices.sum()), int(degrees[frontier_vertices].sum()),
                           unexplored=A.nvals - int(degrees[complete].sum()))
        frontier, discovered, _, pushed, vertices = res.counts[level].tolist()
        assert (frontier, discovered, vertices) == (int(here.sum()), int(after.sum()), int(after.any(axis=0).sum()))
        assert pushed == int(push), f"level {level}"
    assert (rule.push, rule.previous, rule.unexplored) == (twin.push, twin.previous, twin.unexplored)
    assert res.counts[:, 0].sum() == int(((expected >= 0) & (expected < ran)).sum())


GRAPHS = {
    "directed": lambda: random_graph(1, 300, 900, symmetrize=False, isolated=20),
    "undirected": lambda: random_graph(2, 500, 1000, symmetrize=True, isolated=30),
    "sparse-directed": lambda: random_graph(3, 400, 500, symmetrize=False),
    "hub": lambda: hub_graph(4),
}


def hub_graph(seed):
    """Hubs of hundreds of edges (the push's giants, the pull's sliced rows) among sparse edges."""
    rng = np.random.default_rng(seed)
    n = 3000
    src = [rng.integers(0, n, 4000)]
    dst = [rng.integers(0, n, 4000)]
    for hub in (5, 17, 999):
        others = rng.choice(n, 700, replace=False)
        src += [np.full(700, hub), others[:350]]
        dst += [others, np.full(350, hub)]
    src, dst = np.concatenate(src), np.concatenate(dst)
    keep = src != dst
    return src[keep].astype(np.int64), dst[keep].astype(np.int64), n, False


@pytest.fixture(params=[(None, None), (1, None), (2, None), (None, True)],
                ids=["by the graph", "one block an SM", "two blocks an SM", "levels as planes"])
def blocks_per_sm(request, kernels, monkeypatch):
    """Each test with the build and the levels' form the graph picks (these graphs are thin:
    one block a multiprocessor, levels as rows), with each build forced, and with the levels
    kept as bit planes."""
    blocks, planes = request.param
    monkeypatch.setattr(kernels, "multi_fused_blocks_per_sm", blocks)
    monkeypatch.setattr(kernels, "multi_fused_level_planes", planes)
    return blocks


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("mode", ["push", "pull", "auto"])
@pytest.mark.parametrize("k", [1, 64, 65, 200, 512])
def test_levels_and_parents_equal_csgraph(kernels, blocks_per_sm, name, mode, k):
    graph = GRAPHS[name]()
    n = graph[2]
    sources = np.random.default_rng(k).integers(0, n, k)        # repeats happen
    check(kernels, graph, sources, mode=mode)


@pytest.mark.parametrize("lanes", MULTI_FUSED_PULL_LANES_BUILT)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_every_pull_lanes_build(kernels, lanes, name):
    """One word a vertex: every built number of lanes a pull row reads with (the hub graph's
    long rows, read in slices, among them), levels and parents, pull only and auto."""
    graph = GRAPHS[name]()
    sources = np.random.default_rng(lanes).integers(0, graph[2], 64)
    kept = kernels.multi_fused_pull_lanes
    kernels.multi_fused_pull_lanes = lanes
    try:
        for mode in ("pull", "auto"):
            check(kernels, graph, sources, mode=mode)
    finally:
        kernels.multi_fused_pull_lanes = kept


def path_graph(n=120):
    """A directed path 0 -> 1 -> ... -> n-1: deeper than the levels a run keeps to its end."""
    return np.arange(n - 1, dtype=np.int64), np.arange(1, n, dtype=np.int64), n, False


@pytest.mark.parametrize("planes", [False, True], ids=["rows", "planes"])
@pytest.mark.parametrize("kept", [0, 1, 3, 32])
@pytest.mark.parametrize("name", sorted(GRAPHS) + ["path"])
def test_every_number_of_kept_levels(kernels, kept, name, planes, monkeypatch):
    """The levels a run keeps to its end (written then, row by row) and the deeper ones (written
    as they settle) meet without a gap or a double: none kept, a few (the frontier slots'
    rotation starts after them), all of a shallow graph's, and a path deeper than any; one
    word and several, with a depth limit inside the kept ones and past them. Levels asked for
    as bit planes keep no frontier (the kept levels do not matter to them): a run deeper than
    its planes hold runs again writing rows."""
    graph = path_graph() if name == "path" else GRAPHS[name]()
    monkeypatch.setattr(kernels, "multi_fused_level_planes", planes)
    before = kernels.multi_fused_kept_levels
    kernels.multi_fused_kept_levels = kept
    try:
        for k in (64, 200):
            sources = np.random.default_rng(kept + k).integers(0, graph[2], k)
            check(kernels, graph, sources, mode="auto")
            for depth_limit in (2, 40):
                check(kernels, graph, sources, mode="auto", depth_limit=depth_limit, parents=False, extra_rows=3)
    finally:
        kernels.multi_fused_kept_levels = before


def test_kept_levels_grow_to_a_deep_graph(kernels):
    """A graph's workspace keeps MULTI_FUSED_KEPT_FIRST levels; a run that goes deeper grows
    them to its depth (rounded up to KEPT_STEP, at most MULTI_FUSED_KEPT_LEVELS) for the next
    runs, whose levels are the same; a shallow graph's stay as they were."""
    from lagraph_dist.local.gpu_kernels.multi_fused import KEPT_STEP, MULTI_FUSED_KEPT_FIRST
    kernels._multi_fused_cache = None
    deep = path_graph(100)
    check(kernels, deep, [0, 7, 0], mode="auto")
    kept = kernels._multi_fused_cache[1]["kept"]
    assert 100 <= kept < 100 + 2 * KEPT_STEP and kept % KEPT_STEP == 0       # (depth 99, and the empty level)
    check(kernels, deep, [0, 7, 0], mode="auto")
    check(kernels, deep, np.arange(70), mode="auto", depth_limit=90, parents=False, extra_rows=3)
    shallow = GRAPHS["undirected"]()
    check(kernels, shallow, [0, 1, 2], mode="auto")
    assert kernels._multi_fused_cache[1]["kept"] == MULTI_FUSED_KEPT_FIRST


def test_kept_levels_grow_within_a_sliver_of_the_device(kernels, monkeypatch):
    """Growth stops at MULTI_FUSED_KEPT_GROW_SHARE of the device's total memory (bfs_multi's
    plan does not count the kept words): a device whose share holds 40 slots keeps 40."""
    from lagraph_dist.local.gpu_kernels.multi_fused import MULTI_FUSED_KEPT_GROW_SHARE
    kernels._multi_fused_cache = None
    deep = path_graph(100)
    free, _ = kernels.free_device_bytes()
    device = {"total": 1}                                  # (no room: the first run keeps its 32)
    monkeypatch.setattr(kernels, "free_device_bytes", lambda: (free, device["total"]))
    check(kernels, deep, [0, 7, 0], mode="auto")
    space = kernels._multi_fused_cache[1]
    assert space["kept"] == 32
    slot_bytes = 8 * space["frontiers"].size // (space["kept"] + 3)    # (the block's rows, padded)
    device["total"] = int(40 * slot_bytes / MULTI_FUSED_KEPT_GROW_SHARE) + 1
    check(kernels, deep, [0, 7, 0], mode="auto")
    assert kernels._multi_fused_cache[1]["kept"] == 40
    check(kernels, deep, [3, 0], mode="auto")


def test_kept_levels_out_of_range_refused(kernels):
    from lagraph_dist.local.gpu_kernels.multi_fused import MULTI_FUSED_KEPT_LEVELS
    before = kernels.multi_fused_kept_levels
    for wrong in (-1, MULTI_FUSED_KEPT_LEVELS + 1):
        kernels.multi_fused_kept_levels = wrong
        try:
            with pytest.raises(ValueError, match="multi_fused_kept_levels"):
                run(kernels, GRAPHS["directed"](), [0, 1])
        finally:
            kernels.multi_fused_kept_levels = before


def test_kept_levels_fit_the_free_memory(kernels, monkeypatch):
    """Kept frontiers take at most MULTI_FUSED_KEPT_SHARE of the free memory: fewer are kept when
    it is short (none at all when not even one fits), the levels the same."""
    from lagraph_dist.local.gpu_kernels.multi_fused import MULTI_FUSED_KEPT_SHARE
    n, width = 1000, 2
    slot = 8 * n * width
    for free, kept in ((int(5 * slot / MULTI_FUSED_KEPT_SHARE), 5), (slot, 0), (1 << 50, kernels.multi_fused_kept_levels)):
        monkeypatch.setattr(kernels, "free_device_bytes", lambda free=free: (free, free))
        assert kernels._multi_fused_kept(n, width, 10**6) == kept
    monkeypatch.setattr(kernels, "free_device_bytes", lambda: (0, 0))
    kernels._multi_fused_cache = None
    check(kernels, path_graph(), [0, 5, 119], mode="auto")


def test_unbuilt_pull_lanes_refused(kernels):
    kept = kernels.multi_fused_pull_lanes
    kernels.multi_fused_pull_lanes = 3
    try:
        with pytest.raises(ValueError, match="multi_fused_pull_lanes"):
            run(kernels, GRAPHS["directed"](), [0, 1])
    finally:
        kernels.multi_fused_pull_lanes = kept


def test_giant_capacity_refused(kernels, monkeypatch):
    """The giants' counter holds their count above MULTI_FUSED_GIANT_SHIFT bits: a graph with
    more giants than fit is refused before any launch (here, a shift that leaves room for one)."""
    from lagraph_dist.local.gpu_kernels import multi_fused
    monkeypatch.setattr(multi_fused, "MULTI_FUSED_GIANT_SHIFT", 63)
    kernels._multi_fused_cache = None
    launches = kernels.launches
    with pytest.raises(ValueError, match="out-edges"):
        run(kernels, GRAPHS["hub"](), [0, 1])                   # three hubs of 700 out-edges
    assert kernels.launches == launches
    kernels._multi_fused_cache = None


@pytest.mark.parametrize("limit", [0, 1, 2, 4])
@pytest.mark.parametrize("mode", ["push", "pull", "auto"])
def test_depth_limits(kernels, limit, mode):
    graph = GRAPHS["undirected"]()
    sources = np.random.default_rng(limit).integers(0, graph[2], 130)
    check(kernels, graph, sources, mode=mode, depth_limit=limit)


def test_isolated_and_repeated_sources(kernels):
    graph = GRAPHS["directed"]()
    n = graph[2]
    sources = [n - 1, n - 1, 0, 0, 0, n - 5, 3]                    # the last 20 are isolated
    check(kernels, graph, sources)
    check(kernels, graph, [n - 1])                                   # nothing to find: one level


@pytest.mark.parametrize("levels,parents", [(True, False), (False, True), (False, False)])
def test_one_output_or_none(kernels, levels, parents):
    graph = GRAPHS["hub"]()
    sources = np.random.default_rng(7).integers(0, graph[2], 100)
    check(kernels, graph, sources, levels=levels, parents=parents, extra_rows=40)


def test_runs_in_a_row_reuse_the_workspace(kernels):
    """A run leaves its frontier slots zero for the next: many runs of the same graph and width
    (depth-limited ones, which stop with a frontier left, among them) agree with csgraph. Their
    batches differ in size within the width, so the workspace's page-locked sources hold a
    longer batch's tail when a shorter one runs."""
    graph = GRAPHS["undirected"]()
    rng = np.random.default_rng(11)
    for limit, count in ((None, 128), (1, 70), (None, 66), (3, 100), (None, 65)):
        check(kernels, graph, rng.integers(0, graph[2], count), depth_limit=limit)


def test_one_launch_one_read(kernels):
    graph = GRAPHS["hub"]()
    run(kernels, graph, [1, 2, 3])                                  # builds and caches first
    launches, reads = kernels.launches, kernels.reads
    res = run(kernels, graph, [4, 5, 6])[2]
    assert kernels.launches - launches == 1 and kernels.reads - reads == 1
    assert res.clock == "device %globaltimer"


def test_blocks_by_the_graph(kernels, monkeypatch):
    """A thin graph (mean out-degree under THIN_DEGREE: a path) runs one block a
    multiprocessor, a Kronecker graph two; multi_fused_blocks_per_sm forces either, and
    anything else is refused before a launch."""
    from lagraph_dist.local.engine import THIN_DEGREE
    launched = []
    launch = kernels.launch_cooperative
    monkeypatch.setattr(kernels, "launch_cooperative",
                        lambda function, blocks, *rest: (launched.append(blocks), launch(function, blocks, *rest))[1])
    coo = ld.kronecker(10, seed=2).to_scipy().tocoo()
    kronecker = (coo.row.astype(np.int64), coo.col.astype(np.int64), coo.shape[0], False)
    path = path_graph(300)
    assert coo.nnz >= THIN_DEGREE * coo.shape[0] and len(path[0]) < THIN_DEGREE * path[2]
    for graph, per_sm in ((kronecker, 2), (path, 1)):
        check(kernels, graph, [0, 1, 2])
        assert launched[-1] == per_sm * kernels._sms
    monkeypatch.setattr(kernels, "multi_fused_blocks_per_sm", 2)
    check(kernels, path, [0, 1, 2])
    assert launched[-1] == 2 * kernels._sms
    for wrong in (0, 3, "1"):
        monkeypatch.setattr(kernels, "multi_fused_blocks_per_sm", wrong)
        before = len(launched)
        with pytest.raises(ValueError, match="multi_fused_blocks_per_sm"):
            run(kernels, path, [0, 1])
        assert len(launched) == before


def test_width_limits(kernels):
    from lagraph_dist.local.gpu_kernels.multi_fused import multi_fused_width
    assert [multi_fused_width(k) for k in (1, 64, 65, 128, 129, 256, 257, 512)] == [1, 1, 2, 2, 4, 4, 8, 8]
    with pytest.raises(ValueError):
        multi_fused_width(MULTI_FUSED_MAX_WIDTH + 1)


def test_kronecker_rows_equal_ld_bfs(kernels):
    A = ld.kronecker(12, seed=5, backend="gpu")
    degrees = A.out_degree().part.values
    candidates = np.flatnonzero(degrees.get()[:A.n] > 0)
    sources = np.random.default_rng(3).choice(candidates, 300)
    rule = DirectionRule("auto", A.n, A.nvals)
    res = kernels.multi_bfs_fused(A.block.by_col, A.block.by_row, sources, degrees, rows=A.block.by_col.nmajor,
                                  levels=True, parents=True, rule=rule, max_levels=A.n)
    levels = host(res.levels)
    for i in (0, 1, 150, 299):
        np.testing.assert_array_equal(levels[:A.n, i], ld.bfs(A, int(sources[i]), parents=False).levels.to_numpy())
    assert set(res.counts[:, 3].tolist()) == {0, 1}                # both directions ran


@pytest.mark.skipif(importlib.util.find_spec("lagraph_dist.local.cpu_kernels.multi_fused") is None,
                    reason="no CPU twin yet")
@pytest.mark.parametrize("name", ["hub", "undirected"])
def test_against_the_cpu_twin(kernels, name):
    """The same levels, counts (but the entries read) and rule state as the CPU twin's, its
    searches run together as the GPU's always are (on a thin graph its probe may run them
    apart)."""
    from lagraph_dist.local.cpu_kernels.multi_fused import multi_bfs_fused
    src, dst, n, symmetrize = GRAPHS[name]()
    sources = np.random.default_rng(9).integers(0, n, 90)
    results = []
    for backend, search in (("gpu", kernels.multi_bfs_fused), ("cpu", multi_bfs_fused)):
        M = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
        rule = DirectionRule("auto", M.n, M.nvals)
        with ld_settings.changed(multi_searches="together"):
            res = search(M.block.by_col, M.block.by_row, sources, M.out_degree().part.values,
                         rows=M.block.by_col.nmajor, levels=True, parents=False, rule=rule, max_levels=M.n)
        results.append((host(res.levels)[:n], res.counts[:, [0, 1, 3, 4]], (rule.push, rule.previous, rule.unexplored)))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


def clique_chain(cliques=100, size=10):
    """Cliques of ``size`` vertices in a chain, the last vertex of each joined to the first of
    the next (undirected): not thin (mean out-degree above 8), two levels a clique deep."""
    src, dst = [], []
    for c in range(cliques):
        members = np.arange(c * size, (c + 1) * size)
        a, b = np.meshgrid(members, members)
        keep = a != b
        src.append(a[keep])
        dst.append(b[keep])
        if c + 1 < cliques:
            src.append([members[-1]])
            dst.append([members[-1] + 1])
    src, dst = np.concatenate(src).astype(np.int64), np.concatenate(dst).astype(np.int64)
    return src, dst, cliques * size, True


def test_levels_as_planes_by_the_graph(kernels, monkeypatch):
    """By the graph: a graph that is not thin keeps its levels as bit planes (as many depth
    planes as its depths take), a thin one as rows; forced either way; the levels the same."""
    from lagraph_dist.local.engine import thin_graph
    dense = random_graph(5, 400, 4000, symmetrize=True)
    thin = GRAPHS["undirected"]()
    assert not thin_graph(2 * 4000, 400) and thin_graph(2 * 1000, 500)
    monkeypatch.setattr(kernels, "multi_fused_level_planes", None)
    res = check(kernels, dense, np.arange(70), mode="auto")
    expected = hop_levels(edges_to_scipy(*dense[:3], symmetrize=True), np.arange(70))
    # (the run's frontiers: depths 0 .. max, and the empty one it stops at)
    assert isinstance(res.levels, LevelPlanes) and res.levels.depth_planes == int(expected.max() + 1).bit_length()
    assert not isinstance(check(kernels, thin, np.arange(70), mode="auto").levels, LevelPlanes)
    monkeypatch.setattr(kernels, "multi_fused_level_planes", False)
    assert not isinstance(check(kernels, dense, np.arange(70), mode="auto").levels, LevelPlanes)
    monkeypatch.setattr(kernels, "multi_fused_level_planes", "yes")
    with pytest.raises(ValueError, match="multi_fused_level_planes"):
        run(kernels, dense, [0, 1])


def test_planes_whatever_the_memory_held(kernels, monkeypatch):
    """A run in planes gives the exact levels from memory that held every bit set (the pool's
    block of the same size reused): both readers (the device's and the host's) give -1 for the
    isolated vertices and the padding rows, and plane 0 is clear there."""
    import cupy as cp
    graph, extra = random_graph(9, 500, 3000, symmetrize=False, isolated=60), 40
    sources = np.array([0, 3, 470, 499, 3, 17] + list(range(100, 160)))       # (isolated and repeated sources)
    monkeypatch.setattr(kernels, "multi_fused_level_planes", True)
    run(kernels, graph, sources, extra_rows=extra)              # (the workspace made; its plane bits known)
    plane_bits = kernels._multi_fused_cache[1]["plane_bits"]
    garbage = cp.full((1 + plane_bits, 500 + extra, 2), np.uint64(2**64 - 1), dtype=cp.uint64)
    del garbage                                                  # (its block back in the pool, ones kept)
    A, S, res, _, rows = run(kernels, graph, sources, extra_rows=extra)
    assert isinstance(res.levels, LevelPlanes) and res.levels.words.shape[1:] == (rows, 2)
    expected = hop_levels(S, sources)
    for got in (host(res.levels), kernels.level_planes_rows(res.levels, 0, rows).get()):
        np.testing.assert_array_equal(got[:A.n].T, expected)
        assert (got[A.n:] == -1).all()
    reached = res.levels.words[0].get()
    unreached = np.setdiff1d(np.arange(440, rows), sources)      # (isolated but not a source, and the padding)
    assert not reached[unreached].any()


def test_runs_in_planes_keep_no_frontier_slots(kernels, monkeypatch):
    """A graph searched only in planes holds the three rotating frontier slots alone; its first
    run as rows makes the MULTI_FUSED_KEPT_FIRST kept ones in the same workspace; the levels the
    same either way."""
    from lagraph_dist.local.gpu_kernels.multi_fused import MULTI_FUSED_KEPT_FIRST
    dense, sources = random_graph(5, 400, 4000, symmetrize=True), np.arange(70)
    kernels._multi_fused_cache = None
    monkeypatch.setattr(kernels, "multi_fused_level_planes", True)
    A, S, res, _, rows = run(kernels, dense, sources)
    expected = hop_levels(S, sources)
    assert isinstance(res.levels, LevelPlanes)
    np.testing.assert_array_equal(host(res.levels)[:A.n].T, expected)
    space = kernels._multi_fused_cache[1]
    slot = space["frontiers"].size // 3                  # (the block's rows, padded, two words a vertex)
    assert space["kept"] == 0 and slot >= 400 * 2
    monkeypatch.setattr(kernels, "multi_fused_level_planes", False)
    again = kernels.multi_bfs_fused(A.block.by_col, A.block.by_row, sources, A.out_degree().part.values,
                                    rows=rows, levels=True, parents=False, rule=DirectionRule("auto", A.n, A.nvals),
                                    max_levels=A.n)
    assert not isinstance(again.levels, LevelPlanes)
    np.testing.assert_array_equal(host(again.levels)[:A.n].T, expected)
    assert kernels._multi_fused_cache[1] is space
    assert space["kept"] == MULTI_FUSED_KEPT_FIRST and space["frontiers"].size == (MULTI_FUSED_KEPT_FIRST + 3) * slot


@pytest.mark.parametrize("cliques, planes_after", [(100, False), (20, True)], ids=["200 levels", "40 levels"])
def test_deeper_than_the_planes_runs_again_as_rows(kernels, monkeypatch, cliques, planes_after):
    """A graph that is not thin but deeper than a run's first depth planes hold: the planes' run
    stops at them and the batch runs again writing rows (two launches); the graph's later
    batches take as many depth planes as that depth needs (one launch, in planes), or, deeper
    than the most planes hold, write rows at once. The levels are csgraph's every time."""
    from lagraph_dist.local.gpu_kernels.multi_fused import MULTI_FUSED_PLANE_BITS_FIRST
    monkeypatch.setattr(kernels, "multi_fused_level_planes", None)
    kernels._multi_fused_cache = None
    src, dst, n, _ = clique_chain(cliques)              # about two levels a clique from vertex 0
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend="gpu")
    sources = np.array([0, 5, 0, n - 1])
    expected = hop_levels(edges_to_scipy(src, dst, n, symmetrize=True), sources)
    assert expected.max() > (1 << MULTI_FUSED_PLANE_BITS_FIRST) - 1

    def batch(depth_limit=None):
        rule = DirectionRule("auto", A.n, A.nvals)
        before = kernels.launches
        res = kernels.multi_bfs_fused(A.block.by_col, A.block.by_row, sources, A.out_degree().part.values,
                                      rows=A.block.by_col.nmajor, levels=True, parents=False, rule=rule,
                                      max_levels=A.n if depth_limit is None else depth_limit)
        want = expected if depth_limit is None else truncated(expected, depth_limit)
        np.testing.assert_array_equal(host(res.levels)[:n].T, want)
        return res, kernels.launches - before

    ran = [batch() for _ in range(3)]
    assert [launches for _, launches in ran] == [2, 1, 1]
    assert [isinstance(res.levels, LevelPlanes) for res, _ in ran] == [False, planes_after, planes_after]
    if planes_after:
        assert ran[1][0].levels.depth_planes == int(expected.max() + 1).bit_length()
    res, launches = batch(depth_limit=12)
    assert launches == 1 and isinstance(res.levels, LevelPlanes) == planes_after
    kernels._multi_fused_cache = None
    res, launches = batch(depth_limit=12)
    assert launches == 1 and isinstance(res.levels, LevelPlanes)


@pytest.mark.parametrize("k", [1, 63, 64, 65, 200, 512])
def test_level_planes_rows_kernel_equals_its_twin(kernels, k):
    """bitmap.cu's rows from bit planes against its CPU twin (tests/test_level_planes.py), on
    random words, every number of depth planes, whole and in slices."""
    import cupy as cp
    rng = np.random.default_rng(k)
    width = -(-k // 64)
    for depth_planes in range(8):
        words = rng.integers(0, 1 << 63, size=(1 + depth_planes, 300, width), dtype=np.int64).view(np.uint64)
        planes = LevelPlanes(cp.asarray(words), k)
        for start, stop in ((0, 300), (7, 8), (100, 300), (5, 5)):
            got = kernels.level_planes_rows(planes, start, stop)
            assert got.dtype == cp.int32 and got.shape == (stop - start, k)
            np.testing.assert_array_equal(got.get(), level_planes_rows(LevelPlanes(words, k), start, stop))
