"""ops.repeat_masked_vxm started at a source vertex (``source=``, q None): the engine makes the
search's start itself (on one rank inside the fused run's kernel, elsewhere with the start's
launch before the first product), over visited and depths that may hold anything before.
Checked against python-graphblas's levels and ld.validate, on every backend, fused and as
separate products; and the start's own corner cases."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.algebra.ops import RepeatLimits, repeat_masked_vxm, separate_levels
from lagraph_dist.algebra.vector import Vector
from lagraph_dist.core.direction import DirectionRule
from lagraph_dist.core.errors import InvalidValue
from lagraph_dist.semirings import any_pair, any_secondi
from helpers import BACKENDS, edges_to_scipy, reference_levels

FUSED = [True, False]       # the fused run's start, or the separate products' (separate_levels)


def _outputs(A, *, parents, garbage):
    """visited and depths as a search's bitmaps; with ``garbage``, every word and value set
    first, which the start must clear."""
    visited = Vector._unset(A.n, np.int64 if parents else bool, grid=A.grid, backend=A.backend)
    depths = Vector._unset(A.n, np.int64, grid=A.grid, backend=A.backend)
    if garbage:
        for vector in (visited, depths):
            vector.part.words[...] = np.uint32(0xFFFFFFFF)
            vector.part.values[...] = 7
    return visited, depths


def _search(A, source, *, parents=True, fused=True, garbage=True, direction="auto", max_levels=None, target=None):
    visited, depths = _outputs(A, parents=parents, garbage=garbage)
    rule = DirectionRule(direction, A.n, A.nvals)
    limits = RepeatLimits(max_levels=A.n if max_levels is None else max_levels, target=target)
    if direction != "push":
        A.T.prepare_pull()
    semiring = any_secondi if parents else any_pair
    if fused:
        q, records = repeat_masked_vxm(None, A, semiring, visited, depths=depths, limits=limits, rule=rule,
                                       source=source)
    else:
        with separate_levels():
            q, records = repeat_masked_vxm(None, A, semiring, visited, depths=depths, limits=limits, rule=rule,
                                           source=source)
    return visited, depths, q, records


def _dense(vector, fill=-1):
    ids, values = vector.to_coo()
    out = np.full(vector.n, fill, dtype=np.int64)
    out[ids] = values
    return out


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 70))
    vertex = st.integers(0, n - 1)
    pairs = draw(st.lists(st.tuples(vertex, vertex), max_size=3 * n))
    src = [a for a, _ in pairs]
    dst = [b for _, b in pairs]
    return src, dst, n, draw(st.booleans()), draw(vertex)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fused", FUSED)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs(), parents=st.booleans(), direction=st.sampled_from(["push", "pull", "auto"]))
def test_started_search_matches_reference(backend, fused, graph, parents, direction):
    src, dst, n, symmetrize, source = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend=backend)
    visited, depths, q, records = _search(A, source, parents=parents, fused=fused, direction=direction)
    expected = reference_levels(S, source)
    levels = _dense(depths)
    np.testing.assert_array_equal(levels, expected)
    assert visited.nvals == int((expected >= 0).sum()) == depths.nvals
    np.testing.assert_array_equal(visited.to_coo()[0], np.flatnonzero(expected >= 0))
    if parents:
        got = _dense(visited)
        assert got[source] == source
        ld.validate(A, source, levels, got)
    else:
        assert visited.to_coo()[1].all()
    # one record a level that found something, and the last (empty) one
    assert len(records) == int(expected.max()) + 1
    assert q.nvals == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fused", FUSED)
def test_start_alone_when_no_level_runs(backend, fused):
    A = ld.Matrix.from_edges([0, 1, 2], [1, 2, 3], 40, backend=backend)
    for limits in ({"max_levels": 0}, {"target": 1}):
        visited, depths, q, records = _search(A, 1, fused=fused, direction="push", **limits)
        assert len(records) == 0
        np.testing.assert_array_equal(visited.to_coo()[0], [1])
        np.testing.assert_array_equal(_dense(visited)[1], 1)
        np.testing.assert_array_equal(depths.to_coo()[0], [1])
        np.testing.assert_array_equal(depths.to_coo()[1], [0])
        np.testing.assert_array_equal(q.to_coo()[0], [1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_at_an_isolated_vertex_and_a_limit(backend):
    A = ld.Matrix.from_edges([0, 1, 2, 3], [1, 2, 3, 4], 70, backend=backend)
    visited, depths, q, records = _search(A, 69)
    assert len(records) == 1 and visited.nvals == 1 and q.nvals == 0
    visited, depths, q, records = _search(A, 0, max_levels=2, direction="push")
    np.testing.assert_array_equal(_dense(depths)[:5], [0, 1, 2, -1, -1])
    np.testing.assert_array_equal(q.to_coo()[0], [2])     # the last level's result


@pytest.mark.parametrize("backend", BACKENDS)
def test_start_needs_one_of_q_and_source(backend):
    A = ld.Matrix.from_edges([0], [1], 4, backend=backend)
    visited, depths = _outputs(A, parents=True, garbage=False)
    limits = RepeatLimits(max_levels=4)
    q = Vector.single(0, True, 4, dtype=bool, backend=backend)
    with pytest.raises(InvalidValue, match="one of the two"):
        repeat_masked_vxm(q, A, any_secondi, visited, depths=depths, limits=limits, source=0)
    with pytest.raises(InvalidValue, match="one of the two"):
        repeat_masked_vxm(None, A, any_secondi, visited, depths=depths, limits=limits)
