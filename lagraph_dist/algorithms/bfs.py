"""Breadth-first search as masked sparse-matrix x sparse-vector products.

Each level is one product over a boolean-like semiring masked by the complement of the
visited set: ``any_secondi`` when parents are wanted (a product's value is the parent's id),
``any_pair`` when only levels are. Push (top-down) is ``vxm(q, A)`` with a list-encoded
frontier; pull (bottom-up) is ``mxv(A.T, q)`` with a bitmap frontier, as in LAGraph's
LG_BreadthFirstSearch_SSGrB. ``direction="auto"`` switches between them by Beamer's rule:
go pull when the frontier's out-edges exceed the unexplored edges / ``alpha`` while the
frontier grows, back to push when it holds fewer than n / ``beta`` vertices while it shrinks.
No kernel, MPI call or backend branch appears here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lagraph_dist.comm.collective import collective
from lagraph_dist.algorithms.small_graphs import search_on_host_when_cheaper
from lagraph_dist.core.checks import check_search_options, check_vertex
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch, InvalidValue
from lagraph_dist.core.direction import DEFAULT_ALPHA, DEFAULT_BETA, DIRECTIONS, DirectionRule
from lagraph_dist.algebra.levels import RepeatLimits, queue_search_fits, queue_search_from, search_from
from lagraph_dist.core.stats import StatsWhenRead, summarize_levels
from lagraph_dist.core.text import plural
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.semirings import any_secondi, any_pair

__all__ = ["bfs", "BFSResult", "DIRECTIONS", "DEFAULT_ALPHA", "DEFAULT_BETA"]

@dataclass
class BFSResult(StatsWhenRead):
    """``levels`` and ``parents`` are Vectors (None when not asked for); ``stats`` has one dict
    per level: direction, frontier nvals, discovered, edges examined, bytes and encoding per
    stage (expand, mask, fold) summed over ranks, seconds (slowest rank) and host reads.
    ``source`` is the source's vertex id (a node label given as source is translated).

    The stats may be handed over as a function that makes them: on one rank they are made when
    first read, so that a search of 100,000 levels does not make 100,000 dicts inside its time."""

    source: int
    levels: Vector | None
    parents: Vector | None
    _stats: object = field(repr=False)

    @property
    def grid(self):
        """The grid the search ran on."""
        return (self.levels if self.levels is not None else self.parents).grid

    def levels_by_label(self, A) -> dict:
        """Collective: ``{node: level}`` of every reached vertex, on every rank, as networkx's
        ``single_source_shortest_path_length`` gives. ``A`` is the searched Matrix: its
        ``labels`` name the nodes (the vertex ids where it has none)."""
        return self._by_label(A, self.levels, "levels", values_are_vertices=False)

    def parents_by_label(self, A) -> dict:
        """Collective: ``{node: its parent node}`` of every reached vertex, on every rank (the
        source is its own parent), named by ``A``'s labels as in :meth:`levels_by_label`."""
        return self._by_label(A, self.parents, "parents", values_are_vertices=True)

    @staticmethod
    def _by_label(A, vector, what, *, values_are_vertices):
        from lagraph_dist.algebra.matrix import Matrix
        if vector is None:
            raise InvalidValue(f"this result has no {what}: run bfs with {what}=True")
        if not isinstance(A, Matrix):
            raise DomainMismatch(f"{what}_by_label needs the searched lagraph_dist.Matrix, whose labels "
                                 f"name the nodes; got {type(A).__module__}.{type(A).__name__}")
        if A.n != vector.n:
            raise DimensionMismatch(f"the result is of a graph of {plural(vector.n, 'vertex')}, A has {A.n}")
        ids, values = vector.to_coo()
        name = A.labels.__getitem__ if A.labels is not None else int
        return {name(v): name(x) if values_are_vertices else x for v, x in zip(ids.tolist(), values.tolist())}


