"""The host's one-pass queue search: a small graph's whole search from a source in one compiled
loop and a few Python steps (the CPU set's optional ``queue_plan``; no CUDA twin: a GPU
backend's small graph is searched on its host twin, ``algebra/host_engine.py``).

A search of a graph of a few thousand edges costs less than the Python around it: the fused
search's call passes through some 70 functions, and cold (its objects and code out of the
caches, as in a benchmark that checks each result between the calls) each costs a few
microseconds (docs/notes/host-overhead.md). This search is push only, in queue order, with
nothing of the fused search's plan: a depth array that is also the visited test, the queue, and
where each level ended in it. The outputs are made here, in the fused search's encodings (bitmap
words and values); the levels' records are worked out from the queue and the level ends only when
read (a batch's searches count theirs as they walk). Indices are read as unsigned, the queue's
positions and the edge offsets too: numba then drops the negative-index wraparound on every
lookup, a select on the loop's chain of dependent loads. Signed vertices cost a third of the
loop's time on a 100 x 100 mesh, and signed positions and offsets a further third on a 10,000
path.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from lagraph_dist.local import recycle
from lagraph_dist.local.engine import RUN_TIMED, LazyRecords
from lagraph_dist.local.parts import LocalCSR

__all__ = ["QueuePlan", "queue_plan", "queue_walk", "add_level", "add_level_counts", "warm_up"]


@njit(cache=True, nogil=True, inline="always")
def add_level(row, frontier, found, examined):
    """A pushed level's record added to ``row``: its frontier, the vertices it found, the
    out-edges it examined, and one push (the one place of those columns for a queue search)."""
    row[0] += frontier
    row[1] += found
    row[2] += examined
    row[3] += 1


@njit(cache=True, nogil=True, inline="always")    # (inlined: as a call, a 10,000 path's search took 15% longer)
def queue_walk(indptr, indices, source, target, max_levels, depths, parents, positional, queue, ends, counts,
               counted):
    """Levels from ``source`` in queue order until one finds nothing, reaches ``target`` (-1:
    none) or ``max_levels`` have run; ``depths`` (-1 unreached, set here) is the visited test,
    ``parents`` written for the vertices reached when ``positional``. The levels' records go to
    one of two places, the other None (numba then compiles no trace of it): a single search's
    ``ends``, ``ends[k]`` the queue's length after level k (``ends[0]`` = 1: the source), so that
    level k's frontier is ``queue[ends[k - 2]:ends[k - 1]]`` (from 0 for the first) and its
    records are worked out of the queue when read (:func:`add_level_counts`); or a batch's
    ``counts``, level k's record added to row k - 1 as the level ends (:func:`add_level`; as many
    rows as levels may run; as an empty array instead of None it cost a single search's loop 2-3%
    on a path), the rows from ``counted`` on cleared as first reached: a recycled table holds
    records only where earlier walks wrote them. Returns (vertices reached, levels run)."""
    for v in range(depths.shape[0]):
        depths[v] = -1
    depths[source] = 0
    if positional:
        parents[source] = source
    queue[0] = source
    if ends is not None:
        ends[0] = 1
    one = np.uint64(1)
    head, tail, level = np.uint64(0), one, 0
    while head < tail and level < max_levels:
        level_start, level_end = head, tail
        level += 1
        examined = np.uint64(0)
        while head < level_end:
            u = np.uint64(queue[head])
            head += one
            edge, stop = np.uint64(indptr[u]), np.uint64(indptr[u + one])
            examined += stop - edge
            while edge < stop:
                v = np.uint64(indices[edge])
                edge += one
                if depths[v] < 0:
                    depths[v] = level
                    if positional:
                        parents[v] = u
                    queue[tail] = v
                    tail += one
        if ends is not None:
            ends[level] = tail
        if counts is not None:
            if level > counted:
                counts[level - 1] = 0
            add_level(counts[level - 1], np.int64(level_end - level_start), np.int64(tail - level_end),
                      np.int64(examined))
        if target >= 0 and depths[target] >= 0:
            break
    return np.int64(tail), level


@njit(cache=True, nogil=True)
def _queue_levels(indptr, indices, source, target, max_levels, depths, parents, positional, queue, ends, words, n):
    """:func:`queue_walk` (counting nothing), then ``words`` the reached vertices' bits and,
    without ``positional``, ``parents`` True for each of them. Where the walk reached all ``n``
    vertices of the graph (a connected graph's usual end; the rows past them are the block's
    padding) they are the first n, set in one sweep of the words instead of a bit a vertex of the
    queue: 5-12% of a connected small graph's search. Returns (vertices reached, levels run)."""
    tail, level = queue_walk(indptr, indices, source, target, max_levels, depths, parents, positional, queue, ends,
                             None, 0)
    if tail == n:
        _first_bits(words, tail)
        if not positional:
            parents[:tail] = True
        return tail, level
    for w in range(words.shape[0]):
        words[w] = 0
    for k in range(tail):
        v = np.uint64(queue[k])
        words[v >> np.uint64(5)] |= np.uint32(1) << np.uint32(v & np.uint64(31))
        if not positional:
            parents[v] = True
    return tail, level


