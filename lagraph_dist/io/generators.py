"""Deterministic, partitionable edge generators (Graph500 Kronecker, uniform random, 2-D grid).

Every generator returns the edges of one *part* of the graph: with ``M`` edges in all, part ``p``
of ``nparts`` gets edges ``[p*M//nparts, (p+1)*M//nparts)``.  Edge ``k`` is a pure function of
``(seed, k)`` -- a counter-based hash, no random state -- so concatenating the parts gives the
same arrays whatever ``nparts`` is, on any device.

``xp`` is the array module (``numpy`` or ``cupy``); only operations both provide are used, and all
hashing is done in wrapping ``uint64`` arithmetic.
"""

from __future__ import annotations

import numpy

from lagraph_dist.comm.collective import collective
from lagraph_dist.local.backend import get_backend
from lagraph_dist.core.errors import DomainMismatch, InvalidValue
from lagraph_dist.comm.grid import default_grid
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.algebra.memory import EDGES_PER_CHUNK, kronecker_alternatives

__all__ = ["kronecker", "kronecker_edges", "uniform_edges", "grid2d_edges", "knn_edges"]

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15  # 2**64 / golden ratio, odd: splitmix64's counter increment
_FINALISE_1, _FINALISE_2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB     # splitmix64's multipliers

# Graph500 initiator: quadrant probabilities of the top-left, top-right, bottom-left blocks.
GRAPH500_A, GRAPH500_B, GRAPH500_C = 0.57, 0.19, 0.19

MAX_SCALE = 40
# Edges generated per batch.  Bounds the uint64 temporaries; on the CPU a batch that stays in
# cache is also several times faster than one long pass per operation.
_CHUNK_HOST = 1 << 16
_CHUNK_DEVICE = 1 << 24

# Hash streams: distinct uses of the hash never share (stream, counter) pairs.
_STREAM_PERMUTE = 1 << 32
_STREAM_UNIFORM_SRC = (1 << 32) + 1
_STREAM_UNIFORM_DST = (1 << 32) + 2
_STREAM_POINT_X = (1 << 32) + 3
_STREAM_POINT_Y = (1 << 32) + 4
# Kronecker levels 2m and 2m+1 use the high and low 32 bits of stream m.

_PERMUTE_ROUNDS = 3


# --------------------------------------------------------------------------------------------
# the hash
# --------------------------------------------------------------------------------------------


def _hash64(xp, seed: int, stream: int, counter):
    """64 pseudo-random bits for each ``counter`` under ``(seed, stream)``.

    splitmix64: the output is the splitmix64 finaliser of ``key + counter * golden``, where the
    key is itself the finaliser applied twice to ``seed`` and ``stream``, so different streams
    start far apart in the sequence and look independent.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``.
    seed, stream : int
        Non-negative, below ``2**64``.
    counter : xp.ndarray of uint64

    Returns
    -------
    xp.ndarray of uint64, the shape of ``counter``.
    """
    z = counter * xp.uint64(_GOLDEN)
    z += xp.uint64(_stream_key(seed, stream))
    return _finalise(xp, z)


def _finalise(xp, z):
    """splitmix64's finaliser, in place on a uint64 array (numpy warns on scalar uint64
    overflow but wraps arrays)."""
    z ^= z >> xp.uint64(30)
    z *= xp.uint64(_FINALISE_1)
    z ^= z >> xp.uint64(27)
    z *= xp.uint64(_FINALISE_2)
    z ^= z >> xp.uint64(31)
    return z


def _stream_key(seed: int, stream: int) -> int:
    """The key of stream ``stream`` under ``seed``: the finaliser applied to the seed, then to
    that xor the stream's start, so different streams start far apart and look independent."""
    def once(value):
        return int(_finalise(numpy, numpy.array([value], dtype=numpy.uint64))[0])
    return once(once((seed + _GOLDEN) & _MASK64) ^ ((stream * _GOLDEN) & _MASK64))


# --------------------------------------------------------------------------------------------
# argument checks and partitioning
# --------------------------------------------------------------------------------------------


