"""Single-rank tests of the Graph500 validator: every rule accepts good results and
rejects its own kind of corruption."""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpi4py import MPI

from lagraph_dist.errors import DomainMismatch, IndexOutOfBound, InvalidValue, ValidationError
from lagraph_dist.validate import validate

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
