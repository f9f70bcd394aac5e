"""Brandes's dependencies of a batch of searches from their levels, in one compiled call: the
sweeps of betweenness centrality over all the batch's searches at once.

Given the (rows, k) levels of k searches (a fused ``bfs_multi`` block: -1 where a search did
not reach a vertex), search i's shortest-path DAG is the edges u -> v with
``level[v, i] == level[u, i] + 1``. Taken 64 searches at a time (one uint64 word a vertex),
each vertex's searches at depth d form a mask, bit i for search i; the DAG's edges into v at
depth d for all 64 searches are then ``mask_d[v] & mask_{d-1}[u]`` over v's in-neighbours u,
one AND an edge, and only the bits it leaves cost a float operation. Forward, depth by depth,
each vertex of depth d sums its DAG predecessors' path counts (sigma, 1 at the source);
backward, depth by depth from the deepest, each vertex u of depth d takes
``sigma[u] / sigma[v] * (1 + delta[v])`` from its DAG successors v (Brandes 2001): once a
depth's deltas are final they are summed and replaced by ``(1 + delta) / sigma``, so that an
edge's bit reads one value and u multiplies by its own sigma once (half the Kronecker 18
batch's time went to the three scattered reads an edge's bit made before). The
dependencies summed over the searches, each search's source left out (its own delta is not
counted), are what ``networkx.betweenness_centrality`` adds up before its scaling.

The masks of a depth are made from a list of the (vertex, search) entries bucketed by depth
(a counting sort of the levels, once a word of searches), so that a depth costs its own
entries and edges, not n: a mesh's thousands of depths stay cheap. Each depth's vertices are
cut into chunks over the threads; a vertex writes only its own row (pull forward over
in-edges, push backward over out-edges from the vertex itself), so no writes race, and the
sums do not depend on the number of threads.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import prange

from numba.cpython.unsafe.numbers import trailing_zeros     # (LLVM's cttz, 64 bits)

from lagraph_dist.local import recycle
from lagraph_dist.local.cpu_kernels.common import nonnegative
from lagraph_dist.local.parts import LocalCSR

__all__ = ["path_dependencies", "warm_up", "DEPENDENCIES_BATCH"]

#: the searches a batch of betweenness gives one call: one word (the sweeps take a word at a
#: time, and a word's path counts and dependencies, 2 x 64 float64 a vertex, stay in cache
#: longer than a wider batch's levels would)
DEPENDENCIES_BATCH = 64

#: a depth of fewer vertices than this runs on one thread (a thread's start costs more)
PARALLEL_VERTICES = 2048
_ONE = np.uint64(1)


@numba.njit(cache=True)
def _bucket_by_depth(levels, n, first, width, deepest):
    """(starts, entries): the entries (v * 64 + i) of searches first .. first + width - 1,
    grouped by depth: depth d's are entries[starts[d]:starts[d + 1]], by increasing v."""
    counts = np.zeros(deepest + 2, np.int64)
    for v in range(n):
        for i in range(width):
            d = levels[v, first + i]
            if d >= 0:
                counts[d + 1] += 1
    starts = np.cumsum(counts)
    fill = starts[:-1].copy()
    entries = np.empty(starts[-1], np.int64)
    for v in range(n):
        for i in range(width):
            d = levels[v, first + i]
            if d >= 0:
                entries[fill[d]] = v * 64 + i
                fill[d] += 1
    return starts, entries


@numba.njit(cache=True)
def _masks_of_depth(entries, start, stop, masks, vertices):
    """Set masks[v] for depth's entries[start:stop] and list its vertices (increasing) in
    ``vertices``; returns how many."""
    count = 0
    for e in range(start, stop):
        v = entries[e] >> 6
        if masks[v] == 0:
            vertices[count] = v
            count += 1
        masks[v] |= _ONE << np.uint64(entries[e] & 63)
    return count


@numba.njit(cache=True, inline="always")
def _chunks(threads, count):
    """The chunks a depth's ``count`` vertices are cut into: one a thread, or one when the depth
    is too small to pay for the threads' start."""
    return 1 if threads < 2 or count < PARALLEL_VERTICES else threads


@numba.njit(cache=True)
def _edges_of(indptr, vertices, count):
    """The edges the listed vertices' rows hold (what a sweep's depth reads)."""
    total = 0
    for j in range(count):
        total += indptr[vertices[j] + 1] - indptr[vertices[j]]
    return total


