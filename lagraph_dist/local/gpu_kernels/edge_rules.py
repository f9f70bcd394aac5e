"""Driver of kernels/edge_rules.cu: the Graph500 edge rules in one launch over a block (the twin
of :mod:`lagraph_dist.local.cpu_kernels.edge_rules`, whose docstring says the rules)."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.engine import EDGE_RULE_NONE
from lagraph_dist.local.gpu_kernels.base import KernelsBase, NULL_POINTER
from lagraph_dist.local.layout import RULE_EDGES, THREADS


class EdgeRuleKernels(KernelsBase):
    """The kernel of edge_rules.cu."""

    def check_edges(self, csr, row_map, col_map, rows_are_heads, depth, parents, marks):
        """The twin's contract; one launch and one read of the three results."""
        found = self.cp.full(3, EDGE_RULE_NONE, dtype=self.cp.uint64)
        if csr.nnz:
            grid = (self._blocks(csr.nnz, per_thread=RULE_EDGES),)
            self._function("edge_rules", "ld_check_edges")(
                grid, (THREADS,),
                (csr.indptr, csr.indices, np.int64(csr.nmajor), *(np.int64(x) for x in row_map),
                 *(np.int64(x) for x in col_map), np.int32(bool(rows_are_heads)), depth,
                 NULL_POINTER if parents is None else parents, np.int64(depth.shape[0]), marks, found,
                 np.int64(RULE_EDGES)))
        return self.read(found)
