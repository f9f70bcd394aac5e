"""Twin of kernels/push.cu: the push SpMSpV, a compiled loop over the frontier's edges.

The frontier's edges are numbered in frontier then adjacency order, the order in which the
CUDA kernel's load-balanced search (Bisson et al. 2015, 3.4) numbers them. An output entry is
claimed by its first edge the mask allows: ``any`` keeps that edge's value (a BFS keeps the
first frontier vertex, in that order, as the parent); the other monoids combine every edge's
value into it. Wide frontiers are cut into chunks of equal edges, one a thread; each chunk
claims into bits of its own, then the chunks' claims are taken in chunk order, so the result
is the one-thread result whatever the threads.

``any`` has a claim loop of its own, the fused search's: one bitmap holds the outputs closed to
a claim (those the mask refuses, then those claimed), so an edge costs one bit read; a claim
is listed with the frontier slot of its edge, and the claims' bits and values are written
after. The other monoids read the mask and the output's bits and combine values as they go.
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import _claimed_list
from lagraph_dist.local.cpu_kernels.common import (PARALLEL_WORK, allowed, chunks_for, claim, closed_bits,
                                                   left_values, listed_output, map_args, mask_args, multiply,
                                                   nonnegative, optional_int64, reused_empty, semiring_codes)
from lagraph_dist.local.layout import ADD_ANY


@numba.njit(cache=True)
def _degree_scan(indptr, frontier):
    """The exclusive scan of the frontier's degrees, and their total."""
    scan = np.empty(frontier.shape[0], dtype=np.int64)
    total = 0
    for k in range(frontier.shape[0]):
        scan[k] = total
        total += indptr[frontier[k] + 1] - indptr[frontier[k]]
    return scan, total


# -- any: first claims ----------------------------------------------------------------------------
@numba.njit(cache=True)
def _first_claims(indptr, indices, frontier, scan, e0, e1, closed, claimed, slots):
    """Edges ``e0 .. e1`` of the frontier's edge order: each output whose bit in ``closed`` is
    clear is claimed by its first edge (its bit set), listed in ``claimed`` with the frontier
    slot of that edge in ``slots``. Returns how many."""
    count = 0
    if e0 >= e1:
        return count
    k = np.searchsorted(scan, e0, side="right") - 1      # the entry holding edge e0
    e = e0
    while e < e1:
        u = nonnegative(np.int64(frontier[k]))
        first = indptr[u] - scan[k]                         # edge e of entry k is indices[first + e]
        stop = min(e1, scan[k] + indptr[u + 1] - indptr[u])
        p, end = nonnegative(first + e), first + stop
        while p < end:                                      # (a range loop is slower, as in fused)
            v = nonnegative(np.int64(indices[p]))
            p += 1
            w, bit = v >> 5, np.uint32(1) << np.uint32(v & 31)
            if closed[w] & bit:
                continue
            closed[w] |= bit
            claimed[nonnegative(count)] = v
            slots[nonnegative(count)] = k
            count += 1
        e = max(e, stop)
        k += 1
    return count


@numba.njit(cache=True, parallel=True)
def _first_claims_chunks(indptr, indices, frontier, scan, total, closed, chunk_closed, claimed, slots, room):
    """The edges cut into ``chunk_closed.shape[0] + 1`` chunks, one a thread: chunk 0 claims
    into ``closed``, chunk c > 0 into ``chunk_closed[c - 1]`` (a copy of ``closed`` as it
    began), each listing from slot ``c * room``; the later chunks' claims are then taken in
    chunk order. Returns how many claims there are, listed from slot 0."""
    nchunks = chunk_closed.shape[0] + 1
    counts = np.zeros(nchunks, dtype=np.int64)
    for c in numba.prange(nchunks):
        e0, e1 = total * c // nchunks, total * (c + 1) // nchunks
        mine = closed if c == 0 else chunk_closed[c - 1]
        counts[c] = _first_claims(indptr, indices, frontier, scan, e0, e1, mine, claimed[c * room:(c + 1) * room],
                                  slots[c * room:(c + 1) * room])
    count = counts[0]
    for c in range(1, nchunks):
        for j in range(c * room, c * room + counts[c]):
            v = claimed[j]
            w, bit = v >> 5, np.uint32(1) << np.uint32(v & 31)
            if closed[w] & bit:
                continue
            closed[w] |= bit
            claimed[count], slots[count] = v, slots[j]
            count += 1
    return count


