"""Distributed check of lagraph_dist.tools.validate.

Run as ``mpiexec -n 3 python tests/mpi/check_validate.py generated`` (a random digraph and a
mesh made here) or ``... check_validate.py real DIR`` (jagmesh7 from the shared data folder DIR).

The edges of each test graph are dealt out unevenly over the ranks (rank r gets a share
that grows with r; on the mesh rank 0 gets none). A valid BFS result must pass on
every rank, and each corrupted one must raise the same ValidationError on every rank.
Each rank prints ``rank R ok`` when everything held; the exit status is non-zero otherwise.
"""

import argparse
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import scipy.io
import scipy.sparse as sp
from mpi4py import MPI

if importlib.util.find_spec("lagraph_dist") is None:  # run from a checkout, not installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))    # tests/graphs.py

from graphs import triangle_mesh  # noqa: E402
from lagraph_dist.core.errors import ValidationError  # noqa: E402
from lagraph_dist.tools.reference import bfs  # noqa: E402
from lagraph_dist.tools.validate import validate  # noqa: E402


class DistVector:
    """Each rank holds one slice; ``to_numpy()`` is a collective allgather, as in the package."""

    def __init__(self, comm, full):
        self.comm = comm
        bounds = np.linspace(0, full.size, comm.Get_size() + 1).astype(int)
        r = comm.Get_rank()
        self.piece = full[bounds[r]:bounds[r + 1]].copy()

    def to_numpy(self):
        return np.concatenate(self.comm.allgather(self.piece))


def random_digraph(n, m, seed):
    """Directed random graph (same on every rank), duplicates merged."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    return sp.csr_array((np.ones(m), (src, dst)), shape=(n, n))


def distributed_matrix(comm, S, weights, seed):
    """Stand-in distributed matrix: edge e goes to a rank drawn with the given weights."""
    coo = sp.coo_array(S)
    n = coo.shape[0]
    key = np.unique(coo.row.astype(np.int64) * n + coo.col.astype(np.int64))
    src, dst = key // n, key % n
    p = np.asarray(weights, dtype=float)
    owner = np.random.default_rng(seed).choice(comm.Get_size(), size=key.size, p=p / p.sum())
    mine = owner == comm.Get_rank()
    local = (src[mine], dst[mine])
    return SimpleNamespace(n=n, grid=SimpleNamespace(comm=comm), local_edges=lambda: local), (
        src, dst)


class Checker:
    """Runs validate() in the expected-pass / expected-fail modes and collects failures."""

    def __init__(self, comm):
        self.comm = comm
        self.failures = []

    def _run(self, A, source, levels, parents):
        try:
            validate(A, source, levels, parents)
        except ValidationError as exc:
            return str(exc)
        return None

    def passes(self, name, A, source, levels, parents):
        msg = self._run(A, source, levels, parents)
        if msg is not None:
            self.failures.append(f"{name}: valid result rejected: {msg}")

    def fails(self, name, A, source, levels, parents, needle):
        msg = self._run(A, source, levels, parents)
        everyone = self.comm.allgather(msg)
        if msg is None:
            self.failures.append(f"{name}: corrupted result accepted")
        elif needle not in msg:
            self.failures.append(f"{name}: expected {needle!r} in {msg!r}")
        if len(set(everyone)) != 1:
            self.failures.append(f"{name}: ranks disagree: {everyone}")


def leaf_vertex(levels, parents, source):
    """A reached vertex other than the source that is nobody's parent."""
    is_parent = np.zeros(levels.size, dtype=bool)
    is_parent[parents[parents >= 0]] = True
    return int(np.flatnonzero((levels > 0) & ~is_parent)[-1])


def non_neighbour_same_level(levels, src, dst, source):
    """(v, w): w one level above v, but w -> v is not an edge."""
    n = levels.size
    edge_set = set((src * n + dst).tolist())
    for v in np.flatnonzero(levels >= 2):
        for w in np.flatnonzero(levels == levels[v] - 1):
            if int(w) * n + int(v) not in edge_set:
                return int(v), int(w)
    raise RuntimeError("test graph too small to build this corruption")


def check_graph(chk, comm, name, S, source, weights, seed):
    """All pass/fail cases on one graph."""
    A, (src, dst) = distributed_matrix(comm, S, weights, seed)
    levels, parents = bfs(S, source)
    for which, lv, pa in (("both", levels, parents), ("levels", levels, None),
                          ("parents", None, parents)):
        chk.passes(f"{name}/valid/{which}", A, source, lv, pa)
    chk.passes(f"{name}/valid/gathered", A, source, DistVector(comm, levels),
               DistVector(comm, parents))

    v = leaf_vertex(levels, parents, source)
    lv, pa = levels.copy(), parents.copy()
    lv[v] = pa[v] = -1
    for which, a, b in (("both", lv, pa), ("levels", lv, None), ("parents", None, pa)):
        chk.fails(f"{name}/stopped_early/{which}", A, source, a, b, "BFS stopped early")
    chk.fails(f"{name}/stopped_early/gathered", A, source, DistVector(comm, lv),
              DistVector(comm, pa), "BFS stopped early")

    v, w = non_neighbour_same_level(levels, src, dst, source)
    pa = parents.copy()
    pa[v] = w
    chk.fails(f"{name}/tree_edge/both", A, source, levels, pa, "is not an edge of A")
    chk.fails(f"{name}/tree_edge/parents", A, source, None, pa, "is not an edge of A")

    v = leaf_vertex(levels, parents, source)
    lv = levels.copy()
    lv[v] += 1
    chk.fails(f"{name}/level_skip/levels", A, source, lv, None, "skips levels")
    chk.fails(f"{name}/level_skip/both", A, source, lv, parents, "exactly one level")

    lv = levels.copy()
    lv[int(np.flatnonzero(levels >= 2)[0])] -= 1
    chk.fails(f"{name}/level_low/levels", A, source, lv, None, "vertex")


def mesh():
    (src, dst), n = triangle_mesh()
    return sp.csr_array((np.ones(src.size), (src, dst)), shape=(n, n))


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", choices=("generated", "real"))
    parser.add_argument("folder", type=Path, nargs="?", help="the shared data folder (real)")
    args = parser.parse_args()
    if args.which == "real" and args.folder is None:
        parser.error("'real' needs the data folder")
    return args


def main():
    args = arguments()
    comm = MPI.COMM_WORLD.Dup()
    rank, size = comm.Get_rank(), comm.Get_size()
    # rank 0 holds no edge of the second graph
    uneven = np.arange(size) if size > 1 else [1]
    chk = Checker(comm)
    try:
        if args.which == "generated":
            check_graph(chk, comm, "random", random_digraph(400, 1100, seed=7), 3,
                        weights=np.arange(1, size + 1), seed=11)
            check_graph(chk, comm, "mesh", mesh(), 100, weights=uneven, seed=12)
        else:
            jag = scipy.io.mmread(args.folder / "lagraph" / "jagmesh7.mtx")
            check_graph(chk, comm, "jagmesh7", jag, 100, weights=uneven, seed=12)
    except Exception as exc:  # a crash on one rank must not hang the others
        print(f"rank {rank} crashed: {exc!r}", flush=True)
        comm.Abort(2)
    all_ok = comm.allreduce(not chk.failures, op=MPI.LAND)
    for f in chk.failures:
        print(f"rank {rank} FAIL {f}", flush=True)
    if all_ok:
        print(f"rank {rank} ok", flush=True)
    comm.Free()
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
