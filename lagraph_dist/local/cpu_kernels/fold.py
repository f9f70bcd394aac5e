"""Twins of kernels/fold.cu: the fold's count, pack per owner and merge at the owner, in the wire
format of lagraph_dist.local.wire."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local import wire
from lagraph_dist.local.cpu_kernels.bitmap import list_from_bitmap
from lagraph_dist.local.cpu_kernels.common import _allowed, _output_part
from lagraph_dist.local.layout import FOUND, OVERFLOW
from lagraph_dist.local.parts import combine_duplicates


# -- the fold: pack per owner, merge at the owner (kernels/fold.cu) ------------------------
def _found_ids(part, counters):
    return part.ids[:int(counters[FOUND])].astype(np.int64)


def fold_count(part, counters, block_len, nowners):
    """Entries of the output queue owned by each of the ``nowners`` members (int64)."""
    return np.bincount(_found_ids(part, counters) // block_len, minlength=nowners).astype(np.int64)


def _value_view(region, dtype, count):
    return region.view(dtype)[:count] if count else np.zeros(0, dtype)


def fold_pack(part, counters, vw, block_len, nowners, cap, threshold, counts=None):
    """The send buffer (uint32) of the ``nowners`` pieces of ``part`` (see :mod:`lagraph_dist.local.wire`):
    fixed pieces of capacity ``cap`` when cap > 0, else counted pieces laid out by ``counts``."""
    ids = _found_ids(part, counters)
    owners = ids // block_len
    dtype = part.values.dtype
    pieces = []
    for k in range(nowners):
        mine = ids[owners == k]
        local = (mine - k * block_len).astype(np.uint32)
        if cap > 0:
            piece = np.zeros(wire.fixed_piece_words(cap, vw), dtype=np.uint32)
            piece[0] = mine.shape[0]
            kept = min(mine.shape[0], cap)            # a wrong bound: the merge reports it
            piece[2:2 + kept] = local[:kept]
            if vw:
                _value_view(piece[2 + wire.even(cap):], dtype, cap)[:kept] = part.values[mine[:kept]]
        elif vw == 0 and int(counts.host[k]) > threshold:
            piece = part.words[k * (block_len // 32):(k + 1) * (block_len // 32)].copy()
        else:
            piece = np.zeros(wire.even(mine.shape[0]) + mine.shape[0] * vw, dtype=np.uint32)
            piece[:mine.shape[0]] = local
            if vw:
                _value_view(piece[wire.even(mine.shape[0]):], dtype, mine.shape[0])[:] = part.values[mine]
        pieces.append(piece)
    return np.concatenate(pieces) if pieces else np.zeros(0, np.uint32)


def _received_pieces(recv, nowners, block_len, vw, cap, threshold, counts, dtype):
    """(ids, values or None) of every received piece, and whether a fixed piece overflowed."""
    out, overflow, at = [], False, 0
    for k in range(nowners):
        if cap > 0:
            piece = recv[at:at + wire.fixed_piece_words(cap, vw)]
            at += piece.shape[0]
            count = int(piece[0])
            overflow |= count > cap
            count = min(count, cap)
            ids = piece[2:2 + count].astype(np.int64)
            values = _value_view(piece[2 + wire.even(cap):], dtype, count) if vw else None
        else:
            count = int(counts.host[k])
            size = wire.counted_piece_words(count, block_len, vw, threshold)
            piece = recv[at:at + size]
            at += size
            if wire.counted_is_bitmap(count, block_len, vw, threshold):
                ids = list_from_bitmap(piece).astype(np.int64)
            else:
                ids = piece[:count].astype(np.int64)
            values = _value_view(piece[wire.even(count):], dtype, count) if vw else None
        out.append((ids, values))
    return out, overflow


def fold_merge(recv, nowners, block_len, vw, cap, threshold, counts, semiring, mask_words, complement,
               *, out_degree=None):
    """The owner's block from the received pieces: entries the (exact) mask allows, combined
    by the semiring's monoid; returns (part, counters) like a product kernel."""
    dtype = np.dtype(semiring.out_dtype)
    pieces, overflow = _received_pieces(recv, nowners, block_len, vw, cap, threshold, counts, dtype)
    ids = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, np.int64)
    if vw:
        values = np.concatenate([p[1] for p in pieces]).astype(dtype)
    else:
        values = np.ones(ids.shape[0], dtype=dtype)
    keep = _allowed(ids, mask_words, complement)
    ids, values = combine_duplicates(ids[keep].astype(np.int32), values[keep], semiring.add, np)
    part, counters = _output_part(ids, values, block_len, semiring, 0, out_degree)
    counters[OVERFLOW] = int(overflow)
    return part, counters
