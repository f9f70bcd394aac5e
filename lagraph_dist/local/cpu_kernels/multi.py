"""Twins of kernels/multi.cu: up to 64 searches at once on a frontier of one uint64 word a vertex,
as compiled loops.

Push and merge claim in the order of their inputs (frontier then adjacency order, the received
pairs in order) on one thread: the first claim of a (vertex, search) bit gives its parent, and
the vertices claimed are then taken in increasing order (their queue order). Pull's rows are
independent: wide outputs are cut into chunks of rows, one a thread, whose queue pieces and
counters are joined in order, so the result is the one-thread result."""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import popcount64
from lagraph_dist.local.engine import MultiTarget
from lagraph_dist.local.cpu_kernels.common import chunks_for, map_args, optional_int64, to_global
from lagraph_dist.local.layout import M_BITS, M_COMPLETED, M_EXAMINED, M_FOUND, M_LIVE, M_NCOUNTERS, M_PUSH_EDGES


# -- multi-source search: k <= 64 searches at once (kernels/multi.cu) -------------------------
# A frontier-matrix part holds one uint64 word a vertex: bit i is search i. Every kernel below
# claims bits into a MultiTarget: a bit (v, i) not yet in words[v] is set there, in next[v] and,
# when wanted, levels[v, i] = depth and parents[v, i] = its parent. Claims are first-come: the
# kernels' result is one valid choice of parents, the same levels and words whatever the order
# (these loops make the first claim in input order win).

# counters of the multi-source kernels: M_FOUND ... M_NCOUNTERS of lagraph_dist.local.layout


def multi_new_counters():
    return np.zeros(M_NCOUNTERS, dtype=np.uint64)


_ONE = np.uint64(1)
_NO_TABLE = np.zeros((1, 1), dtype=np.int64)


@numba.njit(cache=True, inline="always")
def _lowest_bit(x):
    """The index of the lowest set bit of a nonzero uint64."""
    return popcount64((x & (~x + _ONE)) - _ONE)


@numba.njit(cache=True, inline="always")
def _below(x, i):
    """The bits of ``x`` below bit i."""
    return x & ((_ONE << np.uint64(i)) - _ONE)


@numba.njit(cache=True)
def _take(v, before, fresh, words, next_words, levels, with_levels, depth, width, full, degrees, has_degrees,
          counters):
    """Vertex v takes its ``fresh`` bits (nonzero; ``before``: its word before this kernel):
    words, next word, levels and counters; True when its next word was zero (it enters the
    queue, which is the caller's)."""
    words[v] = before | fresh
    entered = next_words[v] == 0
    next_words[v] |= fresh
    counters[M_BITS] += np.uint64(popcount64(fresh))
    counters[M_LIVE] |= fresh
    if has_degrees:
        if entered:
            counters[M_PUSH_EDGES] += np.uint64(degrees[v])
        if (before | fresh) == full:
            counters[M_COMPLETED] += np.uint64(degrees[v])
    if with_levels:
        x = fresh
        while x:
            i = _lowest_bit(x)
            if i < width:
                levels[v, i] = depth
            x &= x - _ONE
    if entered:
        counters[M_FOUND] += _ONE
    return entered


@numba.njit(cache=True, inline="always")
def _claim_bits(v, offer, words, seen, touched, before, count):
    """Vertex v claims the bits of ``offer`` not yet in words[v] (set there now), its word
    before its first claim of this kernel recorded; returns (the bits claimed, the count of
    vertices recorded)."""
    new = offer & ~words[v]
    if new == 0:
        return new, count
    bit = np.uint32(1) << np.uint32(v & 31)
    if not seen[v >> 5] & bit:
        seen[v >> 5] |= bit
        touched[count] = v
        before[count] = words[v]
        count += 1
    words[v] |= new
    return new, count


