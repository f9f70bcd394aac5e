"""Small graphs of the GPU backend searched by the host's compiled kernels.

A search on one GPU costs its call's fixed price (the launch, the report's read and the Python
around them: 40-200 us, docs/notes/host-overhead.md) however small the graph, and a level costs
a grid barrier; a graph of a few thousand edges is searched whole by the host's compiled kernels
(the CPU backend's) in less. So on one process, a matrix of the GPU backend with at most
``settings.host_search_edges`` stored edges has a *host twin*: the CPU backend's Matrix of the
same block, copied from the device once and kept with the block. ``ld.bfs`` runs on it when
:func:`host_twin` gives one (``lagraph_dist.algorithms.small_graphs``), and what it returns is
made the GPU backend's again by :func:`held_on_host`: a vector keeps the host's arrays, copied to
the device only when a device operation first reads it (:class:`HostHeldVector`), so reading a
result with ``to_numpy`` never touches the device.
"""
from __future__ import annotations

from lagraph_dist.algebra.matrix import LocalBlock, Matrix
from lagraph_dist.algebra.multi import DenseRows
from lagraph_dist.algebra.vector import Facts, Vector
from lagraph_dist.core.settings import settings
from lagraph_dist.local.backend import get_backend
from lagraph_dist.local.parts import LocalCSR, LocalPart

__all__ = ["may_have_twin", "host_twin", "held_on_host", "HostHeldVector"]

_TWIN = "host twin"          # the key of a matrix's twin in its cache, and of its block's in the block's derived


def may_have_twin(A: Matrix) -> bool:
    """Whether a call on ``A`` may run on a host twin at all: ``A`` is the GPU backend's, on one
    process, and ``settings.host_search_edges`` is not 0 (the first of :func:`host_twin`'s terms,
    which a caller on the CPU backend stops at)."""
    return A.backend.name == "gpu" and A.grid.size == 1 and settings.host_search_edges > 0


def host_twin(A: Matrix, most_edges: int | None = None) -> Matrix | None:
    """The CPU backend's Matrix of ``A``'s block (made once, kept) when a call on ``A`` may run
    on the host: ``A`` is the GPU backend's, on one process, with at most ``most_edges`` (default
    ``settings.host_search_edges``) stored edges, and ``settings.host_search_edges`` is not 0
    (0: every call where A lives); else None (the call runs where A lives)."""
    most_edges = settings.host_search_edges if most_edges is None else most_edges
    if not may_have_twin(A) or A.nvals > most_edges:
        return None
    twin = A._cache.get(_TWIN)
    if twin is None:
        host = get_backend("cpu")
        twin = Matrix(A.n, A.grid, host, _twin_block(A.block, host), A.nvals, symmetric=A.symmetric,
                      transposed=A.transposed)
        twin._labels = A._labels
        A._cache[_TWIN] = twin
    return twin


def _twin_block(block: LocalBlock, host) -> LocalBlock:
    """The host copy of a device block, kept in its by-source CSR's derived dict (a block is never
    changed in place; the views A and A.T share it)."""
    derived = block.by_col.derived
    if _TWIN not in derived:
        by_col = _host_csr(block.by_col, block._backend)
        twin = LocalBlock(by_col, host, by_row_is_by_col=block.has_by_row and block.by_row is block.by_col)
        if block.has_by_row and block.by_row is not block.by_col:
            twin._by_row = _host_csr(block.by_row, block._backend)
        derived[_TWIN] = twin
    return derived[_TWIN]


def _host_csr(csr: LocalCSR, backend) -> LocalCSR:
    return LocalCSR(backend.to_host(csr.indptr), backend.to_host(csr.indices), csr.nminor)


class HostHeldVector(Vector):
    """A GPU backend vector whose entries a search on the host made: its part stays in host
    memory until something reads ``part`` (every device operation does), which copies it to the
    device once; from then on it is an ordinary device vector. The reads that end on the host
    (``to_numpy``, ``to_coo``, ``indices``, ``nvals``, ``dtype``) read the host's arrays, through
    :meth:`_readable_part`."""

    def __init__(self, host_vector: Vector, backend):
        self._host, self._device = host_vector.part, None
        self.n, self.grid, self.backend, self.layout = host_vector.n, host_vector.grid, backend, host_vector.layout
        self.op_stats, self.facts = host_vector.op_stats, Facts()
        self.facts.nvals = host_vector.facts.nvals     # (the rest of its facts name host arrays)

    @property
    def part(self) -> LocalPart:
        if self._host is not None:
            self._device, self._host = self._host.converted(self.backend.asarray), None
        return self._device

    @part.setter
    def part(self, part):
        self._device, self._host = part, None

    @property
    def held_on_host(self) -> bool:
        """Whether the entries are still only in host memory (no device operation read them)."""
        return self._host is not None

    def _readable_part(self):
        """The host's part while the entries are held there (no copy to the device)."""
        return (self._host, get_backend("cpu")) if self._host is not None else (self._device, self.backend)


def held_on_host(result, A: Matrix):
    """``result`` of a call run on ``A``'s host twin as ``A``'s backend's: a Vector as a
    :class:`HostHeldVector`; a batch's rows (:class:`~lagraph_dist.algebra.multi.DenseRows`) as
    ``A``'s backend's rows of the same blocks, in host memory (as a batch whose outputs were
    moved to the host); a search's result (``BFSResult``, ``MultiBFSResult``) with its
    ``levels`` and ``parents`` so, in place."""
    if isinstance(result, Vector):
        return HostHeldVector(result, A.backend)
    if isinstance(result, DenseRows):
        return DenseRows(result.n, A.grid, A.backend, result.blocks)
    for name in ("levels", "parents"):
        made = getattr(result, name, None)
        if made is not None:
            setattr(result, name, held_on_host(made, A))
    return result