@numba.njit(cache=True)
def _write_claims(claimed, slots, count, frontier, left, mult, block_len, stride, offset, words, out):
    """The claims' bits into ``words`` and their values into ``out``."""
    for j in range(count):
        v, k = claimed[j], slots[j]
        words[v >> 5] |= np.uint32(1) << np.uint32(v & 31)
        out[v] = multiply(mult, left, k, np.int64(frontier[k]), block_len, stride, offset)


# -- the other monoids: every edge's value combined -------------------------------------------------
@numba.njit(cache=True)
def _push_edges(indptr, indices, frontier, scan, e0, e1, left, mult, add, block_len, stride, offset, mask, mode,
                words, out, found):
    """Edges ``e0 .. e1`` of the frontier's edge order, claimed into ``words`` and ``out``;
    returns how many outputs they claimed first, listed in ``found``."""
    count = 0
    if e0 >= e1:
        return count
    k = np.searchsorted(scan, e0, side="right") - 1
    e = e0
    while e < e1:
        u = frontier[k]
        first = indptr[u] - scan[k]
        stop = min(e1, scan[k] + indptr[u + 1] - indptr[u])
        value = multiply(mult, left, k, u, block_len, stride, offset)
        for p in range(first + e, first + stop):
            v = indices[p]
            if allowed(mask, mode, v) and claim(words, out, v, value, add):
                found[count] = v
                count += 1
        e = max(e, stop)
        k += 1
    return count


@numba.njit(cache=True, parallel=True)
def _push_chunks(indptr, indices, frontier, scan, total, left, mult, add, block_len, stride, offset, mask, mode,
                 words, out, chunk_words, chunk_out, found):
    """The edges cut into ``found.shape[0]`` chunks, one a thread: chunk 0 claims into the
    output, chunk c > 0 into ``chunk_words[c - 1]``/``chunk_out[c - 1]``, each listing what it
    claimed; those are then claimed into the output in chunk order. Returns how many claims
    there are, listed in ``found[0]``."""
    nchunks = found.shape[0]
    counts = np.zeros(nchunks, dtype=np.int64)
    for c in numba.prange(nchunks):
        e0, e1 = total * c // nchunks, total * (c + 1) // nchunks
        if c == 0:
            counts[c] = _push_edges(indptr, indices, frontier, scan, e0, e1, left, mult, add, block_len, stride,
                                    offset, mask, mode, words, out, found[c])
        else:
            counts[c] = _push_edges(indptr, indices, frontier, scan, e0, e1, left, mult, add, block_len, stride,
                                    offset, mask, mode, chunk_words[c - 1], chunk_out[c - 1], found[c])
    count = counts[0]
    for c in range(1, nchunks):
        for j in range(counts[c]):
            v = found[c, j]
            if claim(words, out, v, chunk_out[c - 1, v], add):
                found[0, count] = v
                count += 1
    return count


# -- the product ----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _push_one_core(indptr, indices, frontier, left, mult, add, block_len, stride, offset, mask, mode, words, out,
                   degrees, has_degrees, most_edges):
    """The whole push of a frontier of fewer than ``most_edges`` edges on one core, in one
    call: the degree scan, the claims into ``words``/``out``, and the output's increasing ids
    with their out-degrees' sum (``_claimed_list``: a small output costs its entries, not its
    space). Returns (scan, total edges, ids, out-degrees, whether it pushed): with
    ``most_edges`` edges or more it stops after the scan, for the chunked push."""
    scan, total = _degree_scan(indptr, frontier)
    if total >= most_edges:
        return scan, total, np.empty(0, dtype=np.int32), 0, False
    claimed = np.empty(min(total, out.shape[0]), dtype=np.int32)
    if add == ADD_ANY:
        slots = np.empty_like(claimed)
        count = _first_claims(indptr, indices, frontier, scan, 0, total, closed_bits(mask, mode, words.shape[0]),
                              claimed, slots)
        _write_claims(claimed, slots, count, frontier, left, mult, block_len, stride, offset, words, out)
    else:
        count = _push_edges(indptr, indices, frontier, scan, 0, total, left, mult, add, block_len, stride, offset,
                            mask, mode, words, out, claimed)
    ids, edges = _claimed_list(words, claimed, count, degrees, has_degrees)
    return scan, total, ids, edges, True


