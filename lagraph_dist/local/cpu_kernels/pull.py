"""Twin of kernels/pull.cu: the bottom-up pull SpMV, a compiled loop over the candidate rows that
stops at a row's first frontier input where the semiring allows.

Rows are independent, so wide outputs are cut into chunks of whole bitmap words, one a thread,
each writing only its own words, values and count: the result is the one-thread result.
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.common import (allowed, chunks_for, combine, left_values, map_args, mask_args,
                                                   multiply, output_part, semiring_codes)


@numba.njit(cache=True)
def _pull_rows(indptr, indices, frontier_words, left, mult, add, first_hit, block_len, stride, offset, mask, mode,
               w0, w1, words, out):
    """Rows ``32 * w0 .. 32 * w1`` (the output's words w0 .. w1): each row the mask lets
    through scans its inputs in increasing order, combines the frontier's ones by the monoid
    (only the first one when ``first_hit``), and is found when it has one. Returns the
    inputs read: a row that stops counts those up to its first hit."""
    nrows = indptr.shape[0] - 1
    examined = 0
    for w in range(w0, w1):
        bits = np.uint32(0)
        for r in range(32 * w, min(32 * w + 32, nrows)):
            if not allowed(mask, mode, r):
                continue
            start, stop = indptr[r], indptr[r + 1]
            hit, value = False, np.int64(0)
            read = stop - start
            for p in range(start, stop):
                c = indices[p]
                if frontier_words[c >> 5] & (np.uint32(1) << np.uint32(c & 31)):
                    product = multiply(mult, left, c, c, block_len, stride, offset)
                    value = combine(add, value, product) if hit else product
                    hit = True
                    if first_hit:
                        read = p - start + 1
                        break
            examined += read
            if hit:
                bits |= np.uint32(1) << np.uint32(r & 31)
                out[r] = value
        words[w] = bits
    return examined


@numba.njit(cache=True, parallel=True)
def _pull_chunks(indptr, indices, frontier_words, left, mult, add, first_hit, block_len, stride, offset, mask, mode,
                 nchunks, words, out):
    """:func:`_pull_rows` over ``nchunks`` chunks of the output's words, one a thread."""
    nwords = words.shape[0]
    examined = np.zeros(nchunks, dtype=np.int64)
    for c in numba.prange(nchunks):
        examined[c] = _pull_rows(indptr, indices, frontier_words, left, mult, add, first_hit, block_len, stride,
                                 offset, mask, mode, nwords * c // nchunks, nwords * (c + 1) // nchunks, words, out)
    return examined.sum()


def _pull(csr, frontier_words, left, semiring, mask_words, complement, in_map, nchunks=None):
    """(bits, dense values, inputs read) of the pull over a bitmap frontier."""
    add, mult = semiring_codes(semiring)
    mask, mode = mask_args(mask_words, complement)
    # every word is written whole by its chunk, and a slot only where its bit is set (nothing
    # reads a slot without it), as in push and the fold's merge: neither is zeroed first (the
    # values were 8 MB a pull level on each rank of a 4x4 grid at scale 22)
    words = np.empty(-(-csr.nmajor // 32), dtype=np.uint32)
    out = np.empty(csr.nmajor, dtype=semiring.out_dtype)
    nchunks = chunks_for(max(csr.nnz, csr.nmajor)) if nchunks is None else nchunks
    args = (csr.indptr, csr.indices, frontier_words, left, mult, add, semiring.first_hit_is_final,
            *map_args(in_map), mask, mode)
    if nchunks == 1:
        examined = _pull_rows(*args, 0, words.shape[0], words, out)
    else:
        examined = _pull_chunks(*args, nchunks, words, out)
    return words, out, int(examined)


def pull_spmv(csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map,
              *, out_degree=None):
    """Bottom-up w = u' M over a bitmap frontier, one candidate output row at a time.

    ``csr`` is indexed by output row; candidates are the rows the mask lets through. A row that
    may stop at its first hit (``semiring.first_hit_is_final``) counts the inputs scanned up to
    and including it as examined; other rows count all their inputs.
    """
    words, out, examined = _pull(csr, frontier_words, left_values(frontier_values, semiring), semiring,
                                 mask_words, complement, in_map)
    return output_part(words, out, examined, out_degree)


def warm_up(csr, in_map, semirings):
    """Compile (or load) the loops, one thread and chunked, for each semiring's types."""
    frontier = np.full(-(-csr.nminor // 32), 0xFFFFFFFF, dtype=np.uint32)
    for semiring in semirings:
        left = left_values(np.ones(csr.nminor, bool), semiring)
        for nchunks in (1, 2):
            _pull(csr, frontier, left, semiring, None, False, in_map, nchunks)
