"""The algebra: masked products, element-wise operations, apply and reduce.

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

import abc
import contextlib
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from lagraph_dist.comm.collective import collective
from lagraph_dist.comm import collectives
from lagraph_dist.local.layout import STOP_LEVELS
from lagraph_dist.core.checks import check_vertex
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch, InvalidValue
from lagraph_dist.comm.grid import WORD_BITS
from lagraph_dist.local.parts import LocalPart, combine_duplicates
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algebra import trace
from lagraph_dist.semirings import BinaryOp, binary_ops, lookup_binary, lookup_monoid, lookup_semiring
from lagraph_dist.core.stats import HOST_CLOCK

__all__ = ["vxm", "mxv", "ewise_add", "ewise_mult", "assign", "apply", "reduce", "ProductStats", "LevelEngine",
           "repeat_masked_vxm", "RepeatLimits", "LevelRecord", "LevelRecords", "frontier_out_edges", "holds"]


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


def _orientation(M, along_rows):
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


# Stage seconds wait for the device at every stage boundary when this is set; that costs a host
# round trip a stage, so it is off unless asked for (``lagraph-dist bfs --stage-timing``, the
# benchmark's per-level breakdown). Without it the stage seconds are host dispatch times and
# only a level's total is device-complete (its one read waits for the device).
SYNC_STAGE_TIMERS = False


@contextlib.contextmanager
def separate_levels():
    """Inside it, :func:`repeat_masked_vxm` runs every level as separate products even where
    the backend could fuse them (a benchmark's warm-up walks that path too, so that nothing
    it uses is first built inside the clock)."""
    global _FUSE_LEVELS
    before, _FUSE_LEVELS = _FUSE_LEVELS, False
    try:
        yield
    finally:
        _FUSE_LEVELS = before


_FUSE_LEVELS = True


class _Timer:
    """The one way a product's stages are timed: ``with timer.stage(name):`` adds the block's
    seconds to ``seconds[name]``; where stages follow one another, ``start()`` and then
    ``lap(name)`` at each stage's end do the same without a context a stage (a search's every
    level runs five). The device is waited for at a stage's end when SYNC_STAGE_TIMERS is set."""

    __slots__ = ("backend", "seconds", "_name", "_started")

    def __init__(self, backend, seconds):
        self.backend, self.seconds = backend, seconds

    def start(self):
        self._started = time.perf_counter()

    def lap(self, name):
        """The stage begun at the last start or lap ends: its seconds go to ``seconds[name]``."""
        if SYNC_STAGE_TIMERS:
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


def _check_operands(u, M, mask):
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


def _update_mask_caches(target, u):
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
    """The product's stages, timed by :class:`_Timer`'s laps. A search runs this every level,
    so the stats' dicts are made directly. The kernels run the semiring typed by u's values
    and oriented so that they read u's value as the multiply's left operand
    (``Semiring.for_product``: the searches' four are themselves)."""
    _check_operands(u, M, mask)
    semiring = lookup_semiring(semiring).for_product(u.dtype, vector_left=along_rows)
    backend, grid = M.backend, M.grid
    traced = trace.tracing()
    if traced:
        reads_before, launches_before = backend.device_reads, backend.kernel_launches
    kernels = backend.kernels
    orient = _orientation(M, along_rows)
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
    timer = _Timer(backend, seconds)
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


# -- element-wise (local: both operands share the layout) ---------------------------------
def _check_pair(u, v):
    for x in (u, v):
        if not isinstance(x, Vector):
            raise DomainMismatch(f"expected a Vector, got {type(x).__name__}")
    if u.n != v.n or u.grid is not v.grid:
        raise DimensionMismatch(f"vectors of sizes {u.n} and {v.n} (or on different grids)")


