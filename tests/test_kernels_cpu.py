"""The CPU backend's compiled kernels (lagraph_dist.local.cpu_kernels) against plain computations
on random blocks: numpy/scipy products and Python loops over the edges, for every semiring, every
mask (none, kept, complemented) and one thread or several chunks (the chunked result must be
the one-thread result: the same entries, values, parents and counters)."""
import contextlib

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.comm.grid import IdMap
from lagraph_dist.local import cpu_kernels as K
from lagraph_dist.local import wire
from lagraph_dist.local.cpu_kernels import multi, pull, push
from lagraph_dist.local.parts import LocalCSR, LocalPart
from lagraph_dist.semirings import semirings

ld.get_backend("cpu")                      # compiles (or loads) the kernels once, here
SEMIRINGS = list(semirings)
MASKS = ["none", "keep", "complement"]


@contextlib.contextmanager
def chunks(module, nchunks):
    """Run ``module``'s products in ``nchunks`` chunks whatever their size (None: as chosen)."""
    before = module.chunks_for
    if nchunks is not None:
        module.chunks_for = lambda work: nchunks
    try:
        yield
    finally:
        module.chunks_for = before


def csr_of(dense):
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(dense.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=dense.shape[0]), out=indptr[1:])
    return LocalCSR(indptr, cols.astype(np.int32), dense.shape[1])


