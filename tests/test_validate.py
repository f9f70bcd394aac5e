"""Single-rank tests of the Graph500 validator: every rule accepts good results and
rejects its own kind of corruption."""

import importlib
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from mpi4py import MPI

from lagraph_dist.core.errors import DomainMismatch, IndexOutOfBound, InvalidValue, ValidationError
from lagraph_dist.tools import reference
from lagraph_dist.tools.validate import validate

from helpers import needs_mpi, run_mpi

# The package re-exports the function under the submodule's name, so fetch the module.
validate_module = importlib.import_module("lagraph_dist.tools.validate")

# Directed test graph, BFS from 0:
#   level 0: 0      level 1: 1, 2, 8      level 2: 3      level 3: 4
#   5 -> 6 -> 1 is an unreached part pointing into the reached one; 7 is isolated;
#   2 -> 2 is a self-loop and 4 -> 0 a back edge.
N = 9
SOURCE = 0
EDGES = [(0, 1), (0, 2), (0, 8), (1, 3), (2, 3), (2, 2), (3, 4), (4, 0), (5, 6), (6, 1)]
LEVELS = np.array([0, 1, 1, 2, 3, -1, -1, -1, 1], dtype=np.int64)
PARENTS = np.array([0, 0, 0, 1, 3, -1, -1, -1, 0], dtype=np.int64)


def fake_matrix(n, edges):
    """Single-rank stand-in for the distributed matrix interface validate() needs."""
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    return SimpleNamespace(n=n, grid=SimpleNamespace(comm=MPI.COMM_SELF),
                           local_edges=lambda: (src, dst))


@pytest.fixture
def A():
    return fake_matrix(N, EDGES)


def corrupted(levels=None, parents=None):
    """Copies of the good result with some entries overwritten ({vertex: value})."""
    lv, pa = LEVELS.copy(), PARENTS.copy()
    for v, x in (levels or {}).items():
        lv[v] = x
    for v, x in (parents or {}).items():
        pa[v] = x
    return lv, pa


class Gathered:
    """Mimics a distributed vector: only ``to_numpy()``."""

    def __init__(self, arr):
        self.arr = arr
        self.calls = 0

    def to_numpy(self):
        self.calls += 1
        return self.arr.copy()


# ----------------------------------------------------------------------------- valid


@pytest.mark.parametrize("which", ["both", "levels", "parents"])
def test_valid_result_passes(A, which):
    lv = LEVELS if which != "parents" else None
    pa = PARENTS if which != "levels" else None
    assert validate(A, SOURCE, lv, pa) is None


def test_other_valid_parent_choice_passes(A):
    lv, pa = corrupted(parents={3: 2})  # 2 -> 3 is also an edge from level 1
    validate(A, SOURCE, lv, pa)


def test_to_numpy_objects_are_gathered(A):
    lv, pa = Gathered(LEVELS), Gathered(PARENTS)
    validate(A, SOURCE, lv, pa)
    assert lv.calls == 1 and pa.calls == 1


def test_numpy_integer_source_and_int32_arrays(A):
    validate(A, np.int16(SOURCE), LEVELS.astype(np.int32), PARENTS.astype(np.int32))


def test_single_vertex_graph():
    one = fake_matrix(1, [])
    validate(one, 0, np.array([0]), np.array([0]))
    validate(fake_matrix(1, [(0, 0)]), 0, np.array([0]), None)
    with pytest.raises(ValidationError):
        validate(one, 0, np.array([1]), None)


# ----------------------------------------------------------------------------- rules


def check_raises(A, levels, parents, *patterns):
    """validate() must raise ValidationError whose message contains every pattern."""
    with pytest.raises(ValidationError) as info:
        validate(A, SOURCE, levels, parents)
    for pat in patterns:
        assert pat in str(info.value), str(info.value)
    return str(info.value)


@pytest.mark.parametrize("which", ["levels", "parents"])
@pytest.mark.parametrize("length", [N - 1, N + 1])
def test_wrong_length(A, which, length):
    arr = np.zeros(length, dtype=np.int64)
    lv, pa = (arr, PARENTS) if which == "levels" else (LEVELS, arr)
    check_raises(A, lv, pa, which, f"({length},)", f"({N},)")


