"""Driver of kernels/pull.cu: the bottom-up pull SpMV, long rows in a second launch."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.gpu_kernels.base import KernelsBase
from lagraph_dist.local.layout import LONG_ROW_THRESHOLD, THREADS


class PullKernels(KernelsBase):
    """The kernels of pull.cu."""

    def pull_spmv(self, csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map,
                  *, out_degree=None):
        cp = self.cp
        nrows = csr.nmajor
        part, counters = self._output(semiring, nrows, nrows)
        long_rows = cp.empty(max(nrows, 1), dtype=cp.int32)     # at most every row: no count to read
        mask, mode = self._mask(mask_words, complement)
        left = frontier_values if frontier_values is not None else part.values[:1]
        degrees = self._or_null(out_degree)
        codes = self._codes(semiring)
        self._function("pull", "ld_pull_rows", *codes)(
            (self._blocks(nrows, cap_per_sm=16),), (THREADS,),
            (csr.indptr, csr.indices, np.int64(nrows), frontier_words, left, mask, mode, part.words,
             part.values, part.ids, long_rows, np.int64(LONG_ROW_THRESHOLD), counters, degrees)
            + self._idmap(in_map))
        self._function("pull", "ld_pull_long_rows", *codes)(
            (self._sms * 4,), (THREADS,),
            (csr.indptr, csr.indices, long_rows, frontier_words, left, part.words, part.values, part.ids,
             counters, degrees) + self._idmap(in_map))
        return part, counters