@collective("u", "v", "monoid")
def ewise_add(u, v, monoid):
    """Union of the patterns; where both have an entry, ``monoid`` combines the values (any:
    u's value). The values take the operands' common type (lor, land: bool)."""
    monoid = lookup_monoid(monoid)
    _check_pair(u, v)
    xp, backend = u.backend.xp, u.backend
    dtype = monoid.result_dtype(np.result_type(u.dtype, v.dtype))
    monoid.check_dtype(dtype, "ewise_add")
    a, b = u.part.to_list(backend), v.part.to_list(backend)
    ids = xp.concatenate([a.ids, b.ids])
    vals = xp.concatenate([a.values.astype(dtype), b.values.astype(dtype)])
    ids, vals = combine_duplicates(ids, vals, monoid, xp)
    return u._like(LocalPart.from_list(ids, vals, a.length))


def _value_op(op, what):
    """The binary operator ``op`` names (a BinaryOp or its name) when it computes values; a
    positional op (secondi) is a DomainMismatch: it has no values to give here."""
    op = binary_ops.get(op.name, op) if isinstance(op, BinaryOp) else lookup_binary(op)
    if op.rule is None:
        raise DomainMismatch(f"{what} takes an operator on values, not the positional {op!r}")
    return op


def _op_dtype(op, left, right):
    """The type of ``op``'s results on operands of these types (pair: int64, as graphblas)."""
    if op.out_dtype is not None:
        return op.out_dtype
    if op.reads == "":
        return np.dtype(np.int64)
    dtype = np.result_type(left, right)
    return np.dtype(np.float64) if op.float_result and dtype.kind != "f" else dtype


def _refuse_bool(op, dtypes, what):
    """A numeric op (plus, minus, truediv, ...) on bool operands, as graphblas: DomainMismatch."""
    if op.numeric and all(np.dtype(d) == np.bool_ for d in dtypes):
        raise DomainMismatch(f"{what}: {op!r} does not take bool values (as in graphblas)")


def _sorted_intersection(xp, x, y):
    """(the ids in both, where they are in x, where in y) of two sorted lists of distinct ids:
    the shorter list's ids looked up in the longer one (a binary search each), where
    ``intersect1d`` sorts both again (0.4 s of a Kronecker 18 betweenness source's 0.8)."""
    if x.shape[0] > y.shape[0]:
        ids, at_y, at_x = _sorted_intersection(xp, y, x)
        return ids, at_x, at_y
    if y.shape[0] == 0:
        return x[:0], xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=np.int64)
    at_y = xp.minimum(xp.searchsorted(y, x), y.shape[0] - 1)     # (past the end: not there)
    at_x = xp.flatnonzero(y[at_y] == x)
    return x[at_x], at_x, at_y[at_x]


@collective("u", "v", "op")
def ewise_mult(u, v, op):
    """Intersection of the patterns; ``op`` (first, second, plus, times, min, max, pair, land,
    lor, ...) of the two values.

    A bitmap operand is probed in place, so the cost follows the list operand's size.
    """
    _check_pair(u, v)
    op = _value_op(op, "ewise_mult")
    dtype = _op_dtype(op, u.dtype, v.dtype)
    _refuse_bool(op, (u.dtype, v.dtype), "ewise_mult")
    backend, xp = u.backend, u.backend.xp
    a, b = u.part, v.part
    swapped = a.encoding == "bitmap" and b.encoding == "list"
    if swapped:
        a, b = b, a
    if b.encoding == "bitmap":
        a = a.to_list(backend)
        inside = backend.kernels.bitmap_test(b.words, a.ids)
        ids = a.ids[inside]
        mine, other, sorted_ids = a.values[inside], b.values[ids], a.ids_sorted
    else:
        a, b = a.sorted_list(backend), b.sorted_list(backend)
        ids, at_a, at_b = _sorted_intersection(xp, a.ids, b.ids)
        mine, other = a.values[at_a], b.values[at_b]
        sorted_ids = True
    left, right = (other, mine) if swapped else (mine, other)
    vals = op.apply_arrays(xp, left, right, dtype)
    return u._like(LocalPart.from_list(ids.astype(np.int32), vals, a.length, ids_sorted=sorted_ids))


