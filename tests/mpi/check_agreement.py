"""Every public collective called with one argument that differs between ranks: each must raise
InvalidValue on every rank, naming that argument, and leave no rank behind (the next case's
collectives would hang if one did). Run under mpiexec by tests/test_agreement.py; prints
"rank K ok" on each rank at the end.

usage: check_agreement.py ROWS COLS FOLDER [--backend cpu|gpu] [--transport NAME]
"""
import argparse
import sys
from pathlib import Path

import networkx as nx
import numpy as np

import lagraph_dist as ld
from lagraph_dist.tools import cli

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("rows", type=int)
parser.add_argument("cols", type=int)
parser.add_argument("folder", type=Path)
parser.add_argument("--backend", default="cpu")
parser.add_argument("--transport", default=None)
options = parser.parse_args()

grid = ld.Grid(options.rows, options.cols, transport=options.transport)
me, last = grid.rank, grid.size - 1
backend = options.backend


def mine(same, other):
    """``same`` on every rank but the last, which passes ``other``."""
    return other if me == last else same


def diverging(argument, call):
    """``call()`` must raise InvalidValue on this rank, naming ``argument`` and what the ranks passed."""
    try:
        call()
    except ld.InvalidValue as exc:
        said = str(exc)
        assert "every rank must pass the same arguments" in said, f"rank {me}: {argument}: {said}"
        assert f"different {argument} (" in said or f", {argument} (" in said, f"rank {me}: {argument}: {said}"
        assert f"rank {last}:" in said, f"rank {me}: {argument}: {said}"
        return
    raise AssertionError(f"rank {me}: a call with a differing {argument} did not raise")


A = ld.kronecker(7, seed=1, grid=grid, backend=backend)
D = ld.Matrix.from_edges([0, 1, 2, 3] if me == 0 else [], [1, 2, 3, 0] if me == 0 else [], 6,
                         grid=grid, backend=backend)            # directed, with unreached vertices
q = ld.Vector.from_indices([0] if me == 0 else [], A.n, values=[0] if me == 0 else None, dtype="int64",
                           grid=grid, backend=backend)
seen = ld.Vector.from_indices([0] if me == 0 else [], A.n, grid=grid, backend=backend)
res = ld.bfs(A, 0)
multi = ld.bfs_multi(A, [0, 5])
levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
S = A.to_scipy(root=0)

# the searches: the source, every option, the outputs asked for
diverging("source", lambda: ld.bfs(A, mine(0, 1)))
diverging("direction", lambda: ld.bfs(A, 0, direction=mine("push", "pull")))
diverging("depth_limit", lambda: ld.bfs(A, 0, depth_limit=mine(None, 1)))
diverging("target", lambda: ld.bfs(A, 0, target=mine(3, 4)))
diverging("alpha", lambda: ld.bfs(A, 0, alpha=mine(14.0, 15.0)))
diverging("beta", lambda: ld.bfs(A, 0, beta=mine(24.0, 20.0)))
diverging("parents", lambda: ld.bfs(A, 0, parents=mine(True, False)))
diverging("source", lambda: ld.bfs(D.T, mine(0, 3)))              # a reverse search
diverging("sources", lambda: ld.bfs_multi(A, [mine(0, 1), 3]))
diverging("levels", lambda: ld.bfs_multi(A, [0, 3], levels=mine(True, False)))
diverging("batch_size", lambda: ld.bfs_multi(A, [0, 3], batch_size=mine(None, 1)))
diverging("target", lambda: ld.bfs_path(res, mine(5, 6)))
diverging("targets", lambda: ld.bfs_paths(res, mine([5, 6], [5])))
diverging("search", lambda: ld.bfs_path(multi, 5, search=mine(0, 1)))

# the algebra, functional and in python-graphblas's grammar
diverging("semiring", lambda: ld.vxm(q, A, mine(ld.semirings.any_secondi, ld.semirings.min_secondi)))
diverging("mask", lambda: ld.vxm(q, A, ld.semirings.any_pair, mask=mine(seen, None)))
diverging("complement", lambda: ld.mxv(A, q, ld.semirings.any_pair, mask=seen, complement=mine(True, False)))
diverging("structure", lambda: ld.mxv(A, q, ld.semirings.any_pair, mask=seen, structure=mine(True, False)))
diverging("monoid", lambda: ld.ewise_add(q, q, mine(ld.monoids.min, ld.monoids.plus)))
diverging("op", lambda: ld.ewise_mult(q, q, mine(ld.binary.first, ld.binary.second)))
diverging("value", lambda: ld.assign(q.dup(), q, value=mine(None, 3)))
diverging("right", lambda: ld.apply(q, ld.binary.second, right=mine(1, 2)))
diverging("monoid", lambda: ld.reduce(q, mine(ld.monoids.plus, ld.monoids.min)))
diverging("monoid", lambda: q.reduce(mine(ld.monoid.plus, ld.monoid.min)))


def grammar_write():
    w = ld.Vector(int, A.n, grid=grid, backend=backend)
    w(mine(~seen.S, seen.S), replace=True) << q.vxm(A, ld.semiring.ss.any_secondi)


def grammar_expression():
    w = ld.Vector(int, A.n, grid=grid, backend=backend)
    w << mine(q.vxm(A, ld.semiring.ss.any_secondi), A.mxv(q, ld.semiring.ss.any_secondi))


