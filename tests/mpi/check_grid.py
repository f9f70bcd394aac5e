"""Run under mpiexec: ``mpiexec -n R*C python -m mpi4py tests/mpi/check_grid.py R C WHICH DIR``,
or ``mpiexec -n N python -m mpi4py tests/mpi/check_grid.py RxC [RxC ...] WHICH DIR`` for several
grids in one start of the ranks (N: the largest grid's ranks; each grid runs on the first ranks
of a communicator of their own while the others wait).

Checks on an R x C grid that BFS levels equal python-graphblas's and parents pass the Graph500
rules in every direction; that a Kronecker seed gives the same graph as one process does; that
list and bitmap messages give identical results; and that bad input raises on every rank
without a hang. WHICH picks the graphs:

``generated DIR``  random and Kronecker graphs, and Matrix Market files this script writes into
                   the (empty, shared) folder DIR/RxC: stand-ins for the real graphs and bad files.
``real DIR``       the real graphs and bad files of the shared data folder DIR (its lagraph/).

``--backend gpu --transport nccl|mpi-cuda|mpi-host`` runs the same on GPUs (one rank a GPU),
plus the transport's channels on device arrays, meshes and long paths (400 levels), and the host
reads a level makes. A transport that cannot work here must fail on every rank of the grid instead:
the script then says why (``grid RxC: transport T unavailable: ...``) and checks nothing else
on that grid.

Each rank prints ``rank K ok`` once at the end; any failure exits non-zero (``python -m mpi4py``
turns an uncaught exception into MPI_Abort), its message naming the grid.
"""
import sys
from pathlib import Path

import graphblas as gb
import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.comm.transport import TRANSPORTS
from lagraph_dist.io.generators import kronecker_edges
from lagraph_dist.local.wire import forced_wire_encoding
from lagraph_dist.io.mtx import write_mtx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))    # tests/graphs.py
from graphs import (MALFORMED_MTX, small_digraph, triangle_mesh,  # noqa: E402
                    west_like_digraph, write_real_general)
sys.path.insert(0, str(Path(__file__).resolve().parent))        # tests/mpi/common.py
from common import expect_error, gathered, grid_arguments, on_grids, parse_shapes, small_edge_chunks  # noqa: E402

BACKEND = "cpu"            # set from --backend
TRANSPORT = None           # set from --transport (None: the default)
REAL_GRAPHS = ("west0067.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx")
REAL_BAD_FILES = ("mangled1.mtx", "complex.mtx")


def reference_levels(grid, S, source):
    """python-graphblas levels, computed on rank 0 and broadcast."""
    levels = ld.reference.bfs(S, source)[0] if grid.rank == 0 else None
    return grid.comm.bcast(levels, root=0)


def check_bfs(grid, A, S, sources, label):
    for source in sources:
        expected = reference_levels(grid, S, source)
        for direction in ("push", "pull", "auto"):
            result = ld.bfs(A, source, direction=direction)
            levels = result.levels.to_numpy()
            assert np.array_equal(levels, expected), f"{label}: levels differ ({direction}, {source})"
            ld.validate(A, source, levels, result.parents.to_numpy())
            only_levels = ld.bfs(A, source, parents=False, direction=direction).levels.to_numpy()
            assert np.array_equal(only_levels, expected), f"{label}: levels-only differ ({direction})"




def random_graphs(grid):
    rng = np.random.default_rng(7)
    n = 97
    src, dst = rng.integers(0, n, 300), rng.integers(0, n, 300)
    mine = slice(grid.rank, None, grid.size)      # each rank passes a different share
    for symmetrize in (False, True):
        A = ld.Matrix.from_edges(src[mine], dst[mine], n, symmetrize=symmetrize, grid=grid, backend=BACKEND)
        S = gathered(grid, A)
        expected = sp.csr_matrix((np.ones(300, bool), (src, dst)), shape=(n, n))
        if symmetrize:
            expected = expected + expected.T
        assert (S != expected.astype(bool)).nnz == 0, "from_edges lost or invented edges"
        check_bfs(grid, A, S, [0, 5, 96], f"random symmetrize={symmetrize}")


