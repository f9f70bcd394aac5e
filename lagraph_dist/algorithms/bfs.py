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

import time
from dataclasses import dataclass

import numpy as np

from lagraph_dist.checks import check_vertex
from lagraph_dist.errors import InvalidValue
from lagraph_dist.interop import as_matrix
from lagraph_dist.ops import apply, assign, ewise_mult, mxv, reduce, vxm
from lagraph_dist.stats import level_record, summarize_levels
from lagraph_dist.vector import Vector
from lagraph_dist.semirings import any_pair, any_secondi, binary, plus

__all__ = ["bfs", "BFSResult", "DIRECTIONS", "DEFAULT_ALPHA", "DEFAULT_BETA"]

DIRECTIONS = ("push", "pull", "auto")
DEFAULT_ALPHA = 8.0    # push -> pull when frontier edges > unexplored edges / alpha (growing)
DEFAULT_BETA = 24.0    # pull -> push when frontier vertices < n / beta (shrinking)


@dataclass
class BFSResult:
    """``levels`` and ``parents`` are Vectors (None when not asked for); ``stats`` has one dict
    per level: direction, frontier nvals, discovered, edges examined, bytes and encoding per
    stage (expand, mask, fold) summed over ranks, and seconds (slowest rank)."""

    source: int
    levels: Vector | None
    parents: Vector | None
    stats: list


def _check_arguments(A, source, levels, parents, direction, alpha, beta):
    if direction not in DIRECTIONS:
        raise InvalidValue(f"unknown direction {direction!r}; choose one of {', '.join(DIRECTIONS)}")
    if not (levels or parents):
        raise InvalidValue("bfs needs levels=True or parents=True (or both)")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(value, (int, float)) and value > 0):
            raise InvalidValue(f"{name} must be a positive number, got {value!r}")
    return check_vertex(source, A.n)


class _DirectionPolicy:
    """Beamer's push/pull switch with hysteresis (it only flips the way the frontier moves)."""

    def __init__(self, A, direction, alpha, beta):
        self.direction = direction
        self.alpha, self.beta = alpha, beta
        self.n = A.n
        self.degrees = A.out_degree() if direction == "auto" else None
        self.unexplored = A.nvals
        self.push = direction != "pull"
        self.previous = 0

    def choose(self, frontier, frontier_nvals):
        if self.direction != "auto":
            return self.push
        growing = frontier_nvals > self.previous
        if self.push and growing:
            # the frontier's out-edges are summed only where the rule reads them (as GAP
            # counts its scouts only top-down): pull levels and shrinking frontiers skip it
            frontier_edges = reduce(ewise_mult(frontier, self.degrees, binary.second), plus)
            self.unexplored -= frontier_edges
            if frontier_edges > self.unexplored / self.alpha:
                self.push = False
        elif not self.push and not growing and frontier_nvals < self.n / self.beta:
            self.push = True
        self.previous = frontier_nvals
        return self.push


def bfs(A, source, *, levels=True, parents=True, direction="auto",
        alpha=DEFAULT_ALPHA, beta=DEFAULT_BETA) -> BFSResult:
    """Collective. Breadth-first search from ``source`` along out-edges of ``A``.

    Returns a :class:`BFSResult`; ``res.levels.to_numpy()`` and ``res.parents.to_numpy()``
    give dense int64 arrays with -1 where unreached.
    """
    A = as_matrix(A, what="bfs")     # scipy, cupyx, graphblas or networkx: converted once
    source = A.grid.agree(_check_arguments, A, source, levels, parents, direction, alpha, beta)
    grid, backend = A.grid, A.backend
    semiring = any_secondi if parents else any_pair
    mine = [source] if grid.rank == 0 else []
    frontier = Vector.from_indices(mine, A.n, values=np.array(mine, np.int64), grid=grid,
                                   backend=backend, dtype=np.int64 if parents else bool)
    # visited (the parents when asked for) and depths grow in place: bitmaps take each
    # level's discoveries in time proportional to them
    visited = frontier.to_bitmap()
    depths = apply(frontier, binary.second, right=np.int64(0)).to_bitmap() if levels else None
    policy = _DirectionPolicy(A, direction, alpha, beta)
    frontier_nvals, depth, records = 1, 0, []
    while frontier_nvals:
        depth += 1
        started = time.perf_counter()
        if policy.choose(frontier, frontier_nvals):
            step, frontier = "push", vxm(frontier.to_list(), A, semiring, mask=visited, complement=True)
        else:
            step, frontier = "pull", mxv(A.T, frontier.to_bitmap(), semiring, mask=visited, complement=True)
        discovered = frontier.nvals
        if discovered:
            assign(visited, frontier)
            if levels:
                assign(depths, frontier, value=depth)
        records.append(level_record(depth, step, frontier_nvals, discovered, frontier.op_stats,
                                    time.perf_counter() - started))
        frontier_nvals = discovered
    return BFSResult(source, depths, visited if parents else None, summarize_levels(records, grid))