@collective("w", "u", "value")
def assign(w, u, *, value=None):
    """In place, GrB_assign with u as a structural mask: ``w[k] = u[k]`` (or ``= value``) for
    every entry k of u. A bitmap ``w`` takes this in one launch proportional to u's entries; a
    list ``w`` is merged."""
    _check_pair(w, u)
    backend, u_part = w.backend, u.part
    source = u_part.to_list(backend)
    target = w.part
    if target.encoding == "bitmap":
        assign_from_list = backend.kernels.assign_from_list
        if value is not None:
            assign_from_list(source.ids, target.words, target.values,
                             scalar=np.asarray(value, dtype=target.dtype)[()])
        elif u_part.encoding == "bitmap":         # dense values: read in place, no gather
            assign_from_list(source.ids, target.words, target.values, src_dense=u_part.values)
        else:
            assign_from_list(source.ids, target.words, target.values, src_compact=source.values)
        if u.facts.disjoint_from is w:            # a product masked by ~w: every entry is new
            target.grew_in_place(source.nvals)
            w.facts.grew(u.nvals)
        else:
            target.changed_in_place(backend)
            w.facts.changed()
        _update_mask_caches(w, u)
        return w
    xp = backend.xp
    values = (source.values if value is None
              else xp.full(source.nvals, value, dtype=w.dtype)).astype(w.dtype, copy=False)
    ids = xp.concatenate([source.ids, target.ids])
    vals = xp.concatenate([values, target.values])
    ids, vals = combine_duplicates(ids, vals, lookup_monoid("any"), xp)   # u's value sorts first
    w._replace_part(LocalPart.from_list(ids, vals, target.length))
    return w


@collective("u", "op", "right", "left")
def apply(u, op, *, right=None, left=None):
    """A new vector with u's pattern and ``op(u, right)`` (or ``op(left, u)``) as its values:
    ``binary.second`` with ``right=s`` sets every value to s, ``binary.first`` without a
    scalar keeps the values (a copy); plus, times, min, max, ... compute with the scalar. The
    values take the common type of u's and the scalar's."""
    op = _value_op(op, "apply")
    part, xp = u.part, u.backend.xp
    if right is None and left is None:
        if op.name != "first":
            raise DomainMismatch(f"apply(u, {op!r}) needs right=<scalar> or left=<scalar>")
        return u._like(part.copy())          # a new vector shares nothing with u
    if right is not None and left is not None:
        raise DomainMismatch(f"apply({op!r}) takes one of right= and left=, not both")
    scalar = np.asarray(right if left is None else left)
    dtype = _op_dtype(op, u.dtype, scalar.dtype)
    _refuse_bool(op, (np.result_type(u.dtype, scalar.dtype),), "apply")
    values = part.values
    scalar = xp.asarray(scalar)
    made = op.apply_arrays(xp, values, scalar, dtype) if left is None else op.apply_arrays(xp, scalar, values, dtype)
    if made.shape != values.shape:               # a rule that reads only the scalar
        made = xp.full(values.shape, made, dtype=dtype)
    return u._like(part.copy(made))


@collective("u", "monoid")
def reduce(u, monoid):
    """Collective: the monoid's reduction of all values, a numpy scalar of the monoid's result
    type (its identity when there are none; ``any``: None)."""
    monoid = lookup_monoid(monoid)
    monoid.check_dtype(u.dtype, "reduce")
    local = monoid.reduce_array(u.backend.xp, u.part.to_list(u.backend).values, u.dtype)
    if local is not None and type(local).__module__.startswith("cupy"):
        local = local.item()
    if u.grid.size == 1:
        return local
    return monoid.combine_scalars(u.grid.comm.allgather(local), u.dtype)


