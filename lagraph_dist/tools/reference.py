"""CPU reference BFS, used as the oracle the distributed kernels are tested against.

:func:`bfs` runs on python-graphblas (SuiteSparse:GraphBLAS) in the LAGraph style; the
package is imported lazily so that this module imports without the ``reference`` extra.
:func:`bfs_levels_scipy` is a second, independent oracle built on ``scipy.sparse.csgraph``.
:func:`compare` runs our BFS and the reference on one graph and reports their differences.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from lagraph_dist.comm.collective import collective
from lagraph_dist.core.checks import check_vertex
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.errors import (
    DimensionMismatch,
    DomainMismatch,
    InvalidValue,
    ValidationError,
)
from lagraph_dist.core.text import plural
from lagraph_dist.tools.validate import depths_by_pointer_jumping, validate

__all__ = ["HostPattern", "bfs", "bfs_levels_scipy", "compare", "Comparison", "connected_components", "eccentricity",
           "betweenness_dependencies"]

_DIRECTIONS = ("push", "pushpull")


def _import_graphblas():
    """Import python-graphblas, or explain which extra provides it.

    Returns
    -------
    module
        The ``graphblas`` package.

    Raises
    ------
    ImportError
        If python-graphblas is not installed.
    """
    try:
        import graphblas
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "lagraph_dist.tools.reference.bfs needs python-graphblas; install the `reference` "
            "extra: pip install lagraph-dist[reference]"
        ) from exc
    return graphblas


def _check_direction(direction):
    """Reject anything but the supported direction names."""
    if direction not in _DIRECTIONS:
        raise InvalidValue(f"direction must be one of {_DIRECTIONS}, got {direction!r}")


def _square_size(shape):
    """Return n for an n-by-n shape, else raise :class:`DimensionMismatch`."""
    if len(shape) != 2 or shape[0] != shape[1]:
        raise DimensionMismatch(f"adjacency matrix must be square, got shape {tuple(shape)}")
    return int(shape[0])


def _scipy_pattern_coo(S):
    """Return ``(rows, cols)`` int64 arrays of every stored entry of a scipy matrix.

    Explicit zeros are kept (they are edges); duplicates may remain.
    """
    coo = sp.coo_array(S)
    return coo.row.astype(np.int64, copy=False), coo.col.astype(np.int64, copy=False)


class HostPattern(NamedTuple):
    """A pattern as canonical CSR arrays on the host (rows sorted, no duplicates), uint64 and
    owned by their arrays, given away to python-graphblas (``Matrix.host_csr(np.uint64)``)."""

    n: int
    indptr: np.ndarray
    indices: np.ndarray


def _to_graphblas_pattern(gb, S):
    """Convert ``S`` into an n-by-n boolean ``graphblas.Matrix`` holding its pattern.

    Parameters
    ----------
    gb : module
        The ``graphblas`` package.
    S : scipy sparse matrix/array, graphblas.Matrix or HostPattern

    Returns
    -------
    A : graphblas.Matrix
        Boolean, iso-valued, duplicates merged.
    n : int
    """
    if isinstance(S, HostPattern):
        # uint64 arrays the caller gives away: graphblas owns them as they are, without a copy
        A = gb.Matrix.ss.import_csr(nrows=S.n, ncols=S.n, indptr=S.indptr, col_indices=S.indices,
                                    values=np.ones(1, bool), is_iso=True, sorted_cols=True, take_ownership=True)
        return A, S.n
    if isinstance(S, gb.Matrix):
        n = _square_size((S.nrows, S.ncols))
        A = gb.Matrix(bool, n, n)
        # Structural mask: explicit zeros (or falsy values) of S are still edges.
        A(S.S) << True
        return A, n
    if sp.issparse(S):
        n = _square_size(S.shape)
        if S.format == "csr" and S.has_canonical_format:
            # sorted rows without duplicates (what Matrix.to_scipy gives): the rows taken as they
            # are (uint64 copies), without the COO's int64 pairs (at scale 26, 47 s against a few)
            pattern = HostPattern(n, S.indptr.astype(np.uint64), S.indices.astype(np.uint64))
            return _to_graphblas_pattern(gb, pattern)
        rows, cols = _scipy_pattern_coo(S)
        # A scalar value gives an iso matrix; graphblas then drops duplicate indices itself.
        A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n)
        return A, n
    raise DomainMismatch(
        f"S must be a scipy sparse matrix/array or a graphblas.Matrix, got {type(S).__name__}"
    )


def _frontier_edges(gb, graph, q):
    """Sum of out-degrees of the frontier vertices (the edges a push step scans)."""
    deg = gb.Vector(gb.dtypes.INT64, graph.n)
    deg(q.S) << graph.out_degree
    return int(deg.reduce(gb.monoid.plus).new().value or 0)


def _set_frontier_format(q, push):
    """Sparse frontier for push (few entries), bitmap for pull (random membership tests)."""
    q.ss.config["sparsity_control"] = ["sparse"] if push else ["bitmap"]


class PreparedGraph:
    """A pattern matrix with what push/pull BFS reads besides it (A.T, out-degrees), built once
    so that timing a search times the search alone (:func:`prepare`). A ``symmetric`` pattern
    is its own transpose: none is made (at scale 26, 50 s of one core)."""

    def __init__(self, gb, S, symmetric=False):
        self.A, self.n = _to_graphblas_pattern(gb, S)
        self._gb = gb
        self._AT = self.A if symmetric else None
        self._out_degree = None

    @property
    def AT(self):
        if self._AT is None:
            self._AT = self.A.T.new()
        return self._AT

    @property
    def out_degree(self):
        if self._out_degree is None:
            gb = self._gb
            self._out_degree = self.A.reduce_rowwise(gb.agg.count).new(dtype=gb.dtypes.INT64)
        return self._out_degree


def prepare(S, symmetric=False) -> PreparedGraph:
    """Convert ``S`` once for repeated :func:`bfs` calls (benchmarks time only the search);
    ``symmetric``: the caller knows ``S`` equals its transpose (a Matrix's ``symmetric``)."""
    graph = PreparedGraph(_import_graphblas(), S, symmetric)
    graph.AT, graph.out_degree      # build both now, outside any timed region
    return graph


def _run_bfs(gb, graph, source, direction):
    """Level-synchronous BFS on the boolean pattern ``A``; returns graphblas vectors.

    Returns
    -------
    lev, pi : graphblas.Vector
        Level and parent of every reached vertex (INT64), absent where unreached.
    """
    int64 = gb.dtypes.INT64
    A, n = graph.A, graph.n
    # secondi gives the index k of the frontier entry q[k], i.e. the parent, in both
    # q @ A (push) and AT @ q (pull).
    parent_of = gb.semiring.ss.any_secondi[int64]
    pi = gb.Vector(int64, n)
    pi[source] = source
    lev = gb.Vector(int64, n)
    lev[source] = 0
    q = gb.Vector(int64, n)
    q[source] = source

    pushpull = direction == "pushpull"
    # Beamer's rule with the package's defaults, as ld.bfs(direction="auto") applies it
    rule = DirectionRule("auto" if pushpull else "push", n, A.nvals)
    AT = graph.AT if pushpull else None
    level = 0
    while q.nvals > 0:
        push = rule.choose(q.nvals, lambda: _frontier_edges(gb, graph, q))
        level += 1
        if pushpull:
            _set_frontier_format(q, push)
        # ~pi.S: never revisit; replace: the new frontier is only the newly found vertices.
        if push:
            q(~pi.S, replace=True) << parent_of(q @ A)
        else:
            q(~pi.S, replace=True) << parent_of(AT @ q)
        pi(q.S) << q
        lev(q.S) << level
    return lev, pi


def bfs(S, source, *, direction="push"):
    """Breadth-first search from ``source`` along out-edges, with python-graphblas.

    Parameters
    ----------
    S : scipy sparse matrix/array (any format), graphblas.Matrix, or a PreparedGraph
        Square adjacency matrix; entry ``S[i, j]`` is the edge ``i -> j``. Only the pattern
        counts: explicit zeros are edges, values are ignored, self-loops and duplicate
        entries are allowed.
    source : int
        Source vertex (Python or numpy integer, not bool).
    direction : {"push", "pushpull"}
        ``"push"`` expands the frontier with ``q @ A`` at every level; ``"pushpull"``
        switches to ``A.T @ q`` on large frontiers (direction-optimizing BFS).

    Returns
    -------
    levels : numpy.ndarray of int64, shape (n,)
        Hop distance from ``source``; -1 where unreached; ``levels[source] == 0``.
    parents : numpy.ndarray of int64, shape (n,)
        A BFS-tree parent of every reached vertex; -1 where unreached;
        ``parents[source] == source``.

    Raises
    ------
    ImportError
        If python-graphblas is not installed.
    DimensionMismatch
        If ``S`` is not square.
    DomainMismatch
        If ``S`` has an unsupported type or ``source`` is not an integer.
    IndexOutOfBound
        If ``source`` is outside ``[0, n)``.
    InvalidValue
        If ``direction`` is unknown.
    """
    _check_direction(direction)
    gb = _import_graphblas()
    graph = S if isinstance(S, PreparedGraph) else PreparedGraph(gb, S)
    source = check_vertex(source, graph.n)
    lev, pi = _run_bfs(gb, graph, source, direction)
    levels = lev.to_dense(fill_value=-1, dtype=np.int64).astype(np.int64, copy=False)
    parents = pi.to_dense(fill_value=-1, dtype=np.int64).astype(np.int64, copy=False)
    return levels, parents


def bfs_levels_scipy(S, source):
    """BFS levels from ``scipy.sparse.csgraph.breadth_first_order`` (independent oracle).

    Parameters
    ----------
    S : scipy sparse matrix/array
        Square adjacency matrix, ``S[i, j]`` is the edge ``i -> j``; pattern only.
    source : int

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Hop distance from ``source``, -1 where unreached.
    """
    from scipy.sparse.csgraph import breadth_first_order

    if not sp.issparse(S):
        raise DomainMismatch(f"S must be a scipy sparse matrix/array, got {type(S).__name__}")
    n = _square_size(S.shape)
    source = check_vertex(source, n)
    rows, cols = _scipy_pattern_coo(S)
    # Rebuild with unit weights: csgraph may read stored zeros as missing edges.
    G = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    order, pred = breadth_first_order(G, source, directed=True, return_predecessors=True)
    # csgraph marks the source and the unreached alike (-9999): the tree's parents, -1 unreached
    parents = np.full(n, -1, dtype=np.int64)
    parents[order] = pred[order]
    parents[source] = source
    return depths_by_pointer_jumping(parents, source)


def connected_components(S):
    """Connected components with python-graphblas, by label propagation: the oracle for
    ``lagraph_dist.algorithms.components``.

    Every vertex starts labelled by its own id; each round every vertex takes the smallest
    label among itself and its neighbours (``min_second`` over the pattern of ``S`` and its
    transpose, so a directed graph gives its weakly connected components), until a round
    changes nothing. Rounds: the largest component's diameter + 1; for small test graphs.

    Parameters
    ----------
    S : scipy sparse matrix/array or graphblas.Matrix
        Square adjacency matrix; only the pattern counts.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Each vertex's label: the smallest vertex id of its component.
    """
    gb = _import_graphblas()
    A, n = _to_graphblas_pattern(gb, S)
    neighbours = A.ewise_add(A.T, gb.binary.lor).new()        # in- and out-edges
    ids = np.arange(n, dtype=np.int64)
    labels = gb.Vector.from_coo(ids, ids, size=n)
    while True:
        smaller = labels.dup()
        smaller(accum=gb.binary.min) << gb.semiring.min_second(neighbours @ labels)
        if smaller.isequal(labels):
            return labels.to_dense(fill_value=-1, dtype=np.int64).astype(np.int64, copy=False)
        labels = smaller


# -- our BFS against the reference ------------------------------------------------------------
MAX_EXAMPLES = 10     # differing vertices listed in a report


@dataclass
class Comparison:
    """Our BFS against python-graphblas from one source: ``ok`` when the levels agree exactly
    and our parents pass the Graph500 rules (parents are not unique, so never compared)."""

    source: int
    n: int
    direction: str
    reached: int                    # vertices our BFS reached
    reference_reached: int          # vertices the reference reached
    level_differences: int          # vertices whose levels differ
    examples: list = field(default_factory=list)    # (vertex, ours, reference), the first few
    parents_error: str | None = None                # the Graph500 rule our parents break

    @property
    def ok(self) -> bool:
        return self.level_differences == 0 and self.parents_error is None

    def __str__(self):
        head = (f"source {self.source} ({self.direction}): reached {self.reached} of {self.n} "
                f"(reference {self.reference_reached})")
        if self.ok:
            return f"{head}: levels equal, parents valid"
        lines = [f"{head}: DIFFERENT"]
        if self.level_differences:
            shown = ", ".join(f"{v}: {ours} vs {ref}" for v, ours, ref in self.examples)
            lines.append(f"  levels differ at {plural(self.level_differences, 'vertex')} "
                         f"(vertex: ours vs reference) {shown}")
        if self.parents_error is not None:
            lines.append(f"  parents break the Graph500 rules: {self.parents_error}")
        return "\n".join(lines)


@collective("source", "direction", "grid", "backend", what="reference.compare")
def compare(A, source, *, direction="auto", grid=None, backend="auto") -> Comparison:
    """Collective. Run ``ld.bfs`` and python-graphblas's BFS on the same graph from ``source``
    and report the differences: levels exactly, our parents by the Graph500 rules.

    ``A``: an ``ld.Matrix``, or what ``ld.bfs`` converts (scipy, cupyx, graphblas, networkx,
    given on rank 0), built on ``grid``/``backend``. ``source`` is a vertex id, or a node label
    where A has labels (the report names its id). Every rank gets the same report.
    """
    from lagraph_dist.algorithms import bfs as distributed_bfs
    from lagraph_dist.io.interop import as_matrix, require

    A = as_matrix(A, grid=grid, backend=backend, what="reference.compare")
    require(A.grid, "graphblas", "reference.compare")
    result = distributed_bfs(A, source, direction=direction)
    source = result.source          # the id of a node label: the reference knows ids only
    levels, parents = result.levels.to_numpy(), result.parents.to_numpy()
    S = A.to_scipy(root=0)
    expected = A.grid.bcast_from(0, lambda: bfs(S, source)[0])
    try:
        validate(A, source, None, parents)     # collective: every rank raises alike
        parents_error = None
    except ValidationError as exc:
        parents_error = str(exc)
    differing = np.flatnonzero(levels != expected)
    return Comparison(
        source=int(source), n=A.n, direction=direction,
        reached=int((levels >= 0).sum()), reference_reached=int((expected >= 0).sum()),
        level_differences=int(differing.shape[0]),
        examples=[(int(v), int(levels[v]), int(expected[v])) for v in differing[:MAX_EXAMPLES]],
        parents_error=parents_error)


def eccentricity(S, sources=None):
    """Eccentricities with python-graphblas: the oracle for
    ``lagraph_dist.algorithms.distances.eccentricity`` (networkx's semantics, out-distances).

    All sources search at once as the rows of a k x n frontier matrix ``F``, one masked product
    a level (``F<!L.S, replace> = F any.pair A``, then ``L<F.S> = depth``); each row's largest
    level is its source's eccentricity (``reduce_rowwise`` by ``max``), and a row with fewer
    entries than n vertices (``count``) is a source that does not reach every vertex.

    Parameters
    ----------
    S : scipy sparse matrix/array or graphblas.Matrix
        Square adjacency matrix; only the pattern counts.
    sources : sequence of int, optional
        The sources (every vertex when None).

    Returns
    -------
    numpy.ndarray of int64, shape (len(sources),)

    Raises
    ------
    InvalidValue
        Naming the first source that does not reach every vertex.
    """
    gb = _import_graphblas()
    A, n = _to_graphblas_pattern(gb, S)
    sources = np.arange(n, dtype=np.int64) if sources is None else np.asarray(sources, dtype=np.int64)
    k = sources.shape[0]
    rows = np.arange(k, dtype=np.int64)
    F = gb.Matrix.from_coo(rows, sources, True, nrows=k, ncols=n)
    L = gb.Matrix.from_coo(rows, sources, 0, dtype=gb.dtypes.INT64, nrows=k, ncols=n)
    depth = 0
    while F.nvals:
        depth += 1
        F(~L.S, replace=True) << gb.semiring.any_pair(F @ A)
        L(F.S) << depth
    reached = L.reduce_rowwise(gb.agg.count).new().to_dense(fill_value=0, dtype=np.int64)
    short = np.flatnonzero(reached < n)
    if short.shape[0]:
        i = int(short[0])
        raise InvalidValue(f"eccentricity of source {int(sources[i])}: it reaches {int(reached[i])} of the "
                           f"{n} vertices (infinite path length)")
    return L.reduce_rowwise(gb.monoid.max).new().to_dense(fill_value=0, dtype=np.int64)


def betweenness_dependencies(S, sources):
    """Brandes's dependencies summed over ``sources``, with python-graphblas, LAGraph's way
    (``LAGr_Betweenness``): the oracle for ``lagraph_dist.algorithms.centrality``'s sweeps.

    All sources at once as the rows of k x n matrices: ``paths`` counts the shortest paths from
    each source (``frontier<!paths.S, replace> = frontier plus.first A``, a level a product, each
    level's pattern kept); backwards, ``bcu`` (1 + delta) passes ``bcu / paths`` of level d to
    level d - 1 (``W<S[d-1].S, replace> = W plus.first A'``, then ``bcu += W .* paths``). Each
    vertex's value is the sum over the sources of its delta, the source itself excluded: what
    ``networkx.betweenness_centrality`` sums before its scaling.

    Parameters
    ----------
    S : scipy sparse matrix/array or graphblas.Matrix
        Square adjacency matrix; only the pattern counts (directed: edges i -> j).
    sources : sequence of int
        Distinct sources.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
    """
    gb = _import_graphblas()
    A, n = _to_graphblas_pattern(gb, S)
    sources = np.asarray(sources, dtype=np.int64)
    k = sources.shape[0]
    rows = np.arange(k, dtype=np.int64)
    paths = gb.Matrix.from_coo(rows, sources, 1.0, nrows=k, ncols=n, dtype="FP64")
    frontier = paths.dup()
    levels = [frontier.dup(dtype="BOOL")]
    while True:
        frontier(~paths.S, replace=True) << gb.semiring.plus_first(frontier @ A)
        if frontier.nvals == 0:
            break
        levels.append(frontier.dup(dtype="BOOL"))
        paths(accum=gb.binary.plus) << frontier
    bcu = gb.Matrix(float, k, n)
    bcu(paths.S) << 1.0
    for d in range(len(levels) - 1, 1, -1):              # contributions to levels d - 1 >= 1
        W = gb.Matrix(float, k, n)
        W(levels[d].S) << bcu.ewise_mult(paths, gb.binary.truediv)
        W(levels[d - 1].S, replace=True) << gb.semiring.plus_first(W @ A.T)
        bcu(accum=gb.binary.plus) << W.ewise_mult(paths, gb.binary.times)
    delta = gb.Matrix(float, k, n)
    delta(~levels[0].S) << bcu.apply(gb.binary.minus, right=1.0)   # each row's source excluded
    return delta.reduce_columnwise(gb.monoid.plus).new().to_dense(fill_value=0.0, dtype=np.float64)
