"""The CUDA kernels against their numpy twins (lagraph_dist.local.cpu_kernels) on random inputs."""
import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.local import cpu_kernels
from lagraph_dist.local import wire
from lagraph_dist.local.layout import FUSED_BLOCK_EDGES, FUSED_CLUSTER_BLOCK_EDGES
from lagraph_dist.comm.grid import IdMap
from lagraph_dist.local.parts import LocalCSR, LocalPart
from lagraph_dist.semirings import semirings
from kernel_twins import assign_twins_agree, entries, mask_of, random_csr, to_gpu

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")]

SEMIRINGS = ["any_pair", "lor_land", "any_secondi", "min_secondi"]
MASKS = ["none", "keep", "complement"]
K = cpu_kernels


@pytest.fixture(scope="module")
def gpu():
    return ld.get_backend("gpu")


def assert_same(cpu_result, gpu_result, gpu, semiring, valid_value):
    expected, cpu_counters = entries(*cpu_result, ld.get_backend("cpu"))
    got, gpu_counters = entries(*gpu_result, gpu)
    assert set(got) == set(expected)
    for k, value in got.items():
        if semiring.add.kind == "any" and semiring.multiply.positional:
            assert valid_value(k, value), f"entry {k}: {value} is not a valid source"
        else:
            assert value == expected[k], f"entry {k}"
    return cpu_counters, gpu_counters


def run_twins(kernel, gpu, csr, frontier, values, semiring, mask, complement, in_map, **kwargs):
    """The numpy twin and the CUDA kernel of the same name on the same inputs."""
    cp = gpu.xp
    on_gpu = (lambda a: None if a is None else cp.asarray(a))
    twin = getattr(K, kernel)(csr, frontier, values, semiring, mask, complement, in_map, **kwargs)
    cuda = getattr(gpu.kernels, kernel)(to_gpu(csr, cp), on_gpu(frontier), on_gpu(values), semiring,
                                        on_gpu(mask), complement, in_map,
                                        **{k: on_gpu(v) for k, v in kwargs.items()})
    return twin, cuda


@pytest.mark.parametrize("nf", [0, 1, 1023, 1024, 1025, 3000, 1024 * 1024 + 5, 3 * 1024 * 1024 + 1])
def test_frontier_scan_matches_cumsum(gpu, nf):
    """The push's frontier scan (one block, or two launches over chunks) against numpy's
    cumsum of the entries' out-degrees, zero-degree entries and repeats included."""
    cp = gpu.xp
    rng = np.random.default_rng(nf)
    degrees = rng.integers(0, 40, 5000)
    degrees[rng.random(5000) < 0.3] = 0
    indptr = np.zeros(5001, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    csr = LocalCSR(cp.asarray(indptr), cp.zeros(int(indptr[-1]), dtype=cp.int32), 5000)
    frontier = rng.integers(0, 5000, nf).astype(np.int32)
    expected = np.zeros(nf + 1, dtype=np.int64)
    np.cumsum(degrees[frontier], out=expected[1:])
    scan = gpu.kernels._frontier_scan(csr, cp.asarray(frontier))
    np.testing.assert_array_equal(cp.asnumpy(scan), expected)


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("frontier_size", [3, 60, 300])
def test_push_matches_twin(gpu, name, mask_kind, seed, frontier_size):
    rng = np.random.default_rng(seed)
    semiring = getattr(semirings, name)
    n_in = 2048 if frontier_size > 1000 else 320
    csr = random_csr(rng, n_in, 352, 0.03)            # majors: input space, minors: output space
    frontier = rng.choice(n_in, min(frontier_size, n_in), replace=False).astype(np.int32)
    values = rng.random(frontier.shape[0]) < 0.7 if semiring.reads_left_values else None
    mask, complement = mask_of(rng, 352, mask_kind)
    in_map = IdMap(32, 64, 7)
    degrees = rng.integers(0, 50, 352).astype(np.int64)
    cpu_result, gpu_result = run_twins("push_spmspv", gpu, csr, frontier, values, semiring, mask,
                                       complement, in_map, out_degree=degrees)

    def valid(v, parent):
        sources = in_map.to_global(frontier.astype(np.int64))
        return any(parent == g and v in csr.indices[csr.indptr[u]:csr.indptr[u + 1]]
                   for u, g in zip(frontier, sources))
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semiring, valid)
    for counter in (K.FOUND, K.EXAMINED, K.PUSH_EDGES):
        assert gpu_counters[counter] == cpu_counters[counter], f"counter {counter}"


