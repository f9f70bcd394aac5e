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

import contextlib
import time
from dataclasses import dataclass, field

import numpy as np

from lagraph_dist import comm as collectives
from lagraph_dist.errors import DimensionMismatch, DomainMismatch
from lagraph_dist.grid import WORD_BITS
from lagraph_dist.local import LocalPart, combine_duplicates
from lagraph_dist.vector import Vector
from lagraph_dist.semirings import BinaryOp, lookup_monoid, lookup_semiring

__all__ = ["vxm", "mxv", "ewise_add", "ewise_mult", "assign", "apply", "reduce", "ProductStats"]


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
    """Which communicators and which compression of the block a product uses."""

    in_comm: object
    out_comm: object
    in_map: object
    push_csr: object      # compressed by input-space id
    pull_csr_of: object   # callable -> compressed by output-space id (built lazily)


def _orientation(M, along_rows):
    """``along_rows``: the input indexes M's rows (vxm on M, mxv on M.T)."""
    grid, layout, block = M.grid, M.layout, M.block
    if along_rows != M.transposed:       # input = column space: expand on the grid column
        return _Orientation(grid.col_comm, grid.row_comm, layout.col_space(grid.col),
                            block.by_col, lambda: block.by_row)
    return _Orientation(grid.row_comm, grid.col_comm, layout.row_space(grid.row),
                        block.by_row, lambda: block.by_col)


# Stage seconds wait for the device at every stage boundary; that costs a host round trip a
# stage, so it is off unless asked for (``lagraph-dist bfs --stage-timing``). Without it the
# stage seconds are host dispatch times and only the level's total is device-complete.
SYNC_STAGE_TIMERS = False


class _Timer:
    def __init__(self, backend, seconds):
        self.backend, self.seconds = backend, seconds

    @contextlib.contextmanager
    def stage(self, name):
        started = time.perf_counter()
        yield
        if SYNC_STAGE_TIMERS:
            self.backend.sync()
        self.seconds[name] += time.perf_counter() - started


def _joined(xp, arrays):
    """Concatenation that does not copy a lone array (the 1-rank communicators' case)."""
    return arrays[0] if len(arrays) == 1 else xp.concatenate(arrays)


def _check_operands(u, M, mask):
    if not isinstance(u, Vector):
        raise DomainMismatch(f"expected a Vector, got {type(u).__name__}")
    if u.n != M.n:
        raise DimensionMismatch(f"vector of size {u.n} and matrix of size {M.n} x {M.n}")
    if u.grid is not M.grid:
        raise DimensionMismatch("vector and matrix live on different grids")
    if mask is not None and (not isinstance(mask, Vector) or mask.n != M.n or mask.grid is not M.grid):
        raise DimensionMismatch("the mask must be a Vector of the matrix's size on its grid")


def _mask_bitmap(mask, structure, orient, backend, stats):
    """The mask's pattern over this rank's whole output space, as packed words."""
    part = mask.part
    if not structure:       # values' truth: drop the falsy entries first
        part = part.to_list(backend)
        truthy = part.values.astype(bool)
        part = LocalPart.from_list(part.ids[truthy], part.values[truthy], part.length)
    pieces, traffic = collectives.allgather_parts(part, orient.out_comm, backend,
                                                  with_values=False, value_dtype=np.bool_)
    stats.bytes["mask"], stats.encoding["mask"] = traffic.bytes, traffic.encoding
    return _joined(backend.xp, [p.to_bitmap(backend).words for p in pieces])


def _assemble_list(pieces, backend, *, stacked=True):
    """Concatenate list pieces; ``stacked``: piece k covers ids [k*length, (k+1)*length)."""
    xp = backend.xp
    lists = [p.to_list(backend) for p in pieces]
    ids = _joined(xp, [p.ids + np.int32(k * p.length) if stacked and k else p.ids
                       for k, p in enumerate(lists)])
    return ids, _joined(xp, [p.values for p in lists])


def _assemble_bitmap(pieces, backend):
    xp = backend.xp
    bitmaps = [p.to_bitmap(backend) for p in pieces]
    return _joined(xp, [p.words for p in bitmaps]), _joined(xp, [p.values for p in bitmaps])


