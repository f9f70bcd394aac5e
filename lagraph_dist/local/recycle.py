"""Large host arrays that a CPU kernel returns, recycled once nothing else holds them: the CPU
backend's counterpart of the memory pool CuPy keeps on the device.

A fresh array of tens of megabytes is fresh pages: the kernel that writes it first pays a page
fault every 4 KiB (or every 2 MiB, where the kernel gives transparent huge pages, at the price
of compaction stalls when memory is fragmented). A batch of 64 searches at Kronecker 18 writes a
67 MB levels table: its first touch took 5-120 ms of a 50-ms batch, varying with the host's
memory state. :func:`empty` hands back an array it made before, of the same shape and dtype,
once the caller's program holds no reference to it (none to the array, none to a view of it: a
view refers to its base), else a new one, before which the free arrays of other shapes are let
go; the arrays kept take at most :data:`KEPT_BYTES`. A caller that holds the last result while
asking for the next (a loop of calls) gets two arrays in turn.
"""
from __future__ import annotations

import math
import sys
import threading

import numpy as np

__all__ = ["empty", "maker", "RECYCLE_AT_LEAST", "SET_RECYCLED_AT_LEAST", "KEPT_BYTES", "kept_bytes", "free_bytes", "release"]

#: arrays smaller than this come from numpy as usual (malloc's heap: pages already mapped). glibc
#: maps a larger one afresh, and gives its pages back when it is freed: on the 2-core development
#: machine two arrays of 0.25 to 6 MB made, written and dropped in a loop faulted on nearly every
#: page each time (about 2 us a page, 0.9 ms for two of 1 MB)
RECYCLE_AT_LEAST = 128 << 10
#: a kernel's set of arrays (:func:`maker`) comes from numpy as usual while its largest is under
#: this. Four arrays of a queue search, cold (the caches flushed between calls), on the 2-core
#: development machine: of 160-180 KB, a call was 15-35 us faster with numpy's (recycle's lookups,
#: some 8 us each cold, cost more than what faulted); of 400 KB, even; of 800 KB, 3x slower
#: (0.61 ms recycled against 1.89)
SET_RECYCLED_AT_LEAST = 512 << 10
#: the arrays kept, in bytes at most (those in use count too)
KEPT_BYTES = 2 << 30

_kept: list[np.ndarray] = []
_lock = threading.Lock()


def _free(at) -> bool:
    """Whether kept array ``at`` has no holder but this list (its references: the list's and
    getrefcount's own argument; a view of it, anywhere, refers to it as its base)."""
    return sys.getrefcount(_kept[at]) <= 2


def empty(shape, dtype) -> np.ndarray:
    """An uninitialised array of ``shape`` and ``dtype`` (as ``np.empty``), recycled when a kept
    one of that shape and dtype is free."""
    dtype = np.dtype(dtype)
    shape = tuple(map(int, shape))
    if math.prod(shape, start=dtype.itemsize) < RECYCLE_AT_LEAST:   # (np.prod: 1.5 us a call)
        return np.empty(shape, dtype)
    with _lock:
        for at in range(len(_kept)):
            if _kept[at].shape == shape and _kept[at].dtype == dtype and _free(at):
                _kept.append(_kept.pop(at))      # (the most recently used last)
                return _kept[-1]
        _drop_free()                             # (no use for this shape: their memory is the new one's)
        array = np.empty(shape, dtype)
        if sum(a.nbytes for a in _kept) + array.nbytes <= KEPT_BYTES:
            _kept.append(array)
        return array


def maker(largest_bytes: int):
    """How to make a kernel's set of arrays, made and dropped together, of at most
    ``largest_bytes`` each: numpy's ``np.empty`` where all are below
    :data:`SET_RECYCLED_AT_LEAST` (a small graph's search, where :func:`empty`'s lookups cost
    more than the pages it saves), else :func:`empty`."""
    return np.empty if largest_bytes < SET_RECYCLED_AT_LEAST else empty


def _drop_free():
    for at in reversed(range(len(_kept))):
        if _free(at):
            del _kept[at]


def free_bytes() -> int:
    """Bytes of the kept arrays no one else holds: memory a new allocation of another shape
    gets back (:func:`lagraph_dist.local.fit.available_bytes` counts them as available)."""
    with _lock:
        return sum(_kept[at].nbytes for at in range(len(_kept)) if _free(at))


def kept_bytes() -> int:
    """Bytes of the arrays kept (in use or free)."""
    with _lock:
        return sum(a.nbytes for a in _kept)


def release():
    """Forget every kept array (those still in use stay alive with their holders)."""
    with _lock:
        _kept.clear()
