"""Paths out of BFS results: the vertices from the source to a target, read off the parents.

The parents are gathered once (a collective gather, every rank gets them) and walked on the
host, all targets a step at a time: a path's length is its target's level + 1, so the walk
takes as many steps as the deepest target's level.
"""
from __future__ import annotations

import numpy as np

from lagraph_dist.algorithms.bfs import BFSResult
from lagraph_dist.algorithms.bfs_multi import MultiBFSResult
from lagraph_dist.comm.collective import collective
from lagraph_dist.core.checks import check_vertex, check_vertex_array
from lagraph_dist.core.errors import DomainMismatch, InvalidValue, ValidationError

__all__ = ["bfs_path", "bfs_paths"]


def _search_of(result, search):
    """(grid, n, source, parents rows, row index) of the search the caller means; raises the
    same error on every rank for anything else (the arguments are the same everywhere)."""
    if isinstance(result, BFSResult):
        if search is not None:
            raise InvalidValue("search= picks a row of a bfs_multi result; a bfs result has one search")
        rows, row, source = result.parents, None, result.source
        if rows is None:
            raise InvalidValue("this BFS result has no parents; run ld.bfs(..., parents=True) for paths")
        return rows.grid, rows.n, source, rows, row
    if isinstance(result, MultiBFSResult):
        if result.parents is None:
            raise InvalidValue("this bfs_multi result has no parents; run ld.bfs_multi(..., parents=True) "
                               "for paths")
        count = int(result.sources.shape[0])
        if search is None:
            raise InvalidValue(f"a bfs_multi result holds {count} searches: pass search=i to pick one")
        row = check_vertex(search, count, "search")
        rows = result.parents
        return rows.grid, rows.n, int(result.sources[row]), rows, row
    raise DomainMismatch(f"expected the result of ld.bfs or ld.bfs_multi, got {type(result).__name__}")


def _gathered_parents(rows, row):
    """Collective: the dense parents of the search (one gather)."""
    return rows.to_numpy() if row is None else rows.row(row)


def _walk(parents, source, targets):
    """Each target's path, source first (empty when unreached), by walking up the parents."""
    n = parents.shape[0]
    reached = parents[targets] >= 0
    current = targets.copy()
    chain = [current]
    climbing = reached & (current != source)
    for _ in range(n):
        if not climbing.any():
            break
        up = parents[current[climbing]]
        if (up < 0).any():
            raise ValidationError("the parents do not form a BFS tree: a reached vertex's parent is unreached")
        current = current.copy()
        current[climbing] = up
        chain.append(current)
        climbing &= current != source
    else:
        if climbing.any():
            raise ValidationError("the parents do not form a BFS tree: walking up does not reach the source")
    steps = np.stack(chain)                         # (walk length, targets)
    lengths = np.where(reached, 1 + np.sum(steps[1:] != steps[:-1], axis=0), 0)
    return [steps[:length, k][::-1].copy() for k, length in enumerate(lengths.tolist())]


@collective("target", "search")
def bfs_path(result, target, *, search=None) -> np.ndarray:
    """Collective. The path from the search's source to ``target``: an int64 array of vertex ids,
    source first and ``target`` last (just the source when it is the target), each step an
    edge of the graph, its length the target's level + 1; empty when the search did not reach
    ``target``. ``result``: what ``ld.bfs`` returned (with parents), or ``ld.bfs_multi``'s with
    ``search=i`` for the search from ``sources[i]``."""
    def checked():
        grid, n, source, rows, row = _search_of(result, search)
        return source, rows, row, check_vertex(target, n, "target")
    source, rows, row, target = _agreed(result, checked)
    return _walk(_gathered_parents(rows, row), source, np.array([target], dtype=np.int64))[0]


@collective("targets", "search")
def bfs_paths(result, targets, *, search=None) -> list:
    """Collective. :func:`bfs_path` for many targets at once: a list with one int64 array per
    target, in the order given (empty arrays for unreached ones). The parents are gathered
    once and all paths are walked together."""
    def checked():
        grid, n, source, rows, row = _search_of(result, search)
        if isinstance(targets, (str, bytes)) or np.ndim(targets) == 0:
            raise DomainMismatch(f"targets must be a sequence of vertex ids, got {targets!r} (for one "
                                 "target, call ld.bfs_path)")
        return source, rows, row, check_vertex_array(targets, n, "targets")
    source, rows, row, wanted = _agreed(result, checked)
    if wanted.shape[0] == 0:
        return []
    return _walk(_gathered_parents(rows, row), source, np.asarray(wanted, dtype=np.int64))


def _agreed(result, checked):
    """``checked()`` on every rank of the result's grid, raising on all when it fails on any."""
    outputs = [getattr(result, name, None) for name in ("parents", "levels")]
    grid = next((out.grid for out in outputs if out is not None), None)
    return checked() if grid is None else grid.agree(checked)