def _check_arguments(A, source, levels, parents, direction, alpha, beta, depth_limit, target):
    check_search_options("bfs", levels=levels, parents=parents, direction=direction, alpha=alpha, beta=beta,
                         depth_limit=depth_limit)
    if target is not None:      # an id, on a labeled graph too: the search tests target as given
        if A.labels is not None and not isinstance(target, (int, np.integer)):
            raise DomainMismatch(f"target must be a vertex id, got {target!r}; A.vertex_id(node) gives "
                                 f"the id of a node label")
        check_vertex(target, A.n, "target")
    return A._vertex_id(source, "source")     # a node label where A has labels, else an id


@collective("source", "levels", "parents", "direction", "alpha", "beta", "depth_limit", "target")
@search_on_host_when_cheaper
def bfs(A, source, *, levels=True, parents=True, direction="auto",
        alpha=DEFAULT_ALPHA, beta=DEFAULT_BETA, depth_limit=None, target=None) -> BFSResult:
    """Collective. Breadth-first search from ``source`` along out-edges of ``A``.

    Returns a :class:`BFSResult`; ``res.levels.to_numpy()`` and ``res.parents.to_numpy()``
    give dense int64 arrays with -1 where unreached. ``depth_limit=k`` expands no level past k
    (vertices farther away stay unreached); ``target=t`` stops after the level that reaches t.
    """
    # (A is a Matrix: search_on_host_when_cheaper converted what it was given, once)
    small = _small_graph_search(A, source, levels, parents, direction, alpha, beta, depth_limit, target)
    if small is not None:
        return small
    source = A.grid.agree(_check_arguments, A, source, levels, parents, direction, alpha, beta,
                          depth_limit, target)
    if direction != "push":
        A.T.prepare_pull()           # built (or refused) before the search, on every rank
    semiring = any_secondi if parents else any_pair
    # visited (the parents when asked for) and depths are bitmaps that grow in place, each
    # level's discoveries in time proportional to them; the search makes them and its start
    # (on one GPU inside the fused kernel, on the host's kernels in their one call)
    rule = DirectionRule(direction, A.n, A.nvals, alpha, beta)
    limits = _limits(A, depth_limit, target)
    visited, depths, levels_run = search_from(A, source, semiring, depths=levels, limits=limits, rule=rule)
    return _result(A, source, visited, depths, levels_run, parents)


def _small_graph_search(A, source, levels, parents, direction, alpha, beta, depth_limit, target):
    """The search as the host's queue search where
    :func:`~lagraph_dist.algebra.levels.queue_search_fits` (one process: no agreement to
    reach), with the fewest steps between the call and the compiled loop: a cold call costs a
    few microseconds a step, more than a small graph's levels (docs/notes/host-overhead.md).
    None where it does not fit: the general path then runs (it raises what this one raises)."""
    if not queue_search_fits(A, direction):
        return None
    source = _check_arguments(A, source, levels, parents, direction, alpha, beta, depth_limit, target)
    if source == target or depth_limit == 0:
        return None
    visited, depths, levels_run = queue_search_from(A, source, any_secondi if parents else any_pair, levels,
                                                    _max_levels(A, depth_limit), target)
    return _result(A, source, visited, depths, levels_run, parents)


def _limits(A, depth_limit, target):
    return RepeatLimits(max_levels=_max_levels(A, depth_limit), target=target)


def _max_levels(A, depth_limit):
    """The levels a search on ``A`` may run: ``depth_limit``, else as many as A has vertices."""
    return A.n if depth_limit is None else depth_limit


def _result(A, source, visited, depths, levels_run, parents):
    """The BFSResult of a search on ``A``: its stats made when first read on one rank, here on
    several (a collective); the records name the engine that ran the levels."""
    grid = A.grid

    def stats():
        records = [r.as_dict(depth) for depth, r in enumerate(levels_run, start=1)]
        return summarize_levels(records, grid, grid.transport.name, levels_run.engine or A.backend.name)
    return BFSResult(source, depths, visited if parents else None, stats if grid.size == 1 else stats())
