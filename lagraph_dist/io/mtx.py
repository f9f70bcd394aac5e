"""Matrix Market coordinate files: read them as edge lists, write pattern files.

Entry ``(i, j)`` of a file is the edge ``i -> j``; values are checked but dropped, so every stored
entry (an explicit zero too) is an edge.  Symmetric, skew-symmetric and (real or integer)
hermitian files store each off-diagonal edge once and it is returned in both directions.

The LAGraph extension line ``%%GraphBLAS type T`` (directly after the banner) is honoured the way
LAGraph does: values must parse as, and fit in, ``T``; ``float``/``double`` values are read as
reals even when the banner says ``integer``; unsigned and ``bool`` types cannot be skew-symmetric.

The data section is parsed by compiled loops (numba), its lines cut into chunks parsed on all
cores; a file they do not read as plain tokens (values such as ``inf``, integers past int64) goes
through ``numpy.loadtxt``.  Only when that pass fails too does a line-by-line pass run, to name
the offending line; line numbers for checks made on the parsed arrays (bounds, duplicates, ...)
are recovered the same lazy way.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import warnings
import zlib
from dataclasses import dataclass, replace

import numba
import numpy as np
from numba import prange

from lagraph_dist.core.errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidValue,
    MatrixMarketError,
    open_file,
)
from lagraph_dist.core.text import plural

__all__ = ["MtxGraph", "read_mtx", "write_mtx"]

_BANNER = "%%matrixmarket"
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
_FIELDS = ("pattern", "integer", "real")
_MIRRORED = ("symmetric", "skew-symmetric", "hermitian")

# Inclusive value bounds of the integer GraphBLAS types; None means "any float".
_GB_TYPES = {
    "bool": (0, 1),
    "int8_t": (-(2**7), 2**7 - 1),
    "int16_t": (-(2**15), 2**15 - 1),
    "int32_t": (-(2**31), 2**31 - 1),
    "int64_t": (-(2**63), 2**63 - 1),
    "uint8_t": (0, 2**8 - 1),
    "uint16_t": (0, 2**16 - 1),
    "uint32_t": (0, 2**32 - 1),
    "uint64_t": (0, 2**64 - 1),
    "float": None,
    "double": None,
}
_GB_COMPLEX = ("float complex", "double complex")
_GB_UNSIGNED = ("bool", "uint8_t", "uint16_t", "uint32_t", "uint64_t")

_WRITE_CHUNK = 1 << 20  # lines formatted per batch: bounds the byte table to ~40 MB

_INT_TOKEN = re.compile(r"[+-]?[0-9]+")
_COMMENT = re.compile(r"%[^\n]*")


@dataclass(frozen=True, eq=False)
class MtxGraph:
    """The edges stored in a Matrix Market coordinate file.

    Attributes
    ----------
    nrows, ncols : int
        Matrix dimensions from the size line.
    src, dst : numpy.ndarray
        int64, 0-based; edge ``k`` is ``src[k] -> dst[k]``.  Stored entries come first, then the
        mirrored off-diagonal entries of symmetric kinds.  Duplicates and self-loops are kept.
    symmetry : str
        ``'general'``, ``'symmetric'``, ``'skew-symmetric'`` or ``'hermitian'``.
    field : str
        ``'pattern'``, ``'integer'`` or ``'real'``.
    declared_entries : int
        The entry count of the size line (stored entries, before mirroring).
    """

    nrows: int
    ncols: int
    src: np.ndarray
    dst: np.ndarray
    symmetry: str
    field: str
    declared_entries: int

    @property
    def nedges(self) -> int:
        """Number of edges, mirrored ones included."""
        return int(self.src.shape[0])


@dataclass(frozen=True)
class _Header:
    """What the lines before the data section say."""

    field: str
    symmetry: str
    gb_type: str | None
    nrows: int
    ncols: int
    nentries: int
    body_start: int  # character offset of the first data line
    body_line: int  # 1-based line number of the first data line


@dataclass(frozen=True)
class _Entries:
    """Stored entries as parsed, 1-based, before any check."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray | None