@numba.njit(cache=True)
def _take_touched(touched, before, count, words, next_words, queue, levels, with_levels, depth, width, full, degrees,
                  has_degrees, counters):
    """The claimed vertices, in increasing order, take their new bits (see :func:`_take`)."""
    order = np.argsort(touched[:count])
    for j in order:
        v = touched[j]
        tail = np.int64(counters[M_FOUND])
        if _take(v, before[j], words[v] & ~before[j], words, next_words, levels, with_levels, depth, width, full,
                 degrees, has_degrees, counters):
            queue[tail] = v


@numba.njit(cache=True)
def _push_claims(indptr, indices, frontier, frontier_words, block_len, stride, offset, words, parents, with_parents,
                 width, seen, touched, before):
    """Every frontier edge u -> v, in frontier then adjacency order, claims u's bits not yet in
    words[v] (set there now), with u's global id as their parent. Returns (vertices claimed,
    edges read)."""
    count, examined = 0, 0
    for k in range(frontier.shape[0]):
        u = frontier[k]
        start, stop = indptr[u], indptr[u + 1]
        examined += stop - start
        offer = frontier_words[u]
        if offer == 0:
            continue
        source = to_global(np.int64(u), block_len, stride, offset)
        for p in range(start, stop):
            v = indices[p]
            new, count = _claim_bits(v, offer, words, seen, touched, before, count)
            while with_parents and new:
                i = _lowest_bit(new)
                if i < width:
                    parents[v, i] = source
                new &= new - _ONE
    return count, examined


@numba.njit(cache=True)
def _merge_claims(ids, received, offsets, sent_parents, words, parents, with_parents, width, seen, touched, before):
    """Every received (id, word) pair in order claims the word's bits not yet in words[id]; bit
    i's parent is ``sent_parents[offsets[e] + (bits of the word below i)]``. Returns the
    vertices claimed."""
    count = 0
    for e in range(ids.shape[0]):
        v = ids[e]
        new, count = _claim_bits(v, received[e], words, seen, touched, before, count)
        while with_parents and new:
            i = _lowest_bit(new)
            if i < width:
                parents[v, i] = sent_parents[offsets[e] + popcount64(_below(received[e], i))]
            new &= new - _ONE
    return count


def _target_args(target):
    """The trailing arguments of :func:`_take` for a MultiTarget (dummies where it has none)."""
    degrees, has_degrees = optional_int64(target.out_degree)
    levels = _NO_TABLE if target.levels is None else target.levels
    return (levels, target.levels is not None, np.int64(target.depth), np.int64(target.width),
            np.uint64(target.full), degrees, has_degrees)


