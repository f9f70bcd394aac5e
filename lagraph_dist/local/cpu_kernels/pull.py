"""Twin of kernels/pull.cu: the bottom-up pull SpMV, a compiled loop over the candidate rows that
stops at a row's first frontier input where the semiring allows.

Candidates are taken 32 rows a word, as the fused search's pull takes them: the rows the mask
lets through that have inputs at all (the block's empty rows are found once, kept with its
CSR), each set bit visited by its trailing zeros, so a visited or empty row costs a bit, not a
row's reads. Rows are independent, so wide outputs are cut into chunks of whole bitmap words,
one a thread, each writing only its own words, values, listed rows and counts: the result is
the one-thread result. A row's value is its hits' products combined in increasing input
order, in the input values' type (numba specialises the loop on it).
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import empty_rows, trailing_zeros
from lagraph_dist.local.cpu_kernels.common import (candidate_word, chunks_for, combine, left_values, listed_output,
                                                   map_args, mask_args, multiply, nonnegative, optional_int64,
                                                   reused_empty, semiring_codes)


@numba.njit(cache=True)
def _pull_rows(indptr, indices, frontier_words, left, mult, add, first_hit, block_len, stride, offset, mask, mode,
               empty, w0, w1, words, out, ids, degrees, has_degrees):
    """Rows ``32 * w0 .. 32 * w1`` (the output's words w0 .. w1): each candidate row scans its
    inputs in increasing order, combines the frontier's ones by the monoid (only the first one
    when ``first_hit``), and is found when it has one. Found rows are listed, increasing, in
    ``ids`` from slot ``32 * w0``. Returns (found, inputs read: a row that stops counts those up
    to its first hit, the found rows' ``degrees`` summed when ``has_degrees``)."""
    nrows = indptr.shape[0] - 1
    found, examined, edges = 0, 0, 0
    at = 32 * w0
    for w in range(w0, w1):
        todo = candidate_word(mask, mode, w, nrows) & ~empty[w]
        bits = np.uint32(0)
        while todo:
            b = trailing_zeros(todo)
            todo = np.uint32(todo & (todo - np.uint32(1)))
            r = w * 32 + b
            start, stop = nonnegative(indptr[r]), indptr[r + 1]
            hit, value = False, np.int64(0)
            e = start
            while e < stop:
                c = nonnegative(np.int64(indices[e]))
                e += 1
                if (frontier_words[c >> 5] >> np.uint32(c & 31)) & np.uint32(1):
                    product = multiply(mult, left, c, c, block_len, stride, offset)
                    value = combine(add, value, product) if hit else product
                    hit = True
                    if first_hit:
                        break
            examined += e - start
            if hit:
                bits |= np.uint32(1) << np.uint32(b)
                out[r] = value
                ids[nonnegative(at + found)] = r
                found += 1
                if has_degrees:
                    edges += degrees[r]
        words[w] = bits
    return found, examined, edges


@numba.njit(cache=True, parallel=True)
def _pull_chunks(indptr, indices, frontier_words, left, mult, add, first_hit, block_len, stride, offset, mask, mode,
                 empty, nchunks, words, out, ids, degrees, has_degrees):
    """:func:`_pull_rows` over ``nchunks`` chunks of the output's words, one a thread; each
    chunk's listed rows then follow the chunks' before it. Returns (found, read, degrees)."""
    nwords = words.shape[0]
    counts = np.zeros((nchunks, 3), dtype=np.int64)
    for c in numba.prange(nchunks):
        counts[c, 0], counts[c, 1], counts[c, 2] = _pull_rows(
            indptr, indices, frontier_words, left, mult, add, first_hit, block_len, stride, offset, mask, mode, empty,
            nwords * c // nchunks, nwords * (c + 1) // nchunks, words, out, ids, degrees, has_degrees)
    found = 0
    for c in range(nchunks):
        at = 32 * (nwords * c // nchunks)
        if at != found:
            for k in range(counts[c, 0]):          # (a slice copy of overlapping ranges is not numpy's here)
                ids[found + k] = ids[at + k]
        found += counts[c, 0]
    return found, counts[:, 1].sum(), counts[:, 2].sum()


def _pull(csr, frontier_words, left, semiring, mask_words, complement, in_map, out_degree, nchunks=None):
    """(bits, dense values, increasing found rows, inputs read, their out-degrees) of the pull
    over a bitmap frontier."""
    add, mult = semiring_codes(semiring)
    mask, mode = mask_args(mask_words, complement)
    degrees, has_degrees = optional_int64(out_degree)
    # every word is written whole by its chunk, and a slot only where its bit is set (nothing
    # reads a slot without it), as in push and the fold's merge: neither is zeroed first (the
    # values were 8 MB a pull level on each rank of a 4x4 grid at scale 22)
    words = np.empty(-(-csr.nmajor // 32), dtype=np.uint32)
    out = reused_empty(csr.derived, "pull values", csr.nmajor, semiring.out_dtype)
    ids = reused_empty(csr.derived, "pull rows", max(32 * words.shape[0], 1), np.int32)
    nchunks = chunks_for(max(csr.nnz, csr.nmajor)) if nchunks is None else nchunks
    args = (csr.indptr, csr.indices, frontier_words, left, mult, add, semiring.first_hit_is_final,
            *map_args(in_map), mask, mode, empty_rows(csr))
    if nchunks == 1:
        found, examined, edges = _pull_rows(*args, 0, words.shape[0], words, out, ids, degrees, has_degrees)
    else:
        found, examined, edges = _pull_chunks(*args, nchunks, words, out, ids, degrees, has_degrees)
    return words, out, ids[:found], int(examined), int(edges)


def pull_spmv(csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map,
              *, out_degree=None):
    """Bottom-up w = u' M over a bitmap frontier, one candidate output row at a time.

    ``csr`` is indexed by output row; candidates are the rows the mask lets through. A row that
    may stop at its first hit (``semiring.first_hit_is_final``) counts the inputs scanned up to
    and including it as examined; other rows count all their inputs.
    """
    words, out, ids, examined, edges = _pull(csr, frontier_words, left_values(frontier_values, semiring), semiring,
                                             mask_words, complement, in_map, out_degree)
    return listed_output(words, out, ids, edges, examined, out_degree is not None)


def warm_up(csr, in_map, semirings):
    """Compile (or load) the loops, one thread and chunked, for each semiring's types."""
    frontier = np.full(-(-csr.nminor // 32), 0xFFFFFFFF, dtype=np.uint32)
    for semiring in semirings:
        left = left_values(np.ones(csr.nminor, bool), semiring)
        for nchunks in (1, 2):
            for out_degree in (None, np.ones(csr.nmajor, np.int64)):
                _pull(csr, frontier, left, semiring, None, False, in_map, out_degree, nchunks)