def _check_int(name: str, value, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]``; DomainMismatch if not an int, else InvalidValue."""
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)):
        raise DomainMismatch(f"{name} must be an int, got {type(value).__name__} {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise InvalidValue(f"{name} must be {bound}, got {value}")
    return value


def _check_part(part, nparts) -> tuple[int, int]:
    nparts = _check_int("nparts", nparts, 1)
    part = _check_int("part", part, 0)
    if part >= nparts:
        raise InvalidValue(f"part must be in [0, nparts={nparts}), got {part}")
    return part, nparts


def _part_range(total: int, part: int, nparts: int) -> tuple[int, int]:
    """Edges ``[lo, hi)`` of ``part``: the split that makes the union independent of nparts."""
    return part * total // nparts, (part + 1) * total // nparts


def _chunked(xp, lo: int, hi: int, make):
    """Concatenate ``make(counter)`` over batches of ``_CHUNK_HOST`` or ``_CHUNK_DEVICE`` edges."""
    chunk = _CHUNK_HOST if xp is numpy else _CHUNK_DEVICE
    srcs, dsts = [], []
    for start in range(lo, max(hi, lo + 1), chunk):
        stop = min(start + chunk, hi)
        counter = xp.arange(start, stop, dtype=xp.int64).astype(xp.uint64)
        src, dst = make(counter)
        srcs.append(src.astype(xp.int64))
        dsts.append(dst.astype(xp.int64))
    if len(srcs) == 1:
        return srcs[0], dsts[0]
    return xp.concatenate(srcs), xp.concatenate(dsts)


# --------------------------------------------------------------------------------------------
# Kronecker (R-MAT)
# --------------------------------------------------------------------------------------------


def check_kronecker_arguments(scale, edgefactor, seed):
    """(scale, edgefactor, seed) as ints, or the error naming the bad one."""
    scale = _check_int("scale", scale, 1, MAX_SCALE)
    edgefactor = _check_int("edgefactor", edgefactor, 1)
    seed = _check_int("seed", seed, 0, _MASK64)
    if edgefactor << scale >= 1 << 63:
        raise InvalidValue(f"edgefactor * 2**scale = {edgefactor << scale} edges does not fit in int64")
    return scale, edgefactor, seed


def kronecker_edges(scale, edgefactor=16, *, seed=0, part=0, nparts=1, xp=numpy):
    """Edges of one part of a Graph500 Kronecker graph.

    ``M = edgefactor * 2**scale`` directed edges over ``2**scale`` vertices.  For each edge and
    each of the ``scale`` bit levels one hashed draw picks a quadrant with probabilities
    A=0.57, B=0.19, C=0.19, D=0.05, setting that bit of the row (C, D) and column (B, D); the
    labels are then scrambled by a seeded bijection of ``[0, 2**scale)``.  Self-loops and
    duplicate edges are kept and no reverse edges are added: callers clean and symmetrize.

    Parameters
    ----------
    scale : int
        log2 of the vertex count, in ``[1, 40]``.
    edgefactor : int, optional
        Edges per vertex, ``>= 1``.
    seed : int, optional
        In ``[0, 2**64)``; selects the graph and the vertex permutation.
    part, nparts : int, optional
        Which of ``nparts`` contiguous slices of the edge list to return.
    xp : module, optional
        ``numpy`` or ``cupy``; the arrays are made with it.

    Returns
    -------
    src, dst : xp.ndarray of int64
        ``(p+1)*M//nparts - p*M//nparts`` edges, endpoints in ``[0, 2**scale)``.

    Raises
    ------
    DomainMismatch
        An argument is not an int.
    InvalidValue
        An argument is out of range, or ``M`` does not fit in int64.
    """
    scale, edgefactor, seed = check_kronecker_arguments(scale, edgefactor, seed)
    part, nparts = _check_part(part, nparts)
    total = edgefactor << scale
    lo, hi = _part_range(total, part, nparts)
    # compiled where the arrays live (kernels/kronecker.cuh and its numba twin): one pass, no
    # temporaries, where array operations took about 30 passes over a chunk a level pair
    kernels = get_backend("cpu" if xp is numpy else "gpu").kernels
    return kernels.kronecker_edges(lo, hi - lo, scale, *kronecker_plan(scale, seed))


def kronecker_plan(scale: int, seed: int):
    """What a compiled generator (``kernels/kronecker.cuh``) takes from the host, as uint64
    arrays: each level pair's stream key, the quadrant thresholds, and the vertex bijection's
    (addend, multiplier) keys, round by round."""
    level_keys = numpy.array([_stream_key(seed, m) for m in range((scale + 1) // 2)], dtype=numpy.uint64)
    thresholds = numpy.array(_quadrant_thresholds(), dtype=numpy.uint64)
    permute_keys = numpy.array([k for pair in _permutation_keys(seed, scale) for k in pair], dtype=numpy.uint64)
    return level_keys, thresholds, permute_keys


def _quadrant_thresholds() -> tuple[int, int, int]:
    """Cumulative A, A+B, A+B+C scaled to 32 bits: a draw below one lands in that quadrant."""
    cumulative = (GRAPH500_A, GRAPH500_A + GRAPH500_B, GRAPH500_A + GRAPH500_B + GRAPH500_C)
    return tuple(round(p * 2.0**32) for p in cumulative)


def _permutation_keys(seed: int, scale: int) -> list[tuple[int, int]]:
    """Per-round (addend, odd multiplier) keys of the vertex permutation, reduced to ``scale`` bits.

    Made on the host with numpy: they are a handful of ints, the same for every part and device.
    """
    mask = (1 << scale) - 1
    counter = numpy.arange(2 * _PERMUTE_ROUNDS, dtype=numpy.uint64)
    words = [int(w) for w in _hash64(numpy, seed, _STREAM_PERMUTE, counter).tolist()]
    return [(words[2 * r] & mask, (words[2 * r + 1] | 1) & mask) for r in range(_PERMUTE_ROUNDS)]


# --------------------------------------------------------------------------------------------
# uniform random and grid
# --------------------------------------------------------------------------------------------


def uniform_edges(n, nedges, *, seed=0, part=0, nparts=1, xp=numpy):
    """Edges of one part of a uniform random (Erdős–Rényi style) directed multigraph.

    Edge ``k`` has source and destination drawn independently and uniformly from ``[0, n)``.
    Self-loops and duplicates are kept.

    Parameters
    ----------
    n : int
        Vertex count, in ``[1, 2**63)``.
    nedges : int
        Total edge count (all parts), ``>= 0``.
    seed, part, nparts, xp
        As in :func:`kronecker_edges`.

    Returns
    -------
    src, dst : xp.ndarray of int64

    Raises
    ------
    DomainMismatch, InvalidValue
        As in :func:`kronecker_edges`.
    """
    n = _check_int("n", n, 1, (1 << 63) - 1)
    nedges = _check_int("nedges", nedges, 0, (1 << 63) - 1)
    seed = _check_int("seed", seed, 0, _MASK64)
    part, nparts = _check_part(part, nparts)
    lo, hi = _part_range(nedges, part, nparts)
    modulus = xp.uint64(n)

    def make(counter):
        # Modulo bias is at most n / 2**64: negligible for any graph that fits in memory.
        src = _hash64(xp, seed, _STREAM_UNIFORM_SRC, counter) % modulus
        dst = _hash64(xp, seed, _STREAM_UNIFORM_DST, counter) % modulus
        return src, dst

    return _chunked(xp, lo, hi, make)


def grid2d_edges(rows, cols, *, part=0, nparts=1, xp=numpy):
    """Edges of one part of a ``rows x cols`` 4-neighbour mesh, one direction only.

    Vertex ``(r, c)`` is ``r * cols + c``.  Edges ``[0, rows*(cols-1))`` go right
    (``v -> v + 1``), the rest go down (``v -> v + cols``); callers add the reverse edges.
    The diameter is ``rows + cols - 2``, which makes it a slow case for BFS.

    Parameters
    ----------
    rows, cols : int
        Mesh dimensions, ``>= 1``.
    part, nparts, xp
        As in :func:`kronecker_edges`.

    Returns
    -------
    src, dst : xp.ndarray of int64

    Raises
    ------
    DomainMismatch, InvalidValue
        An argument is not an int or out of range, or ``rows * cols`` does not fit in int64.
    """
    rows = _check_int("rows", rows, 1)
    cols = _check_int("cols", cols, 1)
    if rows * cols >= 1 << 63:
        raise InvalidValue(f"rows * cols = {rows * cols} vertices does not fit in int64")
    part, nparts = _check_part(part, nparts)
    nright = rows * (cols - 1)
    lo, hi = _part_range(nright + (rows - 1) * cols, part, nparts)
    width = max(cols - 1, 1)  # avoids dividing by zero when there are no right edges

    def make(counter):
        k = counter.astype(xp.int64)
        right = k < nright
        right_src = (k // width) * cols + k % width
        down_src = k - nright
        src = xp.where(right, right_src, down_src)
        dst = src + (cols - (cols - 1) * right.astype(xp.int64))  # +1 right, +cols down
        return src, dst

    return _chunked(xp, lo, hi, make)


def knn_edges(n, k=3, *, seed=0):
    """Edges of a road-like graph: ``n`` points in the unit square, each joined to its ``k``
    nearest others, one direction only (callers add the reverse edges, which gives each vertex
    ``k`` to about ``2 k`` neighbours). Its diameter grows like ``sqrt(n)``, as a road network's
    does, with the irregular degrees a mesh lacks.

    Point ``i``'s coordinates are the hash of ``(seed, i)``, as the other generators' edges are,
    so the graph is the same on every machine; the neighbours come from a k-d tree
    (``scipy.spatial.cKDTree``), on the host, for the whole graph (no parts: a neighbourhood
    needs every point).

    Parameters
    ----------
    n : int
        Points, ``>= k + 1``.
    k : int
        Neighbours a point, ``>= 1``.
    seed : int
        As in :func:`kronecker_edges`.

    Returns
    -------
    src, dst : numpy.ndarray of int64, ``n * k`` edges (a pair chosen by both ends appears twice)

    Raises
    ------
    DomainMismatch, InvalidValue
        An argument is not an int or out of range.
    """
    from scipy.spatial import cKDTree
    k = _check_int("k", k, 1)
    n = _check_int("n", n, k + 1, (1 << 31) - 1)
    seed = _check_int("seed", seed, 0, _MASK64)
    counter = numpy.arange(n, dtype=numpy.uint64)
    unit = 1.0 / float(1 << 53)                # the top 53 bits of a hash, as a float in [0, 1)
    points = numpy.stack([(_hash64(numpy, seed, stream, counter) >> numpy.uint64(11)) * unit
                          for stream in (_STREAM_POINT_X, _STREAM_POINT_Y)], axis=1)
    _, nearest = cKDTree(points).query(points, k=k + 1)
    src = numpy.repeat(numpy.arange(n, dtype=numpy.int64), k)
    return src, nearest[:, 1:].astype(numpy.int64).ravel()      # column 0 is the point itself


# -- the Graph500 graph as a Matrix -----------------------------------------------------------
def _kronecker_chunks(scale, edgefactor, seed, grid, backend):
    """This rank's Kronecker edges in chunks, self-loops dropped. Sub-part c of K splits the
    rank's share exactly (the generator's parts are index ranges), so the graph is the same
    whatever the grid and the chunking."""
    share = (edgefactor << scale) // grid.size + 1
    per_rank = max(1, -(-share // EDGES_PER_CHUNK))
    for c in range(per_rank):
        src, dst = kronecker_edges(scale, edgefactor, seed=seed, part=grid.rank * per_rank + c,
                                   nparts=grid.size * per_rank, xp=backend.xp)
        keep = src != dst
        yield src[keep], dst[keep]


@collective("scale", "edgefactor", "seed", "grid", "backend")
def kronecker(scale: int, edgefactor: int = 16, *, seed: int = 0, grid=None,
              backend="auto") -> Matrix:
    """Collective. The Graph500 Kronecker graph (A, B, C = 0.57, 0.19, 0.19), symmetric, labels
    permuted, self-loops dropped; each rank generates its own share, so the same
    (scale, edgefactor, seed) gives the same graph on any grid. On the GPU backend the edges
    are generated and the blocks built on the device.
    """
    grid = grid or default_grid()
    backend = get_backend(backend)
    scale, edgefactor, seed = grid.agree(check_kronecker_arguments, scale, edgefactor, seed)
    return Matrix._from_edge_maker(lambda: _kronecker_chunks(scale, edgefactor, seed, grid, backend),
                                   1 << scale, grid, backend, keys=2 * (edgefactor << scale), symmetrize=True,
                                   symmetric=True, what=f"a scale-{scale} Kronecker graph",
                                   otherwise=lambda free: kronecker_alternatives(scale, edgefactor, grid.shape,
                                                                                 backend, free))
