"""The staged vector products ``vxm`` and ``mxv`` and what they are made of: ProductStats (a
product's bytes, seconds and kernel), the orientation of a matrix for a product, StageTimer (the
one way stages are timed, with ``settings.sync_stage_timers``) and the mask caches that
:func:`lagraph_dist.algebra.elementwise.assign` keeps up to date.

A product ``w = u' M`` runs as named stages (CombBLAS's SpMV, Bisson et al.'s BFS round):

1. **expand**: allgatherv of the input's parts along the communicator that shares M's input
   space (the grid column for ``vxm``), each piece encoded as list or bitmap by its size;
2. **mask**: the mask's parts gathered the same way along the output space, as one bitmap;
3. **local**: the masked SpMSpV on this rank's block: *push* (top-down, saxpy) when the input
   vector is list-encoded, *pull* (bottom-up, dot) when it is bitmap-encoded;
4. **fold**: alltoallv of the output pieces to their owners along the other communicator;
5. **merge**: the owner combines what arrived with the semiring's monoid.

``mxv(A, u)`` is ``vxm(u, A.T)``: the same stages with the row and column communicators
swapped and the block read the other way, so no transpose is ever stored.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from lagraph_dist.comm.collective import collective
from lagraph_dist.comm import collectives
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch
from lagraph_dist.comm.grid import WORD_BITS
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algebra import trace
from lagraph_dist.semirings import lookup_semiring
from lagraph_dist.core.settings import settings
from lagraph_dist.core.stats import HOST_CLOCK

__all__ = ["vxm", "mxv", "ProductStats", "orientation", "StageTimer", "check_operands", "update_mask_caches"]


@dataclass
class ProductStats:
    """What one product did on this rank: per-stage bytes sent and seconds, and the kernel."""

    kernel: str = ""
    edges_examined: int = 0
    bytes: dict = field(default_factory=lambda: {"expand": 0, "mask": 0, "fold": 0})
    encoding: dict = field(default_factory=lambda: {"expand": "none", "mask": "none", "fold": "none"})
    seconds: dict = field(default_factory=lambda: {"expand": 0.0, "mask": 0.0, "local": 0.0,
                                                   "fold": 0.0, "merge": 0.0})


@dataclass(frozen=True)
class _Orientation:
    """Which channels, spaces and compressions of the block a product uses."""

    in_channel: object
    out_channel: object
    in_map: object
    out_space: str        # "row" or "col": the output space's name, the key of mask caches
    push_csr: object      # compressed by input-space id
    pull_csr_of: object   # callable -> compressed by output-space id (built lazily)


def orientation(M, along_rows):
    """``along_rows``: the input indexes M's rows (vxm on M, mxv on M.T). Made once a matrix
    view and direction (a search asks for it every level)."""
    key = ("orientation", along_rows)
    known = M._cache.get(key)
    if known is not None:
        return known
    grid, layout, block, transport = M.grid, M.layout, M.block, M.grid.transport
    if along_rows != M.transposed:       # input = column space: expand on the grid column
        made = _Orientation(transport.col, transport.row, layout.col_space(grid.col), "row",
                            block.by_col, lambda: block.by_row)
    else:
        made = _Orientation(transport.row, transport.col, layout.row_space(grid.row), "col",
                            block.by_row, lambda: block.by_col)
    M._cache[key] = made
    return made




class StageTimer:
    """The one way a product's stages are timed: ``with timer.stage(name):`` adds the block's
    seconds to ``seconds[name]``; where stages follow one another, ``start()`` and then
    ``lap(name)`` at each stage's end do the same without a context a stage (a search's every
    level runs five). The device is waited for at a stage's end when ``settings.sync_stage_timers``
    is set (:mod:`lagraph_dist.core.settings`)."""

    __slots__ = ("backend", "seconds", "_name", "_started")

    def __init__(self, backend, seconds):
        self.backend, self.seconds = backend, seconds

    def start(self):
        self._started = time.perf_counter()

    def lap(self, name):
        """The stage begun at the last start or lap ends: its seconds go to ``seconds[name]``."""
        if settings.sync_stage_timers:
            self.backend.sync()
        now = time.perf_counter()
        self.seconds[name] += now - self._started
        self._started = now

    def stage(self, name):
        self._name = name
        return self

    def __enter__(self):
        self.start()

    def __exit__(self, *exc):
        self.lap(self._name)
        return False


def check_operands(u, M, mask):
    if not isinstance(u, Vector):
        raise DomainMismatch(f"expected a Vector, got {type(u).__name__}")
    if u.n != M.n:
        raise DimensionMismatch(f"vector of size {u.n} and matrix of size {M.n} x {M.n}")
    if u.grid is not M.grid:
        raise DimensionMismatch("vector and matrix live on different grids")
    if mask is not None and (not isinstance(mask, Vector) or mask.n != M.n or mask.grid is not M.grid):
        raise DimensionMismatch("the mask must be a Vector of the matrix's size on its grid")


# -- masks ------------------------------------------------------------------------------------
def _own_mask_words(mask, structure, backend):
    """The mask's pattern over this rank's block as words (``structure=False``: truthy values)."""
    if structure:
        return mask.part.to_bitmap(backend).words
    part = mask.part.to_list(backend)
    truthy = part.values.astype(bool)
    return backend.kernels.bitmap_from_list(part.ids[truthy], part.length)


@dataclass
class _MaskCache:
    """A lower bound of a mask's pattern over one output space, held by the mask vector (see
    :func:`_output_space_mask`). ``part`` is the mask's part it was made from: a mask whose part
    was replaced has lost its cache."""

    part: object
    words: object
    own: object           # this rank's block within ``words`` (a view, made once)


def _output_space_mask(mask, complement, structure, orient, own_words, block_len, stats):
    """The mask over this rank's whole output space, for the local kernel.

    A complemented structural mask may be a *lower bound* of the mask's pattern: the local
    kernel then finds extra candidates, which their owner drops against its exact block. The
    bound is gathered once and kept up to date from what the products already know: the
    candidates a product found against this mask are all visited once the product's result
    is assigned into the mask (Bisson et al. 2015, section 5). Other masks are gathered
    exactly each time.
    """
    channel = orient.out_channel
    if not (complement and structure):
        words = collectives.gather_words(own_words, channel, block_len)
        stats.bytes["mask"], stats.encoding["mask"] = 4 * own_words.shape[0] * (channel.size - 1), "bitmap"
        return words
    cache = mask.facts.mask_caches.get(orient.out_space)
    if cache is None or cache.part is not mask.part:
        words = collectives.gather_words(own_words, channel, block_len)
        stats.bytes["mask"], stats.encoding["mask"] = 4 * own_words.shape[0] * (channel.size - 1), "bitmap"
        per_block = block_len // WORD_BITS
        cache = _MaskCache(mask.part, words, words[channel.rank * per_block:(channel.rank + 1) * per_block])
        mask.facts.mask_caches[orient.out_space] = cache
    return cache.words


def update_mask_caches(target, u):
    """After ``assign(target, u)``: the caches of ``target`` learn its block exactly and, when
    ``u`` came from a product masked by ~target, every candidate that product found."""
    caches = target.facts.mask_caches
    if not caches:
        return
    for space, cache in list(caches.items()):
        if cache.part is not target.part:
            del caches[space]
            continue
        cache.own |= target.part.to_bitmap(target.backend).words
        found = u.facts.candidates
        if found is not None and found[0] is target and found[1] == space:
            cache.words |= found[2]


# -- products ---------------------------------------------------------------------------------
def _member_counts(u, channel, grid):
    """Entries of each member's part, on the host: from the product that made ``u`` when it
    says, else one small host allgather."""
    known = u.facts.rank_nvals()
    if known is not None:
        return [known[r] for r in grid.members(channel)]
    counts = np.empty(channel.size, dtype=np.int64)
    channel.comm.Allgather(np.array([u.part.nvals], dtype=np.int64), counts)
    return counts.tolist()


def _fold_bound(push_edges, block_len):
    """An upper bound on any fold piece's entries that every rank knows: a push finds at most
    the frontier's out-edges (``push_edges``: counted by the product that made the frontier,
    None when not counted or for a pull). (The unmasked vertices bound nothing here: a rank's
    candidates are masked by a lower bound of the mask, and their owner drops the extra ones.)"""
    return block_len if push_edges is None else min(block_len, push_edges)


def _product(u, M, semiring, mask, complement, structure, along_rows):
    """The product's stages, timed by :class:`StageTimer`'s laps. A search runs this every level,
    so the stats' dicts are made directly. The kernels run the semiring typed by u's values
    and oriented so that they read u's value as the multiply's left operand
    (``Semiring.for_product``: the searches' four are themselves)."""
    check_operands(u, M, mask)
    semiring = lookup_semiring(semiring).for_product(u.dtype, vector_left=along_rows)
    backend, grid = M.backend, M.grid
    traced = trace.tracing()
    if traced:
        reads_before, launches_before = backend.device_reads, backend.kernel_launches
    kernels = backend.kernels
    orient = orientation(M, along_rows)
    reads = semiring.reads_left_values
    block_len = M.layout.block_len
    out_channel = orient.out_channel
    single_out = out_channel.size == 1
    degrees_vector = (M if along_rows else M.T).out_degree()
    degrees = degrees_vector.part.values        # dense over this rank's block
    u_part, u_facts = u.part, u.facts
    push = u_part.encoding == "list"
    traffic_bytes = {"expand": 0, "mask": 0, "fold": 0}
    encodings = {"expand": "none", "mask": "none", "fold": "none"}
    seconds = {"expand": 0.0, "mask": 0.0, "local": 0.0, "fold": 0.0, "merge": 0.0}
    stats = ProductStats("push" if push else "pull", 0, traffic_bytes, encodings, seconds)
    timer = StageTimer(backend, seconds)
    # the frontier's out-edges, when the product that made u counted them (push only reads them)
    frontier_edges = u_facts.push_edges(degrees_vector) if push else None

    timer.start()
    source = u_part.astype(semiring.out_dtype) if reads else u_part     # the type the multiply reads
    in_channel = orient.in_channel
    counts = None if in_channel.size == 1 else _member_counts(u, in_channel, grid)
    gathered, traffic = collectives.expand(source, in_channel, backend, member_counts=counts,
                                           with_values=reads, block_len=block_len)
    traffic_bytes["expand"], encodings["expand"] = traffic.bytes, traffic.encoding
    frontier = gathered.to_list(backend) if push else gathered.to_bitmap(backend)
    timer.lap("expand")

    own_mask = local_mask = None
    if mask is not None:
        own_mask = _own_mask_words(mask, structure, backend)
        local_mask = own_mask if single_out else _output_space_mask(
            mask, complement, structure, orient, own_mask, block_len, stats)
    timer.lap("mask")

    final_degrees = degrees if single_out else None
    if push:
        out, counters = kernels.push_spmspv(
            orient.push_csr, frontier.ids, frontier.values if reads else None, semiring, local_mask,
            complement, orient.in_map, out_degree=final_degrees,
            frontier_edges=frontier_edges)
    else:
        out, counters = kernels.pull_spmv(
            orient.pull_csr_of(), frontier.words, frontier.values if reads else None, semiring,
            local_mask, complement, orient.in_map, out_degree=final_degrees)
    timer.lap("local")

    found_against_mask = mask is not None and complement and structure
    candidates = None
    if not single_out:
        if found_against_mask:
            candidates = (mask, orient.out_space, out.words)
        out, counters, traffic = collectives.fold(
            out, counters, out_channel, backend, semiring=semiring, block_len=block_len,
            bound=_fold_bound(frontier_edges, block_len),
            own_mask=own_mask, complement=complement, out_degree=degrees, vertices=u.n)
        traffic_bytes["fold"], encodings["fold"] = traffic.bytes, traffic.encoding
        timer.lap("fold")

    global_counts, stats.edges_examined = collectives.level_counts(counters, grid, backend)
    out.set_found(global_counts.rank_nvals[grid.rank])
    timer.lap("merge")

    w = Vector._from_part(u.n, grid, backend, out, op_stats=stats, layout=u.layout)
    facts = w.facts
    facts.record_counts(global_counts, degrees_vector)
    if found_against_mask:
        facts.record_disjoint(mask, candidates)
    if traced:
        trace.note_product("vxm" if along_rows else "mxv", u.nvals, w.nvals, stats,
                           backend.device_reads - reads_before, backend.kernel_launches - launches_before, HOST_CLOCK)
    return w


@collective("u", "A", "semiring", "mask", "complement", "structure")
def vxm(u, A, semiring, *, mask=None, complement=False, structure=True):
    """Collective. ``w = u' A`` (``w[j] = add_k mul(u[k], A[k, j])``), restricted to where the
    mask allows (``complement``: where it has no entry; ``structure=False``: truthy values)."""
    return _product(u, A, semiring, mask, complement, structure, along_rows=True)


@collective("A", "u", "semiring", "mask", "complement", "structure")
def mxv(A, u, semiring, *, mask=None, complement=False, structure=True):
    """Collective. ``w = A u`` (``w[i] = add_k mul(A[i, k], u[k])``); mask as for :func:`vxm`."""
    return _product(u, A, semiring, mask, complement, structure, along_rows=False)