class _Source:
    """The file's name and data section, and the line number of each entry when needed."""

    def __init__(self, path: str, body: str, body_line: int, last_line: int):
        self.path = path
        self.body = body
        self.body_line = body_line
        self.last_line = last_line
        self._entry_lines = None

    def error(self, line: int, what: str) -> MatrixMarketError:
        return MatrixMarketError(f"{self.path}:{line}: {what}")

    def entry_line(self, k: int) -> int:
        """1-based file line of stored entry ``k`` (0-based)."""
        if self._entry_lines is None:
            self._entry_lines = _data_line_numbers(self.body, self.body_line)
        return int(self._entry_lines[k])


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------


def read_mtx(path, *, allow_duplicates: bool = False) -> MtxGraph:
    """Read a Matrix Market coordinate file as a directed edge list.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.mtx`` file, or a gzip-compressed one (``.mtx.gz``).
    allow_duplicates : bool, optional
        By default an entry stored twice (for symmetric kinds: ``(i, j)`` and ``(j, i)`` both
        stored, or one of them twice) is an error, as the format forbids it.  When true they are
        kept as parallel edges.

    Returns
    -------
    MtxGraph

    Raises
    ------
    MissingFile
        The file does not exist (a ``FileNotFoundError`` too).
    FileAccessDenied
        It may not be read (a ``PermissionError`` too).
    FileError
        It cannot be read for another reason, such as being a directory (an ``OSError`` too).
    DomainMismatch
        ``path`` is not a str or os.PathLike.
    MatrixMarketError
        The file is malformed, truncated, or of a kind not read here (``array`` format,
        ``complex`` field); the message names the file and line.
    """
    graph, mirrored = read_stored_entries(path, allow_duplicates=allow_duplicates)
    if not mirrored:
        return graph
    off = graph.src != graph.dst
    return replace(graph, src=np.concatenate([graph.src, graph.dst[off]]),
                   dst=np.concatenate([graph.dst, graph.src[off]]))


def read_stored_entries(path, *, allow_duplicates: bool = False) -> tuple[MtxGraph, bool]:
    """:func:`read_mtx`'s checks and result, but with the entries as the file stores them:
    (the graph, whether each off-diagonal entry stands for both directions: symmetric,
    skew-symmetric and hermitian files). A builder that adds the reverse edges itself (and
    merges a diagonal entry's two copies) then needs no mirrored copy."""
    path = _file_name(path)
    text = _read_text(path)
    header = _parse_header(path, text)
    body = _strip_comments(text[header.body_start :])
    last_line = text.count("\n") + (0 if text.endswith("\n") else 1)
    source = _Source(path, body, header.body_line, last_line)
    entries = _parse_entries(source, header)
    _check_entries(source, header, entries, allow_duplicates)
    graph = MtxGraph(nrows=header.nrows, ncols=header.ncols, src=entries.rows - 1, dst=entries.cols - 1,
                     symmetry=header.symmetry, field=header.field, declared_entries=header.nentries)
    return graph, header.symmetry in _MIRRORED


_GZIP_MAGIC = b"\x1f\x8b"


def _read_text(path: str) -> str:
    """The file's text; gzip-compressed files (known by their magic bytes) are decompressed.

    latin-1 never fails to decode; stray bytes in data lines then fail to parse, with a line.
    """
    doing = f"read Matrix Market file {path}"
    with open_file(path, "rb", doing=doing) as handle:
        compressed = handle.read(2) == _GZIP_MAGIC
    if not compressed:
        with open_file(path, encoding="latin-1", doing=doing) as handle:
            return handle.read()
    try:
        with open_file(path, "rt", encoding="latin-1", opener=gzip.open, doing=doing) as handle:
            return handle.read()
    except (OSError, EOFError, zlib.error) as exc:     # corrupt or truncated compressed data
        raise MatrixMarketError(f"{path}: cannot decompress the gzip file ({exc})") from exc


