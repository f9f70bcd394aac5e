"""Twins of kernels/bitmap.cu: bitmaps from lists and back, counts, membership, assignment; the
counters every product starts from."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.layout import NCOUNTERS


def new_counters():
    return np.zeros(NCOUNTERS, dtype=np.uint64)


def bitmap_from_list(ids, length, words=None):
    """Packed uint32 words with bit l set for each l in ``ids`` (``length`` a multiple of 32);
    set into ``words`` in place when given."""
    present = np.zeros(length, dtype=bool)
    present[ids] = True
    fresh = np.packbits(present, bitorder="little").view(np.uint32)
    if words is None:
        return fresh
    words |= fresh
    return words


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



def assign_from_list(ids, words, values, *, src_dense=None, src_compact=None, scalar=None):
    """In place: set the bits of ``ids`` in ``words`` and write their values from
    ``src_dense[id]``, ``src_compact[i]`` or ``scalar`` (GrB_assign with a structural mask)."""
    bitmap_from_list(ids, words.shape[0] * 32, words)
    if scalar is not None:
        values[ids] = scalar
    elif src_compact is not None:
        values[ids] = src_compact
    else:
        values[ids] = src_dense[ids]
