"""A graph's degree-ordered twin, on which the fused multi-source batches of one process run.

A batch's pull row reads its in-edges until it holds the bit of every search that has not reached
it, so it reads nearly all of them unless the first ones it reads hold many bits. Numbered by
decreasing degree (:func:`lagraph_dist.sort_by_degree`, LAGraph's ``LAGr_SortByDegree``), a row's
in-edges start at the hubs, which every search reaches in its first levels, so a row fills sooner,
and the frontier words that most in-edges read lie side by side at the head of each array, where
the caches keep them. The Graph500 generator scatters the hubs on purpose; a real graph's ids may
do the same.

So :func:`degree_twin` gives, where ``settings.multi_degree_order`` asks for it, the matrix
renumbered that way (``A.permuted``), made once and kept with ``A`` like its other derived forms;
``bfs_multi`` runs a fused batch on it from the sources' new ids, and :meth:`DegreeTwin.given_order`
puts the batch's rows back in ``A``'s order (and its parents' ids back in ``A``'s ids) when its
rows are first read (:class:`~lagraph_dist.algebra.multi.RowsElsewhere`), so no caller sees the
twin's ids; a reduction of levels over each search's vertices (closeness, eccentricity) reads
them as they are and never pays for the put-back. The twin costs a second copy of the graph
and its build (a counting sort of the edges), which only many searches repay
(docs/notes/gpu-multi-source.md, "The degree-ordered twin"): ``"auto"`` makes it once a graph's
calls have asked for the kernel set's ``MULTI_TWIN_AFTER`` searches, levels only.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from lagraph_dist.algebra.matrix import inverse_permutation
from lagraph_dist.algebra.multi import RowsElsewhere
from lagraph_dist.algorithms.ordering import sort_by_degree
from lagraph_dist.core.errors import InvalidValue, OutOfDeviceMemory, OutOfHostMemory
from lagraph_dist.core.settings import settings
from lagraph_dist.local.engine import LevelPlanes, thin_graph

__all__ = ["DegreeTwin", "degree_twin", "kept_twin", "DEGREE_ORDERS"]

#: ``settings.multi_degree_order``'s values: by the searches asked for, always, never
DEGREE_ORDERS = ("auto", "always", "never")

_TWIN = "degree twin"          # the key of the twin in the matrix's cache
_ASKED = "multi searches asked"
_REFUSED = "degree twin refused"      # "auto" found no room for it: not tried again


@dataclass
class DegreeTwin:
    """``matrix``: ``A`` renumbered by decreasing out-degree (its vertex k is ``A``'s
    ``order[k]``; ``A``'s vertex v is its ``new[v]``), host int64 arrays; where the backend
    holds its arrays, ``order_then_none`` (``order``, then -1, int32) and the rows a block's put
    back takes (made for the first block); ``build_seconds``: what making it took."""

    matrix: object
    order: np.ndarray
    new: np.ndarray
    order_then_none: object
    build_seconds: float
    rows_from: object = None

    def sources(self, sources: np.ndarray) -> np.ndarray:
        """The twin's ids of ``A``'s sources."""
        return self.new[sources]

    def rows_elsewhere(self, block, *, ids: bool):
        """A batch's block of the twin, to be put back (:meth:`given_order`) only where its rows
        are read: a reduction of levels over each search's vertices reads it as it is."""
        return None if block is None else RowsElsewhere(block, lambda b: self.given_order(b, ids=ids),
                                                        order_free=not ids)

    def given_order(self, block, *, ids: bool):
        """A batch's block of the twin (a (rows, k) int32 array, :class:`LevelPlanes`, or None)
        with its rows in ``A``'s order: row v is the twin's row ``new[v]``; with ``ids`` its
        values (parents, -1 where unreached) are ``A``'s ids. The rows past n (the block's
        padding) stay as they are."""
        if block is None:
            return None
        xp = self.matrix.backend.xp
        if isinstance(block, LevelPlanes):          # one gather each: the rows, then their ids
            return LevelPlanes(xp.take(block.words, self._rows_from(block.words.shape[1]), axis=1), block.k)
        rows = xp.take(block, self._rows_from(block.shape[0]), axis=0)
        return self.order_then_none[rows] if ids else rows     # (-1, unreached, indexes the last)

    def _rows_from(self, rows):
        """Row r of the put-back block is the twin's row ``new[r]`` (r < n), else r (padding)."""
        if self.rows_from is None or self.rows_from.shape[0] != rows:
            n = self.new.shape[0]
            self.rows_from = self.matrix.backend.asarray(np.concatenate([self.new, np.arange(n, rows)]))
        return self.rows_from


def degree_twin(A, searches: int, *, parents: bool) -> DegreeTwin | None:
    """``A``'s twin for a call that asks for ``searches`` fused searches (``parents``: with their
    parents), or None where the batches run on ``A`` itself. ``settings.multi_degree_order``:
    "never", or one process only and "always"; "auto" makes it (once, kept) when the kernel set
    says after how many searches it pays (``MULTI_TWIN_AFTER``), the graph's calls have asked for
    that many in all, they are levels only (a parents table put back costs about what the twin
    saves), the graph is not thin (a mesh's or a path's degrees are nearly all equal: no hubs
    to put first) and the twin fits in the free memory (else the batches stay on ``A``)."""
    mode = settings.multi_degree_order
    if mode not in DEGREE_ORDERS:
        raise InvalidValue(f"settings.multi_degree_order must be one of {', '.join(DEGREE_ORDERS)}, got {mode!r}")
    if mode == "never" or A.grid.size != 1:
        return None
    asked = A._cache.get(_ASKED, 0) + int(searches)
    A._cache[_ASKED] = asked
    if _TWIN in A._cache:
        return A._cache[_TWIN]
    if mode == "always":                # (asked for: a twin that does not fit raises, saying so)
        A._cache[_TWIN] = _made(A)
    elif not A._cache.get(_REFUSED) and _pays(A, asked, parents):
        try:
            A._cache[_TWIN] = _made(A)
        except (OutOfDeviceMemory, OutOfHostMemory):     # (refused before allocating: the batches run on A, as before)
            A._cache[_REFUSED] = True
    return A._cache.get(_TWIN)


def kept_twin(A) -> DegreeTwin | None:
    """The twin ``A`` keeps, if a call made one (nothing counted, nothing made)."""
    return A._cache.get(_TWIN)


def _pays(A, asked, parents) -> bool:
    after = A.backend.kernels.MULTI_TWIN_AFTER
    return after is not None and asked >= after and not parents and not thin_graph(A.nvals, A.n)


def _made(A) -> DegreeTwin:
    started = time.perf_counter()
    order = np.asarray(sort_by_degree(A), dtype=np.int64)
    new = inverse_permutation(order)
    B = A.permuted(order)
    then_none = A.backend.asarray(np.concatenate([order, [-1]]).astype(np.int32))
    return DegreeTwin(B, order, new, then_none, time.perf_counter() - started)
