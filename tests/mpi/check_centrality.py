"""ld.betweenness_centrality on R x C grids against networkx: a directed and an undirected
random graph with several components and isolated vertices, seeded samples, normalized or not,
with and without endpoints. Run under mpiexec by tests/test_centrality.py on as many ranks as
the largest grid holds (one start of the ranks for every grid: a smaller grid runs on the
first ranks while the others wait); prints "rank K ok" on each rank.

usage: check_centrality.py BACKEND ROWSxCOLS [ROWSxCOLS ...]
"""
import sys
from pathlib import Path

import networkx as nx
import numpy as np

import lagraph_dist as ld

sys.path.insert(0, str(Path(__file__).resolve().parent))        # tests/mpi/common.py
from common import on_grids, parse_shapes  # noqa: E402

BACKEND = sys.argv[1]
SHAPES = parse_shapes(sys.argv[2:])


def check_grid(grid):
    rng = np.random.default_rng(3)                  # the same draws on every rank
    n = 45
    src, dst = rng.integers(0, 40, 100), rng.integers(0, 40, 100)     # vertices 40..44 isolated
    mine = slice(grid.rank, None, grid.size)         # each rank passes a share of the edges
    for directed in (False, True):
        A = ld.Matrix.from_edges(src[mine], dst[mine], n, symmetrize=not directed, grid=grid, backend=BACKEND)
        G = nx.DiGraph() if directed else nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(zip(src.tolist(), dst.tolist()))
        for kwargs in ({"k": 9, "seed": 5, "normalized": False}, {"k": 9, "seed": 6, "endpoints": True}):
            want = nx.betweenness_centrality(G, **kwargs)
            got = ld.betweenness_centrality(A, **kwargs).to_numpy(fill=np.inf)
            expected = np.array([want[v] for v in range(n)])
            if not np.allclose(got, expected, rtol=1e-9, atol=1e-12, equal_nan=True):
                raise AssertionError(f"rank {grid.rank} of {grid.rows}x{grid.cols}: directed={directed} "
                                     f"{kwargs}: {got} != {expected}")


on_grids(SHAPES, check_grid)
