"""Rank-local data: CSR blocks, sparse-vector parts with list and bitmap encodings, and the
backend-generic arithmetic on them (duplicate combining by a monoid, semiring multiply).

A part covers one vertex block of ``length`` ids (a multiple of 32). Its encodings:

* ``"list"``: unique int32 ``ids`` (increasing unless ``ids_sorted`` is False, as in a kernel's
  output queue) and ``values`` aligned with them;
* ``"bitmap"``: packed uint32 ``words`` (bit l of word l // 32 is id l) and dense ``values``
  of ``length`` slots (slots without a bit are meaningless).

Conversions are explicit (:meth:`LocalPart.to_list`, :meth:`LocalPart.to_bitmap`).

On the CPU a block is built from its edges by :func:`csr_from_edges`: compiled counting sorts
(scipy's own CSR build is one, by row, whose rows it then sorts).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np
from numba import prange

from lagraph_dist.local import compile_notice

compile_notice.install()      # the first compile of a fresh install says so on stderr

__all__ = ["LocalCSR", "LocalPart", "combine_duplicates", "multiply_values", "csr_from_edges", "csr_by_counting",
           "sorted_runs"]


@dataclass
class LocalCSR:
    """Compressed rows of a local block: ``indices[indptr[r]:indptr[r+1]]`` are row r's minors."""

    indptr: object    # int64, nmajor + 1
    indices: object   # int32 local ids of the other space, sorted within each row
    nminor: int
    #: what a backend's kernels derive from the block once and keep with it (the CPU pull's
    #: bitmap of rows without entries); a block is never changed in place
    derived: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def nmajor(self) -> int:
        return int(self.indptr.shape[0]) - 1

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])

    def degrees(self):
        return self.indptr[1:] - self.indptr[:-1]

    def majors(self, xp, start=0, stop=None):
        """The row of every stored entry, or of entries ``start:stop`` (int64): the slice's
        first row found by one search of indptr, then a running count of the rows that start
        inside the slice (empty rows share a start: each place gets its number of rows). No
        bincount over the slice's entries: CuPy's (CUB's histogram) takes tens of bytes of
        scratch a bin."""
        stop = self.nnz if stop is None else stop
        if stop <= start:
            return xp.zeros(0, dtype=np.int64)
        first, last = (int(r) for r in _host(xp.searchsorted(self.indptr, xp.asarray([start, stop - 1]),
                                                             side="right") - 1))
        places, rows_there = sorted_runs(self.indptr[first + 1:last + 1] - start, xp)
        steps = xp.zeros(stop - start, dtype=np.int64)
        steps[places] = rows_there
        rows = xp.cumsum(steps)
        rows += first
        return rows


def sorted_runs(values, xp):
    """(distinct values, how many times each occurs) of a sorted array, in order: a count by
    value in time and memory of the array's length, not of the values' range."""
    count = int(values.shape[0])
    if count == 0:
        return values, xp.zeros(0, dtype=np.int64)
    begins = xp.ones(count, dtype=bool)
    begins[1:] = values[1:] != values[:-1]
    begins = xp.flatnonzero(begins)
    lengths = xp.empty(begins.shape[0], dtype=np.int64)
    lengths[:-1] = begins[1:] - begins[:-1]
    lengths[-1:] = count - begins[-1:]
    return values[begins], lengths


def _host(array):
    """A small index array on the host, from numpy or CuPy (``get`` is CuPy's copy back)."""
    return array.get() if hasattr(array, "get") else array