def _file_name(path) -> str:
    """``path`` (a str or os.PathLike) as a str."""
    name = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(name, str):
        raise DomainMismatch(f"a Matrix Market file name must be a str or os.PathLike, got "
                             f"{type(path).__name__} {path!r}")
    return name


def _strip_comments(body: str) -> str:
    """Blank out ``%`` comments, keeping every newline so line numbers stay right."""
    return _COMMENT.sub("", body) if "%" in body else body


def _parse_header(path: str, text: str) -> _Header:
    """Read the banner, the optional ``%%GraphBLAS type`` line and the size line."""
    pos, lineno = 0, 0
    gb_type = None
    banner = None
    while pos < len(text) or lineno == 0:
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line, pos, lineno = text[pos:end], end + 1, lineno + 1
        if lineno == 1:
            banner = _parse_banner(path, line)
            continue
        stripped = line.strip()
        if stripped.startswith("%"):
            if lineno == 2 and stripped.lower().startswith("%%graphblas type"):
                gb_type = _parse_gb_type(path, lineno, stripped, banner[1])
            continue
        if not stripped:
            continue
        nrows, ncols, nentries = _parse_size_line(path, lineno, stripped, banner[1])
        return _Header(banner[0], banner[1], gb_type, nrows, ncols, nentries, pos, lineno + 1)
    raise MatrixMarketError(f"{path}:{lineno}: file ends before the size line")


def _parse_banner(path: str, line: str) -> tuple[str, str]:
    """Check ``%%MatrixMarket matrix coordinate FIELD SYMMETRY``; return (field, symmetry)."""

    def fail(what):
        return MatrixMarketError(f"{path}:1: {what}")

    words = line.split()
    if not words or words[0].lower() != _BANNER:
        raise fail(f"missing '%%MatrixMarket' banner (line starts {line[:40]!r})")
    if len(words) != 5:
        raise fail(f"banner needs 4 words after %%MatrixMarket, got {len(words) - 1}: {line.strip()!r}")
    obj, fmt, field, symmetry = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise fail(f"unknown object {words[1]!r} (only 'matrix' is read)")
    if fmt == "array":
        raise fail("'array' (dense) format is not supported, only 'coordinate'")
    if fmt != "coordinate":
        raise fail(f"unknown format {words[2]!r} (expected 'coordinate')")
    if field == "complex":
        raise fail("field 'complex' is not supported (only pattern, integer, real)")
    if field not in _FIELDS:
        raise fail(f"unknown field {words[3]!r} (expected pattern, integer or real)")
    if symmetry not in _SYMMETRIES:
        raise fail(f"unknown symmetry {words[4]!r} (expected one of {', '.join(_SYMMETRIES)})")
    if field == "pattern" and symmetry in ("skew-symmetric", "hermitian"):
        raise fail(f"'pattern' cannot be {symmetry} (the format allows general or symmetric)")
    return field, symmetry


def _parse_gb_type(path: str, lineno: int, line: str, symmetry: str) -> str:
    """Read LAGraph's ``%%GraphBLAS type T`` line and check T against the banner."""
    gb_type = " ".join(line.split()[2:])
    if gb_type in _GB_COMPLEX:
        raise MatrixMarketError(f"{path}:{lineno}: GraphBLAS type {gb_type!r} is not supported")
    if gb_type not in _GB_TYPES:
        raise MatrixMarketError(f"{path}:{lineno}: unknown GraphBLAS type {gb_type!r}")
    if symmetry == "skew-symmetric" and gb_type in _GB_UNSIGNED:
        raise MatrixMarketError(
            f"{path}:{lineno}: a skew-symmetric matrix cannot have the unsigned type {gb_type!r}"
        )
    return gb_type


