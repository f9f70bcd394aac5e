"""Twins of kernels/fold.cu: the fold's count, pack per owner and merge at the owner, in the wire
format of lagraph_dist.local.wire.

The pack and the merge are one compiled call each: the pieces' layout (where each owner's ids,
values or bitmap words go, a few numbers an owner, by the rules of lagraph_dist.local.wire),
then the entries; neither touches what no entry fills, so a small fold costs its entries, not
its block. The pack keeps the output queue's order within each piece; the merge claims the
pieces' entries in the order received, so ``any`` keeps the first piece's value (through one
bitmap of closed outputs, as the push's ``any`` claims).
"""
from __future__ import annotations

import sys

import numba
import numpy as np

from lagraph_dist.local import wire
from lagraph_dist.local.cpu_kernels.bitmap import _claimed_list, _set_bits, new_counters, trailing_zeros
from lagraph_dist.local.cpu_kernels.common import (allowed, claim, closed_bits, listed_output, mask_args,
                                                   optional_int64, semiring_codes)
from lagraph_dist.local.layout import ADD_ANY, FOUND, OVERFLOW
from lagraph_dist.local.parts import LocalPart


@numba.njit(cache=True)
def _owner_counts(ids, count, block_len, nowners):
    """Entries among the first ``count`` ids owned by each of ``nowners`` members."""
    counts = np.zeros(nowners, dtype=np.int64)
    for j in range(count):
        counts[ids[j] // block_len] += 1
    return counts


@numba.njit(cache=True)
def _owner_starts(ids, count, block_len, nowners):
    """Where each owner's entries start among the first ``count`` ids, which are increasing
    (and past the last: ``nowners + 1`` numbers): a binary search an owner, not a division an
    entry."""
    starts = np.empty(nowners + 1, dtype=np.int64)
    starts[0], starts[nowners] = 0, count
    for k in range(1, nowners):
        lo, hi, first = starts[k - 1], count, np.int64(k) * block_len
        while lo < hi:
            mid = (lo + hi) >> 1
            if ids[mid] < first:
                lo = mid + 1
            else:
                hi = mid
        starts[k] = lo
    return starts


@numba.njit(cache=True)
def _counts_of(ids, count, block_len, nowners, ids_sorted):
    """:func:`_owner_counts`, by :func:`_owner_starts` when the ids are increasing."""
    if ids_sorted:
        return np.diff(_owner_starts(ids, count, block_len, nowners))
    return _owner_counts(ids, count, block_len, nowners)


@numba.njit(cache=True, inline="always")
def _even(words):
    """wire.even."""
    return words + (words & 1)


@numba.njit(cache=True, inline="always")
def _piece(at, count, cap, vw, threshold, block_words, itemsize):
    """The piece at word ``at`` of an owner's ``count`` entries, by lagraph_dist.local.wire's
    rules (fixed_piece_words, counted_is_bitmap, counted_piece_words, compiled here for the pack
    and the merge): (its words, where its ids start, whether it is a list, where its values
    start, counted in values of ``itemsize`` bytes)."""
    if cap > 0:
        return 2 + _even(cap) + cap * vw, at + 2, True, (at + 2 + _even(cap)) * 4 // itemsize
    if vw == 0 and count > threshold:
        return block_words, at, False, 0
    return _even(count) + count * vw, at, True, (at + _even(count)) * 4 // itemsize


@numba.njit(cache=True, inline="always")
def _place(send, typed, ids, values, j, slot, k, block_len, id_at, value_at, vw):
    """Entry ``j`` (owner ``k``) into slot ``slot`` of its owner's piece: its local id and,
    when values travel, its value in the wire's type."""
    v = np.int64(ids[j])
    send[id_at[k] + slot] = np.uint32(v - k * block_len)
    if vw:
        typed[value_at[k] + slot] = values[v]


@numba.njit(cache=True)
def _pack(ids, found, ids_sorted, values, words, vw, block_len, nowners, cap, threshold, counts):
    """fold_pack in one call: the layout (lagraph_dist.local.wire's, a few numbers an owner),
    then each of the first ``found`` ids, in order, into its owner's piece, with its value
    from ``values`` (already the wire's type: an int64 array's low words when narrowed). Only
    what no entry fills is zeroed (headers, pads, a fixed piece's unused room, the tail of a
    value region), so the buffer costs its entries, and its bytes are those of a zeroed
    buffer. Counted pieces take their sizes from ``counts`` (fold_count's, already made);
    fixed ones count here. Increasing ids (``ids_sorted``, a CPU product's output) go owner
    by owner, each owner's run found by a binary search; others find their owner by a
    division each."""
    mine = _counts_of(ids, found, block_len, nowners, ids_sorted) if cap > 0 else counts
    block_words = block_len // 32
    itemsize = values.itemsize
    listed = np.ones(nowners, dtype=np.bool_)
    starts, id_at, value_at = (np.empty(nowners, dtype=np.int64), np.empty(nowners, dtype=np.int64),
                               np.empty(nowners, dtype=np.int64))
    at = 0
    for k in range(nowners):
        starts[k] = at
        size, id_at[k], listed[k], value_at[k] = _piece(at, mine[k], cap, vw, threshold, block_words, itemsize)
        at += size
    send = np.empty(at, dtype=np.uint32)
    for k in range(nowners):
        stop = starts[k + 1] if k + 1 < nowners else at
        if not listed[k]:
            send[starts[k]:stop] = words[k * block_words:(k + 1) * block_words]
            continue
        if cap > 0:
            send[starts[k]] = mine[k]
            send[starts[k] + 1] = 0
        kept = min(mine[k], cap) if cap > 0 else mine[k]
        values_from = id_at[k] + _even(cap if cap > 0 else mine[k])
        send[id_at[k] + kept:values_from] = 0                       # the ids' pad and unused room
        if vw:                                                      # the values' unused tail
            send[values_from + (kept * itemsize) // 4:stop] = 0
    typed = send.view(values.dtype)
    if ids_sorted:
        runs = _owner_starts(ids, found, block_len, nowners)
        for k in range(nowners):
            if listed[k]:
                first = runs[k]
                kept = runs[k + 1] - first if cap == 0 else min(runs[k + 1] - first, cap)  # past cap: a wrong bound
                for slot in range(kept):
                    _place(send, typed, ids, values, first + slot, slot, k, block_len, id_at, value_at, vw)
        return send
    placed = np.zeros(nowners, dtype=np.int64)
    for j in range(found):
        k = np.int64(ids[j]) // block_len
        if not listed[k]:
            continue
        slot = placed[k]
        placed[k] += 1
        if cap > 0 and slot >= cap:            # a wrong bound: the merge reports it
            continue
        _place(send, typed, ids, values, j, slot, k, block_len, id_at, value_at, vw)
    return send


_NO_COUNTS = np.zeros(1, dtype=np.int64)
_NO_VALUES = np.zeros(1, dtype=np.uint32)


def fold_count(part, counters, block_len, nowners):
    """Entries of the output queue owned by each of the ``nowners`` members (int64)."""
    return _counts_of(part.ids, int(counters[FOUND]), block_len, nowners, part.ids_sorted)


def _wire_values(values, vw):
    """The values as they travel (:func:`lagraph_dist.local.wire.wire_dtype`): narrowed ids are
    read in place, each int64's low word, by a strided view."""
    if vw == 0:                  # no values travel: a word-sized dummy (the buffer is viewed as it)
        return _NO_VALUES
    dtype = wire.wire_dtype(values.dtype, vw)
    if dtype == values.dtype:
        return values
    stride = values.itemsize // dtype.itemsize
    return values.view(dtype)[0 if sys.byteorder == "little" else stride - 1::stride]


def _values_of(buffer, dtype, vw):
    """The buffer seen as values in the wire's type (a value region at word W starts at value
    W * 4 // itemsize), or a dummy when no values travel."""
    return buffer.view(wire.wire_dtype(dtype, vw)) if vw else np.zeros(1, dtype)


def fold_pack(part, counters, vw, block_len, nowners, cap, threshold, counts=None):
    """The send buffer (uint32) of the ``nowners`` pieces of ``part`` (see :mod:`lagraph_dist.local.wire`):
    fixed pieces of capacity ``cap`` when cap > 0, else counted pieces laid out by ``counts``;
    values in ``vw`` words each (narrowed when fewer than their type's)."""
    return _pack(part.ids, int(counters[FOUND]), bool(part.ids_sorted), _wire_values(part.values, vw), part.words,
                 vw, block_len, nowners, cap, min(threshold, _MOST),
                 _NO_COUNTS if counts is None else counts.host.astype(np.int64, copy=False))


_MOST = np.iinfo(np.int64).max


@numba.njit(cache=True, inline="always")
def _offer(v, value, add, closed, mask, mode, words, out):
    """Offer ``value`` to output ``v``: True when claimed here first. ``any`` claims through
    ``closed`` (the refused outputs, then the claimed ones) and sets the bit in ``words``; the
    other monoids test the mask and claim or combine into ``words``/``out``."""
    if add == ADD_ANY:
        w, bit = v >> 5, np.uint32(1) << np.uint32(v & 31)
        if closed[w] & bit:
            return False
        closed[w] |= bit
        words[w] |= bit
        out[v] = value
        return True
    return allowed(mask, mode, v) and claim(words, out, v, value, add)


@numba.njit(cache=True)
def _take_list(ids, values, vw, count, add, closed, mask, mode, words, out, claimed, found):
    """A list piece's ``count`` entries (ids from ``ids[0]``, values from ``values[0]``) offered
    in order, the claims listed in ``claimed`` from ``found``; returns its new end. (A loop of
    its own over the piece's slices: written inside the merge's loop, 200,000 claims took 3.9
    ms rather than 1.0.)"""
    for j in range(count):
        v = np.int64(ids[j])
        if _offer(v, values[j] if vw else np.int64(1), add, closed, mask, mode, words, out):
            claimed[found] = v
            found += 1
    return found


@numba.njit(cache=True)
def _take_bits(piece, add, closed, mask, mode, words, out, claimed, found):
    """A bitmap piece's entries offered in increasing order, valued 1 (see :func:`_take_list`)."""
    for w in range(piece.shape[0]):
        x = piece[w]
        while x:
            v = w * 32 + trailing_zeros(x)
            x = np.uint32(x & (x - np.uint32(1)))
            if _offer(v, np.int64(1), add, closed, mask, mode, words, out):
                claimed[found] = v
                found += 1
    return found


@numba.njit(cache=True)
def _merge(recv, values, vw, nowners, block_len, cap, threshold, counts, mask, mode, add, words, out, degrees,
           has_degrees):
    """fold_merge in one call: the received pieces' layout (wire's), then their entries, piece
    by piece in order, claimed into ``words``/``out`` where the mask allows (a bitmap piece's
    entries in increasing order, valued 1), the claims listed; returns (increasing ids, their
    out-degrees' sum, whether a fixed piece held more than ``cap``)."""
    block_words = block_len // 32
    itemsize = values.itemsize
    listed = np.ones(nowners, dtype=np.bool_)
    id_at, sizes, value_at = (np.empty(nowners, dtype=np.int64), np.empty(nowners, dtype=np.int64),
                              np.empty(nowners, dtype=np.int64))
    overflow, at, entries = False, 0, 0
    for k in range(nowners):
        count = np.int64(recv[at]) if cap > 0 else counts[k]      # a fixed piece carries its count
        overflow |= cap > 0 and count > cap
        sizes[k] = min(count, cap) if cap > 0 else count
        size, id_at[k], listed[k], value_at[k] = _piece(at, count, cap, vw, threshold, block_words, itemsize)
        at += size
        entries += sizes[k]
    closed = closed_bits(mask, mode, words.shape[0]) if add == ADD_ANY else words
    claimed = np.empty(min(entries, block_len), dtype=np.int32)
    found = 0
    for k in range(nowners):
        if listed[k]:
            found = _take_list(recv[id_at[k]:], values[value_at[k]:] if vw else values, vw, sizes[k], add, closed,
                               mask, mode, words, out, claimed, found)
        else:
            found = _take_bits(recv[id_at[k]:id_at[k] + block_words], add, closed, mask, mode, words, out, claimed,
                               found)
    ids, edges = _claimed_list(words, claimed, found, degrees, has_degrees)
    return ids, edges, overflow


def fold_merge(recv, nowners, block_len, vw, cap, threshold, counts, semiring, mask_words, complement,
               *, out_degree=None):
    """The owner's block from the received pieces: entries the (exact) mask allows, combined
    by the semiring's monoid; returns (part, counters) like a product kernel."""
    dtype = np.dtype(semiring.out_dtype)
    add, _ = semiring_codes(semiring)
    mask, mode = mask_args(mask_words, complement)
    degrees, has_degrees = optional_int64(out_degree)
    words = np.zeros(-(-block_len // 32), dtype=np.uint32)
    out = np.empty(block_len, dtype=dtype)      # a slot is written when its bit is set, read after
    ids, edges, overflow = _merge(recv, _values_of(recv, dtype, vw), vw, nowners, block_len, cap, min(threshold, _MOST),
                                  _NO_COUNTS if counts is None else counts.host.astype(np.int64, copy=False), mask,
                                  mode, add, words, out, degrees, has_degrees)
    part, counters = listed_output(words, out, ids, edges, 0, out_degree is not None)
    counters[OVERFLOW] = int(overflow)
    return part, counters


def warm_up(semirings):
    """Compile (or load) the loops for each semiring's value type and wire widths (its own, and
    narrowed ids), fixed and counted pieces."""
    block_len, nowners = 64, 2
    widths = {(semiring, wire.value_words(semiring, backend=backend, vertices=block_len * nowners))
              for semiring in semirings for backend in (None, "cpu")}
    for semiring, vw in widths:
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
