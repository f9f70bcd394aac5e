"""The distributed adjacency matrix: one local block per processor of the 2D layout.

Processor (i, j) holds the edges u -> v with u in grid column j's column space and v in grid
row i's row space (:class:`lagraph_dist.comm.grid.Layout`), with int32 local ids, compressed by
column-space id (``by_col``: push from a list frontier) and, built on first use, by row-space
id (``by_row``: pull into unvisited rows). Entry A[u, v] is the edge u -> v.
"""
from __future__ import annotations

import numpy as np

from lagraph_dist.comm import collectives
from lagraph_dist.comm.agreement import whole
from lagraph_dist.comm.collective import collective
from lagraph_dist.local.backend import get_backend
from lagraph_dist.core.checks import check_size, check_vertex, check_vertex_array
from lagraph_dist.core.errors import DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidValue, Unsupported
from lagraph_dist.comm.grid import Layout, default_grid
from lagraph_dist.local.parts import LocalCSR, LocalPart, csr_by_counting, csr_from_edges, sorted_runs
from lagraph_dist.algebra.memory import (EDGES_PER_CHUNK, by_row_copy_bytes, check_fits,
                                         estimate_to_fit)
from lagraph_dist.core.text import plural
from lagraph_dist.algebra.vector import Vector, _on_host

#: local_edges copies the edges to the host in slices of this many (a few GiB of device ids)
EDGES_PER_HOST_SLICE = 1 << 26


__all__ = ["Matrix", "checked_root", "gathered_edges"]


KEY_BATCH = 1 << 27     # keys deduplicated per batch, to bound temporaries on big graphs


