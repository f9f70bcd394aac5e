"""Connected components in one compiled call: every vertex's label, the smallest vertex id of its
component (weakly connected where the graph is directed).

A union-find over the edges that links the larger root under the smaller, so that each tree's
root is its smallest id, sampled the way Afforest samples (Sutton, Ben-Nun and Barak, IPDPS
2018): first every vertex's first ``SAMPLED_EDGES`` out-edges, which on a skewed graph already
join its giant component and on a mesh (each vertex linked to its first, smallest, neighbours)
the whole of it; then the most frequent root among ``SAMPLES`` sampled vertices is taken for the
giant's, and only the vertices outside it read their remaining edges (out-edges, and in-edges
of a directed graph, since an edge into a giant's vertex from outside is read from its tail
only when both lists are). A last pass points every vertex at its root.

One thread: linking races where threads share trees, and the passes are a few reads a vertex
(a 1000 x 1000 mesh, 2 cores: about 7 ms, where one search across it takes about 16). The ids and
slots are read through :func:`nonnegative`, so no negative-index wraparound sits on the chain
of a root's dependent loads (a fifth of a small graph's call, a quarter of the mesh's). The result is
the same whatever the order of the edges: the smallest id of each component.

:func:`component_sweeps` labels the same way by searches instead: one queue sweep a component,
from its smallest id, in one pass over the vertices and edges, where the union-find makes five
(the sampled links, two flattenings, the sample, the rest of the rows). On a graph of narrow
levels (a path's, a strip's) that is the cheaper: cold (each call after 64 MB of other reads),
2 EPYC cores, the 100,000 path 484 us against the union-find's 678, the 50,000 path 258
against 365, a 5 x 10000 mesh 240 against 405. Where a level holds more vertices its fresh
queue's misses cost more than the links: a 20 x 5000 mesh 1,616 against 818, a random tree of
50,000 vertices 974 against 648 (``algebra/components.py`` chooses).
"""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local import recycle
from lagraph_dist.local.cpu_kernels.common import nonnegative
from lagraph_dist.local.engine import COMPONENT_SAMPLED_EDGES as SAMPLED_EDGES, COMPONENT_SAMPLES as SAMPLES
from lagraph_dist.local.parts import LocalCSR

__all__ = ["connected_components", "component_sweeps", "warm_up"]


@numba.njit(cache=True, inline="always")
def _root(parent, v):
    """v's root, halving the path on the way (each vertex visited points at its grandparent)."""
    while parent[v] != v:
        up = nonnegative(parent[parent[v]])
        parent[v] = up
        v = up
    return v


@numba.njit(cache=True, inline="always")
def _link(parent, u, v):
    """Join u's and v's trees: the larger root goes under the smaller. (Finding u's root again
    for each of its edges, a step once linked, ran 3x faster than carrying it along the row.)"""
    a, b = _root(parent, u), _root(parent, v)
    if a < b:
        parent[b] = a
    elif b < a:
        parent[a] = b


@numba.njit(cache=True)
def _link_rows(parent, indptr, indices, first, skip_root):
    """Link every vertex to its out-neighbours from slot ``first`` of its row on (all of them
    when ``first`` is 0), skipping the vertices whose root is ``skip_root`` (-1: none)."""
    for u in range(parent.shape[0]):
        start, stop = nonnegative(indptr[u] + first), indptr[u + 1]
        if start >= stop or (skip_root >= 0 and _root(parent, u) == skip_root):
            continue
        for e in range(start, stop):
            _link(parent, u, nonnegative(indices[nonnegative(e)]))


@numba.njit(cache=True)
def _own_roots(parent):
    """Every vertex its own root."""
    for v in range(parent.shape[0]):
        parent[v] = v


@numba.njit(cache=True)
def _link_sampled(parent, indptr, indices, count):
    """Link every vertex to its first ``count`` out-neighbours."""
    for u in range(parent.shape[0]):
        stop = min(indptr[u] + count, indptr[u + 1])
        for e in range(nonnegative(indptr[u]), stop):
            _link(parent, u, nonnegative(indices[nonnegative(e)]))


@numba.njit(cache=True)
def _flatten(parent, counted):
    """Every vertex points at its root (ids increase along no path: a root is below its tree).
    Returns the roots among the first ``counted`` vertices."""
    roots = 0
    for v in range(parent.shape[0]):
        parent[v] = parent[nonnegative(parent[v])]
        roots += parent[v] == v and v < counted
    return roots


@numba.njit(cache=True, inline="always")
def _sampled_vertex(k, n):
    """The ``k``-th sampled vertex of n: a splitmix64 hash of k, reduced to [0, n) (the same
    samples every call, spread over the ids whatever their order)."""
    z = np.uint64(k + 1) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.int64((z ^ (z >> np.uint64(31))) % np.uint64(n))