def test_two_dimensional_array(A):
    check_raises(A, LEVELS.reshape(3, 3), None, "levels has shape (3, 3)")


def test_level_below_minus_one(A):
    check_raises(A, *corrupted(levels={5: -2}), "vertex 5", "levels[5] = -2")


@pytest.mark.parametrize("bad", [-2, N, 1000])
def test_parent_out_of_range(A, bad):
    check_raises(A, *corrupted(parents={4: bad}), "vertex 4", f"parents[4] = {bad}")


@pytest.mark.parametrize("which", ["both", "levels"])
def test_source_level_not_zero(A, which):
    lv, pa = corrupted(levels={0: 1})
    check_raises(A, lv, pa if which == "both" else None, "vertex 0", "expected 0")


@pytest.mark.parametrize("bad", [1, -1])
def test_source_not_its_own_parent(A, bad):
    lv, pa = corrupted(parents={0: bad})
    check_raises(A, lv, pa, "vertex 0", f"parents[0] = {bad}", "itself")
    check_raises(A, None, pa, "vertex 0", "itself")


def test_second_level_zero_vertex(A):
    check_raises(A, *corrupted(levels={8: 0}), "vertex 8", "only the source")


def test_reached_sets_differ(A):
    check_raises(A, *corrupted(levels={4: -1}), "vertex 4", "disagree")
    check_raises(A, *corrupted(levels={5: 2}), "vertex 5", "disagree")


def test_parent_unreached(A):
    check_raises(A, *corrupted(parents={4: 5}), "vertex 4", "vertex 5 was not reached")
    check_raises(A, None, corrupted(parents={4: 5})[1], "vertex 5 was not reached")


def test_corrupt_level(A):
    lv, pa = corrupted(levels={4: 4})
    check_raises(A, lv, pa, "vertex 4", "parent 3 has level 2")
    # Without parents the edge 3 -> 4 now jumps two levels.
    check_raises(A, lv, None, "edge 3 -> 4", "skips levels")


def test_parent_at_wrong_level(A):
    # 0 -> 3 is not an edge, but the level rule fires first.
    check_raises(A, *corrupted(parents={3: 0}), "vertex 3", "parent 0 has level 0")


def test_parent_not_a_neighbour(A):
    # 8 is on level 1 like the real parents of 3, but 8 -> 3 is no edge.
    msg = check_raises(A, *corrupted(parents={3: 8}), "vertex 3", "tree edge 8 -> 3")
    assert "not an edge of A" in msg
    check_raises(A, None, corrupted(parents={3: 8})[1], "tree edge 8 -> 3")


def test_unreached_vertex_with_reached_in_neighbour(A):
    lv, pa = corrupted(levels={4: -1}, parents={4: -1})
    for args in [(lv, pa), (lv, None), (None, pa)]:
        check_raises(A, *args, "vertex 4", "edge 3 -> 4", "BFS stopped early")


def test_level_too_small_without_support(A):
    # Level 2 for vertex 4 breaks no edge bound, but its only in-neighbour 3 is on level 2.
    lv = corrupted(levels={4: 2})[0]
    check_raises(A, lv, None, "vertex 4", "no in-neighbour of 4 has level 1")


def test_parents_cycle(A):
    pa = corrupted(parents={3: 4, 4: 3})[1]
    check_raises(A, None, pa, "vertex 3", "cycle")


def test_parents_self_cycle(A):
    pa = corrupted(parents={2: 2})[1]  # 2 -> 2 exists, so only the cycle rule catches it
    check_raises(A, None, pa, "vertex 2", "cycle")
    check_raises(A, LEVELS, pa, "vertex 2", "level")