# -- a composite: repeated masked products with assignment ------------------------------------
class RepeatLimits(NamedTuple):
    """When :func:`repeat_masked_vxm` stops: after ``max_levels`` levels, or after the level
    whose result is empty, holds ``target``, or exceeds ``max_nvals`` entries, or before a push
    level whose input has more than ``max_edges`` out-edges (None: no such limit). (A named
    tuple: two are made a search, and a frozen dataclass costs twice as much to make.)"""

    max_levels: int
    max_nvals: int | None = None
    max_edges: int | None = None
    target: int | None = None


@dataclass(slots=True)
class LevelRecord:
    """One level of :func:`repeat_masked_vxm`: input entries, result entries, edges read,
    whether the product ran top-down (push) or bottom-up (pull), and the level's own seconds
    with the clock that measured them (inside a fused run: the backend's, e.g. the GPU's
    %globaltimer; otherwise the host's perf_counter around the level's calls); the products'
    stats (None inside a fused run), and the device reads and kernel launches made during the
    level (a fused run's one launch counts on its first level, its reads on its last)."""

    frontier: int
    discovered: int
    examined: int
    push: bool = True
    seconds: float = 0.0
    clock: str = HOST_CLOCK
    fused: bool = False          # run inside the backend's composite, not as separate products
    stats: ProductStats | None = None
    host_reads: int = 0
    launches: int = 0
    vertices: int | None = None  # a frontier matrix's result: the vertices in some search's frontier


#: a fused run returns after this many levels to report them (its report buffer's size), and
#: the next run goes on from there
FUSED_MAX_LEVELS = 4096
_NO_CAP = (1 << 63) - 1


def _fused_run_honours(kernels, rule):
    """Whether the backend's fused run follows ``rule``: a stock rule's arithmetic every fused
    run evaluates itself; a replaced ``choose`` only a run that asks it level by level does
    (the CPU's). Elsewhere the levels run as separate products, each asking the rule."""
    return not rule.replaced or getattr(kernels.bfs_fused, "asks_replaced_rule", False)


def _fused_level_cap(kernels):
    """The levels one fused run of ``kernels`` takes at most: what its ``bfs_fused`` says
    (``max_levels``; None: no cap, the CPU's compiled run, whose records grow), else
    FUSED_MAX_LEVELS (the CUDA kernel's report)."""
    levels = getattr(kernels.bfs_fused, "max_levels", FUSED_MAX_LEVELS)
    return _NO_CAP if levels is None else levels


@dataclass
class _FusedRun:
    """The levels of one fused run as the backend returned them (a FusedRecords: tuples
    (frontier, discovered, examined, push, seconds) read from its arrays), made into
    LevelRecords only when read; the run's one launch counts on its first level, its reads on
    its last."""

    raw: object
    clock: str
    reads: int
    launches: int

    def __len__(self):
        return len(self.raw)

    def record(self, k, row):
        frontier, discovered, examined, push, seconds = row
        return LevelRecord(frontier, discovered, examined, bool(push), seconds, self.clock, fused=True,
                           host_reads=self.reads if k == len(self.raw) - 1 else 0,
                           launches=self.launches if k == 0 else 0)

    def __iter__(self):
        for k, row in enumerate(self.raw):
            yield self.record(k, row)


class LevelRecords(Sequence):
    """A search's :class:`LevelRecord` list, in level order: a single product's level as its
    record, a fused run's levels as the backend's own tuples, made into records only when read
    (so that a fused run of 100,000 levels makes no Python object a level)."""

    def __init__(self):
        self._pieces, self._count = [], 0

    def append(self, record):
        self._pieces.append(record)
        self._count += 1

    def add_fused(self, run):
        if len(run):
            self._pieces.append(run)
            self._count += len(run)

    def __len__(self):
        return self._count

    def __iter__(self):
        for piece in self._pieces:
            if isinstance(piece, _FusedRun):
                yield from piece
            else:
                yield piece

    def __getitem__(self, k):
        if isinstance(k, slice):
            return list(self)[k]
        k = range(self._count)[k]
        for piece in self._pieces:
            size = len(piece) if isinstance(piece, _FusedRun) else 1
            if k < size:
                return piece.record(k, piece.raw[k]) if isinstance(piece, _FusedRun) else piece
            k -= size