def _parse_size_line(path: str, lineno: int, line: str, symmetry: str) -> tuple[int, int, int]:
    """The ``nrows ncols nentries`` line: three non-negative integers."""
    words = line.split()
    if len(words) != 3 or not all(w.isascii() and w.isdigit() for w in words):
        raise MatrixMarketError(
            f"{path}:{lineno}: size line must be 3 non-negative integers "
            f"'nrows ncols nentries', got {line!r}"
        )
    nrows, ncols, nentries = (int(w) for w in words)
    if symmetry != "general" and nrows != ncols:
        what = f"a {symmetry} matrix must be square, got {nrows} x {ncols}"
        raise MatrixMarketError(f"{path}:{lineno}: {what}")
    return nrows, ncols, nentries


def _value_kind(header: _Header) -> str | None:
    """How values are parsed: 'int', 'float', or None for pattern files."""
    if header.field == "pattern":
        return None
    if header.gb_type is not None:
        return "int" if _GB_TYPES[header.gb_type] is not None else "float"
    return "int" if header.field == "integer" else "float"


def _parse_entries(source: _Source, header: _Header) -> _Entries:
    """Parse the data section fast; fall back to the line-by-line pass to name a bad line."""
    kind = _value_kind(header)
    entries = _parse_entries_fast(source.body, kind) if header.nentries > 0 else None
    return entries if entries is not None else _parse_entries_slow(source, kind)


def _parse_entries_fast(body: str, kind: str | None) -> _Entries | None:
    """The compiled pass, else one ``numpy.loadtxt`` pass; None on any trouble (the slow pass
    then says what)."""
    entries = _parse_entries_compiled(body, kind)
    if entries is not None:
        return entries
    fields = [("i", np.int64), ("j", np.int64)]
    if kind is not None:
        fields.append(("v", np.int64 if kind == "int" else np.float64))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an empty body warns; let the slow pass handle it
            table = np.loadtxt(io.StringIO(body), dtype=fields, comments=None, ndmin=1)
    except (ValueError, OverflowError, Warning):
        return None
    values = table["v"].copy() if kind is not None else None
    return _Entries(table["i"].copy(), table["j"].copy(), values)


# -- the compiled pass: bytes of the data section, whitespace-separated tokens, a line an entry --
_KIND_CODES = {None: 0, "int": 1, "float": 2}
_CHUNK_BYTES = 1 << 20          # a chunk of lines parsed by one thread at a time


@numba.njit(cache=True)
def _chunk_starts(buf, size):
    """Offsets where chunks of about ``size`` bytes begin, each at a line's start."""
    starts = [0]
    at = size
    while at < buf.shape[0]:
        while at < buf.shape[0] and buf[at - 1] != 10:
            at += 1
        if at < buf.shape[0]:
            starts.append(at)
        at += size
    starts.append(buf.shape[0])
    return np.array(starts, dtype=np.int64)


@numba.njit(cache=True)
def _count_lines(buf, start, stop):
    """Lines of buf[start:stop] (an upper bound of its entries: blank lines are not entries)."""
    lines = 0
    for k in range(start, stop):
        lines += buf[k] == 10
    return lines + (stop > start and buf[stop - 1] != 10)


