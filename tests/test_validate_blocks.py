"""Validation of real matrices, whose edge rules run over each rank's block in place: the verdict
is the one of the same edges handed over as a list, on one rank and on a grid; no edge list is
made; and the slices of a block are its edges."""
import textwrap
import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st
from mpi4py import MPI

import lagraph_dist as ld
from lagraph_dist.local import recycle
from helpers import needs_mpi, run_mpi

def verdict(A, source, levels, parents):
    try:
        ld.validate(A, source, levels, parents)
    except (ld.ValidationError, ld.InvalidValue) as exc:
        return type(exc).__name__, str(exc)
    return None


def edge_list_stand_in(A):
    """The same graph as a one-rank stand-in that hands over its edges as a list (validated
    through a block sorted on the host, with identity id maps)."""
    coo = A.to_scipy().tocoo()
    src, dst = coo.row.astype(np.int64), coo.col.astype(np.int64)
    return SimpleNamespace(n=A.n, grid=SimpleNamespace(comm=MPI.COMM_SELF), local_edges=lambda: (src, dst))


def scipy_levels(S, source):
    """Levels by scipy's unweighted shortest paths (independent of our BFS)."""
    dist = csgraph.shortest_path(S, unweighted=True, indices=source)
    return np.where(np.isinf(dist), -1, dist).astype(np.int64)


def parents_from_levels(S, levels):
    """Some valid BFS parents: for each reached vertex, its smallest in-neighbour one level up."""
    coo = sp.coo_matrix(S)
    parents = np.full(levels.shape[0], -1, dtype=np.int64)
    tree = (levels[coo.row] >= 0) & (levels[coo.col] == levels[coo.row] + 1)
    for u, v in sorted(zip(coo.row[tree].tolist(), coo.col[tree].tolist()), reverse=True):
        parents[v] = u
    source = int(np.flatnonzero(levels == 0)[0])
    parents[source] = source
    return parents


@st.composite
def graph_result_and_damage(draw):
    n = draw(st.integers(2, 40))
    ends = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(ends, ends), min_size=1, max_size=4 * n))
    source = draw(ends)
    changes = draw(st.lists(st.tuples(st.sampled_from(["levels", "parents"]), ends,
                                      st.integers(-2, n)), max_size=3))
    which = draw(st.sampled_from(["both", "levels", "parents"]))
    return n, edges, source, changes, which


@settings(max_examples=60, deadline=None)
@given(graph_result_and_damage(), st.sampled_from(["as stored", "transposed", "symmetric"]))
def test_a_block_gives_the_verdict_of_its_edge_list(case, view):
    """The kernel over the block as stored gives the stand-in's verdict, its edges listed tail
    first, whether the rows are tails, heads (a transposed view) or either (a symmetric
    matrix, whose rows the kernel reads as heads)."""
    n, edges, source, changes, which = case
    src, dst = (np.array(e, dtype=np.int64) for e in zip(*edges))
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=view == "symmetric", backend="cpu")
    if view == "transposed":
        A = A.T
    assert A.local_edge_block()[3] == (view != "as stored")
    S = A.to_scipy()
    levels = scipy_levels(S, source)
    result = {"levels": levels, "parents": parents_from_levels(S, levels)}
    for name, vertex, value in changes:
        result[name][vertex] = value
    lv = result["levels"] if which != "parents" else None
    pa = result["parents"] if which != "levels" else None
    in_place = verdict(A, source, lv, pa)
    if not changes:
        assert in_place is None
    assert verdict(edge_list_stand_in(A), source, lv, pa) == in_place


