"""Connected components: every vertex labelled by the smallest vertex id of its component.

Undirected (symmetric) graphs get their connected components; directed ones their weakly
connected components, where a vertex's neighbours are its in- and out-neighbours (networkx's
``connected_components`` / ``weakly_connected_components`` as a partition, each part named by
its smallest id).

On one process (CPU or GPU), the labels are one call of the kernel set's components kernel (a
sampled union-find, :mod:`lagraph_dist.algebra.components`). On a grid they come from searches
and label propagation, as follows.

Why this method: a Kronecker graph is skewed (at scale 20
one component of 646,002 vertices, 402,226 isolated ones and 348 in tiny components) and a
1000 x 1000 mesh is deep (one component, 2,000 hops across), where label propagation, or FastSV
without its pointer jumping, needs a round a hop. One search settles most of either:

1. *The giant component by one search*, from vertex 0 when it has an edge (its component's
   label is then 0, and no hub is looked for: that took 2-4 ms of a mesh's ~35), else from a
   vertex of the highest degree: on a symmetric graph the level engine's search over
   ``any_pair`` (one fused run on one rank, as ``ld.bfs``), on a directed one a level loop over
   out- and in-edges. It reaches the giant component of a skewed graph and the whole of a
   connected one; when it reaches every vertex the labels are all 0 and nothing else runs.
   Otherwise its label is the smallest id it reached (a reduction). When vertex 0's component
   is a small one, step 2 finds the giant.
2. *Other large components by more searches*: while the unsettled vertices with an edge are
   many (``SEARCH_AT_LEAST``), a search from the smallest of them labels its component with
   that id (the smallest there, the components being disjoint): two meshes side by side take
   two searches, not thousands of rounds.
3. *The rest by label propagation*: each unsettled vertex with an edge (found by pull products
   masked by the settled set, which read only the unsettled rows) starts with its own id; a
   round sends the labels that changed to the neighbours (``min_first`` along out-edges,
   ``min_second`` along in-edges, masked to the unsettled vertices), which keep the smaller,
   until none changes: the rest of a skewed graph settles in a few rounds.
4. Isolated vertices keep their own ids.

On 2 cores, by these searches (benchmarks/components.py, medians of 15-21 calls in three
runs, scipy's ``connected_components`` alternating with ours): the mesh 36-44 ms against
scipy's 32-47 on a float64 CSR and 49-59 on the bool CSR of ``A.to_scipy()``, which it
converts; Kronecker 20 90-100 ms against scipy's 2.3-3.0 s. The CPU's union-find, where it
runs: the mesh 12.0 ms, Kronecker 20 54.6 ms (``cpu-family-cc-*-ec2bc44.json``).

Only algebra calls: no kernel, MPI call or backend branch. The algebra lacks a positional apply
(GraphBLAS's ``ROWINDEX``): the vertex ids are a Vector built from indices, ~30 of the ~95 ms
at Kronecker 20; a comparison (``lt``) or ``select``: the improved labels are found by
``labels + kept * -1`` under a value mask; and an index gather (``f[f]``), without which FastSV's
pointer jumping cannot be written, so deep components other than the hub's get step 2.
"""
from __future__ import annotations

import numpy as np

import lagraph_dist.algebra.expr  # noqa: F401  (the grammar's masked writes: w(~m.S, replace=True) << u)
from lagraph_dist.algebra.components import component_labels, labels_fusable
from lagraph_dist.algebra.elementwise import apply, assign, ewise_add, ewise_mult, reduce
from lagraph_dist.algebra.levels import RepeatLimits, search_from
from lagraph_dist.algebra.products import mxv, vxm
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algorithms.small_graphs import components_on_host_when_cheaper
from lagraph_dist.comm.collective import collective
from lagraph_dist.core.direction import DEFAULT_ALPHA, DEFAULT_BETA, DirectionRule
from lagraph_dist.io.interop import as_matrix
from lagraph_dist.semirings import any_pair, binary, monoids, semirings

__all__ = ["connected_components", "number_connected_components"]

