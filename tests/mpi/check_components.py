"""Connected components on an R x C grid against scipy.sparse.csgraph (every vertex labelled by
the smallest id of its weakly connected component) and the count: a Kronecker graph (the hub's
search and propagation), a directed graph of several components (the level loop over both edge
directions), and two meshes (a second search). Run under mpiexec by tests/test_components.py
on as many ranks as the largest grid needs: the grids run one after the other (a smaller one on
the first ranks), so one launch loads the kernels once for all. Prints "RxC rank K ok" on each
rank of each grid.

usage: check_components.py RxC [RxC ...]
"""
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_components

import lagraph_dist as ld
from lagraph_dist.algorithms import components
from lagraph_dist.algorithms.components import connected_components, number_connected_components
from mpi4py import MPI


def expected(S):
    count, labels = scipy_components(S, directed=True, connection="weak")
    smallest = np.full(count, S.shape[0], dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(S.shape[0], dtype=np.int64))
    return smallest[labels], count


def check(grid, name, A, S):
    labels, count = expected(S)
    got = connected_components(A)
    if got.grid is not grid or got.nvals != A.n:
        raise AssertionError(f"rank {grid.rank}: {name}: not a whole vector on the grid")
    ours = got.to_numpy()
    if not np.array_equal(ours, labels):
        bad = np.flatnonzero(ours != labels)[:5]
        raise AssertionError(f"rank {grid.rank}: {name}: labels differ at {bad}: {ours[bad]} vs {labels[bad]}")
    number = number_connected_components(A)
    if number != count:
        raise AssertionError(f"rank {grid.rank}: {name}: {number} components, scipy {count}")


def check_grid(grid):
    A = ld.kronecker(9, edgefactor=4, seed=5, grid=grid, backend="cpu")
    check(grid, "kronecker 9", A, A.to_scipy(root=None))

    rng = np.random.default_rng(11)                 # the same draws on every rank
    n = 150
    part = rng.integers(0, 6, n)
    src, dst = rng.integers(0, n, 260), rng.integers(0, n, 260)
    keep = part[src] == part[dst]                   # edges inside six parts: several components
    S = sp.csr_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n))
    check(grid, "directed", ld.Matrix.from_scipy(S, symmetric=False, grid=grid, backend="cpu"), S)

    components.SEARCH_AT_LEAST_VERTICES = 100       # the second mesh by a search of its own
    ids = np.arange(300).reshape(15, 20)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    src, dst = np.concatenate([src, src + 310]), np.concatenate([dst, dst + 310])
    M = sp.csr_matrix((np.ones(src.shape[0]), (src, dst)), shape=(615, 615))
    M = M + M.T
    check(grid, "two meshes", ld.Matrix.from_scipy(M, grid=grid, backend="cpu"), M)
    components.SEARCH_AT_LEAST_VERTICES = 4096


world = MPI.COMM_WORLD
for shape in sys.argv[1:]:
    rows, cols = (int(x) for x in shape.split("x"))
    inside = world.rank < rows * cols
    comm = world.Split(0 if inside else MPI.UNDEFINED, world.rank)
    if inside:
        grid = ld.Grid(rows, cols, comm=comm)
        check_grid(grid)
        print(f"{shape} rank {grid.rank} ok", flush=True)
        comm.Free()
    done = world.Ibarrier()          # ranks outside the grid wait asleep, not spinning on the cores
    while not done.Test():
        time.sleep(0.005)