@st.composite
def blocks(draw):
    """(rng, dense block with a hub row, in_map) for sizes that are multiples of 32."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nmajor, nminor = 32 * draw(st.integers(1, 5)), 32 * draw(st.integers(1, 5))
    dense = rng.random((nmajor, nminor)) < draw(st.sampled_from([0.0, 0.02, 0.1, 0.4]))
    if draw(st.booleans()):
        dense[rng.integers(nmajor)] = rng.random(nminor) < 0.9
    in_map = IdMap(32, draw(st.sampled_from([32, 96])), draw(st.sampled_from([0, 32, 640])))
    return rng, dense, in_map


def mask_of(rng, length, kind):
    """(mask words or None, complement, allowed per slot)."""
    if kind == "none":
        return None, False, np.ones(length, bool)
    keep = rng.random(length) < 0.5
    words = np.packbits(keep, bitorder="little").view(np.uint32)
    return words, kind == "complement", keep if kind == "keep" else ~keep


def check_output(part, counters, length):
    """A product's output: sorted int32 ids, the same bits; {id: value} (a slot without its bit
    holds nothing defined: no kernel reads one)."""
    ids = part.ids
    assert ids.dtype == np.int32 and np.all(np.diff(ids) > 0)
    assert int(counters[K.FOUND]) == ids.shape[0]
    bits = np.unpackbits(part.words.view(np.uint8), bitorder="little")[:length]
    np.testing.assert_array_equal(np.flatnonzero(bits), ids)
    return dict(zip(ids.tolist(), part.values[ids].tolist()))


def expected_values(semiring, contributions):
    """{output: value} from {output: [(global source, left value), ...] in claim order}."""
    out = {}
    for v, pairs in contributions.items():
        if semiring.name == "any_pair":
            out[v] = True
        elif semiring.name == "lor_land":
            out[v] = any(bool(x) for _, x in pairs)
        elif semiring.name == "min_secondi":
            out[v] = min(g for g, _ in pairs)
        else:
            out[v] = pairs[0][0]            # any_secondi: the first claim's source
    return out


@settings(max_examples=120, deadline=None)
@given(blocks(), st.sampled_from(SEMIRINGS), st.sampled_from(MASKS), st.sampled_from([None, 2, 3, 5]))
def test_push_is_the_product(case, semiring, mask_kind, nchunks):
    rng, dense, in_map = case
    nmajor, nminor = dense.shape
    frontier = rng.permutation(nmajor)[:rng.integers(0, nmajor + 1)].astype(np.int32)   # any order
    values = rng.random(frontier.shape[0]) < 0.6
    mask, complement, allowed = mask_of(rng, nminor, mask_kind)
    degrees = rng.integers(0, 50, nminor).astype(np.int64)
    with chunks(push, nchunks):
        part, counters = K.push_spmspv(csr_of(dense), frontier, values if semiring.reads_left_values else None,
                                       semiring, mask, complement, in_map, out_degree=degrees)
    got = check_output(part, counters, nminor)
    # the pattern, by scipy: the frontier's rows summed, where the mask allows
    reached = np.asarray(sp.csr_matrix(dense)[frontier].sum(axis=0)).ravel() > 0
    assert sorted(got) == np.flatnonzero(reached & allowed).tolist()
    sources = in_map.to_global(frontier.astype(np.int64))
    contributions = {}
    for k in range(frontier.shape[0]):                       # frontier order, then adjacency order
        for v in np.flatnonzero(dense[frontier[k]] & allowed).tolist():
            contributions.setdefault(v, []).append((int(sources[k]), values[k]))
    assert got == expected_values(semiring, contributions)
    assert int(counters[K.EXAMINED]) == int(dense[frontier].sum())
    assert int(counters[K.PUSH_EDGES]) == int(degrees[list(got)].sum())


@settings(max_examples=120, deadline=None)
@given(blocks(), st.sampled_from(SEMIRINGS), st.sampled_from(MASKS), st.sampled_from([None, 2, 3]))
def test_pull_is_the_product(case, semiring, mask_kind, nchunks):
    rng, dense, in_map = case                  # rows: outputs, columns: inputs
    nmajor, nminor = dense.shape
    in_frontier = rng.random(nminor) < rng.random()
    values = rng.random(nminor) < 0.5
    mask, complement, allowed = mask_of(rng, nmajor, mask_kind)
    with chunks(pull, nchunks):
        part, counters = K.pull_spmv(csr_of(dense), np.packbits(in_frontier, bitorder="little").view(np.uint32),
                                     values if semiring.reads_left_values else None, semiring, mask, complement,
                                     in_map, out_degree=None)
    got = check_output(part, counters, nmajor)
    hits = dense & in_frontier & allowed[:, None]
    reached = (sp.csr_matrix(dense.astype(np.int64)) @ in_frontier.astype(np.int64)) > 0
    assert sorted(got) == np.flatnonzero(reached & allowed).tolist()
    glob = in_map.to_global(np.arange(nminor, dtype=np.int64))
    contributions = {int(r): [(int(glob[c]), values[c]) for c in np.flatnonzero(hits[r])]
                     for r in np.flatnonzero(hits.any(axis=1))}
    assert got == expected_values(semiring, contributions)
    # inputs read: up to and including the first hit where the semiring may stop there
    degrees = dense.sum(axis=1)
    up_to_first = np.take_along_axis(dense.cumsum(axis=1), np.argmax(hits, axis=1)[:, None], axis=1).ravel()
    read = np.where(hits.any(axis=1), up_to_first, degrees) if semiring.first_hit_is_final else degrees
    assert int(counters[K.EXAMINED]) == int(read[allowed].sum())
    assert int(counters[K.PUSH_EDGES]) == 0 and int(counters[K.LONG_ROWS]) == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 40, 700, 4096]))
def test_bitmaps_and_lists(seed, count):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 4096, count).astype(np.int32)
    words = K.bitmap_from_list(ids, 4096)
    np.testing.assert_array_equal(K.list_from_bitmap(words), np.unique(ids))
    assert K.popcount(words) == np.unique(ids).shape[0]
    more = K.bitmap_from_list(np.array([5, 4095], np.int64), 4096, words.copy())
    np.testing.assert_array_equal(K.list_from_bitmap(more), np.union1d(ids, [5, 4095]))


# -- the fold ---------------------------------------------------------------------------------
def decode(buffer, nowners, block_len, vw, cap, counts, threshold, dtype):
    """[{local id: value} in stored order] of a send buffer, and the header counts, by the wire
    rules (see lagraph_dist.local.wire)."""
    pieces, headers, at = [], [], 0
    for k in range(nowners):
        if cap:
            size = wire.fixed_piece_words(cap, vw)
            piece = buffer[at:at + size]
            headers.append(int(piece[0]))
            count, ids, base = min(int(piece[0]), cap), piece[2:], 2 + wire.even(cap)
        else:
            count = int(counts[k])
            size = wire.counted_piece_words(count, block_len, vw, threshold)
            piece = buffer[at:at + size]
            if wire.counted_is_bitmap(count, block_len, vw, threshold):
                bits = np.unpackbits(piece.view(np.uint8), bitorder="little")
                pieces.append(dict.fromkeys(np.flatnonzero(bits).tolist(), True))
                at += size
                continue
            ids, base = piece, wire.even(count)
        values = piece[base:].view(dtype)[:count] if vw else np.ones(count, bool)
        pieces.append(dict(zip(ids[:count].tolist(), values.tolist())))
        at += size
    assert at == buffer.shape[0]
    return pieces, headers


@st.composite
def fold_cases(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    semiring = draw(st.sampled_from(SEMIRINGS))
    block_len, nowners = 32 * draw(st.integers(1, 4)), draw(st.integers(1, 4))
    cap = draw(st.sampled_from([0, 0, 1, 5, 200]))
    threshold = draw(st.sampled_from([None, -1, 0, 10**9]))
    threshold = wire.bitmap_threshold(block_len) if threshold is None else threshold
    return rng, semiring, block_len, nowners, cap, threshold


def random_output(rng, semiring, length):
    """A product output in queue order (unsorted), dense values over the space."""
    ids = rng.permutation(length)[:rng.integers(0, length + 1)].astype(np.int32)
    values = (rng.integers(0, 1000, length) if semiring.out_dtype == np.int64 else rng.random(length) < 0.5)
    words = np.packbits(np.isin(np.arange(length), ids), bitorder="little").view(np.uint32)
    part = LocalPart("bitmap", length, None, values.astype(semiring.out_dtype), words=words, ids=ids,
                     ids_sorted=False)
    counters = K.new_counters()
    counters[K.FOUND] = ids.shape[0]
    return part, counters


@settings(max_examples=120, deadline=None)
@given(fold_cases(), st.sampled_from(MASKS))
def test_fold_pack_and_merge(case, mask_kind):
    rng, semiring, block_len, nowners, cap, threshold = case
    vw = wire.value_words(semiring)
    dtype = np.dtype(semiring.out_dtype)
    me = int(rng.integers(nowners))
    received, recv_counts, sent = [], [], []
    for _ in range(nowners):                           # every member packs; `me` receives
        part, counters = random_output(rng, semiring, block_len * nowners)
        counts = K.fold_count(part, counters, block_len, nowners)
        np.testing.assert_array_equal(counts, np.bincount(part.ids // block_len, minlength=nowners))
        buffer = K.fold_pack(part, counters, vw, block_len, nowners, cap, threshold,
                             None if cap else wire.PieceCounts(counts, counts))
        pieces, headers = decode(buffer, nowners, block_len, vw, cap, counts, threshold, dtype)
        for k in range(nowners):                       # each piece: the owner's ids in queue order
            owned = [int(i) - k * block_len for i in part.ids if i // block_len == k]
            if cap:
                assert headers[k] == len(owned)
                owned = owned[:cap]
            assert list(pieces[k]) == (sorted(owned) if not cap and wire.counted_is_bitmap(
                len(owned), block_len, vw, threshold) else owned)
            if vw:
                assert list(pieces[k].values()) == part.values[np.array(owned, int) + k * block_len].tolist()
        sizes = ([wire.fixed_piece_words(cap, vw)] * nowners if cap else
                 [wire.counted_piece_words(int(c), block_len, vw, threshold) for c in counts])
        start = sum(sizes[:me])
        received.append(buffer[start:start + sizes[me]])
        recv_counts.append(int(counts[me]))
        sent.append(pieces[me])
    mask, complement, allowed = mask_of(rng, block_len, mask_kind)
    rc = np.array(recv_counts, np.int64)
    degrees = rng.integers(0, 30, block_len).astype(np.int64)
    part, counters = K.fold_merge(np.concatenate(received), nowners, block_len, vw, cap, threshold,
                                  None if cap else wire.PieceCounts(rc, rc), semiring, mask, complement,
                                  out_degree=degrees)
    got = check_output(part, counters, block_len)
    contributions = {}
    for piece in sent:                                 # pieces in the order received
        for i, value in piece.items():
            if allowed[i]:
                contributions.setdefault(i, []).append((value, value))
    assert got == expected_values(semiring, contributions)
    assert int(counters[K.PUSH_EDGES]) == int(degrees[list(got)].sum())
    assert int(counters[K.OVERFLOW]) == int(bool(cap) and max(recv_counts) > cap)


# -- the multi-source kernels -----------------------------------------------------------------
def random_words(rng, length, width, density):
    bits = rng.random((length, width)) < density
    return (bits.astype(np.uint64) << np.arange(width, dtype=np.uint64)).sum(axis=1).astype(np.uint64)


def fresh_target(rng, visited, width, with_tables, degrees):
    n = visited.shape[0]
    table = (lambda: np.full((n, width), -1, np.int64) if with_tables else None)
    return K.MultiTarget(visited.copy(), np.where(rng.random(n) < 0.2, np.uint64(1), np.uint64(0)),
                         np.full(n + 2, -1, np.int32), table(), table(), width, 7, (1 << width) - 1, degrees,
                         np.array([2, 0, 0, 0, 0, 0, 0, 0], np.uint64))


def reference_claims(target, claims):
    """Plain loops: ``claims`` (vertex, bits, parent of bit i) taken in order, first come first
    served; returns the expected (words, next, queue tail, parents, levels, counters)."""
    words, nxt = target.words.copy(), target.next.copy()
    parents = None if target.parents is None else target.parents.copy()
    levels = None if target.levels is None else target.levels.copy()
    fresh = {}
    for v, bits, parent_of in claims:
        new = int(bits) & ~int(words[v]) & ~fresh.get(v, 0)
        if not new:
            continue
        fresh[v] = fresh.get(v, 0) | new
        for i in range(target.width):
            if new >> i & 1 and parents is not None:
                parents[v, i] = parent_of(i)
    counters = target.counters.copy()
    queue = []
    for v in sorted(fresh):
        before, f = int(words[v]), fresh[v]
        words[v] = before | f
        if int(nxt[v]) == 0:
            queue.append(v)
            counters[K.M_PUSH_EDGES] += np.uint64(0 if target.out_degree is None else target.out_degree[v])
        nxt[v] = int(nxt[v]) | f
        counters[K.M_BITS] += np.uint64(bin(f).count("1"))
        counters[K.M_LIVE] |= np.uint64(f)
        if target.out_degree is not None and before | f == target.full:
            counters[K.M_COMPLETED] += np.uint64(target.out_degree[v])
        for i in range(target.width):
            if f >> i & 1 and levels is not None:
                levels[v, i] = target.depth
    counters[K.M_FOUND] += np.uint64(len(queue))
    return words, nxt, queue, parents, levels, counters


def assert_target(target, expected, examined):
    words, nxt, queue, parents, levels, counters = expected
    counters[K.M_EXAMINED] += np.uint64(examined)
    np.testing.assert_array_equal(target.words, words)
    np.testing.assert_array_equal(target.next, nxt)
    assert target.queue[2:2 + len(queue)].tolist() == queue
    np.testing.assert_array_equal(target.counters, counters)
    for got, want in ((target.parents, parents), (target.levels, levels)):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_array_equal(got, want)


@st.composite
def multi_cases(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    width = draw(st.sampled_from([1, 7, 37, 64]))
    n_in, n_out = 32 * draw(st.integers(1, 4)), 32 * draw(st.integers(1, 4))
    dense = rng.random((n_in, n_out)) < draw(st.sampled_from([0.01, 0.05, 0.2]))
    dense[rng.integers(n_in)] = rng.random(n_out) < 0.9
    in_map = IdMap(32, draw(st.sampled_from([32, 96])), draw(st.sampled_from([0, 640])))
    with_tables = draw(st.booleans())
    degrees = rng.integers(0, 20, n_out).astype(np.int64) if draw(st.booleans()) else None
    frontier = random_words(rng, n_in, width, draw(st.sampled_from([0.02, 0.3])))
    visited = random_words(rng, n_out, width, draw(st.sampled_from([0.0, 0.3, 0.9])))
    return rng, dense, in_map, width, with_tables, degrees, frontier, visited


@settings(max_examples=80, deadline=None)
@given(multi_cases())
def test_multi_push(case):
    rng, dense, in_map, width, with_tables, degrees, frontier, visited = case
    ids = rng.permutation(dense.shape[0])[:rng.integers(0, dense.shape[0] + 1)].astype(np.int32)
    target = fresh_target(rng, visited, width, with_tables, degrees)
    glob = in_map.to_global(ids.astype(np.int64))
    claims = [(v, frontier[u], lambda i, g=int(g): g)
              for u, g in zip(ids.tolist(), glob) for v in np.flatnonzero(dense[u]).tolist()]
    expected = reference_claims(target, claims)
    K.multi_push(csr_of(dense), ids, frontier, in_map, target)
    assert_target(target, expected, int(dense[ids].sum()))


@settings(max_examples=80, deadline=None)
@given(multi_cases(), st.sampled_from([None, 2, 3]), st.booleans())
def test_multi_pull(case, nchunks, all_live):
    rng, dense, in_map, width, with_tables, degrees, frontier, visited = case
    by_target = dense.T                          # rows: outputs
    live = int(np.bitwise_or.reduce(frontier)) if all_live else int(rng.integers(0, 1 << min(width, 62)))
    target = fresh_target(rng, visited, width, with_tables, degrees)
    glob = in_map.to_global(np.arange(dense.shape[0], dtype=np.int64))
    claims, examined = [], 0
    for r in range(by_target.shape[0]):          # rows in order, inputs in order, 32 a step
        wanted = live & ~int(visited[r])
        if not wanted:
            continue
        inputs = np.flatnonzero(by_target[r])
        got = 0
        for position, c in enumerate(inputs.tolist()):
            claims.append((r, int(frontier[c]) & wanted, lambda i, g=int(glob[c]): g))
            got |= int(frontier[c]) & wanted
            if got == wanted:
                break
        examined += min(len(inputs), (position // 32 + 1) * 32) if got == wanted else len(inputs)
    expected = reference_claims(target, claims)
    with chunks(multi, nchunks):
        K.multi_pull(csr_of(by_target), frontier, live, in_map, target)
    assert_target(target, expected, examined)


@settings(max_examples=80, deadline=None)
@given(multi_cases())
def test_multi_fold_pack_and_merge(case):
    rng, dense, in_map, width, with_tables, degrees, frontier, visited = case
    n = visited.shape[0]
    ids = rng.integers(0, n, int(rng.integers(0, 3 * n))).astype(np.int32)
    words = random_words(rng, ids.shape[0], width, 0.3)
    counts = np.bitwise_count(words).astype(np.int64)
    offsets = np.cumsum(counts) - counts
    sent = rng.integers(0, 10**6, int(counts.sum())).astype(np.int64)
    # the parents packed in bit order, from a table of candidates
    table = rng.integers(0, 10**6, (n, width)).astype(np.int64)
    packed = K.multi_pack_parents(ids, words, offsets, table, int(counts.sum()))
    assert packed.tolist() == [int(table[v, i]) for v, w in zip(ids.tolist(), words.tolist())
                               for i in range(width) if w >> i & 1]
    target = fresh_target(rng, visited, width, with_tables, degrees)
    claims = [(int(v), w, lambda i, e=e, w=int(w): int(sent[offsets[e] + bin(w & ((1 << i) - 1)).count("1")]))
              for e, (v, w) in enumerate(zip(ids, words))]
    expected = reference_claims(target, claims)
    K.multi_merge(ids, words, offsets, sent if with_tables else None, target)
    assert_target(target, expected, 0)
    found = int(target.counters[K.M_FOUND])
    queue = target.queue[:found]
    queue[:2] = 0                                   # the two entries queued before
    per_owner = K.multi_fold_count(queue, target.counters, target.next, 32, n // 32)
    owners = queue // 32
    np.testing.assert_array_equal(per_owner[:n // 32], np.bincount(owners, minlength=n // 32))
    np.testing.assert_array_equal(per_owner[n // 32:], np.bincount(
        owners, weights=np.bitwise_count(target.next[queue]), minlength=n // 32))
