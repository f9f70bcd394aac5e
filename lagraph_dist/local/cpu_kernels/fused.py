"""Twin of kernels/fused.cu: the whole search as levels that never leave the backend, compiled.

One call of :func:`_search` (numba, ``cache=True``) runs every level of a run: a push level walks
the frontier's queue and claims each unvisited out-neighbour at its first frontier edge (frontier,
then adjacency order), on one core (but a marked search's wide thin levels, which two threads
share: :func:`_two_thread_levels`); a pull level scans the unvisited rows, 32 at a time by their
visited word, each stopping at its first in-neighbour in the frontier's bitmap, in parallel over
word-aligned chunks of rows where there are enough of them (each chunk writes only its own words
and slots, so the result is the same whatever the threads). Which direction a level takes is
fused.cu's ``ld_rule``, the arithmetic of :class:`lagraph_dist.core.direction.DirectionRule`, on
the rule's state; a rule whose ``choose`` is not DirectionRule's own is asked level by level
from Python instead. Each level's record (frontier, discovered, edges examined, direction, and its
seconds: the clock's ticks from the level before, read as the level ends) is written to arrays
by the compiled loop.
"""
from __future__ import annotations

import time

import numba
import numpy as np
from numba import prange

from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.settings import settings
from lagraph_dist.local.cpu_kernels.bitmap import empty_rows, trailing_zeros
from lagraph_dist.local.cpu_kernels.common import nonnegative
from lagraph_dist.local.cpu_kernels.intrinsics import _not_inlined, _prefetch, _read_clock
from lagraph_dist.local.cpu_kernels.spin import PATIENCE_SECONDS, barrier, progress, start_threads, two_threads_at_once
from lagraph_dist.local.engine import RUN_TIMED, FusedRecords, LazyRecords, thin_graph
from lagraph_dist.local.fit import last_level_cache
from lagraph_dist.local.parts import LocalCSR
from lagraph_dist.local.layout import RULE_AUTO, RULE_PULL, RULE_PUSH, STOP_EMPTY, STOP_LEVELS, STOP_TARGET, STOP_TOO_BIG

#: what times each level of :func:`bfs_fused` (recorded with the level): the core's tick counter,
#: read as each level ends, in the seconds of the host's perf_counter (measured against it once)
FUSED_LEVEL_CLOCK = "host perf_counter"
#: push levels of frontiers of fewer out-edges than this run in a loop of their own (a path's,
#: a mesh's levels: the loop around such a level costs as much as its work)
THIN_EDGES = 1024
#: on a graph numbered locally (:func:`local_numbering`: a mesh's rows, a road network's
#: regions) a thin level's neighbours' bits are near each other and the branch on them predicts
#: well, so levels of up to this many out-edges stay in that loop (2 cores: a 1000 x 1000
#: mesh 15 -> 9.5 ms a search), where a graph numbered at random (Kronecker's permuted labels,
#: a k-nearest-neighbour graph of random points) gains from the two-pass claims' independent
#: reads (a 200,000-point one 2.9 -> 4.9 ms through the branching loop)
LOCAL_THIN_EDGES = 1 << 13
#: a graph is numbered locally when the median |u - v| of a sample of its edges is under
#: n / LOCAL_SPREAD (a 1000 x 1000 mesh: 1 or 1,000 of 10^6; random numbering: about n / 3)
LOCAL_SPREAD = 64
#: edges sampled for that median, in a few runs spread over the block
LOCALITY_SAMPLE = 1 << 14
#: a pull level over fewer rows than this runs on one core (a parallel region costs ~20 us); a
#: push level of fewer frontier edges than PARALLEL_EDGES writes what it finds as it claims it,
#: a wider one claims first (its frontier in increasing order) and then writes the values of
#: what it found, on all the cores when it found PARALLEL_FOUND vertices or more
PARALLEL_ROWS = 1 << 16
PARALLEL_EDGES = 1 << 16
PARALLEL_FOUND = 1 << 14
#: the values of what a run of thin levels found are written on all the cores when they are at
#: least this many (:func:`_write_logged`)
PARALLEL_LOGGED = 1 << 19
#: a run of thin levels claims into a log on a graph of at least this many vertices, whose
#: values do not stay in the core's cache (:func:`_thin_levels`); a smaller graph's are written
#: as each level ends (a 30 x 30 mesh's search 4 us slower through the log)
LOGGED_VERTICES = 1 << 17
#: a thin graph's search from a source tests a vertex's value (-1 until it is found: its
#: depth, or its parent) instead of its visited bit in its thin levels, without a log, while
#: the block's arrays and two values a vertex fit in this share of the last-level cache
#: (:func:`marked_values`): the test's load brings in the line that finding the vertex stores
#: to, where a bit's test leaves that store to miss. 2 cores of an AMD EPYC (32 MiB L3), each
#: way's calls in turn: a 100 x 100 mesh 0.17 -> 0.10 ms, 300 x 300 2.3 -> 1.1, 4elt 0.51 ->
#: 0.32; the 400 x 400 mesh's 6.4 MB (a fifth of the cache) won while the cache was quiet (2.5 ->
#: 1.8 ms) and lost while a neighbour shared it (2.6 -> 3.1); 2 cores of the nvidia-h100-x1
#: host's Xeon (300 MiB L3): the 1000 x 1000 mesh's 40 MB (an eighth and a bit) 32.8 -> 24.3 ms.
#: With the wide thin levels on two threads (:func:`_two_thread_levels`) the marks win further:
#: the 500 x 500 mesh's 10 MB (0.31 of the EPYC's cache) 4.60 -> 3.78 ms, and on an
#: nvidia-h100-x1 host whose Xeon has 105 MiB the big mesh's 40 MB (0.36) 27.6 -> 16.4; on
#: the EPYC that mesh (1.25 caches) is no faster marked. Hence two fifths, just over the
#: largest share measured to win (docs/notes/cpu-kernels.md)
MARKED_CACHE_SHARE = 2 / 5
#: a marked search's thin levels of at least this many frontier vertices run on two threads
#: that meet at a spin barrier (:func:`_two_thread_levels`), until a frontier falls under half
#: of it; None: never. Set at each call from :func:`spin.two_threads_at_once`
TWO_THREAD_FRONTIER = 256
#: after a two-thread run a thread left because the other stood still at a barrier (a busy
#: machine: :func:`spin.barrier`), the levels run on one thread for this many levels, twice as
#: many after each such run of the search
TWO_THREAD_BACKOFF = 64
#: nor on a graph of fewer vertices than this: its search takes less than waking a second
#: thread and asking whether one may run costs (a few us of a small graph's call)
TWO_THREAD_VERTICES = 1 << 14
#: a value a two-thread level writes as it claims a vertex, before the barrier: its own value
#: (a depth or a parent) tagged with the claiming thread, ``TAG_BASE + 2 * value + thread``
TAG_BASE = np.int64(1) << np.int64(40)
#: ``settings.marked_searches``'s values: by :func:`marked_values`, always, never
MARKED_SEARCHES = ("auto", "always", "never")
#: word-aligned chunks of rows a thread takes in a parallel pull level (dealt out in turn,
#: :func:`_pull_parallel`) and of values in a parallel write of what a level found
CHUNKS_PER_THREAD = 16

# -- the clock ------------------------------------------------------------------------------
@numba.njit(cache=True)
def _clock():
    return _read_clock()


_SECONDS_PER_TICK = [None]


def seconds_per_tick():
    """Seconds of one tick of the compiled loops' clock, measured once against perf_counter
    (over ~2 ms); None where the machine has no tick counter."""
    if _SECONDS_PER_TICK[0] is None:
        _clock()                       # compiled (or loaded) first
        started, ticks = time.perf_counter(), _clock()
        while time.perf_counter() - started < 2e-3:
            pass
        elapsed, spent = time.perf_counter() - started, _clock() - ticks
        _SECONDS_PER_TICK[0] = elapsed / spent if spent > 0 else 0.0
    return _SECONDS_PER_TICK[0] or None


# -- the direction rule (fused.cu's ld_rule) --------------------------------------------------
@numba.njit(cache=True, inline="always")
def _rule(mode, alpha, beta, n, push, previous, unexplored, nf, edges):
    """DirectionRule.choose's arithmetic on its state (push, previous, unexplored): returns
    (True for a push level, the state after it). Pull when a growing frontier's out-edges
    exceed unexplored / alpha, push again when a shrinking frontier holds fewer than n / beta
    vertices."""
    if mode != RULE_AUTO:
        return mode == RULE_PUSH, push, previous, unexplored
    if previous == 0:                 # the source alone
        return push != 0, push, nf, unexplored
    growing = nf > previous
    if push != 0 and growing:
        unexplored -= edges
        if np.float64(edges) > np.float64(unexplored) / alpha:
            push = 0
    elif push == 0 and not growing and np.float64(nf) < n / beta:
        push = 1
    return push != 0, push, nf, unexplored


@numba.njit(cache=True, inline="always")
def _choose(mode, alpha, beta, n, state, nf, edges):
    """:func:`_rule` on ``state`` = [push, previous, unexplored] (updated): True for a push level."""
    level_push, state[0], state[1], state[2] = _rule(mode, alpha, beta, n, state[0], state[1], state[2], nf, edges)
    return level_push


# -- the levels -------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _found(v, parent, parents, positional, depths, depth):
    """What a level writes for a vertex it finds (its bits are the caller's): its parent when
    parents are asked for (positional), else a pair product's True; its depth when depths are.
    (Writing True costs nothing here; leaving the branch without it made the push loop of a
    path 3x slower, numba's code for it being what it is.)"""
    if positional:
        parents[v] = parent
    else:
        parents[v] = True
    if depths.shape[0]:
        depths[v] = depth