def frontier_out_edges(q, degrees):
    """Collective: the out-edges of ``q``'s entries (``degrees`` = ``A.out_degree()``), from
    the counters of the product that made ``q`` when it has them (no work, no read)."""
    known = q.facts.push_edges(degrees)
    return known if known is not None else int(reduce(ewise_mult(q, degrees, BinaryOp("second")), "plus"))


def repeat_masked_vxm(q, A, semiring, visited, *, depths=None, depth=1, limits: RepeatLimits, rule=None,
                      source=None):
    """Collective. The BFS level engine: repeats, from ``d = depth``, until ``limits`` stop it::

        q = vxm(q, A, semiring, mask=visited, complement=True)   # q<!visited.S, replace> = q' A
        assign(visited, q)                                        # visited<q.S> = q
        assign(depths, q, value=d)                                # (when depths is given)
        d += 1

    and returns ``(q, records)``: the last result (already assigned) and a
    :class:`LevelRecord` a level. ``semiring`` is ``any_pair`` or ``any_secondi``. ``rule``
    (a :class:`lagraph_dist.core.direction.DirectionRule`, updated as it goes; default: push only)
    picks how each product is computed: top-down from the list of ``q`` or bottom-up as
    ``mxv(A.T, q)`` over the unvisited vertices (the same result, by any's choice of parent);
    pull levels need ``A.T.prepare_pull()`` first.

    With ``source`` (a vertex id) and ``q`` None, the search starts at that vertex: before the
    first level ``visited`` becomes it alone (its value: its id under ``any_secondi``, true
    under ``any_pair``), ``depths`` it alone at ``depth - 1``, and ``q`` it alone; their
    contents before do not matter (``ld.bfs`` passes the unwritten bitmaps of
    ``Vector._unset``). A fused backend does this inside its kernel, with no launch of its own.

    On a 1 x 1 grid, with ``visited`` (and ``depths``) as bitmaps, the backend runs the levels
    without returning to Python (the GPU backend: one persistent cooperative kernel with a
    grid barrier between levels, and visited updated in place instead of a separate assign,
    ``kernels/fused.cu``), in runs of at most FUSED_MAX_LEVELS levels. Elsewhere
    every level is the loop above. This is the only level loop of the package's searches.
    """
    semiring = lookup_semiring(semiring)
    if (q is None) == (source is None):
        raise InvalidValue("repeat_masked_vxm starts from a frontier q or from a source vertex, one of the two")
    if source is not None:           # (a fused kernel would write at the id as given)
        source = check_vertex(source, A.n, "source")
    _check_operands(visited if q is None else q, A, visited)
    if semiring.add.kind != "any" or semiring.multiply.name not in ("pair", "secondi"):
        raise DomainMismatch(f"repeat_masked_vxm takes any_pair or any_secondi, got {semiring!r}")
    rule = rule or DirectionRule("push", A.n, A.nvals)
    fusable = (_FUSE_LEVELS and A.grid.size == 1 and not A.transposed and visited.encoding == "bitmap"
               and (depths is None or depths.encoding == "bitmap") and _fused_run_honours(A.backend.kernels, rule))
    engine = _VectorLevels(q, A, semiring, visited, depths, depth, limits, rule, fusable, source)
    if limits.target is not None and (source == limits.target if q is None else q.nvals and holds(q, limits.target)):
        engine.start()
        return engine.q, LevelRecords()
    return engine.run()


