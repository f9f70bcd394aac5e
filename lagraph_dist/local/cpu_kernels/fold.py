"""Twins of kernels/fold.cu: the fold's count, pack per owner and merge at the owner, in the wire
format of lagraph_dist.local.wire.

The pieces' layout (where each owner's ids, values or bitmap words go) is worked out on the
host, a few numbers an owner; the entries are counted, scattered and merged by compiled loops.
The pack keeps the output queue's order within each piece; the merge claims the pieces'
entries in the order received, so ``any`` keeps the first piece's value.
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local import wire
from lagraph_dist.local.cpu_kernels.bitmap import _set_bits, new_counters, popcount64
from lagraph_dist.local.cpu_kernels.common import allowed, claim, mask_args, output_part, semiring_codes
from lagraph_dist.local.layout import FOUND, OVERFLOW
from lagraph_dist.local.parts import LocalPart


@numba.njit(cache=True)
def _owner_counts(ids, count, block_len, nowners):
    """Entries among the first ``count`` ids owned by each of ``nowners`` members."""
    counts = np.zeros(nowners, dtype=np.int64)
    for j in range(count):
        counts[ids[j] // block_len] += 1
    return counts


@numba.njit(cache=True)
def _scatter(ids, count, block_len, values, cap, listed, id_at, value_at, send, send_values, with_values):
    """Each of the first ``count`` ids, in order, into its owner's list piece (block-local id
    at ``id_at[owner]`` on, its value at ``value_at[owner]`` on in ``send_values``); owners
    not ``listed`` (bitmap pieces) are skipped, and a fixed piece keeps its first ``cap``."""
    placed = np.zeros(listed.shape[0], dtype=np.int64)
    for j in range(count):
        v = np.int64(ids[j])
        k = v // block_len
        if not listed[k]:
            continue
        at = placed[k]
        placed[k] += 1
        if cap > 0 and at >= cap:            # a wrong bound: the merge reports it
            continue
        send[id_at[k] + at] = np.uint32(v - k * block_len)
        if with_values:
            send_values[value_at[k] + at] = values[v]


def fold_count(part, counters, block_len, nowners):
    """Entries of the output queue owned by each of the ``nowners`` members (int64)."""
    return _owner_counts(part.ids, int(counters[FOUND]), block_len, nowners)


def _values_of(buffer, dtype, vw):
    """The buffer seen as values (a value region at word W starts at value W * 4 // itemsize),
    or a dummy when no values travel."""
    return buffer.view(dtype) if vw else np.zeros(1, dtype)


def fold_pack(part, counters, vw, block_len, nowners, cap, threshold, counts=None):
    """The send buffer (uint32) of the ``nowners`` pieces of ``part`` (see :mod:`lagraph_dist.local.wire`):
    fixed pieces of capacity ``cap`` when cap > 0, else counted pieces laid out by ``counts``."""
    found = int(counters[FOUND])
    mine = _owner_counts(part.ids, found, block_len, nowners)
    dtype = part.values.dtype
    listed = np.ones(nowners, dtype=np.bool_)
    id_at, value_at = np.zeros(nowners, np.int64), np.zeros(nowners, np.int64)
    sizes, at = [], 0
    for k in range(nowners):                 # the layout: a few numbers an owner
        if cap > 0:
            size, ids_from, room = wire.fixed_piece_words(cap, vw), at + 2, cap
        elif vw == 0 and int(counts.host[k]) > threshold:
            size, ids_from, room, listed[k] = block_len // 32, at, 0, False
        else:
            size, ids_from, room = wire.even(int(mine[k])) + int(mine[k]) * vw, at, int(mine[k])
        id_at[k] = ids_from
        value_at[k] = (ids_from + wire.even(room)) * 4 // dtype.itemsize
        sizes.append(size)
        at += size
    send = np.zeros(at, dtype=np.uint32)
    starts = np.cumsum([0] + sizes[:-1])
    for k in range(nowners):
        if cap > 0:
            send[starts[k]] = mine[k]
        elif not listed[k]:
            send[starts[k]:starts[k] + sizes[k]] = part.words[k * (block_len // 32):(k + 1) * (block_len // 32)]
    _scatter(part.ids, found, block_len, part.values, cap, listed, id_at, value_at, send,
             _values_of(send, dtype, vw), bool(vw))
    return send


@numba.njit(cache=True)
def _merge(recv, values, with_values, listed, id_at, counts, value_at, block_words, mask, mode, add, words, out):
    """The received pieces' entries, piece by piece in order, claimed into ``words``/``out``
    where the mask allows (a bitmap piece's entries in increasing order, valued 1)."""
    for k in range(listed.shape[0]):
        if not listed[k]:
            for w in range(block_words):
                x = recv[id_at[k] + w]
                while x:
                    v = w * 32 + popcount64((x & (~x + np.uint32(1))) - np.uint32(1))
                    if allowed(mask, mode, v):
                        claim(words, out, v, np.int64(1), add)
                    x &= x - np.uint32(1)
            continue
        for j in range(counts[k]):
            v = np.int64(recv[id_at[k] + j])
            if allowed(mask, mode, v):
                claim(words, out, v, np.int64(values[value_at[k] + j]) if with_values else np.int64(1), add)


def fold_merge(recv, nowners, block_len, vw, cap, threshold, counts, semiring, mask_words, complement,
               *, out_degree=None):
    """The owner's block from the received pieces: entries the (exact) mask allows, combined
    by the semiring's monoid; returns (part, counters) like a product kernel."""
    dtype = np.dtype(semiring.out_dtype)
    listed = np.ones(nowners, dtype=np.bool_)
    id_at, value_at, sizes = (np.zeros(nowners, np.int64) for _ in range(3))
    overflow, at = False, 0
    for k in range(nowners):                 # the layout: a few numbers an owner
        if cap > 0:
            count = int(recv[at])
            overflow |= count > cap
            id_at[k], sizes[k], room = at + 2, min(count, cap), cap
            at += wire.fixed_piece_words(cap, vw)
        else:
            count = int(counts.host[k])
            listed[k] = not wire.counted_is_bitmap(count, block_len, vw, threshold)
            id_at[k], sizes[k], room = at, count, count
            at += wire.counted_piece_words(count, block_len, vw, threshold)
        value_at[k] = (id_at[k] + wire.even(room)) * 4 // dtype.itemsize
    add, _ = semiring_codes(semiring)
    mask, mode = mask_args(mask_words, complement)
    words = np.zeros(-(-block_len // 32), dtype=np.uint32)
    out = np.empty(block_len, dtype=dtype)      # a slot is written when its bit is set, read after
    _merge(recv, _values_of(recv, dtype, vw), bool(vw), listed, id_at, sizes, value_at, block_len // 32, mask, mode,
           add, words, out)
    part, counters = output_part(words, out, 0, out_degree)
    counters[OVERFLOW] = int(overflow)
    return part, counters


def warm_up(semirings):
    """Compile (or load) the loops for each semiring's value type, fixed and counted pieces."""
    block_len, nowners = 64, 2
    for semiring in semirings:
        vw = wire.value_words(semiring)
        ids = np.arange(0, block_len * nowners, 3, dtype=np.int32)
        words = np.zeros(block_len * nowners // 32, np.uint32)
        _set_bits(ids, words)
        part = LocalPart("bitmap", block_len * nowners, None, np.ones(block_len * nowners, semiring.out_dtype),
                         words=words, ids=ids)
        counters = new_counters()
        counters[FOUND] = ids.shape[0]
        counts = fold_count(part, counters, block_len, nowners)
        for cap, threshold, piece_counts in ((64, 2, None), (0, 2, wire.PieceCounts(counts, counts))):
            send = fold_pack(part, counters, vw, block_len, nowners, cap, threshold, piece_counts)
            fold_merge(send, nowners, block_len, vw, cap, threshold, piece_counts, semiring, words[:2], True,
                       out_degree=np.ones(block_len, np.int64))