def _split_by_owner(part, block_len, nowners, backend):
    """An output-space part -> one piece per owner block (blocks are word-aligned)."""
    if nowners == 1:
        return [part]
    if part.encoding == "bitmap":
        words_per_block = block_len // WORD_BITS
        pieces = []
        for k in range(nowners):
            words = part.words[k * words_per_block:(k + 1) * words_per_block]
            pieces.append(LocalPart("bitmap", block_len, backend.kernels.popcount(words),
                                    part.values[k * block_len:(k + 1) * block_len], words=words))
        return pieces
    xp = backend.xp
    bounds = backend.to_host(xp.searchsorted(part.ids, xp.arange(nowners + 1, dtype=np.int32) * block_len))
    return [LocalPart.from_list(part.ids[bounds[k]:bounds[k + 1]] - np.int32(k * block_len),
                                part.values[bounds[k]:bounds[k + 1]], block_len)
            for k in range(nowners)]


def _product(u, M, semiring, mask, complement, structure, along_rows):
    semiring = lookup_semiring(semiring)
    _check_operands(u, M, mask)
    backend, layout = M.backend, M.layout
    kernels, xp = backend.kernels, backend.xp
    orient = _orientation(M, along_rows)
    stats = ProductStats()
    timer = _Timer(backend, stats.seconds)
    reads = semiring.reads_left_values
    in_dtype = np.dtype(bool) if reads else u.dtype

    with timer.stage("expand"):
        pieces, traffic = collectives.allgather_parts(u.part.astype(in_dtype) if reads else u.part,
                                                      orient.in_comm, backend,
                                                      with_values=reads, value_dtype=in_dtype)
        stats.bytes["expand"], stats.encoding["expand"] = traffic.bytes, traffic.encoding
    with timer.stage("mask"):
        mask_words = None if mask is None else _mask_bitmap(mask, structure, orient, backend, stats)
    with timer.stage("local"):
        if u.encoding == "list":
            stats.kernel = "push"
            ids, vals = _assemble_list(pieces, backend)
            out, stats.edges_examined = kernels.push_spmspv(
                orient.push_csr, ids, vals if reads else None, semiring, mask_words, complement,
                orient.in_map)
        else:
            stats.kernel = "pull"
            words, vals = _assemble_bitmap(pieces, backend)
            out, stats.edges_examined = kernels.pull_spmv(
                orient.pull_csr_of(), words, vals if reads else None, semiring, mask_words,
                complement, orient.in_map)
    with timer.stage("fold"):
        outgoing = _split_by_owner(out, layout.block_len, orient.out_comm.Get_size(), backend)
        arrived, traffic = collectives.alltoall_parts(outgoing, orient.out_comm, backend,
                                                      value_dtype=semiring.out_dtype)
        stats.bytes["fold"], stats.encoding["fold"] = traffic.bytes, traffic.encoding
    with timer.stage("merge"):
        if len(arrived) == 1:
            part = arrived[0]
        else:
            ids, vals = _assemble_list(arrived, backend, stacked=False)   # all cover this block
            ids, vals = combine_duplicates(ids, vals, semiring.add, xp)
            part = LocalPart.from_list(ids, vals, layout.block_len)
    return Vector._from_part(u.n, u.grid, backend, part, op_stats=stats)


def vxm(u, A, semiring, *, mask=None, complement=False, structure=True):
    """Collective. ``w = u' A`` (``w[j] = add_k mul(u[k], A[k, j])``), restricted to where the
    mask allows (``complement``: where it has no entry; ``structure=False``: truthy values)."""
    return _product(u, A, semiring, mask, complement, structure, along_rows=True)


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


def ewise_add(u, v, monoid):
    """Union of the patterns; where both have an entry, ``monoid`` combines the values."""
    monoid = lookup_monoid(monoid)
    _check_pair(u, v)
    xp, backend = u.backend.xp, u.backend
    dtype = np.result_type(u.dtype, v.dtype)
    a, b = u.part.to_list(backend), v.part.to_list(backend)
    ids = xp.concatenate([a.ids, b.ids])
    vals = xp.concatenate([a.values.astype(dtype), b.values.astype(dtype)])
    ids, vals = combine_duplicates(ids, vals, monoid, xp)
    return u._like(LocalPart.from_list(ids, vals, a.length))


