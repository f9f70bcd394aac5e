"""Multi-source breadth-first search: many searches a batch, bit-parallel.

The k frontiers are the rows of a k x n boolean frontier matrix stored as words of 64 bits a
vertex (bit i of word i // 64 for search i: the bit-parallel multi-source BFS of Then et al.,
"The More the Merrier", VLDB 2014), so a level reads each edge once for every search of the
batch. On one process a batch of up to MULTI_FUSED_MAX_WIDTH searches runs every level in one
call of the backend (:func:`~lagraph_dist.algebra.multi.fused_multi_search`); on a grid a batch
of 64 runs a masked product a level (:func:`~lagraph_dist.algebra.multi.masked_vxm`:
``F'<!V> = F any.secondi A``, assigned into the visited matrix with its levels and parents).
Push and pull follow Beamer's rule (:class:`~lagraph_dist.core.direction.DirectionRule`, as in
:func:`~lagraph_dist.algorithms.bfs.bfs`) on the batch's counts: the frontier's vertices and
out-edges, and as the unexplored edges the out-edges of the vertices not yet reached by every
search. More sources than a batch holds run as several batches, each as wide as the memory
allows (:func:`lagraph_dist.algebra.memory.plan_multi_batches`); when the outputs of all
searches do not fit on the device, each finished batch moves its outputs to the host. No
kernel, MPI call or backend branch appears here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lagraph_dist.comm.collective import collective
from lagraph_dist.core.checks import check_optional_count, check_search_options, check_vertex_array
from lagraph_dist.core.direction import DEFAULT_BETA, DirectionRule
from lagraph_dist.core.errors import DomainMismatch, InvalidValue, OutOfHostMemory
from lagraph_dist.io.interop import as_matrix
from lagraph_dist.algebra import memory
from lagraph_dist.algebra.multi import (DenseRows, batch_most, block_on_host, fused_multi_search, in_graph_order,
                                        multi_fusable, repeat_masked_mxm, sources_frontier)
from lagraph_dist.local.engine import MULTI_FUSED_MAX_WIDTH
from lagraph_dist.algebra.levels import RepeatLimits
from lagraph_dist.algorithms.degree_twin import degree_twin
from lagraph_dist.algorithms.small_graphs import batch_on_host_when_deep, count_of
from lagraph_dist.core.stats import StatsWhenRead, summarize_levels

__all__ = ["bfs_multi", "MultiBFSResult"]


@dataclass
class MultiBFSResult(StatsWhenRead):
    """``levels`` and ``parents`` are :class:`~lagraph_dist.algebra.multi.DenseRows` (None when not
    asked for): row i belongs to ``sources[i]``, and ``to_numpy()`` gives a (k, n) int64
    array, -1 where that search did not reach a vertex. ``stats`` has one dict per level of
    each batch (its ``batch`` key says which; ``frontier`` and ``discovered`` count entries,
    that is (search, vertex) pairs; ``vertices`` the next frontier's vertices). ``widths``:
    the searches of each batch."""

    sources: np.ndarray
    levels: DenseRows | None
    parents: DenseRows | None
    _stats: object = field(repr=False)
    widths: list = field(default_factory=list)

    @property
    def grid(self):
        """The grid the searches ran on."""
        return (self.levels if self.levels is not None else self.parents).grid


def _check_sources(sources, n):
    if isinstance(sources, (str, bytes)) or np.ndim(sources) == 0:
        raise DomainMismatch(f"sources must be a sequence of vertex ids, got {sources!r} (for one "
                             "source, call ld.bfs)")
    ids = check_vertex_array(sources, n, "sources")
    if ids.shape[0] == 0:
        raise InvalidValue("bfs_multi needs at least one source")
    return np.asarray(ids, dtype=np.int64)


def _check_arguments(A, sources, levels, parents, direction, alpha, beta, depth_limit, batch_size):
    check_search_options("bfs_multi", levels=levels, parents=parents, direction=direction, alpha=alpha,
                         beta=beta, depth_limit=depth_limit)
    check_optional_count(batch_size, "batch_size", 1)
    if batch_size is not None and batch_size > MULTI_FUSED_MAX_WIDTH:
        raise InvalidValue(f"batch_size must be <= {MULTI_FUSED_MAX_WIDTH} (the searches of one fused run), "
                           f"got {batch_size}")
    return _check_sources(sources, A.n)


def _plan(A, count, levels, parents, most):
    """The batches (the same plan on every rank): as wide as this rank's share of the free
    memory allows, at most ``most`` (:func:`lagraph_dist.algebra.memory.plan_multi_batches`). Raises
    OutOfDeviceMemory / OutOfHostMemory on every rank when not even one search fits."""
    grid, backend = A.grid, A.backend
    options = dict(grid_shape=grid.shape, backend=backend, levels=levels, parents=parents,
                   symmetric=A.symmetric)
    sharing = memory.ranks_sharing_memory(grid.comm, backend)
    host_sharing = memory.ranks_sharing_memory(grid.comm, "cpu")

    def fitting():
        free = memory.free_share(backend, sharing)
        plan = memory.plan_multi_batches(free, lambda: memory.free_share("cpu", host_sharing), A.n, A.nvals,
                                         sources=count, most=most, **options)
        if plan.width == 0:
            _explain_no_room(A, count, sharing, host_sharing, options)
        return plan
    plan = grid.agree(fitting)
    return memory.MultiPlan(int(grid.allreduce(plan.width, "MIN")), bool(grid.allreduce(int(plan.offload), "MAX")))


def _explain_no_room(A, count, sharing, host_sharing, options):
    """Raise the error that says what did not fit: one search on the device (or the CPU's
    memory), or the outputs of all searches on the host."""
    backend = A.backend
    offloading = backend.name == "gpu"
    need = memory.multi_search_bytes(A.n, A.nvals, width=1, sources=1 if offloading else count, **options)
    what = (f"bfs_multi of {count} sources ({memory.format_bytes(need)} a rank for "
            f"{'one search and its outputs' if offloading else 'one search and all outputs'})")
    memory.require_fit(need, backend, what, sharing=sharing)
    outputs = memory.multi_output_bytes(A.n, grid_shape=options["grid_shape"], sources=count,
                                        levels=options["levels"], parents=options["parents"])
    memory.require_fit(outputs, "cpu", f"the levels and parents of bfs_multi's {count} sources "
                                       f"({memory.format_bytes(outputs)} a rank)", sharing=host_sharing)
    # both fit on their own, by a rounding of the shares: say so rather than run out later
    raise OutOfHostMemory(f"{what}, with the outputs of all sources on the host, leaves no room to run")


def _search_batch(A, sources, rule, *, levels, parents, last_depth, on_host, twin):
    """One batch of searches to the end (or to ``last_depth``), all its levels in one call of
    the backend where it fuses them (:func:`~lagraph_dist.algebra.multi.multi_fusable`; on
    ``twin``, A's degree-ordered twin, where there is one), else a masked product a level:
    (levels block, parents block, its LevelRecords)."""
    if multi_fusable(A, rule):
        searched, ids = (A, sources) if twin is None else (twin.matrix, twin.sources(sources))
        level_block, parent_block, levels_run = fused_multi_search(searched, ids, levels=levels, parents=parents,
                                                                   rule=rule, max_levels=last_depth)
        if twin is not None:                 # (put back in A's order where their rows are read)
            level_block, parent_block = (twin.rows_elsewhere(level_block, ids=False),
                                         twin.rows_elsewhere(parent_block, ids=True))
        if on_host:
            level_block, parent_block = (None if b is None else block_on_host(in_graph_order(b), A.backend)
                                         for b in (level_block, parent_block))
    else:
        frontier, visited = sources_frontier(A, sources, levels=levels, parents=parents)
        _, levels_run = repeat_masked_mxm(frontier, A, visited, limits=RepeatLimits(max_levels=last_depth), rule=rule)
        level_block, parent_block = visited.outputs(on_host=on_host)
    return level_block, parent_block, levels_run


def _stats_of(runs, grid, engine, order):
    """Collective: the stats dicts of the batches' levels (``runs``: each batch's LevelRecords;
    ``engine``: the backend that ran them, unless a run names its own; ``order``: the vertex
    order they ran in)."""
    records, engines = [], []
    for batch, levels_run in enumerate(runs):
        searches = "separate" if levels_run.separate else "together"
        for depth, r in enumerate(levels_run, start=1):
            record = r.as_dict(depth)
            record["batch"], record["vertices"], record["searches"] = batch, r.vertices, searches
            record["order"] = order
            records.append(record)
            engines.append(levels_run.engine or engine)
    records = summarize_levels(records, grid, grid.transport.name, engine)
    for record, own in zip(records, engines):
        record["engine"] = own
    return records


@collective("sources", "levels", "parents", "depth_limit", "direction", "alpha", "beta", "batch_size")
@batch_on_host_when_deep(lambda A, sources, *args, **kwargs: count_of(sources))
def bfs_multi(A, sources, *, levels=True, parents=True, depth_limit=None, direction="auto",
              alpha=None, beta=DEFAULT_BETA, batch_size=None) -> MultiBFSResult:
    """Collective. Breadth-first searches from each of ``sources`` along out-edges of ``A``
    (in-edges for ``A.T``), many at once: up to 512 a batch on one process, 64 on a grid
    (``batch_size`` caps a batch; the memory may make batches narrower: ``widths`` says).

    ``sources``: a sequence of integer vertex ids, the same on every rank; a repeated source
    is searched again (its rows are equal). Returns a :class:`MultiBFSResult` whose
    ``levels.to_numpy()`` and ``parents.to_numpy()`` are (len(sources), n) int64 arrays, -1
    where unreached; row i is what ``ld.bfs(A, sources[i], depth_limit=depth_limit)`` gives
    (the same levels, parents valid by the Graph500 rules). ``parents=False`` computes none.
    ``direction``, ``alpha`` and ``beta`` are ``ld.bfs``'s, but ``alpha=None`` takes the backend's
    batch alpha (4 on the GPU, 3 on the CPU, against ``ld.bfs``'s 8: a batch's pull reads nearly
    every in-edge it is charged with; ``A.backend.kernels.MULTI_ALPHA``).

    It is the faster way to run many searches on graphs of short diameter (one H200, Kronecker
    scale 22, levels only: 512 sources 17.7x the searches per second of separate ``ld.bfs``
    calls (42,133 searches/s on the degree twin) and 64 sources 7.5x (20,104/s on the twin) in
    the record of 0a5269a; 2 cores, Kronecker 18, 64 sources:
    11.3x as given and 16.6x on the degree twin in the record of 81bc3d0, 8.8x to 12.4x in earlier ones
    on other draws of the machine; ``ld.settings.multi_degree_order``). On a mesh, whose
    searches' waves rarely meet, the CPU runs a batch's searches one at a time, side by side on
    the cores (2 cores, 16 sources on the 15,606-vertex mesh 4elt: 1.2-1.8x the 16 calls;
    ``res.stats`` says ``searches``; ``ld.settings.multi_searches`` forces either way), each the
    queue search on a graph where ``ld.bfs``'s would be (``engine`` "queue" in ``res.stats``; one
    H100's host, 64 sources of a 2,000-vertex path: 1.30 ms, scipy's ``shortest_path`` 2.6).
    docs/api.md's "Multi-source BFS" names the records these figures come from ("Small graphs" the
    queue searches').
    """
    A = as_matrix(A, what="bfs_multi")
    grid = A.grid
    alpha = A.backend.kernels.MULTI_ALPHA if alpha is None else alpha
    sources = grid.agree(_check_arguments, A, sources, levels, parents, direction, alpha, beta,
                         depth_limit, batch_size)
    def new_rule():
        return DirectionRule(direction, A.n, A.nvals, alpha, beta)
    most = batch_most(A, new_rule())
    # (the twin first, where one is made: the batches are planned on the memory it leaves)
    twin = degree_twin(A, int(sources.shape[0]), parents=bool(parents)) if multi_fusable(A, new_rule()) else None
    plan = _plan(A, int(sources.shape[0]), bool(levels), bool(parents),
                 most if batch_size is None else min(most, int(batch_size)))
    last_depth = A.n if depth_limit is None else int(depth_limit)
    level_blocks, parent_blocks, runs, widths = [], [], [], []
    for start in range(0, sources.shape[0], plan.width):
        chunk = sources[start:start + plan.width]
        batch_levels, batch_parents, found = _search_batch(A, chunk, new_rule(), levels=bool(levels),
                                                           parents=bool(parents), last_depth=last_depth,
                                                           on_host=plan.offload, twin=twin)
        level_blocks.append(batch_levels)
        parent_blocks.append(batch_parents)
        runs.append(found)
        widths.append(int(chunk.shape[0]))

    def rows(blocks):
        return DenseRows(A.n, grid, A.backend, blocks)

    def stats():             # collective on several ranks: made here; on one, when first read
        return _stats_of(runs, grid, A.backend.name, "as given" if twin is None else "by degree")
    return MultiBFSResult(sources, rows(level_blocks) if levels else None, rows(parent_blocks) if parents else None,
                          stats if grid.size == 1 else stats(), widths)
