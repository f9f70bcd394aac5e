"""Numpy twins of the CUDA kernels in ``kernels/``: the CPU backend runs them, and the GPU
tests compare the CUDA kernels against them on random inputs.

Each twin follows its kernel's algorithm, not just its result: push finds every frontier edge
by a binary search over the exclusive scan of frontier degrees (Bisson et al. 2015, 3.4), pull
scans each candidate row's inputs in increasing order and stops at the first hit when the
semiring allows it.
"""
from __future__ import annotations

import numpy as np

from lagraph_dist.local import LocalPart, combine_duplicates, multiply_values

__all__ = ["bitmap_from_list", "list_from_bitmap", "popcount", "bitmap_test",
           "push_spmspv", "pull_spmv"]


def bitmap_from_list(ids, length):
    """Packed uint32 words with bit l set for each l in ``ids`` (``length`` a multiple of 32)."""
    present = np.zeros(length, dtype=bool)
    present[ids] = True
    return np.packbits(present, bitorder="little").view(np.uint32)


def list_from_bitmap(words, count=None):
    """Sorted int32 ids of the set bits (``count``, when known, is only a size hint)."""
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")
    return np.flatnonzero(bits).astype(np.int32)


def popcount(words) -> int:
    return int(np.bitwise_count(words).sum())


def bitmap_test(words, ids):
    """Bool per id: is its bit set?"""
    ids = ids.astype(np.int64, copy=False)
    return ((words[ids >> 5] >> (ids & 31).astype(np.uint32)) & 1).astype(bool)


def _allowed(rows, mask_words, complement):
    if mask_words is None:
        return np.ones(rows.shape[0], dtype=bool)
    hit = bitmap_test(mask_words, rows)
    return ~hit if complement else hit


def _edges_of(csr, majors):
    """Every (position in ``majors``, minor id) pair of the given rows, load-balanced.

    Edge e belongs to the last frontier entry whose exclusive degree scan is <= e, the binary
    search each GPU thread does for its first edge.
    """
    starts = csr.indptr[majors]
    degrees = csr.indptr[majors + 1] - starts
    scan = np.cumsum(degrees) - degrees
    total = int(degrees.sum()) if degrees.shape[0] else 0
    edge = np.arange(total, dtype=np.int64)
    owner = np.searchsorted(scan, edge, side="right") - 1
    minors = csr.indices[starts[owner] + (edge - scan[owner])]
    return owner, minors, total


def push_spmspv(csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map):
    """Top-down w = u' M over a list frontier; returns (output-space part, edges examined)."""
    majors = frontier_ids.astype(np.int64)
    owner, rows, examined = _edges_of(csr, majors)
    keep = _allowed(rows, mask_words, complement)
    owner, rows = owner[keep], rows[keep]
    left = None if frontier_values is None else frontier_values[owner]
    values = multiply_values(semiring, frontier_ids[owner], left, in_map, np)
    ids, values = combine_duplicates(rows.astype(np.int32), values, semiring.add, np)
    return LocalPart.from_list(ids, values, csr.nminor), examined


def pull_spmv(csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map):
    """Bottom-up w = u' M over a bitmap frontier, one candidate output row at a time.

    ``csr`` is indexed by output row; candidates are the rows the mask lets through. Returns
    (sorted ids, values, edges examined), where a row that may stop at its first hit counts
    the inputs scanned up to and including it.
    """
    all_rows = np.arange(csr.nmajor, dtype=np.int64)
    rows = all_rows[_allowed(all_rows, mask_words, complement)]
    owner, cols, total = _edges_of(csr, rows)
    hit = bitmap_test(frontier_words, cols)
    degrees = csr.indptr[rows + 1] - csr.indptr[rows]
    if semiring.first_hit_is_final:
        position = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(degrees) - degrees, degrees)
        first = np.full(rows.shape[0], np.iinfo(np.int64).max)
        np.minimum.at(first, owner[hit], position[hit])
        found = first != np.iinfo(np.int64).max
        examined = int(np.where(found, first + 1, degrees).sum())
        keep = hit & (position == first[owner])
    else:
        examined, keep = total, hit
    left = None if frontier_values is None else frontier_values[cols[keep]]
    values = multiply_values(semiring, cols[keep], left, in_map, np)
    ids, values = combine_duplicates(rows[owner[keep]].astype(np.int32), values, semiring.add, np)
    return LocalPart.from_list(ids, values, csr.nmajor), examined

