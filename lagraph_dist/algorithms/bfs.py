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
from lagraph_dist.errors import DomainMismatch, InvalidValue
from lagraph_dist.interop import as_matrix
from lagraph_dist.ops import (RepeatLimits, _holds, apply, assign, ewise_mult, mxv, reduce,
                              repeat_masked_vxm, vxm)
from lagraph_dist.stats import level_record, summarize_levels
from lagraph_dist.vector import Vector
from lagraph_dist.semirings import any_pair, any_secondi, binary, plus

__all__ = ["bfs", "BFSResult", "DIRECTIONS", "DEFAULT_ALPHA", "DEFAULT_BETA"]

DIRECTIONS = ("push", "pull", "auto")
DEFAULT_ALPHA = 8.0    # push -> pull when frontier edges > unexplored edges / alpha (growing)
DEFAULT_BETA = 24.0    # pull -> push when frontier vertices < n / beta (shrinking)
# Push levels whose frontier stays within these run as one repeat_masked_vxm (on one GPU, one
# persistent kernel for many levels): high-diameter graphs spend most levels here.
FUSED_MAX_NVALS = 1 << 14
FUSED_MAX_EDGES = 1 << 16
FUSED_MAX_LEVELS = 4096      # levels a fused run records before it returns


@dataclass
class BFSResult:
    """``levels`` and ``parents`` are Vectors (None when not asked for); ``stats`` has one dict
    per level: direction, frontier nvals, discovered, edges examined, bytes and encoding per
    stage (expand, mask, fold) summed over ranks, seconds (slowest rank) and host reads."""

    source: int
    levels: Vector | None
    parents: Vector | None
    stats: list


def _check_arguments(A, source, levels, parents, direction, alpha, beta, depth_limit, target):
    if direction not in DIRECTIONS:
        raise InvalidValue(f"unknown direction {direction!r}; choose one of {', '.join(DIRECTIONS)}")
    if not (levels or parents):
        raise InvalidValue("bfs needs levels=True or parents=True (or both)")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(value, (int, float)) and value > 0):
            raise InvalidValue(f"{name} must be a positive number, got {value!r}")
    if depth_limit is not None:
        if isinstance(depth_limit, bool) or not isinstance(depth_limit, (int, np.integer)):
            raise DomainMismatch(f"depth_limit must be an integer or None, got {depth_limit!r}")
        if depth_limit < 0:
            raise InvalidValue(f"depth_limit must be >= 0, got {depth_limit}")
    if target is not None:
        check_vertex(target, A.n, "target")
    return check_vertex(source, A.n)


class _DirectionPolicy:
    """Beamer's push/pull switch with hysteresis (it only flips the way the frontier moves).
    Its inputs are the frontier's size and out-edges, which the products' counters give."""

    def __init__(self, A, direction, alpha, beta):
        self.direction = direction
        self.alpha, self.beta = alpha, beta
        self.n = A.n
        self.degrees = A.out_degree()
        self.unexplored = A.nvals
        self.push = direction != "pull"
        self.previous = 0

    def known_frontier_edges(self, frontier):
        """The frontier's out-edges from the counters of the product that made it (None for
        the source's level)."""
        if frontier._global is not None and frontier._push_degrees is self.degrees:
            return frontier._global.push_edges
        return None

    def frontier_edges(self, frontier):
        known = self.known_frontier_edges(frontier)
        return known if known is not None else int(reduce(ewise_mult(frontier, self.degrees, binary.second), plus))

    def fused_edge_limit(self):
        """Out-edges past which fused push levels must hand back, so that Beamer's rule can
        still turn to pull where it would (the rule's threshold at entry, an upper bound)."""
        if self.direction == "auto":
            return int(min(FUSED_MAX_EDGES, self.unexplored / self.alpha))
        return FUSED_MAX_EDGES

    def choose(self, frontier, frontier_nvals):
        if self.direction != "auto":
            return self.push
        if self.previous == 0:       # the source alone: its edges are fewer than any pull reads
            self.previous = frontier_nvals
            return self.push
        growing = frontier_nvals > self.previous
        if self.push and growing:
            frontier_edges = self.frontier_edges(frontier)
            self.unexplored -= frontier_edges
            if frontier_edges > self.unexplored / self.alpha:
                self.push = False
        elif not self.push and not growing and frontier_nvals < self.n / self.beta:
            self.push = True
        self.previous = frontier_nvals
        return self.push

    def fused_levels_ran(self, records):
        """Levels a fused run went on with after the one ``choose`` decided."""
        for record in records[1:]:
            self.unexplored -= record.examined
        self.previous = records[-1].frontier if records else self.previous


