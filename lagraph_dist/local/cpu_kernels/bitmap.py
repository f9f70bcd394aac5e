"""Twins of kernels/bitmap.cu: bitmaps from lists and back, counts, membership, assignment; the
counters every product starts from. Lists to bitmaps and back are compiled loops that touch
the list and the words only (not a byte a slot); counts and membership tests are numpy's own
single passes."""
from __future__ import annotations

import llvmlite.ir as llvm_ir
import numba
import numpy as np
from numba import prange
from numba.core import cgutils, types
from numba.extending import intrinsic

from lagraph_dist.local import recycle
from lagraph_dist.local.layout import NCOUNTERS
from lagraph_dist.semirings import lookup_monoid


def new_counters():
    return np.zeros(NCOUNTERS, dtype=np.uint64)


@numba.njit(cache=True, inline="always")
def popcount64(x):
    """Set bits of a uint64 (the SWAR count; LLVM emits popcnt where the CPU has it)."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True)
def _set_bits(ids, words):
    for v in ids:
        words[v >> 5] |= np.uint32(1) << np.uint32(v & 31)


@numba.njit(cache=True)
def _list_and_degrees(words, degrees, has_degrees):
    """The set bits of ``words`` as increasing int32 ids, and the sum of ``degrees`` over them
    (0 unless ``has_degrees``)."""
    count = 0
    for w in words:
        count += popcount64(w)
    ids = np.empty(count, dtype=np.int32)
    at, total = 0, 0
    for k in range(words.shape[0]):
        w = np.uint32(words[k])
        while w:
            v = k * 32 + popcount64((w & (~w + np.uint32(1))) - np.uint32(1))
            ids[at] = v
            at += 1
            if has_degrees:
                total += degrees[v]
            w &= w - np.uint32(1)
    return ids, total


#: a kernel's list of ``count`` claimed ids is sorted, rather than its output's bitmap read in
#: order, when count * this is below the bitmap's words (measured on one core: a word read
#: 0.6 ns, a sorted id about 10 ns)
SORT_OVER_SCAN = 16


@numba.njit(cache=True)
def _claimed_list(words, claimed, count, degrees, has_degrees):
    """A kernel's output as a list: the ``count`` distinct ids it claimed (``claimed[:count]``,
    in any order, exactly the set bits of ``words``) as increasing int32 ids, and the sum of
    ``degrees`` over them (0 unless ``has_degrees``). A few ids are sorted, so a small output
    costs its entries and not the whole bitmap; many are read off the bitmap in order."""
    if count * SORT_OVER_SCAN >= words.shape[0]:
        return _list_and_degrees(words, degrees, has_degrees)
    ids = np.sort(claimed[:count]).astype(np.int32)
    total = 0
    if has_degrees:
        for v in ids:
            total += degrees[v]
    return ids, total


_NO_DEGREES = np.zeros(1, dtype=np.int64)


def bitmap_from_list(ids, length, words=None):
    """Packed uint32 words with bit l set for each l in ``ids`` (``length`` a multiple of 32);
    set into ``words`` in place when given."""
    if words is None:
        words = np.zeros(-(-length // 32), dtype=np.uint32)
    if ids.dtype != np.int32 and ids.dtype != np.int64:
        ids = ids.astype(np.int64)
    _set_bits(ids, words)
    return words


def list_from_bitmap(words, count=None):
    """Sorted int32 ids of the set bits (``count``, when known, is only a size hint)."""
    return _list_and_degrees(words, _NO_DEGREES, False)[0]


def popcount(words) -> int:
    return int(np.bitwise_count(words).sum())


def bitmap_test(words, ids):
    """Bool per id: is its bit set?"""
    ids = ids.astype(np.int64, copy=False)
    return ((words[ids >> 5] >> (ids & 31).astype(np.uint32)) & 1).astype(bool)


@numba.njit(cache=True)
def _assign(ids, words, values, src, mode):
    """The bits of ``ids`` set in ``words`` and their values written, from ``src[id]`` (mode
    0), ``src[i]`` (1) or ``src[0]`` (2), in one pass over the list."""
    for i in range(ids.shape[0]):
        v = ids[i]
        words[v >> 5] |= np.uint32(1) << np.uint32(v & 31)
        values[v] = src[v] if mode == 0 else src[i] if mode == 1 else src[0]


#: value types the compiled assignment is made for (the searches' visited, parents, depths);
#: others go through numpy's casting assignment
_ASSIGNED = (np.dtype(np.int64), np.dtype(np.bool_))


def assign_from_list(ids, words, values, *, src_dense=None, src_compact=None, scalar=None):
    """In place: set the bits of ``ids`` in ``words`` and write their values from
    ``src_dense[id]``, ``src_compact[i]`` or ``scalar`` (GrB_assign with a structural mask)."""
    mode = 2 if scalar is not None else 1 if src_compact is not None else 0
    src = np.asarray(scalar).reshape(1) if mode == 2 else src_compact if mode == 1 else src_dense
    if values.dtype in _ASSIGNED and src.dtype == values.dtype and (ids.dtype == np.int32 or ids.dtype == np.int64):
        _assign(ids, words, values, src, mode)
        return
    bitmap_from_list(ids, words.shape[0] * 32, words)
    if scalar is not None:
        values[ids] = scalar
    elif src_compact is not None:
        values[ids] = src_compact
    else:
        values[ids] = src_dense[ids]


def level_planes_rows(planes, start, stop):
    """Twin of ld_level_planes_rows: rows ``start .. stop - 1`` of a batch's levels kept as
    ``planes`` (:class:`~lagraph_dist.local.engine.LevelPlanes`, numpy words) as a
    (stop - start, k) int32 table, -1 where unreached; the rows shared by the cores."""
    out = recycle.empty((max(int(stop) - int(start), 0), planes.k), np.int32)    # (a large one: pages mapped)
    if out.size:
        _planes_rows(planes.words, int(start), out)
    return out


@numba.njit(cache=True, parallel=True)
def _planes_rows(words, start, out):
    """Row ``start + r`` into ``out[r]``: search c's bit c % 64 of word c // 64 of each plane,
    plane 0 its reached bit, plane 1 + p its depth's bit p. A word's 64 columns are written
    plane by plane, each plane's word read once: 0 where reached, else -1, then each depth
    plane's bit ORed in at its weight (an unreached column's -1 has every bit set already), a
    loop of shifts the compiler makes vector instructions of, where a column at a time read
    every plane's word again and branched on the reached bit."""
    nplanes, width = words.shape[0], out.shape[1]
    for r in prange(out.shape[0]):
        v = start + r
        for w in range(words.shape[2]):
            base = w * 64
            top = min(64, width - base)
            reached = words[0, v, w]
            for c in range(top):
                out[r, base + c] = np.int32((reached >> np.uint64(c)) & np.uint64(1)) - np.int32(1)
            for p in range(1, nplanes):
                word = words[p, v, w]
                if word == 0:
                    continue
                for c in range(top):
                    out[r, base + c] |= np.int32((word >> np.uint64(c)) & np.uint64(1)) << np.int32(p - 1)


