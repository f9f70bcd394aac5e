"""Twin of kernels/pull.cu: the bottom-up pull SpMV, stopping at a row's first frontier input where
the semiring allows."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import bitmap_test
from lagraph_dist.local.cpu_kernels.common import _allowed, _edges_of, _output_part
from lagraph_dist.local.parts import combine_duplicates, multiply_values


def pull_spmv(csr, frontier_words, frontier_values, semiring, mask_words, complement, in_map,
              *, out_degree=None):
    """Bottom-up w = u' M over a bitmap frontier, one candidate output row at a time.

    ``csr`` is indexed by output row; candidates are the rows the mask lets through. A row that
    may stop at its first hit counts the inputs scanned up to and including it as examined.
    """
    all_rows = np.arange(csr.nmajor, dtype=np.int64)
    rows = all_rows[_allowed(all_rows, mask_words, complement)]
    owner, cols, total = _edges_of(csr, rows)
    hit = bitmap_test(frontier_words, cols)
    degrees = csr.indptr[rows + 1] - csr.indptr[rows]
    if semiring.first_hit_is_final:
        position = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(degrees) - degrees, degrees)
        first = np.full(rows.shape[0], np.iinfo(np.int64).max)
        np.minimum.at(first, owner[hit], position[hit])
        found = first != np.iinfo(np.int64).max
        examined = int(np.where(found, first + 1, degrees).sum())
        keep = hit & (position == first[owner])
    else:
        examined, keep = total, hit
    left = None if frontier_values is None else frontier_values[cols[keep]]
    values = multiply_values(semiring, cols[keep], left, in_map, np)
    ids, values = combine_duplicates(rows[owner[keep]].astype(np.int32), values, semiring.add, np)
    return _output_part(ids, values, csr.nmajor, semiring, examined, out_degree)
