"""python-graphblas's grammar on top of the functional algebra: lazy expressions, masks, and
the output rule of ``w(mask, accum, replace=...) << expr``.

As in python-graphblas, an update has two halves. The right of ``<<`` says what to compute
(``u.vxm(A, semiring)``, ``A.mxv(u, semiring)``, ``u.ewise_add(v, op)``, ``u.ewise_mult(v, op)``,
``u.apply(op, right=x)``, a vector, or a scalar); nothing runs until it is written. The left says
where and how the result lands: mask (``v.S`` structure, ``v.V`` values, ``~`` complement),
accumulator, replace. Every expression runs through :mod:`lagraph_dist.algebra.products` and
:mod:`lagraph_dist.algebra.elementwise`, so the two spellings run the same stages; a product
takes the mask into its kernels exactly as ``ld.vxm(u, A, sr, mask=, complement=, structure=)``
does.

GraphBLAS's output rule, spelled out once in :func:`_write`. With T the result, ``old`` the
output's entries and M the positions the mask allows (everything without a mask):

* Z = T without an accumulator; with one, the union of ``old`` and T, the accumulator
  combining the values where both have an entry;
* inside M the output becomes Z, so an old entry where Z has none is deleted; outside M the
  old entries stay, or are cleared with ``replace=True`` (an error without a mask).

Only what the engine runs is accepted; anything else raises :class:`Unsupported` (a form
GraphBLAS defines, naming what is supported) or :class:`DomainMismatch` (a form it rejects too).

The grammar's methods live here, above the classes they act on, and are installed on them in
one block at the end of this module (imported with the package): ``Vector.S``, ``Vector.V``,
``w(...)`` (``__call__``), ``v[i] = x`` (``__setitem__``), ``v.vxm``, ``v.ewise_add``,
``v.ewise_mult``, ``v.apply``, ``v.reduce``, ``A.mxv``, and ``@``, which raises (GraphBLAS
spells products with a semiring).
"""
from __future__ import annotations

import numbers
from typing import Callable, Union

import numpy as np

from lagraph_dist.algebra import elementwise, products
from lagraph_dist.comm.collective import collective
from lagraph_dist.core.checks import check_vertex
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch, InvalidValue, Unsupported
from lagraph_dist.local.parts import LocalPart
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.semirings import BinaryOp, Monoid, any_, binary_ops, lookup_semiring, monoids, plus
from lagraph_dist.algebra.vector import Vector

__all__ = ["Mask", "VectorExpression", "Scalar", "Output"]

Op = Union[BinaryOp, Monoid]


# -- operands ---------------------------------------------------------------------------------
def _check_vector(x, what) -> Vector:
    if not isinstance(x, Vector):
        raise DomainMismatch(f"{what} must be an lagraph_dist.Vector, got {type(x).__name__}")
    return x


def _check_alike(one: Vector, other, what):
    """``other`` (a Vector, Matrix or expression) has ``one``'s size, grid and backend."""
    if other.n != one.n:
        raise DimensionMismatch(f"{what}: sizes {one.n} and {other.n} differ")
    if other.grid is not one.grid:
        raise DimensionMismatch(f"{what}: the operands live on different grids")
    if other.backend is not one.backend:
        raise DimensionMismatch(f"{what}: operands on backends {one.backend.name!r} and "
                                f"{other.backend.name!r}; build them on one backend")


def _scalar(value, what):
    """A numeric scalar (bool, int, float, numpy scalar or 0-d array, or a non-empty Scalar)."""
    if isinstance(value, Scalar):
        if value.value is None:
            raise InvalidValue(f"{what}: the Scalar is empty (a reduction of no entries)")
        value = value.value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (numbers.Real, np.generic))
                                               and np.asarray(value).dtype.kind in "biuf"):
        return value
    raise DomainMismatch(f"{what} must be a number (bool, int or float), got {value!r}")


def _scalar_dtype(value) -> np.dtype:
    return np.asarray(value).dtype