def test_one_pointer_jumping_for_validation_and_the_scipy_oracle():
    """validate's depths from parents and reference.bfs_levels_scipy's levels come from one
    function: on a chain of 1500 vertices numbered backwards (11 doublings) both give the hop
    distances, and a parent cycle hangs from no root."""
    assert reference.depths_by_pointer_jumping is validate_module.depths_by_pointer_jumping
    n = 1500
    tails = np.arange(n - 1, 0, -1)
    S = scipy.sparse.csr_array((np.ones(n - 1), (tails, tails - 1)), shape=(n, n))
    hops = n - 1 - np.arange(n)
    np.testing.assert_array_equal(reference.bfs_levels_scipy(S, n - 1), hops)
    parents = np.append(np.arange(1, n), n - 1)          # v's parent is v + 1; the source its own
    np.testing.assert_array_equal(validate_module.depths_by_pointer_jumping(parents, n - 1), hops)
    validate(fake_matrix(n, list(zip(tails.tolist(), (tails - 1).tolist()))), n - 1, None, parents)
    cycle = np.array([0, 2, 1, 1, -1])                   # 1 <-> 2, and 3 below them
    np.testing.assert_array_equal(validate_module.depths_by_pointer_jumping(cycle, 0), [0, -1, -1, -1, -1])


def test_first_vertex_is_reported(A):
    lv, pa = corrupted(levels={3: 7, 4: 9})
    check_raises(A, lv, pa, "vertex 3")


# ----------------------------------------------------------------------------- arguments


def test_both_none_is_invalid(A):
    with pytest.raises(InvalidValue):
        validate(A, SOURCE, None, None)


@pytest.mark.parametrize("source", [True, 0.0, "0", None])
def test_non_integer_source(A, source):
    with pytest.raises(DomainMismatch, match="source"):
        validate(A, source, LEVELS, PARENTS)


@pytest.mark.parametrize("source", [-1, N])
def test_source_out_of_range(A, source):
    with pytest.raises(IndexOutOfBound, match=str(source)):
        validate(A, source, LEVELS, PARENTS)


def test_float_arrays_rejected(A):
    with pytest.raises(DomainMismatch, match="levels"):
        validate(A, SOURCE, LEVELS.astype(float), None)


def test_matrix_with_out_of_range_edge():
    with pytest.raises(InvalidValue, match="local_edges"):
        validate(fake_matrix(N, EDGES + [(2, N)]), SOURCE, LEVELS, PARENTS)


# ----------------------------------------------------------------------------- properties


def bfs_levels(n, edges, source):
    """Plain queue BFS, independent of the package, for the property tests."""
    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
    levels = np.full(n, -1, dtype=np.int64)
    parents = np.full(n, -1, dtype=np.int64)
    levels[source], parents[source] = 0, source
    frontier = [source]
    while frontier:
        nxt = []
        for u in frontier:
            for v in adj[u]:
                if levels[v] < 0:
                    levels[v], parents[v] = levels[u] + 1, u
                    nxt.append(v)
        frontier = nxt
    return levels, parents


@st.composite
def graph_and_source(draw):
    n = draw(st.integers(2, 25))
    ends = st.integers(0, n - 1)
    edges = sorted(set(draw(st.lists(st.tuples(ends, ends), max_size=3 * n))))
    return n, edges, draw(ends)


@settings(max_examples=80, deadline=None)
@given(graph_and_source(), st.data())
def test_any_wrong_level_is_caught(graph, data):
    """Levels alone pin down BFS distances: changing any one level must be rejected."""
    n, edges, source = graph
    A = fake_matrix(n, edges)
    levels, parents = bfs_levels(n, edges, source)
    validate(A, source, levels, parents)
    validate(A, source, levels, None)
    validate(A, source, None, parents)
    v = data.draw(st.integers(0, n - 1))
    new = data.draw(st.integers(-1, n).filter(lambda x: x != levels[v]))
    bad = levels.copy()
    bad[v] = new
    with pytest.raises(ValidationError):
        validate(A, source, bad, None)


# ----------------------------------------------------------------------------- backend path


def numpy_backend():
    """Stand-in for ``A.backend`` on the CPU: the same interface the GPU backend has."""
    return SimpleNamespace(xp=np, to_host=lambda a: a, asarray=np.asarray, name="cpu")


def backend_matrix(n, edges, dtype=np.int64):
    """Fake matrix with a backend: validate() must take the xp path and ask for device edges."""
    src = np.array([e[0] for e in edges], dtype=dtype)
    dst = np.array([e[1] for e in edges], dtype=dtype)
    calls = []

    def local_edges(on_device=False):
        calls.append(on_device)
        return src, dst

    return SimpleNamespace(n=n, grid=SimpleNamespace(comm=MPI.COMM_SELF),
                           backend=numpy_backend(), local_edges=local_edges, calls=calls)