def _push_in_chunks(csr, frontier, scan, total, nchunks, codes, words, out):
    """The push's claims on ``nchunks`` threads: (the claims, any order; how many)."""
    left, mult, add, block_len, stride, offset, mask, mode = codes
    room = min(-(-total // nchunks), csr.nminor)
    if add != ADD_ANY:
        found = np.empty((nchunks, room), dtype=np.int32)
        count = _push_chunks(csr.indptr, csr.indices, frontier, scan, total, *codes, words, out,
                             np.zeros((nchunks - 1, words.shape[0]), dtype=np.uint32),
                             np.empty((nchunks - 1, csr.nminor), dtype=out.dtype), found)
        return found[0], count
    closed = closed_bits(mask, mode, words.shape[0])
    claimed, slots = np.empty(nchunks * room, dtype=np.int32), np.empty(nchunks * room, dtype=np.int32)
    count = _first_claims_chunks(csr.indptr, csr.indices, frontier, scan, total, closed,
                                 np.broadcast_to(closed, (nchunks - 1, closed.shape[0])).copy(), claimed, slots, room)
    _write_claims(claimed, slots, count, frontier, left, mult, block_len, stride, offset, words, out)
    return claimed, count


def _push(csr, frontier, left, semiring, mask_words, complement, in_map, nchunks=None, out_degree=None):
    """(bits, dense values, edges examined, increasing ids, their out-degrees) of the push over
    a list frontier (int32 ids)."""
    add, mult = semiring_codes(semiring)
    mask, mode = mask_args(mask_words, complement)
    degrees, has_degrees = optional_int64(out_degree)
    words = np.zeros(-(-csr.nminor // 32), dtype=np.uint32)
    out = reused_empty(csr.derived, "push values", csr.nminor, semiring.out_dtype)   # a claim writes a slot first
    codes = (left, mult, add, *map_args(in_map), mask, mode)
    if nchunks is None:              # one core below PARALLEL_WORK edges, or with one thread
        most = PARALLEL_WORK if numba.get_num_threads() > 1 else _NO_LIMIT
    else:
        most = _NO_LIMIT if nchunks == 1 else 0
    scan, total, ids, edges, pushed = _push_one_core(csr.indptr, csr.indices, frontier, *codes, words, out, degrees,
                                                     has_degrees, most)
    if not pushed:
        claimed, count = _push_in_chunks(csr, frontier, scan, total, chunks_for(total) if nchunks is None else nchunks,
                                         codes, words, out)
        ids, edges = _claimed_list(words, claimed, count, degrees, has_degrees)
    return words, out, total, ids, edges


_NO_LIMIT = np.iinfo(np.int64).max


def push_spmspv(csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map,
                *, out_degree=None, frontier_edges=None):
    """Top-down w = u' M over a list frontier; returns (output-space part, counters).

    ``out_degree`` (dense over the output space) makes the counters sum the found entries'
    degrees; ``frontier_edges`` (the frontier's total degree, when the caller knows it) only
    sizes the GPU launch. Every frontier edge counts as examined.
    """
    frontier = frontier_ids.astype(np.int32, copy=False)
    words, out, examined, ids, edges = _push(csr, frontier, left_values(frontier_values, semiring), semiring,
                                             mask_words, complement, in_map, out_degree=out_degree)
    return listed_output(words, out, ids, edges, examined, out_degree is not None)


def warm_up(csr, in_map, semirings):
    """Compile (or load) the loops, one thread and chunked, for each semiring's types and each
    kind of mask."""
    frontier = np.arange(csr.nmajor, dtype=np.int32)
    mask = np.zeros(-(-csr.nminor // 32), np.uint32)
    for semiring in semirings:
        left = left_values(np.ones(csr.nmajor, bool), semiring)
        for nchunks in (1, 2):
            for out_degree in (None, np.ones(csr.nminor, np.int64)):
                for mask_words, complement in ((mask, True), (mask, False), (None, False)):
                    _push(csr, frontier, left, semiring, mask_words, complement, in_map, nchunks, out_degree)