#: ``level_planes_reduced``'s kinds, in the order of its accumulators
_PLANE_REDUCTIONS = ("plus", "min", "max")
#: rows a block of ``level_planes_reduced``, whose threads take the blocks in turn
PLANE_BLOCK = 1024


def level_planes_reduced(planes, start, stop, kinds):
    """Rows ``start .. stop - 1`` of a batch's levels kept as ``planes`` (numpy words) reduced
    search by search without making their table: a (len(kinds) + 1, k) int64 array, row j the
    reduction by ``kinds[j]`` ("plus", "min" or "max") of each search's levels over the rows it
    reached (the monoid's identity where it reached none), the last row the rows each reached.
    No kernel of bitmap.cu matches it: the table it skips is what costs on the host (4 bytes a
    (vertex, search) written and read again, where the planes are a few bits)."""
    for kind in kinds:
        if kind not in _PLANE_REDUCTIONS:
            raise ValueError(f"level_planes_reduced reduces by {', '.join(_PLANE_REDUCTIONS)}, not {kind!r}")
    start, stop = int(start), max(int(stop), int(start))
    parts = max(1, min(numba.get_num_threads(), (stop - start) // 4096))
    shares = _planes_reduced(planes.words, start, stop, planes.k, parts, "min" in kinds, "max" in kinds,
                             lookup_monoid("min").identity_of(np.int64), lookup_monoid("max").identity_of(np.int64))
    totals = {"plus": shares[:, 0].sum(axis=0), "min": shares[:, 1].min(axis=0), "max": shares[:, 2].max(axis=0)}
    return np.stack([*(totals[kind] for kind in kinds), shares[:, 3].sum(axis=0)]).astype(np.int64, copy=False)


@numba.njit(cache=True, parallel=True)
def _planes_reduced(words, start, stop, k, parts, with_min, with_max, min_identity, max_identity):
    """(parts, 4, k) int64: each share of the rows' sum, min, max and count of each search's
    levels, the min and max starting at their monoids' identities. A row's word of 64 searches
    is decoded into 64 levels in registers (each depth plane's word, masked by the reached
    bits, ORed in at its weight), then added to the share's accumulators, loops the compiler
    makes vector instructions of; an unreached search's level (0 after the mask) adds nothing
    to the sum and stands as the identity in the min and max: arithmetic, not a branch. Share t
    takes the blocks of PLANE_BLOCK rows t, t + parts, ...: a row no search reached costs nothing,
    and on a graph numbered hubs first (the degree twin) those rows lie together at the end."""
    out = np.zeros((parts, 4, k), np.int64)
    blocks = -(-(stop - start) // PLANE_BLOCK)
    for t in prange(parts):
        acc = out[t]
        for c in range(k):
            acc[1, c] = min_identity
            acc[2, c] = max_identity
        level = np.zeros(64, np.int64)
        got = np.zeros(64, np.int64)
        for b in range(t, blocks, parts):
            _reduce_rows(words, start + b * PLANE_BLOCK, min(stop, start + (b + 1) * PLANE_BLOCK), k, acc, level, got,
                         with_min, with_max, min_identity, max_identity)
    return out


@numba.njit(cache=True, inline="always")
def _reduce_rows(words, first, last, k, acc, level, got, with_min, with_max, min_identity, max_identity):
    """Rows ``first .. last - 1`` of :func:`_planes_reduced` into one share's accumulators ``acc``
    (``level`` and ``got``: its 64-slot scratch)."""
    nplanes, nwords = words.shape[0], words.shape[2]
    for v in range(first, last):
        for w in range(nwords):
            reached = words[0, v, w]
            if reached == 0:
                continue
            base = w * 64
            top = min(64, k - base)
            for c in range(top):
                got[c] = np.int64((reached >> np.uint64(c)) & np.uint64(1))
                level[c] = 0
            for p in range(1, nplanes):
                word = words[p, v, w] & reached
                if word != 0:
                    for c in range(top):
                        level[c] |= np.int64((word >> np.uint64(c)) & np.uint64(1)) << np.int64(p - 1)
            for c in range(top):
                acc[0, base + c] += level[c]
                acc[3, base + c] += got[c]
            if with_min:
                for c in range(top):
                    acc[1, base + c] = min(acc[1, base + c], level[c] + (1 - got[c]) * min_identity)
            if with_max:
                for c in range(top):
                    acc[2, base + c] = max(acc[2, base + c], level[c] + (1 - got[c]) * max_identity)


def warm_up():
    """Compile (or load from the cache) this module's loops for the types the products use."""
    _planes_rows(np.zeros((2, 1, 1), np.uint64), 0, np.zeros((1, 1), np.int32))
    _planes_reduced(np.zeros((2, 1, 1), np.uint64), 0, 1, 1, 1, True, True, 0, 0)
    for ids in (np.array([1], np.int32), np.array([1], np.int64)):
        list_from_bitmap(bitmap_from_list(ids, 32))
    _list_and_degrees(np.zeros(1, np.uint32), _NO_DEGREES, True)
    for dtype in _ASSIGNED:
        values = np.zeros(32, dtype)
        for ids in (np.array([1], np.int32), np.array([1], np.int64)):
            for mode, src in ((0, values), (1, values[:1]), (2, values[:1])):
                _assign(ids, np.zeros(1, np.uint32), values, src, mode)


def single_entries(index, entries, length, *, as_list=False):
    """Twin of ld_single_entries: bitmap parts (words, dense values), one for each (value,
    dtype) of ``entries``, each holding only entry ``index`` (none when it is negative), and
    with ``as_list`` the first entry also as (ids, values) of one. Values elsewhere are left
    unset, as the kernel leaves them (nothing reads a slot without its bit): zeroing a search's
    parents and depths was a tenth of a 100,000-vertex path's search."""
    if not 1 <= len(entries) <= 2:
        raise ValueError(f"single_entries makes one or two parts, not {len(entries)}")
    present = int(index >= 0)
    parts = []
    for value, dtype in entries:
        words, values = np.zeros(length // 32, dtype=np.uint32), np.empty(length, dtype=dtype)
        if present:
            words[index >> 5] = np.uint32(1) << np.uint32(index & 31)
            values[index] = value
        parts.append((words, values))
    value, dtype = entries[0]
    # (made from lists: np.full costs 1 us more a call)
    listed = (np.array([index][:present], dtype=np.int32), np.array([value][:present], dtype=dtype))
    return (parts, listed) if as_list else parts


@intrinsic
def trailing_zeros(typingctx, word):
    """The index of the lowest set bit of the low 32 bits of a word (nonzero there; numba widens
    uint32 arithmetic to 64 bits, so the word may come as a uint64): LLVM's cttz, one
    instruction."""
    def codegen(context, builder, signature, args):
        i32 = llvm_ir.IntType(32)
        low = context.cast(builder, args[0], signature.args[0], types.uint32)
        fn = cgutils.get_or_insert_function(builder.module, llvm_ir.FunctionType(i32, [i32, llvm_ir.IntType(1)]),
                                            "llvm.cttz.i32")
        return builder.zext(builder.call(fn, [low, llvm_ir.Constant(llvm_ir.IntType(1), 1)]), llvm_ir.IntType(64))
    return types.int64(word), codegen


def empty_rows(csr):
    """The bits of ``csr``'s rows without entries (no pull reads them), made once a block and
    kept with it (at least one word, so that a loop may read word 0 of an empty block)."""
    known = csr.derived.get("empty_rows")
    if known is None:
        known = csr.derived["empty_rows"] = rows_without_inputs(csr.indptr, max(-(-csr.nmajor // 32), 1))
    return known


@numba.njit(cache=True)
def rows_without_inputs(indptr, nwords):
    """The bitmap of the rows of ``indptr`` that hold no entry (a pull never looks at them)."""
    bits = np.zeros(nwords, np.uint32)
    for r in range(indptr.shape[0] - 1):
        if indptr[r] == indptr[r + 1]:
            bits[r >> 5] |= np.uint32(1) << np.uint32(r & 31)
    return bits