class LevelEngine(abc.ABC):
    """The loop over a search's levels, written once: it runs :meth:`step` while the frontier
    has entries, no limit has stopped it and fewer than ``limits.max_levels`` levels ran, and
    returns ``(the last frontier, its LevelRecords)``. A step runs one level (or, where the
    backend fuses them, several) and appends their records. The searches' engines subclass it:
    a vector frontier here (:func:`repeat_masked_vxm`), the k x n frontier matrix in
    :mod:`lagraph_dist.algebra.multi`."""

    def __init__(self, q, A, depth, limits, rule):
        self.q, self.A, self.depth, self.limits, self.rule = q, A, depth, limits, rule
        self.records, self.stopped = LevelRecords(), False

    def more(self):
        return not self.stopped and len(self.records) < self.limits.max_levels and self.q.nvals > 0

    #: what a trace (lagraph_dist.algebra.trace) calls this engine's levels
    traced_as = "search"

    def run(self):
        with trace.inside_search():
            while self.more():
                self.step()
        trace.note_levels(self.traced_as, self.records)
        return self.q, self.records

    @abc.abstractmethod
    def step(self):
        """Run the next level (or several fused ones) and append their records."""

    def next_depth(self):
        """The depth the next level's entries get."""
        return self.depth + len(self.records)


class _VectorLevels(LevelEngine):
    """The levels of :func:`repeat_masked_vxm`: fused runs where the backend has them, single
    products elsewhere."""

    def __init__(self, q, A, semiring, visited, depths, depth, limits, rule, fusable, source=None):
        super().__init__(q, A, depth, limits, rule)
        self.semiring, self.visited, self.depths, self.fusable = semiring, visited, depths, fusable
        self.source = source         # the search's start, until made (q None meanwhile)
        self.degrees = A.out_degree()

    def more(self):
        if self.source is not None and self.limits.max_levels <= 0:
            self.start()             # no level runs: the start alone is the result
        return self.source is not None or super().more()

    def start(self):
        """Make the search's start at ``source`` here (a fused run makes it in its kernel):
        visited, depths and q the source alone, made in one launch on its owner."""
        source, visited, depths = self.source, self.visited, self.depths
        starts = [(source if self.semiring.multiply.positional else True, visited.dtype)]
        if depths is not None:
            starts.append((self.depth - 1, depths.dtype))
        made, self.q = Vector.singles(source, starts, self.A.n, grid=self.A.grid, backend=self.A.backend,
                                      with_list=True)
        for vector, singles in zip((visited, depths), made):
            vector._replace_part(singles.part)
        self.source = None

    def step(self):
        if self.fusable:
            self.fused_run()
        else:
            if self.source is not None:
                self.start()
            self.single()

    def _after(self, q):
        """Take ``q`` as the frontier and stop where the limits say."""
        self.q = q
        limits = self.limits
        if (q.nvals == 0 or (limits.max_nvals is not None and q.nvals > limits.max_nvals)
                or (limits.target is not None and holds(q, limits.target))):
            self.stopped = True

    def single(self):
        """One level as separate products (the loop of :func:`repeat_masked_vxm`)."""
        A, q, degrees, limits = self.A, self.q, self.degrees, self.limits
        backend = A.backend
        reads, launches, started = backend.device_reads, backend.kernel_launches, time.perf_counter()
        edges = q.facts.push_edges(degrees)        # the product that made q counted them
        counted = edges is not None
        if not counted:                             # one reduce at most, only when asked for
            edges = functools.cache(lambda: frontier_out_edges(q, degrees))
        push = self.rule.choose(q.nvals, edges)
        if push and limits.max_edges is not None and (edges if counted else edges()) > limits.max_edges:
            self.stopped = True
            return
        visited = self.visited
        if push:
            found = vxm(q.to_list(), A, self.semiring, mask=visited, complement=True)
        else:
            found = mxv(A.T, q.to_bitmap(), self.semiring, mask=visited, complement=True)
        found_nvals = found.nvals
        if found_nvals:
            assign(visited, found)
            if self.depths is not None:
                assign(self.depths, found, value=self.next_depth())
        stats = found.op_stats
        self.records.append(LevelRecord(
            q.nvals, found_nvals, stats.edges_examined, push, time.perf_counter() - started,
            stats=stats, host_reads=backend.device_reads - reads,
            launches=backend.kernel_launches - launches))
        self._after(found)

    def fused_run(self):
        """Levels inside the backend's composite, until it stops (empty, at the target, past
        max_nvals, before a push past max_edges) or its run of levels ends."""
        limits = self.limits
        run_limits = RepeatLimits(
            max_levels=min(_fused_level_cap(self.A.backend.kernels), limits.max_levels - len(self.records)),
            max_nvals=self.A.n if limits.max_nvals is None else limits.max_nvals,
            max_edges=_NO_CAP if limits.max_edges is None else limits.max_edges, target=limits.target)
        q, run, reason = _fused_levels(self.q, self.A, self.semiring, self.visited, self.depths,
                                       self.next_depth(), run_limits, self.rule, self.source)
        self.source = None
        self.records.add_fused(run)
        self.q = q
        if reason != STOP_LEVELS:
            self.stopped = True


