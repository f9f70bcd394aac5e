"""The multi-source search of up to 512 sources as one compiled run on one process (1 x 1 grid).

One call of :func:`_search` (numba, ``cache=True``) runs every level of the bit-parallel
multi-source BFS (Then et al., VLDB 2014): search i is bit i % 64 of word i // 64 of a vertex's
W = ceil(k / 64) uint64 words, so each edge read serves 64 searches. Each vertex has its
visited words and its frontier words, W contiguous words a row. A push level walks the
frontier's queue and offers each vertex's words to its out-neighbours (on one core, or, for
many out-edges, each core those in its own range of rows); a pull
level has every row that some live search has not reached yet OR in its in-neighbours'
frontier words until it holds all the bits it wants, in parallel over chunks of rows (each
chunk writes only its own rows and queue slots, so the result is the same whatever the
threads). Pulls read a list of the rows that can still take bits (rows with in-edges that
want some live search's bit), and a sparse frontier's words packed by rank, so that a first pull's reads stay in
the core's caches.
Which direction a level takes is fused.py's :func:`_rule` on the multi-source counts (the
frontier's vertices and their out-edges; the unexplored edges are those of the vertices some
search has still to reach, handed over each level), as ``algebra/multi.py`` asks DirectionRule.

A pull level whose frontier has few out-edges beside the in-edges its rows would read (a
mesh's: the rows short of some search are most of the graph, the wave a thin ring) runs from
the frontier instead, as a push does (:func:`_scatter_pull_level`); its records, parents and
rows stay the pull's (the in-edges the rows' scans would read are kept up to date level by
level). Every frontier is kept in increasing vertex order (a push lists its rows found
through a bitmap: :func:`_push_level`), so that a level walks the graph's arrays in order, and
each level's cost is its frontier's, not the graph's. A push of many out-edges is shared by the
cores, each the out-neighbours in its own range of rows.

A levels table small enough for the caches is written as the levels find its entries. A
larger one is not: each level's new frontier (its vertices and words) is appended to a log,
and at the end one pass over cache-sized chunks of rows writes every row of the (rows, k)
levels table once, -1 first, then the levels of the log's wide segments inside the chunk; the
thin segments' few entries are written after it (a large table written as the levels find its
entries was read and written back once a wide level). A log grown to
:data:`LOG_ROWS_PER_VERTEX` rows a vertex is written so before the run ends, and starts over.
Parents are found with their edge, so they are written as found into a table filled with -1
first.

Bit-parallel searches gain where their waves meet, which on a small-world graph they do within
a few levels. On a mesh or a road graph they run apart: each edge read still serves one search,
and the batch's words (a uint64 a vertex and table) leave the core's caches where one search's
visited bits do not. So the run measures the sharing of its first :data:`PROBE_LEVELS` levels
(entries found a vertex found) and, below :data:`MIN_SHARING` (on a thin graph, whose waves
keep apart past the first levels: :data:`THIN_SHARING_PER_WORD` for each word a vertex), stops
and runs the batch's searches one at a time instead, each as ``ld.bfs`` runs it
(:func:`_separate_searches`); ``settings.multi_searches`` forces either way.
"""
from __future__ import annotations

import concurrent.futures
import time

import llvmlite.ir as llvm_ir
import numba
import numpy as np
from numba import prange
from numba.core import cgutils, types
from numba.extending import intrinsic

from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.settings import settings
from lagraph_dist.local.cpu_kernels.bitmap import empty_rows
from lagraph_dist.local.cpu_kernels import fused
from lagraph_dist.local.cpu_kernels.common import nonnegative
from lagraph_dist.local.cpu_kernels.fused import (CHUNKS_PER_THREAD, _not_inlined, _prefetch, FUSED_LEVEL_CLOCK, _choose, _read_clock,
                                                  seconds_per_tick)
from lagraph_dist.local.cpu_kernels.fused import (PARALLEL_ROWS as SINGLE_PARALLEL_ROWS, _record_room, _search_into,
                                                  run_slots, thin_edges)
from lagraph_dist.local import recycle
from lagraph_dist.local.engine import (MULTI_FUSED_MAX_WIDTH, QUEUE_ENGINE, RUN_TIMED, LevelPlanes, MultiFusedRun,
                                      levels_as_planes, queue_batch_shares, queue_search_allowed, thin_graph)
from lagraph_dist.local.cpu_kernels.queue import queue_walk
from lagraph_dist.core.stats import HOST_CLOCK
from lagraph_dist.local.parts import LocalCSR

#: the CPU batch's alpha (engine.Kernels.MULTI_ALPHA). On 2 cores, Kronecker 18, 64 sources, the
#: second level pushed 2.0 M edges in 8.2 ms (4 ns an edge) where its pull read 7.6 M in 11-13
#: (1.5 ns): a pushed edge is worth about 2.7 pulled. Over Kronecker 16-20 and sources of seeds
#: 1-5, the five batches whose directions 3 and 4 choose differently ran 7-16% faster at 3, and
#: the other twenty choose alike (docs/notes/cpu-kernels.md).
MULTI_ALPHA = 3.0
#: engine.Kernels.MULTI_TWIN_AFTER: a graph's twin is made once its levels-only calls have asked
#: for this many searches, about what the build costs in searches. On 2 cores, levels only, with
#: the pull's chunks and the reductions' blocks dealt out in turn (a twin's hubs lie together):
#: Kronecker 20, 64 sources 76-87 ms a batch as given against 46-50 on the twin, 512 sources
#: 820-873 against 561-607, the build 1.0 s (2,000-2,300 searches); Kronecker 18, 512 sources
#: 197-253 against 151-216, the build 0.5 s (about 5,000); Kronecker 16, 0.03 s (700-1,500).
#: Closeness from 4,096 sources at 18 took 1.32-1.73 s on the twin against 1.71-1.99, and
#: betweenness from 512 (its sweeps read the rows: put back) 6.9-8.1 s against 6.8-8.8
MULTI_TWIN_AFTER = 1 << 12

__all__ = ["multi_bfs_fused", "compile_multi_fused"]

#: a pull level over fewer rows than this runs on one core (a parallel region costs ~20 us)
PARALLEL_ROWS = 1 << 16
#: a pull level from a frontier of fewer than 1 / SPARSE_SHARE of the vertices reads its words
#: packed by rank (:func:`_frontier_ranks`)
SPARSE_SHARE = 8
#: chunks of rows a thread takes in a batch's parallel pull, dealt out in turn (thread t: chunks t,
#: t + threads, ...). Cut in halves, a graph numbered hubs first (the degree twin) gave the first
#: thread every hub: 2 cores, Kronecker 20, 512 sources, levels only, the twin's batch 1.00-1.04 s
#: in halves of 16 chunks against 0.56-0.61 dealt out, 64 sources 59-72 against 46-50 ms (as given
#: 0.91-0.95 s against 0.82-0.87, and 77-96 against 74-87 ms)
PULL_CHUNKS_PER_THREAD = 64
#: bytes of the levels table one chunk of the final pass writes (it stays in the core's cache
#: while the log's entries are written into it)
CHUNK_BYTES = 1 << 17
#: a levels table of fewer slots than this is written on one core (the parents' -1 always is)
PARALLEL_TABLE = 1 << 21
#: a pull level whose frontier has fewer out-edges than 1 / SCATTER_SHARE of the in-edges its
#: rows would read at most (per core the pull runs on) runs from the frontier instead
#: (:func:`_scatter_pull_level`, on one core)
SCATTER_SHARE = 2
#: a push level (or a pull run from its frontier) offering this many out-edges or more is shared
#: by the cores, each its own range of rows (:func:`_push_level`)
PARALLEL_OFFERS = 1 << 16
#: a levels table of this many slots or more is written at the end by chunks of rows from the
#: log; a smaller one stays in the core's caches while written entry by entry as levels find them
CHUNKED_TABLE = 1 << 20
#: the levels log holds at most this many rows a vertex; a level that would pass it first writes
#: the log's levels to the table and starts it over. A vertex's row is in the log once for each
#: depth at which some search finds it: on a Kronecker graph once or twice, on a mesh once for
#: each distinct distance to the sources (512 sources in one row of a 1000 x 1000 mesh, run
#: together, grew the log past 24 GiB)
LOG_ROWS_PER_VERTEX = 4
#: rows ahead of the one a level writes whose levels row it asks the caches for
PREFETCH_ROWS = 16
#: an old frontier of more than 1 / CLEAR_ALL_SHARE of the rows is cleared by zeroing every row
CLEAR_ALL_SHARE = 8
#: a log word of this many bits or more is written to the levels table as a whole
DENSE_BITS = 6
#: the levels whose sharing decides whether a batch's searches run together (on a Kronecker
#: graph the second level finds 6 to 13 entries a vertex, on a mesh 1.0)
PROBE_LEVELS = 2
#: below this many entries found a vertex found in the probe's levels, the searches run apart
MIN_SHARING = 1.5
#: on a thin graph, the entries a vertex found the probe's levels must find for each word a
#: vertex (64 searches) of the batch (:func:`_min_sharing`)
THIN_SHARING_PER_WORD = 4
#: ``settings.multi_searches``' values: decided by the probe, always bit-parallel, one at a time
SEARCHES = ("auto", "together", "separate")
#: searches run one at a time between writes of their columns into the (rows, k) tables
SEPARATE_GROUP = 8
#: the record's columns (engine.MULTI_RECORD_FIELDS)
_FRONTIER, _DISCOVERED, _EXAMINED, _PUSH, _VERTICES = range(5)
#: the last column of the depths' sums of searches run one at a time: the searches that ran it
_SEARCHES_RAN = _VERTICES

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


