"""python-graphblas's grammar on lagraph_dist, checked against python-graphblas itself: the
output rule (mask, accumulator, replace) on random updates, laziness, the Vector methods, the
namespaces, and a clear error for every form that is wrong or not supported."""
import re

import graphblas as gb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from helpers import BACKENDS
from programs import ACCUMS, MASKS, RIGHT_SIDES, comparable, library, run_update


# -- random updates, against python-graphblas ---------------------------------------------------
@st.composite
def cases(draw):
    n = draw(st.integers(1, 80))

    def entries():
        ids = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)))
        values = draw(st.lists(st.integers(-3, 3), min_size=len(ids), max_size=len(ids)))
        return np.array(ids, dtype=np.int64), np.array(values, dtype=np.int64)

    mask = draw(st.sampled_from(MASKS))
    rhs = draw(st.sampled_from(RIGHT_SIDES))
    ops = ("first", "second") if rhs in ("ewise_mult", "apply") else ACCUMS[1:]
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    return {
        "n": n, "w": entries(), "u": entries(), "m": entries(), "edges": edges,
        "mask": mask, "mask_of": draw(st.sampled_from(("m", "w", "u"))),
        "accum": draw(st.sampled_from(ACCUMS)), "rhs": rhs,
        "replace": mask is not None and draw(st.booleans()),
        "op": draw(st.sampled_from(ops)), "scalar": draw(st.integers(-5, 5)),
    }


def matrices(case, backend):
    n = case["n"]
    src = np.array([e[0] for e in case["edges"]], dtype=np.int64)
    dst = np.array([e[1] for e in case["edges"]], dtype=np.int64)
    G = gb.Matrix.from_coo(src, dst, True, nrows=n, ncols=n) if src.size else gb.Matrix(bool, n, n)
    return G, ld.Matrix.from_edges(src, dst, n, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=200, deadline=None)
@given(case=cases(), bitmaps=st.sets(st.sampled_from(("w", "u", "m"))))
def test_update_matches_graphblas(backend, case, bitmaps):
    """w(mask, accum, replace) << rhs gives python-graphblas's result for every rhs, mask
    kind, accumulator and replace, whatever the encodings of the vectors."""
    G, A = matrices(case, backend)
    expected_ids, expected_values = run_update(gb, G, case)
    ids, values = run_update(library(ld, backend=backend), A, case,
                             prepare=lambda v, name: v.to_bitmap() if name in bitmaps else v)
    np.testing.assert_array_equal(ids, expected_ids)
    if comparable(case):
        np.testing.assert_array_equal(values, expected_values)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool_output_with_lor_accumulator(backend):
    for lib, A in ((gb, gb.Matrix.from_coo([0, 1], [1, 2], True, nrows=4, ncols=4)),
                   (library(ld, backend=backend), ld.Matrix.from_edges([0, 1], [1, 2], 4, backend=backend))):
        w = lib.Vector.from_coo([0, 3], [False, True], dtype=bool, size=4)
        u = lib.Vector.from_coo([0, 1], [True, True], dtype=bool, size=4)
        w(lib.binary.lor) << u.vxm(A, lib.semiring.lor_land)
        ids, values = w.to_coo()
        assert ids.tolist() == [0, 1, 2, 3] and values.tolist() == [False, True, True, True]


# -- the output rule spelled out on tiny literal vectors ------------------------------------------
def vec(pairs, n=6, dtype=np.int64, backend="cpu"):
    ids = np.array(sorted(pairs), dtype=np.int64)
    values = np.array([pairs[i] for i in sorted(pairs)], dtype=dtype)
    return ld.Vector.from_coo(ids, values, dtype=dtype, size=n, backend=backend)


