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
is reported in the third slot. Row ranges of about equal edges run on the kernels' threads.
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.common import chunks_for, to_global
from lagraph_dist.local.engine import EDGE_RULE_NONE

__all__ = ["check_edges"]


@numba.njit(cache=True, nogil=True)
def _check_rows(indptr, indices, row_map, col_map, rows_are_heads, depth, parents, has_parents, marks, found,
                first_row, stop_row):
    """The rules over rows ``first_row:stop_row``, their first broken keys into ``found``."""
    n = depth.shape[0]
    for row in range(first_row, stop_row):
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


@numba.njit(cache=True, nogil=True, parallel=True)
def _check_chunks(indptr, indices, row_map, col_map, rows_are_heads, depth, parents, has_parents, marks, bounds,
                  found):
    """:func:`_check_rows` over the row ranges between ``bounds``, one a thread (their marks
    all set 1, so that writes to one head race harmlessly), each into its row of ``found``."""
    for c in numba.prange(bounds.shape[0] - 1):
        _check_rows(indptr, indices, row_map, col_map, rows_are_heads, depth, parents, has_parents, marks,
                    found[c], bounds[c], bounds[c + 1])


def check_edges(csr, row_map, col_map, rows_are_heads, depth, parents, marks):
    """The edge rules over ``csr`` (see the module docstring): ``marks`` (uint8, n, zeroed by the
    caller) set in place; returns uint64 [stopped-early key, level-skip key, out-of-range flag],
    each :data:`~lagraph_dist.local.engine.EDGE_RULE_NONE` where nothing broke the rule."""
    # row ranges of about equal edges, one a thread: the result is the one-thread result
    nchunks = chunks_for(csr.nnz)
    bounds = np.searchsorted(csr.indptr, np.linspace(0, csr.nnz, nchunks + 1), side="left")
    bounds[0], bounds[-1] = 0, csr.nmajor
    found = np.full((nchunks, 3), EDGE_RULE_NONE, dtype=np.uint64)
    _check_chunks(csr.indptr, csr.indices, np.asarray(row_map, np.int64), np.asarray(col_map, np.int64),
                  bool(rows_are_heads), depth, depth if parents is None else parents, parents is not None, marks,
                  bounds.astype(np.int64), found)
    return found.min(axis=0)


def warm_up(csr):
    """Compile the pass (the suite's ranks load it from the cache)."""
    n = csr.nmajor
    identity = (n, n, 0)
    check_edges(csr, identity, identity, False, np.zeros(n, np.int64), None, np.zeros(n, np.uint8))
