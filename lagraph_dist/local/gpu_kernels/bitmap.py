"""Driver of kernels/bitmap.cu: bitmaps from lists and back, counts, membership, assignment; the
counters every product starts from."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.gpu_kernels.base import _CTYPE, KernelsBase
from lagraph_dist.local.layout import NCOUNTERS, THREADS


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

    def single_entry(self, index, value, length, dtype, *, as_list=False):
        """A bitmap part's (words, dense values) holding only entry ``index`` (none when it is
        negative), and with ``as_list`` the same entry as (ids, values) of one; values elsewhere
        are left unset (nothing reads a slot without its bit, as in the products' outputs). One
        launch, no copy from the host."""
        cp, dtype = self.cp, np.dtype(dtype)
        words, values = cp.zeros(length // 32, dtype=cp.uint32), cp.empty(length, dtype=dtype)
        listed = (cp.empty(int(index >= 0), dtype=cp.int32), cp.empty(int(index >= 0), dtype=dtype)) if as_list else ()
        if index >= 0:
            self._function("bitmap", "ld_single_entry", _CTYPE[dtype])(
                (1,), (1,), (np.int32(index), dtype.type(value), words, values,
                             *(listed if as_list else (np.intp(0), np.intp(0)))))
        return (words, values, *listed) if as_list else (words, values)
