"""Run under mpiexec: ``mpiexec -n R*C python -m mpi4py tests/mpi/check_model.py R C OUT.json``.

Measures what the communication model (lagraph_dist.tools.model) predicts: runs ``ld.bfs`` on an
R x C grid over generated graphs (Kronecker, symmetric; uniform random, directed), in every
direction, with and without parents, and writes, for every level, the bytes and encodings the
search measured next to the level's sizes computed independently of the search: the frontier
and the discovered vertices from the reference levels, the frontier's out-edges from the
graph's own edge list, and the frontier's entries on each grid rank from the layout. The
pytest side (tests/test_model.py) feeds those sizes to the model and compares.

Rank 0 writes OUT.json; each rank prints ``rank K ok`` at the end.
"""
import json
import sys

import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.io.generators import kronecker_edges, uniform_edges
from lagraph_dist.comm.grid import Layout

ROOTS_PER_GRAPH = 2


def pattern(src, dst, n, symmetrize):
    """The graph's CSR pattern as the package builds it: self-loops dropped (Kronecker) by the
    caller, duplicates merged, mirrored when symmetrized."""
    if symmetrize:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    S = sp.csr_matrix((np.ones(src.shape[0], dtype=np.int8), (src, dst)), shape=(n, n))
    S.sum_duplicates()
    return S


def kronecker_graph(grid, scale, seed):
    src, dst = kronecker_edges(scale, 16, seed=seed)
    keep = src != dst
    return ld.kronecker(scale, seed=seed, grid=grid, backend="cpu"), pattern(src[keep], dst[keep], 1 << scale, True)


def uniform_graph(grid, n, nedges, seed):
    src, dst = uniform_edges(n, nedges, seed=seed)
    mine = np.arange(src.shape[0]) % grid.size == grid.rank
    A = ld.Matrix.from_edges(src[mine], dst[mine], n, grid=grid, backend="cpu")
    return A, pattern(src, dst, n, False)


def roots(S, count, seed):
    """Vertices of nonzero out-degree, picked by a fixed seed."""
    candidates = np.flatnonzero(np.diff(S.indptr) > 0)
    return np.random.default_rng(seed).choice(candidates, size=count, replace=False).tolist()


def level_sizes(levels, degrees, layout, depth):
    """The sizes of level ``depth`` (1-based) computed from the final levels."""
    frontier = np.flatnonzero(levels == depth - 1)
    per_rank = np.bincount(layout.owner_rank(frontier), minlength=layout.rows * layout.cols)
    return {"frontier": int(frontier.shape[0]), "frontier_per_rank": per_rank.tolist(),
            "frontier_edges": int(degrees[frontier].sum()),
            "discovered": int((levels == depth).sum())}


def measure(grid, label, A, S, sources):
    layout = Layout(A.n, grid.rows, grid.cols)
    degrees = np.diff(S.indptr)
    runs = []
    for source in sources:
        for direction in ("push", "pull", "auto"):
            for parents in (True, False):
                res = ld.bfs(A, source, direction=direction, parents=parents)
                levels = res.levels.to_numpy()
                measured = []
                for depth, record in enumerate(res.stats, start=1):
                    sizes = level_sizes(levels, degrees, layout, depth)
                    assert record["frontier"] == sizes["frontier"], (label, depth, record, sizes)
                    assert record["discovered"] == sizes["discovered"], (label, depth, record, sizes)
                    measured.append({**sizes, "direction": record["direction"],
                                     "bytes": record["bytes"], "encoding": record["encoding"]})
                runs.append({"graph": label, "n": A.n, "symmetric": bool(A.symmetric), "source": int(source), "mode": direction,
                             "semiring": "any_secondi" if parents else "any_pair", "levels": measured})
    return runs


def main():
    rows, cols, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    grid = ld.Grid(rows, cols, transport="mpi-host")
    runs = []
    for scale, seed in ((10, 1), (12, 2)):
        A, S = kronecker_graph(grid, scale, seed)
        runs += measure(grid, f"kronecker-{scale}", A, S, roots(S, ROOTS_PER_GRAPH, seed))
    A, S = uniform_graph(grid, 3000, 24000, seed=5)
    runs += measure(grid, "uniform-3000", A, S, roots(S, ROOTS_PER_GRAPH, 5))
    if grid.rank == 0:
        with open(out, "w") as handle:
            json.dump({"grid": [rows, cols], "runs": runs}, handle)
    grid.comm.Barrier()
    print(f"rank {grid.rank} ok", flush=True)


if __name__ == "__main__":
    main()
