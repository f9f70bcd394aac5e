"""Searches for the backend: the engine's levels, and networkx's breadth-first order over them.

The engine (``bfs``, or masked ``vxm`` products from several sources) says which vertices
a search reaches and at which level. networkx's answers also have an order: level by level,
the vertices of a level in the order they were found, each found by the first vertex of the
level before (in that order) with an edge to it, its neighbours taken in ``G``'s adjacency
order. :func:`ordered_levels` gives that order from the levels in one pass over the reached
vertices' edges on the host (numpy, a sort a level), so the backend's trees, layers and paths
are networkx's own, not just equally valid ones.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lagraph_dist.algebra.elementwise import assign
from lagraph_dist.algebra.products import vxm
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algorithms.bfs import bfs


def depth_of(limit):
    """networkx's depth limit or cutoff (None, or a number: levels d with d - 1 < limit are
    expanded) as the engine's ``depth_limit``: None, or an integer >= 0; -1 when not even the
    source's edges are expanded (networkx expands none for a limit <= 0)."""
    if limit is None or limit == math.inf:
        return None
    if limit <= 0:
        return -1
    return int(math.ceil(limit))


def levels_from(A, sources, depth=None):
    """Dense int64 levels (-1 unreached) of a search of the Matrix ``A`` from the vertex ids
    ``sources`` (all at level 0), at most ``depth`` levels deep (None: no limit; -1: sources
    only). One source is one ``bfs`` (the engine's fused search); several are masked
    ``any_pair`` products, a level each, from all of them at once."""
    sources = np.asarray(sources, dtype=np.int64)
    if depth == -1 or sources.shape[0] == 0:
        levels = np.full(A.n, -1, dtype=np.int64)
        levels[sources] = 0
        return levels
    if sources.shape[0] == 1:
        return bfs(A, int(sources[0]), parents=False, depth_limit=depth).levels.to_numpy()
    levels = np.full(A.n, -1, dtype=np.int64)
    levels[sources] = 0
    frontier = Vector.from_indices(sources, A.n, grid=A.grid, backend=A.backend)
    visited = frontier.dup().to_bitmap()
    level = 0
    while depth is None or level < depth:
        frontier = vxm(frontier, A, "any_pair", mask=visited, complement=True)
        found = frontier.indices()
        if found.shape[0] == 0:
            break
        level += 1
        levels[found] = level
        assign(visited, frontier)
    return levels


@dataclass
class Ordered:
    """A search in networkx's order: ``layers[d]`` the vertex ids of level d in the order
    networkx finds them, ``parents[d]`` (d >= 1) the vertex of level d - 1 that found each."""

    layers: list
    parents: list

    def order(self):
        """Every reached vertex, in networkx's order."""
        return np.concatenate(self.layers)

    def tree_edges(self):
        """(parent ids, child ids) of the tree edges in networkx's order (bfs_edges')."""
        if len(self.layers) == 1:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        return np.concatenate(self.parents[1:]), np.concatenate(self.layers[1:])


def _edges_of(csr, frontier):
    """(sources, targets) of the edges out of the vertices ``frontier``, in frontier order and,
    for each vertex, in its row's order."""
    indptr, indices = csr
    starts = indptr[frontier]
    counts = indptr[frontier + 1] - starts
    total = int(counts.sum())
    # the position of each edge: its row's start plus its rank within the row
    row_first = np.cumsum(counts) - counts
    positions = np.repeat(starts - row_first, counts) + np.arange(total, dtype=np.int64)
    return np.repeat(frontier, counts), indices[positions]


def ordered_levels(csr, levels, first):
    """networkx's order of a search whose levels are ``levels`` and whose level 0 holds the
    vertex ids ``first`` in the order given: level d + 1, in order, is the vertices that the
    edges out of level d (in order) reach first."""
    frontier = np.asarray(first, dtype=np.int64)
    layers, parents = [frontier], [None]
    depth = 0
    while True:
        tails, heads = _edges_of(csr, frontier)
        forward = levels[heads] == depth + 1
        tails, heads = tails[forward], heads[forward]
        if heads.shape[0] == 0:
            return Ordered(layers, parents)
        _, first_seen = np.unique(heads, return_index=True)
        found = np.sort(first_seen)             # the first edge into each vertex, in edge order
        frontier = heads[found]
        layers.append(frontier)
        parents.append(tails[found])
        depth += 1


def search(graph, sources, *, depth=None, reverse=False):
    """The search of the backend graph ``graph`` from the vertex ids ``sources`` (in order),
    ``depth`` levels at most, along in-edges when ``reverse`` (directed graphs), in networkx's
    order: levels from the engine, order from the adjacency."""
    A, csr = graph.along(reverse)
    levels = levels_from(A, sources, depth)
    return ordered_levels(csr, levels, sources)