class LocalPart:
    """One rank's piece of a distributed sparse vector (see the module docstring).

    A bitmap part may also know its entries as a list (``ids``, in any order): the product
    kernels append what they find to a queue, so their outputs are in both encodings at once
    and neither conversion costs a launch. A list part's ``values`` may be a gather from a
    dense array made only when first read (a positional product never reads them).
    """

    # (slots: a search makes a few parts a level, and a call's host time is counted in microseconds)
    __slots__ = ("encoding", "length", "_nvals", "_values", "ids", "words", "ids_sorted", "_count_bits", "_as_list",
                 "_gather")

    def __init__(self, encoding, length, nvals, values, ids=None, words=None, *, ids_sorted=True):
        self.encoding = encoding
        self.length = length
        self._nvals = nvals
        self._values = values
        self.ids = ids
        self.words = words
        self.ids_sorted = ids_sorted
        self._count_bits = None
        self._as_list = None         # a bitmap part's list form, made once
        self._gather = None          # (dense values, ids): this list part's values, on demand

    @property
    def values(self):
        if self._values is None and self._gather is not None:
            dense, ids = self._gather
            self._values, self._gather = dense[ids], None
        return self._values

    @values.setter
    def values(self, values):
        self._values, self._gather = values, None

    @property
    def nvals(self) -> int:
        if self._nvals is None:          # words changed in place: count them once, now
            self._nvals = self._count_bits(self.words)
        return self._nvals

    def set_found(self, count):
        """A kernel output's entry count, once read: its queue's first ``count`` slots."""
        self._nvals = count
        if self.ids is not None:
            self.ids = self.ids[:count]

    def changed_in_place(self, backend):
        """Words or values were written in place: drop what was derived from them; the
        entries are recounted (one popcount) only when ``nvals`` is next read."""
        self._nvals, self._count_bits, self._as_list, self.ids = None, backend.kernels.popcount, None, None

    def started_in_place(self, count):
        """A bitmap part written in place to hold ``count`` entries (a search's start, made by
        the kernel that runs it): nothing derived from what it held before stays."""
        self._nvals, self._count_bits, self._as_list, self.ids = count, None, None, None

    def grew_in_place(self, added):
        """``added`` new entries were set in place (none was there before): the count stays known
        when it was; the list form is dropped."""
        self._as_list, self.ids = None, None
        if self._nvals is not None:
            self._nvals += added

    def __repr__(self):
        return f"LocalPart({self.encoding}, length={self.length}, nvals={self._nvals})"

    @classmethod
    def from_list(cls, ids, values, length, *, ids_sorted=True):
        return cls("list", length, int(ids.shape[0]), values, ids=ids, ids_sorted=ids_sorted)

    @classmethod
    def gathered_list(cls, ids, dense, length, *, ids_sorted):
        """A list part of ``ids`` whose values are ``dense[ids]``, gathered when first read."""
        part = cls("list", length, int(ids.shape[0]), None, ids=ids, ids_sorted=ids_sorted)
        part._gather = (dense, ids)
        return part

    @classmethod
    def empty(cls, length, dtype, backend):
        xp = backend.xp
        return cls.from_list(xp.zeros(0, np.int32), xp.zeros(0, dtype), length)

    @property
    def dtype(self):
        if self._values is None and self._gather is not None:
            return self._gather[0].dtype
        return self.values.dtype

    def to_list(self, backend) -> "LocalPart":
        if self.encoding == "list":
            return self
        if self._as_list is None:
            if self.ids is not None:         # the kernel's queue: no conversion needed
                self._as_list = LocalPart.gathered_list(self.ids, self.values, self.length,
                                                        ids_sorted=self.ids_sorted)
            else:
                ids = backend.kernels.list_from_bitmap(self.words, self.nvals)
                self._as_list = LocalPart.gathered_list(ids, self.values, self.length, ids_sorted=True)
        return self._as_list

    def sorted_list(self, backend) -> "LocalPart":
        """The list form with ids in increasing order (sorted once, when a kernel queue is not)."""
        part = self.to_list(backend)
        if part.ids_sorted:
            return part
        order = backend.xp.argsort(part.ids)
        return LocalPart.from_list(part.ids[order], part.values[order], part.length)

    def to_bitmap(self, backend) -> "LocalPart":
        if self.encoding == "bitmap":
            return self
        xp = backend.xp
        dense = xp.zeros(self.length, self.dtype)
        dense[self.ids] = self.values
        words = backend.kernels.bitmap_from_list(self.ids, self.length)
        return LocalPart("bitmap", self.length, self.nvals, dense, words=words, ids=self.ids,
                         ids_sorted=self.ids_sorted)

    def dense(self, fill, dtype, backend):
        """The part as one backend array of ``length`` values of ``dtype``, ``fill`` where there
        is no entry: its listed entries' values scattered into place (a search's outputs know
        their ids; a bitmap's list form, once made, is kept), else a bitmap's values kept where
        its bit is set; no sort."""
        xp = backend.xp
        if self.encoding == "bitmap" and self.ids is None and self._as_list is None:
            # bit i of word w is id 32 w + i: the words' bytes in order, each read low bit first
            present = xp.unpackbits(self.words.view(xp.uint8), bitorder="little")[:self.length]
            return xp.where(present.astype(bool), self.values, fill).astype(dtype, copy=False)
        listed = self.to_list(backend)        # a bitmap that knows its ids: their values, no conversion
        dense = xp.full(self.length, fill, dtype=dtype)
        dense[listed.ids] = listed.values
        return dense

    def converted(self, convert, values=None) -> "LocalPart":
        """The same entries, each of this part's arrays replaced by ``convert(array)`` (a copy of
        it, or the array on another backend); with ``values``, those as the values instead."""
        def each(array):
            return None if array is None else convert(array)
        return LocalPart(self.encoding, self.length, self.nvals, each(self.values) if values is None else values,
                         ids=each(self.ids), words=each(self.words), ids_sorted=self.ids_sorted)

    def copy(self, values=None) -> "LocalPart":
        """The same entries sharing no array with this part (with ``values``: those instead)."""
        return self.converted(lambda array: array.copy(), values)

    def to_encoding(self, encoding, backend) -> "LocalPart":
        return self.to_bitmap(backend) if encoding == "bitmap" else self.to_list(backend)

    def astype(self, dtype) -> "LocalPart":
        if self.dtype == dtype:
            return self
        return LocalPart(self.encoding, self.length, self._nvals, self.values.astype(dtype),
                         ids=self.ids, words=self.words, ids_sorted=self.ids_sorted)


