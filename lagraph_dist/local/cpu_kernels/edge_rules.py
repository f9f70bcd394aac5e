"""The Graph500 edge rules in one compiled pass over a block's stored edges, for
:func:`lagraph_dist.tools.validate.validate` (the twin of ``kernels/edge_rules.cu``).

Row r of the block holds the edges between the vertex of global id ``row_map(r)`` and those of
its entries ``col_map(indices[e])`` (each map a ``(block_len, stride, offset)``
:class:`~lagraph_dist.comm.grid.IdMap`); the row's vertex is the edges' tail, or their head when
``rows_are_heads`` (a transposed matrix). For each edge from a reached tail (``depth >= 0``):

* the head must be reached (else the edge says the search stopped early), and at most one level
  deeper than the tail (else it skips a level); the first broken edge of each rule is the one of
  smallest key ``head * n + tail``;
* the edge vouches for its head (``marks[head] = 1``) when it comes from exactly one level up
  and, where parents are given, is the head's tree edge (``parents[head] == tail``). (The rules
  checked before these put every parent one level up, so only such edges can be tree edges, and
  only they read ``parents``.)

Edges from unreached tails are not read further. An endpoint outside ``[0, n)`` (a broken block)
is reported in the third slot. One thread: a check, not a timed search.
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.common import to_global
from lagraph_dist.local.engine import EDGE_RULE_NONE

__all__ = ["check_edges"]


@numba.njit(cache=True, nogil=True)
def _check(indptr, indices, row_map, col_map, rows_are_heads, depth, parents, has_parents, marks, found):
    n = depth.shape[0]
    for row in range(indptr.shape[0] - 1):
        row_id = to_global(np.int64(row), row_map[0], row_map[1], row_map[2])
        for e in range(indptr[row], indptr[row + 1]):
            col_id = to_global(np.int64(indices[e]), col_map[0], col_map[1], col_map[2])
            tail, head = (col_id, row_id) if rows_are_heads else (row_id, col_id)
            if tail < 0 or tail >= n or head < 0 or head >= n:
                found[2] = 0
                continue
            tail_depth = depth[tail]
            if tail_depth < 0:
                continue
            head_depth = depth[head]
            key = np.uint64(head) * np.uint64(n) + np.uint64(tail)
            if head_depth < 0:
                found[0] = min(found[0], key)
            elif head_depth > tail_depth + 1:
                found[1] = min(found[1], key)
            if head_depth == tail_depth + 1 and (not has_parents or parents[head] == tail):
                marks[head] = 1


def check_edges(csr, row_map, col_map, rows_are_heads, depth, parents, marks):
    """The edge rules over ``csr`` (see the module docstring): ``marks`` (uint8, n, zeroed by the
    caller) set in place; returns uint64 [stopped-early key, level-skip key, out-of-range flag],
    each :data:`~lagraph_dist.local.engine.EDGE_RULE_NONE` where nothing broke the rule."""
    found = np.full(3, EDGE_RULE_NONE, dtype=np.uint64)
    _check(csr.indptr, csr.indices, np.asarray(row_map, np.int64), np.asarray(col_map, np.int64),
           bool(rows_are_heads), depth, depth if parents is None else parents, parents is not None, marks, found)
    return found


def warm_up(csr):
    """Compile the pass (the suite's ranks load it from the cache)."""
    n = csr.nmajor
    identity = (n, n, 0)
    check_edges(csr, identity, identity, False, np.zeros(n, np.int64), None, np.zeros(n, np.uint8))