# -- masks ------------------------------------------------------------------------------------
class Mask:
    """A thin view of a vector as a mask: its structure (``v.S``) or its values' truth
    (``v.V``), complemented by ``~``. It holds only the vector and two flags."""

    __slots__ = ("parent", "structure", "complement")

    def __init__(self, parent: Vector, *, structure: bool, complement: bool = False):
        self.parent = parent
        self.structure = structure
        self.complement = complement

    def __invert__(self) -> "Mask":
        return Mask(self.parent, structure=self.structure, complement=not self.complement)

    def __bool__(self):
        raise TypeError(f"a mask ({self!r}) has no truth value; use it as w({self!r}) << ...")

    def __eq__(self, other):
        raise TypeError(f"a mask ({self!r}) cannot be compared; compare the vectors (isequal)")

    __hash__ = None

    def __repr__(self):
        return f"{'~' if self.complement else ''}v.{'S' if self.structure else 'V'}"

    def agreement_text(self) -> str:
        """What collective calls compare between ranks: the flags and the vector's shape."""
        return f"{self!r} of {self.parent.agreement_text()}"

    def as_ops_arguments(self) -> dict:
        """The keywords of ``ld.vxm``/``ld.mxv`` that apply this mask inside a product."""
        return {"mask": self.parent, "complement": self.complement, "structure": self.structure}

    def words(self, backend):
        """This rank's mask entries (the truthy ones for ``.V``) as packed bitmap words."""
        part = self.parent.part
        if self.structure:
            return part.to_bitmap(backend).words
        part = part.to_list(backend)
        truthy = part.values.astype(bool)
        return backend.kernels.bitmap_from_list(part.ids[truthy], part.length)

    def allows(self, words, ids, backend):
        """Bool per local id: does the mask let it through? (``words`` from :meth:`words`)"""
        inside = backend.kernels.bitmap_test(words, ids)
        return ~inside if self.complement else inside


def _as_mask(mask) -> Mask | None:
    """python-graphblas's rule: a mask says structure or values; a bool vector is its values."""
    if mask is None or isinstance(mask, Mask):
        return mask
    if isinstance(mask, Vector):
        if mask.dtype == np.bool_:
            return Mask(mask, structure=False)
        raise DomainMismatch(f"a mask must be boolean or say structure (v.S) or values (v.V); "
                             f"got a Vector of {mask.dtype}")
    raise DomainMismatch(f"a mask must be v.S, v.V or their complement ~v.S, ~v.V, got {mask!r}")


# -- operators --------------------------------------------------------------------------------
# How a union (ewise_add, and an accumulator) combines two entries at one position: a monoid
# of the engine, and whether the right operand's value goes first. ``any`` keeps the value of
# the first operand of elementwise.ewise_add, so ``first``/``second`` are ``any`` with that order; a
# monoid's binary form is the monoid.
# An accumulator writes into the output's own type, so it takes the monoids that keep it
# (lor only on booleans).
_ORDERED = {"first": False, "second": True}
_UNION_NAMES = "binary.first, binary.second and the monoids' binary forms (any, min, max, plus, lor, land)"
_ACCUMULATORS = ("first", "second", "any", "min", "plus", "lor")
_ACCUMULATOR_NAMES = "binary.first, binary.second, binary.any, binary.min, binary.plus, binary.lor " \
                     "(or monoid.any, min, plus, lor)"


def _union_rule(op, what, dtype, *, accumulator=False) -> tuple[Monoid, bool]:
    if not isinstance(op, (BinaryOp, Monoid)):
        raise DomainMismatch(f"{what} takes a binary operator or a monoid, got {op!r}")
    if accumulator and op.name not in _ACCUMULATORS:
        raise Unsupported(f"{what} {op!r} is not supported; supported: {_ACCUMULATOR_NAMES}")
    if op.name in _ORDERED:
        return any_, _ORDERED[op.name]
    monoid = getattr(monoids, op.name) if op.name in dir(monoids) else None
    if monoid is None:
        raise Unsupported(f"{what} {op!r} is not supported; supported: {_UNION_NAMES}")
    if accumulator and monoid.boolean and dtype != np.bool_:
        raise Unsupported(f"{what} {op!r} on {dtype} values is not supported (lor combines "
                          f"booleans only)")
    monoid.check_dtype(dtype, what)
    return monoid, False