def entries(v):
    ids, values = v.to_coo()
    return dict(zip(ids.tolist(), values.tolist()))


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_rule_by_hand(backend):
    old = {0: 10, 1: 11, 2: 12}
    u = vec({1: 5, 3: 6}, backend=backend)
    m = vec({1: 1, 2: 0, 4: 1}, backend=backend)
    w = vec(old, backend=backend)
    w(m.S) << u                       # inside the mask: 1 takes 5, 2 is deleted, 4 stays empty
    assert entries(w) == {0: 10, 1: 5}
    w = vec(old, backend=backend)
    w(m.V) << u                       # m[2] is 0: 2 lies outside the value mask and stays
    assert entries(w) == {0: 10, 1: 5, 2: 12}
    w = vec(old, backend=backend)
    w(m.S, replace=True) << u         # outside the mask cleared
    assert entries(w) == {1: 5}
    w = vec(old, backend=backend)
    w(~m.S) << u                      # inside the complement: 0 deleted, 3 set
    assert entries(w) == {1: 11, 2: 12, 3: 6}
    w = vec(old, backend=backend)
    w(ld.binary.plus) << u            # union, summed where both
    assert entries(w) == {0: 10, 1: 16, 2: 12, 3: 6}
    w = vec(old, backend=backend)
    w(m.S, ld.monoid.min, replace=True) << u
    assert entries(w) == {1: 5, 2: 12}
    w = vec(old, backend=backend)
    w(m.S) << 7                       # a scalar fills the mask
    assert entries(w) == {0: 10, 1: 7, 2: 7, 4: 7}
    w = vec(old, backend=backend)
    w << u                            # no mask: w becomes u
    assert entries(w) == {1: 5, 3: 6}
    w << 1                            # a scalar with no mask fills every position
    assert entries(w) == {k: 1 for k in range(6)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_masked_assignment_runs_in_place(backend):
    """levels(q.S) << depth and parents(q.S) << q are GrB_assign (elementwise.assign), the stage
    ld.bfs runs: a bitmap output takes them in place."""
    parents = vec({0: 0}, backend=backend).to_bitmap()
    part = parents.part
    q = vec({2: 0, 3: 0}, backend=backend)
    parents(q.S) << q
    parents(q.S) << 9
    assert parents.part is part and parents.encoding == "bitmap"
    assert entries(parents) == {0: 0, 2: 9, 3: 9}


@pytest.mark.parametrize("backend", BACKENDS)
def test_grammar_and_functional_calls_agree(backend):
    rng = np.random.default_rng(3)
    n = 70
    src, dst = rng.integers(0, n, 200), rng.integers(0, n, 200)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    u = ld.Vector.from_indices(np.arange(0, n, 5), n, values=np.arange(0, n, 5), backend=backend)
    m = ld.Vector.from_indices(np.arange(0, n, 3), n, backend=backend)
    for name in ("any_pair", "lor_land", "min_secondi"):
        semiring = getattr(ld.semiring, name)
        for complement, structure in ((False, True), (True, True), (True, False)):
            mask = m.S if structure else m.V
            mask = ~mask if complement else mask
            grammar = u.vxm(A, semiring).new(mask=mask)
            functional = ld.vxm(u, A, semiring, mask=m, complement=complement, structure=structure)
            assert grammar.isequal(functional, check_dtype=True), (name, complement, structure)
            pulled = A.T.mxv(u.to_bitmap(), semiring).new(mask=mask)
            assert pulled.isequal(functional), (name, complement, structure)


def test_expressions_are_lazy():
    """As in python-graphblas, an expression reads its operands when it is written."""
    results = []
    for lib in (gb, ld):
        u = lib.Vector.from_coo([1], [4], size=5)
        v = lib.Vector.from_coo([2], [6], size=5)
        expr = u.ewise_add(v, lib.monoid.plus)
        u[2] = 1
        results.append(expr.new().to_coo()[1].tolist())
    assert results[0] == results[1] == [4, 7]


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_dtypes(backend):
    A = ld.Matrix.from_edges([0], [1], 4, backend=backend)
    q = ld.Vector(bool, 4, backend=backend)
    q[0] = True
    assert q.vxm(A, ld.semiring.ss.any_secondi).new().dtype == np.int64     # positional: int64
    assert q.vxm(A, ld.semiring.any_pair).new().dtype == np.bool_
    assert q.apply(ld.binary.second, right=3).new().dtype == np.int64
    assert q.apply(ld.binary.second, right=2.5).new().dtype == np.float64
    assert q.vxm(A, ld.semiring.any_pair).new(float).dtype == np.float64


# -- Vector methods -----------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_methods(backend):
    v = ld.Vector(np.int64, 100, backend=backend)
    assert v.size == 100 and v.nvals == 0 and v.dtype == np.int64
    assert v.reduce(ld.monoid.plus).value is None and not v.reduce(ld.monoid.lor)
    v[70] = 3
    v[5] = -1
    v[70] = 4                                          # overwrites
    ids, values = v.to_coo()
    assert ids.dtype == np.int64 and ids.tolist() == [5, 70] and values.tolist() == [-1, 4]
    b = v.to_bitmap()
    b[6] = 2
    assert entries(b) == {5: -1, 6: 2, 70: 4}
    assert v.reduce().value == 3 and v.reduce(ld.monoid.min).new().value == -1
    assert int(v.reduce(ld.monoid.plus)) == 3 and v.reduce(ld.monoid.plus) == 3
    copy = v.dup()
    copy[0] = 1
    assert entries(v) == {5: -1, 70: 4} and v.isequal(v.dup()) and not v.isequal(copy)
    assert v.dup(float).dtype == np.float64 and v.isequal(v.dup(float))
    assert not v.isequal(v.dup(float), check_dtype=True)
    assert not v.isequal(ld.Vector(np.int64, 99, backend=backend))
    back = ld.Vector.from_graphblas(v.to_graphblas(), backend=backend)
    assert back.isequal(v, check_dtype=True)
    assert v.to_graphblas().isequal(gb.Vector.from_coo([5, 70], [-1, 4], size=100))
    assert ld.Vector.from_coo([3, 9], [1, 2]).size == 10


def test_namespaces_follow_graphblas():
    """Every operator name we offer exists in python-graphblas under the same name."""
    assert ld.semiring is ld.semirings and ld.monoid is ld.monoids
    for namespace, theirs in ((ld.semiring, gb.semiring), (ld.monoid, gb.monoid), (ld.binary, gb.binary)):
        suitesparse_only = set(dir(namespace.ss)) if "ss" in dir(namespace) else set()
        for name in suitesparse_only:      # graphblas keeps these under .ss (elsewhere deprecated)
            assert hasattr(theirs.ss, name) and getattr(namespace, name) is getattr(namespace.ss, name)
        for name in set(dir(namespace)) - suitesparse_only - {"ss"}:
            assert hasattr(theirs, name), name
    assert ld.binary.ss.secondi is ld.binary.secondi
    assert ld.semiring.ss.any_secondi.multiply.out_dtype == np.int64
    with pytest.raises(AttributeError, match="any_secondi"):
        ld.semiring.ss.plus_times


# -- errors -----------------------------------------------------------------------------------
def raises(exc_type, *fragments):
    return pytest.raises(exc_type, match=".*".join(re.escape(f) for f in fragments))


@pytest.fixture
def operands():
    A = ld.Matrix.from_edges([0, 1], [1, 2], 5, backend="cpu")
    w = ld.Vector.from_coo([0, 1], [1, 2], size=5, backend="cpu")
    u = ld.Vector.from_coo([1, 2], [3, 4], size=5, backend="cpu")
    return A, w, u


def test_wrong_grammar_raises_like_graphblas(operands):
    A, w, u = operands
    with raises(TypeError, "replace", "mask"):
        w(replace=True) << u
    with raises(TypeError, "v.S", "v.V"):
        w(u) << u                           # an int vector is no mask
    with raises(TypeError, "two masks"):
        w(u.S, u.V)
    with raises(TypeError, "two accumulators"):
        w(ld.binary.plus, ld.binary.min)
    with raises(TypeError, "truth value"):
        bool(u.S)
    with raises(TypeError, "truth value"):
        bool(~u.V)
    with raises(TypeError, "truth value"):
        bool(u.vxm(A, ld.semiring.any_pair))
    with raises(TypeError, "compared"):
        u.S == u.S
    with raises(TypeError, "semiring"):
        u.vxm(A, ld.monoid.min)
    with raises(TypeError, "monoid"):
        u.ewise_add(w, ld.semiring.any_pair)
    with raises(TypeError, "right=", "left="):
        u.apply(ld.binary.first)
    with raises(TypeError, "right=", "left="):
        u.apply(ld.binary.first, right=1, left=2)
    with raises(TypeError, "number"):
        u.apply(ld.binary.second, right="x")
    with raises(TypeError, "right of <<"):
        w << "three"
    with raises(TypeError, "monoid"):
        u.reduce(ld.semiring.any_pair)
    with raises(TypeError, "Matrix"):
        u.vxm(u, ld.semiring.any_pair)
    with raises(TypeError, "Vector"):
        u.ewise_add(A, ld.monoid.plus)
    assert w.nvals == 2 and entries(w) == {0: 1, 1: 2}    # nothing was written


def test_unsupported_forms_name_what_is_supported(operands):
    A, w, u = operands
    with raises(ld.Unsupported, "binary.land", "binary.first"):
        w(ld.binary.land) << u
    with raises(ld.Unsupported, "binary.pair"):
        w(accum=ld.binary.pair)
    with raises(ld.Unsupported, "binary.lor", "int64"):
        w(ld.binary.lor) << u                # lor combines booleans only
    with raises(ld.Unsupported, "ewise_mult", "positional binary.secondi", "first, land"):
        u.ewise_mult(w, ld.binary.secondi)
    with raises(ld.Unsupported, "apply", "positional binary.secondi"):
        u.apply(ld.binary.secondi, right=1)
    with raises(ld.Unsupported, "ewise_add", "binary.secondi"):
        u.ewise_add(w, ld.binary.secondi)
    with raises(ld.Unsupported, "u.vxm(A, semiring)"):
        u @ A
    with raises(ld.Unsupported, "A.mxv(u, semiring)"):
        A @ u
    with raises(ld.Unsupported, "v[1]", "to_coo"):
        u[1]
    with raises(ld.Unsupported, "del", "replace=True"):
        del u[1]
    with raises(ld.Unsupported, "mask"):
        w(u.S)[[1, 2]] << 3
    assert issubclass(ld.Unsupported, ld.LagraphDistError)


def test_bad_operands(operands):
    A, w, u = operands
    small = ld.Vector(np.int64, 4, backend="cpu")
    with raises(ld.DimensionMismatch, "5", "4"):
        u.vxm(ld.Matrix.from_edges([0], [1], 4, backend="cpu"), ld.semiring.any_pair)
    with raises(ld.DimensionMismatch, "sizes"):
        u.ewise_add(small, ld.monoid.plus)
    with raises(ld.DimensionMismatch, "mask"):
        w(small.S)
    with raises(ld.DimensionMismatch, "sizes"):
        small << u
    other_grid = ld.Grid()
    elsewhere = ld.Vector(np.int64, 5, grid=other_grid, backend="cpu")
    with raises(ld.DimensionMismatch, "grids"):
        w << elsewhere
    with raises(IndexError, "index", "5"):
        w[5] = 1
    with raises(IndexError, "-1"):
        w[-1] = 1
    with raises(TypeError, "index"):
        w[1.5] = 1
    with raises(TypeError, "number"):
        w[1] = "one"
    with raises(TypeError, "number"):
        w[1] = None
    empty = ld.Vector(np.int64, 5, backend="cpu").reduce(ld.monoid.min)
    with raises(ValueError, "empty"):
        w << empty
    with raises(TypeError, "Vector"):
        w.isequal([1, 2])
    assert entries(w) == {0: 1, 1: 2}