@numba.njit(cache=True)
def _parse_chunk(buf, start, stop, kind, rows, cols, values, at):
    """Parses the entry lines of buf[start:stop] (tokens parted by bytes <= 32, a line an entry;
    kind 0: two integers, 1: three, 2: two and a plain real) into rows, cols (and values) from
    slot ``at``; returns how many, or -1 at the first line that is not exactly its tokens (or
    an integer of more than 18 digits, a real such as inf: the other passes read those). One
    loop, no helper taking the arrays: numba's inlined helpers cost here."""
    ntokens = 2 if kind == 0 else 3
    first = at
    k = start
    while k < stop:
        token = 0
        while True:
            while k < stop and buf[k] != 10 and buf[k] <= 32:
                k += 1
            if k >= stop or buf[k] == 10:
                k += 1
                break
            if token == ntokens:
                return -1
            c = buf[k]
            negative = c == 45
            if c == 45 or c == 43:
                k += 1
            if token < 2 or kind == 1:
                value, digits = 0, 0
                while k < stop and 48 <= buf[k] <= 57:
                    value = value * 10 + (np.int64(buf[k]) - 48)
                    k += 1
                    digits += 1
                if digits == 0 or digits > 18:
                    return -1
                if negative:
                    value = -value
                if token == 0:
                    rows[at] = value
                elif token == 1:
                    cols[at] = value
                else:
                    values[at] = value
            else:                            # a real: [digits][.digits][(e|E)[+-]digits]
                digits = 0
                while k < stop and 48 <= buf[k] <= 57:
                    k += 1
                    digits += 1
                if k < stop and buf[k] == 46:
                    k += 1
                    while k < stop and 48 <= buf[k] <= 57:
                        k += 1
                        digits += 1
                if digits == 0:
                    return -1
                if k < stop and (buf[k] == 101 or buf[k] == 69):
                    k += 1
                    if k < stop and (buf[k] == 43 or buf[k] == 45):
                        k += 1
                    if k >= stop or not 48 <= buf[k] <= 57:
                        return -1
                    while k < stop and 48 <= buf[k] <= 57:
                        k += 1
            if k < stop and buf[k] > 32:     # a token's tail that is no part of it
                return -1
            token += 1
        if token == 0:
            continue                         # a blank line
        if token != ntokens:
            return -1
        at += 1
    return at - first


@numba.njit(cache=True, parallel=True)
def _parse_chunks(buf, starts, offsets, kind, rows, cols, values, found):
    for c in prange(starts.shape[0] - 1):
        found[c] = _parse_chunk(buf, starts[c], starts[c + 1], kind, rows, cols, values, offsets[c])


@numba.njit(cache=True, parallel=True)
def _count_chunks(buf, starts, counts):
    for c in prange(starts.shape[0] - 1):
        counts[c] = _count_lines(buf, starts[c], starts[c + 1])


@numba.njit(cache=True)
def _close_gaps(offsets, found, rows, cols, values):
    """Moves each chunk's entries to follow the chunks before it; returns how many in all."""
    at = 0
    for c in range(found.shape[0]):
        start = offsets[c]
        if at != start:
            for k in range(found[c]):
                rows[at + k] = rows[start + k]
                cols[at + k] = cols[start + k]
                if values.shape[0]:
                    values[at + k] = values[start + k]
        at += found[c]
    return at


def _parse_entries_compiled(body: str, kind: str | None) -> _Entries | None:
    """The data section's entries by the compiled loops, or None where they do not read it
    (the other passes then do)."""
    buf = np.frombuffer(body.encode("latin-1"), dtype=np.uint8)
    if buf.shape[0] == 0:
        return None
    starts = _chunk_starts(buf, _CHUNK_BYTES)
    counts = np.zeros(starts.shape[0] - 1, dtype=np.int64)
    _count_chunks(buf, starts, counts)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    room = int(offsets[-1])
    rows, cols = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
    values = np.empty(room if kind == "int" else 0, dtype=np.int64)
    found = np.zeros(counts.shape[0], dtype=np.int64)
    _parse_chunks(buf, starts, offsets, _KIND_CODES[kind], rows, cols, values, found)
    if (found < 0).any():
        return None
    total = _close_gaps(offsets, found, rows, cols, values)
    return _Entries(rows[:total], cols[:total], values[:total] if kind == "int" else None)