def test_slices_of_a_given_count_end_empty_and_must_hold_the_edges():
    """With ``count`` (a collective over the slices needs the same count on every rank), the
    slices past this rank's edges are empty; a count too small for them is refused."""
    A = ld.Matrix.from_edges(np.arange(10), np.arange(10)[::-1], 10, backend="cpu")
    slices = list(A.local_edge_slices(4, count=5))
    assert [s.shape[0] for s, _ in slices] == [4, 4, 2, 0, 0]
    with pytest.raises(ValueError, match="2 slices of 4 edges cannot hold"):
        list(A.local_edge_slices(4, count=2))


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("step", [1, 5, 64, 10**9])
def test_slices_are_the_local_edges(transposed, step):
    rng = np.random.default_rng(7)
    A = ld.Matrix.from_edges(rng.integers(0, 300, 2000), rng.integers(0, 300, 2000), 300, backend="cpu")
    A = A.T if transposed else A
    slices = list(A.local_edge_slices(step))
    assert all(s.shape[0] <= step and s.dtype == np.int64 for s, _ in slices)
    src = np.concatenate([s for s, _ in slices])
    dst = np.concatenate([d for _, d in slices])
    whole = A.to_scipy()
    got = sp.csr_matrix((np.ones(src.shape[0]), (src, dst)), shape=whole.shape)
    assert got.nnz == whole.nnz == src.shape[0]
    assert (got != whole).nnz == 0


def validation_peak(A, source, levels, parents):
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        ld.validate(A, source, levels, parents)
        return tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


def test_a_matrix_is_validated_without_an_edge_list():
    """The edge rules read the block in place: validation's host peak is a few arrays of n,
    far below the int64 (src, dst) list of the stored edges that a stand-in's check sorts.
    A damaged result is still caught."""
    recycle.release()
    A = ld.kronecker(15, backend="cpu")
    res = ld.bfs(A, 5)
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    edge_list = 16 * A.nvals                      # int64 (src, dst) of every stored edge
    assert validation_peak(A, 5, levels, parents) < edge_list / 8
    assert validation_peak(edge_list_stand_in(A), 5, levels, parents) > edge_list / 2
    assert verdict(A, 5, levels, parents) is None
    broken = parents.copy()
    broken[np.flatnonzero(levels == 2)[0]] = 5     # a parent two levels up
    assert verdict(A, 5, levels, broken) is not None


MPI_SCRIPT = textwrap.dedent("""
    from types import SimpleNamespace
    import numpy as np
    from mpi4py import MPI
    import lagraph_dist as ld
    grid = ld.Grid(2, 2)
    A = ld.kronecker(9, seed=3, grid=grid, backend="cpu")
    res = ld.bfs(A, 7)
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    cases = [(levels, parents), (levels, None), (None, parents)]
    for v in np.flatnonzero(levels > 0)[::40]:
        bad_l, bad_p = levels.copy(), parents.copy()
        bad_l[v] += 1
        bad_p[v] = (bad_p[v] + 1) % A.n
        cases += [(bad_l, None), (None, bad_p), (bad_l, bad_p)]

    coo = A.to_scipy(root=None).tocoo()
    src, dst = coo.row.astype(np.int64), coo.col.astype(np.int64)
    edge_list = SimpleNamespace(n=A.n, grid=SimpleNamespace(comm=MPI.COMM_SELF), local_edges=lambda: (src, dst))

    def verdicts(matrix):
        out = []
        for lv, pa in cases:
            try:
                ld.validate(matrix, 7, lv, pa)
                out.append(None)
            except ld.ValidationError as exc:
                out.append(str(exc))
        return out

    whole, one_rank = verdicts(A), verdicts(edge_list)
    assert whole[0] is None and sum(v is not None for v in whole) > len(cases) // 2
    assert one_rank == whole, [(a, b) for a, b in zip(whole, one_rank) if a != b][:3]
    assert grid.comm.allgather(whole) == [whole] * 4
    print(f"rank {grid.rank} ok", flush=True)
""")


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(180)
def test_blocks_of_a_2x2_grid_give_the_verdict_of_one_edge_list(tmp_path):
    script = tmp_path / "check.py"
    script.write_text(MPI_SCRIPT)
    done = run_mpi(4, script, timeout=150)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    for rank in range(4):
        assert f"rank {rank} ok" in done.stdout