class _CsrWriter:
    """Builds a CSR from runs of sorted keys ``major * nminor + minor`` whose majors increase
    from run to run (duplicates allowed), batch by batch, so that a graph of billions of
    edges needs only one run of keys beside its int32 indices."""

    def __init__(self, capacity, nmajor, nminor, xp):
        self.xp, self.nminor = xp, nminor
        self.indices = xp.empty(capacity, dtype=np.int32)
        self.counts = xp.zeros(nmajor + 1, dtype=np.int64)
        self.written, self.previous = 0, None

    def add_sorted(self, keys):
        xp = self.xp
        for start in range(0, int(keys.shape[0]), KEY_BATCH):
            batch = keys[start:start + KEY_BATCH]
            fresh = xp.ones(batch.shape[0], dtype=bool)
            fresh[1:] = batch[1:] != batch[:-1]
            if self.previous is not None:
                fresh[0] = batch[0] != self.previous
            self.previous = batch[-1]
            unique = batch[fresh]
            stop = self.written + int(unique.shape[0])
            self.indices[self.written:stop] = (unique % self.nminor).astype(np.int32)
            # the batch's majors are sorted, so each distinct one is counted once, with its
            # run's length (a bincount on CuPy takes CUB scratch of tens of bytes a major)
            majors, entries = sorted_runs(unique // self.nminor, xp)
            self.counts[majors + 1] += entries
            self.written = stop

    def finish(self):
        # the duplicates' tail of ``indices`` stays allocated: trimming would copy the rest
        return LocalCSR(self.xp.cumsum(self.counts), self.indices[:self.written], self.nminor)


def csr_from_sorted_keys(keys, nmajor, nminor, xp):
    writer = _CsrWriter(int(keys.shape[0]), nmajor, nminor, xp)
    writer.add_sorted(keys)
    return writer.finish()


def transpose_csr(csr, xp, passes=1):
    """The CSR of ``csr`` compressed by its minors, built in ``passes`` passes over ranges of
    minors: each pass sorts only the keys of its range, and the passes' keys follow each other
    in order, so one writer takes them all (the same CSR for any number of passes). Beside the
    copy it holds every entry's major as int32 and one pass's keys (memory.transpose_bytes)."""
    majors = xp.empty(csr.nnz, dtype=np.int32)
    for start in range(0, csr.nnz, KEY_BATCH):          # int64 a slice at a time, narrowed
        stop = min(start + KEY_BATCH, csr.nnz)
        majors[start:stop] = csr.majors(xp, start, stop)
    writer = _CsrWriter(csr.nnz, csr.nminor, csr.nmajor, xp)
    span = -(-csr.nminor // passes)
    for low in range(0, csr.nminor, span):
        minors, its_majors = _entries_of_minors(csr.indices, majors, low, low + span, passes == 1, xp)
        keys = minors.astype(np.int64)                  # key = minor * nmajor + major, in place
        keys *= csr.nmajor
        keys += its_majors
        del minors, its_majors
        keys.sort()
        writer.add_sorted(keys)
        del keys
    return writer.finish()


def _entries_of_minors(minors, majors, low, high, every, xp):
    """(minors, majors) of the entries whose minor lies in [low, high): all of them (views)
    when ``every``, else gathered copies."""
    if every:
        return minors, majors
    chosen = xp.flatnonzero((minors >= low) & (minors < high))
    return minors[chosen], majors[chosen]


class LocalBlock:
    """This rank's edges, by column-space id and (lazily) by row-space id."""

    def __init__(self, by_col: LocalCSR, backend, by_row_is_by_col=False):
        self.by_col = by_col
        self._by_row = by_col if by_row_is_by_col else None
        self._backend = backend

    @property
    def by_row(self) -> LocalCSR:
        if self._by_row is None:
            self.build_by_row(self.by_row_passes())
        return self._by_row

    def build_by_row(self, passes):
        """Build the by-row copy in ``passes`` passes (a caller that chose them already)."""
        self._by_row = transpose_csr(self.by_col, self._backend.xp, passes)

    def by_row_passes(self) -> int:
        """Passes the by-row build takes: the fewest whose peak fits the free memory."""
        return self._backend.passes_to_fit(lambda passes: self.by_row_bytes(passes))

    def by_row_bytes(self, passes) -> int:
        return by_row_copy_bytes(self.by_col.nnz, self.by_col.nminor, passes)

    @property
    def has_by_row(self) -> bool:
        return self._by_row is not None

    @property
    def nbytes(self) -> int:
        csrs = {id(c): c for c in (self.by_col, self._by_row) if c is not None}.values()
        return sum(int(c.indptr.nbytes + c.indices.nbytes) for c in csrs)


def inverse_permutation(order) -> np.ndarray:
    """``new`` (int64) with ``new[order[k]] == k``: where each vertex goes when vertex k of a
    renumbering is ``order[k]`` (a permutation of 0..n-1)."""
    new = np.empty(len(order), dtype=np.int64)
    new[np.asarray(order)] = np.arange(len(order), dtype=np.int64)
    return new


def _checked_permutation(order, n, backend):
    """``order`` as a host int64 array, when it holds each of 0..n-1 once."""
    order = check_vertex_array(_on_host(order, backend), n, "order")
    if order.shape[0] != n:
        raise DimensionMismatch(f"order must list every vertex once: {plural(order.shape[0], 'id')} for "
                                f"{plural(n, 'vertex')}")
    repeated = np.flatnonzero(np.bincount(order, minlength=n) != 1)
    if repeated.size:
        raise InvalidValue(f"order must list every vertex once; vertex {int(repeated[0])} is listed "
                           f"{int(np.count_nonzero(order == repeated[0]))} times")
    return order


class Matrix:
    """An n x n boolean adjacency matrix distributed on a grid (see the module docstring)."""

    def __init__(self, n, grid, backend, block, nvals, *, symmetric=False, transposed=False):
        self.n = n
        self.grid = grid
        self.backend = backend
        self.layout = Layout(n, grid.rows, grid.cols)
        self.block = block
        self.nvals = nvals
        self.symmetric = symmetric
        self.transposed = transposed
        self._cache = {}
        self._labels = None          # node labels, when built from a networkx graph

    def agreement_text(self) -> str:
        """What collective calls compare between ranks."""
        return (f"Matrix(n={self.n}, nvals={self.nvals}, {self.backend.name}"
                f"{', transposed' if self.transposed else ''})")

    def __repr__(self):
        return (f"<Matrix n={self.n} nvals={self.nvals} on {self.grid.rows}x{self.grid.cols} "
                f"{self.backend.name}{' (transposed view)' if self.transposed else ''}>")

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    @property
    def T(self) -> "Matrix":
        """The transpose, sharing this matrix's blocks (the products read them the other way)."""
        if self.symmetric:
            return self
        if "T" not in self._cache:
            view = Matrix(self.n, self.grid, self.backend, self.block, self.nvals,
                          transposed=not self.transposed)
            view._labels = self._labels
            view._cache["T"] = self
            self._cache["T"] = view
        return self._cache["T"]

    # -- constructors (collective) ---------------------------------------------------------
    @classmethod
    @collective("n", "symmetrize", "grid", "backend")
    def from_edges(cls, src, dst, n: int, *, symmetrize: bool = False, grid=None,
                   backend="auto") -> "Matrix":
        """Collective. Each rank passes its share of the edges src[k] -> dst[k]."""
        grid = grid or default_grid()
        backend = get_backend(backend)
        n = grid.agree(check_size, n)

        def checked():
            s = check_vertex_array(src, n, "source ids", backend.xp)
            d = check_vertex_array(dst, n, "destination ids", backend.xp)
            if s.shape[0] != d.shape[0]:
                raise DimensionMismatch(f"{plural(s.shape[0], 'source id')} but "
                                        f"{plural(d.shape[0], 'destination id')}")
            return s, d

        s, d = grid.agree(checked)
        return cls._from_valid_edges(s, d, n, grid, backend, symmetrize=bool(symmetrize))

    @classmethod
    def _from_valid_edges(cls, src, dst, n, grid, backend, *, symmetrize, symmetric=None):
        keys_here = (2 if symmetrize else 1) * int(src.shape[0])
        check_fits(estimate_to_fit(n, grid.allreduce(keys_here), backend, grid_shape=grid.shape,
                                   symmetric=bool(symmetrize or symmetric), chunk_keys=keys_here),
                   grid, backend, f"a graph of {plural(n, 'vertex')}")
        return cls._from_edge_chunks([(src, dst)], n, grid, backend, symmetrize=symmetrize,
                                     symmetric=symmetrize if symmetric is None else symmetric,
                                     capacity=(2 if symmetrize else 1) * int(src.shape[0])
                                     if grid.size == 1 else None)

    @classmethod
    def _from_sorted_csr(cls, indptr, indices, n, grid, backend, *, symmetric=False):
        """One CPU rank: the block of a CSR over the n vertices whose rows are sorted and hold no
        duplicate (scipy's canonical format; entry (i, j) the edge i -> j), copied as it is."""
        nvals = int(indptr[-1])
        check_fits(estimate_to_fit(n, nvals, backend, symmetric=symmetric, chunk_keys=0), grid, backend,
                   f"a graph of {plural(n, 'vertex')}")
        layout = Layout(n, 1, 1)
        grid.agree(layout.check_local_ids)
        offsets = np.empty(layout.col_space_len + 1, dtype=np.int64)
        offsets[:n + 1] = indptr
        offsets[n + 1:] = nvals
        by_col = LocalCSR(offsets, indices.astype(np.int32), layout.row_space_len)
        return cls(n, grid, backend, LocalBlock(by_col, backend, by_row_is_by_col=symmetric), nvals,
                   symmetric=symmetric)

    @classmethod
    def _from_edge_maker(cls, make_chunks, n, grid, backend, *, keys, symmetrize, symmetric, what, otherwise=None):
        """Build from ``make_chunks()``, called anew for each pass over the edges, whose chunks
        hold at most 2 * EDGES_PER_CHUNK keys; ``keys`` bounds the keys stored over all ranks (an
        undirected edge counts twice), and the build's estimate is checked against the free
        memory before anything is allocated. ``otherwise``: what a refusal says would fit instead
        (:func:`lagraph_dist.local.fit.check_fits`)."""
        capacity = keys if grid.size == 1 else None
        check_fits(estimate_to_fit(n, keys, backend, grid_shape=grid.shape, symmetric=symmetric),
                   grid, backend, what, otherwise=otherwise)
        return cls._from_edge_chunks(make_chunks, n, grid, backend, symmetrize=symmetrize, symmetric=symmetric,
                                     capacity=capacity)

    @classmethod
    def _from_edge_chunks(cls, make_chunks, n, grid, backend, *, symmetrize, symmetric,
                          capacity=None, passes=1):
        """Build this rank's block from ``make_chunks()``, an iterable of (src, dst) chunks of
        valid global ids (a list, or a callable making them anew for each pass).

        Each chunk is routed to its owners and turned at once into keys
        ``local col * row_space_len + local row``, so the int64 edge lists of a big graph never
        exist whole. With ``passes`` > 1 the chunks are made again for each slice of the local
        columns, and only that slice's keys are held and sorted at a time. ``capacity`` bounds
        the keys this rank will hold. One rank needs no routing and no keys: its rows are counted
        and filled (``parts.csr_from_edges`` compiled on the CPU, ``parts.csr_by_counting`` in
        CuPy's array operations on the GPU, which makes the chunks twice and ignores ``passes``).
        """
        xp = backend.xp
        layout = Layout(n, grid.rows, grid.cols)
        grid.agree(layout.check_local_ids)
        if grid.size == 1 and xp is np and passes == 1:
            # one CPU rank: global ids are the local ones; a compiled counting sort by row
            chunks = list(make_chunks() if callable(make_chunks) else make_chunks)
            by_col = csr_from_edges(chunks, layout.col_space_len, layout.row_space_len, both=symmetrize)
            del chunks
            return cls(n, grid, backend, LocalBlock(by_col, backend, by_row_is_by_col=symmetric), by_col.nnz,
                       symmetric=symmetric)
        if grid.size == 1 and xp is not np:
            # one GPU: the same counting sort in array operations, the chunks made twice, never
            # held (a scale-28 graph builds in about 1.2 times its own bytes)
            by_col = csr_by_counting(make_chunks if callable(make_chunks) else lambda: make_chunks,
                                     layout.col_space_len, layout.row_space_len, xp, both=symmetrize)
            return cls(n, grid, backend, LocalBlock(by_col, backend, by_row_is_by_col=symmetric), by_col.nnz,
                       symmetric=symmetric)
        col_space, row_space = layout.col_space(grid.col), layout.row_space(grid.row)
        cols_per_pass = -(-layout.col_space_len // passes)
        writer = None
        for step in range(passes):
            low = step * cols_per_pass * layout.row_space_len
            high = (step + 1) * cols_per_pass * layout.row_space_len
            pieces = []
            for src, dst in (make_chunks() if callable(make_chunks) else make_chunks):
                if symmetrize:
                    src, dst = xp.concatenate([src, dst]), xp.concatenate([dst, src])
                src, dst = collectives.route_to_owners(layout.edge_owner_rank(src, dst), [src, dst],
                                                       grid.transport.world, backend)
                keys = col_space.to_local(src) * layout.row_space_len + row_space.to_local(dst)
                del src, dst
                pieces.append(keys if passes == 1 else keys[(keys >= low) & (keys < high)])
            keys = xp.concatenate(pieces) if len(pieces) != 1 else pieces[0]
            del pieces
            keys.sort()
            if writer is None:
                writer = _CsrWriter(capacity or int(keys.shape[0]), layout.col_space_len,
                                    layout.row_space_len, xp)
            writer.add_sorted(keys)
            del keys
        by_col = writer.finish()
        block = LocalBlock(by_col, backend, by_row_is_by_col=symmetric and grid.size == 1)
        nvals = int(grid.allreduce(by_col.nnz))
        return cls(n, grid, backend, block, nvals, symmetric=symmetric)

    # -- renumbering ----------------------------------------------------------------------
    @collective("self", order=whole)
    def permuted(self, order) -> "Matrix":
        """Collective: the same graph with its vertices renumbered, vertex k of the result being
        vertex ``order[k]`` of this one (python-graphblas's ``A[order, order].new()``): edge
        u -> v becomes new[u] -> new[v], where new is the inverse of ``order``. Every rank
        passes the same ``order``, a permutation of 0..n-1 (e.g. :func:`lagraph_dist.sort_by_degree`);
        the result keeps the grid, the backend, symmetry and node labels (its ``labels[k]`` is
        this graph's ``labels[order[k]]``). Searches of the result answer in its ids: this
        graph's levels are the result's ``levels[new]`` (docs/api.md, Renumbering)."""
        order = self.grid.agree(_checked_permutation, order, self.n, self.backend)
        new = inverse_permutation(order)
        renumber = self.backend.asarray(new)          # (on the CPU the array itself)
        # the same number of slices on every rank: each slice is routed to its owners collectively
        slices = self.grid.allreduce(-(-self.block.by_col.nnz // (2 * EDGES_PER_CHUNK)), "MAX")

        def renumbered_chunks():     # one slice of this rank's edges at a time, as new ids
            for src, dst in self.local_edge_slices(2 * EDGES_PER_CHUNK, slices):
                yield renumber[src], renumber[dst]

        B = Matrix._from_edge_maker(renumbered_chunks, self.n, self.grid, self.backend, keys=self.nvals,
                                    symmetrize=False, symmetric=self.symmetric,
                                    what=f"the renumbered graph of {plural(self.n, 'vertex')}")
        if self._labels is not None:
            B._with_labels(self._labels[k] for k in order.tolist())
        return B

    # -- node labels (a networkx graph's nodes) ---------------------------------------------
    @property
    def labels(self) -> tuple | None:
        """The node labels of a graph built from networkx, on every rank: vertex k is
        ``labels[k]``. None when the vertices are their own labels, the integers 0..n-1."""
        return self._labels

    def _with_labels(self, labels) -> "Matrix":
        self._labels = tuple(labels)
        self._cache.pop("label_ids", None)
        return self

    def vertex_id(self, label) -> int:
        """Local (the labels are on every rank): the vertex id of a node label. Without labels
        the label is the id, an integer in [0, n). IndexOutOfBound when there is no such node."""
        return self._vertex_id(label, "node")

    def _vertex_id(self, label, what):
        if self._labels is None:
            return check_vertex(label, self.n, what)
        if "label_ids" not in self._cache:
            self._cache["label_ids"] = {node: k for k, node in enumerate(self._labels)}
        try:
            return self._cache["label_ids"][label]
        except TypeError:            # unhashable: no node can be it
            raise DomainMismatch(f"{what} must be a node label of the graph, got the unhashable "
                                 f"{type(label).__name__} {label!r}") from None
        except KeyError:
            shown = ", ".join(map(repr, self._labels[:5])) + (", ..." if self.n > 5 else "")
            raise IndexOutOfBound(f"{what} {label!r} is not a node of this graph (its nodes are "
                                  f"labelled {shown})") from None

    # -- views and gathers -----------------------------------------------------------------
    def local_edges(self, on_device=False):
        """Global (src, dst) int64 arrays of the edges stored on this rank: numpy arrays, or
        the backend's own with ``on_device=True``. Host arrays are made a slice at a time
        (EDGES_PER_HOST_SLICE), so that the device holds the ids of one slice only."""
        nnz = self.block.by_col.nnz
        if on_device:
            return self._local_edge_range(0, nnz)
        src, dst = np.empty(nnz, np.int64), np.empty(nnz, np.int64)
        for start in range(0, nnz, EDGES_PER_HOST_SLICE):
            stop = min(start + EDGES_PER_HOST_SLICE, nnz)
            s, d = self._local_edge_range(start, stop)
            src[start:stop], dst[start:stop] = self.backend.to_host(s), self.backend.to_host(d)
        return src, dst

    def local_edge_block(self):
        """This rank's edges as they are stored: (its CSR block by source, the ``(block_len,
        stride, offset)`` maps that make its rows' and its entries' ids global, whether the
        rows are the edges' heads (a transposed view, and a symmetric matrix, whose edges are the
        same read either way: a row read as the head is one vertex's depth and parent for all
        its edges, where read as the tail each edge read its head's at random)); for kernels
        that read edges in place."""
        col_space, row_space = self.layout.col_space(self.grid.col), self.layout.row_space(self.grid.row)
        return (self.block.by_col, (col_space.block_len, col_space.stride, col_space.offset),
                (row_space.block_len, row_space.stride, row_space.offset), self.symmetric or bool(self.transposed))

    def local_edge_slices(self, max_edges, count=None):
        """The edges of :meth:`local_edges` as backend arrays, at most ``max_edges`` at a time,
        so that only one slice of the block exists as global int64 ids at once; with ``count``,
        exactly that many slices (the last ones empty), for a collective over the slices."""
        nnz = self.block.by_col.nnz
        count = -(-nnz // max_edges) if count is None else count
        if count * max_edges < nnz:
            raise InvalidValue(f"{count} slices of {max_edges} edges cannot hold this rank's {nnz}")
        for start in range(0, count * max_edges, max_edges):
            yield self._local_edge_range(min(start, nnz), min(start + max_edges, nnz))

    def _local_edge_range(self, start, stop):
        """Global (src, dst) of the block's entries ``start:stop`` (backend int64 arrays)."""
        by_col = self.block.by_col
        src = self.layout.col_space(self.grid.col).to_global(by_col.majors(self.backend.xp, start, stop))
        dst = self.layout.row_space(self.grid.row).to_global(by_col.indices[start:stop])
        return (dst, src) if self.transposed else (src, dst)

    @collective("self", "root")
    def to_scipy(self, root: int | None = 0):
        """Collective (every rank calls it): the pattern as a boolean scipy CSR matrix on
        ``root``, None elsewhere; on every rank with ``root=None``. The whole graph on one
        host: for tests and small graphs."""
        import scipy.sparse as sp
        if self.grid.size == 1:      # the block is the matrix: its CSR by source, copied as it is
            checked_root(self.grid, root, everywhere=True)      # 0 or None, the one rank
            by_src = self.block.by_col       # (its rows past n are the block's padding, empty)
            wide = by_src.nnz > np.iinfo(np.int32).max
            indptr, indices = self._stored_host_csr(np.int64 if wide else np.int32)
            S = sp.csr_matrix((np.ones(indices.shape[0], dtype=bool), indices, indptr), shape=(self.n, self.n))
            return S.T.tocsr() if self.transposed else S
        src, dst = gathered_edges(self, root, ordered=False)     # the CSR sorts them
        if src is None:
            return None
        data = np.ones(src.shape[0], dtype=bool)
        return sp.csr_matrix((data, (src, dst)), shape=(self.n, self.n))

    def host_csr(self, index_dtype=np.int64):
        """The pattern of a one-rank matrix as host (indptr, indices) arrays of ``index_dtype``
        (int64 indptr where it is int32 and would overflow), each owned by its array: the
        entries made wide where they live a slice at a time and copied straight into place
        (scipy's own widening on the host took 20 s at scale 27, and python-graphblas takes
        uint64 arrays it may own without a copy). Stored rows by source, as :meth:`to_scipy`."""
        if self.grid.size != 1 or self.transposed:
            where = f"on {self.grid.size} ranks" if self.grid.size != 1 else "a transposed view"
            raise Unsupported(f"host_csr reads a one-rank matrix as it is stored; this one is {where} "
                              f"(to_scipy gathers any)")
        return self._stored_host_csr(index_dtype)

    def _stored_host_csr(self, index_dtype):
        """:meth:`host_csr` of the block as it is stored, whatever the view."""
        by_src = self.block.by_col
        index_dtype = np.dtype(index_dtype)
        overflows = index_dtype == np.int32 and by_src.nnz > np.iinfo(np.int32).max
        indptr = np.empty(self.n + 1, dtype=np.int64 if overflows else index_dtype)
        self.backend.to_host(by_src.indptr[:self.n + 1], out=indptr)      # (cast where it lives)
        indices = np.empty(by_src.nnz, dtype=index_dtype)
        for start in range(0, by_src.nnz, EDGES_PER_HOST_SLICE):
            stop = min(start + EDGES_PER_HOST_SLICE, by_src.nnz)
            self.backend.to_host(by_src.indices[start:stop], out=indices[start:stop])
        return indptr, indices

    # -- python-graphblas names and conversions out (lagraph_dist.io.interop) --------------------
    # Every conversion out is collective: each rank calls it. The object (the whole graph) is
    # built on ``root`` and None is returned elsewhere; ``root=None`` builds it on every rank.
    @property
    def nrows(self) -> int:
        return self.n

    @property
    def ncols(self) -> int:
        return self.n

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(bool)

    @collective("self")
    def prepare_pull(self) -> None:
        """Collective: build the block a pull ``mxv(self, u)`` reads (compressed by this matrix's
        rows: the by-row copy for a transposed view), after checking on every rank that it fits,
        so that no search runs out of memory between its levels."""
        if not self.transposed or self.block.has_by_row:
            return
        passes = self.block.by_row_passes()          # one free-memory read for the check and the build
        need = self.block.by_row_bytes(passes)
        self.grid.agree(self.backend.check_fits, need, "the by-row copy of the graph that pull levels read")
        self.block.build_by_row(passes)

    @collective("self")
    def out_degree(self) -> "Vector":
        """Collective, cached: the Vector of out-degrees (entries only where nonzero)."""
        if "out_degree" not in self._cache:
            self._cache["out_degree"] = self._major_degree()
        return self._cache["out_degree"]

    def _major_degree(self):
        """Sum the local degrees of the sources over the processors sharing them."""
        xp = self.backend.xp
        if self.transposed:     # sources of A.T are A's row-space ids, shared along the grid row
            local, channel = self.block.by_row.degrees(), self.grid.transport.row
        else:
            local, channel = self.block.by_col.degrees(), self.grid.transport.col
        mine = collectives.sum_blocks(local, channel)
        ids = xp.nonzero(mine)[0].astype(np.int32)
        part = LocalPart.from_list(ids, mine[ids].astype(np.int64), self.layout.block_len)
        # bitmap-encoded: the direction heuristic probes it with each frontier
        return Vector._from_part(self.n, self.grid, self.backend, part.to_bitmap(self.backend))


# -- where a conversion out comes out ----------------------------------------------------------
def checked_root(grid, root, *, everywhere: bool = False):
    """Collective: ``root`` as an int rank, or None (every rank) where ``everywhere`` allows it."""
    def checked():
        if root is None and everywhere:
            return None
        if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < grid.size:
            also = " (or None: on every rank)" if everywhere else ""
            raise InvalidValue(f"root must be a rank in [0, {grid.size}){also}, got {root!r}")
        return int(root)
    return grid.agree(checked)


def gathered_edges(A: "Matrix", root: int | None, *, ordered: bool = True):
    """Collective: every stored edge as int64 (src, dst) on ``root``, (None, None) elsewhere;
    on every rank when ``root`` is None. Sorted by (src, dst) when ``ordered``."""
    root = checked_root(A.grid, root, everywhere=True)
    src, dst = A.local_edges()
    if A.grid.size > 1:
        if root is None:
            pieces = A.grid.comm.allgather((src, dst))
        else:
            pieces = A.grid.comm.gather((src, dst), root=root)
            if A.grid.rank != root:
                return None, None
        src = np.concatenate([p[0] for p in pieces])
        dst = np.concatenate([p[1] for p in pieces])
    if not ordered:
        return src.astype(np.int64, copy=False), dst.astype(np.int64, copy=False)
    order = np.lexsort((dst, src))
    return src[order].astype(np.int64), dst[order].astype(np.int64)