def _claim_scratch(length):
    """(seen bits, touched vertices, their words before) for the claims over ``length`` vertices
    (the lists are left unwritten until used)."""
    return (np.zeros(-(-length // 32), dtype=np.uint32), np.empty(max(length, 1), dtype=np.int64),
            np.empty(max(length, 1), dtype=np.uint64))


def _parents_of(target):
    return (_NO_TABLE, False) if target.parents is None else (target.parents, True)


def multi_push(csr, frontier_ids, frontier_words, in_map, target):
    """Top-down: every frontier vertex u (input-space id, ``frontier_words[u]`` its searches)
    offers its bits to each out-neighbour, with parent u's global id. Returns the counters."""
    frontier = frontier_ids.astype(np.int32, copy=False)
    scratch = _claim_scratch(target.words.shape[0])
    count, examined = _push_claims(csr.indptr, csr.indices, frontier, frontier_words, *map_args(in_map),
                                   target.words, *_parents_of(target), np.int64(target.width), *scratch)
    _take_touched(scratch[1], scratch[2], count, target.words, target.next, target.queue, *_target_args(target),
                  target.counters)
    target.counters[M_EXAMINED] += np.uint64(examined)
    return target.counters


@numba.njit(cache=True)
def _pull_rows(indptr, indices, frontier_words, live, block_len, stride, offset, r0, r1, words, next_words,
               parents, with_parents, levels, with_levels, depth, width, full, degrees, has_degrees, listed,
               counters):
    """Rows r0 .. r1: each row with bits of ``live`` not in its word scans its inputs in order,
    32 a step, until it has them all or none are left; bit i's parent is the first input
    holding it. The rows entering the queue are listed at ``listed[r0:]`` (counters[M_FOUND]
    of them); the inputs of the steps taken are added to counters[M_EXAMINED]."""
    for r in range(r0, r1):
        wanted = live & ~words[r]
        if wanted == 0:
            continue
        start, stop = indptr[r], indptr[r + 1]
        got, needed = np.uint64(0), 0
        for p in range(start, stop):
            c = indices[p]
            new = frontier_words[c] & wanted & ~got
            if new == 0:
                continue
            got |= new
            needed = p - start
            while with_parents and new:
                i = _lowest_bit(new)
                if i < width:
                    parents[r, i] = to_global(np.int64(c), block_len, stride, offset)
                new &= new - _ONE
            if got == wanted:
                break
        read = stop - start
        if got == wanted:
            read = min(read, (needed // 32 + 1) * 32)
        counters[M_EXAMINED] += np.uint64(read)
        if got == 0:
            continue
        tail = np.int64(counters[M_FOUND])
        if _take(r, words[r], got, words, next_words, levels, with_levels, depth, width, full, degrees, has_degrees,
                 counters):
            listed[r0 + tail] = r


@numba.njit(cache=True, parallel=True)
def _pull_chunks(indptr, indices, frontier_words, live, block_len, stride, offset, words, next_words, parents,
                 with_parents, levels, with_levels, depth, width, full, degrees, has_degrees, listed, chunk_counters):
    """:func:`_pull_rows` over ``chunk_counters.shape[0]`` chunks of rows, one a thread."""
    nchunks, n = chunk_counters.shape[0], words.shape[0]
    for c in numba.prange(nchunks):
        _pull_rows(indptr, indices, frontier_words, live, block_len, stride, offset, n * c // nchunks,
                   n * (c + 1) // nchunks, words, next_words, parents, with_parents, levels, with_levels, depth,
                   width, full, degrees, has_degrees, listed, chunk_counters[c])


@numba.njit(cache=True)
def _join_chunks(chunk_counters, listed, n, queue, counters):
    """The chunks' queue pieces, in order, onto the queue, and their counters into ``counters``."""
    nchunks = chunk_counters.shape[0]
    for c in range(nchunks):
        r0, tail = n * c // nchunks, np.int64(counters[M_FOUND])
        for j in range(np.int64(chunk_counters[c, M_FOUND])):
            queue[tail + j] = listed[r0 + j]
        for k in range(counters.shape[0]):
            if k == M_LIVE:
                counters[k] |= chunk_counters[c, k]
            else:
                counters[k] += chunk_counters[c, k]


def _multi_pull(csr, frontier_words, live, in_map, target, nchunks):
    n = target.words.shape[0]
    parents, with_parents = _parents_of(target)
    levels, with_levels, depth, width, full, degrees, has_degrees = _target_args(target)
    listed = np.empty(max(n, 1), dtype=np.int32)
    chunk_counters = np.zeros((nchunks, M_NCOUNTERS), dtype=np.uint64)
    args = (csr.indptr, csr.indices, frontier_words, np.uint64(live), *map_args(in_map))
    tail = (target.words, target.next, parents, with_parents, levels, with_levels, depth, width, full, degrees,
            has_degrees, listed)
    if nchunks == 1:
        _pull_rows(*args, 0, n, *tail, chunk_counters[0])
    else:
        _pull_chunks(*args, *tail, chunk_counters)
    _join_chunks(chunk_counters, listed, n, target.queue, target.counters)
    return target.counters


def multi_pull(csr, frontier_words, live, in_map, target):
    """Bottom-up: each output row v with bits of ``live`` not in ``words[v]`` scans its inputs
    in order, 32 a step, until it has found all of them or none are left; bit i's parent is
    the first input holding it. The examined count is the inputs of the steps taken."""
    return _multi_pull(csr, frontier_words, live, in_map, target, chunks_for(max(csr.nnz, csr.nmajor)))


def multi_popcounts(words):
    """Set bits of every word (int64; numpy's own single pass)."""
    return np.bitwise_count(words).astype(np.int64)


def multi_nonzero_ids(words, count=None):
    """int32 ids of the nonzero words, increasing (``count``, when known, is only a size hint)."""
    return np.flatnonzero(words).astype(np.int32)


@numba.njit(cache=True)
def _fold_count(queue, count, words, block_len, nowners):
    per_owner = np.zeros(2 * nowners, dtype=np.int64)
    for j in range(count):
        v = queue[j]
        per_owner[v // block_len] += 1
        per_owner[nowners + v // block_len] += popcount64(words[v])
    return per_owner


def multi_fold_count(queue, counters, words, block_len, nowners):
    """int64 [vertices per owner (nowners), bits per owner (nowners)] of the queue's first
    counters[M_FOUND] vertices, owner = id // block_len."""
    return _fold_count(queue, int(counters[M_FOUND]), words, block_len, nowners)


@numba.njit(cache=True, parallel=True)
def _pack_parents(sources, words, offsets, cand_parents, out):
    width = cand_parents.shape[1]
    for e in numba.prange(sources.shape[0]):
        x, at = words[e], offsets[e]
        while x:
            i = _lowest_bit(x)
            if i >= width:
                break
            out[at] = cand_parents[sources[e], i]
            at += 1
            x &= x - _ONE


def multi_pack_parents(sources, words, offsets, cand_parents, total):
    """The parents of every set bit of ``words[e]``, in increasing bit order, at
    ``offsets[e]`` on (int64, ``total`` of them): ``cand_parents[sources[e], i]``."""
    out = np.empty(total, dtype=np.int64)
    _pack_parents(sources.astype(np.int64, copy=False), words, offsets.astype(np.int64, copy=False), cand_parents,
                  out)
    return out


def multi_merge(ids, words, offsets, parents, target):
    """The owner's claims of received (id, word) pairs; bit i of entry e has parent
    ``parents[offsets[e] + (bits of words[e] below i)]`` (``parents`` None: no parents)."""
    ids = ids.astype(np.int64, copy=False)
    scratch = _claim_scratch(target.words.shape[0])
    with_parents = parents is not None and target.parents is not None
    sent = parents if with_parents else _NO_TABLE[0]
    offsets = offsets.astype(np.int64, copy=False) if with_parents else _NO_TABLE[0]
    table = target.parents if with_parents else _NO_TABLE
    count = _merge_claims(ids, words, offsets, sent, target.words, table, with_parents, np.int64(target.width),
                          *scratch)
    _take_touched(scratch[1], scratch[2], count, target.words, target.next, target.queue, *_target_args(target),
                  target.counters)
    return target.counters


def warm_up(csr, in_map):
    """Compile (or load) the loops, one thread and chunked, with and without parents and levels."""
    n = csr.nmajor
    for tables in (True, False):
        def target():
            table = np.full((n, 2), -1, dtype=np.int64) if tables else None
            return MultiTarget(np.zeros(n, np.uint64), np.zeros(n, np.uint64), np.zeros(n, np.int32), table,
                               table, 2, 1, 3, np.ones(n, np.int64) if tables else None, multi_new_counters())
        frontier = np.full(n, 3, dtype=np.uint64)
        multi_push(csr, np.arange(n, dtype=np.int32), frontier, in_map, target())
        for nchunks in (1, 2):
            _multi_pull(csr, frontier, 3, in_map, target(), nchunks)
        done = target()
        multi_merge(np.arange(n, dtype=np.int32), frontier, np.arange(n, dtype=np.int64) * 2,
                    np.zeros(2 * n, np.int64) if tables else None, done)
        per_owner = multi_fold_count(done.queue, done.counters, done.next, n, 1)
        multi_pack_parents(np.arange(n, dtype=np.int32), frontier, np.arange(n, dtype=np.int64) * 2,
                           np.zeros((n, 2), np.int64), int(per_owner[1]))
