"""Independent checks of the BFS extras (depth limit, target, multi-source, paths), written with
scipy.sparse.csgraph and plain numpy only, so that the single-process tests and the MPI check
script (tests/mpi/check_extras.py) share them."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph


def hop_levels(S, sources):
    """(len(sources), n) hop distances by scipy's shortest paths along out-edges; -1 unreached."""
    hops = csgraph.shortest_path(sp.csr_matrix(S), unweighted=True, directed=True,
                                 indices=np.asarray(sources, dtype=np.int64))
    return np.where(np.isinf(hops), -1, hops).astype(np.int64).reshape(len(sources), -1)


def truncated(levels, depth):
    """The levels a search that stops after level ``depth`` gives: -1 past it."""
    return np.where((levels >= 0) & (levels <= depth), levels, -1)


def until_target(levels, target):
    """The levels a search that stops after the level reaching ``target`` gives (all of them
    when the target is unreached)."""
    return levels if levels[target] < 0 else truncated(levels, int(levels[target]))


def _are_edges(S, heads, tails):
    """Is every heads[k] -> tails[k] an edge of the CSR matrix S?"""
    if len(heads) == 0:
        return True
    return bool(np.asarray(S[heads, tails]).ravel().all())


def check_tree(S, source, levels, parents, what=""):
    """``parents`` is a BFS tree of ``levels`` (the expected, complete or truncated levels):
    the same reached set, the source its own parent, every other reached vertex's parent one
    level up and joined to it by an edge of S."""
    S = sp.csr_matrix(S)
    assert parents.dtype == np.int64 and parents.shape == levels.shape, what
    assert np.array_equal(parents >= 0, levels >= 0), f"{what}: parents reach another set than the levels"
    assert parents[source] == source, f"{what}: the source's parent is {parents[source]}"
    others = np.flatnonzero((levels > 0))
    p = parents[others]
    assert np.array_equal(levels[p], levels[others] - 1), f"{what}: a parent is not one level up"
    assert _are_edges(S, p, others), f"{what}: a parent is not joined to its child by an edge"


def check_path(S, path, source, target, level, what=""):
    """A path from ``source`` to ``target`` of level + 1 vertices along edges of S (empty when
    ``level`` is -1)."""
    assert path.dtype == np.int64, what
    if level < 0:
        assert path.shape == (0,), f"{what}: a path to an unreached vertex: {path}"
        return
    assert path.shape == (level + 1,), f"{what}: {len(path)} vertices for level {level}"
    assert path[0] == source and path[-1] == target, f"{what}: {path}"
    if level:
        assert _are_edges(sp.csr_matrix(S), path[:-1], path[1:]), f"{what}: a step is not an edge: {path}"