def grammar_setitem():
    v = ld.Vector(int, A.n, grid=grid, backend=backend)
    v[mine(3, 4)] = 7


diverging("self", grammar_write)              # the output's mask
diverging("expr", grammar_expression)
diverging("index", grammar_setitem)

# vectors: constructors and gathers
diverging("n", lambda: ld.Vector.from_indices([], mine(10, 11), grid=grid, backend=backend))
diverging("dtype", lambda: ld.Vector.from_indices([], 10, dtype=mine("int64", "int32"), grid=grid, backend=backend))
diverging("dtype of the values", lambda: ld.Vector.from_indices([1], 10, values=mine([2], None), grid=grid, backend=backend))
diverging("size", lambda: ld.Vector.from_coo([1], 1, size=mine(10, 12), grid=grid, backend=backend))
diverging("dtype", lambda: ld.Vector.empty(10, dtype=mine(bool, int), grid=grid, backend=backend))
diverging("fill", lambda: res.levels.to_numpy(fill=mine(-1, 0)))
diverging("dtype", lambda: res.levels.to_coo(dtype=mine(None, float)))
diverging("other", lambda: q.isequal(mine(q, seen)))

# matrices: constructors, renumbering, conversions in and out
diverging("seed", lambda: ld.kronecker(6, seed=mine(0, 1), grid=grid, backend=backend))
diverging("scale", lambda: ld.kronecker(mine(6, 5), grid=grid, backend=backend))
diverging("n", lambda: ld.Matrix.from_edges([], [], mine(8, 9), grid=grid, backend=backend))
diverging("symmetrize", lambda: ld.Matrix.from_edges([0], [1], 8, symmetrize=mine(False, True), grid=grid,
                                                     backend=backend))
diverging("n", lambda: ld.Matrix.from_edgelist(np.zeros((0, 2), np.int64), mine(8, 9), grid=grid, backend=backend))
diverging("symmetric", lambda: ld.Matrix.from_scipy(S, symmetric=mine(None, False), grid=grid, backend=backend))
diverging("root", lambda: ld.Matrix.from_scipy(S if me == 0 else None, root=mine(0, last), grid=grid,
                                               backend=backend))
diverging("root", lambda: ld.Matrix.from_networkx(nx.path_graph(4), root=mine(0, last), grid=grid, backend=backend))
diverging("root", lambda: ld.Matrix.from_graphblas(A.to_graphblas(root=None), root=mine(0, last), grid=grid,
                                                   backend=backend))
path = options.folder / "small.mtx"
D.to_mtx(path)
diverging("merge_duplicates", lambda: ld.Matrix.from_mtx(path, merge_duplicates=mine(False, True), grid=grid,
                                                         backend=backend))
diverging("order", lambda: A.permuted(mine(np.arange(A.n), np.arange(A.n)[::-1].copy())))
diverging("by", lambda: ld.sort_by_degree(D, by=mine("out", "in")))
diverging("root", lambda: A.to_scipy(root=mine(0, None)))
diverging("root", lambda: A.to_graphblas(root=mine(0, last)))
diverging("directed", lambda: A.to_networkx(root=None, directed=mine(None, True)))
diverging("root", lambda: A.to_edgelist(root=mine(0, None)))
diverging("root", lambda: D.to_mtx(options.folder / "out.mtx", root=mine(0, last)))
diverging("v", lambda: mine(q, seen).to_graphblas())
diverging("backend", lambda: ld.Matrix.from_scipy(S, grid=grid, backend=mine(backend, "gpu" if backend == "cpu" else "cpu")))

# checks against the rules and the reference
diverging("source", lambda: ld.validate(A, mine(0, 1), levels, parents))
wrong = parents.copy()
wrong[np.flatnonzero(wrong >= 0)[-1]] = -1
diverging("parents", lambda: ld.validate(A, 0, None, mine(parents, wrong)))
diverging("source", lambda: ld.reference.compare(A, mine(0, 2)))
diverging("direction", lambda: ld.reference.compare(A, 0, direction=mine("auto", "push")))

# the grid itself, and the command line
diverging("cols", lambda: ld.Grid(rows=mine(None, grid.size), cols=mine(grid.size, None)) if grid.size > 1 else
          ld.Grid(cols=mine(1, 2)))
diverging("transport", lambda: ld.Grid(transport=mine("mpi-host", None)))


def command(argv):
    """cli.main's exit status; the command's error goes to stderr, the status says it failed."""
    return cli.main(argv)


for argv, differing in ((["bfs", "--scale", "6", "--roots", mine("1", "2"), "--backend", backend], "roots"),
                        (["bench", "--scale", mine("6", "7"), "--roots", "2", "--backend", backend], "scale"),
                        (["check", "--scale", "6", "--seed", mine("0", "1"), "--backend", backend], "seed")):
    status = command(argv)
    assert status != 0, f"rank {me}: lagraph-dist {argv[0]} with a differing --{differing} ran (status {status})"

# every rank is still in step: one more collective answers the same on all
assert ld.bfs(A, 0).levels.to_numpy().tolist() == levels.tolist()
print(f"rank {me} ok", flush=True)
sys.exit(0)