def renumbering(grid):
    """A.permuted(order) on this grid is scipy's A[order][:, order], searches of it check
    against python-graphblas, and an order that only one rank gets wrong raises on every rank."""
    rng = np.random.default_rng(11)
    n = 83
    src, dst = rng.integers(0, n, 260), rng.integers(0, n, 260)
    mine = slice(grid.rank, None, grid.size)
    A = ld.Matrix.from_edges(src[mine], dst[mine], n, grid=grid, backend=BACKEND)
    order = ld.sort_by_degree(A)
    B = A.permuted(order)
    S, T = gathered(grid, A), gathered(grid, B)
    assert (T != S[order][:, order]).nnz == 0, "permuted is not A[order, order]"
    assert np.all(np.diff(B.out_degree().to_numpy(fill=0)) <= 0), "sort_by_degree: hubs not first"
    check_bfs(grid, B, T, [0, int(np.argsort(order)[5])], "renumbered")
    with small_edge_chunks(7):       # many slices, and ranks holding different numbers of them
        assert (gathered(grid, A.permuted(order)) != T).nnz == 0, "permuted in slices differs"
    wrong = order.copy()
    wrong[0] = wrong[1]
    said = expect_error(grid, ValueError, A.permuted, wrong)
    assert "every vertex once" in said, said
    if grid.size > 1:        # each rank a permutation, not the same one
        mixed = order if grid.rank else order[::-1].copy()
        said = expect_error(grid, ld.InvalidValue, A.permuted, mixed)
        assert "passed different order" in said, said


def kronecker_graph(grid):
    A = ld.kronecker(8, seed=3, grid=grid, backend=BACKEND)
    S = gathered(grid, A)
    src, dst = kronecker_edges(8, 16, seed=3)
    keep = src != dst
    one_process = sp.csr_matrix((np.ones(int(keep.sum()), bool), (src[keep], dst[keep])), shape=(256, 256))
    one_process = (one_process + one_process.T).astype(bool)
    assert (S != one_process).nnz == 0, "the same Kronecker seed gave another graph on this grid"
    roots = [int(v) for v in np.flatnonzero(np.diff(S.indptr))[:3]]
    check_bfs(grid, A, S, roots, "kronecker 8")
    expected_levels = reference_levels(grid, S, roots[0])
    for encoding in ("list", "bitmap"):
        with forced_wire_encoding(encoding):
            for direction in ("push", "pull"):
                for parents in (True, False):
                    result = ld.bfs(A, roots[0], direction=direction, parents=parents)
                    levels = result.levels.to_numpy()
                    assert np.array_equal(levels, expected_levels)
                    if parents:
                        ld.validate(A, roots[0], levels, result.parents.to_numpy())
                    used = {s["encoding"]["fold"] for s in result.stats} - {"none"}
                    # pieces whose values travel (the parents) are lists whatever is forced
                    expected = {"list"} if parents else {encoding}
                    assert used <= expected, f"fold used {used} while {encoding} was forced"
                    # push folds along the grid row, pull (mxv on A.T) along the grid column
                    fold_ranks = grid.cols if direction == "push" else grid.rows
                    assert fold_ranks == 1 or used == expected, f"{direction} fold used {used}"


