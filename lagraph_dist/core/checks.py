"""Argument checks shared by every public entry point. Each names the bad value."""
from __future__ import annotations

import numbers

import numpy as np

from lagraph_dist.core.direction import DIRECTIONS
from lagraph_dist.core.errors import DomainMismatch, IndexOutOfBound, InvalidValue
from lagraph_dist.core.text import plural

__all__ = ["check_size", "check_vertex", "check_vertex_array", "check_optional_count", "check_search_options"]


def check_size(n, what="n"):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise DomainMismatch(f"{what} must be an integer, got {n!r}")
    if n < 1:
        raise InvalidValue(f"{what} must be >= 1, got {n}")
    return int(n)


def check_vertex(v, n, what="source"):
    """A single vertex id: an integer (not bool, not float) in [0, n)."""
    if type(v) is int and 0 <= v < n:     # the usual case, without the ABC check's cost
        return v
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


def check_optional_count(value, what, low):
    """None, or an integer (not bool) >= ``low``."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise DomainMismatch(f"{what} must be an integer or None, got {value!r}")
    if value < low:
        raise InvalidValue(f"{what} must be >= {low}, got {value}")
    return int(value)


def check_search_options(what, *, levels, parents, direction, alpha, beta, depth_limit):
    """The options of every breadth-first search (``what`` names the entry point): a direction
    of :data:`~lagraph_dist.core.direction.DIRECTIONS`, at least one output, Beamer's ``alpha`` and
    ``beta`` positive numbers (a bool is no number here), a depth limit None or >= 0."""
    if direction not in DIRECTIONS:
        raise InvalidValue(f"unknown direction {direction!r}; choose one of {', '.join(DIRECTIONS)}")
    if not (levels or parents):
        raise InvalidValue(f"{what} needs levels=True or parents=True (or both)")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if isinstance(value, bool) or not (isinstance(value, (int, float)) and value > 0):
            raise InvalidValue(f"{name} must be a positive number, got {value!r}")
    check_optional_count(depth_limit, "depth_limit", 0)