def _parse_entries_slow(source: _Source, kind: str | None) -> _Entries:
    """Parse line by line, raising at the first line that is not a well-formed entry."""
    ntokens = 2 if kind is None else 3
    rows, cols, values = [], [], []
    for offset, line in enumerate(source.body.split("\n")):
        tokens = line.split()
        if not tokens:
            continue
        lineno = source.body_line + offset
        if len(tokens) != ntokens:
            layout = "row col" if kind is None else "row col value"
            raise source.error(
                lineno, f"entry needs {ntokens} tokens ({layout}), got {len(tokens)}: {line.strip()!r}"
            )
        rows.append(_index_token(source, lineno, tokens[0], "row"))
        cols.append(_index_token(source, lineno, tokens[1], "column"))
        if kind is not None:
            values.append(_value_token(source, lineno, tokens[2], kind))
    vals = None if kind is None else _value_array(values, kind)
    return _Entries(np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), vals)


def _index_token(source: _Source, lineno: int, token: str, which: str) -> int:
    if not _INT_TOKEN.fullmatch(token):
        raise source.error(lineno, f"{which} index {token!r} is not an integer")
    index = int(token)
    if not 1 <= index < 2**63:
        raise source.error(lineno, f"{which} index {index} is out of range (indices start at 1)")
    return index


def _value_token(source: _Source, lineno: int, token: str, kind: str) -> int | float:
    if kind == "int":
        if not _INT_TOKEN.fullmatch(token):
            raise source.error(lineno, f"value {token!r} is not an integer")
        return int(token)
    try:
        if "_" in token:  # Python's float() allows digit separators; the format does not
            raise ValueError
        return float(token)
    except ValueError:
        raise source.error(lineno, f"value {token!r} is not a real number") from None


def _value_array(values: list, kind: str) -> np.ndarray:
    """Values as an array; integers that overflow int64 (uint64 data) stay exact as objects."""
    if kind == "float":
        return np.array(values, dtype=np.float64)
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array(values, dtype=object)


def _check_entries(source: _Source, header: _Header, entries: _Entries, allow_duplicates: bool) -> None:
    """Checks on the parsed entries: count, bounds, value range, skew diagonal, duplicates."""
    _check_count(source, header, entries)
    _check_bounds(source, entries.rows, header.nrows, "row")
    _check_bounds(source, entries.cols, header.ncols, "column")
    if entries.values is not None and header.gb_type is not None:
        _check_value_range(source, entries.values, header.gb_type)
    if header.symmetry == "skew-symmetric":
        _check_no_diagonal(source, entries)
    if not allow_duplicates:
        _check_no_duplicates(source, header, entries)


def _check_count(source: _Source, header: _Header, entries: _Entries) -> None:
    found = entries.rows.shape[0]
    if found < header.nentries:
        raise source.error(
            source.last_line, f"truncated: file ends after {found} of {plural(header.nentries, 'declared entry')}"
        )
    if found > header.nentries:
        line = source.entry_line(header.nentries)
        raise source.error(line, f"more entries than the {header.nentries} declared")


def _check_bounds(source: _Source, index: np.ndarray, bound: int, which: str) -> None:
    bad = np.flatnonzero((index < 1) | (index > bound))
    if bad.size:
        k = int(bad[0])
        what = f"{which} index {int(index[k])} is out of range [1, {bound}]"
        raise source.error(source.entry_line(k), what)


def _check_value_range(source: _Source, values: np.ndarray, gb_type: str) -> None:
    bounds = _GB_TYPES[gb_type]
    if bounds is None:
        return
    low, high = bounds
    bad = np.flatnonzero((values < low) | (values > high))
    if bad.size:
        k = int(bad[0])
        what = f"value {values[k]} does not fit GraphBLAS type {gb_type} [{low}, {high}]"
        raise source.error(source.entry_line(k), what)


def _check_no_diagonal(source: _Source, entries: _Entries) -> None:
    bad = np.flatnonzero(entries.rows == entries.cols)
    if bad.size:
        k = int(bad[0])
        what = f"skew-symmetric matrix has a diagonal entry ({int(entries.rows[k])}, {int(entries.cols[k])})"
        raise source.error(source.entry_line(k), what)


