"""Argument checks shared by every public entry point. Each names the bad value."""
from __future__ import annotations

import numbers

import numpy as np

from lagraph_dist.errors import DomainMismatch, IndexOutOfBound, InvalidValue
from lagraph_dist.text import plural

__all__ = ["check_size", "check_vertex", "check_vertex_array"]


def check_size(n, what="n"):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise DomainMismatch(f"{what} must be an integer, got {n!r}")
    if n < 1:
        raise InvalidValue(f"{what} must be >= 1, got {n}")
    return int(n)


def check_vertex(v, n, what="source"):
    """A single vertex id: an integer (not bool, not float) in [0, n)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise DomainMismatch(f"{what} must be an integer vertex id, got {v!r}")
    if not 0 <= v < n:
        raise IndexOutOfBound(f"{what} {v} is out of range for a graph of {plural(n, 'vertex')}")
    return int(v)


def check_vertex_array(ids, n, what="vertex ids", xp=np):
    """A 1-D integer array of ids in [0, n), as int64 of the backend ``xp``."""
    if isinstance(ids, (list, tuple)) and len(ids) == 0:
        return xp.zeros(0, dtype=np.int64)
    ids = xp.asarray(ids)
    if ids.ndim != 1:
        raise InvalidValue(f"{what} must be one-dimensional, got shape {ids.shape}")
    if ids.size == 0:
        return ids.astype(np.int64)
    if ids.dtype.kind not in "iu":
        kind = "NaN" if ids.dtype.kind == "f" and bool(xp.isnan(ids).any()) else ids.dtype.name
        raise DomainMismatch(f"{what} must be integers, got {kind} values")
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= n:
        bad = low if low < 0 else high
        raise IndexOutOfBound(f"{what} contain {bad}, outside [0, {n})")
    return ids.astype(np.int64, copy=False)
