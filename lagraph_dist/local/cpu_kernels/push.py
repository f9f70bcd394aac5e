"""Twin of kernels/push.cu: the load-balanced push SpMSpV."""
from __future__ import annotations

import numpy as np

from lagraph_dist.local.cpu_kernels.common import _allowed, _edges_of, _output_part
from lagraph_dist.local.parts import combine_duplicates, multiply_values


def push_spmspv(csr, frontier_ids, frontier_values, semiring, mask_words, complement, in_map,
                *, out_degree=None, frontier_edges=None):
    """Top-down w = u' M over a list frontier; returns (output-space part, counters).

    ``out_degree`` (dense over the output space) makes the counters sum the found entries'
    degrees; ``frontier_edges`` (the frontier's total degree, when the caller knows it) only
    sizes the GPU launch.
    """
    majors = frontier_ids.astype(np.int64)
    owner, rows, examined = _edges_of(csr, majors)
    keep = _allowed(rows, mask_words, complement)
    owner, rows = owner[keep], rows[keep]
    left = None if frontier_values is None else frontier_values[owner]
    values = multiply_values(semiring, frontier_ids[owner], left, in_map, np)
    ids, values = combine_duplicates(rows.astype(np.int32), values, semiring.add, np)
    return _output_part(ids, values, csr.nminor, semiring, examined, out_degree)
