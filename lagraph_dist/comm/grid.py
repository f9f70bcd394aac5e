"""The R x C process grid and the 2D layout arithmetic.

Layout (Yoo et al., as used by Bisson et al. 2015, section 2.2): vertices are cut into R*C
blocks of ``block_len`` ids; processor (i, j) owns vertex block ``j*R + i``. It stores the edges
u -> v whose source u lies in grid column j's *column space* (blocks jR .. jR+R-1, contiguous)
and whose destination v lies in grid row i's *row space* (blocks mR+i for m = 0 .. C-1).
So a frontier is gathered along a grid column (expand) and discoveries go to their owners
along a grid row (fold). Every owner/local-id formula of the package lives in :class:`Layout`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from lagraph_dist.comm.agreement import agree_on
from lagraph_dist.core.errors import DimensionMismatch, InvalidValue, LagraphDistError
from lagraph_dist.local.layout import WORD_BITS
from lagraph_dist.comm.transport import Transport, resolve_transport

__all__ = ["Grid", "Layout", "IdMap", "default_grid"]


def _mpi():
    from mpi4py import MPI
    return MPI


#: whether a grid of this process may hold more than one rank: MPI.COMM_WORLD has several (read
#: once), or one was made of several (from a communicator merged with spawned processes); while
#: not, a collective call needs no check (:mod:`lagraph_dist.comm.collective`)
_several_ranks = None


def several_rank_grids() -> bool:
    """Whether a grid of more than one rank may exist in this process (see ``_several_ranks``)."""
    global _several_ranks
    if _several_ranks is None:
        _several_ranks = _mpi().COMM_WORLD.Get_size() > 1
    return _several_ranks


def most_square(size):
    """The (rows, cols) of ``size`` ranks that ``Grid()`` takes: the most square."""
    rows = int(math.isqrt(size))
    while size % rows:
        rows -= 1
    return rows, size // rows


class Grid:
    """An R x C grid over an MPI communicator, with row and column sub-communicators.

    Collective. ``Grid()`` takes all of ``MPI.COMM_WORLD`` in the most square shape (1 x 1 in a
    plain single process). Rank ``i*C + j`` sits at grid row i, column j; ``row_comm`` holds the
    C ranks of row i ordered by j, ``col_comm`` the R ranks of column j ordered by i.
    ``transport`` ("nccl", "mpi-cuda", "mpi-host"; default $LAGRAPH_DIST_TRANSPORT, else nccl
    where it works) says how device arrays move (:mod:`lagraph_dist.comm.transport`); one that
    cannot work here raises on every rank.
    """

    def __init__(self, rows=None, cols=None, *, comm=None, transport=None):
        MPI = _mpi()
        comm = MPI.COMM_WORLD if comm is None else comm
        size = comm.Get_size()
        # a shape or transport that differs between ranks would split the ranks into grids
        # that do not fit together: refused on every rank before any rank splits
        agree_on(comm, "Grid", {"rows": rows, "cols": cols, "transport": transport})
        rows, cols = self._checked_shape(rows, cols, size)
        if size > 1:
            global _several_ranks
            _several_ranks = True
        self.comm = comm.Dup()
        self.rows, self.cols = rows, cols
        self.size = rows * cols      # (an attribute: a small graph's search asks it several times)
        self.rank = self.comm.Get_rank()
        self.row, self.col = divmod(self.rank, cols)
        self.row_comm = self.comm.Split(color=self.row, key=self.col)
        self.col_comm = self.comm.Split(color=self.col, key=self.row)
        name = self.agree(resolve_transport, transport)
        agree_on(self.comm, "Grid", {"the transport chosen ($LAGRAPH_DIST_TRANSPORT or what works here)": name})
        self.transport = Transport(name, self.comm, self.row_comm, self.col_comm)
        self._members = {}

    @staticmethod
    def _checked_shape(rows, cols, size):
        for name, value in (("rows", rows), ("cols", cols)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
                raise InvalidValue(f"grid {name} must be an integer, got {value!r}")
            if value is not None and value < 1:
                raise InvalidValue(f"grid {name} must be >= 1, got {value}")
        if rows is None and cols is None:
            return most_square(size)
        if rows is None:
            rows = size // cols if size % cols == 0 else 0
        if cols is None:
            cols = size // rows if size % rows == 0 else 0
        if rows * cols != size:
            raise DimensionMismatch(
                f"a {rows} x {cols} grid needs {rows * cols} MPI ranks, but the communicator has {size}"
                if rows and cols else f"no grid with that shape fits {size} MPI ranks")
        return int(rows), int(cols)

    def members(self, channel):
        """Grid ranks of the members of one of the transport's channels, in channel order (a
        tuple, made once a channel: a product asks every level)."""
        known = self._members.get(id(channel))
        if known is None:
            if channel is self.transport.col:
                known = tuple(i * self.cols + self.col for i in range(self.rows))
            elif channel is self.transport.row:
                known = tuple(self.row * self.cols + j for j in range(self.cols))
            else:
                known = tuple(range(self.size))
            self._members[id(channel)] = known
        return known

    @property
    def shape(self):
        return (self.rows, self.cols)

    def agreement_text(self) -> str:
        """What collective calls compare between ranks (the rank differs by design)."""
        return f"Grid({self.rows} x {self.cols}, {self.transport.name})"

    def __repr__(self):
        return (f"Grid({self.rows} x {self.cols}, rank {self.rank} at ({self.row}, {self.col}), "
                f"transport {self.transport.name!r})")

    # -- agreement: every rank raises together, none waits in a collective ------------------
    def agree(self, func, *args, **kwargs):
        """Run ``func`` on every rank; if it raises on any rank, raise on all of them.

        The rank that failed re-raises its own exception; the others raise the same type with
        the failing rank's message. Collective.
        """
        try:
            result, failure = func(*args, **kwargs), None
        except (LagraphDistError, ValueError, TypeError, IndexError, OSError, MemoryError) as exc:
            result, failure = None, exc
        report = None if failure is None else (type(failure), str(failure))
        if self.size == 1:
            reports = [report]
        else:               # one typed flag; the reports are pickled only when some rank failed
            reports = self.comm.allgather(report) if self.allreduce(int(failure is not None), "MAX") else []
        for rank, rep in enumerate(reports):
            if rep is None:
                continue
            if failure is not None:
                raise failure
            exc_type, message = rep
            raise exc_type(f"{message} (raised on rank {rank})")
        return result

    def bcast_from(self, root, func, *args, **kwargs):
        """Run ``func`` on ``root`` only and broadcast its result; its failure raises everywhere."""
        def on_root():
            return func(*args, **kwargs) if self.rank == root else None
        result = self.agree(on_root)
        return self.comm.bcast(result, root=root) if self.size > 1 else result

    def allreduce(self, value, op="SUM"):
        """Reduce a Python scalar or small numpy array over the whole grid: Python integers and
        floats and numeric arrays through a typed buffer (an integer comes back as an int, a
        float as a float, an array as an array), anything else pickled."""
        if self.size == 1:
            return value
        MPI = _mpi()
        typed = _TYPED_SCALARS.get(type(value))
        if typed is not None and (typed is not np.int64 or _INT64_MIN <= value <= _INT64_MAX):
            send = np.array([value], dtype=typed)
        elif isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
            send = np.ascontiguousarray(value)
        else:
            return self.comm.allreduce(value, op=getattr(MPI, op))
        out = np.empty_like(send)
        self.comm.Allreduce(send, out, op=getattr(MPI, op))
        return out[0].item() if typed is not None else out


_TYPED_SCALARS = {int: np.int64, float: np.float64}     # exact types: a bool stays pickled
_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


_default = None


def default_grid():
    """The grid used when none is passed: all of COMM_WORLD, made once per process."""
    global _default
    if _default is None:
        _default = Grid()
    return _default


@dataclass(frozen=True)
class IdMap:
    """Local index l of a space -> global id ``(l // block_len) * stride + offset + l % block_len``.

    A column space is contiguous (stride = block_len); a row space takes every R-th block
    (stride = R * block_len). Both are increasing in l, which pull kernels rely on.
    """

    block_len: int
    stride: int
    offset: int

    @property
    def contiguous(self) -> bool:
        """Whether the space's blocks follow one another (a column space, or the row space of a
        one-row grid): its ids are then the local ones shifted by ``offset``."""
        return self.stride == self.block_len

    def to_global(self, local):
        local = local.astype(np.int64, copy=False)
        if self.contiguous:          # (no division: 7.6 M ids in 10 ms instead of 36 on 2 cores)
            return local + self.offset
        return (local // self.block_len) * self.stride + self.offset + local % self.block_len

    def to_local(self, glob):
        """Inverse of :meth:`to_global` for ids known to lie in this space."""
        glob = glob.astype(np.int64, copy=False) - self.offset
        if self.contiguous:
            return glob
        return (glob // self.stride) * self.block_len + glob % self.stride


@dataclass(frozen=True)
class Layout:
    """Where every vertex and edge of an n-vertex graph lives on an R x C grid."""

    n: int
    rows: int
    cols: int

    @functools.cached_property      # (read several times a call: a small graph's search is a few microseconds)
    def block_len(self) -> int:
        """Vertices per block, a multiple of 32 so that block bitmaps concatenate word-aligned."""
        per_block = -(-self.n // (self.rows * self.cols))
        return max(WORD_BITS, -(-per_block // WORD_BITS) * WORD_BITS)

    @property
    def col_space_len(self) -> int:
        return self.rows * self.block_len

    @property
    def row_space_len(self) -> int:
        return self.cols * self.block_len

    def check_local_ids(self):
        """Local ids are int32 (blocks, kernels, queues): a local space past 2**31 - 1 ids is a
        clear error naming a grid that fits, never a silent wrap."""
        longest = max(self.col_space_len, self.row_space_len)
        if longest > np.iinfo(np.int32).max:
            side = -(-longest // np.iinfo(np.int32).max)
            raise InvalidValue(
                f"a {self.rows} x {self.cols} grid gives a local space of {longest} vertex ids for a "
                f"graph of {self.n} vertices, past the int32 local ids of the blocks and kernels; use "
                f"a grid about {side} times longer along each side (or the long side)")

    # -- vertices -------------------------------------------------------------------------
    def owner_rank(self, v):
        """Grid rank (i*C + j) owning global vertex v (array or scalar)."""
        block = v // self.block_len
        return (block % self.rows) * self.cols + block // self.rows

    def block_range(self, row, col):
        """Global [start, stop) of the vertex block owned by processor (row, col), clipped to n."""
        start = (col * self.rows + row) * self.block_len
        return min(start, self.n), min(start + self.block_len, self.n)

    def col_space(self, col) -> IdMap:
        return IdMap(self.block_len, self.block_len, col * self.rows * self.block_len)

    def row_space(self, row) -> IdMap:
        return IdMap(self.block_len, self.rows * self.block_len, row * self.block_len)

    # -- edges ----------------------------------------------------------------------------
    def edge_owner_rank(self, src, dst):
        """Rank storing edge src -> dst: grid column of src's block, grid row of dst's block."""
        col = (src // self.block_len) // self.rows
        row = (dst // self.block_len) % self.rows
        return row * self.cols + col