def _union(u: Vector, v: Vector, rule) -> Vector:
    monoid, swapped = rule
    return elementwise.ewise_add(v, u, monoid) if swapped else elementwise.ewise_add(u, v, monoid)


def _as_monoid(op) -> Monoid:
    if isinstance(op, Monoid):
        return op
    if isinstance(op, BinaryOp) and op.name in dir(monoids):
        return getattr(monoids, op.name)
    raise DomainMismatch(f"reduce takes a monoid (monoid.{', '.join(dir(monoids))}), got {op!r}")


# -- expressions ------------------------------------------------------------------------------
class VectorExpression:
    """A vector computation not run yet: ``w(...) << expr`` or ``expr.new()`` runs it.

    ``compute(mask)`` returns the result and whether the mask was applied in computing it
    (products take it into their kernels; other operations leave it to the write).
    """

    def __init__(self, method: str, like: Vector, dtype, compute: Callable):
        self.method = method
        self.size = self.n = like.n
        self.grid = like.grid
        self.backend = like.backend
        self.dtype = np.dtype(dtype)
        self._compute = compute

    def __repr__(self):
        return f"<VectorExpression {self.method} size={self.size} dtype={self.dtype}>"

    agreement_text = __repr__     # what collective calls compare between ranks

    def __bool__(self):
        raise TypeError(f"{self!r} has no truth value: write it (w << expr, expr.new()) and use "
                        f"w.nvals")

    def new(self, dtype=None, *, mask=None) -> Vector:
        """Collective. A new vector holding the result (only where ``mask`` allows)."""
        out = Vector(self.dtype if dtype is None else dtype, self.size, grid=self.grid,
                     backend=self.backend)
        out(mask=mask) << self
        return out


def vxm(u: Vector, A: Matrix, semiring) -> VectorExpression:
    """``u.vxm(A, semiring)``: the expression ``w = u' A``."""
    return _product("vxm", u, A, semiring, lambda mask_args: products.vxm(u, A, semiring, **mask_args))


def mxv(A: Matrix, u: Vector, semiring) -> VectorExpression:
    """``A.mxv(u, semiring)``: the expression ``w = A u``."""
    return _product("mxv", u, A, semiring, lambda mask_args: products.mxv(A, u, semiring, **mask_args))


def _product(method, u, A, semiring, run):
    _check_vector(u, f"{method}'s vector")
    if not isinstance(A, Matrix):
        raise DomainMismatch(f"{method} needs an lagraph_dist.Matrix, got {type(A).__name__}")
    _check_alike(u, A, method)
    semiring = lookup_semiring(semiring)

    def compute(mask):
        return run({} if mask is None else mask.as_ops_arguments()), mask is not None
    return VectorExpression(f"{method}({semiring.name})", u, semiring.out_dtype, compute)


def ewise_add(u: Vector, v: Vector, op: Op = plus) -> VectorExpression:
    """``u.ewise_add(v, op)``: union of the patterns, ``op`` combining where both have entries."""
    _check_vector(v, "ewise_add's other operand")
    _check_alike(u, v, "ewise_add")
    dtype = np.result_type(u.dtype, v.dtype)
    rule = _union_rule(op, "ewise_add with", dtype)
    return VectorExpression(f"ewise_add({op!r})", u, rule[0].result_dtype(dtype),
                            lambda mask: (_union(u, v, rule), False))