def test_push_large_frontier_with_known_edges(gpu):
    """A frontier past the one-block scan, with the launch sized by the host-known edge total."""
    rng = np.random.default_rng(11)
    csr = random_csr(rng, 6000, 4096, 0.004, hub=False)
    frontier = rng.choice(6000, 4000, replace=False).astype(np.int32)
    total = int((csr.indptr[frontier + 1] - csr.indptr[frontier]).sum())
    semiring = semirings.any_pair
    cpu_result, gpu_result = run_twins("push_spmspv", gpu, csr, frontier, None, semiring, None, False,
                                       IdMap(32, 32, 0), frontier_edges=total)
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semiring, None)
    assert gpu_counters[K.EXAMINED] == cpu_counters[K.EXAMINED] == total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_push_tiles_over_thin_and_hub_entries(gpu, seed):
    """The tile push's scan windows, each path in one frontier: tiles whose edges span a hub's
    entry alone, up to 31 entries (the window's first load), more (its whole window), and more
    than a tile (runs of empty entries, owners found in the global scan), against the twin:
    the same entries, each parent a frontier vertex with an edge to it, the same counts."""
    rng = np.random.default_rng(seed)
    n_out = 4096
    degrees = np.concatenate([np.zeros(1500, np.int64), rng.integers(1, 4, 1500), rng.integers(5, 40, 400),
                              np.full(40, 700)])
    rng.shuffle(degrees)
    indptr = np.zeros(degrees.shape[0] + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    indices = np.concatenate([np.sort(rng.choice(n_out, d, replace=False)) for d in degrees]).astype(np.int32)
    csr = LocalCSR(indptr, indices, n_out)
    frontier = rng.permutation(degrees.shape[0])[:3000].astype(np.int32)
    mask, complement = mask_of(rng, n_out, "complement")
    in_map = IdMap(32, 32, 0)
    cpu_result, gpu_result = run_twins("push_spmspv", gpu, csr, frontier, None, semirings.any_secondi, mask,
                                       complement, in_map)
    owners = dict(zip(in_map.to_global(frontier.astype(np.int64)).tolist(), frontier.tolist()))

    def valid(v, parent):
        u = owners.get(int(parent))
        return u is not None and v in indices[indptr[u]:indptr[u + 1]]
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semirings.any_secondi, valid)
    assert gpu_counters[K.EXAMINED] == cpu_counters[K.EXAMINED] == int(degrees[frontier].sum())
    assert gpu_counters[K.FOUND] == cpu_counters[K.FOUND]


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pull_matches_twin(gpu, name, mask_kind, seed):
    rng = np.random.default_rng(seed)
    semiring = getattr(semirings, name)
    csr = random_csr(rng, 352, 320, 0.05)            # majors: output rows, minors: input space
    frontier = K.bitmap_from_list(np.flatnonzero(rng.random(320) < 0.2).astype(np.int32), 320)
    values = rng.random(320) < 0.5 if semiring.reads_left_values else None
    mask, complement = mask_of(rng, 352, mask_kind)
    in_map = IdMap(32, 96, 32)
    degrees = rng.integers(0, 50, 352).astype(np.int64)
    cpu_result, gpu_result = run_twins("pull_spmv", gpu, csr, frontier, values, semiring, mask, complement,
                                       in_map, out_degree=degrees)

    def valid(row, parent):
        cols = csr.indices[csr.indptr[row]:csr.indptr[row + 1]]
        hits = cols[K.bitmap_test(frontier, cols)]
        return parent in in_map.to_global(hits.astype(np.int64)).tolist()
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semiring, valid)
    for counter in (K.FOUND, K.PUSH_EDGES):
        assert gpu_counters[counter] == cpu_counters[counter], f"counter {counter}"
    # edges examined: the twin counts a stopping row's inputs up to its first hit; the warp
    # kernel reads its row 32 inputs a step, so it may count up to the end of that step; for
    # lor the kernel also stops at a true hit, which the twin does not
    allowed = np.ones(352, bool) if mask is None else K.bitmap_test(mask, np.arange(352)) != complement
    candidate_edges = int(np.diff(csr.indptr)[allowed].sum())
    least = cpu_counters[K.EXAMINED] if semiring.first_hit_is_final else int(gpu_counters[K.FOUND])
    assert least <= gpu_counters[K.EXAMINED] <= candidate_edges


@pytest.mark.parametrize("length,density", [(32, 0.5), (4096, 0.01), (4096, 0.9), (1 << 16, 0.001), (1 << 16, 0.0)])
def test_bitmap_kernels_match_twins(gpu, length, density):
    cp = gpu.xp
    rng = np.random.default_rng(length)
    ids = np.flatnonzero(rng.random(length) < density).astype(np.int32)
    words = K.bitmap_from_list(ids, length)
    gpu_words = gpu.kernels.bitmap_from_list(cp.asarray(ids), length)
    np.testing.assert_array_equal(cp.asnumpy(gpu_words), words)
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.list_from_bitmap(gpu_words, len(ids))), ids)
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.list_from_bitmap(gpu_words)), ids)
    assert gpu.kernels.popcount(gpu_words) == K.popcount(words) == len(ids)
    probe = rng.integers(0, length, 500).astype(np.int32)
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.bitmap_test(gpu_words, cp.asarray(probe))),
                                  K.bitmap_test(words, probe))


@pytest.mark.parametrize("mode", ["dense", "compact", "scalar"])
@pytest.mark.parametrize("dtype", [np.int64, np.bool_])
def test_assign_from_list_matches_twin(gpu, mode, dtype):
    rng = np.random.default_rng(5)
    length = 4096
    ids = rng.choice(length, 700, replace=False).astype(np.int32)
    words = K.bitmap_from_list(rng.choice(length, 300, replace=False).astype(np.int32), length)
    values = rng.integers(0, 2, length).astype(dtype)
    dense = rng.integers(0, 1000, length).astype(dtype)
    compact = rng.integers(0, 1000, ids.shape[0]).astype(dtype)
    kwargs = {"dense": {"src_dense": dense}, "compact": {"src_compact": compact},
              "scalar": {"scalar": dtype(1)}}[mode]
    assign_twins_agree(gpu, ids, words, values, kwargs)