# after the hub's search, the smallest unsettled vertex's component is searched on its own while
# the unsettled vertices with an edge number at least this fraction of n and this many; fewer are
# left to label propagation
SEARCH_AT_LEAST = 1 / 16
SEARCH_AT_LEAST_VERTICES = 4096


@collective("A", what="connected_components")
@components_on_host_when_cheaper
def connected_components(A) -> Vector:
    """Collective. An int64 Vector on A's grid and backend with an entry for every vertex: the
    smallest vertex id of its component (weakly connected for a directed ``A``: a vertex's
    neighbours are its in- and out-neighbours). ``A``: an ``ld.Matrix`` or what ``ld.bfs``
    converts (scipy, cupyx, graphblas, networkx on rank 0). A graph of the GPU backend is
    labelled on its host twin where it is small (``settings.host_search_edges``) or the host's
    union-find costs less than the device's call (``algorithms/small_graphs.py``); the Vector is
    then held in host memory until a device operation reads it."""
    return _components(as_matrix(A, what="connected_components"))[0]


@collective("A", what="number_connected_components")
@components_on_host_when_cheaper
def number_connected_components(A) -> int:
    """Collective. The number of (weakly, for a directed ``A``) connected components of ``A``,
    the same int on every rank."""
    return _components(as_matrix(A, what="number_connected_components"), count=True)[1]


def _components(A, *, count=False):
    """(labels, the number of components when ``count`` else None) of the Matrix ``A``."""
    if labels_fusable(A):
        labels, components = component_labels(A)
        return labels, components if count else None
    n = A.n
    A.T.prepare_pull()                # pull levels (and a directed graph's in-edges) read the by-row copy
    with_edge = _with_edge(A)
    start = 0 if _has_edge(with_edge, 0) else _hub(with_edge)
    settled = _search(A, start)
    if settled.nvals == n:            # connected: the smallest id is 0
        return apply(settled, binary.second, right=np.int64(0)), 1
    ids = _vertex_ids(A)
    labels = ids.dup()
    assign(labels, settled, value=start if start == 0 else reduce(ewise_mult(settled, ids, binary.second),
                                                                    monoids.min))
    searches = 1
    rest = ewise_mult(_unsettled_with_edge(A, with_edge, settled), ids, binary.second)
    while rest.nvals >= max(SEARCH_AT_LEAST * n, SEARCH_AT_LEAST_VERTICES, 1):
        smallest = int(reduce(rest, monoids.min))
        found = _search(A, smallest)
        assign(labels, found, value=smallest)
        assign(settled, found)
        rest = _unsettled(rest, found)
        searches += 1
    _propagate(A, labels, rest, settled)
    if not count:
        return labels, None
    isolated = n - with_edge.nvals - (with_edge.nvals == 0)     # less the hub, searched when edgeless
    return labels, searches + _roots(labels, rest) + isolated


def _with_edge(A):
    """The vertices with an out- or in-edge (their degrees as values)."""
    out = A.out_degree()
    return out if A.symmetric else ewise_add(out, A.T.out_degree(), monoids.plus)


def _has_edge(with_edge, vertex) -> bool:
    """Whether ``vertex`` has an edge (a probe of one entry)."""
    probe = Vector.from_indices([vertex], with_edge.n, grid=with_edge.grid, backend=with_edge.backend)
    return bool(ewise_mult(probe, with_edge, binary.first).nvals)


def _hub(with_edge) -> int:
    """A vertex of the highest degree, the smallest such id (vertex 0 of an edgeless graph): the
    top degree by a reduction, each rank's first vertex of it from its own entries, the smallest
    of those by another (the algebra has no argmax; gathering the degrees took 3.5 ms at a
    million vertices, this 1.6)."""
    if not with_edge.nvals:
        return 0
    top = reduce(with_edge, monoids.max)
    ids, degrees = with_edge.local_entries()
    first = int(degrees.argmax()) if degrees.shape[0] else None
    mine = np.array([int(ids[first])] if first is not None and degrees[first] == top else [], dtype=np.int64)
    hubs = Vector.from_indices(mine, with_edge.n, values=mine, dtype=np.int64, grid=with_edge.grid,
                               backend=with_edge.backend)
    return int(reduce(hubs, monoids.min))


