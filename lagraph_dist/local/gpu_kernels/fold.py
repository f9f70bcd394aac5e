"""Driver of kernels/fold.cu: the fold's count, pack per owner and merge at the owner, in the wire
format of lagraph_dist.local.wire."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local import wire
from lagraph_dist.local.gpu_kernels.base import _CTYPE, KernelsBase
from lagraph_dist.local.layout import THREADS


class FoldKernels(KernelsBase):
    """The kernels of fold.cu."""

    # -- the fold (kernels/fold.cu) -------------------------------------------------------
    def fold_count(self, part, counters, block_len, nowners):
        cp = self.cp
        counts = cp.zeros(nowners, dtype=cp.int64)
        self._function("fold", "ld_fold_count")(
            (self._blocks(part.ids.shape[0]),), (THREADS,),
            (part.ids, counters, np.int64(block_len), np.int32(nowners), counts))
        return counts

    def fold_pack(self, part, counters, vw, block_len, nowners, cap, threshold, counts=None):
        cp = self.cp
        if cap > 0:
            # the count words are the cursors: zeroed with the rest in one memset (a strided
            # set of a word a piece is a kernel and costs more host time than the memset)
            send = cp.zeros(nowners * wire.fixed_piece_words(cap, vw), dtype=cp.uint32)
            cursors, device_counts = self._dummy_words, self._dummy_words
        else:
            send = cp.empty(wire.counted_words(counts.host, block_len, vw), dtype=cp.uint32)
            cursors, device_counts = cp.zeros(nowners, dtype=cp.uint32), counts.device
        self._function("fold", "ld_fold_pack", _CTYPE[np.dtype(part.values.dtype)])(
            (self._blocks(part.ids.shape[0]),), (THREADS,),
            (part.ids, counters, part.words, part.values, np.int64(block_len), np.int32(nowners), np.int32(vw),
             np.int64(cap), np.int64(threshold), device_counts, cursors, send))
        return send

    def fold_merge(self, recv, nowners, block_len, vw, cap, threshold, counts, semiring, mask_words, complement,
                   *, out_degree=None):
        if cap > 0:
            device_counts, capacity, per_piece = self._dummy_words, nowners * cap, cap
        else:
            device_counts = counts.device
            capacity, per_piece = int(counts.host.sum()), max(int(counts.host.max()), 1)
        part, merged = self._output(semiring, block_len, capacity)
        mask, mode = self._mask(mask_words, complement)
        blocks_per_piece = self._blocks(max(per_piece, 1), cap_per_sm=8)
        self._function("fold", "ld_fold_merge", *self._codes(semiring)[1:])(
            (blocks_per_piece, nowners), (THREADS,),
            (recv, np.int32(nowners), np.int64(block_len), np.int32(vw), np.int64(cap), np.int64(threshold),
             device_counts, mask, mode, part.words, part.values, part.ids, merged,
             self._or_null(out_degree)))
        return part, merged