@numba.njit(cache=True, inline="always")
def _push_single(oip, oix, u, e, stop, nxt, words, held, held_bits, parents, positional, depth_words, depths, depth):
    """The push level of the one vertex ``u``, whose out-edges are ``oix[e:stop]`` (given: a
    path's level reads neither queue nor offsets for them, :func:`_single_levels`): claims its
    unvisited out-neighbours into ``nxt``, writing each one's values as it finds it (on a path
    the visited test's branch is always taken the same way). The visited word ``held`` is
    ``held_bits``, kept in a register and written back to ``words`` only when another word is
    read (a path's levels test and set bits of the same word one after another: through memory,
    each level waited on the store of the one before). Returns (found, their out-edges, the last
    of them and its out-edges' range: the next level's frontier when it is the only one, and
    the held word)."""
    found, edges = 0, 0
    last, last_first, last_stop = 0, 0, 0
    keep_bits = depth_words.shape[0] > 0
    while e < stop:                      # (a range loop here is ~1.5x slower on a path)
        v = nonnegative(oix[nonnegative(e)])
        e += 1
        w = v >> 5
        bit = np.uint32(1) << np.uint32(v & 31)
        if w != held:
            words[nonnegative(held)] = held_bits
            held, held_bits = w, words[w]
        if held_bits & bit:
            continue
        held_bits |= bit
        if keep_bits:
            depth_words[w] |= bit
        _found(v, u, parents, positional, depths, depth)
        nxt[nonnegative(found)] = v
        last, last_first, last_stop = v, nonnegative(oip[v]), oip[v + 1]
        edges += last_stop - last_first
        found += 1
    return found, edges, last, last_first, last_stop, held, held_bits


@numba.njit(cache=True, inline="always")
def _claims(oip, oix, cur, first, stop, nxt, at, sources, words, depth_words, parents, positional, depths, depth,
            into_log, marks):
    """A push level's claims with a branch on each bit: the unvisited out-neighbours of
    ``cur[first:stop]``, each at its first frontier edge, into ``nxt[at:]``; returns (found,
    their out-edges). Each one's values (its parent, or True, and ``depth``) are written as it
    is found, or, ``into_log`` (a constant at each call site, so that the other way compiles
    away), its parent goes to ``sources`` beside it for the caller to write later
    (:func:`_thin_levels`' log), and the depths' bits are set after the claims. With ``marks``
    (not into the log: a values array, -1 where a vertex is unvisited) a vertex is tested by
    its mark and its visited bit set after the claims; where the marks are the depths of a pair
    product's search, its True values are left to the run's end (:func:`_search_into`), whose
    one fill costs less than a store that misses a vertex."""
    found, edges = 0, 0
    keep_bits = depth_words.shape[0] > 0 and not into_log
    for k in range(first, stop):
        # nonnegative() on u and its row: a 30 x 30 mesh's levels 1/5 faster written as found, a
        # 1000 x 1000 mesh's claims into a log 1/4 to 1/3 slower (2 cores, AMD EPYC)
        u = cur[k] if into_log else nonnegative(cur[k])
        e, end = oip[u], oip[u + 1]
        if not into_log:
            e = nonnegative(e)
        while e < end:                   # (a range loop here is ~1.5x slower on a path)
            v = nonnegative(oix[e])
            e += 1
            w = v >> 5
            bit = np.uint32(1) << np.uint32(v & 31)
            if marks.shape[0]:           # (the same for every edge of a call)
                if marks[v] >= 0:
                    continue
            elif words[w] & bit:
                continue
            else:
                words[w] |= bit
            slot = nonnegative(at + found)
            nxt[slot] = v
            if into_log:
                sources[slot] = u
            else:
                if keep_bits:
                    depth_words[w] |= bit
                if marks.shape[0] and not positional:
                    depths[v] = depth    # (the marks: True is written over all the values as the run ends)
                else:
                    _found(v, u, parents, positional, depths, depth)
            row = oip[v]
            if into_log:                 # the next level reads it: asked for on a graph too big for the
                _prefetch(oix, row)      # caches (a 1000 x 1000 mesh 4 ms faster), not on a small one
            edges += oip[v + 1] - row
            found += 1
    if into_log and depth_words.shape[0]:
        _set_bits(nxt, at, at + found, depth_words)
    if marks.shape[0]:
        _set_bits(nxt, at, at + found, words)
    return found, edges


@numba.njit(cache=True)
def _claim_into_log(oip, oix, log, first, stop, sources, words, depth_words):
    """:func:`_claims` of the frontier ``log[first:stop]`` into the log after it, parents into
    ``sources``, values left to the caller: a mesh's found vertices lie a row apart, each
    value's store its own cache miss, and stores that miss fill the core's store buffer and
    stall the claims' loads. A function of its own (inlined into the levels' loop, a 1000 x
    1000 mesh's claims were 1/3 slower), with the depths' bits set after the claims (a test of
    that in the loop: 1/5 slower)."""
    _not_inlined()
    return _claims(oip, oix, log, first, stop, log, stop, sources, words, depth_words, sources, False, sources, 0,
                   True, sources[:0])    # (no values written: ``sources`` stands in for their arrays)


@numba.njit(cache=True, inline="always")
def _set_bits(ids, first, stop, bits):
    for k in range(first, stop):
        v = nonnegative(ids[k])
        bits[v >> 5] |= np.uint32(1) << np.uint32(v & 31)


@numba.njit(cache=True, inline="always")
def _write_values(first, stop, nxt, sources, parents, positional, depths, depth, true_later):
    """The values of the vertices ``nxt[first:stop]`` found at ``depth`` by parents
    ``sources[first:stop]``; with ``true_later`` (a pair product's search that fills its True
    values as it ends: :func:`_search_into`) only their depths."""
    if positional or not true_later:
        for k in range(first, stop):
            _found(nonnegative(nxt[k]), sources[k], parents, positional, depths, depth)
    elif depths.shape[0]:
        for k in range(first, stop):
            depths[nonnegative(nxt[k])] = depth


@numba.njit(cache=True, inline="always")
def _push_branching(oip, oix, cur, nf, nxt, words, parents, positional, depth_words, depths, depth, marks):
    """A push level of :func:`_claims` from ``cur[:nf]`` into ``nxt``, each one's values written
    as it is found: a small graph's values are near in the cache (a 30 x 30 mesh's search
    4 us slower through a log), and a level of more edges than the queues could list
    (:func:`_push_listing`'s way) needs no log. Nor is a found vertex's row of out-edges
    prefetched: a 100 x 100 mesh's call took 118-120 us with, 105-106 without (300 x 300:
    912 against 856-868). Its vertices are tested by ``marks`` where given (:func:`_claims`)."""
    return _claims(oip, oix, cur, 0, nf, nxt, 0, nxt, words, depth_words, parents, positional, depths, depth, False,
                   marks)


@numba.njit(cache=True, inline="always")
def _logged_level_range(flat, level, at, part, parts):
    """Where the ``part``-th of ``parts`` shares of a logged level's found vertices lies in the
    log, the level's found starting at ``at`` (its count is its record's second slot)."""
    count = flat[nonnegative(4 * level + 1)]
    return at + count * part // parts, at + count * (part + 1) // parts, at + count


@numba.njit(cache=True, inline="always")
def _write_logged_share(log, sources, at, flat, first_level, stop_level, part, parts, parents, positional, depths,
                        depth, true_later):
    """One share of :func:`_write_logged`: of each level, the ``part``-th of ``parts``."""
    for level in range(first_level, stop_level):
        lo, hi, at = _logged_level_range(flat, level, at, part, parts)
        _write_values(lo, hi, log, sources, parents, positional, depths, depth + level, true_later)


@numba.njit(cache=True, parallel=True)
def _write_logged_parallel(log, sources, at, flat, first_level, stop_level, parts, parents, positional, depths, depth,
                           true_later):
    for part in prange(parts):
        _write_logged_share(log, sources, at, flat, first_level, stop_level, part, parts, parents, positional, depths,
                            depth, true_later)


@numba.njit(cache=True)
def _write_logged(log, sources, at, found, flat, first_level, stop_level, parents, positional, depths, depth,
                  threads, true_later):
    """The values of what the levels ``first_level`` to ``stop_level`` of a logged run found:
    ``log[at:at + found]`` level after level (each level's count in its record), found by
    ``sources``, at ``depth`` + the level; each thread takes its share of every level when there
    are many."""
    if threads < 2 or found < PARALLEL_LOGGED:
        _write_logged_share(log, sources, at, flat, first_level, stop_level, 0, 1, parents, positional, depths,
                            depth, true_later)
    else:
        _write_logged_parallel(log, sources, at, flat, first_level, stop_level, threads, parents, positional, depths,
                               depth, true_later)


