"""What the products' twins share (kernels/common.cuh's part): the mask test, a frontier's
edges, and the output part with its counters."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import bitmap_from_list, bitmap_test, new_counters
from lagraph_dist.local.layout import EXAMINED, FOUND, PUSH_EDGES
from lagraph_dist.local.parts import LocalPart


def _allowed(rows, mask_words, complement):
    if mask_words is None:
        return np.ones(rows.shape[0], dtype=bool)
    hit = bitmap_test(mask_words, rows)
    return ~hit if complement else hit


def _edges_of(csr, majors):
    """Every (position in ``majors``, minor id) pair of the given rows, load-balanced.

    Edge e belongs to the last frontier entry whose exclusive degree scan is <= e, the search
    each GPU thread does for its edge.
    """
    starts = csr.indptr[majors]
    degrees = csr.indptr[majors + 1] - starts
    scan = np.cumsum(degrees) - degrees
    total = int(degrees.sum()) if degrees.shape[0] else 0
    edge = np.arange(total, dtype=np.int64)
    owner = np.searchsorted(scan, edge, side="right") - 1
    minors = csr.indices[starts[owner] + (edge - scan[owner])]
    return owner, minors, total


def _output_part(ids, values, length, semiring, examined, out_degree):
    """A kernel's output: a bitmap part that also lists its entries, and its counters."""
    dense = np.zeros(length, dtype=semiring.out_dtype)
    dense[ids] = values
    part = LocalPart("bitmap", length, None, dense, words=bitmap_from_list(ids, length), ids=ids,
                     ids_sorted=True)
    counters = new_counters()
    counters[FOUND] = ids.shape[0]
    counters[EXAMINED] = examined
    if out_degree is not None:
        counters[PUSH_EDGES] = int(out_degree[ids].sum())
    return part, counters