def outcome(A, source, levels, parents):
    """(exception type, message) of validate(), or None if it passed."""
    try:
        validate(A, source, levels, parents)
    except (ValidationError, InvalidValue, DomainMismatch, IndexOutOfBound) as exc:
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("which", ["both", "levels", "parents"])
def test_backend_valid_result_passes(which):
    A = backend_matrix(N, EDGES)
    lv = LEVELS if which != "parents" else None
    pa = PARENTS if which != "levels" else None
    assert validate(A, SOURCE, lv, pa) is None
    assert A.calls == [True]  # edges requested once, on the device


def test_backend_skips_edges_when_global_rules_fail():
    A = backend_matrix(N, EDGES)
    with pytest.raises(ValidationError):
        validate(A, SOURCE, *corrupted(levels={5: -2}))
    assert A.calls == []


# Every corruption of the rule tests above: (levels changes, parents changes).
CORRUPTIONS = [
    ({5: -2}, {}), ({}, {4: -2}), ({}, {4: N}), ({0: 1}, {}), ({}, {0: 1}), ({}, {0: -1}),
    ({8: 0}, {}), ({4: -1}, {}), ({5: 2}, {}), ({}, {4: 5}), ({4: 4}, {}), ({}, {3: 0}),
    ({}, {3: 8}), ({4: -1}, {4: -1}), ({4: 2}, {}), ({}, {3: 4, 4: 3}), ({}, {2: 2}),
    ({3: 7, 4: 9}, {}), ({3: -1, 4: -1}, {3: -1, 4: -1}), ({8: 2}, {}), ({1: -1}, {1: -1}),
    ({}, {3: 2}),
]


@pytest.mark.parametrize("lv_changes,pa_changes", CORRUPTIONS)
@pytest.mark.parametrize("which", ["both", "levels", "parents"])
def test_backend_path_reports_like_numpy_path(lv_changes, pa_changes, which):
    """Same verdict (rule, vertex, message) through the backend as through the plain fake."""
    lv, pa = corrupted(levels=lv_changes, parents=pa_changes)
    lv = lv if which != "parents" else None
    pa = pa if which != "levels" else None
    expected = outcome(fake_matrix(N, EDGES), SOURCE, lv, pa)
    assert outcome(backend_matrix(N, EDGES), SOURCE, lv, pa) == expected
    # Edge order must not matter either (the batches then see other edges first).
    assert outcome(backend_matrix(N, EDGES[::-1]), SOURCE, lv, pa) == expected


def test_smallest_offending_edge_found_in_any_edge_order():
    """Vertex 3 unreached: 2 -> 3 and 1 -> 3 stop early; the report names the smallest head
    and then the smallest tail, whichever edge comes first."""
    lv, pa = corrupted(levels={3: -1, 4: -1}, parents={3: -1, 4: -1})
    for edges in (EDGES, EDGES[::-1]):
        for args in [(lv, pa), (lv, None), (None, pa)]:
            msg = check_raises(backend_matrix(N, edges), *args, "vertex 3", "BFS stopped early")
            assert "edge 1 -> 3" in msg


def test_backend_edge_out_of_range_in_last_batch():
    A = backend_matrix(N, EDGES + [(2, N)])
    with pytest.raises(InvalidValue, match="local_edges"):
        validate(A, SOURCE, LEVELS, PARENTS)
    A = backend_matrix(N, EDGES + [(-1, 2)])
    with pytest.raises(InvalidValue, match="local_edges"):
        validate(A, SOURCE, LEVELS, None)


def test_backend_int32_edges():
    validate(backend_matrix(N, EDGES, dtype=np.int32), SOURCE, LEVELS, PARENTS)
    check_raises(backend_matrix(N, EDGES, dtype=np.int32), *corrupted(parents={3: 8}),
                 "tree edge 8 -> 3")


def test_backend_empty_and_single_vertex():
    validate(backend_matrix(1, []), 0, np.array([0]), np.array([0]))
    validate(backend_matrix(1, [(0, 0)]), 0, None, np.array([0]))
    check_raises(backend_matrix(3, []), np.array([0, 1, -1]), None, "vertex 1")