@numba.njit(cache=True, inline="always")
def _claim_queue(oip, oix, cur, nf, nxt, sources, words, depth_words):
    """A wide push level's claims over the queue ``cur[:nf]``: the unvisited out-neighbours of
    the frontier into ``nxt``, their parents into ``sources``, each at its first frontier edge;
    returns how many. In two passes without a branch on a visited bit: the edges' neighbours
    whose bit is clear are listed first (``nxt``, ``sources``: as many slots as the frontier
    has edges), reading the bits only, then claimed in that order, each kept when its bit was
    still clear, and the cache asked for its out-edges, which the next level reads (a road
    graph's found vertices lie anywhere: asked for in the write pass instead, its search was 1/8
    slower). (A branch on the bit, resolved only when a word far in the cache arrives,
    mispredicted on a big mesh: its search 1/4 slower; one pass setting a bit every edge waited
    on those stores when the next edge read the same word.)"""
    listed = 0
    for k in range(nf):
        u = nonnegative(cur[k])
        e, stop = nonnegative(oip[u]), oip[u + 1]
        while e < stop:
            v = nonnegative(oix[e])
            e += 1
            nxt[nonnegative(listed)] = v
            sources[nonnegative(listed)] = u
            listed += (words[v >> 5] >> np.uint32(v & 31)) & np.uint32(1) == 0
    found = 0
    keep_bits = depth_words.shape[0] > 0
    for k in range(listed):
        v = nonnegative(nxt[k])
        w = v >> 5
        bit = np.uint32(1) << np.uint32(v & 31)
        seen = words[w]
        words[w] = seen | bit
        if keep_bits:
            depth_words[w] |= bit & ~seen
        _prefetch(oix, oip[v])           # (a duplicate again: cheaper than a branch)
        nxt[nonnegative(found)] = v
        sources[nonnegative(found)] = sources[k]
        found += (seen & bit) == 0
    return found


@numba.njit(cache=True, inline="always")
def _push_listing(oip, oix, cur, nf, nxt, sources, words, parents, positional, depth_words, depths, depth):
    """A push level of THIN_EDGES to PARALLEL_EDGES frontier edges, at most as many as the
    queues have slots: claims the unvisited out-neighbours of ``cur[:nf]`` at their first
    frontier edge into ``nxt`` (:func:`_claim_queue`), then writes their values in the order
    found; returns (found, their out-edges)."""
    found = _claim_queue(oip, oix, cur, nf, nxt, sources, words, depth_words)
    edges = 0
    for k in range(found):
        v = nonnegative(nxt[k])          # (no wrap-around select on the index: a mesh 1/10 faster)
        _found(v, sources[k], parents, positional, depths, depth)
        edges += oip[v + 1] - oip[v]
    return found, edges


@numba.njit(cache=True, inline="always")
def _first_row(oip, cur):
    """The first frontier vertex and its out-edges' range."""
    u = nonnegative(cur[0])
    return u, nonnegative(oip[u]), oip[u + 1]


@numba.njit(cache=True)
def _claim(oip, oix, cur_bits, nxt, sources, next_bits, words, depth_words):
    """A wide push level's claims: the unvisited out-neighbours of the frontier (the bits of
    ``cur_bits``, taken in increasing order: its vertices' edges are then read in the order
    they are stored) into ``nxt`` and ``next_bits``, their parents into ``sources``, each at its
    first frontier edge; returns how many (the caller writes their values: :func:`_write_found`)."""
    found = 0
    keep_bits = depth_words.shape[0] > 0
    next_bits[:] = 0
    for wi in range(cur_bits.shape[0]):
        todo = cur_bits[wi]
        while todo:
            u = wi * 32 + trailing_zeros(todo)
            todo = np.uint32(todo & (todo - np.uint32(1)))
            for e in range(oip[u], oip[u + 1]):
                v = oix[e]
                w, bit = v >> 5, np.uint32(1) << np.uint32(v & 31)
                if words[w] & bit:       # (an inlined helper taking the arrays is 3x slower here)
                    continue
                words[w] |= bit
                next_bits[w] |= bit
                if keep_bits:
                    depth_words[w] |= bit
                nxt[found] = v
                sources[found] = u
                found += 1
    return found


@numba.njit(cache=True, inline="always")
def _write_range(first, stop, nxt, sources, oip, parents, positional, depths, depth):
    edges = 0
    for k in range(first, stop):
        v = nonnegative(nxt[k])
        _found(v, sources[k], parents, positional, depths, depth)
        edges += oip[v + 1] - oip[v]
    return edges


@numba.njit(cache=True, parallel=True)
def _write_parallel(nchunks, found, nxt, sources, oip, parents, positional, depths, depth, edges):
    for c in prange(nchunks):
        edges[c] = _write_range(c * found // nchunks, (c + 1) * found // nchunks, nxt, sources, oip, parents,
                                positional, depths, depth)


@numba.njit(cache=True)
def _write_found(found, nxt, sources, oip, parents, positional, depths, depth, threads):
    """The parents (or True) and depths of the ``found`` vertices claimed by :func:`_claim`, in
    parallel when there are many (each vertex once: no two threads write one slot); returns
    their out-edges."""
    if threads < 2 or found < PARALLEL_FOUND:
        return _write_range(0, found, nxt, sources, oip, parents, positional, depths, depth)
    nchunks = threads * CHUNKS_PER_THREAD
    edges = np.zeros(nchunks, np.int64)
    _write_parallel(nchunks, found, nxt, sources, oip, parents, positional, depths, depth, edges)
    return edges.sum()


@numba.njit(cache=True, inline="always")
def _pull_chunk(c, chunk_words, iip, iix, oip, cur_bits, nxt_bits, words, no_inputs, parents, positional,
                depth_words, depths, depth, nxt, counts, examined, edges):
    """Rows of words [c * chunk_words, ...) of a pull level: each unvisited row with in-edges
    (its bit clear in ``no_inputs``) takes its first in-neighbour set in ``cur_bits``; found
    rows go to ``nxt`` from slot (first row of the chunk) on, increasing, and their bits to
    ``nxt_bits`` (every word of the chunk written)."""
    nw = words.shape[0]
    keep_bits = depth_words.shape[0] > 0
    first = c * chunk_words
    last = min(nw, first + chunk_words)
    at = first * 32
    found, read, out_edges = 0, 0, 0
    for wi in range(first, last):
        visited = words[wi]
        fresh = np.uint32(0)
        todo = np.uint32(~(visited | no_inputs[wi]))         # the rows to read
        if todo:
            while todo:
                b = trailing_zeros(todo)
                todo = np.uint32(todo & (todo - np.uint32(1)))
                r = wi * 32 + b
                start, stop = iip[r], iip[r + 1]
                hit = stop
                for e in range(start, stop):
                    s = iix[e]
                    if (cur_bits[s >> 5] >> np.uint32(s & 31)) & np.uint32(1):
                        hit = e
                        break
                if hit == stop:
                    read += stop - start
                    continue
                read += hit - start + 1
                fresh |= np.uint32(1) << np.uint32(b)
                _found(r, iix[hit], parents, positional, depths, depth)
                nxt[at + found] = r
                found += 1
                out_edges += oip[r + 1] - oip[r]
            if fresh:
                words[wi] = visited | fresh
                if keep_bits:
                    depth_words[wi] |= fresh
        nxt_bits[wi] = fresh
    counts[c], examined[c], edges[c] = found, read, out_edges


@numba.njit(cache=True, parallel=True)
def _pull_parallel(nchunks, chunk_words, iip, iix, oip, cur_bits, nxt_bits, words, no_inputs, parents, positional,
                   depth_words, depths, depth, nxt, counts, examined, edges, threads):
    """:func:`_pull_chunk` over the chunks, thread t taking chunks t, t + threads, ...: dealt out,
    not halved, so that a graph whose hubs lie together (numbered by degree) does not give them
    all to one thread."""
    for t in prange(threads):
        for c in range(t, nchunks, threads):
            _pull_chunk(c, chunk_words, iip, iix, oip, cur_bits, nxt_bits, words, no_inputs, parents, positional,
                        depth_words, depths, depth, nxt, counts, examined, edges)


