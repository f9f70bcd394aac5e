"""The distributed sparse vector.

Processor (i, j) holds the entries of vertex block ``j*R + i`` as a :class:`LocalPart` (list or
bitmap encoding, see :mod:`lagraph_dist.local`). Conversions between encodings are explicit
and local; everything that crosses ranks is collective.
"""
from __future__ import annotations

import numpy as np

from lagraph_dist import collectives
from lagraph_dist.backend import get_backend
from lagraph_dist.checks import check_size, check_vertex_array
from lagraph_dist.errors import DimensionMismatch, DomainMismatch
from lagraph_dist.grid import Layout, default_grid
from lagraph_dist.local import LocalPart, combine_duplicates
from lagraph_dist.semirings import any_

__all__ = ["Vector"]


def _on_host(data, backend):
    """User input as host data: device arrays of the backend are copied back."""
    return backend.to_host(data) if type(data).__module__.startswith("cupy") else data


class Vector:
    """A distributed sparse vector of size ``n`` on a grid (see the module docstring)."""

    def __init__(self, dtype, size, *, grid=None, backend="auto"):
        """An empty vector of ``size`` entries of ``dtype`` (python-graphblas's ``Vector(dtype,
        size)``). Not collective: every rank builds its own empty part."""
        grid = grid or default_grid()
        backend = get_backend(backend)
        size = check_size(size, "size")
        dtype = np.dtype(dtype)
        self._set(size, grid, backend, LocalPart.empty(Layout(size, grid.rows, grid.cols).block_len,
                                                       dtype, backend))

    @classmethod
    def _from_part(cls, n, grid, backend, part: LocalPart, op_stats=None) -> "Vector":
        """The vector whose local part on this rank is ``part`` (internal constructor)."""
        vector = cls.__new__(cls)
        vector._set(n, grid, backend, part, op_stats)
        return vector

    def _set(self, n, grid, backend, part, op_stats=None):
        self.n = n
        self.grid = grid
        self.backend = backend
        self.layout = Layout(n, grid.rows, grid.cols)
        self.part = part
        self.op_stats = op_stats     # set by the product that made this vector
        # What the product that made this vector knows, so that later steps need no collective:
        self._global = None          # collectives.GlobalCounts: entries per rank, out-edges
        self._push_degrees = None    # the degree vector ``_global.push_edges`` was summed over
        self._known_nvals = None     # the global entry count, when known on every rank
        self._disjoint_from = None   # a mask vector this vector's entries are all outside of
        self._candidates = None      # (mask, output space, words): what the product found
        self._mask_caches = {}       # as a mask: lower bounds of its pattern (ops._MaskCache)

    def _replace_part(self, part):
        """A new part: everything derived from the old one is dropped."""
        self._set(self.n, self.grid, self.backend, part, self.op_stats)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_indices(cls, indices, n, *, values=None, grid=None, backend="auto", dtype=None):
        """Collective. Each rank passes its share of the entries (any rank may pass any id);
        duplicates keep one of their values. Without ``values`` the entries are boolean True.
        """
        grid = grid or default_grid()
        backend = get_backend(backend)
        n = grid.agree(check_size, n)
        host = get_backend("cpu")     # entries are checked, routed and merged on the host

        def checked():
            ids = check_vertex_array(_on_host(indices, backend), n, "vector indices", np)
            if values is None:
                vals = np.ones(ids.shape[0], dtype=dtype or bool)
            else:
                vals = np.asarray(_on_host(values, backend), dtype=dtype)
                if vals.shape != ids.shape:
                    raise DimensionMismatch(f"{vals.shape[0] if vals.ndim else 'scalar'} values "
                                            f"for {ids.shape[0]} indices")
                if vals.dtype.kind not in "biuf":
                    raise DomainMismatch(f"vector values must be numeric, got {vals.dtype}")
            return ids, vals

        ids, vals = grid.agree(checked)
        layout = Layout(n, grid.rows, grid.cols)
        ids, vals = collectives.route_to_owners(layout.owner_rank(ids), [ids, vals], grid.transport.world, host)
        start, _ = layout.block_range(grid.row, grid.col)
        local, vals = combine_duplicates((ids - start).astype(np.int32), vals, any_, np)
        part = LocalPart.from_list(backend.asarray(local), backend.asarray(vals), layout.block_len)
        return cls._from_part(n, grid, backend, part)

    @classmethod
    def empty(cls, n, *, dtype=bool, grid=None, backend="auto"):
        """Collective. A vector with no entries."""
        return cls.from_indices([], n, dtype=dtype, grid=grid, backend=backend)

    def _like(self, part, op_stats=None):
        return Vector._from_part(self.n, self.grid, self.backend, part, op_stats)

    def _same_entries(self, part):
        """A vector of the same entries in another encoding: what is known of them carries over."""
        other = self._like(part, self.op_stats)
        other._global, other._push_degrees, other._known_nvals = self._global, self._push_degrees, self._known_nvals
        other._disjoint_from, other._candidates = self._disjoint_from, self._candidates
        return other

    # -- properties -----------------------------------------------------------------------
    @property
    def dtype(self):
        return self.part.dtype

    @property
    def encoding(self):
        return self.part.encoding

    @property
    def nvals(self) -> int:
        """Collective: number of entries over all ranks (no communication when the product or
        assignment that made it already knows)."""
        if self._known_nvals is None:
            self._known_nvals = int(self.grid.allreduce(self.part.nvals))
        return self._known_nvals

    @property
    def local_nvals(self) -> int:
        return self.part.nvals

    def __repr__(self):
        return (f"<Vector n={self.n} dtype={self.dtype} local_nvals={self.part.nvals} "
                f"encoding={self.encoding} on {self.grid.rows}x{self.grid.cols} {self.backend.name}>")

    # -- encodings (local, explicit) -------------------------------------------------------
    def to_list(self) -> "Vector":
        """This vector list-encoded: itself when it already is (so an in-place ``assign`` into
        the result is visibly an assign into this vector), else a new vector."""
        return self if self.encoding == "list" else self._same_entries(self.part.to_list(self.backend))

    def to_bitmap(self) -> "Vector":
        """This vector bitmap-encoded: itself when it already is, else a new vector."""
        return self if self.encoding == "bitmap" else self._same_entries(self.part.to_bitmap(self.backend))

    # -- gathers (collective) --------------------------------------------------------------
    def local_entries(self):
        """This rank's (global int64 ids, values), in increasing id order."""
        part = self.part.to_list(self.backend)
        start, _ = self.layout.block_range(self.grid.row, self.grid.col)
        return part.ids.astype(np.int64) + start, part.values

    def _gather(self):
        ids, values = self.local_entries()
        ids = collectives.allgather_arrays(ids, self.grid.transport.world, self.backend)
        values = collectives.allgather_arrays(values, self.grid.transport.world, self.backend)
        return ids, values

    def indices(self):
        """Collective: sorted int64 global ids of the entries, on every rank."""
        ids, _ = self._gather()
        return np.sort(ids)

    def to_numpy(self, fill=-1):
        """Collective: the dense numpy array on every rank, ``fill`` where there is no entry."""
        ids, values = self._gather()
        dtype = np.result_type(values.dtype, np.min_scalar_type(fill)) if values.dtype != bool else (
            np.int64 if fill not in (True, False) else bool)
        dense = np.full(self.n, fill, dtype=dtype)
        dense[ids] = values
        return dense
