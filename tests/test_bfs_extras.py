"""ld.bfs with depth_limit and target, in one process, against scipy.sparse.csgraph distances
(truncated at the limit, or at the target's level); and every BFS extra (depth limit, target,
bfs_multi, paths) under mpiexec -n 4 on three grid shapes (tests/mpi/check_extras.py)."""
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from extras_checks import check_tree, hop_levels, truncated, until_target
from helpers import (BACKENDS, DIRECTIONS, data_file, data_params, edge_graphs, edges_to_scipy, needs_mpi,
                     read_scipy_pattern, real_graphs, run_mpi)

HERE = Path(__file__).resolve().parent


def searched_levels(res):
    """The depth of the deepest level the search expanded (0: only the source's)."""
    return max((s["level"] for s in res.stats), default=0)


def check_limited(S, A, source, expected, direction, **limits):
    """ld.bfs with ``limits`` gives ``expected`` levels and a BFS tree of them."""
    res = ld.bfs(A, source, direction=direction, **limits)
    levels, parents = res.levels.to_numpy(), res.parents.to_numpy()
    np.testing.assert_array_equal(levels, expected, err_msg=f"{limits}, {direction}")
    check_tree(S, source, expected, parents, f"{limits}, {direction}")
    return res


# -- depth limit ------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), limit=st.integers(0, 6), direction=st.sampled_from(DIRECTIONS))
def test_depth_limit_generated(backend, graph, limit, direction):
    src, dst, n, symmetrize, source = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    full = hop_levels(S, [source])[0]
    res = check_limited(S, A, source, truncated(full, limit), direction, depth_limit=limit)
    assert searched_levels(res) <= limit, "a level past the limit was expanded"


@pytest.mark.parametrize("backend", BACKENDS)
def test_depth_limit_cuts_the_work(backend):
    """depth_limit=2 on a Kronecker graph expands two levels: fewer edges than a full search."""
    A = ld.kronecker(12, backend=backend)
    source = int(A.out_degree().indices()[0])
    full = ld.bfs(A, source)
    limited = ld.bfs(A, source, depth_limit=2)
    assert [s["level"] for s in limited.stats] == [1, 2]
    assert sum(s["edges_examined"] for s in limited.stats) < sum(s["edges_examined"] for s in full.stats)
    expected = truncated(full.levels.to_numpy(), 2)
    np.testing.assert_array_equal(limited.levels.to_numpy(), expected)
    ld.validate(A, source, full.levels, full.parents)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("limit", [0, 1, 3])
def test_depth_limit_on_a_long_path(backend, limit):
    """A path 0 -> 1 -> ... -> 99: the limit is exactly how far the search gets."""
    n = 100
    A = ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, backend=backend)
    levels = ld.bfs(A, 0, depth_limit=limit).levels.to_numpy()
    np.testing.assert_array_equal(levels, np.where(np.arange(n) <= limit, np.arange(n), -1))


# -- target -----------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), pick=st.integers(0, 10**6), direction=st.sampled_from(DIRECTIONS))
def test_target_generated(backend, graph, pick, direction):
    src, dst, n, symmetrize, source = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    full = hop_levels(S, [source])[0]
    target = pick % n
    res = check_limited(S, A, source, until_target(full, target), direction, target=target)
    if full[target] >= 0:
        assert searched_levels(res) == full[target], "the search went on past the target's level"


@pytest.mark.parametrize("backend", BACKENDS)
def test_target_and_depth_limit_together(backend):
    """Whichever comes first stops the search."""
    n = 50
    A = ld.Matrix.from_edges(np.arange(n - 1), np.arange(1, n), n, backend=backend)
    path = np.arange(n)
    for limit, target, last in [(10, 5, 5), (3, 20, 3), (4, 4, 4)]:
        levels = ld.bfs(A, 0, depth_limit=limit, target=target).levels.to_numpy()
        np.testing.assert_array_equal(levels, np.where(path <= last, path, -1), err_msg=f"{limit}, {target}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_target_is_the_source(backend):
    A = ld.kronecker(7, backend=backend)
    res = ld.bfs(A, 3, target=3)
    assert res.stats == []
    levels = res.levels.to_numpy()
    assert levels[3] == 0 and (levels >= 0).sum() == 1


SMALL_GRAPHS = real_graphs("lagraph")


@pytest.mark.parametrize("path", data_params(SMALL_GRAPHS, "lagraph"))
def test_real_graphs_limit_and_target(path):
    S = read_scipy_pattern(path)
    A = ld.Matrix.from_mtx(path, backend="cpu")
    degrees = np.diff(S.indptr)
    source = int(np.argmax(degrees))
    full = hop_levels(S, [source])[0]
    for limit in (1, 2):
        check_limited(S, A, source, truncated(full, limit), "auto", depth_limit=limit)
    deepest = int(np.argmax(full))
    check_limited(S, A, source, until_target(full, deepest), "auto", target=deepest)


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, text", [
    ({"depth_limit": -1}, ld.InvalidValue, "depth_limit must be >= 0"),
    ({"depth_limit": 1.5}, ld.DomainMismatch, "depth_limit must be an integer"),
    ({"depth_limit": True}, ld.DomainMismatch, "depth_limit must be an integer"),
    ({"target": 500}, ld.IndexOutOfBound, "target 500 is out of range"),
    ({"target": -2}, ld.IndexOutOfBound, "target -2"),
    ({"target": 2.0}, ld.DomainMismatch, "target must be an integer"),
])
def test_bad_limits(kwargs, error, text):
    A = ld.kronecker(6, backend="cpu")
    with pytest.raises(error, match=text):
        ld.bfs(A, 1, **kwargs)


# -- every extra on grids of four ranks -------------------------------------------------------
GRIDS = [(2, 2), (1, 4), (4, 1)]


def run_extras(grids, which, folder):
    """tests/mpi/check_extras.py on each grid of ``grids`` in one start of as many ranks as the
    largest holds (each start of the ranks costs seconds on 2 cores); every rank must report ok."""
    shapes = [f"{rows}x{cols}" for rows, cols in grids]
    ranks = max(rows * cols for rows, cols in grids)
    done = run_mpi(ranks, HERE / "mpi" / "check_extras.py", *shapes, which, folder, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"grids {shapes} ({which}):\n" + output[-4000:]
    ok = sorted(re.findall(r"rank (\d+) ok", done.stdout))
    assert ok == sorted(str(r) for r in range(ranks)), f"grids {shapes} ({which}): not every rank ok\n" + output[-4000:]


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(660)
def test_extras_on_grids(tmp_path):
    """2 x 2, 1 x 4 and 4 x 1 in one start of 4 ranks; a failure names its grid."""
    run_extras(GRIDS, "generated", tmp_path)


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(660)
def test_extras_on_real_graphs():
    data_file("lagraph")
    run_extras([(2, 2)], "real", data_file())


def test_scipy_levels_are_independent_of_us():
    """The oracle itself, on a graph drawn by hand: 0 -> 1 -> 2, 0 -> 3, 4 alone."""
    S = sp.csr_matrix((np.ones(3), ([0, 1, 0], [1, 2, 3])), shape=(5, 5))
    np.testing.assert_array_equal(hop_levels(S, [0, 4]), [[0, 1, 2, 1, -1], [-1, -1, -1, -1, 0]])
    np.testing.assert_array_equal(truncated(hop_levels(S, [0])[0], 1), [0, 1, -1, 1, -1])
    np.testing.assert_array_equal(until_target(hop_levels(S, [0])[0], 3), [0, 1, -1, 1, -1])
