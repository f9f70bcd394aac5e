"""Validation of real matrices in edge batches: any batch size gives the verdict of one batch,
the slices of a block are its edges, and small batches really hold less memory."""
import importlib
import textwrap
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.local import fit, recycle
from lagraph_dist.algebra import memory
from helpers import needs_mpi, run_mpi

validate_module = importlib.import_module("lagraph_dist.tools.validate")


def verdict(A, source, levels, parents):
    try:
        ld.validate(A, source, levels, parents)
    except (ld.ValidationError, ld.InvalidValue) as exc:
        return type(exc).__name__, str(exc)
    return None


def verdict_with_batch(batch, *args):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(validate_module, "EDGE_BATCH", batch)
        return verdict(*args)


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
@given(graph_result_and_damage(), st.integers(1, 9), st.booleans())
def test_any_batch_size_gives_the_verdict_of_one_batch(case, batch, transposed):
    n, edges, source, changes, which = case
    src, dst = (np.array(e, dtype=np.int64) for e in zip(*edges))
    A = ld.Matrix.from_edges(src, dst, n, backend="cpu")
    if transposed:
        A = A.T
    S = A.to_scipy()
    levels = scipy_levels(S, source)
    result = {"levels": levels, "parents": parents_from_levels(S, levels)}
    for name, vertex, value in changes:
        result[name][vertex] = value
    lv = result["levels"] if which != "parents" else None
    pa = result["parents"] if which != "levels" else None
    whole = verdict_with_batch(1 << 40, A, source, lv, pa)
    if not changes:
        assert whole is None
    assert verdict_with_batch(batch, A, source, lv, pa) == whole


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


def test_batches_follow_the_free_memory(monkeypatch):
    """With the host reporting little free memory, validation holds a fraction of what the
    whole edge list costs; with plenty, it takes the edges in one batch. (The recycling pool is
    emptied first: its free arrays count as available memory, and a test before this one in the
    same process may have left some.)"""
    recycle.release()
    A = ld.kronecker(15, backend="cpu")
    res = ld.bfs(A, 5)
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    edge_list = 16 * A.nvals                      # int64 (src, dst) of every stored edge
    monkeypatch.setattr(fit, "host_memory", lambda: (1 << 42, 1 << 42))
    roomy = validation_peak(A, 5, levels, parents)
    assert roomy > edge_list                      # one batch: the whole list and more
    monkeypatch.setattr(fit, "host_memory", lambda: (8 << 20, 1 << 42))
    tight = validation_peak(A, 5, levels, parents)
    assert tight < edge_list / 2
    assert tight < roomy / 4
    assert verdict(A, 5, levels, parents) is None
    broken = parents.copy()
    broken[np.flatnonzero(levels == 2)[0]] = 5     # a parent two levels up
    assert verdict(A, 5, levels, broken) is not None





MPI_SCRIPT = textwrap.dedent("""
    import importlib
    import numpy as np
    import lagraph_dist as ld
    vmod = importlib.import_module("lagraph_dist.tools.validate")
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

    def verdicts(batch):
        vmod.EDGE_BATCH = batch
        out = []
        for lv, pa in cases:
            try:
                ld.validate(A, 7, lv, pa)
                out.append(None)
            except ld.ValidationError as exc:
                out.append(str(exc))
        return out

    whole, tiny = verdicts(1 << 40), verdicts(3)
    assert whole[0] is None and sum(v is not None for v in whole) > len(cases) // 2
    assert tiny == whole, [(a, b) for a, b in zip(whole, tiny) if a != b][:3]
    assert grid.comm.allgather(whole) == [whole] * 4
    print(f"rank {grid.rank} ok", flush=True)
""")


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(180)
def test_batches_on_a_2x2_grid(tmp_path):
    script = tmp_path / "check.py"
    script.write_text(MPI_SCRIPT)
    done = run_mpi(4, script, timeout=150)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    for rank in range(4):
        assert f"rank {rank} ok" in done.stdout
