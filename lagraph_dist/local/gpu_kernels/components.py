"""Driver of kernels/components.cu: connected-component labels by a sampled union-find (the
twin of :mod:`lagraph_dist.local.cpu_kernels.components`, whose docstring says the method)."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.engine import COMPONENT_SAMPLED_EDGES, COMPONENT_SAMPLES
from lagraph_dist.local.gpu_kernels.base import KernelsBase
from lagraph_dist.local.layout import THREADS


class ComponentKernels(KernelsBase):
    """The kernels of components.cu."""

    def connected_components(self, out_csr, in_csr, n):
        """(int64 labels on the device, each vertex's smallest id of its component (weakly
        connected: ``in_csr`` the in-edges of a directed graph, None for a symmetric one), the
        number of components among the first ``n`` vertices). Two reads: the sampled vertices'
        most frequent root, and the count."""
        cp = self.cp
        rows = out_csr.nmajor
        parent = cp.arange(rows, dtype=cp.int64)
        if rows == 0:
            return parent, 0
        grid, count = (self._blocks(rows),), np.int64(rows)
        link, rest = self._function("components", "ld_cc_link_round"), self._function("components", "ld_cc_link_rest")
        compress = self._function("components", "ld_cc_compress")
        for edge in range(COMPONENT_SAMPLED_EDGES):
            link(grid, (THREADS,), (out_csr.indptr, out_csr.indices, parent, count, np.int64(edge)))
            compress(grid, (THREADS,), (parent, count))
        picks = cp.asarray(np.random.default_rng(0).integers(0, rows, min(COMPONENT_SAMPLES, rows)))
        roots, counts = cp.unique(parent[picks], return_counts=True)
        giant = np.int64(self.read(roots[counts.argmax()].reshape(1))[0])
        rest(grid, (THREADS,), (out_csr.indptr, out_csr.indices, parent, count, np.int64(COMPONENT_SAMPLED_EDGES),
                                giant))
        if in_csr is not None:
            rest(grid, (THREADS,), (in_csr.indptr, in_csr.indices, parent, count, np.int64(0), giant))
        compress(grid, (THREADS,), (parent, count))
        named_by_themselves = (parent[:n] == cp.arange(n, dtype=cp.int64)).sum()
        return parent, int(self.read(named_by_themselves.reshape(1))[0])