def test_backend_gathered_and_argument_errors():
    A = backend_matrix(N, EDGES)
    lv, pa = Gathered(LEVELS), Gathered(PARENTS)
    validate(A, SOURCE, lv, pa)
    assert lv.calls == 1 and pa.calls == 1
    with pytest.raises(DomainMismatch, match="levels"):
        validate(A, SOURCE, LEVELS.astype(float), None)
    with pytest.raises(IndexOutOfBound):
        validate(A, N, LEVELS, PARENTS)
    check_raises(A, LEVELS.reshape(3, 3), None, "levels has shape (3, 3)")


@settings(max_examples=80, deadline=None)
@given(graph_and_source(), st.data())
def test_backend_agrees_with_numpy_path_on_random_input(graph, data):
    """Random graphs, edge orders and corruptions: identical verdicts."""
    n, edges, source = graph
    levels, parents = bfs_levels(n, edges, source)
    for _ in range(data.draw(st.integers(0, 3))):
        v = data.draw(st.integers(0, n - 1))
        arr = levels if data.draw(st.booleans()) else parents
        arr[v] = data.draw(st.integers(-2, n))
    which = data.draw(st.sampled_from(["both", "levels", "parents"]))
    lv = levels if which != "parents" else None
    pa = parents if which != "levels" else None
    expected = outcome(fake_matrix(n, edges), source, lv, pa)
    shuffled = data.draw(st.permutations(edges))
    assert outcome(backend_matrix(n, shuffled), source, lv, pa) == expected


# The backend path on several ranks: marks go through to_host for the MPI allreduce.
MPI_BACKEND_SCRIPT = textwrap.dedent("""
    import importlib, sys
    from types import SimpleNamespace
    import numpy as np
    from mpi4py import MPI
    sys.path.insert(0, sys.argv[1])
    from lagraph_dist.tools.validate import validate

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n, rng = 60, np.random.default_rng(3)
    key = np.unique(rng.integers(0, n, 150) * n + rng.integers(0, n, 150))
    src, dst = key // n, key % n
    owner = np.random.default_rng(4).choice(size, size=key.size, p=[0.1, 0.3, 0.6][:size])
    mine = (src[owner == rank], dst[owner == rank])
    host_copies = []

    def to_host(a):
        host_copies.append(a.shape)
        return a

    backend = SimpleNamespace(xp=np, to_host=to_host, asarray=np.asarray, name="cpu")
    grid = SimpleNamespace(comm=comm)
    plain = SimpleNamespace(n=n, grid=grid, local_edges=lambda: mine)
    device = SimpleNamespace(n=n, grid=grid, backend=backend,
                             local_edges=lambda on_device=False: mine)

    levels = np.full(n, -1); parents = np.full(n, -1)
    levels[0], parents[0], frontier = 0, 0, [0]
    while frontier:
        nxt = []
        for u in frontier:
            for v in dst[src == u]:
                if levels[v] < 0:
                    levels[v], parents[v] = levels[u] + 1, u
                    nxt.append(v)
        frontier = nxt

    def run(A, lv, pa):
        try:
            validate(A, 0, lv, pa)
        except Exception as exc:
            return type(exc).__name__, str(exc)
        return None

    cases = [(levels, parents)]
    reached = np.flatnonzero(levels > 0)
    for v in reached[:: max(1, reached.size // 6)]:
        for field, value in (("l", -1), ("l", levels[v] + 1), ("l", levels[v] - 1),
                             ("p", (parents[v] + 1) % n), ("p", -1), ("b", -1)):
            lv, pa = levels.copy(), parents.copy()
            if field in "lb":
                lv[v] = value
            if field in "pb":
                pa[v] = value
            cases.append((lv, pa))
    bad = 0
    for lv, pa in cases:
        for a, b in ((lv, pa), (lv, None), (None, pa)):
            want, got = run(plain, a, b), run(device, a, b)
            everyone = comm.allgather(got)
            if got != want or len(set(everyone)) != 1:
                bad += 1
                print(f"rank {rank} mismatch: {want} vs {got}", flush=True)
    assert run(device, levels, parents) is None
    assert any(shape == (n,) for shape in host_copies), host_copies
    if comm.allreduce(bad) == 0:
        print(f"rank {rank} ok", flush=True)
""")


