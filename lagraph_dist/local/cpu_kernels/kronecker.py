"""Graph500 Kronecker edges compiled for the host: the twin of ``kernels/kronecker.cuh`` (whose
comments say the arithmetic: splitmix64 draws, R-MAT quadrants, the seeded bijection of the vertex
ids), one edge an iteration, the edges split among the kernels' threads. Every operation is on
uint64 with uint64 constants, so numba wraps as the CUDA code does (an int64 operand would turn
the arithmetic into float64)."""
from __future__ import annotations

import numba
import numpy as np

from lagraph_dist.local.cpu_kernels.common import chunks_for

__all__ = ["kronecker_edges"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_FINALISE_1, _FINALISE_2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@numba.njit(cache=True, inline="always")
def _finalise(z):
    z ^= z >> np.uint64(30)
    z *= _FINALISE_1
    z ^= z >> np.uint64(27)
    z *= _FINALISE_2
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def _permute(v, scale, keys):
    mask = (np.uint64(1) << np.uint64(scale)) - np.uint64(1)
    shift = np.uint64((scale + 1) // 2)
    for r in range(keys.shape[0] // 2):
        v = (v + keys[2 * r]) & mask
        v ^= v >> shift
        v = (v * keys[2 * r + 1]) & mask
    return v ^ (v >> shift)


@numba.njit(cache=True, nogil=True, parallel=True)
def _edges(first, scale, level_keys, thresholds, permute_keys, src, dst, nchunks):
    count = src.shape[0]
    for c in numba.prange(nchunks):
        for i in range(count * c // nchunks, count * (c + 1) // nchunks):
            counter = np.uint64(first + i)
            s, d = np.uint64(0), np.uint64(0)
            for level in range(0, scale, 2):
                draw = _finalise(counter * _GOLDEN + level_keys[level // 2])
                for half in range(2):
                    if level + half < scale:
                        part = (draw >> np.uint64(32)) if half == 0 else (draw & _LOW32)
                        row = np.uint64(part >= thresholds[1])
                        col = np.uint64(part >= thresholds[0]) ^ row ^ np.uint64(part >= thresholds[2])
                        s |= row << np.uint64(level + half)
                        d |= col << np.uint64(level + half)
            src[i] = np.int64(_permute(s, scale, permute_keys))
            dst[i] = np.int64(_permute(d, scale, permute_keys))


def kronecker_edges(first, count, scale, level_keys, thresholds, permute_keys):
    """int64 (src, dst) of edges ``first .. first + count - 1`` (``Kernels.kronecker_edges``)."""
    src, dst = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
    if count:
        _edges(np.int64(first), scale, level_keys, thresholds, permute_keys, src, dst, chunks_for(count))
    return src, dst


def warm_up():
    """Compile the generator (the suite's ranks load it from the cache)."""
    keys = np.ones(6, dtype=np.uint64)
    kronecker_edges(0, 64, 6, np.zeros(3, dtype=np.uint64), np.zeros(3, dtype=np.uint64), keys)
