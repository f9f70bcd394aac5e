"""Twin of kernels/fused.cu: the whole search as levels that never leave the backend."""
from __future__ import annotations

import time

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.bitmap import bitmap_from_list
from lagraph_dist.local.layout import STOP_EMPTY, STOP_LEVELS, STOP_TARGET, STOP_TOO_BIG


# -- the fused search (kernels/fused.cu) -----------------------------------------------------
@numba.njit(cache=True)
def _claim_out_neighbours(indptr, indices, frontier, words, room):
    """The push level's loop: the out-neighbours of ``frontier`` whose bit is clear in
    ``words``, each claimed (its bit set) by the first frontier edge that reaches it, in
    frontier then adjacency order; their ids and parents, in claim order."""
    found = np.empty(room, dtype=np.int64)
    parents = np.empty(room, dtype=np.int64)
    count = 0
    for u in frontier:
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            bit = np.uint32(1) << np.uint32(v & 31)
            if not words[v >> 5] & bit:
                words[v >> 5] |= bit
                found[count] = v
                parents[count] = u
                count += 1
    return found[:count], parents[:count]


@numba.njit(cache=True)
def _first_frontier_in_neighbours(indptr, indices, frontier_bits, words, n):
    """The pull level's loop: each row whose bit is clear in ``words`` scans its in-edges in
    order and stops at the first one in ``frontier_bits`` (its parent); rows in increasing
    order, with the in-edges read (up to each hit, all of a row without one)."""
    found = np.empty(n, dtype=np.int64)
    parents = np.empty(n, dtype=np.int64)
    count, examined = 0, 0
    for r in range(n):
        if words[r >> 5] & (np.uint32(1) << np.uint32(r & 31)):
            continue
        for e in range(indptr[r], indptr[r + 1]):
            c = indices[e]
            examined += 1
            if frontier_bits[c >> 5] & (np.uint32(1) << np.uint32(c & 31)):
                found[count] = r
                parents[count] = c
                count += 1
                break
    return found[:count], parents[:count], examined


def compile_kernels():
    """Compile (or load from numba's disk cache) the loops above on a tiny graph, so that no
    search pays for it: the CPU backend calls this once, when it is first made."""
    indptr, indices = np.array([0, 1, 1], dtype=np.int64), np.array([1], dtype=np.int32)
    _claim_out_neighbours(indptr, indices, np.array([0], dtype=np.int64), np.zeros(1, dtype=np.uint32), 1)
    _first_frontier_in_neighbours(indptr, indices, np.ones(1, dtype=np.uint32), np.zeros(1, dtype=np.uint32), 2)


def _push_found(out_csr, frontier, words, edges):
    """A push level: the unvisited out-neighbours of ``frontier`` (each once, in increasing
    order; their bits set in ``words``) and a parent each: the first frontier vertex, in
    frontier and adjacency order, with an edge to it."""
    found, parents = _claim_out_neighbours(out_csr.indptr, out_csr.indices, frontier, words,
                                           min(int(edges), words.shape[0] * 32))
    order = np.argsort(found, kind="stable")
    return found[order], parents[order]


def _pull_found(in_csr, frontier_bits, words, n):
    """A pull level: every unvisited row with an in-neighbour in the frontier, its first such
    in-neighbour as parent, and the in-edges read up to it (all of them when none)."""
    return _first_frontier_in_neighbours(in_csr.indptr, in_csr.indices, frontier_bits, words, n)


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
            found, sources = _push_found(out_csr, frontier, words, edges)
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