@numba.njit(cache=True)
def _pull_level(iip, iix, oip, cur_bits, nxt_bits, words, no_inputs, parents, positional, depth_words, depths, depth,
                nxt, threads):
    """A pull level over every row; returns (found, in-edges read, their out-edges), the found
    rows packed at the front of ``nxt`` in increasing order."""
    nw = words.shape[0]
    if nw * 32 < PARALLEL_ROWS or threads < 2:
        nchunks, chunk_words = 1, nw
    else:
        nchunks = min(nw, threads * CHUNKS_PER_THREAD)
        chunk_words = -(-nw // nchunks)
        nchunks = -(-nw // chunk_words)
    counts = np.zeros(nchunks, np.int64)
    examined = np.zeros(nchunks, np.int64)
    edges = np.zeros(nchunks, np.int64)
    if nchunks == 1:
        _pull_chunk(0, chunk_words, iip, iix, oip, cur_bits, nxt_bits, words, no_inputs, parents, positional,
                    depth_words, depths, depth, nxt, counts, examined, edges)
    else:
        _pull_parallel(nchunks, chunk_words, iip, iix, oip, cur_bits, nxt_bits, words, no_inputs, parents,
                       positional, depth_words, depths, depth, nxt, counts, examined, edges, threads)
    found = 0
    for c in range(nchunks):                 # each chunk's rows follow the chunks before it
        at = c * chunk_words * 32
        if at != found:
            for k in range(counts[c]):
                nxt[found + k] = nxt[at + k]
        found += counts[c]
    return found, examined.sum(), edges.sum()


@numba.njit(cache=True, inline="always")
def _holds_target(words, target, target_before):
    return target >= 0 and not target_before and (words[target >> 5] >> np.uint32(target & 31)) & np.uint32(1) != 0


@numba.njit(cache=True)
def _single_levels(oip, oix, queue, u, first, stop, edges, words, parents, positional, depth_words, depths, depth,
                   room, edge_limit, flat, seconds, spans, first_level, last_tick, tick_seconds, each_level):
    """Up to ``room`` push levels of a frontier of one vertex, ``u`` (its ``edges`` out-edges
    ``oix[first:stop]``), in a loop of their own while each finds one vertex and it has fewer
    than ``edge_limit`` out-edges (a path's levels: what the loop keeps in registers is their
    cost, so it keeps little). The caller asked the rule for the first: a one-vertex frontier
    after one neither grows nor shrinks, so the rule gives push for the others and leaves its
    state as it is. What each finds goes to ``queue``. Returns (levels run, the vertices the
    last found, their out-edges, the last tick, the spans written).

    The run is timed as a run: the clock is read once, as it ends, and its seconds go to its
    last level's slot, the others' slots holding NaN (:data:`RUN_TIMED`). A read of the tick
    counter costs 10-22 ns, more than such a level's own work (cpu-kernels.md). Nor are the
    others' rows written: each found one vertex from one, so only their out-edges are kept, as
    spans of levels of equal out-edges in ``spans`` ((first level, counted from
    ``first_level``, levels, out-edges): a path's run is one), and their rows are made when the
    records are read (:class:`_RunRecords`; a 100,000-level path's rows were 4 MB of fresh
    pages a search). With ``each_level`` every level is timed alone and has its row (a
    batch's searches run one at a time sum each depth's figures over the searches)."""
    _not_inlined()
    ran, found, spanned = 0, 1, 0
    held = nonnegative(u) >> 5
    held_bits = words[held]
    last_edges, span_first, span_edges = edges, 0, edges
    while ran < room:
        found, next_edges, u, first, stop, held, held_bits = _push_single(
            oip, oix, u, first, stop, queue, words, held, held_bits, parents, positional, depth_words, depths,
            depth + ran)
        if each_level:
            last_tick = _level_record(flat, seconds, ran, 1, found, edges, 1, last_tick, tick_seconds)
        elif edges != span_edges:      # a span ends before this level
            spanned = _put_span(spans, spanned, first_level + span_first, ran - span_first, span_edges)
            span_first, span_edges = ran, edges
        ran += 1
        last_edges, edges = edges, next_edges
        if found != 1 or edges >= edge_limit:
            break
    words[nonnegative(held)] = held_bits
    if not each_level:                  # the last span but its last level, whose row and the run's seconds are written
        spanned = _put_span(spans, spanned, first_level + span_first, ran - 1 - span_first, span_edges)
        last_tick = _level_record(flat, seconds, ran - 1, 1, found, last_edges, 1, last_tick, tick_seconds)
    return ran, found, edges, last_tick, spanned


@numba.njit(cache=True, inline="always")
def _put_span(spans, spanned, first, count, edges):
    """Puts the span (first level, levels, out-edges) in ``spans[spanned]`` when it has levels;
    returns the spans written."""
    if count <= 0:
        return spanned
    at = nonnegative(spanned)
    spans[at, 0], spans[at, 1], spans[at, 2] = first, count, edges
    return spanned + 1


@numba.njit(cache=True, inline="always")
def _level_record(flat, seconds, level, frontier, found, examined, push, last_tick, tick_seconds):
    """A level's row (frontier, found, examined, push) at ``4 * level`` of the records' flat
    view, and its seconds since ``last_tick``; returns the tick read."""
    at = nonnegative(4 * level)
    flat[at], flat[at + 1], flat[at + 2], flat[at + 3] = frontier, found, examined, push
    now = _read_clock()
    seconds[nonnegative(level)] = (now - last_tick) * tick_seconds
    return now


@numba.njit(cache=True, inline="always")
def _thin_level_checks(mode, alpha, beta, rule_n, push, previous, unexplored, nf, edges, max_edges):
    """A thin level's checks before it runs: the rule's choice, and the edge limit of a push.
    Returns (the direction chosen for a level not run here: 0 pull, 1 a push too big; -1 run
    it, the stop reason or -1, the rule's state)."""
    level_push, push, previous, unexplored = _rule(mode, alpha, beta, rule_n, push, previous, unexplored, nf, edges)
    if not level_push:
        return 0, -1, push, previous, unexplored
    if edges > max_edges:
        return 1, STOP_TOO_BIG, push, previous, unexplored
    return -1, -1, push, previous, unexplored


@numba.njit(cache=True)
def _thin_levels(oip, oix, qc, qn, sources, nf, edges, words, parents, positional, depth_words, depths, depth, room,
                 mode, alpha, beta, rule_n, state, max_frontier, max_edges, target, target_before, records, seconds,
                 spans, first_level, last_tick, tick_seconds, thin_edges, each_level, threads, marks, true_later,
                 two_from):
    """Up to ``room`` push levels of frontiers of fewer than ``thin_edges`` out-edges, one after
    another (a path's or a mesh's levels: the loop around them is most of their cost), each
    timed from ``last_tick`` or the level before (its ticks times ``tick_seconds``). Returns
    (levels run, the vertices they found, the frontier's size and out-edges, its queue: 0
    ``qc``, 1 ``qn``, the direction the rule chose for a level not run here (-1: none), the stop
    reason or -1, the last tick read, how many spans it put in ``spans``). A run of one-vertex
    levels is timed as a run unless ``each_level``, its levels but the last kept as spans
    (:func:`_single_levels`; ``first_level``: this call's first level in the search).

    The other levels claim into a log (``qn``, with their parents in ``sources``): the
    frontier, then what each level found, the next level's frontier being the last level's
    share. Their values are written when the run leaves the log (:func:`_write_logged`, its
    seconds added to the run's last level), and the frontier goes back to ``qc``. Written
    as they are claimed, a 1000 x 1000 mesh's values cost its search as much as its claims
    (2 cores: 24 ms a search, against 13 ms of claims and 3-4 of values written after).
    A level the log may have no room for (found, at most its edges, past ``qn``'s end)
    starts a new one, and a frontier too big for even that (not all of it visited: a
    grammar's) writes as it claims, as do the levels of a graph of fewer than
    :data:`LOGGED_VERTICES` vertices and those given ``marks`` (:data:`MARKED_CACHE_SHARE`),
    which test the marks instead of the bits. With ``true_later`` neither the log nor the marked
    claims write a pair product's True values: the run fills them as it ends."""
    ran, discovered, chosen, reason = 0, 0, -1, -1
    push, previous, unexplored = state[0], state[1], state[2]     # the rule's, in registers meanwhile
    flat = records.reshape(records.size)                          # (a row's 4 slots at 4 * level)
    watch = target >= 0 and not target_before
    target_word, target_bit = target >> 5, np.uint32(1) << np.uint32(target & 31)
    swapped = 0
    single = not watch and max_frontier >= 1    # (:func:`_single_levels` checks neither)
    edge_limit = THIN_EDGES if max_edges >= THIN_EDGES else max_edges + 1
    log_values = parents.shape[0] >= LOGGED_VERTICES and marks.shape[0] == 0
    spanned = 0                                 # runs of one-vertex levels put in ``spans``
    logged, frontier_at = 0, 0                  # the log's entries, the frontier's first
    two_after, two_backoff = 0, TWO_THREAD_BACKOFF   # two threads from this level (after a stall: later)
    found_from, log_levels_from = 0, 0          # the log's first found vertex, its first level
    if nf == 0:
        reason, room = STOP_EMPTY, 0
    while ran < room:                           # each level: nf > 0, and the checks below passed
        if nf == 1 and single and edges < edge_limit:
            if logged:
                last_tick = _leave_log(qn, sources, found_from, frontier_at, nf, qc, flat, log_levels_from, ran,
                                       parents, positional, depths, depth, threads, seconds, last_tick, tick_seconds,
                                       true_later)
                logged = 0
            level_push, push, previous, unexplored = _rule(mode, alpha, beta, rule_n, push, previous, unexplored, 1,
                                                           edges)
            if not level_push:
                chosen = 0
                break
            u, first, stop = _first_row(oip, qc)
            at = nonnegative(4 * ran)
            runs, nf, edges, last_tick, added = _single_levels(
                oip, oix, qn, u, first, stop, edges, words, parents, positional, depth_words, depths, depth + ran,
                room - ran, edge_limit, flat[at:], seconds[ran:], spans[spanned:], first_level + ran, last_tick,
                tick_seconds, each_level)
            ran, discovered, spanned = ran + runs, discovered + runs - 1 + nf, spanned + added
            qc, qn, swapped = qn, qc, 1 - swapped
            if nf == 0 or nf > max_frontier:
                reason = STOP_EMPTY if nf == 0 else STOP_TOO_BIG
                break
            continue
        if edges >= thin_edges:
            break
        if (two_from and nf >= two_from and ran >= two_after and marks.shape[0] and not watch
                and depth_words.shape[0] == 0 and 2 * edges <= qn.shape[0]):
            (runs, found, nf, edges, swap, chosen, reason, last_tick, push, previous, unexplored,
             tired) = _two_thread_levels(
                oip, oix, qc, qn, nf, edges, words, marks, parents, positional, depths, depth + ran, room - ran,
                mode, alpha, beta, rule_n, push, previous, unexplored, max_frontier, max_edges, thin_edges,
                two_from // 2, flat[4 * ran:], seconds[ran:], last_tick, tick_seconds)
            ran, discovered = ran + runs, discovered + found
            if swap:
                qc, qn, swapped = qn, qc, 1 - swapped
            if chosen >= 0 or reason >= 0:
                break
            if tired:            # (a thread stood still: a busy machine) one thread for a while, longer each time
                two_after, two_backoff = ran + two_backoff, 2 * two_backoff
            continue
        chosen, reason, push, previous, unexplored = _thin_level_checks(mode, alpha, beta, rule_n, push, previous,
                                                                        unexplored, nf, edges, max_edges)
        if chosen >= 0:
            break
        if logged and logged + edges > qn.shape[0]:     # the log may have no room for what the level finds
            last_tick = _leave_log(qn, sources, found_from, frontier_at, nf, qc, flat, log_levels_from, ran,
                                   parents, positional, depths, depth, threads, seconds, last_tick, tick_seconds,
                                   true_later)
            logged = 0
        if logged or log_values and nf + edges <= qn.shape[0]:
            if not logged:                      # the log starts with the frontier
                for k in range(nf):
                    qn[k] = qc[k]
                logged, frontier_at, found_from, log_levels_from = nf, 0, nf, ran
            found, next_edges = _claim_into_log(oip, oix, qn, frontier_at, logged, sources, words, depth_words)
            frontier_at, logged = logged, logged + found
        else:                                   # a small graph, or a frontier (not all visited) too big for a log
            found, next_edges = _push_branching(oip, oix, qc, nf, qn, words, parents, positional, depth_words,
                                                depths, depth + ran, marks)
            qc, qn, swapped = qn, qc, 1 - swapped
        last_tick = _level_record(flat, seconds, ran, nf, found, edges, 1, last_tick, tick_seconds)
        ran, discovered = ran + 1, discovered + found
        nf, edges = found, next_edges
        reached = watch and words[target_word] & target_bit != 0
        if nf == 0 or reached or nf > max_frontier:
            reason = STOP_EMPTY if nf == 0 else STOP_TARGET if reached else STOP_TOO_BIG
            break
    if logged:
        last_tick = _leave_log(qn, sources, found_from, frontier_at, nf, qc, flat, log_levels_from, ran, parents,
                               positional, depths, depth, threads, seconds, last_tick, tick_seconds, true_later)
    state[0], state[1], state[2] = push, previous, unexplored
    return ran, discovered, nf, edges, swapped, chosen, reason, last_tick, spanned


@numba.njit(cache=True)
def _leave_log(log, sources, found_from, frontier_at, nf, queue, flat, first_level, stop_level, parents, positional,
               depths, depth, threads, seconds, last_tick, tick_seconds, true_later):
    """The end of a logged run of levels (:func:`_thin_levels`): the values of what its levels
    found (``log[found_from:]``) written, the frontier ``log[frontier_at:][:nf]`` copied to
    ``queue``, and the seconds of both added to its last level's (``true_later``: the depths
    only, :func:`_write_values`); returns the tick read."""
    _write_logged(log, sources, found_from, frontier_at + nf - found_from, flat, first_level, stop_level, parents,
                  positional, depths, depth, threads, true_later)
    for k in range(nf):
        queue[k] = log[nonnegative(frontier_at + k)]
    now = _read_clock()
    seconds[nonnegative(stop_level - 1)] += (now - last_tick) * tick_seconds
    return now


# -- two threads a thin level -----------------------------------------------------------------
# The slots of a two-thread run's control array (int64): the barrier's arrivals (slot 0,
# :func:`spin.barrier`'s); each thread's figures, two cache lines (16 slots) apart (a level's
# kept finds and their out-edges, the span of its finds, whether it waited out its patience at
# a barrier, its progress count); what thread 0 leaves for the caller as the run ends.
_RESULT, _CONTROL_SLOTS = 48, 64
_KEPT, _KEPT_EDGES, _LOW, _HIGH, _TIRED, _PROGRESS = 0, 1, 2, 3, 4, 5


@numba.njit(cache=True, inline="always")
def _figures_of(t):
    """Where thread ``t``'s figures start in the control array."""
    return 16 * (1 + t)


@numba.njit(cache=True, inline="always")
def _segment_slot(t, k, size):
    """Where thread ``t``'s k-th find lies in a queue of ``size`` slots: thread 0's from the
    front, thread 1's from the back (their finds together are at most the level's out-edges)."""
    return k if t == 0 else size - 1 - k


@numba.njit(cache=True, inline="always")
def _frontier_entry(queue, k, front, size):
    """The k-th vertex of a frontier held as two segments: ``front`` from the queue's front, the
    rest from its back."""
    return queue[k] if k < front else queue[_segment_slot(1, k - front, size)]


@numba.njit(cache=True)
def _two_thread_share(t, oip, oix, qa, qb, nf, edges, words, marks, parents, positional, depths, depth, room,
                      mode, alpha, beta, rule_n, rule_state, max_frontier, max_edges, thin_edges, leave_below,
                      flat, seconds, last_tick, tick_seconds, patience, control):
    """Thread ``t``'s part of :func:`_two_thread_levels`: both threads take every level's checks
    from the same counts, so both stop at the same level. A level: each thread claims the
    unvisited out-neighbours of its half of the frontier, writing each one's mark tagged with
    itself (:data:`TAG_BASE`); at the barrier, a vertex both threads claimed holds the tag of
    whichever store landed last. Each thread then keeps the finds whose tag is its own and
    writes their mark's value; a second barrier, and the level's figures are the sum of the
    two. Each counts its progress (a frontier entry claimed from, a find looked at), and both
    leave the run after a level where either, at a barrier, saw the other's count stand still
    for its ``patience`` (:func:`spin.barrier`). The out-edges of a find are counted as it is
    claimed (the next level reads its row anyway), and taken off if the other thread's claim
    won. The visited bits are set as the run ends, from the marks of the span of vertices it
    found, half the words each (set as each vertex was kept, they took a seventh of a 1000 x
    1000 mesh's search)."""
    push, previous, unexplored = rule_state[0], rule_state[1], rule_state[2]
    size = qa.shape[0]
    cur, nxt = qa, qb
    front = nf                                  # the frontier: cur[:front], then back from cur's end
    ran, discovered, chosen, reason = 0, 0, -1, -1
    arrivals, tired, steps = 0, False, 0
    low, high = marks.shape[0], -1              # the span of this thread's finds
    mine, theirs = control[_figures_of(t):], control[_figures_of(1 - t):]
    while ran < room:
        if nf < leave_below or edges >= thin_edges or 2 * edges > size:
            break
        chosen, reason, push, previous, unexplored = _thin_level_checks(mode, alpha, beta, rule_n, push, previous,
                                                                        unexplored, nf, edges, max_edges)
        if chosen >= 0:
            break
        half = (nf + 1) >> 1
        d = depth + ran
        claimed, next_edges = 0, 0
        for k in range(t * half, min(nf, (t + 1) * half)):
            u = nonnegative(_frontier_entry(cur, k, front, size))
            steps += 1
            progress(mine, _PROGRESS, steps)
            e, end = nonnegative(oip[u]), oip[u + 1]
            while e < end:
                v = nonnegative(oix[e])
                e += 1
                if marks[v] >= 0:
                    continue
                if depths.shape[0]:          # (the marks are the depths, :func:`_marks`)
                    marks[v] = TAG_BASE + 2 * d + t
                    if positional:
                        parents[v] = u
                else:                        # (the marks are the parents)
                    marks[v] = TAG_BASE + 2 * u + t
                nxt[_segment_slot(t, claimed, size)] = v
                next_edges += oip[v + 1] - oip[v]
                claimed += 1
                low, high = min(low, v), max(high, v)
        arrivals += 2
        tired |= barrier(control, arrivals, patience, theirs, _PROGRESS)
        kept = 0
        for k in range(claimed):
            v = nonnegative(nxt[_segment_slot(t, k, size)])
            steps += 1
            progress(mine, _PROGRESS, steps)
            tagged = marks[v]
            # (the other thread may already have written its kept value, under TAG_BASE)
            if tagged < TAG_BASE or (tagged - TAG_BASE) & 1 != t:
                next_edges -= oip[v + 1] - oip[v]
                continue
            marks[v] = (tagged - TAG_BASE) >> 1
            nxt[_segment_slot(t, kept, size)] = v
            kept += 1
        mine[_KEPT], mine[_KEPT_EDGES], mine[_LOW], mine[_HIGH], mine[_TIRED] = kept, next_edges, low, high, tired
        arrivals += 2
        tired |= barrier(control, arrivals, patience, theirs, _PROGRESS)
        found = kept + theirs[_KEPT]
        if t == 0:
            last_tick = _level_record(flat, seconds, ran, nf, found, edges, 1, last_tick, tick_seconds)
        ran, discovered = ran + 1, discovered + found
        front = kept if t == 0 else theirs[_KEPT]
        nf, edges = found, next_edges + theirs[_KEPT_EDGES]
        cur, nxt = nxt, cur
        if nf == 0 or nf > max_frontier:
            reason = STOP_EMPTY if nf == 0 else STOP_TOO_BIG
            break
        if mine[_TIRED] or theirs[_TIRED]:      # (both read the same two flags)
            break
    if ran:
        _set_marked_bits(t, marks, words, min(mine[_LOW], theirs[_LOW]), max(mine[_HIGH], theirs[_HIGH]))
    if t == 0:
        result = control[_RESULT:]
        result[0], result[1], result[2], result[3], result[4] = ran, discovered, nf, edges, front
        result[5], result[6], result[7], result[8] = chosen, reason, last_tick, mine[_TIRED] or theirs[_TIRED]
        rule_state[0], rule_state[1], rule_state[2] = push, previous, unexplored


@numba.njit(cache=True, inline="always")
def _set_marked_bits(t, marks, words, low, high):
    """Thread ``t``'s half of the visited words over the vertices ``low..high``: a vertex's bit
    set where its mark is (>= 0)."""
    if high < low:
        return
    first, stop = low >> 5, (high >> 5) + 1
    half = (stop - first + 1) >> 1
    n = marks.shape[0]
    for w in range(first + t * half, min(stop, first + (t + 1) * half)):
        bits = np.uint32(0)
        for b in range(min(32, n - 32 * w)):
            if marks[32 * w + b] >= 0:
                bits |= np.uint32(1) << np.uint32(b)
        words[w] |= bits


@numba.njit(parallel=True, cache=True)
def _two_thread_run(oip, oix, qa, qb, nf, edges, words, marks, parents, positional, depths, depth, room, mode,
                    alpha, beta, rule_n, rule_state, max_frontier, max_edges, thin_edges, leave_below, flat, seconds,
                    last_tick, tick_seconds, patience, control):
    for t in prange(2):           # (each iteration a thread of its own: spin.two_threads_at_once)
        _two_thread_share(t, oip, oix, qa, qb, nf, edges, words, marks, parents, positional, depths, depth, room,
                          mode, alpha, beta, rule_n, rule_state, max_frontier, max_edges, thin_edges, leave_below,
                          flat, seconds, last_tick, tick_seconds, patience, control)


@numba.njit(cache=True)
def _two_thread_levels(oip, oix, qc, qn, nf, edges, words, marks, parents, positional, depths, depth, room, mode, alpha,
                       beta, rule_n, push, previous, unexplored, max_frontier, max_edges, thin_edges, leave_below,
                       flat, seconds, last_tick, tick_seconds):
    """Push levels of a marked search (:data:`MARKED_CACHE_SHARE`), the frontier ``qc[:nf]``,
    each shared by two threads (:func:`_two_thread_share`) while it has at least
    ``leave_below`` vertices and fewer than ``thin_edges`` out-edges: a 1000 x 1000 mesh's
    levels are a thousand vertices, each found one a store that misses, and the two cores'
    misses overlap. The levels' records and seconds go to ``flat`` and ``seconds`` from their
    first rows, as :func:`_thin_levels`' do. What a thread finds goes to its own end of the
    other queue, so the last frontier is made one run of ``qc`` or ``qn`` as the run ends. Returns
    (levels run, the vertices found, the frontier's size and out-edges, whether it is in ``qn``,
    the direction the rule chose for a level not run (-1: none), the stop reason or -1, the
    last tick, the rule's state, and whether a thread waited out its patience at a barrier:
    :data:`spin.PATIENCE_SECONDS`)."""
    control = np.zeros(_CONTROL_SLOTS, np.int64)
    patience = np.int64(PATIENCE_SECONDS / tick_seconds)
    rule_state = np.array([push, previous, unexplored], np.int64)
    _two_thread_run(oip, oix, qc, qn, nf, edges, words, marks, parents, positional, depths, depth, room, mode,
                    alpha, beta, rule_n, rule_state, max_frontier, max_edges, thin_edges, leave_below, flat, seconds,
                    last_tick, tick_seconds, patience, control)
    result = control[_RESULT:]
    ran, discovered, nf, edges, front = result[0], result[1], result[2], result[3], result[4]
    queue = qn if ran & 1 else qc
    size = queue.shape[0]
    for k in range(front, nf):              # thread 1's segment after thread 0's
        queue[k] = _frontier_entry(queue, k, front, size)
    return (ran, discovered, nf, edges, ran & 1, result[5], result[6], result[7], rule_state[0], rule_state[1],
            rule_state[2], result[8] != 0)


@numba.njit(cache=True)
def _wide_level(push, oip, oix, iip, iix, qc, nf, edges, qn, sources, bits, bits_of, words, no_inputs, parents,
                positional, depth_words, depths, depth, threads):
    """One level of a frontier of THIN_EDGES out-edges or more, or a pull: returns (found,
    examined, their out-edges, the bitmap holding the new frontier: 0, 1 or -1 none). A push
    of PARALLEL_EDGES edges or more takes its frontier from a bitmap, in increasing order."""
    if push and edges < PARALLEL_EDGES:
        if edges <= qn.shape[0]:             # room to list a neighbour an edge
            found, next_edges = _push_listing(oip, oix, qc, nf, qn, sources, words, parents, positional,
                                              depth_words, depths, depth)
        else:
            found, next_edges = _push_branching(oip, oix, qc, nf, qn, words, parents, positional, depth_words,
                                                depths, depth, depths[:0])
        return found, edges, next_edges, -1
    if bits_of < 0:                          # the frontier came from a thin push: its bitmap
        bits_of = 0
        bits[0, :] = 0
        for k in range(nf):
            v = qc[k]
            bits[0, v >> 5] |= np.uint32(1) << np.uint32(v & 31)
    if push:
        found = _claim(oip, oix, bits[bits_of], qn, sources, bits[1 - bits_of], words, depth_words)
        next_edges = _write_found(found, qn, sources, oip, parents, positional, depths, depth, threads)
        return found, edges, next_edges, 1 - bits_of
    found, examined, next_edges = _pull_level(iip, iix, oip, bits[bits_of], bits[1 - bits_of], words, no_inputs,
                                              parents, positional, depth_words, depths, depth, qn, threads)
    return found, examined, next_edges, 1 - bits_of


@numba.njit(cache=True, inline="always")
def _same_words(a, b):
    if a.shape[0] != b.shape[0]:
        return False
    for k in range(a.shape[0]):
        if a[k] != b[k]:
            return False
    return True


@numba.njit(cache=True)
def _start_at(source, words, parents, positional, depth_words, depths, first_depth):
    """A search's start at ``source``, as the CUDA kernel makes it: the visited bits (and the
    depths' bits, where kept) cleared but for the source's; its value (its id, or True) and its
    depth, ``first_depth - 1``, written as a level writes what it finds."""
    bit = np.uint32(1) << np.uint32(source & 31)
    words[:] = 0
    words[source >> 5] = bit
    if depth_words.shape[0]:
        depth_words[:] = 0
        depth_words[source >> 5] = bit
    _found(source, source, parents, positional, depths, first_depth - 1)


@numba.njit(cache=True, inline="always")
def _record_room(max_levels, nwords):
    """The rows a run's records may need: a level a row, and every level but an emptying last
    one sets a bit of the ``nwords`` visited words (pages untouched cost nothing; growing by
    copies was a sixth of a path's search)."""
    return max(0, min(max_levels, nwords * 32 + 1))


@numba.njit(cache=True)
def _search(oip, oix, iip, iix, no_inputs, words, parents, positional, depth_words, depths, first_depth, frontier,
            source, qa, qb, sources, bits, spans, mode, alpha, beta, rule_n, state, max_frontier, max_edges, max_levels,
            target, threads, tick_seconds, thin_edges, marks, two_from, each_level=False):
    """The run: levels until the frontier empties, holds ``target`` (-1: none) or exceeds
    ``max_frontier``, a push level would expand more than ``max_edges`` edges (not run), or
    ``max_levels`` levels ran. It starts from ``frontier``, or, with ``source`` >= 0, makes the
    search's start at that vertex first (:func:`_start_at`; ``frontier`` is not read).
    ``qa``, ``qb``, ``sources`` (int32, :func:`fused_workspace`'s slots) and ``bits``
    (2, words) uint32 are the frontier's buffers, ``spans`` (a row a level at least: none
    written with ``each_level``) the one-vertex levels' spans'; ``no_inputs`` has the bits of the rows without
    in-edges, which no pull level reads; ``state`` is the rule's (updated); push levels of
    fewer than ``thin_edges`` out-edges run in :func:`_thin_levels`' loop. Returns (records
    (levels, 4): frontier, discovered, examined, push; each level's seconds (its clock ticks
    times ``tick_seconds``); the spans of one-vertex levels whose rows were not written (first
    level, levels, out-edges; none with ``each_level``: :class:`_RunRecords` makes their rows);
    the vertices they found; the queue holding the last frontier (0: ``qa``, 1: ``qb``), its
    size, its out-edges, why it stopped). ``depth_words`` (the depths'
    bits, none when empty) that start equal to ``words`` (ld.bfs's) are copied from them at the
    end instead of set vertex by vertex. ``each_level``: no run of one-vertex levels is timed
    as a run (:func:`_single_levels`). ``marks`` (empty: none), the depths or the parents
    array, are set to -1 before a start at ``source`` and then tested instead of the visited
    bits in the thin levels (:data:`MARKED_CACHE_SHARE`); without a source they are not
    read."""
    capacity = _record_room(max_levels, words.shape[0])
    records, seconds = np.empty((capacity, 4), np.int64), np.empty(capacity, np.float64)
    level, spanned, discovered, in_b, nf, edges, reason = _search_into(
        records, seconds, oip, oix, iip, iix, no_inputs, words, parents, positional, depth_words, depths, first_depth,
        frontier, source, qa, qb, sources, bits, spans, mode, alpha, beta, rule_n, state, max_frontier, max_edges,
        max_levels, target, threads, tick_seconds, thin_edges, each_level, marks, two_from)
    kept_spans = spans[:spanned].copy()
    if 2 * level < capacity:                  # most of the room unused: only what was (its pages go back)
        return records[:level].copy(), seconds[:level].copy(), kept_spans, discovered, in_b, nf, edges, reason
    return records[:level], seconds[:level], kept_spans, discovered, in_b, nf, edges, reason


@numba.njit(cache=True)
def _search_into(records, seconds, oip, oix, iip, iix, no_inputs, words, parents, positional, depth_words, depths,
                 first_depth, frontier, source, qa, qb, sources, bits, spans, mode, alpha, beta, rule_n, state,
                 max_frontier, max_edges, max_levels, target, threads, tick_seconds, thin_edges, each_level, marks,
                 two_from):
    """:func:`_search`'s levels, their records written to ``records`` and ``seconds`` (room for
    :func:`_record_room` rows, read as far as the levels returned; a caller running searches
    one after another passes the same buffers each time: their pages mapped once). Returns
    (levels, spans put in ``spans``, the vertices found, the queue holding the last frontier,
    its size, its out-edges, why it stopped)."""
    true_later = source >= 0 and not positional      # (a start's values: all of them this run's)
    if source < 0:
        marks = marks[:0]
    for k in range(marks.shape[0]):
        marks[k] = -1
    if source >= 0:
        _start_at(source, words, parents, positional, depth_words, depths, first_depth)
        qa[0] = source
        nf, edges = 1, oip[source + 1] - oip[source]
    else:
        nf, edges = frontier.shape[0], np.int64(0)
        for k in range(nf):
            u = frontier[k]
            qa[k] = u
            edges += oip[u + 1] - oip[u]
    copy_bits = depth_words.shape[0] > 0 and _same_words(depth_words, words)
    level_bits = depth_words[:0] if copy_bits else depth_words
    qc, qn, in_b = qa, qb, 0
    flat = records.reshape(records.size)      # (a row's 4 slots at 4 * level: :func:`_level_record`)
    spanned = 0
    level, discovered = 0, 0
    bits_of = -1                              # the bitmap (0 or 1) holding the frontier, -1: none
    target_before = target >= 0 and (words[target >> 5] >> np.uint32(target & 31)) & np.uint32(1) != 0
    reason = STOP_LEVELS
    chosen = -1                               # the rule's choice for this level when already asked
    last_tick = _read_clock()
    while level < max_levels:
        if nf == 0:
            reason = STOP_EMPTY
            break
        if chosen < 0 and edges < thin_edges:
            ran, found, nf, edges, swapped, chosen, stop, last_tick, added = _thin_levels(
                oip, oix, qc, qn, sources, nf, edges, words, parents, positional, level_bits, depths,
                first_depth + level, max_levels - level, mode, alpha, beta, rule_n, state, max_frontier, max_edges,
                target, target_before, records[level:], seconds[level:], spans[spanned:], level, last_tick,
                tick_seconds, thin_edges, each_level, threads, marks, true_later, two_from)
            level, discovered, spanned = level + ran, discovered + found, spanned + added
            if ran:
                bits_of = -1
            if swapped:
                qc, qn, in_b = qn, qc, 1 - in_b
            if stop >= 0:
                reason = stop
                break
            continue
        push = _choose(mode, alpha, beta, rule_n, state, nf, edges) if chosen < 0 else chosen == 1
        chosen = -1
        if push and edges > max_edges:        # the caller expands it
            reason = STOP_TOO_BIG
            break
        found, examined, next_edges, bits_of = _wide_level(push, oip, oix, iip, iix, qc, nf, edges, qn, sources, bits,
                                                           bits_of, words, no_inputs, parents, positional,
                                                           level_bits, depths, first_depth + level, threads)
        last_tick = _level_record(flat, seconds, level, nf, found, examined, 1 if push else 0, last_tick,
                                  tick_seconds)
        level, discovered = level + 1, discovered + found
        qc, qn, in_b = qn, qc, 1 - in_b
        nf, edges = found, next_edges
        if nf == 0:
            reason = STOP_EMPTY
            break
        if _holds_target(words, target, target_before):
            reason = STOP_TARGET
            break
        if nf > max_frontier:
            reason = STOP_TOO_BIG
            break
    if true_later:          # (left by marked claims and logs: every slot's, as the values past the
        for k in range(parents.shape[0]):      # visited are not read)
            parents[k] = True
    if copy_bits:            # element by element: a slice assignment compiles numba's shape-error
        for k in range(words.shape[0]):      # messages (string formatting), 8 of the 31 s of the compile
            depth_words[k] = words[k]
    return level, spanned, discovered, in_b, nf, edges, reason


# -- the host side ----------------------------------------------------------------------------
def run_slots(n):
    """(queue slots, visited words) of a run's buffers over an n-vertex block: at least one each."""
    return max(n, 1), max(-(-n // 32), 1)


def fused_workspace(n, nnz):
    """The run's buffers over an n-vertex block (kept by the caller, one per matrix): two
    frontier queues, the push's parents queue and two frontier bitmaps (the bitmap of the rows
    without in-edges is kept with the in-edges' block: :func:`empty_rows`)."""
    slots, nwords = run_slots(n)
    # the spans of one-vertex levels (:func:`_single_levels`), a row a level at most: kept, since a
    # search's own (2.4 MB for a 100,000-vertex path) cost its call 0.2 ms in mapping and unmapping
    return {"queues": (np.empty(slots, np.int32), np.empty(slots, np.int32)), "sources": np.empty(slots, np.int32),
            "bits": np.empty((2, nwords), np.uint32), "spans": np.empty((32 * nwords + 1, 3), np.int64)}


_NO_DEPTHS = np.zeros(0, np.int64)
_NO_WORDS = np.zeros(0, np.uint32)
_NO_IDS = np.zeros(0, np.int32)


def _compiled_depths(depth_words, depths):
    """The depths' bits and values as the compiled loops take them: empty arrays where no
    depths are kept (None)."""
    return (_NO_WORDS, _NO_DEPTHS) if depths is None else (depth_words, depths)


def _run(out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier, source, positional, mode, rule,
         state, max_frontier, max_edges, max_levels, target, space):
    """One call of :func:`_search`, from ``frontier`` or, with ``source`` >= 0, from the search's
    start at that vertex, which it makes."""
    records, seconds, spans, discovered, cur, count, edges, reason = _searched(
        _frame(out_csr, in_csr, space), _rule_constants(mode, rule), _tick_seconds(), words, parents, positional,
        depth_words, depths, first_depth, frontier, source, state, max_frontier, max_edges, max_levels, target)
    left = space["queues"][cur][:count].copy() if count else _NO_IDS
    return _run_records(records, seconds, discovered, spans), left, int(edges), int(reason)


def _searched(frame, constants, tick, words, parents, positional, depth_words, depths, first_depth, frontier, source,
              state, max_frontier, max_edges, max_levels, target):
    """:func:`_search` on a pair of blocks' :func:`_frame` under a rule's :func:`_rule_constants`
    (the one place its arguments are put in order), the marks as ``settings.marked_searches``
    says at this call (read from a start only)."""
    blocks, thin, marked, buffers = frame
    marks = _marks(depths, parents, positional) if marked_here(marked) else _NO_DEPTHS
    mode, alpha, beta, n = constants
    return _search(*blocks, words, parents, bool(positional), *_compiled_depths(depth_words, depths), int(first_depth),
                   frontier, int(source), *buffers, mode, alpha, beta, n, state, int(max_frontier), int(max_edges),
                   int(max_levels), int(target), numba.get_num_threads(), tick, thin, marks, _two_thread_from(marks))


def _rule_constants(mode, rule):
    """The direction rule's mode and parameters as the compiled search takes them: Python's int
    and float (numba's int64 and float64; numpy's scalars cost a call more)."""
    return int(mode), float(rule.alpha), float(rule.beta), float(rule.n)


def _tick_seconds():
    """:func:`seconds_per_tick` as the compiled search takes it (1.0 where there is no tick counter)."""
    return float(seconds_per_tick() or 1.0)


def _two_thread_from(marks):
    """The frontier from which a marked search's thin levels run on two threads
    (:data:`TWO_THREAD_FRONTIER`), 0 where they do not: an unmarked search, a graph of fewer than
    :data:`TWO_THREAD_VERTICES`, a single thread, or two threads that might not run at once
    (:func:`spin.two_threads_at_once`)."""
    if TWO_THREAD_FRONTIER is None or marks.shape[0] < TWO_THREAD_VERTICES or not two_threads_at_once():
        return 0
    return int(TWO_THREAD_FRONTIER)


def _marks(depths, parents, positional):
    """The values a marked search tests (:data:`MARKED_CACHE_SHARE`): its depths where it keeps
    them, else its parents, else none (a pair product's True marks nothing)."""
    if depths is not None:
        return depths
    return parents if positional else _NO_DEPTHS


def marked_here(by_policy) -> bool:
    """Whether a search from a source is marked, as ``settings.marked_searches`` says: "always",
    "never", or "auto" and ``by_policy`` (:func:`marked_values` of its block)."""
    value = settings.marked_searches
    if value == "auto":
        return by_policy
    if value not in MARKED_SEARCHES:
        raise ValueError(f"settings.marked_searches must be one of {', '.join(map(repr, MARKED_SEARCHES))}, "
                         f"got {value!r}")
    return value == "always"


def marked_values(csr) -> bool:
    """Whether a search from a source on the block ``csr`` tests values instead of bits: a thin
    graph (:func:`~lagraph_dist.local.engine.thin_graph`) whose arrays and two int64 values a
    vertex fit in :data:`MARKED_CACHE_SHARE` of the last-level cache (none where its size is
    unknown)."""
    cache = last_level_cache()
    if cache is None or not thin_graph(csr.nnz, csr.nmajor):
        return False
    return csr.indptr.nbytes + csr.indices.nbytes + 16 * csr.nmajor <= MARKED_CACHE_SHARE * cache


def _run_records(records, seconds, discovered, spans):
    """A run's records as :func:`_search` returned them: lazy rows where it kept spans."""
    if spans.shape[0] == 0:
        return FusedRecords(records, seconds, discovered)
    return _RunRecords(records, seconds, discovered, spans)


class SearchPlan:
    """:func:`bfs_fused`'s search from a source on one pair of blocks (push, pull) under one
    stock rule's mode and parameters, with what every such search shares worked out once: the
    blocks' and the workspace's arrays, the thin levels' out-edges, the marking policy's verdict
    on the block, the rule's constants and the clock's scale. A call,
    ``plan(source, rule, max_frontier, max_edges, max_levels, target)``, runs one search into
    outputs of ``length`` slots made there and returns (visited words, values (parents, or
    True), depth words and depths (None, None without depths), the levels' records, the STOP_*
    reason), ``rule``'s state updated: the whole of ``ld.bfs``'s search on one process (the
    engine boundary's SearchFromSource). A small graph's search then costs its compiled call
    and a few lines of Python: each layer of checks and objects a call passes through costs a
    microsecond hot and several when the call finds the caches cold (host-overhead.md)."""

    __slots__ = ("_frame", "_length", "_nwords", "_positional", "_depths", "_constants", "_tick")

    def __init__(self, out_csr, in_csr, length, *, positional, depths, rule, workspace):
        self._frame = _frame(out_csr, in_csr, workspace)
        self._length, self._nwords = length, length // 32
        self._positional, self._depths = bool(positional), bool(depths)
        self._constants, self._tick = _rule_constants(rule.code, rule), _tick_seconds()

    def __call__(self, source, rule, max_frontier, max_edges, max_levels, target):
        words = np.empty(self._nwords, np.uint32)
        values = np.empty(self._length, np.int64 if self._positional else np.bool_)
        depth_words, levels = ((np.empty(self._nwords, np.uint32), np.empty(self._length, np.int64)) if self._depths
                               else (None, None))
        state = np.array(rule.state(), np.int64)
        records, seconds, spans, discovered, _, _, _, reason = _searched(
            self._frame, self._constants, self._tick, words, values, self._positional, depth_words, levels, 1, _NO_IDS,
            source, state, max_frontier, max_edges, max_levels, target)
        rule.set_state(*state.tolist())
        return words, values, depth_words, levels, _run_records(records, seconds, discovered, spans), int(reason)


#: the engine boundary's ``SearchFromSource`` member: the plan of a pair of blocks, outputs and
#: stock rule (the caller keeps it, one a matrix and kind of search)
search_plan = SearchPlan


def _frame(out_csr, in_csr, space):
    """The arguments of :func:`_search` that the blocks and the workspace fix, worked out once a
    pair of blocks (push, pull) and kept in the workspace: (the blocks' arrays, the thin
    levels' out-edges, whether a search from a source tests values (:func:`marked_values`),
    the workspace's buffers)."""
    frames = space.setdefault("frames", {})
    kept = frames.get((id(out_csr), id(in_csr)))
    if kept is None:                 # (the blocks kept beside their frame: their ids stay theirs)
        blocks = (out_csr.indptr, out_csr.indices, in_csr.indptr, in_csr.indices, empty_rows(in_csr))
        buffers = (*space["queues"], space["sources"], space["bits"], space["spans"])
        frame = (blocks, thin_edges(out_csr), marked_values(out_csr), buffers)
        kept = frames[id(out_csr), id(in_csr)] = (frame, (out_csr, in_csr))
    return kept[0]


class _RunRecords(LazyRecords):
    """A run's records whose runs of one-vertex levels were kept as spans (first level, levels,
    out-edges: each of those levels found one vertex from one, pushing, timed with its run;
    :func:`_single_levels`): their rows are made in place when the records are first read."""

    __slots__ = ("_rows", "_seconds", "_spans")

    def __init__(self, rows, seconds, found, spans):
        self._rows, self._seconds, self._spans = rows, seconds, spans
        self.found, self._made = int(found), None

    def _made_now(self):
        for first, count, edges in self._spans.tolist():
            self._rows[first:first + count] = (1, 1, edges, 1)
            self._seconds[first:first + count] = RUN_TIMED
        return self._rows, self._seconds

    def __len__(self):
        return int(self._rows.shape[0])


def thin_edges(csr):
    """The out-edges under which a push level of the block ``csr`` runs in the thin levels'
    loop: :data:`LOCAL_THIN_EDGES` on a block numbered locally, else :data:`THIN_EDGES`
    (worked out once a block and kept with it)."""
    known = csr.derived.get("thin_edges")
    if known is None:
        known = csr.derived["thin_edges"] = LOCAL_THIN_EDGES if local_numbering(csr) else THIN_EDGES
    return known


def local_numbering(csr):
    """Whether the median |u - v| of a sample of the block's edges u -> v (a few runs of its
    entries, spread over them) is under n / :data:`LOCAL_SPREAD`."""
    runs, nnz = 8, csr.nnz
    if nnz == 0:
        return True
    width = max(1, min(nnz, LOCALITY_SAMPLE) // runs)
    spreads = []
    for start in np.linspace(0, nnz - width, runs).astype(np.int64):
        rows = csr.majors(np, int(start), int(start) + width)
        spreads.append(np.abs(rows - csr.indices[start:start + width].astype(np.int64)))
    return float(np.median(np.concatenate(spreads))) * LOCAL_SPREAD < csr.nmajor


def bfs_fused(out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier_ids, positional,
              rule, max_frontier, max_edges, max_levels, target, workspace=None, source=None, while_running=None):
    """Levels of the composite ``levels.repeat_masked_vxm`` run without leaving the backend, push or
    pull as ``rule`` (a :class:`lagraph_dist.core.direction.DirectionRule`, updated) chooses: each
    level claims the unvisited out-neighbours of the frontier (push, through ``out_csr``) or the
    unvisited vertices with an in-neighbour in it (pull, through ``in_csr``) in ``words`` (in
    place), writes their parent (``positional``) or True into ``parents`` and the depth into
    ``depths`` (and their bits into ``depth_words``) when depths are kept: a search asking for
    levels only writes no parent (a pair product's True, one byte), one asking for parents
    only no depth; the depths' bits, when they start equal to the visited bits, are copied
    once at the end.

    Returns (records: (frontier, discovered, examined, push, seconds) per level, frontier ids,
    frontier out-edges, why it stopped). A level's seconds come from the core's tick counter,
    read as the level before it and as it ends (:data:`FUSED_LEVEL_CLOCK`). It stops after the level that empties the
    frontier, reaches ``target`` (-1: none) or makes the frontier exceed ``max_frontier``
    vertices, or after ``max_levels`` levels; a push frontier of more than ``max_edges``
    out-edges is not expanded (it may be the first: then no level runs). Pull levels count the
    in-edges read up to each row's first frontier in-neighbour. A push level's parent of a
    vertex is its first frontier in-neighbour in the frontier's order (a push frontier is in
    the order its vertices were claimed, a pull's in increasing order), a pull level's its
    first in the row's. With ``frontier_ids`` None the search starts at vertex ``source``:
    visited and depths are first cleared but for it. ``while_running`` (the GPU's work done
    while its kernel runs) is not called: this run has no device to wait for.
    """
    space = workspace if workspace is not None else fused_workspace(out_csr.nmajor, out_csr.nnz)
    if rule.replaced:
        if frontier_ids is None:             # the start first, as the compiled run makes it
            _start_at(source, words, parents, bool(positional), *_compiled_depths(depth_words, depths),
                      int(first_depth))
            frontier_ids = np.array([source], np.int32)
        return _asking_each_level(out_csr, in_csr, words, parents, depth_words, depths, first_depth,
                                  np.ascontiguousarray(frontier_ids, dtype=np.int32), positional, rule, max_frontier,
                                  max_edges, max_levels, target, space)
    frontier, start = (_NO_IDS, source) if frontier_ids is None else (
        np.ascontiguousarray(frontier_ids, dtype=np.int32), -1)
    state = np.array(rule.state(), np.int64)
    out = _run(out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier, start, positional,
               rule.code, rule, state, max_frontier, max_edges, max_levels, target, space)
    rule.set_state(*state.tolist())
    return out


def _asking_each_level(out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier, positional,
                       rule, max_frontier, max_edges, max_levels, target, space):
    """The run with a rule whose ``choose`` is its own (a subclass, a test's patch): one
    compiled level at a time, in the direction the rule gives."""
    runs, reason = [], STOP_LEVELS
    edges = int((out_csr.indptr[frontier.astype(np.int64) + 1] - out_csr.indptr[frontier]).sum())
    state = np.zeros(3, np.int64)
    for _ in range(max_levels):
        if frontier.shape[0] == 0:
            reason = STOP_EMPTY
            break
        mode = RULE_PUSH if rule.choose(frontier.shape[0], edges) else RULE_PULL
        records, frontier, edges, reason = _run(out_csr, in_csr, words, parents, depth_words, depths,
                                                first_depth + len(runs), frontier, -1, positional, mode, rule, state,
                                                max_frontier, max_edges, 1, target, space)
        if len(records):
            runs.append(records)
        if reason != STOP_LEVELS:
            break
    return FusedRecords.joined(runs), frontier, edges, reason


def compile_kernels():
    """Compile (or load from numba's disk cache) the loops above on a tiny graph, for both kinds
    of parents, so that no search pays for it: the CPU backend calls this once, when it is first
    made."""
    indptr, indices = np.ones(33, dtype=np.int64), np.array([1], dtype=np.int32)     # 0 -> 1 of 32 vertices
    indptr[0] = 0
    for parents in (np.zeros(32, np.int64), np.zeros(32, np.bool_)):
        for depths in (None, np.zeros(32, np.int64)):
            for mode in (RULE_PUSH, RULE_PULL):
                words = np.ones(1, np.uint32)
                csr = LocalCSR(indptr, indices, 32)
                _run(csr, csr, words, parents, np.ones(1, np.uint32), depths, 1, _NO_IDS, 0,
                     parents.dtype != np.bool_, mode, DirectionRule("auto", 2, 1), np.array([1, 0, 1], np.int64), 32,
                     1, 4, -1, fused_workspace(32, 1))
    start_threads(np.zeros(2, np.int64))
    seconds_per_tick()


#: a run goes on to the end, whatever its levels (its records grow as it goes; ops reads this:
#: the CUDA kernel's runs end at its report's size)
bfs_fused.max_levels = None
#: a replaced DirectionRule.choose is asked level by level (the layer above fuses such a search here)
bfs_fused.asks_replaced_rule = True
