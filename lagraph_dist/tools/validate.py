"""Graph500-style validation of a BFS result against a distributed matrix.

:func:`validate` is collective over ``A.grid.comm``. Checks that only read ``levels`` and
``parents`` (the same full arrays on every rank) are done everywhere; checks that need the
edges run on the rank that stores each edge. Each rank condenses its findings into one
integer key ``code * (n + 1) + vertex``; an ``MPI.MIN`` allreduce then picks the first
broken rule and its smallest vertex, so every rank raises the very same error.

The array checks are written against an array module ``xp``: ``A.backend.xp`` (numpy on
the CPU backend, cupy on the GPU backend), or numpy when ``A`` has no ``backend`` (plain
stand-ins). ``levels``/``parents`` are moved to the device once (a vector's
:meth:`~lagraph_dist.Vector.to_array` is already there); only scalars and the per-vertex
``uint8`` support marks (for the MPI allreduce, on host buffers because MPI need not be
CUDA-aware) come back to the host. The edge rules are one kernel of the backend's over the
rank's block as it is stored (``Kernels.check_edges``: no edge list is made; at scale 27 on an
H200 the slices of global ids it replaced took about 1 s a search); a stand-in's edges are
sorted into a block on the host for the CPU's kernel.
"""


from typing import NamedTuple

import numpy as np
from mpi4py import MPI

from lagraph_dist.comm.collective import collective
from lagraph_dist.core.checks import check_vertex
from lagraph_dist.core.errors import (
    DomainMismatch,
    InvalidValue,
    ValidationError,
)
from lagraph_dist.local import cpu_kernels
from lagraph_dist.local.engine import EDGE_RULE_NONE
from lagraph_dist.local.parts import LocalCSR

__all__ = ["validate", "depths_by_pointer_jumping"]

# Rule codes, in the order they are reported (lowest code wins, then lowest vertex).
LEVELS_LENGTH = 1
PARENTS_LENGTH = 2
LEVEL_VALUE = 3
PARENT_RANGE = 4
SOURCE_LEVEL = 5
SOURCE_PARENT = 6
EXTRA_ROOT = 7
REACHED_MISMATCH = 8
PARENT_UNREACHED = 9
PARENT_LEVEL = 10
PARENT_CYCLE = 11
EDGE_RANGE = 12
EDGE_STOPPED_EARLY = 13
EDGE_LEVEL_SKIP = 14
TREE_EDGE_MISSING = 15
NO_PREVIOUS_LEVEL = 16
_NO_ERROR = 17


# --------------------------------------------------------------------------- arguments


