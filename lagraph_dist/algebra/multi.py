"""The k x n frontier matrix of a multi-source search, and its masked product with a matrix.

A :class:`FrontierMatrix` is a boolean k x n matrix (k <= 64) whose row i is search i's
frontier. It is distributed like a :class:`~lagraph_dist.algebra.vector.Vector` (processor (i, j) holds
the columns of vertex block jR+i) and bitmap-encoded with one uint64 word a vertex: bit i of
word v says that row i has an entry in column v. It also knows its nonzero columns as a list
(the kernels' output queue), so it is in both encodings at once. A :class:`VisitedMatrix` is
the k x n pattern of what each search has reached, with the level and the parent each entry
was found with (dense ``(block_len, k)`` int64 blocks, -1 where there is no entry).

:func:`masked_vxm` is one BFS level of all k searches as one masked product and assignment::

    F'<!V, replace> = F any.secondi A      # row i of F' is row i of F times A, masked by row i of V
    V<F'> = F' ;  levels<F'> = depth ;  parents<F'> = the product's values (the secondi ids)

run fused, since the product's k x n values would be as big as the parents themselves: the
kernels claim each new entry of V with one atomicOr, whose old word tells which bits are new.
It runs as the named stages of the vector products (:mod:`lagraph_dist.algebra.products`), through the
same collectives (:mod:`lagraph_dist.comm.collectives`) with the words word type:

1. **expand** (``collectives.expand`` of a ``WordPart``): F's words over the column space,
   gathered along the grid column, as (id, word) pairs or as the dense words, whichever is
   smaller (:func:`lagraph_dist.local.wire.words_prefer_dense`);
2. **local**: *push* (each frontier vertex offers its word to its out-neighbours) or *pull*
   (each output vertex with live searches that have not reached it looks for them among its
   in-neighbours). When the grid row has one processor the output space is this rank's own
   block and the kernel claims into V itself; otherwise it claims into a lower bound of V over
   the output space (what this rank knows is visited) and its claims are *candidates*;
3. **fold** (``collectives.fold_words``): the candidates go to their owners along the grid row
   as (id, word) pairs and, with parents, the candidate parents of each word's bits in bit
   order; the owner claims them into V, dropping what V already holds;
4. **merge** (``collectives.level_counts_words``): the level's counters (columns and entries
   found, edges examined, out-edges of the new frontier, the searches still alive) are read
   and exchanged over the grid in one small host allgather.
"""
from __future__ import annotations

import time

import numpy as np

from lagraph_dist.local.layout import MAX_OWNERS
from lagraph_dist.comm import collectives
from lagraph_dist.comm.collective import collective
from lagraph_dist.comm.collectives import LevelCounts
from lagraph_dist.local.engine import (MULTI_RECORD_FIELDS, FusedRecords, LevelPlanes, MultiTarget, PathDependencies,
                                       PlanesReduction, offers)
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch, Unsupported
from lagraph_dist.semirings import lookup_monoid
from lagraph_dist.comm.grid import Layout
from lagraph_dist.algebra.products import ProductStats, StageTimer, orientation
from lagraph_dist.algebra.levels import FusedRun, LevelEngine, LevelRecord, queue_search_fits
from lagraph_dist.algebra import memory, trace
from lagraph_dist.algebra.vector import every_vertex
from lagraph_dist.local.engine import MULTI_FUSED_MAX_WIDTH
from lagraph_dist.local.backend import get_backend

__all__ = ["repeat_masked_mxm", "fused_multi_search", "multi_fusable", "batch_most", "path_dependencies",
           "dependencies_fusable", "dependencies_batch", "MAX_WIDTH", "FrontierMatrix", "VisitedMatrix", "DenseRows", "LevelCounts",
           "sources_frontier", "masked_vxm", "full_mask", "block_rows", "block_on_host", "RowsElsewhere",
           "in_graph_order"]

#: Searches a frontier matrix holds at most: the bits of one word.
MAX_WIDTH = 64
KERNELS = ("push", "pull")


def full_mask(width) -> int:
    """The bits of ``width`` searches."""
    return (1 << width) - 1