@pytest.mark.mpi
@needs_mpi
def test_backend_path_on_three_ranks(tmp_path):
    script = tmp_path / "check_backend.py"
    script.write_text(MPI_BACKEND_SCRIPT)
    root = str(Path(__file__).resolve().parents[1])
    proc = run_mpi(3, script, root, timeout=120)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    for rank in range(3):
        assert f"rank {rank} ok" in proc.stdout, report


# The edge rules' kernel against a loop over the edges written here from the rules' statement.
def edge_rules_by_loop(indptr, indices, row_map, col_map, rows_are_heads, depth, parents):
    """(first stopped-early key, first level-skip key, any endpoint out of range, marks)."""
    def to_global(local, id_map):
        block_len, stride, offset = id_map
        return (local // block_len) * stride + offset + local % block_len

    n = depth.shape[0]
    stopped, skipped, out_of_range, marks = [], [], False, np.zeros(n, np.uint8)
    for row in range(indptr.shape[0] - 1):
        for e in range(indptr[row], indptr[row + 1]):
            a, b = to_global(row, row_map), to_global(int(indices[e]), col_map)
            tail, head = (b, a) if rows_are_heads else (a, b)
            if not (0 <= tail < n and 0 <= head < n):
                out_of_range = True
                continue
            if depth[tail] < 0:
                continue
            if depth[head] < 0:
                stopped.append(head * n + tail)
            elif depth[head] > depth[tail] + 1:
                skipped.append(head * n + tail)
            one_down = depth[head] == depth[tail] + 1       # (a tree edge must be: checked before)
            if one_down and (parents is None or parents[head] == tail):
                marks[head] = 1
    return min(stopped, default=None), min(skipped, default=None), out_of_range, marks


@st.composite
def edge_block_case(draw):
    """A random block with random id maps (some ids landing outside [0, n)), depths and parents."""
    nrows, ncols = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    degrees = draw(st.lists(st.integers(0, 5), min_size=nrows, max_size=nrows))
    indptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
    indices = np.array(draw(st.lists(st.integers(0, ncols - 1), min_size=int(indptr[-1]),
                                     max_size=int(indptr[-1]))), dtype=np.int32)
    id_map = st.tuples(st.integers(1, 6), st.integers(6, 9), st.integers(0, 4))
    n = draw(st.integers(1, 30))
    depth = np.array(draw(st.lists(st.integers(-1, 4), min_size=n, max_size=n)), dtype=np.int64)
    parents = np.array(draw(st.lists(st.integers(-1, n - 1), min_size=n, max_size=n)), dtype=np.int64)
    return (indptr, indices, ncols, draw(id_map), draw(id_map), draw(st.booleans()), depth,
            draw(st.sampled_from([parents, None])))


@settings(max_examples=150, deadline=None)
@given(edge_block_case())
def test_edge_rules_kernel_matches_a_loop_over_the_edges(case):
    from lagraph_dist.local import cpu_kernels
    from lagraph_dist.local.engine import EDGE_RULE_NONE
    from lagraph_dist.local.parts import LocalCSR
    from lagraph_dist.local.cpu_kernels import edge_rules
    indptr, indices, ncols, row_map, col_map, rows_are_heads, depth, parents = case
    stopped, skipped, out_of_range, expected_marks = edge_rules_by_loop(indptr, indices, row_map, col_map,
                                                                        rows_are_heads, depth, parents)
    for threads in (1, 3):        # (a big block's row ranges, one a thread, forced on a small one)
        marks = np.zeros(depth.shape[0], np.uint8)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(edge_rules, "chunks_for", lambda work: threads)
            found = cpu_kernels.check_edges(LocalCSR(indptr, indices, ncols), row_map, col_map, rows_are_heads,
                                            depth, parents, marks)
        assert found[0] == (EDGE_RULE_NONE if stopped is None else stopped)
        assert found[1] == (EDGE_RULE_NONE if skipped is None else skipped)
        assert (found[2] != EDGE_RULE_NONE) == out_of_range
        np.testing.assert_array_equal(marks, expected_marks)
