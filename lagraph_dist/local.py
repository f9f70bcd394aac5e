"""Rank-local data: CSR blocks, sparse-vector parts with list and bitmap encodings, and the
backend-generic arithmetic on them (duplicate combining by a monoid, semiring multiply).

A part covers one vertex block of ``length`` ids (a multiple of 32). Its encodings:

* ``"list"``: sorted unique int32 ``ids`` and ``values`` aligned with them;
* ``"bitmap"``: packed uint32 ``words`` (bit l of word l // 32 is id l) and dense ``values``
  of ``length`` slots (slots without a bit are meaningless).

Conversions are explicit (:meth:`LocalPart.to_list`, :meth:`LocalPart.to_bitmap`).
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from lagraph_dist.grid import WORD_BITS

__all__ = ["LocalCSR", "LocalPart", "combine_duplicates", "multiply_values", "prefers_bitmap",
           "forced_wire_encoding"]

_forced_encoding = None


def prefers_bitmap(count, length) -> bool:
    """The encoding rule for parts and messages (Bisson et al. 2015, section 5).

    A list costs 32 bits an entry and a bitmap one bit a slot, so the bitmap is smaller once
    the entries exceed length / 32.
    """
    if _forced_encoding is not None:
        return _forced_encoding == "bitmap"
    return count > length // WORD_BITS


@contextlib.contextmanager
def forced_wire_encoding(encoding):
    """Send every message as "list" or "bitmap" whatever its size (tests and measurements).

    Every rank must force the same encoding: receivers derive it from the entry count.
    """
    global _forced_encoding
    if encoding not in ("list", "bitmap"):
        raise ValueError(f"encoding must be 'list' or 'bitmap', got {encoding!r}")
    previous, _forced_encoding = _forced_encoding, encoding
    try:
        yield
    finally:
        _forced_encoding = previous


@dataclass
class LocalCSR:
    """Compressed rows of a local block: ``indices[indptr[r]:indptr[r+1]]`` are row r's minors."""

    indptr: object    # int64, nmajor + 1
    indices: object   # int32 local ids of the other space, sorted within each row
    nminor: int

    @property
    def nmajor(self) -> int:
        return int(self.indptr.shape[0]) - 1

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    def degrees(self):
        return self.indptr[1:] - self.indptr[:-1]

    def majors(self, xp, start=0, stop=None):
        """The row of every stored entry, or of entries ``start:stop`` (int64), by a search of
        indptr (no repeat with array counts, which not every array module has)."""
        positions = xp.arange(start, self.nnz if stop is None else stop, dtype=np.int64)
        return xp.searchsorted(self.indptr, positions, side="right") - 1


class LocalPart:
    """One rank's piece of a distributed sparse vector (see the module docstring)."""

    def __init__(self, encoding, length, nvals, values, ids=None, words=None):
        self.encoding = encoding
        self.length = length
        self._nvals = nvals
        self.values = values
        self.ids = ids
        self.words = words
        self._count_bits = None
        self._as_list = None         # a bitmap part's list form, made once

    @property
    def nvals(self) -> int:
        if self._nvals is None:          # words changed in place: count them once, now
            self._nvals = self._count_bits(self.words)
        return self._nvals

    def changed_in_place(self, backend):
        """Words or values were written in place: drop what was derived from them; the
        entries are recounted (one popcount) only when ``nvals`` is next read."""
        self._nvals, self._count_bits, self._as_list = None, backend.kernels.popcount, None

    def __repr__(self):
        return f"LocalPart({self.encoding}, length={self.length}, nvals={self._nvals})"

    @classmethod
    def from_list(cls, ids, values, length):
        return cls("list", length, int(ids.shape[0]), values, ids=ids)

    @classmethod
    def empty(cls, length, dtype, backend):
        xp = backend.xp
        return cls.from_list(xp.zeros(0, np.int32), xp.zeros(0, dtype), length)

    @property
    def dtype(self):
        return self.values.dtype

    def to_list(self, backend) -> "LocalPart":
        if self.encoding == "list":
            return self
        if self._as_list is None:
            ids = backend.kernels.list_from_bitmap(self.words, self.nvals)
            self._as_list = LocalPart.from_list(ids, self.values[ids], self.length)
        return self._as_list

    def to_bitmap(self, backend) -> "LocalPart":
        if self.encoding == "bitmap":
            return self
        xp = backend.xp
        dense = xp.zeros(self.length, self.values.dtype)
        dense[self.ids] = self.values
        words = backend.kernels.bitmap_from_list(self.ids, self.length)
        return LocalPart("bitmap", self.length, self.nvals, dense, words=words)

    def to_encoding(self, encoding, backend) -> "LocalPart":
        return self.to_bitmap(backend) if encoding == "bitmap" else self.to_list(backend)

    def astype(self, dtype) -> "LocalPart":
        if self.values.dtype == dtype:
            return self
        return LocalPart(self.encoding, self.length, self.nvals, self.values.astype(dtype),
                         ids=self.ids, words=self.words)


def combine_duplicates(ids, values, monoid, xp):
    """Sorted unique ids, each with its duplicates' values combined by ``monoid``.

    Written once with operations numpy and CuPy share, so both backends merge alike.
    """
    if ids.shape[0] == 0:
        return ids, values
    if monoid.kind == "plus":
        order = xp.argsort(ids, kind="stable")
    elif monoid.kind == "lor":      # True sorts first within an id, so the first is the "or"
        order = xp.lexsort(xp.stack([~values.astype(bool), ids]))
    elif monoid.kind == "min":      # smallest sorts first within an id
        order = xp.lexsort(xp.stack([values, ids]))
    else:                           # any: the first in id order is as good as any other
        order = xp.argsort(ids, kind="stable")
    ids, values = ids[order], values[order]
    starts = xp.ones(ids.shape[0], dtype=bool)
    starts[1:] = ids[1:] != ids[:-1]
    first = xp.nonzero(starts)[0]
    if monoid.kind == "plus":
        sums = xp.cumsum(values)
        ends = xp.concatenate([first[1:], xp.asarray([ids.shape[0]])]) - 1
        totals = sums[ends]
        totals[1:] -= sums[ends[:-1]]
        return ids[first], totals.astype(values.dtype)
    return ids[first], values[first]


def multiply_values(semiring, source_local, left_values, in_map, xp):
    """The semiring's multiply for each contributing (input entry, matrix entry) pair.

    ``source_local`` are the input entries' local ids (in the input space mapped by ``in_map``);
    ``left_values`` their values (read only by value-reading ops such as ``land``).
    """
    op = semiring.multiply
    if op.positional:
        return in_map.to_global(source_local)
    if op.reads_left_values:
        return left_values.astype(op.out_dtype, copy=False)
    return xp.ones(source_local.shape[0], dtype=op.out_dtype)