class FrontierMatrix:
    """A k x n boolean matrix, row i search i's frontier (see the module docstring).

    ``words`` are this rank's uint64 words (its vertex block), ``ids`` the int32 local ids of
    its nonzero words (any order), ``counts`` the level's :class:`LevelCounts`.
    """

    def __init__(self, n, width, grid, backend, words, ids, counts, op_stats=None):
        self.n, self.width, self.grid, self.backend = n, width, grid, backend
        self.words, self.ids, self.counts = words, ids, counts
        self.op_stats = op_stats

    @property
    def shape(self):
        return (self.width, self.n)

    @property
    def nvals(self) -> int:
        """Entries over the grid (no communication: the product that made it counted them)."""
        return self.counts.entries

    @property
    def nvertices(self) -> int:
        """Nonzero columns over the grid: vertices in some search's frontier."""
        return self.counts.vertices

    def __repr__(self):
        return (f"<FrontierMatrix {self.width} x {self.n}, {self.nvals} entries in {self.nvertices} columns "
                f"on {self.grid.rows}x{self.grid.cols} {self.backend.name}>")

    def to_numpy(self) -> np.ndarray:
        """Collective: the dense (k, n) bool matrix on every rank (tests and small graphs)."""
        words = _gather_blocks(self.backend.to_host(self.words)[:, None], self.n, self.grid, self.backend)
        bits = np.arange(self.width, dtype=np.uint64)
        return ((words[:, 0][None, :] >> bits[:, None]) & np.uint64(1)).astype(bool)


class VisitedMatrix:
    """The k x n pattern each search has reached, with the level and the parent of each entry.

    ``words``: uint64 a vertex of this rank's block; ``levels``/``parents``: (block_len, k)
    int64, -1 where there is no entry, or None when not kept. It also keeps the workspaces a
    product needs on grids with several processors a row: a lower bound of the pattern over
    the product's output space and the candidates' parents.
    """

    def __init__(self, A, width, *, levels, parents):
        xp = A.backend.xp
        self.A, self.width = A, width
        block_len = A.layout.block_len
        self.words = xp.zeros(block_len, dtype=np.uint64)
        self.levels = xp.full((block_len, width), -1, dtype=np.int64) if levels else None
        self.parents = xp.full((block_len, width), -1, dtype=np.int64) if parents else None
        self.full = full_mask(width)
        self._bound = None                 # (output space, words over it): see _bound_over
        self._candidate_parents = None

    def outputs(self, *, on_host=False):
        """(levels, parents) blocks (None where not kept), moved to host memory with ``on_host``
        (one device read each) so that the device can take the next batch."""
        if not on_host:
            return self.levels, self.parents
        host = self.A.backend.to_host
        return tuple(None if block is None else host(block) for block in (self.levels, self.parents))

    def _bound_over(self, orient, block_len):
        """The lower bound of the pattern over the output space: gathered once (exact then),
        then grown by every candidate claimed into it and by the own block after each merge,
        all of which are visited once their level's merge is done."""
        if self._bound is None or self._bound[0] != orient.out_space:
            channel = orient.out_channel
            self._bound = (orient.out_space, channel.allgatherv(self.words, [block_len] * channel.size))
        return self._bound[1]

    def _candidate_parents_over(self, length):
        if self.parents is None:
            return None
        if self._candidate_parents is None or self._candidate_parents.shape[0] != length:
            # read only at the bits a kernel has claimed, which it has written first
            self._candidate_parents = self.A.backend.xp.empty((length, self.width), dtype=np.int64)
        return self._candidate_parents


def _gather_blocks(local, n, grid, backend):
    """Collective: every rank's (block_len, c) host array placed at its vertex block, as an
    (n, c) numpy array on every rank."""
    layout = Layout(n, grid.rows, grid.cols)
    block_len, columns = local.shape
    flat = collectives.allgather_arrays(np.ascontiguousarray(local).ravel(), grid.transport.world, backend)
    pieces = flat.reshape(grid.size, block_len, columns)
    out = np.empty((n, columns), dtype=local.dtype)
    for rank in range(grid.size):
        start, stop = layout.block_range(*divmod(rank, grid.cols))
        out[start:stop] = pieces[rank, :stop - start]
    return out