def combine_duplicates(ids, values, monoid, xp):
    """Sorted unique ids, each with its duplicates' values combined by ``monoid``.

    Written once with operations numpy and CuPy share, so both backends merge alike: the
    order monoids (min, max, lor, land) sort the value that wins first within its id; plus
    sums integers by a scan and floats by adding each id's k-th duplicate in turn (exact, and
    in the order given: ewise_add has two at most).
    """
    if ids.shape[0] == 0:
        return ids, values
    kind = monoid.kind
    if kind == "lor":               # True sorts first within an id, so the first is the "or"
        order = xp.lexsort(xp.stack([~values.astype(bool), ids]))
    elif kind == "land":            # False sorts first: the first is the "and"
        order = xp.lexsort(xp.stack([values.astype(bool), ids]))
    elif kind in ("min", "max"):    # smallest (largest) sorts first (last) within an id
        order = xp.lexsort(xp.stack([values, ids]))
    else:                           # any, plus: the first in id order is as good as any other
        order = xp.argsort(ids, kind="stable")
    ids, values = ids[order], values[order]
    starts = xp.ones(ids.shape[0], dtype=bool)
    starts[1:] = ids[1:] != ids[:-1]
    first = xp.nonzero(starts)[0]
    ends = xp.concatenate([first[1:], xp.asarray([ids.shape[0]])]) - 1
    if kind == "max":
        return ids[first], values[ends]
    if kind == "plus" and values.dtype.kind == "f":
        return ids[first], _sum_runs(values, starts, first, xp)
    if kind == "plus":
        sums = xp.cumsum(values)
        totals = sums[ends]
        totals[1:] -= sums[ends[:-1]]
        return ids[first], totals.astype(values.dtype)
    return ids[first], values[first]


def _sum_runs(values, starts, first, xp):
    """The sums of the runs of equal ids (``starts`` marks each run's first slot) in floating
    point: each run's k-th value added in turn, k = 1, 2, ... (runs are short)."""
    run = xp.cumsum(starts) - 1
    rank = xp.arange(values.shape[0]) - first[run]
    totals = values[first].copy()
    k = 1
    while True:
        at = xp.nonzero(rank == k)[0]
        if at.shape[0] == 0:
            return totals
        totals[run[at]] += values[at]
        k += 1


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


# -- a block from its edges, on the CPU -------------------------------------------------------
#: rows of at most this many entries are sorted by insertion (a call of numpy's sort costs more)
_SHORT_ROW = 16
#: with more entries a row than this on average, the rows are not sorted one by one: a counting
#: sort by minor, then one by major, leaves each row's minors in order (a row's sort costs
#: log(its entries) an entry, the second counting pass a constant)
_SORTED_BY_TWO_PASSES = 8


#: entries whose rows :func:`csr_by_counting` sorts and merges at once (their int64 keys and
#: rows and the sort's scratch: under 48 bytes each, 1.5 GiB at this many)
ROW_RANGE_ENTRIES = 1 << 25


