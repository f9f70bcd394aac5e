"""Driver of kernels/kronecker.cu: Graph500 Kronecker edges made on the device, one thread an edge
(the twin of :mod:`lagraph_dist.local.cpu_kernels.kronecker`; the arithmetic is kernels/kronecker.cuh's,
which the tests also build for the host and compare with a numpy reference)."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.gpu_kernels.base import KernelsBase
from lagraph_dist.local.layout import THREADS


class KroneckerKernels(KernelsBase):
    """The kernel of kronecker.cu."""

    def kronecker_edges(self, first, count, scale, level_keys, thresholds, permute_keys):
        """int64 (src, dst) on the device of edges ``first .. first + count - 1``; one launch."""
        cp = self.cp
        src, dst = cp.empty(count, dtype=cp.int64), cp.empty(count, dtype=cp.int64)
        if count:
            self._function("kronecker", "ld_kronecker_edges")(
                (self._blocks(count),), (THREADS,),
                (np.int64(first), np.int64(count), np.int32(scale), cp.asarray(level_keys), cp.asarray(thresholds),
                 cp.asarray(permute_keys), np.int32(permute_keys.shape[0] // 2), src, dst))
        return src, dst