# -- bits -------------------------------------------------------------------------------------
@intrinsic
def _ctz64(typingctx, word):
    """The index of the lowest set bit of a nonzero uint64 (LLVM's cttz: one instruction)."""
    def codegen(context, builder, signature, args):
        i64 = llvm_ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, llvm_ir.FunctionType(i64, [i64, llvm_ir.IntType(1)]),
                                            "llvm.cttz.i64")
        return builder.call(fn, [args[0], llvm_ir.Constant(llvm_ir.IntType(1), 1)])
    return types.int64(types.uint64), codegen


@intrinsic
def _popcount64(typingctx, word):
    """Set bits of a uint64 (LLVM's ctpop: popcnt where the CPU has it)."""
    def codegen(context, builder, signature, args):
        i64 = llvm_ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, llvm_ir.FunctionType(i64, [i64]), "llvm.ctpop.i64")
        return builder.call(fn, [args[0]])
    return types.int64(types.uint64), codegen


@intrinsic
def _select_columns(typingctx, table, offset, bits, value):
    """``table.flat[offset + i] = value`` for each set bit i of the uint64 ``bits`` (64 int32
    columns from ``offset``, a C-contiguous table): four 16-lane selects, on AVX-512 a mask
    register and a blend each, where a compiled loop over the bits shifted a 64-bit lane per
    column."""
    def codegen(context, builder, signature, args):
        table_value, offset_value, word, fill = args
        data = context.make_array(signature.args[0])(context, builder, table_value).data
        i32, i64 = llvm_ir.IntType(32), llvm_ir.IntType(64)
        lanes = llvm_ir.VectorType(i32, 16)
        splat = cgutils.get_null_value(lanes)
        for lane in range(16):
            splat = builder.insert_element(splat, fill, llvm_ir.Constant(i32, lane))
        for quarter in range(4):
            part = builder.trunc(builder.lshr(word, llvm_ir.Constant(i64, 16 * quarter)), llvm_ir.IntType(16))
            mask = builder.bitcast(part, llvm_ir.VectorType(llvm_ir.IntType(1), 16))
            at = builder.bitcast(builder.gep(data, [builder.add(offset_value, llvm_ir.Constant(i64, 16 * quarter))]),
                                 lanes.as_pointer())
            builder.store(builder.select(mask, splat, builder.load(at, align=4)), at, align=4)
        return context.get_dummy_value()
    return types.none(table, types.int64, types.uint64, types.int32), codegen


@numba.njit(cache=True, inline="always")
def _write_bits(table, v, w, bits, value):
    """table[v, 64 w + b] = value for every set bit b of ``bits``."""
    base = w * 64
    while bits:
        table[v, base + _ctz64(bits)] = value
        bits &= bits - _ONE