#: How to accept a file that stores an entry twice (scipy's mmread does): said with the error.
DUPLICATES_HINT = ("; to accept the file, its copies merged into one edge, pass merge_duplicates=True "
                   "to ld.Matrix.from_mtx, or --merge-duplicates to lagraph-dist")


def _check_no_duplicates(source: _Source, header: _Header, entries: _Entries) -> None:
    rows, cols = entries.rows, entries.cols
    if _strictly_ordered(rows, cols, header.symmetry in _MIRRORED):
        return                               # most files: sorted, so no pair repeats
    if header.symmetry in _MIRRORED:
        # (i, j) and (j, i) are the same stored entry once mirrored.
        rows, cols = np.minimum(rows, cols), np.maximum(rows, cols)
    if not _has_duplicates(rows, cols, header.nrows, header.ncols):
        return
    k0, k1 = _first_duplicate(rows, cols)
    raise source.error(
        source.entry_line(k1),
        f"duplicate entry ({int(entries.rows[k1])}, {int(entries.cols[k1])}), "
        f"already stored on line {source.entry_line(k0)}{DUPLICATES_HINT}",
    )


@numba.njit(cache=True)
def _strictly_ordered(rows, cols, mirrored):
    """Whether the (row, col) pairs (each as (min, max) when ``mirrored``) strictly increase by
    row then column, or by column then row: one pass, no key array."""
    by_row = by_col = True
    for k in range(1, rows.shape[0]):
        r0, c0, r1, c1 = rows[k - 1], cols[k - 1], rows[k], cols[k]
        if mirrored:
            r0, c0 = min(r0, c0), max(r0, c0)
            r1, c1 = min(r1, c1), max(r1, c1)
        by_row = by_row and (r1 > r0 or (r1 == r0 and c1 > c0))
        by_col = by_col and (c1 > c0 or (c1 == c0 and r1 > r0))
        if not (by_row or by_col):
            return False
    return True


def _has_duplicates(rows: np.ndarray, cols: np.ndarray, nrows: int, ncols: int) -> bool:
    """Whether a (row, col) pair repeats; cheap when the file is sorted, as most are."""
    if rows.shape[0] < 2:
        return False
    if nrows * ncols >= 2**63:  # pairs do not fit one int64 key: fall back to the slow search
        return _first_duplicate(rows, cols) is not None
    by_row = rows * ncols + cols
    by_col = cols * nrows + rows
    if np.all(by_row[1:] > by_row[:-1]) or np.all(by_col[1:] > by_col[:-1]):
        return False
    by_row.sort()
    return bool(np.any(by_row[1:] == by_row[:-1]))


def _first_duplicate(rows: np.ndarray, cols: np.ndarray) -> tuple[int, int] | None:
    """Entry numbers (earlier, later) of the repeat whose later copy comes first in the file."""
    order = np.lexsort((cols, rows))  # stable: equal pairs stay in file order
    same = (rows[order[1:]] == rows[order[:-1]]) & (cols[order[1:]] == cols[order[:-1]])
    hits = np.flatnonzero(same)
    if not hits.size:
        return None
    later = order[hits + 1]
    first = int(np.argmin(later))
    return int(order[hits[first]]), int(later[first])


def _data_line_numbers(body: str, body_line: int) -> np.ndarray:
    """1-based line number of every non-blank line of a comment-stripped data section."""
    chars = np.frombuffer(body.encode("latin-1"), dtype=np.uint8)
    newlines = np.flatnonzero(chars == ord("\n"))
    token_chars = np.flatnonzero(chars > ord(" "))  # whitespace and control bytes are blanks
    line_of_char = np.searchsorted(newlines, token_chars)
    return body_line + np.unique(line_of_char)


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