def _vertex_ids(A):
    """The bitmap Vector ``ids[v] = v`` of every vertex; each rank passes an equal share of the
    ids (GraphBLAS would apply ROWINDEX, which this algebra does not have)."""
    grid, n = A.grid, A.n
    share = np.arange(grid.rank * n // grid.size, (grid.rank + 1) * n // grid.size, dtype=np.int64)
    return Vector.from_indices(share, n, values=share, dtype=np.int64, grid=grid, backend=A.backend).to_bitmap()


def _unsettled_with_edge(A, with_edge, settled):
    """The vertices outside ``settled`` with an edge: those with a neighbour in ``with_edge``,
    found by pull products masked by ``~settled``, which look only at the unsettled rows (the
    isolated ones have no edge to look at) and stop at their first neighbour."""
    return _both_ways(A, with_edge.to_bitmap(), any_pair, monoids.lor, mask=settled)


def _unsettled(u, settled):
    """u's entries outside ``settled``."""
    out = Vector(u.dtype, u.n, grid=u.grid, backend=u.backend)
    out(~settled.S, replace=True) << u
    return out


def _search(A, source):
    """The component of ``source`` (weakly connected on a directed A), as a bitmap Vector."""
    return _symmetric_search(A, source) if A.symmetric else _weak_search(A, source)


def _symmetric_search(A, source):
    """The vertices reachable from ``source``: ``ld.bfs``'s search (``levels.search_from``: one
    call on one rank), over ``any_pair`` into a boolean visited set with no depths, the least it
    can write (the 1000 x 1000 mesh's search: median 31 ms, 34 with parents)."""
    rule = DirectionRule("auto", A.n, A.nvals, DEFAULT_ALPHA, DEFAULT_BETA)
    visited, _, _ = search_from(A, source, any_pair, depths=False, limits=RepeatLimits(max_levels=A.n), rule=rule)
    return visited


def _weak_search(A, source):
    """Breadth-first along out- and in-edges: each level ``q'A`` and ``A q`` over ``any_pair``,
    both masked by the complement of the visited set, joined."""
    q = Vector.from_indices([source], A.n, grid=A.grid, backend=A.backend)
    visited = q.dup().to_bitmap()
    while q.nvals:
        q = _both_ways(A, q, any_pair, monoids.lor, mask=visited)
        assign(visited, q)
    return visited


def _both_ways(A, q, semiring, monoid, *, mask):
    """The product of q with A along out-edges, and on a directed A along in-edges too, the two
    joined by ``monoid``; outputs only where ``mask`` has no entry."""
    down = vxm(q, A, semiring, mask=mask, complement=True)
    if A.symmetric:
        return down
    up = mxv(A, q, _swapped(semiring), mask=mask, complement=True)
    return ewise_add(down, up, monoid)


def _swapped(semiring):
    """``mxv``'s spelling of the semiring ``vxm`` reads q on the left of: min_first -> min_second."""
    return {semirings.min_first: semirings.min_second}.get(semiring, semiring)


def _propagate(A, labels, front, settled):
    """Label propagation over the unsettled vertices, in place on ``labels``: each round the
    labels in ``front`` (those that changed) go to their neighbours, which keep the smaller."""
    while front.nvals:
        offered = _both_ways(A, front, semirings.min_first, monoids.min, mask=settled)
        kept = ewise_mult(offered, labels, binary.min)
        front = _decreased(labels, kept)
        assign(labels, front)


def _decreased(labels, kept):
    """kept's entries that are smaller than ``labels`` there (kept <= labels everywhere):
    ``labels - kept`` as ``labels + kept * -1``, its nonzero values as a value mask."""
    drop = ewise_mult(labels, apply(kept, binary.times, right=np.int64(-1)), binary.plus)
    out = Vector(kept.dtype, kept.n, grid=kept.grid, backend=kept.backend)
    out(drop.V, replace=True) << kept
    return out


def _roots(labels, rest):
    """How many of ``rest``'s vertices (their ids as values) are their own label: one a
    component the propagation settled."""
    if not rest.nvals:
        return 0
    moved = _decreased(rest, ewise_mult(labels, rest, binary.first))     # label < id
    return rest.nvals - moved.nvals
