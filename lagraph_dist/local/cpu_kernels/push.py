"""Twin of kernels/push.cu: the push SpMSpV, a compiled loop over the frontier's edges.

The frontier's edges are numbered in frontier then adjacency order, the order in which the
CUDA kernel's load-balanced search (Bisson et al. 2015, 3.4) numbers them. An output entry is
claimed by its first edge the mask allows: ``any`` keeps that edge's value (a BFS keeps the
first frontier vertex, in that order, as the parent); the other monoids combine every edge's
value into it. Wide frontiers are cut into chunks of equal edges, one a thread; each chunk
claims into bits and values of its own, then the chunks are merged in order, so the result is
the one-thread result whatever the threads.
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import _claimed_list
from lagraph_dist.local.cpu_kernels.common import (PARALLEL_WORK, allowed, chunks_for, claim, left_values,
                                                   listed_output, map_args, mask_args, multiply, optional_int64,
                                                   output_part, semiring_codes)


@numba.njit(cache=True)
def _degree_scan(indptr, frontier):
    """The exclusive scan of the frontier's degrees, and their total."""
    scan = np.empty(frontier.shape[0], dtype=np.int64)
    total = 0
    for k in range(frontier.shape[0]):
        scan[k] = total
        total += indptr[frontier[k] + 1] - indptr[frontier[k]]
    return scan, total


@numba.njit(cache=True)
def _push_edges(indptr, indices, frontier, scan, e0, e1, left, mult, add, block_len, stride, offset, mask, mode,
                words, out, found, record):
    """Edges ``e0 .. e1`` of the frontier's edge order, claimed into ``words`` and ``out``;
    returns how many outputs they claimed first (listed in ``found`` when ``record``)."""
    count = 0
    if e0 >= e1:
        return count
    k = np.searchsorted(scan, e0, side="right") - 1      # the entry holding edge e0
    e = e0
    while e < e1:
        u = frontier[k]
        first = indptr[u] - scan[k]                         # edge e of entry k is indices[first + e]
        stop = min(e1, scan[k] + indptr[u + 1] - indptr[u])
        value = multiply(mult, left, k, u, block_len, stride, offset)
        for p in range(first + e, first + stop):
            v = indices[p]
            if allowed(mask, mode, v) and claim(words, out, v, value, add):
                if record:
                    found[count] = v
                count += 1
        e = max(e, stop)
        k += 1
    return count


@numba.njit(cache=True, parallel=True)
def _push_chunks(indptr, indices, frontier, scan, total, left, mult, add, block_len, stride, offset, mask, mode,
                 words, out, chunk_words, chunk_out, found):
    """The edges cut into ``found.shape[0]`` chunks, one a thread: chunk 0 claims into the
    output, chunk c > 0 into ``chunk_words[c - 1]``/``chunk_out[c - 1]``, listing what it
    claimed; those are then claimed into the output in chunk order."""
    nchunks = found.shape[0]
    counts = np.zeros(nchunks, dtype=np.int64)
    for c in numba.prange(nchunks):
        e0, e1 = total * c // nchunks, total * (c + 1) // nchunks
        if c == 0:
            counts[c] = _push_edges(indptr, indices, frontier, scan, e0, e1, left, mult, add, block_len, stride,
                                    offset, mask, mode, words, out, found[c], False)
        else:
            counts[c] = _push_edges(indptr, indices, frontier, scan, e0, e1, left, mult, add, block_len, stride,
                                    offset, mask, mode, chunk_words[c - 1], chunk_out[c - 1], found[c], True)
    for c in range(1, nchunks):
        for j in range(counts[c]):
            v = found[c, j]
            claim(words, out, v, np.int64(chunk_out[c - 1, v]), add)


@numba.njit(cache=True)
def _push_listed(indptr, indices, frontier, left, mult, add, block_len, stride, offset, mask, mode, words, out,
                 degrees, has_degrees, most_edges):
    """The whole push of a frontier of fewer than ``most_edges`` edges on one core, in one
    call: the degree scan, the edges claimed into ``words``/``out`` with the claims listed, and
    the output's increasing ids with their out-degrees' sum (``_claimed_list``: a small output
    costs its entries, not its space). Returns (scan, total edges, ids, out-degrees, whether it
    pushed): with ``most_edges`` edges or more it stops after the scan, for the chunked push."""
    scan, total = _degree_scan(indptr, frontier)
    if total >= most_edges:
        return scan, total, np.empty(0, dtype=np.int32), 0, False
    claimed = np.empty(min(total, out.shape[0]), dtype=np.int32)
    count = _push_edges(indptr, indices, frontier, scan, 0, total, left, mult, add, block_len, stride, offset,
                        mask, mode, words, out, claimed, True)
    ids, edges = _claimed_list(words, claimed, count, degrees, has_degrees)
    return scan, total, ids, edges, True


def _push(csr, frontier, left, semiring, mask_words, complement, in_map, nchunks=None, out_degree=None):
    """(bits, dense values, edges examined, increasing ids or None, their out-degrees) of the
    push over a list frontier (int32 ids). On one core the kernel lists its output (ids);
    chunked, the caller reads the list off the bits."""
    add, mult = semiring_codes(semiring)
    mask, mode = mask_args(mask_words, complement)
    degrees, has_degrees = optional_int64(out_degree)
    words = np.zeros(-(-csr.nminor // 32), dtype=np.uint32)
    out = np.empty(csr.nminor, dtype=semiring.out_dtype)     # claim() writes a slot before any read
    codes = (left, mult, add, *map_args(in_map), mask, mode)
    if nchunks is None:              # one core below PARALLEL_WORK edges, or with one thread
        most = PARALLEL_WORK if numba.get_num_threads() > 1 else _NO_LIMIT
    else:
        most = _NO_LIMIT if nchunks == 1 else 0
    scan, total, ids, edges, pushed = _push_listed(csr.indptr, csr.indices, frontier, *codes, words, out, degrees,
                                                   has_degrees, most)
    if pushed:
        return words, out, total, ids, edges
    nchunks = chunks_for(total) if nchunks is None else nchunks
    args = (csr.indptr, csr.indices, frontier, scan)
    if nchunks == 1:
        _push_edges(*args, 0, total, *codes, words, out, np.zeros((1, 1), np.int64)[0], False)
    else:
        room = min(-(-total // nchunks), csr.nminor) + 1
        _push_chunks(*args, total, *codes, words, out,
                     np.zeros((nchunks - 1, words.shape[0]), dtype=np.uint32),
                     np.empty((nchunks - 1, csr.nminor), dtype=out.dtype),
                     np.empty((nchunks, room), dtype=np.int64))
    return words, out, total, None, 0


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
    if ids is None:
        return output_part(words, out, examined, out_degree)
    return listed_output(words, out, ids, edges, examined, out_degree is not None)


def warm_up(csr, in_map, semirings):
    """Compile (or load) the loops, one thread and chunked, for each semiring's types."""
    frontier = np.arange(csr.nmajor, dtype=np.int32)
    for semiring in semirings:
        left = left_values(np.ones(csr.nmajor, bool), semiring)
        for nchunks in (1, 2):
            for out_degree in (None, np.ones(csr.nminor, np.int64)):
                _push(csr, frontier, left, semiring, np.zeros(1, np.uint32), True, in_map, nchunks, out_degree)