@numba.njit(cache=True)
def _clear(masks, vertices, count):
    for j in range(count):
        masks[vertices[j]] = 0


@numba.njit(cache=True, inline="always")
def _forward_vertex(v, ip, ix, here, before, sigma):
    common_all = here[v]
    for e in range(ip[v], ip[v + 1]):
        u = nonnegative(ix[e])
        common = common_all & before[u]
        while common:
            i = np.int64(trailing_zeros(common))
            sigma[v, i] += sigma[u, i]
            common &= common - _ONE


@numba.njit(cache=True, inline="always")
def _backward_vertex(u, op, ox, here, after, sigma, delta):
    """delta[u, i] = sigma[u, i] * the sum of (1 + delta[v, i]) / sigma[v, i] over u's DAG
    successors v, for u's bits ``here``: the successors' deltas are already those quotients
    (_settle_depth), so an edge's bit reads one value."""
    mine = here[u]
    for e in range(op[u], op[u + 1]):
        v = nonnegative(ox[e])
        common = mine & after[v]
        while common:
            i = np.int64(trailing_zeros(common))
            delta[u, i] += delta[v, i]
            common &= common - _ONE
    while mine:
        i = np.int64(trailing_zeros(mine))
        delta[u, i] *= sigma[u, i]
        mine &= mine - _ONE


@numba.njit(cache=True)
def _settle_depth(entries, start, stop, sigma, delta, totals, reached, first, endpoints):
    """A depth's dependencies are final: add them to the totals (with ``endpoints``, one more
    each) and count the searches' vertices, then turn each into the quotient its DAG
    predecessors take, (1 + delta) / sigma."""
    for e in range(start, stop):
        v, i = entries[e] >> 6, entries[e] & 63
        totals[v] += delta[v, i] + (1.0 if endpoints else 0.0)
        reached[first + i] += 1
        delta[v, i] = (1.0 + delta[v, i]) / sigma[v, i]


