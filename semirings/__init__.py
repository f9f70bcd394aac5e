"""Operators of the algebra: binary operators, monoids and semirings.

Like ``graphblas.semiring`` the names are ``{monoid}_{binaryop}``. Each entry is a frozen
dataclass that carries everything a backend needs: the numpy identity and reduction, the MPI
reduction op, and the ``kind`` the CUDA kernels are specialised on. ``any_secondi`` and
``min_secondi`` are positional: the product of ``u[k]`` and ``A[k, j]`` is the global id ``k``,
so the result of a BFS step is a parent.

The singular names ``semiring``, ``monoid`` and ``binary`` are python-graphblas's; as there,
SuiteSparse's positional operators also live under ``.ss`` (``semiring.ss.any_secondi``), so the
same user code runs on both libraries without graphblas's deprecation warning.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lagraph_dist.core.errors import DomainMismatch

__all__ = [
    "BinaryOp", "Monoid", "Semiring", "binary", "monoids", "semirings", "monoid", "semiring",
    "any_pair", "lor_land", "any_secondi", "min_secondi", "lookup_semiring", "lookup_monoid",
]

INT64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True)
class BinaryOp:
    """A multiply operator. ``positional`` ops ignore values and return the left entry's index."""

    name: str
    positional: bool = False
    reads_left_values: bool = False
    out_dtype: np.dtype | None = None   # None: keep the left operand's dtype

    def __repr__(self):
        return f"binary.{self.name}"

    agreement_text = __repr__     # what collective calls compare between ranks


@dataclass(frozen=True)
class Monoid:
    """An associative, commutative operator with identity, as used to combine duplicates.

    ``kind`` names the combine rule once for every backend: ``"any"`` keeps any one value,
    ``"min"`` the smallest, ``"lor"`` their logical or, ``"plus"`` their sum.
    ``terminal`` is the value after which more inputs cannot change the result.
    """

    name: str
    kind: str
    identity: object
    terminal: object
    mpi_op_name: str          # name of the mpi4py reduction op (MPI.MIN, MPI.LOR, ...)

    def __repr__(self):
        return f"monoids.{self.name}"

    agreement_text = __repr__

    def mpi_op(self):
        from mpi4py import MPI
        return getattr(MPI, self.mpi_op_name)


@dataclass(frozen=True)
class Semiring:
    """``add`` (a Monoid) over ``multiply`` (a BinaryOp), plus its python-graphblas twin's name."""

    name: str
    add: Monoid
    multiply: BinaryOp
    graphblas_name: str

    def __repr__(self):
        return f"semirings.{self.name}"

    agreement_text = __repr__

    @property
    def out_dtype(self) -> np.dtype:
        return self.multiply.out_dtype

    @property
    def reads_left_values(self) -> bool:
        return self.multiply.reads_left_values

    @property
    def first_hit_is_final(self) -> bool:
        """True when a pull (dot product) may stop at the first present input entry.

        Holds for ``any`` monoids, and for ``min`` over positional ops because rows scan their
        inputs in increasing global id. ``lor`` reads values, so a False entry does not stop it.
        """
        return self.add.kind == "any" or (self.add.kind == "min" and self.multiply.positional)


class _Namespace:
    """A read-only attribute namespace that names what exists when a lookup fails."""

    def __init__(self, kind, entries, *, ss=None):
        self._kind = kind
        self._entries = dict(entries)
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
        return iter(self._entries.values())

    def _lookup(self, value, kind_class):
        """``value`` if it is a ``kind_class``, the entry it names if it is a name here; anything
        else is a DomainMismatch naming what was given and what exists."""
        if isinstance(value, kind_class):
            return value
        if isinstance(value, str) and value in self._entries:
            return self._entries[value]
        raise DomainMismatch(f"expected a {self._kind} (one of {', '.join(sorted(self._entries))}), "
                             f"got {value!r}")


_bool = np.dtype(np.bool_)
_int64 = np.dtype(np.int64)

pair = BinaryOp("pair", out_dtype=_bool)
land = BinaryOp("land", reads_left_values=True, out_dtype=_bool)
secondi = BinaryOp("secondi", positional=True, out_dtype=_int64)
second = BinaryOp("second")          # apply(u, second, right=s): every value becomes s
first = BinaryOp("first")
# the binary forms of the monoids: accumulators and ewise_add operators in the grammar
min_op, plus_op, lor_op, any_op = (BinaryOp(name) for name in ("min", "plus", "lor", "any"))

# Monoids are dtype-generic: the result keeps the operands' dtype (a semiring's is its multiply's).
# ``kind`` is also what the CUDA kernels are specialised on (kernels/common.cuh, ld_combine)
lor = Monoid("lor", "lor", False, True, "LOR")
any_ = Monoid("any", "any", None, None, "MAX")
min_ = Monoid("min", "min", INT64_MAX, None, "MIN")
plus = Monoid("plus", "plus", 0, None, "SUM")

any_pair = Semiring("any_pair", any_, pair, "any_pair")
lor_land = Semiring("lor_land", lor, land, "lor_land")
any_secondi = Semiring("any_secondi", any_, secondi, "any_secondi")
min_secondi = Semiring("min_secondi", min_, secondi, "min_secondi")

binary = _Namespace("binary operator",
                    {op.name: op for op in (pair, land, secondi, second, first, min_op, plus_op,
                                            lor_op, any_op)}, ss=(secondi,))
monoids = _Namespace("monoid", {m.name: m for m in (lor, any_, min_, plus)})
semirings = _Namespace("semiring", {s.name: s for s in (any_pair, lor_land, any_secondi, min_secondi)},
                       ss=(any_secondi, min_secondi))
semiring, monoid = semirings, monoids      # python-graphblas's names


def lookup_semiring(semiring) -> Semiring:
    """Accept a Semiring or its name; anything else is a DomainMismatch naming what was given."""
    return semirings._lookup(semiring, Semiring)


def lookup_monoid(monoid) -> Monoid:
    """Accept a Monoid or its name; anything else is a DomainMismatch naming what was given."""
    return monoids._lookup(monoid, Monoid)