# -- the fold -------------------------------------------------------------------------------
def _output_of(rng, backend, semiring, block_len, nowners, count):
    """A product output over nowners blocks with ``count`` random entries, on ``backend``."""
    xp = backend.xp
    length = block_len * nowners
    ids = rng.choice(length, count, replace=False).astype(np.int32)
    values = rng.integers(0, 10**6, length).astype(semiring.out_dtype)
    words = K.bitmap_from_list(ids, length)
    part = LocalPart("bitmap", length, None, xp.asarray(values), words=xp.asarray(words),
                              ids=xp.asarray(ids), ids_sorted=False)
    counters = np.zeros(K.NCOUNTERS, np.uint64)
    counters[K.FOUND] = count
    return part, xp.asarray(counters)


def _pieces(buffer, nowners, block_len, vw, cap, counts, dtype):
    """{owner: {id: value}} of a packed send buffer, read with the host's wire rules."""
    out, at = {}, 0
    for k in range(nowners):
        if cap:
            size = wire.fixed_piece_words(cap, vw)
            piece = buffer[at:at + size]
            count, ids, base = int(piece[0]), piece[2:2 + int(piece[0])], 2 + wire.even(cap)
        else:
            count = int(counts[k])
            size = wire.counted_piece_words(count, block_len, vw)
            piece = buffer[at:at + size]
            if wire.counted_is_bitmap(count, block_len, vw):
                out[k] = dict.fromkeys(K.list_from_bitmap(piece).tolist(), True)
                at += size
                continue
            ids, base = piece[:count], wire.even(count)
        vals = piece[base:].view(wire.wire_dtype(dtype, vw))[:count] if vw else np.ones(count, bool)
        out[k] = dict(zip(ids.tolist(), vals.tolist()))
        at += size
    return out


def _wire_words(semiring, narrow, vertices):
    """The value words of ``semiring``'s fold: narrowed where its ids fit (``narrow``), else at
    their own width; the kernels take both."""
    return wire.value_words(semiring, backend="gpu", vertices=vertices) if narrow else wire.value_words(semiring)


@pytest.mark.parametrize("name", ["any_pair", "any_secondi", "lor_land"])
@pytest.mark.parametrize("layout", ["fixed", "counted-list", "counted-bitmap", "counted-many"])
@pytest.mark.parametrize("narrow", [False, True], ids=["own-width", "narrow"])
def test_fold_pack_matches_twin(gpu, name, layout, narrow):
    cp = gpu.xp
    semiring = getattr(semirings, name)
    block_len, nowners = (1 << 16, 3) if layout == "counted-many" else (1024, 3)
    vw = _wire_words(semiring, narrow, block_len * nowners)
    if layout == "counted-bitmap" and vw:
        pytest.skip("pieces whose values travel are always lists")
    # counted-many: many blocks reserve their rounds' entries on the same three cursors
    count = {"fixed": 40, "counted-list": 60, "counted-bitmap": 900, "counted-many": 3000}[layout]
    threshold = wire.bitmap_threshold(block_len)
    rng = np.random.default_rng(3)
    cpu = ld.get_backend("cpu")
    part, counters = _output_of(rng, cpu, semiring, block_len, nowners, count)
    gpart = LocalPart("bitmap", part.length, None, cp.asarray(part.values), words=cp.asarray(part.words),
                               ids=cp.asarray(part.ids), ids_sorted=False)
    gcounters = cp.asarray(counters)
    cap = count if layout == "fixed" else 0
    counts = None
    if not cap:
        host = K.fold_count(part, counters, block_len, nowners)
        np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.fold_count(gpart, gcounters, block_len, nowners)), host)
        counts = wire.PieceCounts(host, host)
    want = K.fold_pack(part, counters, vw, block_len, nowners, cap, threshold, counts)
    gcounts = None if counts is None else wire.PieceCounts(cp.asarray(counts.host), counts.host)
    got = cp.asnumpy(gpu.kernels.fold_pack(gpart, gcounters, vw, block_len, nowners, cap, threshold, gcounts))
    assert got.shape == want.shape
    dtype = np.dtype(semiring.out_dtype)
    host_counts = None if counts is None else counts.host
    assert _pieces(got, nowners, block_len, vw, cap, host_counts, dtype) == \
        _pieces(want, nowners, block_len, vw, cap, host_counts, dtype)


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("layout", ["fixed", "counted"])
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("narrow", [False, True], ids=["own-width", "narrow"])
def test_fold_merge_matches_twin(gpu, name, layout, mask_kind, narrow):
    cp = gpu.xp
    semiring = getattr(semirings, name)
    block_len, nowners = 1024, 3
    vw = _wire_words(semiring, narrow, block_len * nowners)
    threshold = wire.bitmap_threshold(block_len)
    rng = np.random.default_rng(7)
    cpu = ld.get_backend("cpu")
    # what the members packed for this owner: each a random output over the owner's block
    sends = []
    for member in range(nowners):
        part, counters = _output_of(rng, cpu, semiring, block_len, nowners, 120)
        counts = K.fold_count(part, counters, block_len, nowners)
        cap = 200 if layout == "fixed" else 0
        pc = None if cap else wire.PieceCounts(counts, counts)
        buffer = K.fold_pack(part, counters, vw, block_len, nowners, cap, threshold, pc)
        sends.append((buffer, counts))
    # the pieces for owner 1, as the alltoallv would deliver them
    me = 1
    recv_parts, recv_counts = [], []
    for buffer, counts in sends:
        sizes = ([wire.fixed_piece_words(cap, vw)] * nowners if cap else
                 [wire.counted_piece_words(int(c), block_len, vw) for c in counts])
        start = sum(sizes[:me])
        recv_parts.append(buffer[start:start + sizes[me]])
        recv_counts.append(int(counts[me]))
    recv = np.concatenate(recv_parts)
    rc = np.array(recv_counts, dtype=np.int64)
    mask, complement = mask_of(rng, block_len, mask_kind)
    degrees = rng.integers(0, 30, block_len).astype(np.int64)
    counts = None if cap else wire.PieceCounts(rc, rc)
    cpu_result = K.fold_merge(recv, nowners, block_len, vw, cap, threshold, counts, semiring, mask, complement,
                              out_degree=degrees)
    gcounts = None if cap else wire.PieceCounts(cp.asarray(rc), rc)
    gpu_result = gpu.kernels.fold_merge(cp.asarray(recv), nowners, block_len, vw, cap, threshold, gcounts, semiring,
                                        None if mask is None else cp.asarray(mask), complement,
                                        out_degree=cp.asarray(degrees))
    sent_values = {}
    dtype = np.dtype(semiring.out_dtype)
    for buffer, counts in sends:
        for i, v in _pieces(buffer, nowners, block_len, vw, cap, None if cap else counts, dtype)[me].items():
            sent_values.setdefault(i, set()).add(v)
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semiring,
                                             lambda i, v: v in sent_values[i])
    for counter in (K.FOUND, K.PUSH_EDGES, K.OVERFLOW):
        assert gpu_counters[counter] == cpu_counters[counter], f"counter {counter}"


