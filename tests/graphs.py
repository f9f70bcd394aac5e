"""Test graphs the tests make themselves, so that the suite needs nothing beside the checkout.

Each stands in for one kind of real graph the suite also reads when the shared data folder is
present (tests/helpers.py: data_dir). Plain numpy only: the MPI check scripts import this
module as well. Every function returns 0-based int64 edge arrays ``(src, dst)`` and ``n``;
``src[k] -> dst[k]`` is an edge.
"""
from __future__ import annotations

import numpy as np


def west_like_digraph(n: int = 67, seed: int = 67):
    """A small unsymmetric digraph with the character of HB/west0067: strongly connected
    (a cycle through a shuffled order), about 4.4 edges per vertex with skewed in-degrees
    (some vertices are heads of many edges), a few self-loops, and few reverse edges."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    cycle_src, cycle_dst = order, np.roll(order, -1)
    extra = round(3.4 * n)
    popularity = 1.0 / np.sqrt(1.0 + rng.permutation(n))     # heads drawn with a skew
    extra_src = rng.integers(0, n, extra)
    extra_dst = rng.choice(n, extra, p=popularity / popularity.sum())
    loops = rng.choice(n, 2, replace=False)
    src = np.concatenate([cycle_src, extra_src, loops]).astype(np.int64)
    dst = np.concatenate([cycle_dst, extra_dst, loops]).astype(np.int64)
    return _unique_edges(src, dst, n), n


def grid_edges(rows: int, cols: int):
    """The edges of a rows x cols grid, each vertex to its right and lower neighbours (one
    direction: symmetrize for a mesh), numbered row by row; ``(src, dst), n``."""
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    return (np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()]),
            np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])), rows * cols


def triangle_mesh(rows: int = 34, cols: int = 34):
    """A symmetric triangulated grid with a self-loop on every vertex, like the finite-element
    meshes of the collection (jagmesh7): degrees 3 to 7 counting the loop, one component,
    depth about rows + cols from a corner."""
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    right = (ids[:, :-1], ids[:, 1:])
    down = (ids[:-1, :], ids[1:, :])
    diagonal = (ids[:-1, :-1], ids[1:, 1:])
    src = np.concatenate([a.ravel() for a, _ in (right, down, diagonal)])
    dst = np.concatenate([b.ravel() for _, b in (right, down, diagonal)])
    loops = ids.ravel()
    src, dst = np.concatenate([src, dst, loops]), np.concatenate([dst, src, loops])
    n = rows * cols
    return _unique_edges(src, dst, n), n


# A small directed graph drawn by hand: vertex 4 only has out-edges, 6 and 9 are sinks, 8 is
# isolated, {0, 2, 3} and {5, 7} are cycles; BFS from 0 reaches 0-3, 5-7 and 9, never 4 or 8.
SMALL_DIGRAPH_EDGES = [(0, 2), (2, 3), (3, 0), (2, 5), (5, 7), (7, 5), (7, 6), (3, 1), (1, 9),
                       (4, 1), (4, 7), (5, 9)]


def small_digraph():
    """The hand-drawn 10-vertex digraph of SMALL_DIGRAPH_EDGES."""
    src = np.array([e[0] for e in SMALL_DIGRAPH_EDGES], dtype=np.int64)
    dst = np.array([e[1] for e in SMALL_DIGRAPH_EDGES], dtype=np.int64)
    return (src, dst), 10


def _unique_edges(src, dst, n):
    """(src, dst) without repeated edges, sorted by (src, dst)."""
    keys = np.unique(src * n + dst)
    return keys // n, keys % n


# -- Matrix Market text written without the package (an independent writer) --------------------
def write_real_general(path, src, dst, n, seed=0):
    """A ``real general`` coordinate file with 1-based entries and random values, the form of
    many collection files (the package's own writer only writes ``pattern``)."""
    values = np.random.default_rng(seed).uniform(-10, 10, len(src))
    lines = [f"{i + 1} {j + 1} {x:.6g}" for i, j, x in zip(src.tolist(), dst.tolist(), values)]
    text = "%%MatrixMarket matrix coordinate real general\n% written by the tests\n"
    text += f"{n} {n} {len(lines)}\n" + "\n".join(lines) + "\n"
    with open(path, "w") as fh:
        fh.write(text)


# Malformed files every reader must refuse: name -> text.
MALFORMED_MTX = {
    "unknown_object.mtx": "%%MatrixMarket mangled coordinate pattern general\n2 2 1\n1 2\n",
    "dense_complex.mtx": "%%MatrixMarket matrix array complex general\n1 1\n1.0 2.0\n",
    "truncated.mtx": "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 3\n",
}
