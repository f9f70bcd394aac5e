"""ld.betweenness_centrality on an R x C grid against networkx: a directed and an undirected
random graph with several components, all sources and a seeded sample, normalized or not.
Run under mpiexec by tests/test_centrality.py; prints "rank K ok" on each rank.

usage: check_centrality.py ROWS COLS
"""
import sys

import networkx as nx
import numpy as np

import lagraph_dist as ld

rows, cols = int(sys.argv[1]), int(sys.argv[2])
grid = ld.Grid(rows, cols)
rng = np.random.default_rng(3)                  # the same draws on every rank
n = 45
src, dst = rng.integers(0, 40, 100), rng.integers(0, 40, 100)     # vertices 40..44 isolated
for directed in (False, True):
    mine = slice(grid.rank, None, grid.size)     # each rank passes a share of the edges
    A = ld.Matrix.from_edges(src[mine], dst[mine], n, symmetrize=not directed, grid=grid, backend="cpu")
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    for kwargs in ({"k": 9, "seed": 5, "normalized": False}, {"k": 9, "seed": 6, "endpoints": True}):
        want = nx.betweenness_centrality(G, **kwargs)
        got = ld.betweenness_centrality(A, **kwargs).to_numpy(fill=np.inf)
        expected = np.array([want[v] for v in range(n)])
        if not np.allclose(got, expected, rtol=1e-9, atol=1e-12, equal_nan=True):
            raise AssertionError(f"rank {grid.rank}: directed={directed} {kwargs}: {got} != {expected}")
print(f"rank {grid.rank} ok", flush=True)
