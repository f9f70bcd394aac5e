"""Driver of kernels/push.cu: the load-balanced push SpMSpV."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.gpu_kernels.base import KernelsBase
from lagraph_dist.local.layout import PUSH_THREADS, TILE_EDGES


class PushKernels(KernelsBase):
    """The kernels of push.cu (its frontier scan is shared: KernelsBase._frontier_scan)."""

    def push_spmspv(self, csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map,
                    *, out_degree=None, frontier_edges=None):
        cp = self.cp
        nf = int(frontier_ids.shape[0])
        bound = csr.nminor if frontier_edges is None else frontier_edges
        part, counters = self._output(semiring, csr.nminor, bound)
        if nf == 0:
            return part, counters
        frontier = frontier_ids.astype(cp.int32, copy=False)
        scan = self._frontier_scan(csr, frontier)
        # a block walks a contiguous run of tiles: as many blocks as stay resident, fewer for a
        # small frontier (the total, when the caller knows it, is an upper bound)
        resident = self._sms * 8
        blocks = resident if frontier_edges is None else max(1, min(-(-int(frontier_edges) // TILE_EDGES), resident))
        mask, mode = self._mask(mask_words, complement)
        left = frontier_values if frontier_values is not None else part.values[:1]
        self._function("push", "ld_push_spmspv", *self._codes(semiring))(
            (blocks,), (PUSH_THREADS,),
            (csr.indptr, csr.indices, frontier, left, scan, np.int32(nf), mask, mode, part.words, part.values,
             part.ids, counters, self._or_null(out_degree)) + self._idmap(in_map))
        return part, counters
