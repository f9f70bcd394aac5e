"""Betweenness centrality (Brandes, unweighted): the sweeps of many sources at once where the
backend has them fused, else in the algebra, one source at a time.

Batched (one process: both kernel sets have the fused sweeps): the sources' levels come from
:func:`~lagraph_dist.algorithms.bfs_multi.bfs_multi` (levels only, as many searches a batch as
the backend's sweeps take: 64 on the CPU, 2,048 on the GPU in fused runs of 512), and both sweeps
of a batch's searches run in one call (:func:`lagraph_dist.algebra.multi.path_dependencies`): a search's
shortest-path DAG is the edges between its consecutive levels, so each edge serves 64 searches
with one AND of their level masks. Figures: docs/api.md's betweenness section.

A source at a time (grids): for a source s, the forward sweep counts shortest paths
level by level: the next frontier is
``f' = f plus_first A`` masked by the complement of the vertices seen so far, so each vertex's
entry is sigma, the number of shortest s-paths reaching it. The backward sweep walks the levels
deepest first: a vertex v of level d passes ``(1 + delta[v]) / sigma[v]`` to its predecessors,
``w = A plus_second coef`` masked by level d - 1, and a predecessor u takes
``delta[u] = sigma[u] * w[u]``. Every vertex but s adds its delta to the centrality. The scaling
is networkx's (``networkx.betweenness_centrality``), so results agree with it to rounding.

Each sweep is a short page of products and element-wise operations, so it runs on every backend
and grid unchanged. Both ways give the same values to rounding (the sums' order differs).
"""
from __future__ import annotations

import math
import random

import numpy as np

from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.algebra.multi import dependencies_batch, dependencies_fusable, path_dependencies
from lagraph_dist.algebra.elementwise import apply, assign, ewise_add, ewise_mult
from lagraph_dist.algebra.products import mxv, vxm
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algorithms.bfs_multi import bfs_multi
from lagraph_dist.algorithms.small_graphs import batch_on_host_when_deep, count_of
from lagraph_dist.comm.collective import collective
from lagraph_dist.core.checks import check_vertex_array
from lagraph_dist.core.errors import DomainMismatch, InvalidValue
from lagraph_dist.local.engine import MULTI_FUSED_MAX_WIDTH

__all__ = ["betweenness_centrality"]


@collective("A", "k", "sources", "seed", "normalized", "endpoints")
@batch_on_host_when_deep(lambda A, *, k=None, sources=None, **_: _count(A, k, sources))
def betweenness_centrality(A: Matrix, *, k=None, sources=None, seed=None, normalized: bool = True,
                           endpoints: bool = False) -> Vector:
    """Collective. The betweenness centrality of every vertex, a float64 Vector with an entry for
    each, as ``networkx.betweenness_centrality(G, k, normalized, endpoints=endpoints, seed=seed)``
    gives for the graph of ``A`` (undirected when A is symmetric, as built with
    ``symmetrize=True``; directed otherwise, along A's edges i -> j).

    ``k``: that many sources sampled as networkx samples them (``random.Random(seed).sample`` of
    the vertex ids in order), the scaling adjusted for the sample; ``sources``: the sources
    themselves (distinct ids), scaled as a sample of that many; neither: every vertex. ``k ==
    n`` is all vertices, as in networkx."""
    chosen = _sources(A, k, sources, seed)
    sweeps = _batched_sweeps if dependencies_fusable(A) else _sweeps_a_source
    total = sweeps(A, chosen, endpoints)
    sampled = None if (k is None and sources is None) or len(chosen) == A.n else chosen
    return _rescale(total, A.n, normalized=normalized, directed=not A.symmetric, endpoints=endpoints,
                    sampled=sampled)


def _count(A, k, sources):
    """How many sources a call searches from (None where its arguments do not say: it refuses them)."""
    if sources is not None:
        return count_of(sources)
    if k is None:
        return A.n
    return int(k) if isinstance(k, (int, np.integer)) and not isinstance(k, bool) else None


def _sources(A, k, sources, seed):
    """The sources to search from: every vertex, a sample of k, or the given ones."""
    if not isinstance(A, Matrix):
        raise DomainMismatch(f"betweenness_centrality takes an ld.Matrix, got {type(A).__name__}")
    if k is not None and sources is not None:
        raise InvalidValue("pass k (sampled sources) or sources, not both")
    if sources is not None:
        ids = check_vertex_array(sources, A.n, "sources")
        if ids.shape[0] == 0:
            raise InvalidValue("sources is empty")
        if np.unique(ids).shape[0] != ids.shape[0]:
            raise InvalidValue("sources repeats a vertex (each source is searched once)")
        return [int(s) for s in ids]
    if k is None:
        return range(A.n)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= A.n:
        raise InvalidValue(f"k must be an integer from 1 to n ({A.n}), got {k!r}")
    return random.Random(seed).sample(range(A.n), int(k))


