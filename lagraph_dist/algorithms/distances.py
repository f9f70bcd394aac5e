"""Distance measures of unweighted graphs from multi-source BFS levels: eccentricity and
closeness centrality, with networkx's semantics.

Both search from the sources in calls of :func:`~lagraph_dist.algorithms.bfs_multi.bfs_multi`
of at most :data:`SEARCHES_A_CALL` sources (levels only), and reduce each call's k x n levels
row by row where they live (:meth:`~lagraph_dist.algebra.multi.DenseRows.reduce_rows`: the
deepest level, the levels' sum and the vertices reached of each search), so no (k, n) table is
gathered, and a call's levels are let go before the next call runs. No kernel, MPI call or
backend branch appears here.
"""
from __future__ import annotations

import numbers

import numpy as np

from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algorithms.bfs_multi import bfs_multi
from lagraph_dist.comm.collective import collective
from lagraph_dist.core.checks import check_vertex, check_vertex_array
from lagraph_dist.core.errors import DomainMismatch, InvalidValue
from lagraph_dist.io.interop import as_matrix

__all__ = ["eccentricity", "closeness_centrality", "SEARCHES_A_CALL"]

#: The sources of one bfs_multi call (one fused batch on one process): its levels are held at once.
SEARCHES_A_CALL = 512


# -- arguments --------------------------------------------------------------------------------
def _check_sources(sources, n, what):
    """The sources as int64 ids: every vertex for None, one for an integer, else a sequence of
    ids in [0, n) (repeats allowed)."""
    if sources is None:
        return np.arange(n, dtype=np.int64)
    if isinstance(sources, numbers.Integral) or (isinstance(sources, np.ndarray) and sources.ndim == 0):
        return np.array([check_vertex(sources.item() if isinstance(sources, np.ndarray) else sources, n,
                                      f"{what}'s source")], dtype=np.int64)
    if isinstance(sources, (str, bytes)) or np.ndim(sources) == 0:
        raise DomainMismatch(f"{what}'s sources must be a vertex id, a sequence of vertex ids or None, "
                             f"got {sources!r}")
    return np.asarray(check_vertex_array(np.asarray(sources), n, f"{what}'s sources"), dtype=np.int64)


def _check_flag(value, what):
    if not isinstance(value, (bool, np.bool_)):
        raise DomainMismatch(f"{what} must be True or False, got {value!r}")
    return bool(value)


# -- the searches, a call at a time -----------------------------------------------------------
def _reduced_calls(A, sources, monoid):
    """Collective. (positions in ``sources``, (each search's ``monoid`` over its levels, the
    vertices it reached)) for each call of at most SEARCHES_A_CALL searches along A's
    out-edges (in-edges for ``A.T``); a call's levels are let go before the next call runs."""
    for start in range(0, sources.shape[0], SEARCHES_A_CALL):
        chunk = sources[start:start + SEARCHES_A_CALL]
        reduced = bfs_multi(A, chunk, parents=False).levels.reduce_rows(monoid, nvals=True)
        yield slice(start, start + chunk.shape[0]), reduced


def _vector_of_sources(A, sources, values, dtype):
    """Collective. An n-vector of ``dtype`` holding values[i] at sources[i] (every rank holds
    all of them and passes those of the vertices it owns)."""
    mine = A.layout.owner_rank(sources) == A.grid.rank
    return Vector.from_indices(sources[mine], A.n, values=values[mine], dtype=dtype, grid=A.grid,
                               backend=A.backend)


# -- eccentricity -----------------------------------------------------------------------------
def _require_all_reached(A, sources, reached):
    """InvalidValue naming the first source that does not reach every vertex (networkx's
    infinite path length), on every rank alike (``reached`` is the same everywhere)."""
    short = np.flatnonzero(reached < A.n)
    if short.shape[0]:
        i = int(short[0])
        kind = "graph is not connected" if A.symmetric else "digraph is not strongly connected"
        raise InvalidValue(f"eccentricity of source {int(sources[i])}: it reaches {int(reached[i])} of the "
                           f"{A.n} vertices, an infinite path length because the {kind}")


@collective("sources")
def eccentricity(A, sources=None) -> Vector:
    """Collective. The eccentricity of each source: the largest hop distance from it to any
    vertex along out-edges (networkx's ``eccentricity`` of an unweighted graph, directed ones
    included). ``sources``: a vertex id, a sequence of them, or None for every vertex.

    Returns an int64 :class:`~lagraph_dist.algebra.vector.Vector` of size n with an entry at
    each source. Raises ``InvalidValue`` naming the first source (in the given order) that does
    not reach every vertex (the graph is not connected, or not strongly connected).

    Method: :func:`bfs_multi` levels, a call at a time, each reduced by ``max`` with the
    entries counted per row (:meth:`DenseRows.reduce_rows`)."""
    A = as_matrix(A, what="eccentricity")
    sources = A.grid.agree(_check_sources, sources, A.n, "eccentricity")
    values = np.zeros(sources.shape[0], dtype=np.int64)
    for at, (deepest, reached) in _reduced_calls(A, sources, "max"):
        _require_all_reached(A, sources[at], reached)
        values[at] = deepest
    return _vector_of_sources(A, sources, values, "int64")


# -- closeness centrality ---------------------------------------------------------------------
def _closeness(total, reached, n, wf_improved):
    """networkx's formula: (r - 1) / total, times (r - 1) / (n - 1) with ``wf_improved``, where
    r counts the vertices reached (itself included) and total sums their distances; 0 where
    total is 0 (or n is 1). The same float operations in the same order as networkx."""
    out = np.zeros(total.shape[0], dtype=np.float64)
    some = total > 0
    if n > 1 and some.any():
        others = reached[some] - 1.0
        out[some] = others / total[some]
        if wf_improved:
            out[some] *= others / (n - 1)
    return out


@collective("sources", "wf_improved")
def closeness_centrality(A, *, sources=None, wf_improved=True) -> Vector:
    """Collective. networkx's ``closeness_centrality`` of an unweighted graph for each source u:
    (r - 1) / (sum of the distances d(v, u) over the r vertices v that reach u, u included),
    scaled by (r - 1) / (n - 1) when ``wf_improved`` (Wasserman and Faust's correction on
    graphs that are not connected); 0 when no other vertex reaches u.

    Direction: on a directed graph the distances are *inward*, from each vertex to u, as
    networkx computes them (it reverses the graph): the searches run along in-edges, on
    ``A.T``. On an undirected graph both are the same. ``sources``: a vertex id, a sequence of
    them, or None for every vertex. Returns a float64
    :class:`~lagraph_dist.algebra.vector.Vector` of size n with an entry at each source.

    Method: :func:`bfs_multi` levels on ``A.T``, a call at a time, each reduced by ``plus``
    with the entries counted per row (:meth:`DenseRows.reduce_rows`)."""
    A = as_matrix(A, what="closeness_centrality")

    def checked():
        return _check_sources(sources, A.n, "closeness_centrality"), _check_flag(wf_improved, "wf_improved")
    sources, wf_improved = A.grid.agree(checked)
    values = np.zeros(sources.shape[0], dtype=np.float64)
    for at, (total, reached) in _reduced_calls(A.T, sources, "plus"):
        values[at] = _closeness(total, reached, A.n, wf_improved)
    return _vector_of_sources(A, sources, values, "float64")
