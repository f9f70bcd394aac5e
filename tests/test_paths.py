"""ld.bfs_path and ld.bfs_paths: every path follows real edges of the graph and has the BFS
length (the target's hop distance by scipy.sparse.csgraph + 1), unreached targets give empty
paths, on generated and real graphs, from single and multi-source results; bad input raises."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from extras_checks import check_path, hop_levels
from helpers import BACKENDS, data_params, edge_graphs, edges_to_scipy, read_scipy_pattern, real_graphs


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), direction=st.sampled_from(["push", "pull", "auto"]), limit=st.sampled_from([None, 1, 2]))
def test_paths_generated(backend, graph, direction, limit):
    src, dst, n, symmetrize, source = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    levels = hop_levels(S, [source])[0]
    if limit is not None:
        levels = np.where(levels <= limit, levels, -1)
    res = ld.bfs(A, source, direction=direction, depth_limit=limit)
    targets = np.arange(n)
    paths = ld.bfs_paths(res, targets)
    assert len(paths) == n
    for target, path in zip(targets, paths):
        check_path(S, path, source, int(target), int(levels[target]), f"target {target}")
    pick = int(targets[-1])
    np.testing.assert_array_equal(ld.bfs_path(res, pick), paths[-1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_paths_from_a_multi_source_result(backend):
    A = ld.kronecker(9, backend=backend)
    S = A.to_scipy()
    sources = [4, 77, 4]
    levels = hop_levels(S, sources)
    res = ld.bfs_multi(A, sources, batch_size=2)
    targets = np.random.default_rng(0).integers(0, A.n, 40)
    for i, source in enumerate(sources):
        for target, path in zip(targets, ld.bfs_paths(res, targets, search=i)):
            check_path(S, path, source, int(target), int(levels[i, target]), f"search {i}")
        check_path(S, ld.bfs_path(res, 5, search=i), source, 5, int(levels[i, 5]))


def test_small_cases():
    """0 -> 1 -> 2 -> 3 and 4 -> 1: paths from 0; 4 is unreached; a repeated target twice."""
    A = ld.Matrix.from_edges([0, 1, 2, 4], [1, 2, 3, 1], 5, backend="cpu")
    res = ld.bfs(A, 0)
    assert ld.bfs_path(res, 3).tolist() == [0, 1, 2, 3]
    assert ld.bfs_path(res, 0).tolist() == [0]
    assert ld.bfs_path(res, 4).tolist() == [] and ld.bfs_path(res, 4).dtype == np.int64
    assert [p.tolist() for p in ld.bfs_paths(res, [3, 4, 3, 1])] == [[0, 1, 2, 3], [], [0, 1, 2, 3], [0, 1]]
    assert ld.bfs_paths(res, []) == []
    assert ld.bfs_paths(res, np.array([2], dtype=np.uint8))[0].tolist() == [0, 1, 2]


SMALL_GRAPHS = real_graphs("lagraph")


@pytest.mark.parametrize("path", data_params(SMALL_GRAPHS, "lagraph"))
def test_real_graph_paths(path):
    S = read_scipy_pattern(path)
    A = ld.Matrix.from_mtx(path, backend="cpu")
    source = int(np.argmax(np.diff(S.indptr)))
    levels = hop_levels(S, [source])[0]
    res = ld.bfs(A, source)
    for target, found in zip(range(A.n), ld.bfs_paths(res, np.arange(A.n))):
        check_path(S, found, source, target, int(levels[target]), path.name)


@pytest.mark.parametrize("call, error, text", [
    (lambda res, multi: ld.bfs_path(res, 64), ld.IndexOutOfBound, "target 64 is out of range"),
    (lambda res, multi: ld.bfs_path(res, -1), ld.IndexOutOfBound, "target -1"),
    (lambda res, multi: ld.bfs_path(res, 2.0), ld.DomainMismatch, "target must be an integer"),
    (lambda res, multi: ld.bfs_paths(res, [1, 99]), ld.IndexOutOfBound, "targets contain 99"),
    (lambda res, multi: ld.bfs_paths(res, [1.5]), ld.DomainMismatch, "targets must be integers"),
    (lambda res, multi: ld.bfs_paths(res, 3), ld.DomainMismatch, "sequence of vertex ids"),
    (lambda res, multi: ld.bfs_path(res, 1, search=0), ld.InvalidValue, "a bfs result has one search"),
    (lambda res, multi: ld.bfs_path(multi, 1), ld.InvalidValue, "pass search=i"),
    (lambda res, multi: ld.bfs_path(multi, 1, search=2), ld.IndexOutOfBound, "search 2 is out of range"),
    (lambda res, multi: ld.bfs_path("levels", 1), ld.DomainMismatch, "result of ld.bfs or ld.bfs_multi"),
])
def test_bad_input(call, error, text):
    A = ld.kronecker(6, backend="cpu")
    with pytest.raises(error, match=text):
        call(ld.bfs(A, 1), ld.bfs_multi(A, [1, 2]))


def test_results_without_parents():
    A = ld.kronecker(6, backend="cpu")
    with pytest.raises(ld.InvalidValue, match=r"no parents; run ld.bfs\(\.\.\., parents=True\)"):
        ld.bfs_path(ld.bfs(A, 1, parents=False), 3)
    with pytest.raises(ld.InvalidValue, match="no parents"):
        ld.bfs_paths(ld.bfs_multi(A, [1], parents=False), [3], search=0)


def test_a_broken_tree_is_reported():
    """Parents that do not lead back to the source raise ValidationError, never loop."""
    A = ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 4, backend="cpu")
    res = ld.bfs(A, 0)
    broken = ld.Vector.from_indices([0, 1, 2, 3], 4, values=np.array([0, 2, 1, 2]), backend="cpu")
    res.parents = broken
    with pytest.raises(ld.ValidationError, match="does not reach the source"):
        ld.bfs_path(res, 3)