def csr_by_counting(make_chunks, nmajor, nminor, xp, *, both=False, range_entries=ROW_RANGE_ENTRIES):
    """The CSR (duplicates merged, each row's minors sorted) of the edges ``major -> minor`` of
    the chunks of ``make_chunks()``, and with ``both`` (a square block) of the reverse edges
    too, in array operations of either backend (``xp``), streaming: ``make_chunks`` is called
    twice (a generator's chunks are made again rather than held), once to count the rows'
    entries and once to put each entry in its row (a chunk sorted by row: an entry's slot is its
    row's next free one plus its rank among the chunk's entries of that row); then the rows are
    sorted and their duplicates merged a range of about ``range_entries`` entries at a time, each
    range's result written down over the slots merged away. Beside the int32 minors (the merged
    duplicates' tail stays allocated: trimming would copy the rest) it holds two int64 arrays a
    row and one chunk's or one range's temporaries (one H200, scale 28: 41.5 GiB for a 33.6 GiB
    graph, 1.24x, when a third and a fourth row array were made on the way)."""
    # two arrays a row, each allocated once (a freed one stays in CuPy's pool): ``rows_at``
    # holds the rows' counts, then their next free slots, then the entries each row keeps
    rows_at = xp.zeros(nmajor + 1, dtype=np.int64)
    for majors, _ in _directions(make_chunks(), both):
        rows, entries = sorted_runs(xp.sort(majors), xp)
        rows_at[rows + 1] += entries
    offsets = xp.cumsum(rows_at)
    indices = xp.empty(int(offsets[-1]), dtype=np.int32)
    fill = rows_at[:-1]
    fill[...] = offsets[:-1]
    for majors, minors in _directions(make_chunks(), both):
        order = xp.argsort(majors)
        rows, entries = sorted_runs(majors[order], xp)
        indices[_slots(fill[rows], entries, xp)] = minors[order].astype(np.int32)
        fill[rows] += entries
        del order
    kept = fill
    kept[...] = 0
    placed, written = LocalCSR(offsets, indices, nminor), 0
    for start, stop in _row_ranges(offsets, range_entries, xp):
        keys = placed.majors(xp, start, stop)
        keys *= nminor
        keys += indices[start:stop]
        keys.sort()
        fresh = xp.ones(keys.shape[0], dtype=bool)
        fresh[1:] = keys[1:] != keys[:-1]
        keys = keys[fresh]
        indices[written:written + keys.shape[0]] = (keys % nminor).astype(np.int32)
        rows, entries = sorted_runs(keys // nminor, xp)
        kept[rows] = entries
        written += int(keys.shape[0])
        del keys, fresh
    xp.cumsum(kept, out=offsets[1:])             # (in place: no third array a row at the end)
    return LocalCSR(offsets, indices[:written], nminor)


def _directions(chunks, both):
    """(majors, minors) of each chunk, and of its reverse edges with ``both``."""
    for majors, minors in chunks:
        yield majors, minors
        if both:
            yield minors, majors


def _slots(first, entries, xp):
    """The slots ``first[r], first[r] + 1, ...`` (``entries[r]`` of them) of run after run r, in
    order: a running sum of each run's step from the last slot of the run before it."""
    count = int(entries.sum())
    steps = xp.ones(count, dtype=np.int64)
    begins = xp.cumsum(entries) - entries
    steps[begins] = first
    steps[begins[1:]] -= first[:-1] + entries[:-1] - 1
    return xp.cumsum(steps)


def _row_ranges(offsets, entries, xp):
    """(start, stop) entry bounds of consecutive ranges of whole rows, each of about
    ``entries`` entries (a longer row is a range of its own)."""
    total = int(offsets[-1])
    targets = xp.arange(entries, total, entries, dtype=np.int64)
    bounds = _host(offsets[xp.searchsorted(offsets, targets, side="left")]).tolist()
    edges = sorted({0, total, *bounds})
    return list(zip(edges[:-1], edges[1:]))


@numba.njit(cache=True)
def _count_rows(src, dst, both, counts):
    """counts[1 + r] += the entries of row r among the edges src -> dst (and dst -> src)."""
    for k in range(src.shape[0]):
        counts[np.int64(src[k]) + 1] += 1
        if both:
            counts[np.int64(dst[k]) + 1] += 1


@numba.njit(cache=True)
def _scatter(src, dst, both, fill, indices):
    """Each edge's minor into its row's next free slot (``fill``: the next slot of each row)."""
    for k in range(src.shape[0]):
        s, d = np.int64(src[k]), np.int64(dst[k])
        indices[fill[s]] = d
        fill[s] += 1
        if both:
            indices[fill[d]] = s
            fill[d] += 1


@numba.njit(cache=True)
def _transpose_into(by_minor, majors, fill, indices):
    """Minor by minor, in increasing order, each entry into its row's next free slot: every
    row's minors come out sorted."""
    for c in range(by_minor.shape[0] - 1):
        for k in range(by_minor[c], by_minor[c + 1]):
            r = majors[k]
            indices[fill[r]] = c
            fill[r] += 1


@numba.njit(cache=True, parallel=True)
def _merge_sorted_rows(indptr, indices, kept):
    """Merges each sorted row's duplicates to the row's front; ``kept[r]``: how many stay."""
    for r in prange(indptr.shape[0] - 1):
        kept[r] = _merge_row(indices, indptr[r], indptr[r + 1])


@numba.njit(cache=True, inline="always")
def _merge_row(indices, start, stop):
    if stop - start < 2:
        return stop - start
    last = start
    for k in range(start + 1, stop):
        if indices[k] != indices[last]:
            last += 1
            indices[last] = indices[k]
    return last - start + 1


@numba.njit(cache=True, parallel=True)
def _sort_and_merge_rows(indptr, indices, kept):
    """Sorts each row's minors and merges its duplicates to the row's front; ``kept[r]``: how
    many stay."""
    for r in prange(indptr.shape[0] - 1):
        start, stop = indptr[r], indptr[r + 1]
        if stop - start < 2:
            kept[r] = stop - start
            continue
        if stop - start <= _SHORT_ROW:
            for k in range(start + 1, stop):
                x = indices[k]
                j = k - 1
                while j >= start and indices[j] > x:
                    indices[j + 1] = indices[j]
                    j -= 1
                indices[j + 1] = x
        else:
            indices[start:stop].sort()
        kept[r] = _merge_row(indices, start, stop)


@numba.njit(cache=True)
def _close_gaps(indptr, indices, kept, merged):
    """Moves each row's kept minors to follow the rows before it; ``merged`` gets the new
    offsets."""
    merged[0] = 0
    for r in range(indptr.shape[0] - 1):
        at, start = merged[r], indptr[r]
        if at != start:
            for k in range(kept[r]):
                indices[at + k] = indices[start + k]
        merged[r + 1] = at + kept[r]


def csr_from_edges(chunks, nmajor, nminor, *, both=False):
    """The CSR (duplicates merged, each row's minors sorted) of the edges ``major -> minor`` of
    ``chunks``, a list of (majors, minors) integer arrays of local ids, and with ``both`` (a
    square block) of the reverse edges too. Compiled: the rows' entries counted, then each entry
    put in its row and each row sorted on all cores, or (more than _SORTED_BY_TWO_PASSES entries
    a row on average) each put in its minor's group first and the groups read in order into the
    rows; the rows' duplicates merged on all cores. The int32 minors are allocated once (their
    merged duplicates' tail stays allocated: trimming would copy the rest)."""
    counts = np.zeros(nmajor + 1, dtype=np.int64)
    for majors, minors in chunks:
        _count_rows(majors, minors, both, counts)
    total = int(counts.sum())
    kept = np.empty(nmajor, dtype=np.int64)
    if total > _SORTED_BY_TWO_PASSES * nmajor:
        by_minor = counts.copy() if both else np.zeros(nminor + 1, dtype=np.int64)
        if not both:
            for majors, minors in chunks:
                _count_rows(minors, majors, False, by_minor)
        np.cumsum(by_minor, out=by_minor)
        grouped, fill = np.empty(total, dtype=np.int32), by_minor[:-1].copy()
        for majors, minors in chunks:
            _scatter(minors, majors, both, fill, grouped)        # each major into its minor's group
        np.cumsum(counts, out=counts)
        indices, fill = np.empty(total, dtype=np.int32), counts[:-1].copy()
        _transpose_into(by_minor, grouped, fill, indices)
        del grouped, fill
        _merge_sorted_rows(counts, indices, kept)
    else:
        np.cumsum(counts, out=counts)
        indices, fill = np.empty(total, dtype=np.int32), counts[:-1].copy()
        for majors, minors in chunks:
            _scatter(majors, minors, both, fill, indices)
        del fill
        _sort_and_merge_rows(counts, indices, kept)
    if int(kept.sum()) == indices.shape[0]:
        return LocalCSR(counts, indices, nminor)
    merged = np.empty(nmajor + 1, dtype=np.int64)
    _close_gaps(counts, indices, kept, merged)
    return LocalCSR(merged, indices[:int(merged[-1])], nminor)


def warm_up():
    """Compile (or load from numba's cache) the build's loops, both ways of sorting the rows, for
    the id types the constructors pass."""
    for dtype in (np.int64, np.int32):
        ids = np.arange(40, dtype=dtype) % 2
        for edges in (3, 40):                        # few entries a row, then many
            for both in (False, True):
                csr_from_edges([(ids[:edges], ids[::-1][:edges].copy())], 2, 2, both=both)