class RowsElsewhere:
    """A batch's block whose rows are in another vertex order (a degree-ordered twin's:
    ``algorithms/degree_twin.py``). ``in_order()`` gives it in the graph's order, put back once,
    when something first reads its rows; a reduction of each search's values over the vertices,
    which does not depend on their order, reads ``block`` as it is where ``order_free`` (levels,
    not vertex ids), and so never pays for the put-back."""

    def __init__(self, block, put_back, order_free):
        self.block, self._put_back, self.order_free = block, put_back, order_free
        self._in_order = None

    @property
    def shape(self):
        return self.block.shape

    def in_order(self):
        if self._in_order is None:
            self._in_order = self._put_back(self.block)
        return self._in_order

    def for_reduction(self):
        """The block a reduction over each search's vertices reads: as it is where its values
        do not name vertices, else put back."""
        return self.block if self.order_free else self.in_order()


def in_graph_order(block):
    """A batch's block with its rows in the graph's order (:class:`RowsElsewhere` put back)."""
    return block.in_order() if isinstance(block, RowsElsewhere) else block


def _in_host_memory(block) -> bool:
    """Whether a batch's block (a table, or :class:`LevelPlanes`) is held in host memory."""
    return isinstance(block.words if isinstance(block, LevelPlanes) else block, np.ndarray)


def block_rows(block, backend, start=0, stop=None):
    """Rows ``start .. stop - 1`` of a batch's block as a (rows, width) int32 table where the
    block lives: a table's own slice, or a :class:`LevelPlanes` block's rows made from its
    planes (by the host's kernels for words in host memory, else by the backend's)."""
    if not isinstance(block, LevelPlanes):
        return block[start:stop]
    stop = block.shape[0] if stop is None else stop
    kernels = get_backend("cpu").kernels if _in_host_memory(block) else backend.kernels
    return kernels.level_planes_rows(block, start, stop)


def block_on_host(block, backend):
    """A batch's block (a table, or :class:`LevelPlanes`) moved to host memory."""
    if _in_host_memory(block):
        return block
    if isinstance(block, LevelPlanes):
        return LevelPlanes(backend.to_host(block.words), block.k)
    return backend.to_host(block)


def block_column(block, column, backend) -> np.ndarray:
    """One column (search) of a batch's block as a (rows,) int32 numpy array, only it read
    from where the block lives: a table's column, or the one word of each plane that holds
    the search's bit."""
    if isinstance(block, LevelPlanes):
        word, bit = divmod(int(column), 64)
        words = block_on_host(block.words[:, :, word:word + 1], backend)      # (1 + P, rows, 1)
        alone = LevelPlanes(words >> np.uint64(bit), 1)                       # (the search's bit as bit 0)
        return block_rows(alone, backend)[:, 0]
    return np.ascontiguousarray(block_on_host(block[:, column], backend))


#: the bytes of table a block of planes on the device is made into at once on its way to the
#: host (each slice copied out as it is made)
_HOST_TABLE_SLICE_BYTES = 1 << 28