@numba.njit(cache=True, parallel=True)
def _forward_parallel(vertices, count, ip, ix, here, before, sigma, nchunks):
    for c in prange(nchunks):
        for j in range(c * count // nchunks, (c + 1) * count // nchunks):
            _forward_vertex(vertices[j], ip, ix, here, before, sigma)


@numba.njit(cache=True, parallel=True)
def _backward_parallel(vertices, count, op, ox, here, after, sigma, delta, nchunks):
    for c in prange(nchunks):
        for j in range(c * count // nchunks, (c + 1) * count // nchunks):
            _backward_vertex(vertices[j], op, ox, here, after, sigma, delta)


@numba.njit(cache=True)
def _word_of_searches(op, ox, ip, ix, levels, n, first, width, deepest, threads, totals, reached, endpoints,
                      examined, space):
    """The dependencies of searches first .. first + width - 1 (at most 64) added to totals
    (with ``endpoints``, plus one for each vertex a search reached, and the source's reached
    count to the source); reached[first + i]: vertices search i reached besides its source;
    examined[0]: the edges both sweeps read. ``space``: :func:`_sweep_space`'s buffers."""
    starts, entries = _bucket_by_depth(levels, n, first, width, deepest)
    sigma, delta, here, other, vertices, neighbours = space
    sigma[:] = 0.0
    delta[:] = 0.0
    here[:] = 0
    other[:] = 0
    for e in range(starts[0], starts[1]):               # the sources, depth 0
        sigma[entries[e] >> 6, entries[e] & 63] = 1.0
    # forward: depth d's path counts from depth d - 1's
    count_before = _masks_of_depth(entries, starts[0], starts[1], other, neighbours)
    for d in range(1, deepest + 1):
        count = _masks_of_depth(entries, starts[d], starts[d + 1], here, vertices)
        examined[0] += _edges_of(ip, vertices, count)
        chunks = _chunks(threads, count)
        if chunks == 1:
            for j in range(count):
                _forward_vertex(vertices[j], ip, ix, here, other, sigma)
        else:
            _forward_parallel(vertices, count, ip, ix, here, other, sigma, chunks)
        _clear(other, neighbours, count_before)
        here, other = other, here
        vertices, neighbours = neighbours, vertices
        count_before = count
    _clear(other, neighbours, count_before)
    # backward, from the deepest: depth d settles (its sums, its quotients), then depth d - 1's
    # dependencies come from them
    count_after = _masks_of_depth(entries, starts[deepest], starts[deepest + 1], other, neighbours)
    for d in range(deepest, 0, -1):
        _settle_depth(entries, starts[d], starts[d + 1], sigma, delta, totals, reached, first, endpoints)
        if d == 1:
            break
        count = _masks_of_depth(entries, starts[d - 1], starts[d], here, vertices)
        examined[0] += _edges_of(op, vertices, count)
        chunks = _chunks(threads, count)
        if chunks == 1:
            for j in range(count):
                _backward_vertex(vertices[j], op, ox, here, other, sigma, delta)
        else:
            _backward_parallel(vertices, count, op, ox, here, other, sigma, delta, chunks)
        _clear(other, neighbours, count_after)
        here, other = other, here
        vertices, neighbours = neighbours, vertices
        count_after = count
    _clear(other, neighbours, count_after)
    if endpoints:                                       # a source: the vertices its search reached
        for e in range(starts[0], starts[1]):
            totals[entries[e] >> 6] += reached[first + (entries[e] & 63)]


def path_dependencies(out_csr, in_csr, levels, *, endpoints):
    """(dependencies, reached, edges read) of the searches whose (rows, k) int32 ``levels`` are given (-1
    where unreached; rows past the graph's n ignored) over the graph whose row u of
    ``out_csr`` lists u's out-neighbours and row v of ``in_csr`` v's in-neighbours:
    ``dependencies`` (n,) float64, each vertex's Brandes dependencies summed over the searches
    (its own search's, where it is a source, left out; with ``endpoints``, one more for each
    search that reached it and, for a source, the vertices its search reached);
    ``reached`` (k,) int64, the vertices each search reached besides its source; the edges
    both sweeps read (a depth's vertices' rows, once for all 64 searches of a word)."""
    n = out_csr.nmajor
    levels = np.ascontiguousarray(levels[:n])
    k = levels.shape[1]
    totals = np.zeros(n, np.float64)
    reached = np.zeros(k, np.int64)
    examined = np.zeros(1, np.int64)
    deepest = int(levels.max()) if levels.size else -1
    if deepest < 1:
        return totals, reached, 0
    threads, space = numba.get_num_threads(), _sweep_space(n)
    for first in range(0, k, 64):
        _word_of_searches(out_csr.indptr, out_csr.indices, in_csr.indptr, in_csr.indices, levels, n, first,
                          min(64, k - first), deepest, threads, totals, reached, bool(endpoints), examined, space)
    return totals, reached, int(examined[0])


def _sweep_space(n):
    """A word of searches' sweep buffers over ``n`` vertices: path counts and dependencies
    ((n, 64) float64), two depths' masks and their vertex lists. Recycled
    (:mod:`lagraph_dist.local.recycle`) and zeroed by each word: made zero in the compiled
    call, their fresh pages were a fifth of a 64-source batch at Kronecker 16 (16,000 faults
    on 2 cores)."""
    return (recycle.empty((n, 64), np.float64), recycle.empty((n, 64), np.float64), recycle.empty((n,), np.uint64),
            recycle.empty((n,), np.uint64), recycle.empty((n,), np.int64), recycle.empty((n,), np.int64))


def warm_up(csr):
    """Compile (or load) the sweeps on a directed ring (``csr``: u -> u + 1), one thread and
    chunked."""
    n = csr.nmajor
    back = LocalCSR(csr.indptr, ((np.arange(n) - 1) % n).astype(np.int32), n)     # its in-edges
    levels = np.full((n, 2), -1, np.int32)
    levels[:, 0] = levels[:, 1] = np.arange(n)                      # the ring's depths from vertex 0
    path_dependencies(csr, back, levels, endpoints=False)
    vertices = np.arange(n, dtype=np.int64)
    here, sigma = np.zeros(n, np.uint64), np.zeros((n, 64), np.float64)
    _forward_parallel(vertices, 0, csr.indptr, csr.indices, here, here, sigma, 2)
    _backward_parallel(vertices, 0, csr.indptr, csr.indices, here, here, sigma, sigma, 2)