def write_mtx(path, src, dst, n: int, *, symmetric: bool = False) -> None:
    """Write edges as an ``n x n`` pattern coordinate Matrix Market file.

    Parameters
    ----------
    path : str or os.PathLike
        File to create (overwritten if present); gzip-compressed when it ends in ``.gz``.
    src, dst : array_like of int
        0-based edge endpoints, same length; edge ``k`` is written as entry
        ``(src[k] + 1, dst[k] + 1)``.
    n : int
        Number of vertices.
    symmetric : bool, optional
        Write a ``symmetric`` file holding only the entries with ``src >= dst`` (the lower
        triangle).  The caller guarantees the edge set is symmetric; nothing is checked.

    Raises
    ------
    MissingFile, FileAccessDenied, FileError
        The file cannot be created: its folder does not exist, may not be written, ...
    DomainMismatch
        ``src``/``dst`` are not integer arrays, ``n`` is not an int, or ``path`` is not a path.
    DimensionMismatch
        ``src`` and ``dst`` differ in shape or are not 1-D.
    InvalidValue
        ``n`` is negative.
    IndexOutOfBound
        An endpoint lies outside ``[0, n)``.
    """
    src, dst = _check_edges_for_write(src, dst, n)
    if symmetric:
        keep = src >= dst
        src, dst = src[keep], dst[keep]
    kind = "symmetric" if symmetric else "general"
    path = _file_name(path)
    opener = gzip.open if path.endswith(".gz") else None     # None: the builtin open
    with open_file(path, "wb", opener=opener, doing=f"write Matrix Market file {path}") as handle:
        handle.write(f"%%MatrixMarket matrix coordinate pattern {kind}\n{n} {n} {src.shape[0]}\n".encode())
        for start in range(0, src.shape[0], _WRITE_CHUNK):
            stop = start + _WRITE_CHUNK
            handle.write(_format_entries(src[start:stop] + 1, dst[start:stop] + 1))


def _format_entries(rows: np.ndarray, cols: np.ndarray) -> bytes:
    """``"row col\\n"`` lines for positive int64 arrays, formatted without a Python loop."""
    table = np.concatenate(
        [_decimal_digits(rows), _column(rows, b" "), _decimal_digits(cols), _column(rows, b"\n")], axis=1
    )
    flat = table.ravel()
    return flat[flat != 0].tobytes()  # 0 marks the blank left of a short number


def _decimal_digits(values: np.ndarray) -> np.ndarray:
    """(len, width) ASCII digits of positive ints, right-aligned, 0 bytes as left padding."""
    width = len(str(int(values.max()))) if values.size else 1
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = (values[:, None] // powers) % 10 + ord("0")
    return np.where(values[:, None] >= powers, digits, 0).astype(np.uint8)


def _column(like: np.ndarray, char: bytes) -> np.ndarray:
    return np.full((like.shape[0], 1), ord(char), dtype=np.uint8)


def _check_edges_for_write(src, dst, n) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise DomainMismatch(f"n must be an int, got {type(n).__name__}")
    if n < 0:
        raise InvalidValue(f"n must be >= 0, got {n}")
    src, dst = np.asarray(src), np.asarray(dst)
    for name, arr in (("src", src), ("dst", dst)):
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise DomainMismatch(f"{name} must hold integers, got dtype {arr.dtype}")
    if src.ndim != 1 or src.shape != dst.shape:
        raise DimensionMismatch(
            f"src and dst must be 1-D of equal length, got shapes {src.shape} and {dst.shape}"
        )
    src, dst = src.astype(np.int64), dst.astype(np.int64)
    for name, arr in (("src", src), ("dst", dst)):
        bad = np.flatnonzero((arr < 0) | (arr >= n))
        if bad.size:
            raise IndexOutOfBound(f"{name}[{int(bad[0])}] = {int(arr[bad[0]])} is outside [0, {n})")
    return src, dst