@njit(cache=True, nogil=True, inline="always")
def _first_bits(words, count):
    """``words`` the bitmap of the first ``count`` ids: those bits set, the rest clear."""
    whole = count >> 5
    for w in range(whole):
        words[w] = np.uint32(0xFFFFFFFF)
    for w in range(whole, words.shape[0]):
        words[w] = 0
    if count & 31:
        words[whole] = (np.uint32(1) << np.uint32(count & 31)) - np.uint32(1)


@njit(cache=True, nogil=True)
def add_level_counts(counts, indptr, queue, ends, levels):
    """A queue search's first ``levels`` levels added to ``counts``' rows (:func:`add_level`),
    worked out after the search: level d + 1 expanded ``queue[ends[d - 1]:ends[d]]`` (from 0 for
    the first), read those vertices' out-edges, found up to ``ends[d + 1]`` and pushed. A single
    search's records, made when read."""
    start = 0
    for d in range(levels):
        stop, examined = ends[d], 0
        for i in range(start, stop):
            u = queue[i]
            examined += indptr[u + 1] - indptr[u]
        add_level(counts[d], stop - start, ends[d + 1] - stop, examined)
        start = stop


class QueueRecords(LazyRecords):
    """A queue search's level records (frontier, discovered, examined, push, seconds), made from
    the queue and the level ends when first read: every level pushed, the levels timed as one run
    (the host's clock around the compiled call: :data:`RUN_TIMED` in every slot but the last)."""

    __slots__ = ("_indptr", "_queue", "_ends", "_levels", "_run_seconds")

    def __init__(self, indptr, queue, ends, levels, found, run_seconds):
        self._indptr, self._queue, self._ends, self._levels = indptr, queue, ends, levels
        self._run_seconds, self.found, self._made = run_seconds, found, None

    def _made_now(self):
        levels = self._levels
        counts = np.zeros((levels, 4), np.int64)
        add_level_counts(counts, self._indptr, self._queue, self._ends, levels)
        seconds = np.full(levels, RUN_TIMED)
        if levels:
            seconds[-1] = self._run_seconds
        return counts, seconds

    def __len__(self):
        return self._levels


class QueuePlan:
    """The searches from a source along ``out_csr``'s rows (push, queue order; ``n`` the graph's
    vertices, the rows past them padding) into outputs of ``length`` slots: what does not change
    from one search to the next worked out once (the arrays' sizes and how they are made), so
    that a small graph's search is its allocations, its compiled call and its records. Made by
    :func:`queue_plan`; the caller keeps it for the block's life."""

    __slots__ = ("_indptr", "_indices", "_length", "_rows", "_n", "_empty")

    def __init__(self, out_csr, length, n):
        self._indptr, self._indices, self._length, self._n = out_csr.indptr, out_csr.indices, length, n
        self._rows = max(out_csr.nmajor, 1)
        self._empty = recycle.maker(8 * (max(length, self._rows) + 1))    # (fresh, a 100,000 path's four
                                                                          # arrays faulted 1.1 ms a call)

    def search(self, source, positional, depths, max_levels, target):
        """The search from ``source``: (visited words, values (int64 parents, or bool True), depth
        words and int64 depths (None, None without ``depths``), the levels' :class:`QueueRecords`,
        the vertices reached). It stops after the level that finds nothing, reaches ``target``
        (-1: none) or is the ``max_levels``-th. A parent is the vertex's first in-neighbour in
        queue order."""
        empty, length, rows = self._empty, self._length, self._rows
        levels = empty((length,), np.int64)
        values = empty((length,), np.int64 if positional else np.bool_)
        queue = empty((rows,), np.int64)
        ends = empty((min(max_levels, rows) + 1,), np.int64)
        words = np.empty(length // 32, np.uint32)
        started = time.perf_counter()
        found, levels_run = _queue_levels(self._indptr, self._indices, source, target, max_levels, levels, values,
                                          positional, queue, ends, words, self._n)
        run_seconds = time.perf_counter() - started     # (the levels, timed as one run; and the bits)
        records = QueueRecords(self._indptr, queue, ends, levels_run, found - 1, run_seconds)
        if not depths:
            return words, values, None, None, records, found
        return words, values, words.copy(), levels, records, found


#: the CPU set's optional member ``queue_plan(out_csr, length, n)``: the plan class itself
queue_plan = QueuePlan


def warm_up():
    """Compile (or load) the loops for both kinds of values, and the records' count, on a
    3-vertex path."""
    csr = LocalCSR(np.array([0, 1, 2, 2], np.int64), np.array([1, 2], np.int32), 3)
    plan = QueuePlan(csr, 32, 3)
    for positional in (True, False):
        records = plan.search(0, positional, True, 3, -1)[4]
    _ = records.counts       # (made when read: this compiles add_level_counts)