def full_words(k):
    """The bits of k searches, word by word (uint64, ceil(k / 64) of them)."""
    width = -(-k // 64)
    full = np.full(width, _ALL, np.uint64)
    if k % 64:
        full[-1] = (_ONE << np.uint64(k % 64)) - _ONE
    return full


# -- the start --------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _row_empty(words, v):
    """True when vertex v's words hold no bit."""
    for x in range(words.shape[1]):
        if words[v, x]:
            return False
    return True


@numba.njit(cache=True)
def _start(sources, seen, cur, queue, parents, with_parents):
    """Search i's bit at vertex sources[i] in ``seen`` and ``cur`` (zeroed), its parent itself;
    the distinct sources listed in ``queue`` in order of first appearance. Returns how many."""
    nf = 0
    for i in range(sources.shape[0]):
        s = sources[i]
        w, bit = i >> 6, _ONE << np.uint64(i & 63)
        if _row_empty(cur, s):
            queue[nf] = s
            nf += 1
        cur[s, w] |= bit
        seen[s, w] |= bit
        if with_parents:
            parents[s, i] = s
    return nf


# -- a push level -----------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _first_at_or_after(ids, start, stop, value):
    """The first slot of the increasing ``ids[start:stop]`` holding ``value`` or more (stop:
    none): a short list read in order, a long one searched."""
    if stop - start > 16:
        return start + np.searchsorted(ids[start:stop], value)
    while start < stop and ids[start] < value:
        start += 1
    return start


@numba.njit(cache=True)
def _push_part(oip, oix, cur, cq, nf, nxt, seen, marks, lo, hi, parents, with_parents):
    """The share of a push level whose out-neighbours are the rows ``lo`` to ``hi`` (multiples
    of 64, or n): each frontier vertex u (``cq[:nf]``, in order) offers its words to those of its
    out-neighbours (its out-list is increasing: the share is one run of it), which claim the
    bits they have not seen, with parent u, into ``nxt`` and mark themselves in ``marks``. It
    writes only its rows and their bitmap words. Returns the edges read."""
    n, width = cur.shape[0], cur.shape[1]
    seen_words, next_words = seen.reshape(n * width), nxt.reshape(n * width)     # (one word: no row multiply)
    examined = 0
    for j in range(nf):
        u = nonnegative(cq[j])
        start, stop = nonnegative(oip[u]), oip[u + 1]
        first = start if lo == 0 else _first_at_or_after(oix, start, stop, lo)
        last = stop if hi >= n else _first_at_or_after(oix, first, stop, hi)
        examined += last - first
        if width == 1:                       # (a Kronecker graph's hubs' offers: 1.6x faster so)
            offer = cur[u, 0]
            for e in range(first, last):
                # a branch on the new bits: with the frontier in increasing order it predicts
                # well (a mesh's push levels 1.5-2x faster than without it)
                v = nonnegative(oix[e])
                new = offer & ~seen_words[v]
                if new:
                    seen_words[v] |= new
                    next_words[v] |= new
                    marks[v >> 6] |= _ONE << np.uint64(v & 63)
                    if with_parents:
                        _write_bits(parents, v, 0, new, u)
            continue
        for e in range(first, last):
            v = nonnegative(oix[e])
            claimed = False
            for w in range(width):
                new = cur[u, w] & ~seen[v, w]
                if new:
                    claimed = True
                    seen[v, w] |= new
                    nxt[v, w] |= new
                    if with_parents:
                        _write_bits(parents, v, w, new, u)
            if claimed:
                marks[v >> 6] |= _ONE << np.uint64(v & 63)
    return examined


@numba.njit(cache=True, parallel=True)
def _push_parts(bounds, oip, oix, cur, cq, nf, nxt, seen, marks, parents, with_parents, examined):
    for p in prange(bounds.shape[0] - 1):
        examined[p] = _push_part(oip, oix, cur, cq, nf, nxt, seen, marks, bounds[p], bounds[p + 1], parents,
                                 with_parents)


@numba.njit(cache=True)
def _push_level(oip, oix, cur, cq, nf, nxt, nq, seen, marks, parents, with_parents, clear, parts):
    """Every frontier vertex u (``cq[:nf]``, in order) offers its words to its out-neighbours,
    in adjacency order; a neighbour v claims the bits it has not seen, with parent u, into
    ``nxt`` (zero before). On ``parts`` cores, each the out-neighbours in its own range of rows
    (so no two write one word; a Kronecker graph's second level offers a few hundred hubs'
    words to a million out-edges, which one core read at 7 ns an edge). The rows found are
    listed in ``nq`` in increasing order through ``marks`` (zero before and after): the next
    level walks the graph's arrays in order (a mesh's push levels 2x faster than in the order
    found, where the searches' waves interleave), and the log's segments are sorted. With
    ``clear``, the frontier's words are zeroed after. Returns (the rows found, the edges
    read)."""
    n = seen.shape[0]
    if parts == 1:
        examined = _push_part(oip, oix, cur, cq, nf, nxt, seen, marks, 0, n, parents, with_parents)
    else:
        bounds = np.empty(parts + 1, np.int64)
        for p in range(parts):
            bounds[p] = (n * p // parts) >> 6 << 6
        bounds[parts] = n
        shares = np.zeros(parts, np.int64)
        _push_parts(bounds, oip, oix, cur, cq, nf, nxt, seen, marks, parents, with_parents, shares)
        examined = shares.sum()
    if clear:
        _clear_rows(cur, cq, nf)
    return _marked_rows(marks, nq), examined


@numba.njit(cache=True)
def _push_counted(oip, oix, cur, cq, nf, nxt, nq, marks, seen, full, degrees, live, levels, depth, write, parents,
                  with_parents):
    """A push level of one word a vertex that counts what it finds as it finds it, so that no
    pass over the rows found follows (a mesh's levels: that pass was a third of their time):
    each new bit's depth (``write``) and parent go to the tables, a row found is marked in
    the bitmap ``marks`` (zero before and after) and listed from it in ``nq`` in increasing
    order at the end, its out-edges counted when its first bit comes and again when its last
    one does; ``live`` becomes the bits found and the frontier's words are zeroed. Returns
    (rows found, edges read, entries, their out-edges, out-edges of the rows now complete)."""
    _not_inlined()
    every = full[0]
    examined, entries, edges, completed = 0, 0, 0, 0
    found_bits = _ZERO
    for j in range(nf):
        u = nonnegative(cq[j])
        start, stop = nonnegative(oip[u]), oip[u + 1]
        examined += stop - start
        offer = cur[u, 0]
        for e in range(start, stop):
            v = nonnegative(oix[e])
            had = seen[v, 0]
            new = offer & ~had
            if new:                          # (predicts well: the frontier is in increasing order)
                now = had | new
                seen[v, 0] = now
                before = nxt[v, 0]
                nxt[v, 0] = before | new
                entries += _popcount64(new)
                found_bits |= new
                if write:
                    _write_bits(levels, v, 0, new, depth)
                if with_parents:
                    _write_bits(parents, v, 0, new, u)
                if before == 0:
                    marks[v >> 6] |= _ONE << np.uint64(v & 63)
                    edges += degrees[v]
                if now == every:
                    completed += degrees[v]
        cur[u, 0] = 0
    live[0] = found_bits
    return _marked_rows(marks, nq), examined, entries, edges, completed


@numba.njit(cache=True)
def _marked_rows(marks, ids):
    """The rows marked in the bitmap ``marks`` into ``ids`` in increasing order, the marks
    cleared; returns how many."""
    at = 0
    for x in range(marks.shape[0]):
        bits = marks[x]
        if bits == 0:
            continue
        marks[x] = 0
        while bits:
            ids[at] = x * 64 + _ctz64(bits)
            at += 1
            bits &= bits - _ONE
    return at


@numba.njit(cache=True)
def _tally(nq, nn, nxt, seen, full, degrees, live):
    """The counts of the next frontier ``nq[:nn]``: (its entries, its out-edges, the out-edges
    of those of its vertices that every search has now reached); its bits ORed into ``live``
    (zero before)."""
    width = nxt.shape[1]
    entries, edges, completed = 0, 0, 0
    for j in range(nn):
        v = nq[j]
        done = True
        for w in range(width):
            bits = nxt[v, w]
            entries += _popcount64(bits)
            live[w] |= bits
            if seen[v, w] != full[w]:
                done = False
        edges += degrees[v]
        if done:
            completed += degrees[v]
    return entries, edges, completed


@numba.njit(cache=True)
def _finish_level(nq, nn, nxt, seen, full, degrees, live, levels, depth, write):
    """The rows found by a push ``nq[:nn]`` (distinct, in increasing order) counted as
    :func:`_tally` counts them (``live`` zero before) and, with ``write``, their depths written
    into ``levels``. Returns (entries, out-edges, out-edges of the rows now complete)."""
    width = nxt.shape[1]
    entries, edges, completed = 0, 0, 0
    for j in range(nn):
        if write and j + PREFETCH_ROWS < nn:     # (a mesh's rows found are spread over its table)
            _prefetch(levels, nonnegative(nq[j + PREFETCH_ROWS]) * levels.shape[1])
        v = nonnegative(nq[j])
        done = True
        for w in range(width):
            word = nxt[v, w]
            entries += _popcount64(word)
            live[w] |= word
            done &= seen[v, w] == full[w]
            if write:
                _write_word(levels, v, w, word, depth)
        edges += degrees[v]
        completed += degrees[v] * np.int64(done)
    return entries, edges, completed


@numba.njit(cache=True)
def _clear_rows(words, ids, count):
    """Zeroes the rows ``ids[:count]`` of ``words``."""
    for j in range(count):
        v = ids[j]
        for w in range(words.shape[1]):
            words[v, w] = 0


@numba.njit(cache=True)
def _clear_frontier(words, ids, count):
    """Zeroes the rows ``ids[:count]`` of ``words``: all of ``words`` at once where they are
    more than 1 / :data:`CLEAR_ALL_SHARE` of its rows (a Kronecker 18's 160,000 rows one by one
    took 0.6-1 ms, the whole 2 MB 0.1 ms)."""
    if count * CLEAR_ALL_SHARE < words.shape[0]:
        _clear_rows(words, ids, count)
        return
    flat = words.reshape(words.size)
    for i in range(flat.shape[0]):
        flat[i] = 0


# -- a pull level -----------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _read(start, stop, e):
    """In-edges a row read that stopped at slot e (``stop``: it read them all), counted 32 a
    step as the multi-source pull kernels count them."""
    if e >= stop:
        return stop - start
    return min(stop - start, ((e - start) // 32 + 1) * 32)


@numba.njit(cache=True, inline="always")
def _slot(fbits, fcounts, sparse, u):
    """The row of ``words`` (:func:`_pull_level`) holding u's frontier words: u itself, or, for
    a sparse frontier, its rank among the frontier's vertices (by the bitmap ``fbits`` and the
    counts before each bitmap word ``fcounts``, from 1), 0 (a zero row) when u is not
    in the frontier: no branch on the bit, whose hits a first pull cannot predict."""
    if not sparse:
        return u
    w, shift = u >> 6, np.uint64(u & 63)
    bits = fbits[w]
    inside = np.int64((bits >> shift) & _ONE)
    return (np.int64(fcounts[w]) + _popcount64(bits & ((_ONE << shift) - _ONE))) * inside


@numba.njit(cache=True, inline="always")
def _pull_words(iip, iix, words, fbits, fcounts, sparse, v, want, got, parents, with_parents):
    """Row v's scan of its in-neighbours for the bits ``want`` (W words a vertex), found ones
    into ``got`` (zero before); returns the slot it stopped at. (For the few rows a pull run
    from its frontier scans after it; :func:`_pull_rows` writes the same scan in its loop,
    where through this helper it ran 1.6x slower.)"""
    width = words.shape[1]
    start, stop = nonnegative(iip[v]), iip[v + 1]
    e = start
    while e < stop:
        u = nonnegative(iix[e])
        slot = _slot(fbits, fcounts, sparse, u)
        done = True
        for w in range(width):
            new = words[slot, w] & want[w] & ~got[w]
            if new:
                got[w] |= new
                if with_parents:
                    _write_bits(parents, v, w, new, u)
            if got[w] != want[w]:
                done = False
        if done:
            break
        e += 1
    return e


@numba.njit(cache=True)
def _pull_rows(j0, j1, rows, iip, iix, words, flat, fbits, fcounts, sparse, nxt, seen, live, full, degrees, parents, with_parents,
               nq, stats, live_out):
    """The rows ``rows[j0:j1]`` of a pull level: each row with bits of ``live`` it has not seen
    takes those held by its in-neighbours' frontier words (the first in-neighbour holding a bit
    is its parent), stopping when it has them all. The rows that found bits get their next
    words (zero before) and go to ``nq`` from slot j0 on; the rows still short of some bit of
    ``live`` stay listed, moved down to ``rows[j0:]`` (the others will take nothing more:
    ``live``, the bits the searches found a level before, only loses bits, and ``seen`` only
    gains them; a Kronecker graph's rows never hold the bits of every search where a source is
    isolated, and kept so, its last pulls ran over every row). ``stats``:
    [rows found, entries, in-edges read, their out-edges, out-edges of the rows now complete,
    rows kept]; ``live_out``: the bits found."""
    width = nxt.shape[1]
    found, entries, examined, edges, completed, kept = 0, 0, 0, 0, 0, 0
    want = np.empty(width, np.uint64)
    got = np.empty(width, np.uint64)
    for j in range(j0, j1):
        v = nonnegative(rows[j])
        if width == 1:
            s = seen[v, 0]
            wanted = live[0] & ~s
            if wanted == 0:
                continue                     # (dropped: it will want none)
            # the row's scan of its in-neighbours' frontier words (the first one offering a bit
            # its parent), written here: through a helper (inlined by numba or by LLVM) these
            # loops ran 4x slower (a 62,000-row pull of a mesh: 1.6 against 0.4 ms)
            e, stop, held = nonnegative(iip[v]), iip[v + 1], _ZERO
            if with_parents:
                while e < stop:
                    u = nonnegative(iix[e])
                    offered = flat[_slot(fbits, fcounts, sparse, u)] & wanted & ~held
                    if offered:
                        held |= offered
                        _write_bits(parents, v, 0, offered, u)
                        if held == wanted:
                            break
                    e += 1
            else:
                while e < stop:
                    held |= flat[_slot(fbits, fcounts, sparse, nonnegative(iix[e]))]
                    if held & wanted == wanted:
                        break
                    e += 1
            new = held & wanted
            examined += _read(iip[v], iip[v + 1], e)
            # the found row's work without a branch on it (most rows of a mesh's pull find
            # nothing, a few something, which no branch predicts)
            s |= new
            seen[v, 0] = s
            nxt[v, 0] = new
            entries += _popcount64(new)
            live_out[0] |= new
            hit = np.int64(new != 0)
            nq[j0 + found] = v
            found += hit
            done = hit & np.int64(s == full[0])
            edges += degrees[v] * hit
            completed += degrees[v] * done
            rows[j0 + kept] = v              # (at or before slot j: read already)
            kept += np.int64(new != wanted)
            continue
        some = _ZERO
        for w in range(width):
            want[w] = live[w] & ~seen[v, w]
            got[w] = 0
            some |= want[w]
        if some == 0:
            continue                         # (dropped: it will want none)
        e, stop = nonnegative(iip[v]), iip[v + 1]      # (written here, as the one-word scan)
        while e < stop:
            u = nonnegative(iix[e])
            slot = _slot(fbits, fcounts, sparse, u)
            complete = True
            for w in range(width):
                offered = words[slot, w] & want[w] & ~got[w]
                if offered:
                    got[w] |= offered
                    if with_parents:
                        _write_bits(parents, v, w, offered, u)
                complete = complete and got[w] == want[w]
            if complete:
                break
            e += 1
        examined += _read(iip[v], iip[v + 1], e)
        some, done, short = _ZERO, True, False
        for w in range(width):
            new = got[w]
            nxt[v, w] = new
            some |= new
            seen[v, w] |= new
            entries += _popcount64(new)
            live_out[w] |= new
            done = done and seen[v, w] == full[w]
            short = short or new != want[w]
        if some:
            nq[j0 + found] = v
            found += 1
            edges += degrees[v]
            if done:
                completed += degrees[v]
        if not short:
            continue                     # (it holds every bit of live: dropped)
        rows[j0 + kept] = v
        kept += 1
    stats[0], stats[1], stats[2], stats[3], stats[4], stats[5] = found, entries, examined, edges, completed, kept


@numba.njit(cache=True, parallel=True)
def _pull_parallel(bounds, rows, iip, iix, words, flat, fbits, fcounts, sparse, nxt, seen, live, full, degrees, parents, with_parents,
                   nq, stats, live_out, threads):
    """:func:`_pull_rows` over the chunks of rows ``bounds`` cuts, thread t taking chunks t, t +
    threads, ... (PULL_CHUNKS_PER_THREAD)."""
    nchunks = bounds.shape[0] - 1
    for t in prange(threads):
        for c in range(t, nchunks, threads):
            _pull_rows(bounds[c], bounds[c + 1], rows, iip, iix, words, flat, fbits, fcounts, sparse, nxt, seen, live, full,
                       degrees, parents, with_parents, nq, stats[c], live_out[c])


@numba.njit(cache=True)
def _wanting_rows(iip, seen, live, rows):
    """The first pull's rows: every row with in-edges that wants some bit of ``live`` (no pull
    gives the others anything: a Kronecker graph's third of isolated vertices, the complete
    rows, and those whose searches have all stopped, which stay so), listed in ``rows`` in
    increasing order, without a branch on the row (one pass: Kronecker 18's 262,144 rows in 0.3
    ms, where a list of the incomplete rows and then of the wanting ones took 1.1 ms; cut in
    chunks on two cores, 0.9). Returns (how many, their in-edges: the most a pull reads)."""
    count, reads = 0, 0
    for v in range(seen.shape[0]):
        some = _ZERO
        for w in range(seen.shape[1]):
            some |= live[w] & ~seen[v, w]
        degree = iip[v + 1] - iip[v]
        wanting = np.int64(some != 0) * np.int64(degree > 0)
        rows[count] = v
        count += wanting
        reads += degree * wanting
    return count, reads


@numba.njit(cache=True)
def _frontier_ranks(cq, nf, cur, fbits, fcounts, packed):
    """A sparse frontier (its rows ``cq[:nf]`` of ``cur``) as its bitmap and counts (``fbits``,
    ``fcounts``, see :func:`_slot`: two arrays, a Kronecker 18's bitmap 32 KiB on its own, a
    first pull 1.4-2x faster than with the two interleaved and its words read as rows of a 2-D
    array) and its words packed by rank from row 1 (row 0 zero): a first pull's reads then stay
    in the core's caches instead of ``cur``'s megabytes."""
    for w in range(fbits.shape[0]):
        fbits[w] = 0
    for j in range(nf):
        u = cq[j]
        fbits[u >> 6] |= _ONE << np.uint64(u & 63)
    total = 1
    for w in range(fbits.shape[0]):
        fcounts[w] = total
        bits = fbits[w]
        while bits:
            u = w * 64 + _ctz64(bits)
            for x in range(cur.shape[1]):
                packed[total, x] = cur[u, x]
            total += 1
            bits &= bits - _ONE
    for x in range(cur.shape[1]):
        packed[0, x] = 0


@numba.njit(cache=True)
def _pull_level(iip, iix, cur, cq, nf, fbits, fcounts, rows, nrows, nxt, seen, live, full, degrees, parents, with_parents, nq,
                threads):
    """A pull level over the rows ``rows[:nrows]`` (increasing; :func:`_pull_rows`, which drops
    the rows it completes) from the frontier ``cur`` (its rows listed in ``cq[:nf]``) into
    ``nxt`` (zero before), in chunks on all the cores where there are enough rows; ``live``
    becomes the bits found. A frontier of fewer than 1 / SPARSE_SHARE of the vertices is read
    packed (:func:`_frontier_ranks`). Returns (rows found, packed at the front of ``nq`` in
    increasing order, entries, in-edges read, their out-edges, completed edges, rows kept)."""
    n, width = cur.shape[0], cur.shape[1]
    sparse = nf * SPARSE_SHARE < n
    words = cur
    if sparse:
        words = np.empty((nf + 1, width), np.uint64)
        _frontier_ranks(cq, nf, cur, fbits, fcounts, words)
    flat = words.reshape(words.shape[0] * width)     # (a word a vertex: read without a row's multiply)
    nchunks = 1 if threads < 2 or nrows < PARALLEL_ROWS else threads * PULL_CHUNKS_PER_THREAD
    bounds = np.empty(nchunks + 1, np.int64)
    for c in range(nchunks + 1):
        bounds[c] = nrows * c // nchunks
    stats = np.zeros((nchunks, 6), np.int64)
    live_out = np.zeros((nchunks, width), np.uint64)
    if nchunks == 1:
        _pull_rows(np.int64(0), nrows, rows, iip, iix, words, flat, fbits, fcounts, sparse, nxt, seen, live, full, degrees, parents,
                   with_parents, nq, stats[0], live_out[0])
    else:
        _pull_parallel(bounds, rows, iip, iix, words, flat, fbits, fcounts, sparse, nxt, seen, live, full, degrees, parents,
                       with_parents, nq, stats, live_out, threads)
    nn, kept = 0, 0
    for w in range(width):
        live[w] = 0
    for c in range(nchunks):                 # each chunk's rows follow the chunks before it
        at = bounds[c]
        for j in range(stats[c, 0]):
            nq[nn + j] = nq[at + j]
        for j in range(stats[c, 5]):
            rows[kept + j] = rows[at + j]
        nn += stats[c, 0]
        kept += stats[c, 5]
        for w in range(width):
            live[w] |= live_out[c, w]
    return nn, stats[:, 1].sum(), stats[:, 2].sum(), stats[:, 3].sum(), stats[:, 4].sum(), kept


@numba.njit(cache=True)
def _wanting_reads(iip, rows, nrows, seen, live):
    """The in-edges a pull level would read at most: those of the rows ``rows[:nrows]`` that
    want some bit of ``live``. The rows that want none are dropped from the list (order kept):
    ``live`` only loses bits and ``seen`` only gains them, so they never will. Returns (the
    in-edges, the rows kept)."""
    width = seen.shape[1]
    reads, kept = 0, 0
    for j in range(nrows):
        v = nonnegative(rows[j])
        some = _ZERO
        for w in range(width):
            some |= live[w] & ~seen[v, w]
        rows[kept] = v
        wanting = np.int64(some != 0)
        kept += wanting
        reads += (iip[v + 1] - iip[v]) * wanting
    return reads, kept


@numba.njit(cache=True, inline="always")
def _done_read(iip, v, seen, live):
    """Row v's in-edges when it wants no bit of ``live`` any more, else 0."""
    some = _ZERO
    for w in range(seen.shape[1]):
        some |= live[w] & ~seen[v, w]
    return (iip[v + 1] - iip[v]) * np.int64(some == 0)


@numba.njit(cache=True, parallel=True)
def _done_reads_parallel(iip, nq, nn, seen, live):
    reads = 0
    for j in prange(nn):
        reads += _done_read(iip, nonnegative(nq[j]), seen, live)
    return reads


@numba.njit(cache=True)
def _done_reads(iip, nq, nn, seen, live, threads):
    """The in-edges of the rows ``nq[:nn]`` that want no bit of ``live`` any more: what
    :func:`_wanting_reads` loses when they are found and ``live`` stays as it was (on all the
    cores for :data:`PARALLEL_ROWS` rows or more)."""
    if threads > 1 and nn >= PARALLEL_ROWS:
        return _done_reads_parallel(iip, nq, nn, seen, live)
    reads = 0
    for j in range(nn):
        reads += _done_read(iip, nonnegative(nq[j]), seen, live)
    return reads


@numba.njit(cache=True, inline="always")
def _same_words(a, b):
    for w in range(a.shape[0]):
        if a[w] != b[w]:
            return False
    return True


@numba.njit(cache=True, inline="always")
def _scatter_scans(with_parents, long_rows, ordered):
    """Whether a pull run from its frontier scans rows after its push (which then leaves the
    frontier's words for them): for the records (some row has more than 32 in-edges), or for
    the parents when the push cannot write the scans' ones."""
    return long_rows or (with_parents and not ordered)


@numba.njit(cache=True)
def _sorted_rows(iip, iix):
    """True when every row lists its in-neighbours in increasing order (then a push from a
    frontier in increasing order offers each bit first from the in-neighbour that the row's
    scan finds first: the scan's parent)."""
    for v in range(iip.shape[0] - 1):
        for e in range(iip[v] + 1, iip[v + 1]):
            if iix[e] <= iix[e - 1]:
                return False
    return True


@numba.njit(cache=True)
def _increasing(ids, count):
    for j in range(1, count):
        if ids[j] <= ids[j - 1]:
            return False
    return True


@numba.njit(cache=True)
def _scatter_pull_level(oip, oix, iip, iix, cur, cq, nf, nxt, nq, marks, seen, live, parents, with_parents, reads,
                        long_rows, ordered, parts):
    """A pull level run from its frontier ``cq[:nf]`` (a mesh's pull levels: the rows that
    want bits are most of the graph, the frontier's edges a few of theirs): the frontier's
    words go to its out-neighbours as a push level's do, which finds the bits the rows' scans
    would. The records stay the pull's: ``reads`` (:func:`_wanting_reads`) counts every
    wanting row's in-edges, and a found row that a scan would have stopped early (more than
    32 in-edges, every wanted bit found) runs its own scan, which says where it stops
    (``long_rows``: some row has more than 32 in-edges). Parents: with ``ordered`` (the
    frontier and every row's in-neighbours in increasing order) the push writes the scans'
    ones as it finds them (the first frontier in-neighbour offering a bit is the first that a
    scan reads); else every found row runs its scan, which writes them (a mesh's parents 25x
    slower). The frontier's words are zeroed unless a scan reads them. Returns (the
    rows found, listed in ``nq`` in the order found, the in-edges read); :func:`_finish_level`
    counts them."""
    width = cur.shape[1]
    pushed_parents = with_parents and ordered
    scan_parents = with_parents and not ordered
    scans = _scatter_scans(with_parents, long_rows, ordered)
    nn, _ = _push_level(oip, oix, cur, cq, nf, nxt, nq, seen, marks, parents, pushed_parents, not scans, parts)
    examined = reads
    if not scans:
        return nn, examined
    want = np.empty(width, np.uint64)
    got = np.empty(width, np.uint64)
    fbits, fcounts = np.empty(0, np.uint64), np.empty(0, np.uint32)
    for j in range(nn):
        v = nonnegative(nq[j])
        start, stop = nonnegative(iip[v]), iip[v + 1]
        if stop - start <= 32 and not scan_parents:
            continue
        missing = _ZERO
        for w in range(width):
            missing |= live[w] & ~seen[v, w]
        if missing and not scan_parents:
            continue                         # (it read every in-edge)
        for w in range(width):
            want[w] = live[w] & (~seen[v, w] | nxt[v, w])
            got[w] = 0
        e = _pull_words(iip, iix, cur, fbits, fcounts, False, v, want, got, parents, scan_parents)
        examined -= (stop - start) - _read(start, stop, e)
    return nn, examined


# -- the log of the levels' frontiers ---------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _log_rows(log_ids, log_words, used, nq, j0, j1, nxt):
    for j in range(j0, j1):
        v = nq[j]
        log_ids[used + j] = v
        for w in range(nxt.shape[1]):
            log_words[used + j, w] = nxt[v, w]


@numba.njit(cache=True, parallel=True)
def _log_rows_parallel(log_ids, log_words, used, nq, nn, nxt, chunks):
    for c in prange(chunks):
        _log_rows(log_ids, log_words, used, nq, nn * c // chunks, nn * (c + 1) // chunks, nxt)


@numba.njit(cache=True)
def _log_append(log_ids, log_words, used, nq, nn, nxt, threads):
    """The rows ``nq[:nn]`` and their words appended to the log at ``used`` (the arrays grown,
    doubled, when full; on all the cores for :data:`PARALLEL_ROWS` rows or more); returns the
    log's arrays."""
    if used + nn > log_ids.shape[0]:
        capacity = max(2 * log_ids.shape[0], used + nn)
        ids, words = np.empty(capacity, np.int32), np.empty((capacity, log_words.shape[1]), np.uint64)
        ids[:used] = log_ids[:used]
        words[:used] = log_words[:used]
        log_ids, log_words = ids, words
    if threads > 1 and nn >= PARALLEL_ROWS:
        _log_rows_parallel(log_ids, log_words, used, nq, nn, nxt, threads * CHUNKS_PER_THREAD)
    else:
        _log_rows(log_ids, log_words, used, nq, 0, nn, nxt)
    return log_ids, log_words


@numba.njit(cache=True, inline="always")
def _first_at_least(ids, lo, hi, v):
    """The first slot of the increasing ``ids[lo:hi]`` holding v or more (hi: none)."""
    return lo + np.searchsorted(ids[lo:hi], v)


@numba.njit(cache=True, inline="always")
def _write_word(levels, v, w, bits, depth):
    """The depth of every bit of row v's word w into ``levels`` (-1 there before). A word of
    many bits is written as a whole, by a select of its 64 columns (:func:`_select_columns`;
    bit by bit, a wide level's 32 bits a row cost 4x more, but a mesh's one or two bits a row
    of 16 columns cost 1.6x less); the last word of a row shorter than 64 columns gains
    (depth + 1) times each column's bit, a loop the compiler makes vector instructions of."""
    if _popcount64(bits) < DENSE_BITS:
        _write_bits(levels, v, w, bits, depth)
        return
    base = w * 64
    if levels.shape[1] - base >= 64:
        _select_columns(levels, np.int64(v) * levels.shape[1] + base, bits, np.int32(depth))
        return
    step = np.int64(depth + 1)
    for i in range(levels.shape[1] - base):
        levels[v, base + i] += np.int32(np.int64((bits >> np.uint64(i)) & _ONE) * step)


@numba.njit(cache=True)
def _write_entries(levels, log_ids, log_words, lo, hi, depth):
    """The depth of every bit of the log's entries lo .. hi into their rows of ``levels``."""
    for j in range(lo, hi):
        v = log_ids[j]
        for w in range(log_words.shape[1]):
            _write_word(levels, v, w, log_words[j, w], depth)


@numba.njit(cache=True)
def _write_found(levels, nq, nn, nxt, depth):
    """The depth of every bit of the rows ``nq[:nn]`` of ``nxt`` into ``levels`` (a table
    small enough for the caches, written as its levels find its entries)."""
    for j in range(nn):
        v = nq[j]
        for w in range(nxt.shape[1]):
            _write_word(levels, v, w, nxt[v, w], depth)


@numba.njit(cache=True)
def _write_chunk(c, levels, rows_per_chunk, log_ids, log_words, seg_at, seg_wide, nseg, fill):
    """Chunk c of the rows of ``levels``: -1 (with ``fill``), then the entries of the wide
    segments inside it."""
    r0 = c * rows_per_chunk
    r1 = min(levels.shape[0], r0 + rows_per_chunk)
    if fill:
        for v in range(r0, r1):
            for i in range(levels.shape[1]):
                levels[v, i] = -1
    for d in range(nseg):
        if seg_wide[d]:
            lo = _first_at_least(log_ids, seg_at[d], seg_at[d + 1], r0)
            hi = _first_at_least(log_ids, lo, seg_at[d + 1], r1)
            _write_entries(levels, log_ids, log_words, lo, hi, d)


@numba.njit(cache=True, parallel=True)
def _write_chunks(nchunks, levels, rows_per_chunk, log_ids, log_words, seg_at, seg_wide, nseg, fill):
    for c in prange(nchunks):
        _write_chunk(np.int64(c), levels, rows_per_chunk, log_ids, log_words, seg_at, seg_wide, nseg, fill)


@numba.njit(cache=True)
def _write_levels(levels, log_ids, log_words, seg_at, nseg, threads, fill):
    """The levels table from the log: segment d (rows ``log_ids[seg_at[d]:seg_at[d + 1]]``)
    holds the bits found at depth d. Sorted segments of more entries than the chunks are
    written chunk by chunk (on all the cores for a table of PARALLEL_TABLE slots or more), the
    others after; with ``fill`` every row is -1 first (the first write of the table: a
    search's entry is written once, over -1)."""
    k = max(levels.shape[1], 1)
    rows_per_chunk = max(64, CHUNK_BYTES // (4 * k))
    nchunks = -(-levels.shape[0] // rows_per_chunk)
    seg_wide = np.zeros(nseg, np.bool_)
    for d in range(nseg):                  # (the sources' segment is in their order, maybe not sorted)
        count = seg_at[d + 1] - seg_at[d]
        seg_wide[d] = count >= 4 * nchunks and _increasing(log_ids[seg_at[d]:seg_at[d + 1]], count)
    if threads < 2 or levels.size < PARALLEL_TABLE:
        for c in range(nchunks):
            _write_chunk(c, levels, rows_per_chunk, log_ids, log_words, seg_at, seg_wide, nseg, fill)
    else:
        _write_chunks(nchunks, levels, rows_per_chunk, log_ids, log_words, seg_at, seg_wide, nseg, fill)
    for d in range(nseg):
        if not seg_wide[d]:
            _write_entries(levels, log_ids, log_words, seg_at[d], seg_at[d + 1], d)


# -- the levels as bit planes ------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _plane_rows(planes, nq, j0, j1, nxt, depth):
    """The words of rows ``nq[j0:j1]`` of ``nxt`` ORed into the planes of ``depth``'s set bits
    (plane 1 + p: the bits whose depth has bit p)."""
    for j in range(j0, j1):
        v = nq[j]
        for w in range(nxt.shape[1]):
            bits, d, p = nxt[v, w], depth, 1
            while d:
                if d & 1:
                    planes[p, v, w] |= bits
                d >>= 1
                p += 1


@numba.njit(cache=True, parallel=True)
def _plane_rows_parallel(planes, nq, nn, nxt, depth, chunks):
    for c in prange(chunks):
        _plane_rows(planes, nq, nn * c // chunks, nn * (c + 1) // chunks, nxt, depth)


@numba.njit(cache=True)
def _plane_found(planes, nq, nn, nxt, depth, threads):
    """A level's finds (the rows ``nq[:nn]`` of ``nxt``, each listed once) into the depth
    planes (on all the cores for :data:`PARALLEL_ROWS` rows or more), the planes first grown
    by as many as ``depth`` needs; returns the planes."""
    if depth >> (planes.shape[0] - 1):
        bits = 0
        while depth >> bits:
            bits += 1
        more = np.zeros((1 + bits, planes.shape[1], planes.shape[2]), np.uint64)
        more[:planes.shape[0]] = planes
        planes = more
    if threads > 1 and nn >= PARALLEL_ROWS:
        _plane_rows_parallel(planes, nq, nn, nxt, depth, threads * CHUNKS_PER_THREAD)
    else:
        _plane_rows(planes, nq, 0, nn, nxt, depth)
    return planes


@numba.njit(cache=True)
def _fill_rows(table, value, r0, r1):
    for v in range(r0, r1):
        for i in range(table.shape[1]):
            table[v, i] = value


@numba.njit(cache=True)
def _grow_records(records, seconds, seg_at):
    """The level records, seconds and log segment starts with twice the room (a run's levels
    are not known before: room for every vertex's was 10 MiB to clear at Kronecker 18)."""
    more, more_seconds = _more_rows(records, seconds, records.shape[0], 2 * records.shape[0])
    more_at = np.zeros(more.shape[0] + 2, np.int64)
    more_at[:seg_at.shape[0]] = seg_at
    return more, more_seconds, more_at


@numba.njit(cache=True, nogil=True)
def _more_rows(records, seconds, used, rows):
    """Records and their seconds with room for at least ``rows`` rows (twice as many at
    least), the first ``used`` kept, the others zero."""
    grown = max(2 * records.shape[0], rows)
    more, more_seconds = np.zeros((grown, records.shape[1]), np.int64), np.zeros(grown, np.float64)
    more[:used] = records[:used]
    more_seconds[:used] = seconds[:used]
    return more, more_seconds


# -- the run ----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _search(oip, oix, iip, iix, degrees, sources, full, levels, with_levels, planes, with_planes, parents,
            with_parents, mode, alpha, beta, rule_n, state, nnz, max_levels, probe_levels, min_sharing, threads, tick_seconds,
            ends):
    """The run: levels until the frontier empties or ``max_levels`` ran. ``levels`` and
    ``parents`` are (rows, k) int32 tables (written only when ``with_levels`` /
    ``with_parents``; parents filled with -1 here); ``planes`` (1 + P, rows, W) uint64, zero:
    plane 0 is the run's visited words, and with ``with_planes`` the levels go into the
    others as bit planes (:class:`~lagraph_dist.local.engine.LevelPlanes`; more planes made as
    the depth needs them). ``state`` is the rule's [push, previous,
    unexplored] (updated). With ``probe_levels`` > 0, a run whose first ``probe_levels`` levels
    found fewer than ``min_sharing`` entries a vertex (:func:`_min_sharing`) stops there, its
    tables unfinished.
    Returns (records (levels, 5), each level's seconds, whether it stopped so, the planes);
    ``ends`` gets the seconds before the first level and after the last one (the tables' end
    pass). (Every helper is called with one set of argument types: a literal 0 where another
    call passes an int64 compiles a second copy.)"""
    entered = _read_clock()
    n, width = oip.shape[0] - 1, full.shape[0]
    if with_parents:
        _fill_rows(parents, -1, 0, parents.shape[0])
    seen = planes[0, :n]
    cur, nxt = np.zeros((n, width), np.uint64), np.zeros((n, width), np.uint64)
    cq, nq = np.empty(max(n, 1), np.int32), np.empty(max(n, 1), np.int32)
    live = np.zeros(width, np.uint64)
    reads, reads_live = 0, np.zeros(width, np.uint64)     # (:func:`_wanting_reads` for the bits reads_live)
    fbits, fcounts = np.empty(max(-(-n // 64), 1), np.uint64), np.empty(max(-(-n // 64), 1), np.uint32)
    marks = np.zeros(max(-(-n // 64), 1), np.uint64)
    rows = np.empty(max(n, 1), np.int32)     # the rows a pull reads, listed at the first one
    nrows = -1
    nf = _start(sources, seen, cur, cq, parents, with_parents)
    entries, edges, completed = _tally(cq, nf, cur, seen, full, degrees, live)
    stale = 0                                # rows of nxt not zeroed yet, listed in nq
    # the log: depth d's frontier is segment d
    capacity = max(0, min(max_levels, n + 1, 64))      # (grown when a run goes deeper)
    logged = n + 64 if with_levels and levels.size >= CHUNKED_TABLE else 0
    log_ids, log_words = np.empty(logged, np.int32), np.empty((logged, width), np.uint64)
    seg_at = np.zeros(capacity + 2, np.int64)
    chunked = with_levels and levels.size >= CHUNKED_TABLE
    direct = with_levels and not chunked
    log_limit, written = LOG_ROWS_PER_VERTEX * (n + 64), False     # (written: the table's rows were -1 filled)
    long_rows, sorted_in, ordered = False, -1, False    # (sorted_in: in-lists increasing, -1 not known yet)
    for v in range(n):
        long_rows = long_rows or iip[v + 1] - iip[v] > 32
    if chunked:
        log_ids, log_words = _log_append(log_ids, log_words, np.int64(0), cq, nf, cur, threads)
    elif with_levels:
        _fill_rows(levels, -1, 0, levels.shape[0])
        _write_found(levels, cq, nf, cur, 0)
    seg_at[1] = nf
    records = np.zeros((capacity, 5), np.int64)
    seconds = np.empty(capacity, np.float64)
    level = 0
    last_tick = _read_clock()
    ends[0] = (last_tick - entered) * tick_seconds
    while level < max_levels and nf > 0:
        if level == records.shape[0]:
            records, seconds, seg_at = _grow_records(records, seconds, seg_at)
        unexplored = nnz - completed
        state[2] = unexplored + edges        # handed over: the rule's subtraction gives it back
        push = _choose(mode, alpha, beta, rule_n, state, nf, edges)
        state[2] = unexplored
        _clear_frontier(nxt, nq, stale)
        scatter = False
        if not push:
            if nrows < 0:
                nrows, reads = _wanting_rows(iip, seen, live, rows)
                reads_live[:] = live
            elif not _same_words(reads_live, live):  # (else kept up to date level by level, below)
                reads, nrows = _wanting_reads(iip, rows, nrows, seen, live)
                reads_live[:] = live
            cores = 1 if threads < 2 or nrows < PARALLEL_ROWS else threads     # (the pull's; a scatter has one)
            scatter = edges * SCATTER_SHARE * cores < reads
        if scatter:
            if with_parents and sorted_in < 0:
                sorted_in = 1 if _sorted_rows(iip, iix) else 0
            ordered = sorted_in == 1 and _increasing(cq, nf)     # (the sources' frontier may not be)
        # a push over many out-edges shared by the cores (each its own rows); else one word a
        # vertex and no scans after it: a push that counts as it goes
        parts = threads if threads > 1 and edges >= PARALLEL_OFFERS else 1
        counted = width == 1 and parts == 1 and (push or (scatter and not _scatter_scans(with_parents, long_rows,
                                                                                          ordered)))
        if counted:
            nn, examined, found, next_edges, done = _push_counted(oip, oix, cur, cq, nf, nxt, nq, marks, seen, full,
                                                                  degrees, live, levels, level + 1, direct, parents,
                                                                  with_parents)
            if scatter:
                examined = reads             # (the pull's records)
        elif push or scatter:                # (a pull lists its rows in increasing order, counted)
            if push:
                nn, examined = _push_level(oip, oix, cur, cq, nf, nxt, nq, seen, marks, parents, with_parents, True,
                                           parts)
            else:
                nn, examined = _scatter_pull_level(oip, oix, iip, iix, cur, cq, nf, nxt, nq, marks, seen, live,
                                                   parents, with_parents, reads, long_rows, ordered, parts)
            for w in range(width):
                live[w] = 0
            found, next_edges, done = _finish_level(nq, nn, nxt, seen, full, degrees, live, levels, level + 1,
                                                    direct)
        else:
            nn, found, examined, next_edges, done, nrows = _pull_level(iip, iix, cur, cq, nf, fbits, fcounts, rows,
                                                                       nrows, nxt, seen, live, full, degrees, parents,
                                                                       with_parents, nq, threads)
            if direct:
                _write_found(levels, nq, nn, nxt, level + 1)
        cleared = push or (scatter and not _scatter_scans(with_parents, long_rows, ordered))    # (words zeroed)
        if _same_words(reads_live, live):        # (the rows found are the only ones whose wants changed)
            reads -= _done_reads(iip, nq, nn, seen, live, threads)
        records[level, _FRONTIER], records[level, _DISCOVERED], records[level, _EXAMINED] = entries, found, examined
        records[level, _PUSH], records[level, _VERTICES] = 1 if push else 0, nn
        if chunked:
            if seg_at[level + 1] + nn > log_limit:      # the log full: its levels to the table, and it starts over
                _write_levels(levels, log_ids, log_words, seg_at, level + 1, threads, not written)
                written = True
                seg_at[:level + 2] = 0
            log_ids, log_words = _log_append(log_ids, log_words, seg_at[level + 1], nq, nn, nxt, threads)
        if with_planes and nn > 0:
            planes = _plane_found(planes, nq, nn, nxt, level + 1, threads)
            seen = planes[0, :n]
        seg_at[level + 2] = seg_at[level + 1] + nn
        now = _read_clock()
        seconds[level] = (now - last_tick) * tick_seconds
        last_tick = now
        level += 1
        completed += done
        cur, nxt, cq, nq = nxt, cur, nq, cq
        # the old frontier's rows, listed in nq, are zeroed before the next level writes there
        stale, nf, entries, edges = 0 if cleared else nf, nn, found, next_edges
        if level == probe_levels and nf > 0 and _apart(records[:level], min_sharing):
            return records[:level].copy(), seconds[:level].copy(), True, planes
    if chunked:
        _write_levels(levels, log_ids, log_words, seg_at, level + 1, threads, not written)
    ends[1] = (_read_clock() - last_tick) * tick_seconds
    return records[:level].copy(), seconds[:level].copy(), False, planes


@numba.njit(cache=True)
def _apart(records, min_sharing):
    """Whether the levels of ``records`` found fewer than ``min_sharing`` entries a vertex."""
    return records[:, _DISCOVERED].sum() < min_sharing * records[:, _VERTICES].sum()


def _min_sharing(nnz, n, width):
    """The entries a vertex found that the probe's levels must find for a batch of ``width``
    words a vertex to run together on a graph of ``nnz`` edges over ``n`` vertices:
    :data:`MIN_SHARING`, or on a thin graph (``engine.thin_graph``) :data:`THIN_SHARING_PER_WORD`
    a word. A mesh's waves keep apart past the first levels however near the sources: 64 or
    512 sources in one row of a 200 x 200 mesh found 1.6 and 3.1 entries a vertex in the probe
    (1.5 let them run together) and then ran 5x and 9x slower than one at a time; the batch
    broke even near 4 entries a vertex for one word, 10 to 30 for eight (cpu-kernels.md)."""
    return THIN_SHARING_PER_WORD * width if thin_graph(nnz, n) else MIN_SHARING


# -- the searches one at a time ---------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _separate_searches(oip, oix, iip, iix, no_inputs, sources, column0, levels, with_levels, parents, with_parents,
                       mode, alpha, beta, rule_n, start_state, max_levels, threads, tick_seconds, thin, marked,
                       space):
    """Each search of ``sources`` (the tables' columns from ``column0`` on) run alone by the
    single search's compiled run (fused.py's ``_search_into``, as ``ld.bfs`` runs it, its rule
    starting from ``start_state``, its thin levels those under ``thin`` out-edges), a group of
    :data:`SEPARATE_GROUP` searches between writes of their columns into the (rows, k) tables
    (-1 where a search did not reach a vertex), each testing its values where ``marked``
    (fused.py's :func:`~lagraph_dist.local.cpu_kernels.fused.marked_here`), in the buffers ``space``
    (:func:`_separate_space`). Returns each depth's records summed over the searches ((depths,
    5): frontier, discovered, examined, searches that pushed, searches that ran it) and
    seconds summed. The searches write their records to one buffer in turn, summed as each
    ends: kept one after another (64 searches of a 100,000 path: 6.4 M rows, grown by copies),
    their fresh pages took most of the batch's time. Without the GIL: threads may run it side
    by side on other columns."""
    n, k = oip.shape[0] - 1, sources.shape[0]
    visited, values, depths, queues, bits, scratch_values, level_rows, level_seconds = space
    group = visited.shape[0]
    no_bits, no_frontier, no_marks = np.zeros(0, np.uint32), np.zeros(0, np.int32), np.zeros(0, np.int64)
    no_spans = np.zeros((0, 3), np.int64)    # (each level timed alone has its row: no spans)
    qa, qb, queued = queues[0], queues[1], queues[2]
    sums, summed_seconds = np.zeros((64, 5), np.int64), np.zeros(64, np.float64)
    deepest = 0
    for first in range(0, k, group):
        count = min(group, k - first)
        for g in range(count):
            state = start_state.copy()
            found_values = values[g] if with_parents else scratch_values    # (no inline choice in a long call)
            marks = (depths[g] if with_levels else found_values) if marked else no_marks   # (True is 1: a mark)
            ran = _search_into(
                level_rows, level_seconds, oip, oix, iip, iix, no_inputs, visited[g], found_values, with_parents,
                no_bits, depths[g], 1, no_frontier, sources[first + g], qa, qb, queued, bits, no_spans, mode, alpha,
                beta, rule_n, state, n + 1, oip[n] + 1, max_levels, -1, threads, tick_seconds, thin, True, marks,
                0)[0]     # (each search on one thread of a parallel region: no two-thread levels)
            if ran > sums.shape[0]:
                sums, summed_seconds = _more_rows(sums, summed_seconds, deepest, ran)
            _add_levels(sums, summed_seconds, level_rows, level_seconds, ran)
            deepest = max(deepest, ran)
        _write_columns(levels, with_levels, parents, with_parents, n, column0 + first, count, visited, depths, values)
    return sums[:deepest], summed_seconds[:deepest]      # (the run's own arrays: views, no copies)


def _separate_space(n, k, levels, parents, max_levels):
    """One thread's buffers for :func:`_separate_searches` of ``k`` searches over ``n`` vertices:
    a group's visited words, parents and depths, the run's three queues and two bitmaps, the
    values a levels-only run writes (never read), and one search's level records and seconds.
    Recycled (:mod:`lagraph_dist.local.recycle`): made in the compiled run, their fresh pages
    cost 64 searches of a 100,000 path a third of their time."""
    (slots, nwords), group = run_slots(n), min(k, SEPARATE_GROUP)
    room = _record_room(max_levels, nwords)
    return (recycle.empty((group, nwords), np.uint32), recycle.empty((group, n if parents else 0), np.int64),
            recycle.empty((group, n if levels else 0), np.int64), recycle.empty((3, slots), np.int32),
            recycle.empty((2, nwords), np.uint32), recycle.empty((0 if parents else n,), np.int64),
            recycle.empty((room, 4), np.int64), recycle.empty((room,), np.float64))


@numba.njit(cache=True, nogil=True)
def _add_levels(sums, summed_seconds, rows, seconds, ran):
    """One search's ``ran`` levels' records (frontier, discovered, examined, push) and seconds
    added to the depths' sums (:func:`_separate_searches`)."""
    for d in range(ran):
        sums[d, _FRONTIER] += rows[d, 0]
        sums[d, _DISCOVERED] += rows[d, 1]
        sums[d, _EXAMINED] += rows[d, 2]
        sums[d, _PUSH] += rows[d, 3]
        sums[d, _SEARCHES_RAN] += 1
        summed_seconds[d] += seconds[d]


def _depth_records(parts):
    """The records of the depths of searches run one at a time (``parts``: each thread's
    :func:`_separate_searches` output): depth d's counts (:func:`_depth_counts`) and seconds the
    sums of the searches' level d's, each measured alone."""
    counts = _depth_counts([part_sums for part_sums, _ in parts])
    seconds = np.zeros(counts.shape[0])
    for _, part_seconds in parts:
        seconds[:part_seconds.shape[0]] += part_seconds
    return counts, seconds


def _depth_counts(parts):
    """Depth d's counts of searches run one at a time (``parts``: each thread's sums): the sums
    of the searches' level d's; push where every search that ran it pushed; its vertices the
    entries it found, each search's rows being its own."""
    counts = np.zeros((max(p.shape[0] for p in parts), 5), np.int64)     # (the sums, made the counts in place)
    for part_sums in parts:
        counts[:part_sums.shape[0]] += part_sums
    counts[:, _PUSH] = counts[:, _PUSH] == counts[:, _SEARCHES_RAN]
    counts[:, _VERTICES] = counts[:, _DISCOVERED]
    return counts


def _queue_depth_records(parts):
    """The records of the depths of queue searches run one at a time (``parts``: each thread's
    (:func:`_queue_searches` sums, seconds of its call)): the counts as :func:`_depth_counts`
    makes them, the depths timed as one run (:data:`RUN_TIMED` in every slot but the last,
    which holds the threads' seconds summed: core seconds)."""
    counts = _depth_counts([part_sums for part_sums, _ in parts])
    seconds = np.full(counts.shape[0], RUN_TIMED)
    if counts.shape[0]:
        seconds[-1] = sum(part_seconds for _, part_seconds in parts)
    return counts, seconds


@numba.njit(cache=True, nogil=True)
def _write_columns(levels, with_levels, parents, with_parents, n, first, count, visited, depths, values):
    """Columns ``first`` to ``first + count`` of the tables from the searches' visited bits,
    depths and parents, -1 where a search's bit is clear and on the rows past the graph's n (a
    row's columns written together)."""
    for v in range(levels.shape[0] if with_levels else parents.shape[0]):
        w, bit = v >> 5, np.uint32(1) << np.uint32(v & 31)
        for g in range(count):
            reached = v < n and visited[g, w] & bit != 0
            if with_levels:
                levels[v, first + g] = depths[g, v] if reached else -1
            if with_parents:
                parents[v, first + g] = values[g, v] if reached else -1


@numba.njit(cache=True, nogil=True)
def _queue_searches(indptr, indices, sources, column0, levels, with_levels, parents, with_parents, max_levels, space):
    """Each search of ``sources`` (the tables' columns from ``column0`` on) run alone as the
    queue search (queue.py's :func:`~lagraph_dist.local.cpu_kernels.queue.queue_walk`: push
    only, no clock read and no row a level), a group of :data:`SEPARATE_GROUP` searches between
    writes of their columns (:func:`_write_queue_columns`), in the buffers ``space``
    (:func:`_queue_space`). Returns each depth's records summed over the searches ((depths, 5),
    as :func:`_separate_searches`'), counted as the walks run: rows of ``space``'s table, read
    before the buffers are asked for again. Without the GIL: threads may run it side by side on
    other columns."""
    depths, found_parents, queue, sums = space
    deepest, group = 0, depths.shape[0]
    for first in range(0, sources.shape[0], group):
        count = min(group, sources.shape[0] - first)
        for g in range(count):
            _, ran = queue_walk(indptr, indices, sources[first + g], -1, max_levels, depths[g], found_parents[g],
                                with_parents, queue, None, sums, deepest)     # (the records' four columns)
            deepest = max(deepest, ran)
        _write_queue_columns(levels, with_levels, parents, with_parents, column0 + first, count, depths, found_parents)
    for d in range(deepest):            # (every search that ran a depth pushed it)
        sums[d, _SEARCHES_RAN] = sums[d, _PUSH]
    return sums[:deepest]     # (a view of the recycled table: a copy of a 100,000 path's took 1,000 fresh pages)


@numba.njit(cache=True, nogil=True)
def _write_queue_columns(levels, with_levels, parents, with_parents, first, count, depths, found_parents):
    """Columns ``first`` to ``first + count`` of the tables from a group's depths (-1 where a
    search did not reach a vertex) and parents, -1 on the rows past the graph's n (a row's
    columns written together: one column at a time touched a line of the table a row)."""
    n = depths.shape[1]
    for v in range(levels.shape[0] if with_levels else parents.shape[0]):
        for g in range(count):
            depth = depths[g, v] if v < n else -1
            if with_levels:
                levels[v, first + g] = depth
            if with_parents:
                parents[v, first + g] = found_parents[g, v] if depth >= 0 else -1


def _queue_space(n, k, max_levels, parents):
    """One thread's buffers for :func:`_queue_searches` of ``k`` searches over ``n`` vertices: a
    group's depths and parents (int32, as the tables), the run's queue and the sums of its
    depths' records, a row a level that may run, all recycled (as :func:`_separate_space`'s);
    the walks clear a row of the sums when the first of them reaches its level. Counted as the
    searches walk, those records add 4% to a 100,000 path's searches, against 75-115% when
    worked out of each search's queue after it. Zeroed here (by calloc), the sums cost a 64-search
    batch 500 fresh pages a call on a 300 x 300 mesh, 700 on the 20,000 path."""
    group = min(k, SEPARATE_GROUP)
    return (recycle.empty((group, n), np.int32), recycle.empty((group, n if parents else 0), np.int32),
            recycle.empty((max(n, 1),), np.int32), recycle.empty((min(max_levels, n) + 1, 5), np.int64))


# -- the host side ----------------------------------------------------------------------------
def multi_bfs_fused(out_csr, in_csr, sources, out_degree, *, rows, levels, parents, rule, max_levels,
                    queue_searches=False):
    """The BFS of every source of ``sources`` (int64, 1 to MULTI_FUSED_MAX_WIDTH of them, a
    repeat its own search) over the graph whose row u of ``out_csr`` lists u's out-neighbours
    and row v of ``in_csr`` v's in-neighbours (one block, local id = global id), as one compiled
    run of at most ``max_levels`` levels, push or pull as ``rule`` (a DirectionRule, its state
    updated as its ``choose`` would have) chooses from the frontier's vertices, their out-edges
    (``out_degree``) and the edges of the vertices some search has still to reach. Returns a
    :class:`MultiFusedRun` whose ``levels`` / ``parents`` (when asked for) are (rows, k) int32,
    -1 where a search did not reach a vertex (and on rows past the graph's), or whose ``levels``
    are :class:`~lagraph_dist.local.engine.LevelPlanes` where :func:`levels_as_planes` keeps
    them so (``multi_fused_level_planes``; a batch whose searches ran one at a time writes the
    table). ``queue_searches``: ``ld.bfs``'s policy would run the queue search on this graph
    (past ``queue_search_edges`` too, on narrow levels), so searches run one at a time are queue
    searches; else they are where the graph is small enough."""
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    k, n = int(sources.shape[0]), out_csr.nmajor
    if not 1 <= k <= MULTI_FUSED_MAX_WIDTH:
        raise ValueError(f"a fused multi-source run takes 1 to {MULTI_FUSED_MAX_WIDTH} sources, got {k}")
    if rows < n:
        raise ValueError(f"the outputs need at least {n} rows, got {rows}")
    if sources.min() < 0 or sources.max() >= n:      # (the compiled loops do not check)
        raise ValueError(f"sources must be vertices of the block (0 to {n - 1})")
    searches = _searches_setting()
    in_planes = (bool(levels) and searches != "separate"
                 and levels_as_planes(multi_fused_level_planes, out_csr.nnz, out_csr.nmajor))
    level_table = recycle.empty((rows, k), np.int32) if levels and not in_planes else _NO_TABLE  # (pages mapped)
    parent_table = recycle.empty((rows, k), np.int32) if parents else _NO_TABLE
    start = np.array(rule.state(), np.int64)
    state, max_levels = start.copy(), int(max(0, max_levels))
    rule_args = _rule_args(rule)
    threads, tick = numba.get_num_threads(), float(seconds_per_tick() or 1.0)
    apart = searches == "separate"
    ends, queued = np.full(2, np.nan), False
    if not apart:
        full = full_words(k)
        planes = _zero_planes(1 + (PLANE_BITS_FIRST if in_planes else 0), rows, full.shape[0])    # (0: visited)
        counts, seconds, apart, planes = _search(out_csr.indptr, out_csr.indices, in_csr.indptr, in_csr.indices,
                                                 np.ascontiguousarray(out_degree, dtype=np.int64), sources,
                                                 full, level_table, bool(levels) and not in_planes, planes,
                                                 in_planes, parent_table, bool(parents), *rule_args, state,
                                                 int(out_csr.nnz), max_levels,
                                                 PROBE_LEVELS if searches == "auto" else 0,
                                                 float(_min_sharing(out_csr.nnz, n, full.shape[0])), threads, tick,
                                                 ends)
    if apart:                # (the probe's levels, a few microseconds where it stops, are not records)
        if in_planes:        # (searches one at a time write their columns of a table)
            in_planes, level_table = False, recycle.empty((rows, k), np.int32)
        state = start
        counts, seconds, queued = _run_separately(out_csr, in_csr, sources, level_table, bool(levels), parent_table,
                                                  bool(parents), rule, start, max_levels, threads, tick,
                                                  queue_searches)
    if len(counts):
        rule.set_state(*state.tolist())
    setup, finish = (None, None) if apart else (float(ends[0]), float(ends[1]))
    if in_planes:
        level_table = LevelPlanes.of_run(planes, k, len(counts))
    return MultiFusedRun(level_table if levels else None, parent_table if parents else None, counts, seconds,
                         HOST_CLOCK if queued else FUSED_LEVEL_CLOCK, separate=bool(apart), setup_seconds=setup,
                         finish_seconds=finish, engine=QUEUE_ENGINE if queued else None)


#: depth planes a run in planes starts with (levels up to 2^bits - 1; a deeper run makes more)
PLANE_BITS_FIRST = 3
#: a run's levels as bit planes (True), as a (rows, k) table (False), or None: by the graph
#: (:func:`lagraph_dist.local.engine.levels_as_planes`); tests and benchmarks compare them
multi_fused_level_planes = None


def _zero_planes(count, rows, width):
    """``count`` zero planes of (rows, width) words (recycled pages, zeroed here)."""
    planes = recycle.empty((count, rows, width), np.uint64)
    planes.fill(0)
    return planes


def _run_separately(out_csr, in_csr, sources, level_table, levels, parent_table, parents, rule, start,
                    max_levels, threads, tick, queue_searches):
    """The sources' searches one at a time, side by side on the cores (a thread a share of the
    columns, each search on one core) where a single search's levels would run on one core
    anyway: a graph under :data:`SINGLE_PARALLEL_ROWS` vertices, or a thin one (a mesh's, a
    road's levels are all narrow: 64 searches of a 1000 x 1000 mesh took 1.65 s one after
    another, the second core idle, against 1.33 s for 64 ``ld.bfs`` calls); else one search
    after another, each using the cores as ``ld.bfs`` does. Each is the queue search
    (:func:`_queue_searches`) where ``ld.bfs``'s would be (``engine.queue_search_allowed``: a
    small graph, or ``queue_searches``, and a rule that may push), on as many threads as have
    enough to read (``engine.queue_batch_shares``), else the single search's fused run
    (:func:`_separate_searches`). Returns the depths' records and seconds, each depth's summed
    over the threads (its seconds: core seconds, more than the wall's), and whether the queue
    searches ran."""
    n, k = out_csr.nmajor, sources.shape[0]
    queued = queue_search_allowed(0 if queue_searches else out_csr.nnz, rule.mode)
    if queued:
        shares = queue_batch_shares(k, n, out_csr.nnz, threads)
    else:
        shares = min(threads, k) if n < SINGLE_PARALLEL_ROWS or thin_graph(out_csr.nnz, n) else 1
    bounds = np.linspace(0, k, shares + 1).astype(np.int64)

    def side_by_side(run, spaces):
        if shares == 1:
            return [run(0, k, spaces[0])]
        return list(_side_by_side().map(run, bounds[:-1], bounds[1:], spaces))
    if queued:
        def queue_searches(lo, hi, space):
            started = time.perf_counter()
            sums = _queue_searches(out_csr.indptr, out_csr.indices, sources[lo:hi], lo, level_table, levels,
                                   parent_table, parents, max_levels, space)
            return sums, time.perf_counter() - started
        spaces = [_queue_space(n, int(hi - lo), max_levels, parents) for lo, hi in zip(bounds[:-1], bounds[1:])]
        return (*_queue_depth_records(side_by_side(queue_searches, spaces)), True)
    graph = (out_csr.indptr, out_csr.indices, in_csr.indptr, in_csr.indices, empty_rows(in_csr))
    thin, marked = thin_edges(out_csr), fused.marked_here(fused.marked_values(out_csr))
    rule_args = _rule_args(rule)

    def run(lo, hi, space):
        return _separate_searches(*graph, sources[lo:hi], lo, level_table, levels, parent_table, parents, *rule_args,
                                  start, max_levels, 1 if shares > 1 else threads, tick, thin, marked, space)
    spaces = [_separate_space(n, int(hi - lo), levels, parents, max_levels) for lo, hi in zip(bounds[:-1], bounds[1:])]
    return (*_depth_records(side_by_side(run, spaces)), False)


def _rule_args(rule):
    """A DirectionRule's mode code and parameters as the compiled runs take them."""
    return int(rule.code), float(rule.alpha), float(rule.beta), float(rule.n)


_POOL = []


def _side_by_side():
    """The threads that run separate searches side by side (made on first use, one a core)."""
    if not _POOL:
        _POOL.append(concurrent.futures.ThreadPoolExecutor(numba.config.NUMBA_NUM_THREADS,
                                                           thread_name_prefix="lagraph-separate"))
    return _POOL[0]


def _searches_setting():
    value = settings.multi_searches
    if value not in SEARCHES:
        raise ValueError(f"settings.multi_searches must be one of {', '.join(map(repr, SEARCHES))}, got {value!r}")
    return value


_NO_TABLE = np.zeros((0, 0), np.int32)


def compile_multi_fused():
    """Compile (or load from numba's disk cache) the run on a tiny graph, push and pull, one
    and two words a vertex."""
    # 0 -> 1 in a block of 32 rows (a block's length, which the single search's words assume)
    indptr, indices = np.array([0] + [1] * 32, np.int64), np.array([1], np.int32)
    csr = LocalCSR(indptr, indices, 32)
    for searches in ("together", "separate"):
        with settings.changed(multi_searches=searches):
            for k in (1, 65):
                for mode in ("push", "pull"):
                    multi_bfs_fused(csr, csr, np.zeros(k, np.int64), np.diff(indptr), rows=32, levels=True,
                                    parents=True, rule=DirectionRule(mode, 32, 1), max_levels=4)
