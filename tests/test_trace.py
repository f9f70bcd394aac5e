"""lagraph_dist.algebra.trace: a record for each product and each search level an algorithm
runs, in order, checked on a path graph whose levels are known by hand (0 - 1 - 2 - 3)."""
import numpy as np

import lagraph_dist as ld
from lagraph_dist.algebra import trace
from lagraph_dist.algebra.trace import product_trace
from lagraph_dist.algorithms import centrality


def _path(backend="cpu"):
    return ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 4, symmetrize=True, backend=backend)


def test_a_source_at_a_time_the_products_are_its_sweeps():
    """Betweenness's sweeps as products (its way on grids and the GPU): from source 0 the
    forward sweep is four products (frontiers {0}, {1}, {2}, {3}, the last finding nothing),
    the backward two (level 3 passes to 2, level 2 to 1; level 1's pass to the source is not
    made): every record says what it read and found."""
    with product_trace() as records:
        centrality._sweeps_a_source(_path(), [0], endpoints=False)
    assert [r["op"] for r in records] == ["vxm"] * 4 + ["mxv"] * 2
    assert [r["frontier"] for r in records] == [1, 1, 1, 1, 1, 1]
    assert [r["discovered"] for r in records] == [1, 1, 1, 0, 1, 1]
    assert [r["level"] for r in records] == list(range(1, 7))
    assert [r["call"] for r in records] == list(range(1, 7))
    for r in records:
        assert r["seconds"] >= 0 and r["launches"] == 0 and r["host_reads"] == 0
        assert r["seconds"] == sum(r["stage_seconds"].values())


def test_batched_sweeps_are_the_levels_then_one_call():
    """On one CPU process: the batch's levels (a search's four), then both sweeps in one call,
    which reached 3 vertices besides the source and read 9 edges (forward, the in-edges of
    vertices 1, 2, 3: 2 + 2 + 1; backward, the out-edges of 2 and 1: 2 + 2)."""
    with product_trace() as records:
        ld.betweenness_centrality(_path(), sources=[0])
    assert [r["op"] for r in records] == ["searches"] * 4 + ["sweeps"]
    sweeps = records[-1]
    assert (sweeps["frontier"], sweeps["discovered"], sweeps["edges_examined"]) == (1, 3, 9)
    assert sweeps["fused"] and sweeps["seconds"] > 0 and sweeps["direction"] == "pull forward, push back"


def test_a_search_is_its_levels_not_its_products():
    """ld.bfs from 0 reaches one vertex a level for three levels, then none: one call, four
    level records (its products are not noted again)."""
    with product_trace() as records:
        ld.bfs(_path(), 0, parents=False)
    assert [r["op"] for r in records] == ["search"] * 4
    assert [r["discovered"] for r in records] == [1, 1, 1, 0]
    assert {r["call"] for r in records} == {1}


def test_batches_of_searches_are_traced_as_searches():
    A = ld.kronecker(8, backend="cpu")
    sources = [0, 3, 7]
    with product_trace() as records:
        result = ld.bfs_multi(A, sources, parents=False)
    levels = result.levels.to_numpy()
    reached = int((levels > 0).sum())             # entries found after the sources
    assert {r["op"] for r in records} == {"searches"}
    assert sum(r["discovered"] for r in records) == reached


def test_traces_nest_and_close():
    A = _path()
    with product_trace() as outer:
        ld.bfs(A, 0, parents=False)
        with product_trace() as inner:
            ld.bfs(A, 3, parents=False)
        assert trace.tracing()
    assert not trace.tracing()
    assert len(inner) == 4 and len(outer) == 8
    assert [r["level"] for r in inner] == [1, 2, 3, 4] and {r["call"] for r in inner} == {1}
    assert [r["call"] for r in outer] == [1] * 4 + [2] * 4
    ld.bfs(A, 0, parents=False)                   # nothing is kept once closed
    assert len(outer) == 8 and np.all([r["op"] == "search" for r in outer])