def _value_op(op, what) -> BinaryOp:
    """The operator of ewise_mult and apply: a value-computing BinaryOp (ops checks the rest)."""
    if not isinstance(op, (BinaryOp, Monoid)):
        raise DomainMismatch(f"{what} takes a binary operator, got {op!r}")
    if isinstance(op, Monoid):
        op = op.op
    if op.positional:
        raise Unsupported(f"{what} with the positional {op!r} is not supported; it takes operators on values "
                          f"({', '.join(sorted(n for n, o in binary_ops.items() if o.rule is not None))})")
    return op


def ewise_mult(u: Vector, v: Vector, op: Op) -> VectorExpression:
    """``u.ewise_mult(v, op)``: intersection of the patterns, ``op`` of the two values."""
    _check_vector(v, "ewise_mult's other operand")
    _check_alike(u, v, "ewise_mult")
    op = _value_op(op, "ewise_mult")
    dtype = elementwise.op_dtype(op, u.dtype, v.dtype)
    return VectorExpression(f"ewise_mult({op!r})", u, dtype,
                            lambda mask: (elementwise.ewise_mult(u, v, op), False))


def apply(u: Vector, op: BinaryOp, right=None, *, left=None) -> VectorExpression:
    """``u.apply(op, right=x)`` or ``u.apply(op, left=x)``: u's pattern, ``op(u, x)`` or
    ``op(x, u)`` its values (first/second keep u's values or give x)."""
    if not isinstance(op, BinaryOp):
        raise DomainMismatch(f"apply takes a binary operator with right= or left=, got {op!r}")
    if (right is None) == (left is None):
        raise DomainMismatch(f"apply({op!r}) needs exactly one of right= and left=")
    op = _value_op(op, "apply")
    scalar = _scalar(right if left is None else left, "apply's scalar")
    dtype = elementwise.op_dtype(op, u.dtype, _scalar_dtype(scalar))

    def compute(mask):
        if left is None:
            return elementwise.apply(u, op, right=scalar), False
        return elementwise.apply(u, op, left=scalar), False
    return VectorExpression(f"apply({op!r})", u, dtype, compute)


