"""Driver of kernels/bitmap.cu: bitmaps from lists and back, counts, membership, assignment; the
counters every product starts from."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.gpu_kernels.base import _CTYPE, KernelsBase
from lagraph_dist.local.layout import NCOUNTERS, THREADS


def value_bits(value, dtype):
    """``value`` as ``dtype`` stores it, read as an unsigned integer (how a kernel that writes
    values of any width receives one)."""
    # the searches' own values (a vertex id as int64, True) without a numpy round trip
    if dtype.kind == "b" and isinstance(value, (bool, np.bool_)):
        return int(value)
    if dtype == np.int64 and isinstance(value, (int, np.integer)) and -(1 << 63) <= value < (1 << 63):
        return int(value) & ((1 << 64) - 1)                       # two's complement, as stored
    return int.from_bytes(np.asarray(value, dtype=dtype).tobytes(), "little")


class BitmapKernels(KernelsBase):
    """The kernels of bitmap.cu."""

    def new_counters(self):
        return self.cp.zeros(NCOUNTERS, dtype=self.cp.uint64)

    # -- bitmaps ----------------------------------------------------------------------------
    def bitmap_from_list(self, ids, length, words=None):
        cp = self.cp
        if words is None:
            words = cp.zeros(length // 32, dtype=cp.uint32)
        count = ids.shape[0]
        if count:
            self._function("bitmap", "ld_bitmap_from_list")(
                (self._blocks(count),), (THREADS,), (ids.astype(cp.int32, copy=False), np.int64(count), words))
        return words

    def list_from_bitmap(self, words, count=None):
        cp = self.cp
        nwords = words.shape[0]
        counts = cp.empty(nwords, dtype=cp.int32)
        self._function("bitmap", "ld_popcount_words")((self._blocks(nwords),), (THREADS,),
                                                      (words, np.int64(nwords), counts))
        inclusive = cp.cumsum(counts, dtype=cp.int64)
        if count is None:
            count = int(self.read(inclusive[-1:])[0]) if nwords else 0
        ids = cp.empty(count, dtype=cp.int32)
        if count:
            self._function("bitmap", "ld_list_from_bitmap")(
                (self._blocks(nwords * 32),), (THREADS,), (words, np.int64(nwords), inclusive - counts, ids))
        return ids

    def level_planes_rows(self, planes, start, stop):
        """Rows ``start .. stop - 1`` of a batch's levels kept as ``planes`` (device words) as a
        (stop - start, k) int32 table (bitmap.cu's ld_level_planes_rows)."""
        cp = self.cp
        nplanes, rows, words = planes.words.shape
        count = max(int(stop) - int(start), 0)
        out = cp.empty((count, planes.k), dtype=cp.int32)
        if count and planes.k:
            self._function("bitmap", "ld_level_planes_rows")(
                (self._blocks(count * planes.k),), (THREADS,),
                (planes.words, np.int64(nplanes), np.int64(rows), np.int64(words), np.int64(planes.k),
                 np.int64(start), np.int64(count), out))
        return out

    def popcount(self, words):
        """Set bits of ``words`` (reads one number back)."""
        cp = self.cp
        total = cp.zeros(1, dtype=cp.uint64)
        nwords = words.shape[0]
        self._function("bitmap", "ld_count_bits")((self._blocks(nwords),), (THREADS,),
                                                  (words, np.int64(nwords), total))
        return int(self.read(total)[0])

    def bitmap_test(self, words, ids):
        cp = self.cp
        out = cp.empty(ids.shape[0], dtype=cp.bool_)
        if ids.shape[0]:
            self._function("bitmap", "ld_bitmap_test")(
                (self._blocks(ids.shape[0]),), (THREADS,),
                (words, ids.astype(cp.int32, copy=False), np.int64(ids.shape[0]), out))
        return out

    def assign_from_list(self, ids, words, values, *, src_dense=None, src_compact=None, scalar=None):
        """In place: set the bits of ``ids`` and write their values (one launch)."""
        count = int(ids.shape[0])
        if not count:
            return
        dtype = values.dtype
        mode = 2 if scalar is not None else 1 if src_compact is not None else 0
        src = src_dense if mode == 0 else src_compact
        src = values if src is None else src.astype(dtype, copy=False)
        self._function("bitmap", "ld_assign_from_list", _CTYPE[np.dtype(dtype)])(
            (self._blocks(count),), (THREADS,),
            (ids.astype(self.cp.int32, copy=False), np.int64(count), src, src, dtype.type(scalar or 0),
             np.int32(mode), words, values))

    def single_entries(self, index, entries, length, *, as_list=False):
        """Bitmap parts (words, dense values), one for each (value, dtype) of ``entries`` (one
        or two), each holding only entry ``index`` (none when it is negative) with its value,
        and with ``as_list`` the first entry also as (ids, values) of one: [(words, values),
        ...] (+ (ids, values)). Values elsewhere are left unset (nothing reads a slot without
        its bit, as in the products' outputs). One launch for all of them, no host copy."""
        cp, count = self.cp, len(entries)
        if not 1 <= count <= 2:
            raise ValueError(f"single_entries makes one or two parts, not {count}")
        nwords = length // 32
        words = cp.empty(count * nwords, dtype=cp.uint32)
        parts = [(words[k * nwords:(k + 1) * nwords], cp.empty(length, dtype=np.dtype(dtype)))
                 for k, (_, dtype) in enumerate(entries)]
        present = int(index >= 0)
        first_dtype = np.dtype(entries[0][1])
        listed = (cp.empty(present, dtype=cp.int32), cp.empty(present, dtype=first_dtype)) if as_list else None
        stored = [(values, np.uint64(value_bits(value, values.dtype)), np.int32(values.dtype.itemsize))
                  for (value, _), (_, values) in zip(entries, parts)]
        if count == 1:
            stored.append((np.intp(0), np.uint64(0), np.int32(0)))
        if words.shape[0] or present:
            self._function("bitmap", "ld_single_entries")(
                (self._blocks(count * nwords),), (THREADS,),
                (np.int32(index), np.int64(nwords), np.int32(count), words, *stored[0], *stored[1],
                 *(listed if as_list and present else (np.intp(0), np.intp(0)))))
        return (parts, listed) if as_list else parts
