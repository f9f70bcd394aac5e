"""Operators of the algebra: binary operators, monoids and semirings, and the policy every
backend reads from them (one place: the kernels map no names of their own).

Like ``graphblas.semiring`` the names are ``{monoid}_{binaryop}``. Each entry is a frozen
dataclass that carries everything a backend needs:

* a :class:`BinaryOp` its kernel code (``MULT_*``, defined here and handed to nvcc by :mod:`lagraph_dist.local.layout`), which
  operands' values it reads, its fixed result type if it has one, and its rule on arrays;
* a :class:`Monoid` its kernel code (``ADD_*``), its identity and terminal value per dtype, its
  MPI reduction and its rule on arrays;
* a :class:`Semiring` derives the rest: its kernel codes, its out dtype for a value type,
  whether a pull may stop at its first hit, and the typed and oriented forms the products run.

Matrices are patterns: in every product a stored entry is the value 1 (true) of the vector's
type, so ``w = u' A`` with ``plus_times`` sums ``u`` over in-edges, ``plus_pair`` counts them.
Vectors hold bool, int32, int64, float32 or float64 values (:data:`VALUE_DTYPES`). A kernel's
multiply reads the vector's value ``x`` with the matrix's 1 as the *right* operand (``vxm``'s
order); ``mxv`` runs the multiply with its operands exchanged (``first`` <-> ``second``).

``any_secondi`` and ``min_secondi`` are positional: the product of ``u[k]`` and ``A[k, j]`` is
the global id ``k``, so the result of a BFS step is a parent.

The singular names ``semiring``, ``monoid`` and ``binary`` are python-graphblas's; as there,
SuiteSparse's positional operators also live under ``.ss`` (``semiring.ss.any_secondi``), so the
same user code runs on both libraries without graphblas's deprecation warning. Iterating
``semirings`` gives the searches' four, whose kernels every backend builds ahead; the valued
ones (``dir(semirings)``) are built on their first use.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from lagraph_dist.core.errors import DomainMismatch

__all__ = [
    "BinaryOp", "Monoid", "Semiring", "binary", "monoids", "semirings", "monoid", "semiring", "VALUE_DTYPES",
    "any_pair", "lor_land", "any_secondi", "min_secondi", "lookup_semiring", "lookup_monoid", "lookup_binary",
    "check_value_dtype",
]

# -- the kernel codes: template arguments of the CUDA kernels, branches of the compiled loops -----
# A multiply's code says what a kernel makes of the vector's value x (the left operand) and a
# matrix entry (the value 1, the right operand): pair 1, land x != 0, secondi the entry's global
# id, first x, second 1, times x * 1, plus x + 1. A monoid's says how two values combine. They
# are defined here, with the operators that carry them; lagraph_dist.local.layout hands them to
# nvcc as -D defines with the other shared numbers.
MULT_PAIR, MULT_LAND, MULT_SECONDI, MULT_FIRST, MULT_SECOND, MULT_TIMES, MULT_PLUS = 0, 1, 2, 3, 4, 5, 6
ADD_ANY, ADD_MIN, ADD_LOR, ADD_PLUS, ADD_MAX, ADD_LAND = 0, 1, 2, 3, 4, 5

INT64_MAX = np.iinfo(np.int64).max
_bool = np.dtype(np.bool_)
_int64 = np.dtype(np.int64)

#: the value types of vectors the algebra computes with
VALUE_DTYPES = tuple(np.dtype(t) for t in (np.bool_, np.int32, np.int64, np.float32, np.float64))


def check_value_dtype(dtype, what="a vector") -> np.dtype:
    """``dtype`` when vectors of it take part in the algebra, else a DomainMismatch."""
    dtype = np.dtype(dtype)
    if dtype not in VALUE_DTYPES:
        raise DomainMismatch(f"{what} of {dtype} values: the algebra takes "
                             f"{', '.join(d.name for d in VALUE_DTYPES)}")
    return dtype


def _largest(dtype):
    dtype = np.dtype(dtype)
    return True if dtype == _bool else np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _smallest(dtype):
    dtype = np.dtype(dtype)
    return False if dtype == _bool else -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


@dataclass(frozen=True)
class BinaryOp:
    """A binary operator. ``code``: the kernels' multiply (None: no semiring multiplies with
    it); ``reads``: which operands' values it reads ("", "left", "right", "both");
    ``positional`` ops read neither and give the left entry's global index; ``out_dtype`` a
    fixed result type (None: the operands'); ``swapped``: the op's name with its operands
    exchanged; ``rule(xp, a, b)`` its values on arrays; ``numeric``: refused on booleans (as
    graphblas refuses ``plus`` on BOOL); ``float_result``: integer operands give float64 (as
    graphblas's ``truediv``)."""

    name: str
    code: int | None = None
    reads: str = "both"
    positional: bool = False
    out_dtype: np.dtype | None = None
    swapped: str | None = None
    rule: Callable | None = field(default=None, compare=False, repr=False)
    numeric: bool = False
    float_result: bool = False

    def __repr__(self):
        return f"binary.{self.name}"

    agreement_text = __repr__     # what collective calls compare between ranks

    @property
    def reads_left_values(self) -> bool:
        return self.reads in ("left", "both")

    def apply_arrays(self, xp, a, b, dtype):
        """The op on arrays (or scalars) ``a`` and ``b``, as ``dtype`` values."""
        if self.rule is None:
            raise DomainMismatch(f"{self!r} does not compute values here (a positional op)")
        return xp.asarray(self.rule(xp, a, b)).astype(dtype, copy=False)


@dataclass(frozen=True)
class Monoid:
    """An associative, commutative operator with identity, as used to combine duplicates.

    ``kind`` names the combine rule once for every backend, ``code`` is the kernels' (ADD_*):
    ``any`` keeps any one value, ``min``/``max`` the smallest/largest, ``lor``/``land`` the
    logical or/and, ``plus`` the sum. :meth:`identity_of` and :meth:`terminal_of` give its
    identity and the value after which more inputs cannot change the result, per dtype (min's
    identity is the dtype's largest value); ``identity`` and ``terminal`` are the int64 ones.
    """

    name: str
    kind: str
    code: int
    mpi_op_name: str          # name of the mpi4py reduction op (MPI.MIN, MPI.LOR, ...)
    identity_rule: Callable = field(compare=False, repr=False)
    terminal_rule: Callable = field(compare=False, repr=False)
    op: BinaryOp = field(compare=False, repr=False)     # the binary form (accumulators, ewise_add)
    boolean: bool = False     # lor, land: the result is bool whatever the operands

    def __repr__(self):
        return f"monoids.{self.name}"

    agreement_text = __repr__

    def mpi_op(self):
        from mpi4py import MPI
        return getattr(MPI, self.mpi_op_name)

    def identity_of(self, dtype):
        return self.identity_rule(np.dtype(dtype))

    def terminal_of(self, dtype):
        return self.terminal_rule(np.dtype(dtype))

    @property
    def identity(self):
        return self.identity_of(_bool if self.boolean else _int64)

    @property
    def terminal(self):
        return self.terminal_of(_bool if self.boolean else _int64)

    def result_dtype(self, dtype) -> np.dtype:
        """The type its results take from operands of ``dtype``."""
        return _bool if self.boolean else np.dtype(dtype)

    def check_dtype(self, dtype, what):
        if self.op.numeric and np.dtype(dtype) == _bool:
            raise DomainMismatch(f"{what}: {self!r} does not take bool values (as in graphblas); "
                                 f"cast to an integer type first")

    def reduce_array(self, xp, values, dtype):
        """The monoid over ``values`` (a host or device array of ``dtype``): a numpy scalar of
        the result type, None when there are none (``any``) and the identity otherwise."""
        dtype = self.result_dtype(dtype)
        if values.shape[0] == 0:
            return None if self.kind == "any" else dtype.type(self.identity_of(dtype))
        reduced = {"plus": lambda v: v.sum(dtype=dtype), "min": lambda v: v.min(), "max": lambda v: v.max(),
                   "lor": lambda v: v.astype(bool).any(), "land": lambda v: v.astype(bool).all(),
                   "any": lambda v: v[0]}[self.kind](values)
        return dtype.type(reduced.item() if hasattr(reduced, "item") else reduced)

    def combine_scalars(self, values, dtype):
        """The monoid over host scalars (the ranks' reductions; None entries are absent)."""
        present = [v for v in values if v is not None]
        if not present:
            return None
        return self.reduce_array(np, np.asarray(present, dtype=self.result_dtype(dtype)), dtype)


@dataclass(frozen=True)
class Semiring:
    """``add`` (a Monoid) over ``multiply`` (a BinaryOp), plus its python-graphblas twin's name.

    Generic over the vector's value type until :meth:`typed` (``dtype``) fixes it; the
    products run :meth:`for_product`'s typed, oriented form, whose ``codes`` the kernels read."""

    name: str
    add: Monoid
    multiply: BinaryOp
    graphblas_name: str
    dtype: np.dtype | None = None      # the value type it is typed for (None: generic)

    def __repr__(self):
        return f"semirings.{self.name}" + ("" if self.dtype is None else f"[{self.dtype}]")

    def agreement_text(self):
        return f"semirings.{self.name}"

    @property
    def reads_values(self) -> bool:
        """Whether the product's values depend on the vector's values (its type matters)."""
        return self.multiply.out_dtype is None and self.multiply.reads != "" and not self.multiply.positional

    def result_dtype(self, value_dtype) -> np.dtype:
        """The out dtype for vectors of ``value_dtype``: a multiply's fixed type (secondi:
        int64, land: bool), a count (pair: bool under any, lor and land, else int64, as in
        python-graphblas), or the value type; lor/land monoids give bool."""
        op = self.multiply
        if op.out_dtype is not None:
            dtype = op.out_dtype
        elif op.reads == "":
            dtype = _bool if self.add.kind in ("any", "lor", "land") else _int64
        else:
            dtype = np.dtype(value_dtype)
        return self.add.result_dtype(dtype)

    @property
    def out_dtype(self) -> np.dtype | None:
        """The out dtype, None while it depends on a value type not fixed yet."""
        if self.reads_values and self.dtype is None:
            return None
        return self.result_dtype(self.dtype)

    @property
    def reads_left_values(self) -> bool:
        return self.multiply.reads_left_values

    @property
    def implicit_values(self) -> bool:
        """Whether every result value is the multiply's constant 1 (pair under a monoid that
        keeps it: not plus, whose sums of ones are counts): then only the pattern travels."""
        return self.multiply.reads == "" and not self.multiply.positional and self.add.kind != "plus"

    @property
    def codes(self) -> tuple[int, int]:
        """(add code, multiply code) of the kernels."""
        return self.add.code, self.multiply.code

    @property
    def first_hit_is_final(self) -> bool:
        """True when a pull (dot product) may stop at the first present input entry.

        Holds for ``any`` monoids, and for ``min`` over positional ops because rows scan their
        inputs in increasing global id. ``lor`` reads values, so a False entry does not stop it.
        """
        return self.add.kind == "any" or (self.add.kind == "min" and self.multiply.positional)

    def typed(self, value_dtype) -> "Semiring":
        """This semiring for vectors of ``value_dtype`` (itself when their type does not
        matter); a DomainMismatch for a type it refuses."""
        return _typed(self, check_value_dtype(value_dtype, f"{self!r} on a vector"))

    def for_product(self, value_dtype, *, vector_left) -> "Semiring":
        """The typed semiring a product's kernels run: with the vector as the multiply's right
        operand (``mxv``), the multiply's operands exchanged, so a kernel always reads the
        vector's value on the left."""
        oriented = self if vector_left or self.multiply.swapped is None else _swapped(self)
        return oriented.typed(value_dtype)


@functools.lru_cache(maxsize=None)
def _typed(semiring, dtype):
    if not semiring.reads_values:
        return semiring
    what = f"{semiring!r} on a vector"
    semiring.add.check_dtype(dtype, what)
    if semiring.multiply.numeric and dtype == _bool:
        raise DomainMismatch(f"{what} of bool values: {semiring.multiply!r} does not take bool values "
                             f"(as in graphblas); cast to an integer type first")
    return replace(semiring, dtype=dtype)


@functools.lru_cache(maxsize=None)
def _swapped(semiring):
    return replace(semiring, multiply=binary_ops[semiring.multiply.swapped])


class _Namespace:
    """A read-only attribute namespace that names what exists when a lookup fails. Iterating
    it gives the entries built ahead (``ahead``; all of them when not given)."""

    def __init__(self, kind, entries, *, ss=None, ahead=None):
        self._kind = kind
        self._entries = dict(entries)
        self._ahead = list(self._entries.values()) if ahead is None else list(ahead)
        if ss is not None:      # python-graphblas's namespace of SuiteSparse-only operators
            self.ss = _Namespace(f"SuiteSparse {kind}", {e.name: e for e in ss})

    def __getattr__(self, name):
        entries = self.__dict__.get("_entries", {})
        if name in entries:
            return entries[name]
        raise AttributeError(f"no {self.__dict__.get('_kind')} named {name!r}; "
                             f"known: {', '.join(sorted(entries))}")

    def __dir__(self):
        return sorted(self._entries) + (["ss"] if "ss" in self.__dict__ else [])

    def __iter__(self):
        return iter(self._ahead)

    def every(self):
        """Every entry (iteration gives only those built ahead)."""
        return list(self._entries.values())

    def _lookup(self, value, kind_class):
        """``value`` if it is a ``kind_class``, the entry it names if it is a name here; anything
        else is a DomainMismatch naming what was given and what exists."""
        if isinstance(value, kind_class):
            return value
        if isinstance(value, str) and value in self._entries:
            return self._entries[value]
        raise DomainMismatch(f"expected a {self._kind} (one of {', '.join(sorted(self._entries))}), "
                             f"got {value!r}")


def _true_divide(xp, a, b):
    """a / b as graphblas's truediv: IEEE results (inf, nan) for a zero divisor, no warning."""
    with np.errstate(divide="ignore", invalid="ignore"):      # (numpy's; CuPy warns of nothing)
        return xp.true_divide(a, b)


# -- binary operators: (name, kernel code, reads, ...) --------------------------------------------
pair = BinaryOp("pair", MULT_PAIR, reads="", swapped="pair", rule=lambda xp, a, b: xp.ones_like(xp.asarray(a)))
land = BinaryOp("land", MULT_LAND, out_dtype=_bool, swapped="land",
                rule=lambda xp, a, b: xp.logical_and(a, b))
secondi = BinaryOp("secondi", MULT_SECONDI, reads="", positional=True, out_dtype=_int64)
first = BinaryOp("first", MULT_FIRST, reads="left", swapped="second", rule=lambda xp, a, b: a + xp.zeros_like(b))
second = BinaryOp("second", MULT_SECOND, reads="right", swapped="first", rule=lambda xp, a, b: b + xp.zeros_like(a))
times = BinaryOp("times", MULT_TIMES, swapped="times", rule=lambda xp, a, b: a * b)
plus_op = BinaryOp("plus", MULT_PLUS, swapped="plus", rule=lambda xp, a, b: a + b, numeric=True)
# the binary forms of the other monoids: accumulators, ewise operators (no semiring multiplies by them)
min_op = BinaryOp("min", rule=lambda xp, a, b: xp.minimum(a, b))
max_op = BinaryOp("max", rule=lambda xp, a, b: xp.maximum(a, b))
lor_op = BinaryOp("lor", out_dtype=_bool, rule=lambda xp, a, b: xp.logical_or(a, b))
any_op = BinaryOp("any", rule=lambda xp, a, b: a + xp.zeros_like(b))
# element-wise only (ewise_mult, apply): what dependency sums and averages need
minus = BinaryOp("minus", rule=lambda xp, a, b: a - b, numeric=True)
truediv = BinaryOp("truediv", rule=_true_divide, numeric=True, float_result=True)
binary_ops = {op.name: op for op in (pair, land, secondi, second, first, times, plus_op, min_op, max_op, lor_op,
                                     any_op, minus, truediv)}

# -- monoids: (name, kind, kernel code, MPI op, identity per dtype, terminal per dtype, binary form)
lor = Monoid("lor", "lor", ADD_LOR, "LOR", lambda d: False, lambda d: True, lor_op, boolean=True)
land_monoid = Monoid("land", "land", ADD_LAND, "LAND", lambda d: True, lambda d: False, land, boolean=True)
any_ = Monoid("any", "any", ADD_ANY, "MAX", lambda d: None, lambda d: None, any_op)
min_ = Monoid("min", "min", ADD_MIN, "MIN", _largest, _smallest, min_op)
max_ = Monoid("max", "max", ADD_MAX, "MAX", _smallest, _largest, max_op)
plus = Monoid("plus", "plus", ADD_PLUS, "SUM", lambda d: d.type(0), lambda d: None, plus_op)

# -- semirings: one line each, (add, multiply); the first four are the searches' ---------------
_AHEAD = ((any_, pair), (lor, land), (any_, secondi), (min_, secondi))
_VALUED = (
    (plus, pair), (plus, first), (plus, second), (plus, times),
    (min_, first), (min_, second), (min_, plus_op),
    (max_, first), (max_, second),
)


def _semiring(add, multiply):
    name = f"{add.name}_{multiply.name}"
    return Semiring(name, add, multiply, name)


_made = {f"{a.name}_{m.name}": _semiring(a, m) for a, m in _AHEAD + _VALUED}
any_pair, lor_land, any_secondi, min_secondi = (_made[f"{a.name}_{m.name}"] for a, m in _AHEAD)

binary = _Namespace("binary operator", binary_ops, ss=(secondi,))
monoids = _Namespace("monoid", {m.name: m for m in (lor, land_monoid, any_, min_, max_, plus)})
semirings = _Namespace("semiring", _made, ss=(any_secondi, min_secondi),
                       ahead=(any_pair, lor_land, any_secondi, min_secondi))
semiring, monoid = semirings, monoids      # python-graphblas's names


def lookup_semiring(semiring) -> Semiring:
    """Accept a Semiring or its name; anything else is a DomainMismatch naming what was given."""
    return semirings._lookup(semiring, Semiring)


def lookup_monoid(monoid) -> Monoid:
    """Accept a Monoid or its name; anything else is a DomainMismatch naming what was given."""
    return monoids._lookup(monoid, Monoid)


def lookup_binary(op) -> BinaryOp:
    """Accept a BinaryOp or its name; anything else is a DomainMismatch naming what was given."""
    return binary._lookup(op, BinaryOp)