@numba.njit(cache=True)
def _giant_root(parent, samples):
    """The most frequent root among ``samples`` sampled vertices (a tie: the smallest root);
    ``parent`` flattened, so a vertex's parent is its root."""
    n = parent.shape[0]
    roots = np.empty(min(samples, n), np.int64)
    for k in range(roots.shape[0]):
        roots[k] = parent[_sampled_vertex(k, n)]
    roots.sort()
    best, best_count, run = roots[0], 0, 0
    for k in range(roots.shape[0]):
        run = run + 1 if k > 0 and roots[k] == roots[k - 1] else 1
        if run > best_count:
            best, best_count = roots[k], run
    return best


def connected_components(out_csr: LocalCSR, in_csr: LocalCSR | None, n: int) -> tuple[np.ndarray, int]:
    """(int64 labels of the graph whose row u of ``out_csr`` lists u's out-neighbours: each
    vertex's smallest id of its component; ``in_csr`` (row v: v's in-neighbours) for a directed
    graph, whose weakly connected components these are, None for a symmetric one; the number of
    components among the first ``n`` vertices (the rows past them, a block's padding, hold no
    edge), counted by the last pass: an (n,) comparison afterwards took 3 of a 1000 x 1000 mesh's
    10 ms, most of it faulting on its fresh pages). (The passes are compiled calls of their own:
    one call of them all ran Kronecker 20 15% slower.)"""
    rows = out_csr.nmajor
    parent = recycle.maker(8 * rows)((rows,), np.int64)     # (fresh, a 300 x 300 mesh's faulted 144 pages a call)
    if rows == 0:
        return parent, 0
    _own_roots(parent)
    _link_sampled(parent, out_csr.indptr, out_csr.indices, SAMPLED_EDGES)
    _flatten(parent, 0)
    giant = _giant_root(parent, SAMPLES)
    _link_rows(parent, out_csr.indptr, out_csr.indices, SAMPLED_EDGES, giant)
    if in_csr is not None:
        _link_rows(parent, in_csr.indptr, in_csr.indices, 0, giant)
    return parent, int(_flatten(parent, n))


@numba.njit(cache=True, inline="always")
def _sweep_row(indptr, indices, u, label, labels, queue, tail):
    """u's neighbours along ``indptr``/``indices`` that have no label labelled ``label`` and
    queued at ``tail``; returns the new tail."""
    one = np.uint64(1)
    edge, stop = np.uint64(indptr[u]), np.uint64(indptr[u + one])
    while edge < stop:
        v = np.uint64(indices[edge])
        edge += one
        if labels[v] < 0:
            labels[v] = label
            queue[tail] = v
            tail += one
    return tail


@numba.njit(cache=True)
def _sweep_labels(indptr, indices, in_indptr, in_indices, directed, labels, queue, counted):
    """``labels`` set by a queue search from each unlabelled vertex in id order along
    out-edges, and in-edges where ``directed``: each vertex gets the first vertex of its search,
    the smallest id of its component. Ids read as unsigned (no negative-index wraparound on the
    loads' chain, as in the queue search). Returns the number of components whose smallest id is
    below ``counted``."""
    for v in range(labels.shape[0]):
        labels[v] = -1
    one = np.uint64(1)
    components = 0
    for s in range(labels.shape[0]):
        if labels[s] >= 0:
            continue
        components += s < counted
        labels[s] = s
        queue[0] = s
        head, tail = np.uint64(0), one
        while head < tail:
            u = np.uint64(queue[head])
            head += one
            tail = _sweep_row(indptr, indices, u, s, labels, queue, tail)
            if directed:
                tail = _sweep_row(in_indptr, in_indices, u, s, labels, queue, tail)
    return components


def component_sweeps(out_csr: LocalCSR, in_csr: LocalCSR | None, n: int) -> tuple[np.ndarray, int]:
    """(the labels of :func:`connected_components` (each vertex's smallest id of its component,
    weakly connected: ``in_csr`` the in-edges of a directed graph, None for a symmetric one),
    the number of components among the first ``n`` vertices (the rows past them, a block's
    padding, hold no edge: each its own): the searches' count, with no pass over the labels),
    made by one queue search a component (see the module docstring)."""
    rows = out_csr.nmajor
    empty = recycle.maker(8 * rows)          # (fresh, a 100,000 path's two arrays faulted 0.65 ms a call)
    labels, queue = empty((rows,), np.int64), empty((rows,), np.int64)
    back = out_csr if in_csr is None else in_csr
    count = _sweep_labels(out_csr.indptr, out_csr.indices, back.indptr, back.indices, in_csr is not None, labels, queue,
                          n)
    return labels, int(count)


def warm_up(csr):
    """Compile (or load) the loops on a tiny graph."""
    connected_components(csr, csr, csr.nmajor)
    component_sweeps(csr, None, csr.nmajor)
    component_sweeps(csr, csr, csr.nmajor)