def holds(q, vertex):
    """Collective: does ``q`` have an entry at global id ``vertex``?"""
    start, stop = q.layout.block_range(q.grid.row, q.grid.col)
    mine = False
    if start <= vertex < stop:
        part = q.part.to_bitmap(q.backend)
        local = vertex - start
        mine = bool(int(q.backend.to_host(part.words[local // WORD_BITS:local // WORD_BITS + 1])[0])
                    >> (local % WORD_BITS) & 1)
    return bool(q.grid.allreduce(int(mine), op="MAX"))


def _fused_levels(q, A, semiring, visited, depths, depth, limits, rule, source=None):
    """One run of the backend's fused search from ``q``, or from vertex ``source`` (the search's
    start, which the run makes): (the frontier after it, its levels (a :class:`_FusedRun`), why
    it stopped: a STOP_* reason of the kernels)."""
    backend = A.backend
    reads, launches = backend.device_reads, backend.kernel_launches
    out_csr = A.block.by_col
    in_csr = out_csr if rule.mode == "push" else A.block.by_row     # pull reads in-edges
    space = A._cache.get("fused_workspace")
    if space is None:
        space = A._cache["fused_workspace"] = backend.kernels.fused_workspace(out_csr.nmajor, out_csr.nnz)
    degrees = A.out_degree()
    ended = []       # a run's usual end, no frontier left, made while its kernel runs (on a GPU)
    raw, ids, edges, reason = backend.kernels.bfs_fused(
        out_csr, in_csr, visited.part.words, visited.part.values, None if depths is None else depths.part.words,
        None if depths is None else depths.part.values, depth, None if q is None else q.to_list().part.ids,
        semiring.multiply.positional, rule, limits.max_nvals, limits.max_edges, limits.max_levels,
        -1 if limits.target is None else int(limits.target), workspace=space, source=source,
        while_running=lambda: ended.append(_frontier_left(A, visited, degrees, backend.xp.empty(0, np.int32), 0)))
    run = _FusedRun(raw, backend.kernels.FUSED_LEVEL_CLOCK, backend.device_reads - reads,
                    backend.kernel_launches - launches)
    added = raw.discovered                        # (both backends' runs are FusedRecords)
    if source is not None:                        # the run made the start: the source, then what it found
        visited.part.started_in_place(1 + added)
        visited.facts.started(1 + added)
    else:                                         # every found vertex was new to it
        visited.part.grew_in_place(added)
        visited.facts.grew(added)
    if depths is not None:
        depths.part.changed_in_place(backend)
    if ended and ids.shape[0] == 0 and edges == 0:
        return ended[0], run, reason
    return _frontier_left(A, visited, degrees, ids, int(edges)), run, reason


def _frontier_left(A, visited, degrees, ids, edges):
    """The frontier a fused run leaves (``ids``, its ``edges`` out-edges), its values gathered
    from ``visited`` when read, its counts known."""
    count = int(ids.shape[0])
    part = LocalPart.gathered_list(ids, visited.part.values, visited.part.length, ids_sorted=False)
    out = Vector._from_part(A.n, A.grid, A.backend, part, layout=A.layout)
    out.facts.record_counts(collectives.GlobalCounts((count,), count, edges), degrees)
    return out