def _materialize(x):
    """Turn a result argument into a dense array (or keep None): a distributed vector's
    ``to_array()`` (in its backend's memory) or ``to_numpy()``, else the array given.

    A vector's gather is collective, so this must run on every rank, in the same order,
    before anything can raise.
    """
    if x is None:
        return None
    if hasattr(x, "to_array"):
        return x.to_array()
    if hasattr(x, "to_numpy"):
        return np.asarray(x.to_numpy())
    return x if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def _as_int64(name, arr):
    """Cast an integer array to int64; DomainMismatch for any other dtype."""
    if arr is None:
        return None
    if arr.dtype.kind not in "iu":
        raise DomainMismatch(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


class _Arrays:
    """Where the checks run: array module ``xp``, device -> host copy, edge access.

    ``A.backend`` supplies ``xp`` and ``to_host``; without one (plain stand-ins) it is
    numpy on the host and ``A.local_edges()`` is called without arguments.
    """

    def __init__(self, A):
        self.A = A
        self.backend = getattr(A, "backend", None)
        self.xp = np if self.backend is None else self.backend.xp

    def to_device(self, arr):
        return None if arr is None else self.xp.asarray(arr)

    def to_host(self, arr):
        if self.backend is not None:
            return np.asarray(self.backend.to_host(arr))
        return np.asarray(arr)

    def edge_block(self, n):
        """This rank's edges as the edge rules' kernels take them, or None when an endpoint
        is outside ``[0, n)``: a Matrix's own block, read where it lives by its backend's
        kernels; a stand-in's ``local_edges()`` sorted into a block on the host, for the
        CPU's."""
        if hasattr(self.A, "local_edge_block"):
            return _EdgeBlock(*self.A.local_edge_block(), self.backend.kernels, self.xp, lambda a: a)
        if self.backend is None:
            src, dst = self.A.local_edges()
        else:
            src, dst = (self.to_host(a) for a in self.A.local_edges(on_device=True))
        src, dst = np.asarray(src).astype(np.int64), np.asarray(dst).astype(np.int64)
        if np.any((src < 0) | (src >= n) | (dst < 0) | (dst >= n)):
            return None
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
        heads = dst[np.argsort(src, kind="stable")].astype(np.int32)
        identity = (max(n, 1), max(n, 1), 0)
        return _EdgeBlock(LocalCSR(indptr, heads, n), identity, identity, False, cpu_kernels, np, self.to_host)


class _EdgeBlock(NamedTuple):
    """A block of edges and what checks it: ``csr`` with the ``(block_len, stride, offset)``
    maps of its rows' and entries' ids, whether its rows are the heads, the kernel set, the
    array module of its memory and how an array of the checks reaches that memory."""

    csr: LocalCSR
    row_map: tuple
    col_map: tuple
    rows_are_heads: bool
    kernels: object
    xp: object
    to_kernels: object


# --------------------------------------------------------------------------- verdicts


class _Finding:
    """First broken rule found so far: ``(code, vertex, other)``; ``other`` feeds the message."""

    def __init__(self, code=_NO_ERROR, vertex=0, other=-1):
        self.code = code
        self.vertex = vertex
        self.other = other

    @property
    def ok(self):
        return self.code == _NO_ERROR


def _first(xp, code, mask, others=None):
    """Finding for the smallest index where ``mask`` holds, or None if it never does."""
    hits = xp.flatnonzero(mask)
    if hits.size == 0:
        return None
    v = int(hits[0])
    other = -1 if others is None else int(others[v])
    return _Finding(code, v, other)


def _agree(comm, finding, n):
    """Allreduce findings so that all ranks hold the same (lowest code, lowest vertex).

    ``other`` is not reduced: for the rules where it is rank-local the caller asks for it
    separately (:func:`_agree_on_other`).
    """
    key = finding.code * (n + 1) + finding.vertex
    if comm.Get_size() > 1:
        key = comm.allreduce(key, op=MPI.MIN)
    code, vertex = divmod(key, n + 1)
    other = finding.other if (code, vertex) == (finding.code, finding.vertex) else -1
    return _Finding(int(code), int(vertex), other)


def _agree_on_other(comm, local_other):
    """Smallest ``other`` (an edge's tail) over ranks; ranks without one pass -1."""
    if comm.Get_size() == 1:
        return local_other
    big = np.iinfo(np.int64).max
    val = comm.allreduce(big if local_other < 0 else local_other, op=MPI.MIN)
    return -1 if val == big else int(val)


_MESSAGES = {
    LEVEL_VALUE: "levels[{v}] = {lv} is neither -1 (unreached) nor a nonnegative level",
    PARENT_RANGE: "parents[{v}] = {p} is neither -1 (unreached) nor a vertex in [0, {n})",
    SOURCE_LEVEL: "the source has levels[{v}] = {lv}, expected 0",
    SOURCE_PARENT: "the source has parents[{v}] = {p}, expected {v} (itself)",
    EXTRA_ROOT: "levels[{v}] = 0 but only the source {s} may be at level 0",
    REACHED_MISMATCH: "levels[{v}] = {lv} and parents[{v}] = {p} disagree on whether the "
    "vertex was reached",
    PARENT_UNREACHED: "parents[{v}] = {p} but vertex {p} was not reached",
    PARENT_LEVEL: "levels[{v}] = {lv} but its parent {p} has level {lp}; a tree edge must "
    "lead exactly one level deeper",
    PARENT_CYCLE: "following parents from vertex {v} never reaches the source {s} "
    "(cycle in the parent tree)",
    EDGE_STOPPED_EARLY: "edge {o} -> {v} leaves reached vertex {o} but vertex {v} was not "
    "reached (BFS stopped early)",
    EDGE_LEVEL_SKIP: "edge {o} -> {v} skips levels: level({o}) = {lo} but level({v}) = {lv}",
    TREE_EDGE_MISSING: "tree edge {p} -> {v} (parents[{v}] = {p}) is not an edge of A",
    NO_PREVIOUS_LEVEL: "levels[{v}] = {lv} but no in-neighbour of {v} has level {lm}",
}


def _raise(finding, n, source, levels, parents, depth):
    """Raise the ValidationError (or InvalidValue for a bad matrix) a finding describes."""
    code, v, o = finding.code, finding.vertex, finding.other
    if code in (LEVELS_LENGTH, PARENTS_LENGTH):
        name, arr = ("levels", levels) if code == LEVELS_LENGTH else ("parents", parents)
        raise ValidationError(
            f"invalid BFS result: {name} has shape {arr.shape}, expected ({n},) (rule: length n)"
        )
    if code == EDGE_RANGE:
        raise InvalidValue(f"A.local_edges() holds an edge with an endpoint outside [0, {n})")

    def at(arr, i):
        return None if arr is None or not 0 <= i < n else int(arr[i])

    p = at(parents, v)
    fields = dict(
        v=v, o=o, n=n, s=source, p=p, lv=at(levels if levels is not None else depth, v),
        lp=at(levels, p) if p is not None else None, lo=at(depth, o),
    )
    fields["lm"] = None if fields["lv"] is None else fields["lv"] - 1
    text = _MESSAGES[code].format(**fields)
    raise ValidationError(f"invalid BFS result at vertex {v}: {text}")


# --------------------------------------------------------------------------- global rules


def _length_finding(levels, parents, n):
    """Wrong shapes; the message reads the shape from the arrays, so no vertex is kept."""
    for code, arr in ((LEVELS_LENGTH, levels), (PARENTS_LENGTH, parents)):
        if arr is not None and (arr.ndim != 1 or arr.shape[0] != n):
            return _Finding(code, 0)
    return _Finding()


def _first_of(*candidates):
    """The first finding among lazily evaluated rule checks, or an all-clear."""
    for check in candidates:
        f = check()
        if f is not None and not f.ok:
            return f
    return _Finding()


def _range_finding(xp, levels, parents, n):
    """Entries that are neither -1 nor a valid level / vertex id."""
    if levels is not None:
        f = _first(xp, LEVEL_VALUE, levels < -1)
        if f:
            return f
    if parents is not None:
        return _first(xp, PARENT_RANGE, (parents < -1) | (parents >= n))
    return None


def _source_finding(xp, levels, parents, source):
    """The source must be the only level-0 vertex and its own parent."""
    if levels is not None and int(levels[source]) != 0:
        return _Finding(SOURCE_LEVEL, source)
    if parents is not None and int(parents[source]) != source:
        return _Finding(SOURCE_PARENT, source)
    if levels is not None:
        other_roots = levels == 0
        other_roots[source] = False
        return _first(xp, EXTRA_ROOT, other_roots)
    return None


def _parent_finding(xp, levels, parents, source):
    """Parents agree with levels on who was reached, are reached, and sit one level up."""
    if parents is None:
        return None
    reached_p = parents >= 0
    if levels is not None:
        f = _first(xp, REACHED_MISMATCH, (levels >= 0) != reached_p)
        if f:
            return f
    # Parent of each reached vertex; unreached rows read vertex 0 but are masked out.
    safe_p = xp.where(reached_p, parents, 0)
    f = _first(xp, PARENT_UNREACHED, reached_p & ~reached_p[safe_p])
    if f or levels is None:
        return f
    non_source = reached_p.copy()
    non_source[source] = False
    return _first(xp, PARENT_LEVEL, non_source & (levels != levels[safe_p] + 1))


def _value_finding(xp, levels, parents, n, source):
    """Rules that need no edges, in code order; each may assume the earlier ones held."""
    return _first_of(
        lambda: _range_finding(xp, levels, parents, n),
        lambda: _source_finding(xp, levels, parents, source),
        lambda: _parent_finding(xp, levels, parents, source),
    )


def depths_by_pointer_jumping(parents, root, xp=np):
    """Tree depth of every vertex by pointer doubling; -1 if unreached or not rooted: the
    validation's depths from parents, and the levels of the scipy oracle
    (:func:`lagraph_dist.tools.reference.bfs_levels_scipy`).

    Parameters
    ----------
    parents : xp.ndarray of int64
        Entries are -1 (unreached) or reached vertices, ``parents[root] == root``.
    root : int
    xp : module
        numpy or cupy; ``parents`` is an array of it.

    Returns
    -------
    depth : xp.ndarray of int64
        Depth below ``root``; -1 for unreached vertices and for vertices whose parent
        chain runs into a cycle instead of the root.
    """
    n = parents.shape[0]
    idx = xp.arange(n, dtype=xp.int64)
    reached = parents >= 0
    # Unreached vertices point at themselves with distance 0, so they are fixed points
    # (as is the root); log2(n) + 1 doublings then settle every rooted chain.
    jump = xp.where(reached, parents, idx)
    dist = (jump != idx).astype(xp.int64)
    for _ in range(max(1, int(n).bit_length() + 1)):
        nxt = jump[jump]
        if not bool(xp.any(nxt != jump)):
            break
        dist = dist + dist[jump]
        jump = nxt
    rooted = reached & (jump == root)
    return xp.where(rooted, dist, -1)


def _global_checks(xp, levels, parents, n, source):
    """All rules that read only ``levels``/``parents``; returns (finding, depth)."""
    f = _length_finding(levels, parents, n)
    if not f.ok:
        return f, None
    f = _value_finding(xp, levels, parents, n, source)
    if not f.ok:
        return f, None
    if levels is not None:
        return f, levels
    depth = depths_by_pointer_jumping(parents, source, xp)
    cyc = _first(xp, PARENT_CYCLE, (parents >= 0) & (depth < 0))
    return (cyc or _Finding()), depth


# --------------------------------------------------------------------------- edge rules


def _edge_finding(found, n):
    """The finding of the edge rules' kernel results (see ``Kernels.check_edges``): an endpoint
    out of range first (its id may not fit the key's vertex slot, so no vertex is recorded),
    then the edge that stopped early, then the one that skips a level."""
    if found[2] != EDGE_RULE_NONE:
        return _Finding(EDGE_RANGE, 0)
    for code, key in ((EDGE_STOPPED_EARLY, found[0]), (EDGE_LEVEL_SKIP, found[1])):
        if key != EDGE_RULE_NONE:
            head, tail = divmod(int(key), n)
            return _Finding(code, head, tail)
    return _Finding()


def _edge_scan(arrays, depth, parents, source):
    """One pass over this rank's edges (one kernel over its block): the first broken edge rule
    and the support marks.

    Per-edge rules: a reached tail needs a reached head at most one level deeper. The
    offending edge reported is the one with the smallest head, then the smallest tail.

    Support marks: each vertex v != source that this rank can vouch for. With parents: v
    is vouched for if the tree edge ``parents[v] -> v`` is stored here. With levels only:
    if some stored edge ``u -> v`` has ``level(u) == level(v) - 1``.
    """
    n = depth.shape[0]
    block = arrays.edge_block(n)
    if block is None:
        return _Finding(EDGE_RANGE, 0), None
    depth = block.to_kernels(depth)
    parents = None if parents is None else block.to_kernels(parents)
    marks = block.xp.zeros(n, dtype=np.uint8)
    found = block.kernels.check_edges(block.csr, block.row_map, block.col_map, block.rows_are_heads,
                                      depth, parents, marks)
    marks[source] = 1
    return _edge_finding(found, n), arrays.to_device(marks)


def _support_finding(comm, arrays, marks, depth, parents):
    """OR the marks over ranks; a reached vertex nobody vouched for breaks a rule."""
    xp = arrays.xp
    if comm.Get_size() > 1:
        # Host buffers: MPI need not be CUDA-aware.
        host = np.ascontiguousarray(arrays.to_host(marks), dtype=np.uint8)
        total = np.empty_like(host)
        comm.Allreduce(host, total, op=MPI.MAX)
        marks = arrays.to_device(total)
    unsupported = (depth >= 0) & (marks == 0)
    code = TREE_EDGE_MISSING if parents is not None else NO_PREVIOUS_LEVEL
    return _first(xp, code, unsupported, parents) or _Finding()


def _edge_checks(comm, arrays, depth, parents, n, source):
    """All rules that need the edges; collective, same call sequence on every rank."""
    local, marks = _edge_scan(arrays, depth, parents, source)
    broken = _agree(comm, local if local.code == EDGE_RANGE else _Finding(), n)
    if not broken.ok:
        return broken
    support = _support_finding(comm, arrays, marks, depth, parents)
    if support.code < local.code:
        local = support
    f = _agree(comm, local, n)
    if f.code in (EDGE_STOPPED_EARLY, EDGE_LEVEL_SKIP):
        # The tail of the offending edge is only known where the edge lives.
        mine = local.other if (local.code, local.vertex) == (f.code, f.vertex) else -1
        f.other = _agree_on_other(comm, mine)
    return f


# --------------------------------------------------------------------------- entry point


@collective("A", "source", "levels", "parents")
def validate(A, source, levels, parents):
    """Check a BFS result against the Graph500 rules; collective over ``A.grid.comm``.

    Parameters
    ----------
    A : distributed matrix
        Exposes ``A.n``, ``A.grid.comm`` (an mpi4py ``Intracomm``) and
        ``A.local_edges() -> (src, dst)``: the global ids of the edges stored on this
        rank, every edge on exactly one rank, duplicates merged, self-loops allowed.
        If ``A`` has a ``backend`` (with ``xp`` and ``to_host``), the checks run with
        ``A.backend.xp`` (on the GPU for cupy) and the edges are read with
        ``A.local_edges(on_device=True)``; otherwise with numpy and ``A.local_edges()``.
        A :class:`lagraph_dist.Matrix` is read through ``A.local_edge_block()`` instead: its
        block, checked in place by its backend's kernels.
    source : int
        The BFS source vertex.
    levels : numpy.ndarray of int, object with ``to_numpy()``, or None
        Level of every vertex, -1 where unreached (the full array on every rank).
    parents : numpy.ndarray of int, object with ``to_numpy()``, or None
        Parent of every vertex, -1 where unreached, ``parents[source] == source``.
        At most one of ``levels`` and ``parents`` may be None.

    Raises
    ------
    ValidationError
        On every rank alike, naming the first broken rule and its smallest vertex:
        wrong length, bad values, wrong source entries, levels/parents that disagree,
        a parent that is unreached or not one level up, a parent cycle, an edge from a
        reached vertex to an unreached one or more than one level down, a tree edge
        missing from ``A``, or (levels only) a vertex with no in-neighbour one level up.
    InvalidValue
        If both ``levels`` and ``parents`` are None, or ``A.local_edges()`` holds an
        endpoint outside ``[0, n)``.
    DomainMismatch
        If ``source`` is not an integer or the arrays do not hold integers.
    IndexOutOfBound
        If ``source`` is outside ``[0, n)``.
    """
    comm = A.grid.comm
    n = int(A.n)
    # Gathers first: they are collective and must not be skipped by an early raise.
    levels = _materialize(levels)
    parents = _materialize(parents)
    if levels is None and parents is None:
        raise InvalidValue("validate needs levels or parents (or both); both are None")
    source = check_vertex(source, n)
    levels = _as_int64("levels", levels)
    parents = _as_int64("parents", parents)
    arrays = _Arrays(A)
    xp = arrays.xp
    levels = arrays.to_device(levels)
    parents = arrays.to_device(parents)

    f, depth = _global_checks(xp, levels, parents, n, source)
    f = _agree(comm, f, n)
    if f.ok:
        f = _edge_checks(comm, arrays, depth, parents, n, source)
    if not f.ok:
        _raise(f, n, source, levels, parents, depth)