# -- reductions -------------------------------------------------------------------------------
class Scalar:
    """The value of a reduction: ``v.reduce(monoid)`` computes it at once (reductions are
    collective, so every rank gets it at the same point). ``.value`` is None when the vector
    had no entries, as in python-graphblas; ``.new()`` gives a copy, so both spellings work."""

    def __init__(self, value, dtype):
        self.value = value
        self.dtype = np.dtype(dtype)

    @property
    def is_empty(self) -> bool:
        return self.value is None

    def new(self) -> "Scalar":
        return Scalar(self.value, self.dtype)

    def __bool__(self):
        return bool(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __eq__(self, other):
        other = other.value if isinstance(other, Scalar) else other
        return self.value == other

    __hash__ = None

    def __repr__(self):
        return f"Scalar({self.value!r}, dtype={self.dtype})"


@collective("u", "monoid", what="reduce")
def reduce(u: Vector, monoid=plus) -> Scalar:
    """Collective. ``u.reduce(monoid)``: the monoid over all values, in u's dtype."""
    monoid = _as_monoid(monoid)
    dtype = monoid.result_dtype(u.dtype)
    if u.nvals == 0:
        monoid.check_dtype(u.dtype, "reduce")
        return Scalar(None, dtype)
    return Scalar(dtype.type(elementwise.reduce(u, monoid)).item(), dtype)


# -- the output side --------------------------------------------------------------------------
class Output:
    """``w(mask, accum, replace=...)``: where and how a result is written into ``w``."""

    def __init__(self, target: Vector, mask: Mask | None, accum, replace: bool):
        self.target = target
        self.mask = mask
        self.accum = accum
        self.replace = replace

    def __repr__(self):
        return f"<Output mask={self.mask!r} accum={self.accum!r} replace={self.replace}>"

    def agreement_text(self) -> str:
        """What collective calls compare between ranks: where and how the result is written."""
        mask = "no mask" if self.mask is None else self.mask.agreement_text()
        return (f"into {self.target.agreement_text()}, {mask}, accum {self.accum!r}, "
                f"replace={self.replace}")

    def __lshift__(self, expr) -> None:
        self.update(expr)

    @collective("self", "expr", what="w(...) << expr")
    def update(self, expr) -> None:
        """Collective. Compute ``expr`` and write it by GraphBLAS's output rule."""
        _write(self, expr)

    def __getitem__(self, index):
        raise Unsupported("indexed assignment w(...)[indices] << ... is not supported; "
                          "select the positions with a mask instead: w(m.S) << ...")


def unsupported_product(left, right):
    """``u @ A`` and ``A @ u``: python-graphblas's product awaiting a semiring."""
    raise Unsupported(f"{type(left).__name__} @ {type(right).__name__} (a product awaiting a "
                      f"semiring) is not supported; write u.vxm(A, semiring) or A.mxv(u, semiring)")


def output(target: Vector, args, mask=None, accum=None, replace=False) -> Output:
    """Parse ``w(*args, mask=, accum=, replace=)`` as python-graphblas does: positional
    arguments are a mask (``v.S``, ``v.V``, ``~...``) and/or an accumulator (an operator)."""
    for arg in args:
        if isinstance(arg, (BinaryOp, Monoid)):
            if accum is not None:
                raise DomainMismatch(f"two accumulators given: {accum!r} and {arg!r}")
            accum = arg
        else:
            if mask is not None:
                raise DomainMismatch(f"two masks given: {mask!r} and {arg!r}")
            mask = arg
    mask = _as_mask(mask)
    if mask is not None:
        _check_alike(target, mask.parent, "the mask")
    if not isinstance(replace, (bool, np.bool_)):
        raise DomainMismatch(f"replace must be True or False, got {replace!r}")
    if replace and mask is None:
        raise DomainMismatch("'replace' may only be True when a mask is given")
    if accum is not None:
        _union_rule(accum, "accumulator", target.dtype, accumulator=True)
    return Output(target, mask, accum, bool(replace))


@collective("v", "index", "value", what="v[i] = x")
def set_element(v: Vector, index, value) -> None:
    """Collective ``v[index] = value``: every rank passes the same index and value."""
    def checked():
        return check_vertex(index, v.n, "index"), _scalar(value, "the assigned value")

    i, x = v.grid.agree(checked)
    start, _ = v.layout.block_range(v.grid.row, v.grid.col)
    mine = [i - start] if v.layout.owner_rank(i) == v.grid.rank else []
    xp = v.backend.xp
    one = LocalPart.from_list(xp.asarray(mine, dtype=np.int32),
                              xp.asarray([x] * len(mine), dtype=v.dtype), v.layout.block_len)
    elementwise.assign(v, v._like(one))


# -- the output rule --------------------------------------------------------------------------
def _filled(target: Vector, mask: Mask | None, value) -> Vector:
    """The scalar ``value`` at every position of ``target``'s block the mask allows."""
    backend, xp = target.backend, target.backend.xp
    start, stop = target.layout.block_range(target.grid.row, target.grid.col)
    if mask is not None and not mask.complement:
        ids = backend.kernels.list_from_bitmap(mask.words(backend))
    else:
        ids = xp.arange(stop - start, dtype=np.int32)
        if mask is not None:
            ids = ids[mask.allows(mask.words(backend), ids, backend)]
    values = xp.full(ids.shape[0], value, dtype=target.dtype)
    return target._like(LocalPart.from_list(ids, values, target.layout.block_len))


def _result_of(out: Output, expr):
    """(T, whether T is already within the mask, whether T's arrays are ours to keep)."""
    mask, target = out.mask, out.target
    if isinstance(expr, VectorExpression):
        _check_alike(target, expr, f"writing {expr.method}")
        result, masked = expr._compute(mask)
        return result, masked, True
    if isinstance(expr, Vector):
        _check_alike(target, expr, "writing a vector")
        return expr, False, False
    if isinstance(expr, (Mask, Output)):
        raise DomainMismatch(f"the right of << must be an expression, a vector or a scalar, "
                             f"got {expr!r}")
    scalar = _scalar(expr, "the right of <<")
    return _filled(target, mask, scalar), True, True


def _write(out: Output, expr) -> None:
    """GraphBLAS's output rule (module docstring), on this rank's part of the output."""
    target, mask, replace = out.target, out.mask, out.replace
    # GrB_assign with a structural mask, in place (what ld.bfs runs): the result's pattern is
    # the mask's, so nothing inside the mask is deleted and nothing outside changes
    if (out.accum is None and not replace and mask is not None and mask.structure
            and not mask.complement and (expr is mask.parent or _is_scalar(expr))):
        scalar = None if expr is mask.parent else _scalar(expr, "the right of <<")
        elementwise.assign(target, mask.parent, value=scalar)
        return
    result, masked, owned = _result_of(out, expr)
    if out.accum is not None:
        result = _union(target, result, _union_rule(out.accum, "accumulator", target.dtype, accumulator=True))
        owned = True
    part = result.part
    if mask is not None and not (replace and masked and out.accum is None):
        part = _merge_under_mask(target, part, mask, replace)
        owned = True
    part = part.astype(target.dtype)
    if owned and part is result.part:
        target._adopt(result)            # the product's own result: what it knows carries over
    else:
        target._replace_part(part if owned else part.copy())


def _is_scalar(expr) -> bool:
    return not isinstance(expr, (Vector, VectorExpression, Mask, Output)) and (
        isinstance(expr, (Scalar, numbers.Number, np.generic))
        or (isinstance(expr, np.ndarray) and expr.ndim == 0))


def _merge_under_mask(target: Vector, z: LocalPart, mask: Mask, replace: bool) -> LocalPart:
    """Z where the mask allows, and (unless ``replace``) the old entries where it does not."""
    backend, xp = target.backend, target.backend.xp
    words = mask.words(backend)
    z = z.to_list(backend)
    inside = mask.allows(words, z.ids, backend)
    ids, values = [z.ids[inside]], [z.values[inside].astype(target.dtype)]
    if not replace:
        old = target.part.to_list(backend)
        outside = ~mask.allows(words, old.ids, backend)
        ids.append(old.ids[outside])
        values.append(old.values[outside])
    ids, values = xp.concatenate(ids), xp.concatenate(values)
    order = xp.argsort(ids)          # the two sets are disjoint: inside and outside the mask
    return LocalPart.from_list(ids[order], values[order], z.length)


# -- the grammar as Vector's and Matrix's methods ---------------------------------------------
# v.S, w(mask) << expr, u.vxm(A, op), A.mxv(u, op) ... build this module's objects, so this
# layer, above the classes, installs them there (python-graphblas's spellings of the algebra).
def _call(target, *args, mask=None, accum=None, replace: bool = False) -> Output:
    """``w(mask, accum, replace=...)``, the left side of ``<<``."""
    return output(target, args, mask=mask, accum=accum, replace=replace)


def _right_product(right, left):
    unsupported_product(left, right)


Vector.S = property(lambda v: Mask(v, structure=True), doc="The structure as a mask (python-graphblas's ``v.S``).")
Vector.V = property(lambda v: Mask(v, structure=False), doc="The values, by their truth, as a mask (``v.V``).")
Vector.__call__ = _call
Vector.__setitem__ = set_element
Vector.__matmul__ = unsupported_product
Vector.__rmatmul__ = _right_product
Vector.vxm, Vector.ewise_add, Vector.ewise_mult, Vector.apply, Vector.reduce = vxm, ewise_add, ewise_mult, apply, reduce
Matrix.__matmul__ = unsupported_product
Matrix.mxv = mxv
