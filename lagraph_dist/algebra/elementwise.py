"""The element-wise operations, local because both operands share the layout: ``ewise_add``
(union), ``ewise_mult`` (intersection), ``assign`` (in place, u as a structural mask; it keeps
the products' mask caches up to date), ``apply`` (a binary operator with a scalar) and the
collective ``reduce``; ``op_dtype`` is the type of an operator's results.
"""
from __future__ import annotations

import numpy as np

from lagraph_dist.comm.collective import collective
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch
from lagraph_dist.local.parts import LocalPart, combine_duplicates
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.algebra.products import update_mask_caches
from lagraph_dist.semirings import BinaryOp, binary_ops, lookup_binary, lookup_monoid

__all__ = ["ewise_add", "ewise_mult", "assign", "apply", "reduce", "op_dtype"]


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


def op_dtype(op, left, right):
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
    dtype = op_dtype(op, u.dtype, v.dtype)
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
        update_mask_caches(w, u)
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
    dtype = op_dtype(op, u.dtype, scalar.dtype)
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