def ewise_mult(u, v, op):
    """Intersection of the patterns; ``op`` (``binary.first`` or ``binary.second``) picks the value.

    A bitmap operand is probed in place, so the cost follows the list operand's size.
    """
    _check_pair(u, v)
    if not isinstance(op, BinaryOp) or op.name not in ("first", "second"):
        raise DomainMismatch(f"ewise_mult takes binary.first or binary.second, got {op!r}")
    backend, xp = u.backend, u.backend.xp
    a, b = u.part, v.part
    if a.encoding == "bitmap" and b.encoding == "list":
        a, b, op_name = b, a, {"first": "second", "second": "first"}[op.name]
    else:
        op_name = op.name
    a = a.to_list(backend)
    if b.encoding == "bitmap":
        inside = backend.kernels.bitmap_test(b.words, a.ids)
        ids = a.ids[inside]
        vals = a.values[inside] if op_name == "first" else b.values[ids]
    else:
        ids = xp.intersect1d(a.ids, b.ids) if a.nvals and b.nvals else a.ids[:0]
        vals = (a if op_name == "first" else b).values[
            xp.searchsorted((a if op_name == "first" else b).ids, ids)]
    return u._like(LocalPart.from_list(ids.astype(np.int32), vals, a.length))


def assign(w, u, *, value=None):
    """In place, GrB_assign with u as a structural mask: ``w[k] = u[k]`` (or ``= value``) for
    every entry k of u. A bitmap ``w`` takes this in time proportional to u's entries (plus
    a pass over u's words when u is a bitmap); a list ``w`` is merged."""
    _check_pair(w, u)
    backend, xp = w.backend, w.backend.xp
    source = u.part.to_list(backend)
    values = (source.values if value is None
              else xp.full(source.nvals, value, dtype=w.dtype)).astype(w.dtype, copy=False)
    target = w.part
    if target.encoding == "bitmap":
        target.values[source.ids] = values
        target.words |= (u.part.words if u.part.encoding == "bitmap"
                         else backend.kernels.bitmap_from_list(source.ids, target.length))
        target.changed_in_place(backend)
        return w
    ids = xp.concatenate([source.ids, target.ids])
    vals = xp.concatenate([values, target.values])
    ids, vals = combine_duplicates(ids, vals, lookup_monoid("any"), xp)   # u's value sorts first
    w.part = LocalPart.from_list(ids, vals, target.length)
    return w


def apply(u, op, *, right=None):
    """A new vector with u's pattern: ``binary.second`` with ``right=s`` sets every value to s;
    ``binary.first`` keeps the values (a copy)."""
    if not isinstance(op, BinaryOp) or op.name not in ("first", "second"):
        raise DomainMismatch(f"apply takes binary.first or binary.second, got {op!r}")
    part = u.part
    if op.name == "second":
        if right is None:
            raise DomainMismatch("apply(u, binary.second) needs right=<scalar>")
        values = u.backend.xp.full(part.values.shape[0], right, dtype=np.asarray(right).dtype)
    else:
        values = part.values.copy()
    copy = (lambda a: None if a is None else a.copy())    # a new vector shares nothing with u
    return u._like(LocalPart(part.encoding, part.length, part.nvals, values,
                             ids=copy(part.ids), words=copy(part.words)))


def reduce(u, monoid):
    """Collective: the monoid's reduction of all values (its identity when there are none)."""
    monoid = lookup_monoid(monoid)
    values = u.part.to_list(u.backend).values
    if monoid.kind == "plus":
        local = int(values.sum())
    elif monoid.kind == "min":
        local = int(values.min()) if values.shape[0] else monoid.identity
    else:                                   # lor and any over booleans/integers
        local = bool(values.any()) if monoid.kind == "lor" else (
            values[0].item() if values.shape[0] else None)
    if u.grid.size == 1:
        return local
    gathered = [x for x in u.grid.comm.allgather(local) if x is not None]
    if monoid.kind == "plus":
        return sum(gathered)
    if monoid.kind == "min":
        return min(gathered)
    if monoid.kind == "lor":
        return any(gathered)
    return gathered[0] if gathered else None