def test_fold_merge_reports_a_wrong_bound(gpu):
    """A fixed piece holding more entries than its capacity sets the overflow counter."""
    cp = gpu.xp
    semiring = semirings.any_pair
    block_len, nowners, cap = 1024, 2, 4
    piece = np.zeros(wire.fixed_piece_words(cap, 0), np.uint32)
    piece[0] = cap + 3                       # claims more than fit
    piece[2:2 + cap] = [1, 2, 3, 4]
    recv = np.concatenate([piece, np.zeros_like(piece)])
    _, counters = gpu.kernels.fold_merge(cp.asarray(recv), nowners, block_len, 0, cap,
                                         wire.bitmap_threshold(block_len), None, semiring, None, False)
    assert int(cp.asnumpy(counters)[K.OVERFLOW]) == 1
    _, cpu_counters = K.fold_merge(recv, nowners, block_len, 0, cap, wire.bitmap_threshold(block_len), None,
                                   semiring, None, False)
    assert int(cpu_counters[K.OVERFLOW]) == 1


# -- the fused search ---------------------------------------------------------------------
def _csr_of(rows, cols, length):
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    keep = np.ones(rows.shape[0], bool)
    keep[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    rows, cols = rows[keep], cols[keep]
    indptr = np.zeros(length + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=length), out=indptr[1:])
    return LocalCSR(indptr, cols.astype(np.int32), length)