def _batched_sweeps(A, chosen, endpoints):
    """The dependencies summed over the sources, a batch of them at once (as many as the
    backend's sweeps take in one call): their levels, then both sweeps in one call."""
    chosen = np.asarray(chosen, dtype=np.int64)
    total = None                  # (each batch's sums have an entry for every vertex)
    batch_size = dependencies_batch(A)
    for start in range(0, chosen.shape[0], batch_size):
        batch = chosen[start:start + batch_size]      # (several fused runs when wider than one takes)
        levels = bfs_multi(A, batch, parents=False, batch_size=min(batch_size, MULTI_FUSED_MAX_WIDTH)).levels
        found, _ = path_dependencies(A, levels, endpoints=endpoints)
        total = found if total is None else ewise_add(total, found, "plus")
    return total


def _sweeps_a_source(A, chosen, endpoints):
    """The dependencies summed over the sources, one source's two sweeps of products at a time."""
    total = _zeros(A)
    for s in chosen:
        levels = _path_counts(A, int(s))
        total = ewise_add(total, _dependencies(A, levels, endpoints), "plus")
        if endpoints:
            reached = sum(level.nvals for level in levels[1:])
            total = ewise_add(total, Vector.from_coo([int(s)], float(reached), size=A.n, dtype=np.float64,
                                                     grid=A.grid, backend=A.backend), "plus")
    return total


def _zeros(A):
    """A float64 vector of zeros with an entry for every vertex (each rank passes a share)."""
    share = np.array_split(np.arange(A.n, dtype=np.int64), A.grid.size)[A.grid.rank]
    return Vector.from_coo(share, 0.0, size=A.n, dtype=np.float64, grid=A.grid, backend=A.backend)


def _path_counts(A, s):
    """The forward sweep from s: one vector a level, level d's vertices with their counts of
    shortest paths from s (float64: counts outgrow any integer type on deep meshes)."""
    frontier = Vector.from_coo([s], 1.0, size=A.n, dtype=np.float64, grid=A.grid, backend=A.backend)
    seen = frontier.dup().to_bitmap()
    levels = [frontier]
    while True:
        frontier = vxm(frontier, A, "plus_first", mask=seen, complement=True)
        if frontier.nvals == 0:
            return levels
        levels.append(frontier)
        assign(seen, frontier)


def _dependencies(A, levels, endpoints):
    """The backward sweep: each vertex's dependency on the source (delta), for the vertices of
    levels 1 and deeper (the source's own is not counted), plus 1 each with ``endpoints``."""
    total = None
    delta = None                         # level d's deltas (only its vertices with successors)
    for d in range(len(levels) - 1, 0, -1):
        level = levels[d]
        ones = apply(level, "second", right=1.0)
        credit = ones if delta is None else ewise_add(ones, delta, "plus")       # 1 + delta
        counted = credit if endpoints else delta
        if counted is not None:
            total = counted if total is None else ewise_add(total, counted, "plus")
        if d == 1:
            break
        coefficient = ewise_mult(credit, level, "truediv")
        passed = mxv(A, coefficient, "plus_second", mask=levels[d - 1])
        delta = ewise_mult(passed, levels[d - 1], "times")
    return total if total is not None else _zeros(A)


def _rescale(values, n, *, normalized, directed, endpoints, sampled):
    """networkx's scaling (networkx.algorithms.centrality.betweenness._rescale, 3.x): over the
    (s, t) pairs a path through v could join; a sample of k sources scales up to all, its
    sources (which cannot be their own s) by k - 1."""
    pairs = n if endpoints else n - 1
    if pairs < 2:
        return values
    k = pairs if sampled is None else len(sampled)
    correction = 1 if directed else 2
    if sampled is None or endpoints:
        scale = 1 / (k * (pairs - 1)) if normalized else pairs / (k * correction)
        return values if scale == 1 else apply(values, "times", right=scale)
    if normalized:
        on_source = 1 / ((k - 1) * (pairs - 1)) if k > 1 else math.nan
        elsewhere = 1 / (k * (pairs - 1))
    else:
        on_source = pairs / ((k - 1) * correction) if k > 1 else math.nan
        elsewhere = pairs / (k * correction)
    grid, backend = values.grid, values.backend
    factors = ewise_add(apply(values, "second", right=elsewhere),
                        Vector.from_coo(list(sampled), on_source - elsewhere, size=n, dtype=np.float64, grid=grid,
                                        backend=backend), "plus")
    return ewise_mult(values, factors, "times")