def host_table(block, backend):
    """A batch's block as a (rows, width) int32 numpy table: a table copied; planes made into
    rows where they are, on the device slice by slice, each slice copied out as it is made."""
    if not isinstance(block, LevelPlanes) or _in_host_memory(block):
        return block_rows(block_on_host(block, backend), backend)
    rows, width = block.shape
    out = np.empty((rows, width), dtype=np.int32)
    step = max(1, _HOST_TABLE_SLICE_BYTES // (4 * max(width, 1)))
    for start in range(0, rows, step):
        stop = min(rows, start + step)
        backend.to_host(block_rows(block, backend, start, stop), out=out[start:stop])
    return out


class DenseRows:
    """k x n int64 rows (levels or parents of k searches), one (block_len, width) block a batch
    on each rank (on the backend's device, or in host memory), -1 where a search did not reach
    a vertex. A fused run's blocks hold int32 (its ids and depths fit: one process), or its
    levels as :class:`~lagraph_dist.local.engine.LevelPlanes` (a few words a vertex; rows are
    made from them where they are read); what comes out is int64."""

    def __init__(self, n, grid, backend, blocks):
        self.n, self.grid, self.backend = n, grid, backend
        self.blocks = list(blocks)

    @property
    def shape(self):
        return (sum(b.shape[1] for b in self.blocks), self.n)

    def __repr__(self):
        return f"<DenseRows {self.shape[0]} x {self.n} in {len(self.blocks)} batch(es)>"

    def to_numpy(self) -> np.ndarray:
        """Collective: the dense (k, n) int64 array on every rank."""
        if not self.blocks:
            return np.zeros((0, self.n), dtype=np.int64)
        return np.concatenate([self._gathered(in_graph_order(block)).T
                               for block in self.blocks]).astype(np.int64, copy=False)

    def row(self, i) -> np.ndarray:
        """Collective: row i as a dense (n,) int64 array on every rank (only its column of its
        batch is read and gathered)."""
        for block in self.blocks:
            if i < block.shape[1]:
                column = block_column(in_graph_order(block), i, self.backend)[:, None]
                return _gather_blocks(column, self.n, self.grid, self.backend)[:, 0].astype(np.int64)
            i -= block.shape[1]
        raise IndexError(f"row index out of range for {self.shape[0]} rows")

    def _gathered(self, block):
        return _gather_blocks(host_table(block, self.backend), self.n, self.grid, self.backend)

    def tables(self):
        """Each batch's block as a (block_len, width) int32 table where it lives, one at a time
        (a block of planes made into rows as it is reached)."""
        for block in self.blocks:
            yield block_rows(in_graph_order(block), self.backend)

    @collective("monoids", "nvals")
    def reduce_rows(self, *monoids, nvals=False) -> tuple:
        """Collective: each row reduced over its entries (its values >= 0; -1 is none) by each of
        ``monoids`` (``plus``, ``min`` or ``max``, or their names), then, with ``nvals``, each
        row's number of entries: a tuple of (k,) int64 numpy arrays, the same on every rank, in
        that order (a row without entries gets the monoid's identity). Levels: ``max`` gives a
        search's depth, ``plus`` its distances' sum, ``nvals`` the vertices it reached. Every
        value is below n (a level or a vertex id), which bounds the sums of a slice.

        Each rank reduces the rows of its own vertex block where the block lives (device or
        host), in slices of rows, never gathering the table; every vertex block belongs to one
        rank, so the ranks' (k,) results combine by one allreduce per MPI operation."""
        kinds = tuple(_row_monoid(m) for m in monoids)
        start, stop = Layout(self.n, self.grid.rows, self.grid.cols).block_range(self.grid.row, self.grid.col)
        batches = [self._reduce_block(block, stop - start, kinds) for block in self.blocks]
        local = [np.concatenate([batch[i] for batch in batches]) if batches else np.zeros(0, dtype=np.int64)
                 for i in range(len(kinds) + 1)]
        ops = [m.mpi_op_name for m in kinds] + ["SUM"]
        reduced = _allreduce_grouped(self.grid, local, ops)
        return tuple(reduced[:len(kinds)]) + ((reduced[-1],) if nvals else ())

    def _reduce_block(self, block, rows, kinds):
        """This rank's (k_batch,) int64 reductions of one batch's block over its first ``rows``
        rows (the rest pad the block), one per monoid kind, then the entries' counts. (A block
        elsewhere whose values do not name vertices is read in its own order: on one process its
        first ``rows`` rows are the vertices, in any order, and the rest padding in both.)"""
        block = block.for_reduction() if isinstance(block, RowsElsewhere) else block
        planes_here = _planes_reduction(block)
        if planes_here is not None:         # (no table made: the planes' words are read once)
            return list(planes_here.level_planes_reduced(block, 0, rows, tuple(m.kind for m in kinds)))
        xp = np if _in_host_memory(block) else self.backend.xp
        width = block.shape[1]
        found = [xp.full(width, m.identity_of(np.int64), dtype=np.int64) for m in kinds]
        counts = xp.zeros(width, dtype=np.int64)
        step = max(1, _REDUCE_SLICE // max(width, 1))
        # a slice's sums in int32 where they cannot overflow (every value is below n: a level
        # or a vertex id): the narrower sums read a 2-core host's memory 1.5x faster
        narrow = np.int32 if step * max(self.n, 1) < 2**31 else np.int64
        for first in range(0, rows, step):
            part = block_rows(block, self.backend, first, min(rows, first + step))
            here = (part >= 0).sum(axis=0, dtype=narrow)
            for k, m in enumerate(kinds):
                found[k] = _combine_slice(xp, m.kind, found[k], part, here, narrow)
            counts += here
        together = xp.stack([*found, counts])              # one read from the device
        return list(together if xp is np else self.backend.to_host(together))


def _planes_reduction(block):
    """The kernel set that reduces ``block``'s planes where they lie without their table
    (:class:`~lagraph_dist.local.engine.PlanesReduction`), or None: a table, or planes whose
    kernel set has no such member."""
    if not isinstance(block, LevelPlanes) or not _in_host_memory(block):
        return None
    kernels = get_backend("cpu").kernels
    return kernels if offers(kernels, PlanesReduction) else None


#: Elements a slice of :meth:`DenseRows.reduce_rows` reads at once (its temporaries stay small).
_REDUCE_SLICE = 1 << 22
_ROW_MONOIDS = ("plus", "min", "max")


def _row_monoid(monoid):
    """The monoid ``reduce_rows`` takes (plus, min, max), else DomainMismatch."""
    found = lookup_monoid(monoid)
    if found.kind not in _ROW_MONOIDS:
        raise DomainMismatch(f"reduce_rows takes the monoids {', '.join(_ROW_MONOIDS)} over int64 rows, "
                             f"got {found!r}")
    return found


def _combine_slice(xp, kind, so_far, part, counts, sum_dtype):
    """``so_far`` (int64) combined with the reduction of ``part``'s entries (values >= 0; -1 is
    no entry) column by column; ``counts``: the entries of each column of ``part``; its sum is
    taken in ``sum_dtype``."""
    if kind == "plus":      # the -1s summed with the entries, added back
        return so_far + part.sum(axis=0, dtype=sum_dtype) + (part.shape[0] - counts)
    if kind == "max":       # -1 is below every entry: a column without entries stays -1
        top = part.max(axis=0).astype(np.int64)
        return xp.where(counts > 0, xp.maximum(so_far, top), so_far)
    # min: read as unsigned, -1 is above every entry
    low = part.view(np.dtype(part.dtype.str.replace("i", "u"))).min(axis=0).astype(np.int64)
    return xp.where(counts > 0, xp.minimum(so_far, low), so_far)


def _allreduce_grouped(grid, arrays, ops):
    """Each of ``arrays`` (host int64, the same length on every rank) reduced over the grid by
    its MPI op name, one allreduce per distinct op."""
    out = list(arrays)
    for op in dict.fromkeys(ops):
        at = [i for i, o in enumerate(ops) if o == op]
        stacked = grid.allreduce(np.ascontiguousarray(np.stack([arrays[i] for i in at])), op)
        for row, i in enumerate(at):
            out[i] = np.asarray(stacked[row], dtype=np.int64)
    return out


# -- the sources: the first frontier ----------------------------------------------------------
def sources_frontier(A, sources, *, levels, parents):
    """Collective. The frontier and visited matrices of searches from ``sources`` (int64 numpy
    ids, the same on every rank; a repeated source is its own row): entry (i, sources[i]) with
    level 0 and parent sources[i]."""
    grid, backend, layout = A.grid, A.backend, A.layout
    xp = backend.xp
    width = int(sources.shape[0])
    visited = VisitedMatrix(A, width, levels=levels, parents=parents)
    start, stop = layout.block_range(grid.row, grid.col)
    rows = np.flatnonzero((sources >= start) & (sources < stop))
    local = sources[rows] - start
    columns, inverse = np.unique(local, return_inverse=True)
    words = np.zeros(columns.shape[0], dtype=np.uint64)
    np.bitwise_or.at(words, inverse, np.uint64(1) << rows.astype(np.uint64))
    ids = xp.asarray(columns.astype(np.int32))
    if columns.shape[0]:
        visited.words[ids] = xp.asarray(words)
        at = (xp.asarray(local), xp.asarray(rows))
        if levels:
            visited.levels[at] = 0
        if parents:
            visited.parents[at] = xp.asarray(sources[rows])
    frontier_words = visited.words.copy()
    degrees = A.out_degree().part.values
    complete = xp.asarray(words == np.uint64(visited.full))
    here = (backend.to_host(xp.stack([degrees[ids].sum(), degrees[ids[complete]].sum()]))
            if columns.shape[0] else np.zeros(2, dtype=np.int64))
    push_edges, completed = (int(x) for x in grid.allreduce(np.asarray(here, dtype=np.int64)))
    owners = layout.owner_rank(np.unique(sources))
    rank_vertices = tuple(int(c) for c in np.bincount(owners, minlength=grid.size))
    counts = LevelCounts(rank_vertices, sum(rank_vertices), width, 0, push_edges, completed, visited.full)
    return FrontierMatrix(A.n, width, grid, backend, frontier_words, ids, counts), visited


# -- one level: the masked product and its assignment -----------------------------------------
def _check_operands(F, A, visited, kernel):
    if not isinstance(F, FrontierMatrix) or not isinstance(visited, VisitedMatrix):
        raise DomainMismatch("masked_vxm takes a FrontierMatrix and a VisitedMatrix")
    if F.n != A.n or F.grid is not A.grid or visited.A is not A or visited.width != F.width:
        raise DimensionMismatch("frontier, visited and matrix must belong to one search on one grid")
    if kernel not in KERNELS:
        raise DomainMismatch(f"kernel must be 'push' or 'pull', got {kernel!r}")
    if max(A.grid.rows, A.grid.cols) > MAX_OWNERS:
        raise Unsupported(f"the multi-source fold supports grids of up to {MAX_OWNERS} processors a "
                          f"row or column, got {A.grid.rows} x {A.grid.cols}")


def masked_vxm(F, A, visited, *, depth, kernel):
    """Collective. One level of all of F's searches: ``F'<!V> = F any.secondi A``, then V,
    its levels (``depth``) and its parents take F''s entries. Returns F' (with ``op_stats``:
    a :class:`~lagraph_dist.algebra.products.ProductStats` of this rank, and ``counts``)."""
    _check_operands(F, A, visited, kernel)
    backend, grid = A.backend, A.grid
    kernels, xp = backend.kernels, backend.xp
    block_len = A.layout.block_len
    orient = orientation(A, along_rows=True)
    stats = ProductStats(kernel=kernel)
    timer = StageTimer(backend, stats.seconds)
    degrees = A.out_degree().part.values       # dense over this rank's block
    single_out = orient.out_channel.size == 1

    with timer.stage("expand"):
        members = [F.counts.rank_vertices[r] for r in grid.members(orient.in_channel)]
        (ids, words), traffic = collectives.expand(collectives.WordPart(F.ids, F.words), orient.in_channel,
                                                   backend, member_counts=members, block_len=block_len,
                                                   want_ids=kernel == "push")
        stats.bytes["expand"], stats.encoding["expand"] = traffic.bytes, traffic.encoding
    with timer.stage("local"):
        if single_out:
            target = _final_target(visited, depth, degrees, backend)
        else:
            length = orient.out_channel.size * block_len
            target = MultiTarget(visited._bound_over(orient, block_len), xp.zeros(length, dtype=np.uint64),
                                 xp.empty(length, dtype=np.int32), visited._candidate_parents_over(length),
                                 None, F.width, depth, visited.full, None, kernels.multi_new_counters())
        if kernel == "push":
            kernels.multi_push(orient.push_csr, ids, words, orient.in_map, target)
        else:
            kernels.multi_pull(orient.pull_csr_of(), words, F.counts.live, orient.in_map, target)
    examined = None
    if not single_out:
        with timer.stage("fold"):
            channel = orient.out_channel
            final = _final_target(visited, depth, degrees, backend)
            examined, traffic = collectives.fold_words(target, final, channel, backend, block_len=block_len)
            stats.bytes["fold"], stats.encoding["fold"] = traffic.bytes, traffic.encoding
            own = slice(channel.rank * block_len, (channel.rank + 1) * block_len)
            visited._bound[1][own] = visited.words                   # the own block, exactly
            target = final
    with timer.stage("merge"):
        counts, stats.edges_examined = collectives.level_counts_words(target.counters, grid, backend,
                                                                      examined=examined)   # the level's read
    found = counts.rank_vertices[grid.rank]
    return FrontierMatrix(F.n, F.width, grid, backend, target.next, target.queue[:found], counts, stats)


def _final_target(visited, depth, degrees, backend):
    xp = backend.xp
    length = visited.words.shape[0]
    return MultiTarget(visited.words, xp.zeros(length, dtype=np.uint64), xp.empty(length, dtype=np.int32),
                       visited.parents, visited.levels, visited.width, depth, visited.full, degrees,
                       backend.kernels.multi_new_counters())


# -- the levels of all searches at once -------------------------------------------------------
class _MatrixLevels(LevelEngine):
    """The levels of :func:`repeat_masked_mxm`: each one :func:`masked_vxm` in the direction
    the rule gives from the level's counts, the unexplored edges being those of the vertices
    that not every search has reached yet."""

    traced_as = "searches"

    def __init__(self, F, A, visited, depth, limits, rule):
        super().__init__(F, A, depth, limits, rule)
        self.visited = visited
        self.completed = 0          # out-edges of the vertices every search has reached

    def step(self):
        backend, F = self.A.backend, self.q
        reads, launches, started = backend.device_reads, backend.kernel_launches, time.perf_counter()
        counts = F.counts
        self.completed += counts.completed
        push = self.rule.choose(counts.vertices, counts.push_edges, unexplored=self.A.nvals - self.completed)
        found = masked_vxm(F, self.A, self.visited, depth=self.next_depth(), kernel="push" if push else "pull")
        self.records.append(LevelRecord(
            F.nvals, found.nvals, found.op_stats.edges_examined, push, time.perf_counter() - started,
            stats=found.op_stats, host_reads=backend.device_reads - reads,
            launches=backend.kernel_launches - launches, vertices=found.nvertices))
        self.q = found


def repeat_masked_mxm(F, A, visited, *, depth=1, limits, rule):
    """Collective. All of F's searches, level after level, from ``depth`` until ``limits``
    stop them (the same engine as :func:`lagraph_dist.algebra.levels.repeat_masked_vxm`, one
    :func:`masked_vxm` a level, ``rule`` a DirectionRule); returns (the last frontier matrix, a
    LevelRecord a level)."""
    return _MatrixLevels(F, A, visited, depth, limits, rule).run()


# -- Brandes's sweeps of a batch in one call of the backend ------------------------------------
def dependencies_fusable(A) -> bool:
    """Whether :func:`path_dependencies` runs on ``A``: one process, and a kernel set with the
    fused sweeps (both sets have them; on a grid betweenness runs its sweeps as products a
    source)."""
    return A.grid.size == 1 and offers(A.backend.kernels, PathDependencies)


def dependencies_batch(A) -> int:
    """The searches whose sweeps :func:`path_dependencies` takes in one call on ``A``'s backend
    (its kernels' ``dependencies_batch``); only where :func:`dependencies_fusable`."""
    return int(A.backend.kernels.dependencies_batch)


def path_dependencies(A, levels, *, endpoints=False):
    """Brandes's dependencies of the searches whose levels are the rows of ``levels`` (a
    :class:`DenseRows` of ``bfs_multi`` on ``A``, levels only), summed over them: a float64
    Vector with an entry for every vertex, each search's source not counting its own search
    (``endpoints``: plus one for each search that reached the vertex, and for a source the
    vertices its search reached), and the (k,) vertices each search reached besides its
    source. Both sweeps of every search of a batch in one call of the backend
    (``kernels.path_dependencies``); only where :func:`dependencies_fusable`."""
    if not dependencies_fusable(A):
        raise Unsupported("path_dependencies runs on one process with a kernel set that has the fused sweeps; "
                          "on a grid betweenness runs its sweeps as products")
    A.backend.check_fits(memory.sweep_bytes(A.n), "betweenness's fused sweeps of 64 searches")
    orient = orientation(A, along_rows=True)
    backend = A.backend
    totals, reached = backend.xp.zeros(A.n, dtype=np.float64), []
    room = memory.sweep_join_room(backend) if len(levels.blocks) > 1 else 0     # (free memory read only to join)
    for block in _sweep_groups(levels.tables(), dependencies_batch(A), backend.xp, room):
        reads, launches, started = backend.device_reads, backend.kernel_launches, time.perf_counter()
        found, count, examined = backend.kernels.path_dependencies(orient.push_csr, orient.pull_csr_of(), block,
                                                                   endpoints=endpoints)
        totals += found[:A.n]             # (the block's rows past n: padding, no entries)
        reached.append(count)
        trace.note_levels("sweeps", [LevelRecord(block.shape[1], int(count.sum()), examined, False,
                                                 time.perf_counter() - started, fused=True,
                                                 host_reads=backend.device_reads - reads,
                                                 launches=backend.kernel_launches - launches)],
                          direction="pull forward, push back")
    return every_vertex(A, totals), np.concatenate(reached) if reached else np.zeros(0, dtype=np.int64)


def _sweep_groups(blocks, most, xp, room):
    """The level blocks of ``xp``'s memory (not those offloaded) joined side by side, up to
    ``most`` columns and ``room`` bytes a group: one call of the sweeps a group, whose depth
    launches then cover more searches each. An offloaded block is a group of its own, and a
    lone block is not copied."""
    def joined(group):
        return group[0] if len(group) == 1 else xp.concatenate(group, axis=1)
    group, width = [], 0
    for block in blocks:
        here = isinstance(block, xp.ndarray)
        wider = width + block.shape[1]
        fits = wider <= most and block.shape[0] * wider * block.itemsize <= room
        if group and not (here and isinstance(group[0], xp.ndarray) and fits):
            yield joined(group)
            group, width = [], 0
        group.append(block)
        width += block.shape[1]
    if group:
        yield joined(group)


# -- all levels of a batch in one call of the backend -----------------------------------------
def multi_fusable(A, rule) -> bool:
    """Whether a batch on ``A`` runs as one fused call of the backend
    (:func:`fused_multi_search`): one process, and a rule whose arithmetic the run evaluates
    itself (a replaced ``choose`` is asked level by level by :func:`repeat_masked_mxm`)."""
    return A.grid.size == 1 and not rule.replaced


def batch_most(A, rule) -> int:
    """The searches one batch carries at most: MULTI_FUSED_MAX_WIDTH (several words a vertex)
    in a fused run, MAX_WIDTH (one word) where the levels are separate products."""
    return MULTI_FUSED_MAX_WIDTH if multi_fusable(A, rule) else MAX_WIDTH


def fused_multi_search(A, sources, *, levels, parents, rule, max_levels):
    """A batch's searches from ``sources`` (int64 numpy ids, at most MULTI_FUSED_MAX_WIDTH),
    every level inside one call of the backend (``kernels.multi_bfs_fused``: a persistent
    kernel on one GPU, a compiled loop on the CPU), in the directions ``rule`` gives on the
    batch's counts (as :class:`_MatrixLevels` asks it). Returns (levels block, parents block:
    (block_len, k) int32 or None, the run's LevelRecords: its one launch counted on the first
    level, its reads on the last)."""
    backend = A.backend
    orient = orientation(A, along_rows=True)
    reads, launches = backend.device_reads, backend.kernel_launches
    run = backend.kernels.multi_bfs_fused(orient.push_csr, orient.pull_csr_of(), sources,
                                          A.out_degree().part.values, rows=A.layout.block_len, levels=levels,
                                          parents=parents, rule=rule, max_levels=max_levels,
                                          queue_searches=queue_search_fits(A, rule.mode))   # (ld.bfs's policy)
    reads, launches = backend.device_reads - reads, backend.kernel_launches - launches
    # records made when read: a mesh's batch runs hundreds of levels, and a LevelRecord a level
    # cost more than the compiled levels of a small graph's batch
    vertices = MULTI_RECORD_FIELDS.index("vertices")
    records = FusedRun(FusedRecords(run.counts[:, :vertices], run.seconds), run.clock, reads, launches,
                       vertices=run.counts[:, vertices], separate=run.separate, engine=run.engine)
    trace.note_levels("searches", records)
    return run.levels, run.parents, records