def _fused_graph(graph):
    """(out-edge CSR, in-edge CSR, n): meshes and random graphs, vertices past the kernel's giant
    degree (4096) as sources and, in the directed graph, as a row of in-edges."""
    from lagraph_dist.io.generators import grid2d_edges
    rng = np.random.default_rng(1)
    symmetric = True
    if graph == "mesh":
        n = 2000
        src, dst = grid2d_edges(40, 50)
    elif graph == "random":
        n = 3000
        src, dst = rng.integers(0, n, 9000), rng.integers(0, n, 9000)
    elif graph == "giants":
        n = 12000
        src = np.concatenate([np.repeat([0, 1, 2], 8000), rng.integers(0, n, 20000)])
        dst = np.concatenate([rng.integers(0, n, 24000), rng.integers(0, n, 20000)])
    elif graph == "hubs":                    # few entries of many edges, then more than a flat frontier
        # the source reaches 2 giants (3000 edges), 4 vertices of 600 edges and 6 of 40: one grid
        # push level of 12 entries, its edges split over the grid; their 7,800 neighbours make
        # the next level, past the flat frontier's 2,048 entries (the tree's last level holds
        # exactly 2,048)
        n = 20000
        middle = np.arange(1, 13)
        degree = np.array([3000, 3000, 600, 600, 600, 600, 40, 40, 40, 40, 40, 40])
        fans = np.concatenate([rng.choice(np.arange(13, n), d, replace=False) for d in degree])
        src = np.concatenate([np.zeros(12, np.int64), np.repeat(middle, degree)])
        dst = np.concatenate([middle, fans])
    elif graph == "path":                    # 3000 levels of one vertex each
        n = 3000
        src, dst = np.arange(n - 1), np.arange(1, n)
    elif graph == "tree":                    # a binary tree from the root: levels double
        n = 4095
        src, dst = (np.arange(1, n) - 1) // 2, np.arange(1, n)
    elif graph == "switching":               # paths between dense clusters: block, grid, block, ...
        pieces, start = [], 0
        for _ in range(3):                   # a path of 60 edges, then 2000 vertices of degree ~30
            pieces.append((np.arange(start, start + 60), np.arange(start + 1, start + 61)))
            cluster = start + 60
            pieces.append((cluster + rng.integers(0, 2000, 30000), cluster + rng.integers(0, 2000, 30000)))
            pieces.append((np.array([cluster]), np.array([cluster + 1999])))
            start = cluster + 1999           # the next path leaves from the cluster's last vertex
        n = start + 1
        src, dst = (np.concatenate(part) for part in zip(*pieces))
    elif graph == "thin-giant":              # a grid level of one vertex a warp, giant and longer rows in it
        # the source's 1,000 neighbours make a thin grid push level (fewer entries than the
        # grid's warps, a few out-edges each on average: an eager level of one vertex a warp
        # item) that holds a giant (2,000 draws, about 1,700 distinct out-edges, sliced over the
        # grid), ten vertices of about 100 (a warp's run of four steps) and 989 of 2
        n = 6000
        first = np.arange(1, 1001)
        degree = np.concatenate([[2000], np.full(10, 100), np.full(989, 2)])
        ends = rng.integers(1001, n, int(degree.sum()))
        src = np.concatenate([np.zeros(1000, np.int64), np.repeat(first, degree)])
        dst = np.concatenate([first, ends])
    elif graph == "wide-mesh":               # a thin graph whose diagonals outgrow block 0 (cluster levels)
        n = 360000
        src, dst = grid2d_edges(600, 600)
    elif graph == "small-world":             # a ring with a random chord a vertex (degree at most 4):
        n = 60000                            # levels grow past the cluster's 2,048 entries and shrink
        src = np.concatenate([np.arange(n), np.arange(n)])
        dst = np.concatenate([(np.arange(n) + 1) % n, rng.permutation(n)])
        keep = src < dst                     # each chord once, before the symmetric copy
        src, dst = src[keep], dst[keep]
    elif graph == "broom":                   # directed, out-degree 8 at most: 1, 8, 64, 512, 2048, then 16,384
        # found by one level of 2,048 entries, two thousand an inbox: the cluster's inboxes spill
        n, symmetric = 1 + 8 + 64 + 512 + 2048 + 16384, False
        fan = [8, 8, 8, 4, 8]                # children a vertex of each layer
        src, dst, first, size = [], [], 0, 1
        for children in fan:
            parents_ = np.arange(first, first + size)
            src.append(np.repeat(parents_, children))
            dst.append(first + size + np.arange(size * children))
            first, size = first + size, size * children
        src, dst = np.concatenate(src), np.concatenate(dst)
    elif graph == "isolated":                # the source has no edge at all
        n = 500
        src, dst = rng.integers(1, n, 1500), rng.integers(1, n, 1500)
    elif graph == "late-hub":                # directed: a pull row's one frontier in-edge past a lane's share
        # vertex 1's 2,900 in-edges come from 100..2999 in that order, and the search reaches only
        # 2999 before it: the row finds it at its last in-edge, past the 128 a lane scans alone;
        # vertex 2's 2,000 in-edges come from vertices no search from 0 reaches (a row of every
        # pull level that finds nothing); 1 leads on to 100..2998
        n, symmetric = 5000, False
        src = np.concatenate([[0], np.arange(100, 3000), np.full(2899, 1), np.arange(3000, 5000)])
        dst = np.concatenate([[2999], np.full(2900, 1), np.arange(100, 2999), np.full(2000, 2)])
    else:                                    # directed: a giant source and a giant row (7)
        n, symmetric = 9000, False
        src = np.concatenate([np.zeros(9000, np.int64), rng.integers(0, n, 6000), rng.integers(0, n, 30000)])
        dst = np.concatenate([rng.integers(0, n, 9000), np.full(6000, 7), rng.integers(0, n, 30000)])
    if symmetric:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    length = -(-n // 32) * 32
    return _csr_of(src, dst, length), _csr_of(dst, src, length), length


# push levels inside one block: never, by the default policy (fused.py's _one_block_edges),
# whenever the frontier fits
BLOCK_EDGES = {"grid-only": 0, "default": None, "block-first": 1 << 40}


@pytest.fixture(params=list(BLOCK_EDGES))
def block_edges(request, gpu):
    gpu.kernels.fused_block_edges = BLOCK_EDGES[request.param]
    yield request.param
    gpu.kernels.fused_block_edges = None


@pytest.fixture
def tiny_push_cap(monkeypatch):
    """Push levels of more than 32 out-edges leave the cooperative kernel for push.cu's tile
    push in place (Kronecker 26's big levels, on graphs small enough to test)."""
    from lagraph_dist.local.gpu_kernels import fused
    monkeypatch.setattr(fused, "FUSED_MAX_PUSH_EDGES", 32)


@pytest.mark.parametrize("positional", [True, False])
@pytest.mark.parametrize("graph", ["mesh", "random", "giants", "hubs", "directed", "path", "tree", "switching",
                                   "isolated", "thin-giant", "late-hub"])
@pytest.mark.parametrize("mode", ["push", "pull", "auto"])
def test_fused_search_matches_twin(gpu, positional, graph, mode, block_edges):
    """The fused kernel against its twin level by level, with push levels run inside one block
    never, by default and whenever they fit (the search hands over between block and grid
    levels several times on the switching graph, and on the random and giant ones); grid push
    levels of few entries split their edges over the grid (the hubs graph: giants, vertices of
    hundreds of edges and a level past the flat frontier's size); a thin grid level of one
    vertex a warp item holds a giant and rows longer than a warp's step (thin-giant); a pull row
    finds its one frontier in-edge past the in-edges a lane scans alone, and another finds none
    on every pull level (late-hub)."""
    _fused_against_twin(gpu, positional, graph, mode)


@pytest.mark.parametrize("clusters", [True, False])
@pytest.mark.parametrize("graph", ["mesh", "tree", "path", "wide-mesh", "small-world", "broom"])
@pytest.mark.parametrize("mode", ["push", "auto"])
def test_fused_search_cluster_levels_match_twin(gpu, graph, mode, block_edges, clusters, monkeypatch):
    """Thin graphs with the cluster levels on and off (on a GPU with thread block clusters): with
    push levels never in one block every level of at most 2,048 entries runs in the cluster (the
    small meshes, the tree, the path); by default the 600 x 600 mesh's diagonals go from block 0
    to the cluster and back, the small world's from block 0 to the cluster to the grid and back,
    and the broom's level of 2,048 entries finds 16,384 vertices, more than the inboxes hold (they
    spill onto the global queue and the grid takes the search back). The kernel's status says
    which ran: no cluster level with them off, some whenever no push level runs in block 0, and
    the broom's spill."""
    if clusters and not gpu.kernels._clusters:
        pytest.skip("this GPU has no thread block clusters (compute capability below 9.0)")
    monkeypatch.setattr(gpu.kernels, "fused_cluster_levels", clusters)
    _fused_against_twin(gpu, True, graph, mode)
    ran = gpu.kernels.fused_cluster_counts
    if not clusters:
        assert ran == {"levels": 0, "spills": 0}
        return
    if block_edges == "grid-only":
        assert ran["levels"] > 0
    if graph == "broom":             # (auto may pull the level of 2,048 entries)
        assert ran["spills"] == 1 if mode == "push" else ran["spills"] <= 1
    elif graph != "small-world":
        assert ran["spills"] == 0


@pytest.mark.parametrize("clusters", [True, False])
@pytest.mark.parametrize("stop", ["levels", "target", "too_big"])
def test_fused_search_stops_like_twin_in_cluster_levels(gpu, stop, clusters, monkeypatch):
    """The stops inside cluster levels (the small world, push levels never in one block): the
    level limit, a target found, a frontier past max_frontier; the same frontier and reason as
    the twin, with the cluster levels on and off."""
    if clusters and not gpu.kernels._clusters:
        pytest.skip("this GPU has no thread block clusters (compute capability below 9.0)")
    monkeypatch.setattr(gpu.kernels, "fused_cluster_levels", clusters)
    monkeypatch.setattr(gpu.kernels, "fused_block_edges", 0)
    _fused_stop_against_twin(gpu, stop, "push", graph="small-world")
    assert (gpu.kernels.fused_cluster_counts["levels"] > 0) == clusters


@pytest.mark.parametrize("positional", [True, False])
@pytest.mark.parametrize("graph", ["mesh", "random", "giants", "directed", "tree", "switching"])
@pytest.mark.parametrize("mode", ["push", "auto"])
def test_fused_search_hands_big_push_levels_to_the_tile_push(gpu, positional, graph, mode, tiny_push_cap):
    """Push levels past the kernel's cap run as push.cu's product written in place between two
    cooperative runs: the same levels, records, visited bits, depths and rule as the twin."""
    _fused_against_twin(gpu, positional, graph, mode)


@pytest.mark.parametrize("alpha", [3.0, 16.0])
@pytest.mark.parametrize("graph", ["random", "giants", "switching"])
def test_fused_rule_with_other_alphas(gpu, graph, alpha):
    """The kernel's rule off the default alpha (8): 3 pulls later, 16 sooner; the same
    directions, levels and rule state as the twin's."""
    _fused_against_twin(gpu, True, graph, "auto", alpha=alpha)


def _fused_against_twin(gpu, positional, graph, mode, alpha=None):
    from lagraph_dist.core.direction import DEFAULT_ALPHA, DirectionRule
    cp = gpu.xp
    out_csr, in_csr, length = _fused_graph(graph)
    source = 0
    dtype = np.int64 if positional else np.bool_
    words = K.bitmap_from_list(np.array([source], np.int32), length)
    parents = np.zeros(length, dtype)
    parents[source] = source if positional else True
    depth_words, depths = words.copy(), np.zeros(length, np.int64)
    frontier = np.array([source], np.int32)
    nnz = int(out_csr.indptr[-1])
    args = dict(max_frontier=length, max_edges=nnz, max_levels=4096, target=-1)
    gw, gp, gdw, gd = (cp.asarray(a) for a in (words, parents, depth_words, depths))
    alpha = DEFAULT_ALPHA if alpha is None else alpha
    twin_rule, cuda_rule = DirectionRule(mode, length, nnz, alpha), DirectionRule(mode, length, nnz, alpha)
    twin = K.bfs_fused(out_csr, in_csr, words, parents, depth_words, depths, 1, frontier, positional, twin_rule,
                       **args)
    cuda = gpu.kernels.bfs_fused(to_gpu(out_csr, cp), to_gpu(in_csr, cp), gw, gp, gdw, gd, 1, cp.asarray(frontier),
                                 positional, cuda_rule, **args)
    # per level: sizes and direction equal; edges read equal on push levels (a pull's count
    # depends on where its warps stop)
    assert [(f, d, p) for f, d, _, p, _ in cuda[0]] == [(f, d, p) for f, d, _, p, _ in twin[0]]
    assert [e for _, _, e, p, _ in cuda[0] if p] == [e for _, _, e, p, _ in twin[0] if p]
    # each level timed by the kernel's clock (a positive difference of %globaltimer readings)
    assert all(t > 0 for *_, t in cuda[0])
    if mode == "auto" and graph in ("random", "giants", "directed") and alpha == DEFAULT_ALPHA:
        assert {p for _, _, _, p, _ in twin[0]} == {0, 1}, "the case should take both directions"
    assert sorted(cp.asnumpy(cuda[1]).tolist()) == sorted(twin[1].tolist())
    assert cuda[2:] == twin[2:]
    assert cuda_rule == twin_rule
    np.testing.assert_array_equal(cp.asnumpy(gw), words)
    np.testing.assert_array_equal(cp.asnumpy(gdw), depth_words)
    np.testing.assert_array_equal(cp.asnumpy(gd), depths)
    if positional:                           # parents: any in-neighbour one level up
        got = cp.asnumpy(gp)
        for v in K.list_from_bitmap(words).tolist():
            if v == source:
                continue
            p = int(got[v])
            assert depths[p] == depths[v] - 1
            assert v in out_csr.indices[out_csr.indptr[p]:out_csr.indptr[p + 1]]
    return twin


def test_fused_one_block_threshold_lower_where_the_cluster_runs(gpu, monkeypatch):
    """By default a clustered launch (a thin graph) keeps push levels in block 0 up to
    FUSED_CLUSTER_BLOCK_EDGES frontier edges, so that the cluster runs the levels between that
    and FUSED_BLOCK_EDGES: on the 600 x 600 mesh, against the same search with the threshold
    set to FUSED_BLOCK_EDGES, exactly those levels (counted in the twin's records) move to the
    cluster, and the levels still equal the twin's."""
    if not gpu.kernels._clusters:
        pytest.skip("this GPU has no thread block clusters (compute capability below 9.0)")
    ran = {}
    for setting in (None, FUSED_BLOCK_EDGES):
        monkeypatch.setattr(gpu.kernels, "fused_block_edges", setting)
        twin = _fused_against_twin(gpu, True, "wide-mesh", "push")
        ran[setting] = gpu.kernels.fused_cluster_counts["levels"]
    between = sum(1 for _, _, edges, push, _ in twin[0]
                  if push and FUSED_CLUSTER_BLOCK_EDGES < edges <= FUSED_BLOCK_EDGES)
    assert between > 0
    assert ran[None] - ran[FUSED_BLOCK_EDGES] == between


@pytest.mark.parametrize("mode", ["pull", "push"])
@pytest.mark.parametrize("stop", ["levels", "target", "too_big"])
def test_fused_search_stops_like_twin(gpu, stop, mode, block_edges):
    """A run cut short hands back the same frontier (ids, out-edges) and reason as the twin,
    after a pull level (the kernel then lists the frontier from its bitmap) and after push
    levels inside one block or over the grid."""
    _fused_stop_against_twin(gpu, stop, mode)


@pytest.mark.parametrize("stop", ["levels", "target", "too_big", "edges"])
def test_fused_search_stops_like_twin_after_tile_pushes(gpu, stop, tiny_push_cap):
    """The stops after or inside push levels run by the tile push: the level limit counted
    across runs and tile levels, a target claimed by a tile level, a frontier past max_frontier,
    and a push past max_edges (the caller's limit, not the kernel's cap) not run."""
    _fused_stop_against_twin(gpu, stop, "push")


def _fused_stop_against_twin(gpu, stop, mode, graph="random"):
    from lagraph_dist.core.direction import DirectionRule
    cp = gpu.xp
    out_csr, in_csr, length = _fused_graph(graph)
    nnz = int(out_csr.indptr[-1])
    words = K.bitmap_from_list(np.array([0], np.int32), length)
    parents = np.zeros(length, np.int64)
    args = dict(max_frontier=length, max_edges=nnz, max_levels=4096, target=-1)
    if stop == "levels":
        args["max_levels"] = 3
    elif stop == "target":
        distance = np.full(length, -1)
        distance[0], frontier = 0, [0]
        while frontier:                      # levels by hand: the target is two hops away
            nxt = {int(v) for u in frontier for v in out_csr.indices[out_csr.indptr[u]:out_csr.indptr[u + 1]]
                   if distance[v] < 0}
            distance[list(nxt)] = distance[frontier[0]] + 1
            frontier = sorted(nxt)
        args["target"] = int(np.flatnonzero(distance == 2)[0])
    elif stop == "edges":
        args["max_edges"] = 2000
    else:
        args["max_frontier"] = 50
    gw, gp = cp.asarray(words), cp.asarray(parents)
    twin_rule, cuda_rule = DirectionRule(mode, length, nnz), DirectionRule(mode, length, nnz)
    twin = K.bfs_fused(out_csr, in_csr, words, parents, None, None, 1, np.array([0], np.int32), True, twin_rule,
                       **args)
    cuda = gpu.kernels.bfs_fused(to_gpu(out_csr, cp), to_gpu(in_csr, cp), gw, gp, None, None, 1,
                                 cp.asarray(np.array([0], np.int32)), True, cuda_rule, **args)
    assert [r[:2] for r in cuda[0]] == [r[:2] for r in twin[0]]
    assert sorted(cp.asnumpy(cuda[1]).tolist()) == sorted(twin[1].tolist()) and len(twin[1]) > 0
    assert cuda[2:] == twin[2:]
    np.testing.assert_array_equal(cp.asnumpy(gw), words)


def test_gpu_kronecker_equals_cpu():
    A_gpu = ld.kronecker(10, seed=5, backend="gpu")
    A_cpu = ld.kronecker(10, seed=5, backend="cpu")
    assert (A_gpu.to_scipy() != A_cpu.to_scipy()).nnz == 0


def test_graph_too_big_fails_before_allocating():
    with pytest.raises(ld.OutOfDeviceMemory, match="GiB"):
        ld.kronecker(36, backend="gpu")


def test_fused_search_many_small_graphs(gpu):
    """Races show on small graphs run many times: 400 random graphs (directed and symmetric,
    self-loops, several components), every direction, levels against scipy's BFS and parents
    one level up along a real edge, with the failing graph named."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path
    rng = np.random.default_rng(7)
    for case in range(400):
        n = int(rng.integers(2, 80))
        m = int(rng.integers(0, 3 * n))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        symmetric = bool(case % 2)
        A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetric, backend="gpu")
        S = csr_matrix((np.ones(m), (src, dst)), shape=(n, n))
        if symmetric:
            S = S + S.T
        source = int(rng.integers(0, n))
        hops = shortest_path(S, unweighted=True, indices=source)
        expected = np.where(np.isinf(hops), -1, hops).astype(np.int64)
        dense = S.toarray() != 0
        for direction in ("push", "pull", "auto"):
            res = ld.bfs(A, source, direction=direction)
            levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
            where = f"case {case}: n={n} src={src.tolist()} dst={dst.tolist()} sym={symmetric} s={source} {direction}"
            np.testing.assert_array_equal(levels, expected, err_msg=where)
            reached = np.flatnonzero((levels > 0))
            assert (parents >= 0).sum() == (levels >= 0).sum(), where
            assert (levels[parents[reached]] == levels[reached] - 1).all(), where
            assert dense[parents[reached], reached].all(), where


@pytest.mark.parametrize("direction", ["push", "auto"])
def test_bfs_with_tile_push_levels(gpu, direction, tiny_push_cap):
    """Whole searches through the public call whose big push levels run as the in-place tile
    push: levels against scipy's BFS, parents one level up along a real edge, levels-only and
    parents-only searches agreeing, and the records counting every vertex once."""
    from scipy.sparse.csgraph import shortest_path
    A = ld.kronecker(12, seed=3, backend="gpu")
    S = A.to_scipy()
    source = int(np.argmax(np.diff(S.indptr)))
    hops = shortest_path(S, unweighted=True, indices=source)
    expected = np.where(np.isinf(hops), -1, hops).astype(np.int64)
    res = ld.bfs(A, source, direction=direction)
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    np.testing.assert_array_equal(levels, expected)
    reached = np.flatnonzero(levels > 0)
    assert (levels[parents[reached]] == levels[reached] - 1).all()
    assert (np.asarray(S[parents[reached], reached]) != 0).all()
    assert sum(s["discovered"] for s in res.stats) == (levels >= 0).sum() - 1
    np.testing.assert_array_equal(ld.bfs(A, source, parents=False, direction=direction).levels.to_numpy(), expected)
    only = ld.bfs(A, source, levels=False, direction=direction).parents.to_numpy()
    np.testing.assert_array_equal(only >= 0, expected >= 0)


@pytest.mark.parametrize("rows_are_heads", [False, True])
@pytest.mark.parametrize("with_parents", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_edge_rules_match_twin(gpu, seed, with_parents, rows_are_heads):
    """The validation's edge rules (runs of RULE_EDGES entries a thread, each finding its row by
    one search) against the twin: a skewed block with empty rows, id maps of a 2 x 3 grid's
    block, damaged depths so that every rule breaks somewhere, and every mark (with parents,
    some heads given the tail of an edge one level down, the only edges that mark)."""
    cp = gpu.xp
    rng = np.random.default_rng(seed)
    nrows, ncols, n = 3000, 2500, 9000
    degrees = np.where(rng.random(nrows) < 0.3, 0, rng.zipf(1.7, nrows).clip(1, 4000))
    indptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
    indices = rng.integers(0, ncols, int(indptr[-1])).astype(np.int32)
    row_map, col_map = (1000, 3000, 1000), (500, 1500, 500)
    depth = rng.integers(-1, 6, n).astype(np.int64)
    parents = None
    if with_parents:     # random, but the tree edge of some heads that have an edge one level down
        parents = rng.integers(-1, n, n).astype(np.int64)
        by_map = lambda local, m: (local // m[0]) * m[1] + m[2] + local % m[0]     # noqa: E731
        ends = (by_map(np.repeat(np.arange(nrows), degrees), row_map), by_map(indices.astype(np.int64), col_map))
        tails, heads = ends[::-1] if rows_are_heads else ends
        one_down = np.flatnonzero((depth[tails] >= 0) & (depth[heads] == depth[tails] + 1))
        picked = rng.choice(one_down, 200)
        parents[heads[picked]] = tails[picked]
    csr = LocalCSR(indptr, indices, ncols)
    marks = np.zeros(n, np.uint8)
    expected = K.check_edges(csr, row_map, col_map, rows_are_heads, depth, parents, marks)
    gpu_marks = cp.zeros(n, cp.uint8)
    got = gpu.kernels.check_edges(to_gpu(csr, cp), row_map, col_map, rows_are_heads, cp.asarray(depth),
                                  None if parents is None else cp.asarray(parents), gpu_marks)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(gpu_marks.get(), marks)
    assert marks.any()


@pytest.mark.parametrize("scale, edgefactor, seed, part, nparts", [(1, 3, 0, 0, 1), (11, 16, 5, 2, 3),
                                                                     (17, 4, 2**64 - 1, 1, 2)])
def test_kronecker_edges_on_the_device_are_the_numpy_ones(gpu, scale, edgefactor, seed, part, nparts):
    """The device generator (kernels/kronecker.cu, one launch for a part) against the numpy one."""
    from lagraph_dist.io import generators
    expected = generators.kronecker_edges(scale, edgefactor, seed=seed, part=part, nparts=nparts)
    got = generators.kronecker_edges(scale, edgefactor, seed=seed, part=part, nparts=nparts, xp=gpu.xp)
    for g, e in zip(got, expected):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g.get(), e)
