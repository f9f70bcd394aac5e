"""Eccentricity and closeness centrality on an R x C grid against networkx, and the per-row
reduction of multi-source levels (DenseRows.reduce_rows) against numpy on the gathered table:
blocks of several ranks, ranks without vertices, several batches of searches. Run under mpiexec
by tests/test_distances.py on as many ranks as the largest grid holds (one start of the ranks
for every grid: the smaller grids run on the first ranks, the others wait); prints "rank K ok"
on each rank.

usage: check_distances.py BACKEND ROWSxCOLS [ROWSxCOLS ...]
"""
import sys
from pathlib import Path

import networkx as nx
import numpy as np

import lagraph_dist as ld
from lagraph_dist.algorithms.distances import closeness_centrality, eccentricity

sys.path.insert(0, str(Path(__file__).resolve().parent))        # tests/mpi/common.py
from common import on_grids, parse_shapes  # noqa: E402

BACKEND = sys.argv[1]
SHAPES = parse_shapes(sys.argv[2:])
grid = None                     # the grid being checked (set below, one shape after another)


def matrix(G):
    """G (nodes 0..n-1) on the grid, read from the same scipy pattern on every rank."""
    S = nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr")
    return ld.Matrix.from_scipy(S, grid=grid, backend=BACKEND)


def dense(vector, sources):
    values = vector.to_numpy(fill=-7)
    assert vector.nvals == len(set(sources)), (vector.nvals, sources)
    return values[np.asarray(sources)]


def check_eccentricity(G, sources=None):
    sources = list(range(len(G))) if sources is None else sources
    got = dense(eccentricity(matrix(G), sources), sources)
    expected = nx.eccentricity(G, v=sources)
    assert got.tolist() == [expected[s] for s in sources], (got, expected)


def check_closeness(G, sources=None):
    sources = list(range(len(G))) if sources is None else sources
    got = dense(closeness_centrality(matrix(G), sources=sources), sources)
    expected = np.array([nx.closeness_centrality(G, u=s) for s in sources])
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=0)


def check_reduce_rows(A, sources):
    res = ld.bfs_multi(A, sources, batch_size=16)
    for searches in (res.levels, res.parents):
        table = searches.to_numpy()
        entries = table >= 0
        plus, low, high, count = searches.reduce_rows("plus", ld.monoids.min, "max", nvals=True)
        np.testing.assert_array_equal(count, entries.sum(axis=1))
        np.testing.assert_array_equal(plus, np.where(entries, table, 0).sum(axis=1))
        np.testing.assert_array_equal(low, np.where(entries, table, np.iinfo(np.int64).max).min(axis=1))
        np.testing.assert_array_equal(high, table.max(axis=1))


def check_grid():
    """Every check on ``grid``."""
    rng = np.random.default_rng(5)                 # the same draws on every rank
    # a directed, strongly connected graph: a cycle and chords (70 vertices: some ranks of 2 x 3 hold none)
    cycle = nx.DiGraph([(k, (k + 1) % 70) for k in range(70)])
    cycle.add_edges_from((int(a), int(b)) for a, b in rng.integers(0, 70, size=(100, 2)))
    check_eccentricity(cycle)
    check_closeness(cycle)
    # deep and wide enough for a vertex block on every rank: a 10 x 20 mesh
    mesh = nx.convert_node_labels_to_integers(nx.grid_2d_graph(10, 20))
    check_eccentricity(mesh, sources=[0, 199, 57, 57, 120])
    check_closeness(mesh, sources=[0, 11, 101, 199])
    # not connected: two parts and an isolated vertex; closeness defined, eccentricity refused
    parts = nx.disjoint_union(nx.path_graph(20), nx.cycle_graph(24))
    parts.add_node(44)
    check_closeness(parts)
    try:
        eccentricity(matrix(parts), [3, 30])
    except ld.InvalidValue as error:
        assert "source 3" in str(error) and "not connected" in str(error), error
    else:
        raise AssertionError("eccentricity of a graph that is not connected did not raise")
    # a Kronecker graph (isolated vertices: closeness only) and the reduction itself
    K = ld.kronecker(6, seed=1, grid=grid, backend=BACKEND)
    kron = nx.from_scipy_sparse_array(grid.comm.bcast(K.to_scipy(root=0), root=0))
    check_closeness(kron)
    check_reduce_rows(K, list(range(0, 64, 3)) + [5, 5])


def check_on(this_grid):
    """check_grid on ``this_grid`` (the module's helpers read the grid being checked)."""
    global grid
    grid = this_grid
    check_grid()


on_grids(SHAPES, check_on)