def _fused_eligible(A, policy, frontier, frontier_nvals):
    """A push level that may start a fused run: one rank, a small frontier whose out-edges are
    known to be few (or the source alone, which the run sizes itself)."""
    if A.grid.size != 1 or frontier_nvals > FUSED_MAX_NVALS:
        return False
    edges = policy.known_frontier_edges(frontier)
    return edges is None or edges <= policy.fused_edge_limit()


def bfs(A, source, *, levels=True, parents=True, direction="auto",
        alpha=DEFAULT_ALPHA, beta=DEFAULT_BETA, depth_limit=None, target=None) -> BFSResult:
    """Collective. Breadth-first search from ``source`` along out-edges of ``A``.

    Returns a :class:`BFSResult`; ``res.levels.to_numpy()`` and ``res.parents.to_numpy()``
    give dense int64 arrays with -1 where unreached. ``depth_limit=k`` expands no level past k
    (vertices farther away stay unreached); ``target=t`` stops after the level that reaches t.
    """
    A = as_matrix(A, what="bfs")     # scipy, cupyx, graphblas or networkx: converted once
    source = A.grid.agree(_check_arguments, A, source, levels, parents, direction, alpha, beta,
                          depth_limit, target)
    grid, backend = A.grid, A.backend
    if direction != "push":
        A.T.prepare_pull()           # built (or refused) before the search, on every rank
    semiring = any_secondi if parents else any_pair
    mine = [source] if grid.rank == 0 else []
    frontier = Vector.from_indices(mine, A.n, values=np.array(mine, np.int64), grid=grid,
                                   backend=backend, dtype=np.int64 if parents else bool)
    # visited (the parents when asked for) and depths grow in place: bitmaps take each
    # level's discoveries in time proportional to them
    visited = frontier.to_bitmap()
    visited._known_nvals = 1
    depths = apply(frontier, binary.second, right=np.int64(0)).to_bitmap() if levels else None
    policy = _DirectionPolicy(A, direction, alpha, beta)
    last_depth = A.n if depth_limit is None else depth_limit
    frontier_nvals, depth, records = 1, 0, []
    reads = backend.device_reads
    while frontier_nvals and depth < last_depth and not (target is not None and _holds(frontier, target)):
        started = time.perf_counter()
        push = policy.choose(frontier, frontier_nvals)
        if push and _fused_eligible(A, policy, frontier, frontier_nvals):
            limits = RepeatLimits(max_levels=min(FUSED_MAX_LEVELS, last_depth - depth), max_nvals=FUSED_MAX_NVALS,
                                  max_edges=policy.fused_edge_limit(), target=target)
            frontier, fused = repeat_masked_vxm(frontier, A, semiring, visited, depths=depths,
                                                depth=depth + 1, limits=limits)
            if fused:        # else its first frontier had too many edges: expand it below
                policy.fused_levels_ran(fused)
                seconds, host_reads = time.perf_counter() - started, backend.device_reads - reads
                for record in fused:
                    depth += 1
                    records.append(level_record(depth, "push", record.frontier, record.discovered, None,
                                                seconds / len(fused), host_reads / len(fused),
                                                edges_examined=record.examined, fused=True))
                frontier_nvals, reads = frontier.nvals, backend.device_reads
                continue
        depth += 1
        if push:
            step, frontier = "push", vxm(frontier.to_list(), A, semiring, mask=visited, complement=True)
        else:
            step, frontier = "pull", mxv(A.T, frontier.to_bitmap(), semiring, mask=visited, complement=True)
        discovered = frontier.nvals
        if discovered:
            assign(visited, frontier)
            if levels:
                assign(depths, frontier, value=depth)
        records.append(level_record(depth, step, frontier_nvals, discovered, frontier.op_stats,
                                    time.perf_counter() - started, backend.device_reads - reads))
        frontier_nvals, reads = discovered, backend.device_reads
    return BFSResult(source, depths, visited if parents else None,
                     summarize_levels(records, grid, grid.transport.name))