def high_diameter_graphs(grid):
    """A mesh and a long path, whose levels are known without a reference: the distance from
    a mesh corner is row + column, along a path the index."""
    from lagraph_dist.io.generators import grid2d_edges
    rows, cols = 30, 45
    src, dst = grid2d_edges(rows, cols, part=grid.rank, nparts=grid.size)
    A = ld.Matrix.from_edges(src, dst, rows * cols, symmetrize=True, grid=grid, backend=BACKEND)
    expected = (np.arange(rows * cols) // cols + np.arange(rows * cols) % cols).astype(np.int64)
    n = 400
    path = np.arange(n - 1)[grid.rank::grid.size]
    P = ld.Matrix.from_edges(path, path + 1, n, symmetrize=True, grid=grid, backend=BACKEND)
    for matrix, want, label in ((A, expected, "mesh"), (P, np.arange(n), "path")):
        for direction in ("push", "pull", "auto"):
            result = ld.bfs(matrix, 0, direction=direction)
            levels = result.levels.to_numpy()
            assert np.array_equal(levels, want), f"{label}: levels differ ({direction})"
            ld.validate(matrix, 0, levels, result.parents.to_numpy())
            if grid.size > 1:       # one read of the level's counters, one of a counted fold's sizes
                reads = max(r["host_reads"] for r in result.stats)
                assert reads <= 2, f"{label} {direction}: a level made {reads} host reads"


def channel_checks(grid):
    """The transport's allgatherv and alltoallv on the backend's arrays, against contents every
    rank can compute: member k contributes (k * 7 + 3) % 5 entries 1000 k + i; k sends member m
    (k + 2 m) % 4 entries 10000 k + 100 m + i."""
    xp = ld.get_backend(BACKEND).xp
    for channel in (grid.transport.world, grid.transport.row, grid.transport.col):
        size, me = channel.size, channel.rank
        for dtype in (np.uint32, np.int64, np.bool_):
            counts = [(k * 7 + 3) % 5 for k in range(size)]
            mine = xp.asarray((1000 * me + np.arange(counts[me])).astype(dtype))
            got = ld.get_backend(BACKEND).to_host(channel.allgatherv(mine, counts))
            want = np.concatenate([(1000 * k + np.arange(counts[k])).astype(dtype) for k in range(size)])
            assert np.array_equal(got, want), f"allgatherv {dtype} on {size} members"
            sends = [(me + 2 * m) % 4 for m in range(size)]
            recvs = [(k + 2 * me) % 4 for k in range(size)]
            send = xp.asarray(np.concatenate([(10000 * me + 100 * m + np.arange(sends[m])).astype(dtype)
                                              for m in range(size)]))
            got = ld.get_backend(BACKEND).to_host(channel.alltoallv(send, sends, recvs))
            want = np.concatenate([(10000 * k + 100 * me + np.arange(recvs[k])).astype(dtype) for k in range(size)])
            assert np.array_equal(got, want), f"alltoallv {dtype} on {size} members"


def stand_in_files(grid, folder):
    """Rank 0 writes the stand-ins of the real graphs into ``folder``; every rank gets
    {file: the edges written} to compare what from_mtx builds against."""
    written = {}
    for name, make, symmetric in (("west_like.mtx", west_like_digraph, False),
                                  ("mesh.mtx", triangle_mesh, True),
                                  ("small_digraph.mtx", small_digraph, False)):
        (src, dst), n = make()
        path = folder / name
        if grid.rank == 0:
            if symmetric:
                write_mtx(path, src, dst, n, symmetric=True)
            else:
                write_real_general(path, src, dst, n)
        written[path] = sp.csr_matrix((np.ones(src.size, bool), (src, dst)), shape=(n, n))
    if grid.rank == 0:
        for name, text in MALFORMED_MTX.items():
            (folder / name).write_text(text)
    grid.comm.Barrier()                     # the files exist before anyone reads them
    return written


def written_graphs(grid, written):
    for path, expected in written.items():
        A = ld.Matrix.from_mtx(path, grid=grid, backend=BACKEND)
        S = gathered(grid, A)
        assert (S != expected).nnz == 0, f"{path.name}: from_mtx lost or invented edges"
        check_bfs(grid, A, S, [0, A.n // 2, A.n - 1], path.name)


def real_graphs(grid, folder):
    for name in REAL_GRAPHS:
        A = ld.Matrix.from_mtx(folder / name, grid=grid, backend=BACKEND)
        S = gathered(grid, A)
        check_bfs(grid, A, S, [0, A.n // 2], name)




def edge_set(name, out):
    """The (src, dst) pairs of what a conversion out gave."""
    if name in ("to_scipy", "to_cupyx"):
        coo = (out.get() if name == "to_cupyx" else out).tocoo()
        return set(zip(coo.row.tolist(), coo.col.tolist()))
    if name == "to_graphblas":
        rows, cols, _ = out.to_coo(values=False)
        return set(zip(rows.tolist(), cols.tolist()))
    if name == "to_networkx":
        return set(out.edges())
    return set(map(tuple, out.tolist()))


def conversions(grid, folder):
    """Every conversion out, called on every rank: a matrix comes out on ``root`` and None
    elsewhere, or on every rank with root=None; a vector on every rank; a root that is no rank
    raises on every rank; to_mtx writes on its root, and the file reads back whole."""
    n = 40
    rng = np.random.default_rng(11)
    src, dst = rng.integers(0, n, 120), rng.integers(0, n, 120)
    mine = slice(grid.rank, None, grid.size)
    A = ld.Matrix.from_edges(src[mine], dst[mine], n, grid=grid, backend=BACKEND)
    expected = set(zip(src.tolist(), dst.tolist()))
    names = ["to_scipy", "to_graphblas", "to_networkx", "to_edgelist"] + (["to_cupyx"] if BACKEND == "gpu" else [])
    for root in (0, grid.size - 1, None):
        for name in names:
            out = getattr(A, name)(root=root)
            if root is None or grid.rank == root:
                assert out is not None and edge_set(name, out) == expected, f"{name}(root={root}) lost edges"
            else:
                assert out is None, f"rank {grid.rank}: {name}(root={root}) gave {type(out).__name__}, not None"
    for name in names:
        for bad in (grid.size, -1):
            said = expect_error(grid, ld.InvalidValue, getattr(A, name), root=bad)
            assert f"root must be a rank in [0, {grid.size})" in said, said
    if BACKEND != "gpu":
        try:
            import cupyx.scipy.sparse  # noqa: F401
        except ImportError:
            expect_error(grid, ld.Unsupported, A.to_cupyx, root=None)
    path = folder / "written_by_the_last_rank.mtx"
    A.to_mtx(path, root=grid.size - 1)
    assert edge_set("to_edgelist", ld.Matrix.from_mtx(path, grid=grid, backend=BACKEND).to_edgelist(root=None)) == expected
    expect_error(grid, ld.InvalidValue, A.to_mtx, folder / "nowhere.mtx", root=None)
    ids = np.unique(src)
    v = ld.Vector.from_indices(ids[mine], n, values=ids[mine] * 3, grid=grid, backend=BACKEND)
    x = v.to_graphblas()
    assert x.isequal(gb.Vector.from_coo(ids, ids * 3, size=n)), f"rank {grid.rank}: to_graphblas differs"
    assert np.array_equal(v.to_coo()[0], ids) and np.array_equal(v.to_coo()[1], ids * 3)


def node_labels(grid):
    """A networkx graph of string nodes, given on rank 0 only: its labels reach every rank, a
    label is a source, results read by label equal networkx's; labels that cannot be pickled
    (so cannot reach the other ranks) raise on every rank."""
    import networkx as nx
    rng = np.random.default_rng(3)
    names = [f"n{k}" for k in rng.permutation(40)]
    G = nx.DiGraph()
    G.add_nodes_from(names)
    G.add_edges_from((names[a], names[b]) for a, b in rng.integers(0, 35, size=(90, 2)))
    A = ld.Matrix.from_networkx(G if grid.rank == 0 else None, grid=grid, backend=BACKEND)
    assert A.labels == tuple(names), f"rank {grid.rank}: the labels did not arrive"
    for source in names[:4]:
        result = ld.bfs(A, source)
        levels, parents = result.levels_by_label(A), result.parents_by_label(A)
        assert levels == nx.single_source_shortest_path_length(G, source), f"levels from {source}"
        assert set(parents) == set(levels) and parents[source] == source
        assert all(G.has_edge(p, v) and levels[p] == levels[v] - 1 for v, p in parents.items() if v != source)
    assert nx.utils.graphs_equal(A.to_networkx(root=None), G)
    said = expect_error(grid, IndexError, ld.bfs, A, "nowhere")
    assert "'nowhere' is not a node" in said, said
    if grid.size > 1:
        unpicklable = nx.Graph([(lambda: 0, "b")]) if grid.rank == 0 else None
        said = expect_error(grid, TypeError, ld.Matrix.from_networkx, unpicklable, grid=grid, backend=BACKEND)
        assert "picklable" in said, said


def bad_input(grid, bad_files, folder):
    # a bad id passed by one rank only must raise on every rank
    src = [0, 1] if grid.rank != grid.size - 1 else [0, 99]
    expect_error(grid, IndexError, ld.Matrix.from_edges, src, [1, 2], 10, grid=grid, backend=BACKEND)
    expect_error(grid, ValueError, ld.Matrix.from_edges, [0, 1], [1] if grid.rank == 0 else [1, 2],
                 10, grid=grid, backend=BACKEND)
    nan_ids = np.array([0.0, np.nan]) if grid.rank == 0 else np.array([0, 1])
    expect_error(grid, TypeError, ld.Matrix.from_edges, nan_ids, [1, 2], 10, grid=grid, backend=BACKEND)
    A = ld.Matrix.from_edges([0, 1], [1, 2], 10, grid=grid, backend=BACKEND)
    expect_error(grid, IndexError, ld.bfs, A, 10)
    expect_error(grid, IndexError, ld.bfs, A, -1)
    expect_error(grid, TypeError, ld.bfs, A, 1.5)
    expect_error(grid, ValueError, ld.bfs, A, 0, direction="sideways")
    expect_error(grid, ValueError, ld.kronecker, 0, grid=grid, backend=BACKEND)
    for path in bad_files:
        expect_error(grid, ValueError, ld.Matrix.from_mtx, path, grid=grid, backend=BACKEND)
    expect_error(grid, (OSError, ValueError), ld.Matrix.from_mtx, folder / "missing.mtx", grid=grid, backend=BACKEND)
    # a file that is not there (read on rank 0) is a MissingFile on every rank, naming it
    said = expect_error(grid, ld.MissingFile, ld.Matrix.from_mtx, folder / "missing.mtx", grid=grid, backend=BACKEND)
    assert "cannot read Matrix Market file" in said and "missing.mtx" in said, said
    said = expect_error(grid, ld.MissingFile, A.to_mtx, folder / "no_folder" / "g.mtx")
    assert "cannot write Matrix Market file" in said, said
    expect_error(grid, ValueError, ld.Grid, rows=grid.size + 1, cols=1, comm=grid.comm)
    # after all those errors the grid still works: nobody was left inside a collective
    assert ld.bfs(A, 0).levels.to_numpy()[2] == 2


def arguments():
    parser = grid_arguments(__doc__)
    parser.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--transport", choices=TRANSPORTS, default=None)
    return parser.parse_args()


def transport_or_why(rows, cols, comm, transport):
    """The rows x cols grid over ``comm`` on the asked transport, or (None, why) when it must
    fail, having checked that it fails on every rank of ``comm`` alike."""
    try:
        return ld.Grid(rows=rows, cols=cols, comm=comm, transport=transport), None
    except ld.InvalidValue as exc:
        reasons = comm.allgather(str(exc))
        assert all(r.split(" (raised on rank")[0] == reasons[0].split(" (raised on rank")[0] for r in reasons)
        return None, reasons[0]


def main():
    global BACKEND, TRANSPORT
    args = arguments()
    BACKEND, TRANSPORT = args.backend, args.transport
    if ld.gpu_available() and (BACKEND == "gpu" or TRANSPORT in ("nccl", "mpi-cuda")):
        ld.get_backend("gpu")     # binds each rank's device, collective on COMM_WORLD: before any grid

    def make_grid(rows, cols, comm):
        grid, why = transport_or_why(rows, cols, comm, TRANSPORT)
        if grid is None:
            print(f"grid {rows}x{cols}: transport {TRANSPORT} unavailable: {why}", flush=True)
            return None
        assert grid.transport.name == (TRANSPORT or grid.transport.name)
        return grid

    def check_grid(grid):
        if args.which == "generated":
            folder = args.folder / f"{grid.rows}x{grid.cols}"      # empty for each grid, as DIR was
            if grid.rank == 0:
                folder.mkdir(exist_ok=True)
            grid.comm.Barrier()
            channel_checks(grid)
            high_diameter_graphs(grid)
            random_graphs(grid)
            kronecker_graph(grid)
            renumbering(grid)
            written_graphs(grid, stand_in_files(grid, folder))
            conversions(grid, folder)
            node_labels(grid)
            bad_input(grid, [folder / name for name in sorted(MALFORMED_MTX)], folder)
        else:
            lagraph = args.folder / "lagraph"
            real_graphs(grid, lagraph)
            bad_input(grid, [lagraph / name for name in REAL_BAD_FILES], lagraph)

    on_grids(parse_shapes(args.shape), check_grid, make_grid=make_grid)


if __name__ == "__main__":
    main()
