"""Twin of kernels/fused.cu: the whole search as levels that never leave the backend."""
from __future__ import annotations

import time

import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import bitmap_from_list, bitmap_test
from lagraph_dist.local.cpu_kernels.common import _edges_of
from lagraph_dist.local.layout import STOP_EMPTY, STOP_LEVELS, STOP_TARGET, STOP_TOO_BIG


# -- the fused search (kernels/fused.cu) -----------------------------------------------------
def _push_found(out_csr, frontier, words):
    """A push level: the unvisited out-neighbours of ``frontier`` (each once) and a parent each."""
    owner, neighbours, _ = _edges_of(out_csr, frontier)
    fresh = ~bitmap_test(words, neighbours)
    found, first = np.unique(neighbours[fresh], return_index=True)
    return found, frontier[owner[fresh][first]]


def _pull_found(in_csr, frontier_bits, words, n):
    """A pull level: every unvisited row with an in-neighbour in the frontier, its first such
    in-neighbour as parent, and the in-edges read up to it (all of them when none)."""
    rows = np.flatnonzero(~bitmap_test(words, np.arange(n))).astype(np.int64)
    owner, sources, total = _edges_of(in_csr, rows)
    hit = bitmap_test(frontier_bits, sources)
    hit_rows, first = np.unique(owner[hit], return_index=True)
    parents = sources[np.flatnonzero(hit)[first]]
    degrees = in_csr.indptr[rows + 1] - in_csr.indptr[rows]
    starts = np.cumsum(degrees) - degrees
    read_to_hit = np.flatnonzero(hit)[first] - starts[hit_rows] + 1
    examined = int(total - degrees[hit_rows].sum() + read_to_hit.sum())
    return rows[hit_rows].astype(np.int64), parents, examined


def fused_workspace(n, nnz):
    """The twin keeps no buffers between runs."""
    return None


#: what times each level of :func:`bfs_fused` (recorded with the level)
FUSED_LEVEL_CLOCK = "host perf_counter"


def bfs_fused(out_csr, in_csr, words, parents, depth_words, depths, first_depth, frontier_ids, positional,
              rule, max_frontier, max_edges, max_levels, target, workspace=None):
    """Levels of the composite ``ops.repeat_masked_vxm`` run without leaving the backend, push or
    pull as ``rule`` (a :class:`lagraph_dist.core.direction.DirectionRule`, updated) chooses: each
    level claims the unvisited out-neighbours of the frontier (push, through ``out_csr``) or the
    unvisited vertices with an in-neighbour in it (pull, through ``in_csr``) in ``words`` (in
    place), writes their parent (``positional``) or True into ``parents`` and the depth into
    ``depths`` (and their bits into ``depth_words``) when depths are kept.

    Returns (records: (frontier, discovered, examined, push, seconds) per level, frontier ids,
    frontier out-edges, why it stopped); a level's seconds are measured with the host's
    ``time.perf_counter`` around that level alone. It stops after the level that empties the frontier, reaches
    ``target`` (-1: none) or makes the frontier exceed ``max_frontier`` vertices, or after
    ``max_levels`` levels; a push frontier of more than ``max_edges`` out-edges is not expanded
    (it may be the first: then no level runs). Pull levels count the in-edges read up to each
    row's first frontier in-neighbour; the kernel reads in steps, so its count may be higher.
    """
    n = out_csr.nmajor
    degree = lambda ids: int((out_csr.indptr[ids + 1] - out_csr.indptr[ids]).sum())   # noqa: E731
    records, frontier = [], frontier_ids.astype(np.int64)
    edges = degree(frontier)
    reason = STOP_LEVELS
    for level in range(max_levels):
        if frontier.shape[0] == 0:
            reason = STOP_EMPTY
            break
        started = time.perf_counter()
        frontier_nvals = frontier.shape[0]
        push = rule.choose(frontier_nvals, edges)
        if push and edges > max_edges:   # the caller expands it (the queues could not hold it)
            reason = STOP_TOO_BIG
            break
        if push:
            found, sources = _push_found(out_csr, frontier, words)
            examined = edges
        else:
            bits = bitmap_from_list(frontier, words.shape[0] * 32)
            found, sources, examined = _pull_found(in_csr, bits, words, n)
        bitmap_from_list(found, words.shape[0] * 32, words)
        parents[found] = sources if positional else True
        if depths is not None:
            depths[found] = first_depth + level
            bitmap_from_list(found, depth_words.shape[0] * 32, depth_words)
        frontier, edges = found, degree(found)
        records.append((frontier_nvals, found.shape[0], examined, int(push), time.perf_counter() - started))
        if frontier.shape[0] == 0:
            reason = STOP_EMPTY
            break
        if 0 <= target and bool((frontier == target).any()):
            reason = STOP_TARGET
            break
        if frontier.shape[0] > max_frontier:
            reason = STOP_TOO_BIG
            break
    return records, frontier.astype(np.int32), edges, reason
