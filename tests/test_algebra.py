"""The algebra (vxm, mxv, element-wise ops, apply, reduce) and the Vector/Matrix basics, against
dense numpy computations, in one process."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from helpers import BACKENDS, GPU, edges_to_scipy, pattern

ENCODING_PAIRS = [("list", "list"), ("list", "bitmap"), ("bitmap", "list"), ("bitmap", "bitmap")]
SEMIRINGS = ("any_pair", "lor_land", "any_secondi", "min_secondi")
# (mask given, complement, structure)
MASKS = [(False, False, True), (True, False, True), (True, True, True), (True, False, False),
         (True, True, False)]
MASK_IDS = ["none", "mask", "complement", "values", "complement-values"]


# -- random operands --------------------------------------------------------------------------
def random_graph(rng, n):
    m = int(rng.integers(0, 4 * n + 1))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    return src, dst, edges_to_scipy(src, dst, n)


def random_entries(rng, n, *, density=None, dtype=np.int64):
    """(sorted unique ids, values) of a random sparse vector; bool values are mixed True/False."""
    density = rng.uniform(0, 1) if density is None else density
    ids = np.flatnonzero(rng.random(n) < density).astype(np.int64)
    if dtype == bool:
        values = rng.random(ids.shape[0]) < 0.6
    else:
        values = rng.integers(-50, 50, ids.shape[0]).astype(dtype)
    return ids, values


def make_vector(ids, values, n, backend, encoding="list"):
    v = ld.Vector.from_indices(ids, n, values=values, backend=backend)
    return v.to_bitmap() if encoding == "bitmap" else v.to_list()


def entries_of(v):
    """{id: value} of a Vector, via the public gathers."""
    ids = v.indices()
    dense = v.to_numpy(fill=0)
    return {int(i): dense[i].item() for i in ids}


# -- the dense model of a product ---------------------------------------------------------------
def expected_product(D, u_ids, u_vals, semiring, allowed):
    """w = u' D over ``semiring`` on the ids ``allowed``: {j: value} (any_secondi: {j: set})."""
    C = D[u_ids, :]                                 # C[k, j]: u entry k reaches j
    present = C.any(axis=0) & allowed
    out = {}
    for j in np.flatnonzero(present):
        rows = np.flatnonzero(C[:, j])
        if semiring == "any_pair":
            out[int(j)] = True
        elif semiring == "lor_land":
            out[int(j)] = bool(np.asarray(u_vals, bool)[rows].any())
        elif semiring == "min_secondi":
            out[int(j)] = int(u_ids[rows].min())
        else:
            out[int(j)] = set(u_ids[rows].tolist())
    return out


def allowed_by(mask_ids, mask_vals, n, use_mask, complement, structure):
    if not use_mask:
        return np.ones(n, bool)
    allowed = np.zeros(n, bool)
    allowed[mask_ids] = True if structure else np.asarray(mask_vals, bool)
    return ~allowed if complement else allowed


def assert_product(w, expected, semiring):
    got = entries_of(w)
    assert set(got) == set(expected), f"{semiring}: pattern {sorted(got)} != {sorted(expected)}"
    for j, value in expected.items():
        if semiring == "any_secondi":
            assert got[j] in value, f"any_secondi: w[{j}] = {got[j]} is not one of {sorted(value)}"
        else:
            assert got[j] == value, f"{semiring}: w[{j}] = {got[j]}, expected {value}"
    assert w.nvals == len(expected)
    want = np.dtype(bool) if semiring in ("any_pair", "lor_land") else np.dtype(np.int64)
    assert w.dtype == want


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 70))
def test_products_against_dense(backend, seed, n):
    rng = np.random.default_rng(seed)
    src, dst, S = random_graph(rng, n)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    D = S.toarray().astype(bool)
    u_ids, u_vals = random_entries(rng, n, dtype=bool)
    m_ids, m_vals = random_entries(rng, n, dtype=bool)
    mask = ld.Vector.from_indices(m_ids, n, values=m_vals, backend=backend)
    for name in SEMIRINGS:
        semiring = getattr(ld.semirings, name)
        for (use_mask, complement, structure) in MASKS:
            allowed = allowed_by(m_ids, m_vals, n, use_mask, complement, structure)
            kwargs = dict(mask=mask if use_mask else None, complement=complement, structure=structure)
            want_vxm = expected_product(D, u_ids, u_vals, name, allowed)
            want_mxv = expected_product(D.T, u_ids, u_vals, name, allowed)
            results = {}
            for encoding in ("list", "bitmap"):
                u = make_vector(u_ids, u_vals, n, backend, encoding)
                m = mask.to_bitmap() if encoding == "list" else mask.to_list()   # vary it too
                kwargs["mask"] = m if use_mask else None
                w = ld.vxm(u, A, semiring, **kwargs)
                assert_product(w, want_vxm, name)
                v = ld.mxv(A, u, semiring, **kwargs)
                assert_product(v, want_mxv, name)
                t = ld.vxm(u, A.T, semiring, **kwargs)          # u' A' is A u
                assert_product(t, want_mxv, name)
                results[encoding] = (entries_of(w), entries_of(v))
            if name != "any_secondi":       # deterministic semirings: push and pull agree exactly
                assert results["list"] == results["bitmap"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("encoding", ["list", "bitmap"])
def test_min_secondi_gives_smallest_source(backend, encoding):
    n = 40
    # vertices 30..39 each have in-edges from several frontier vertices
    src = np.array([25, 7, 19, 3, 12, 3, 30, 31], dtype=np.int64)
    dst = np.array([30, 30, 30, 31, 31, 32, 33, 33], dtype=np.int64)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    u = make_vector([3, 7, 12, 19, 25, 31], None, n, backend, encoding)
    w = ld.vxm(u, A, ld.semirings.min_secondi)
    assert entries_of(w) == {30: 7, 31: 3, 32: 3, 33: 31}
    v = ld.mxv(A.T, u, ld.semirings.min_secondi)
    assert entries_of(v) == {30: 7, 31: 3, 32: 3, 33: 31}
    # mxv on A: w[i] = min k with u[k] and A[i, k]
    back = make_vector([30, 31, 33], None, n, backend, encoding)
    assert entries_of(ld.mxv(A, back, ld.semirings.min_secondi)) == {3: 31, 7: 30, 12: 31, 19: 30,
                                                                     25: 30, 30: 33, 31: 33}


@pytest.mark.parametrize("backend", BACKENDS)
def test_semirings_by_name(backend):
    n = 10
    A = ld.Matrix.from_edges([0, 1], [1, 2], n, backend=backend)
    u = ld.Vector.from_indices([0, 1], n, backend=backend)
    for name in SEMIRINGS:
        assert entries_of(ld.vxm(u, A, name)) == entries_of(ld.vxm(u, A, getattr(ld.semirings, name)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_structure_mask_keeps_false_entries(backend):
    """structure=True: a False-valued mask entry still counts; structure=False: it does not."""
    n = 8
    A = ld.Matrix.from_edges([0, 0, 0], [1, 2, 3], n, backend=backend)
    u = ld.Vector.from_indices([0], n, backend=backend)
    mask = ld.Vector.from_indices([1, 2], n, values=np.array([True, False]), backend=backend)
    any_pair = ld.semirings.any_pair
    assert ld.vxm(u, A, any_pair, mask=mask).indices().tolist() == [1, 2]
    assert ld.vxm(u, A, any_pair, mask=mask, structure=False).indices().tolist() == [1]
    assert ld.vxm(u, A, any_pair, mask=mask, complement=True).indices().tolist() == [3]
    assert ld.vxm(u, A, any_pair, mask=mask, complement=True, structure=False).indices().tolist() == [2, 3]
    int_mask = ld.Vector.from_indices([1, 2, 3], n, values=np.array([0, 5, -1]), backend=backend)
    assert ld.vxm(u, A, any_pair, mask=int_mask, structure=False).indices().tolist() == [2, 3]


# -- element-wise, apply, reduce ------------------------------------------------------------------
def _combine(monoid, a, b):
    return {"lor": lambda: bool(a or b), "min": lambda: min(a, b), "plus": lambda: a + b,
            "any": lambda: {a, b}}[monoid]()


def check_union(w, a, b, monoid):
    """w is the union of the entries {id: value} a and b, combined by ``monoid`` where both
    hold an entry ("any" may keep either value)."""
    got = entries_of(w)
    assert set(got) == set(a) | set(b)
    for k, value in got.items():
        if k in a and k in b:
            want = _combine(monoid, a[k], b[k])
            assert value in want if monoid == "any" else value == want, (k, a[k], b[k], value)
        else:
            assert value == a.get(k, b.get(k))
    assert w.nvals == len(got)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("monoid", ["lor", "any", "min", "plus"])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 100))
def test_ewise_add(backend, monoid, seed, n):
    rng = np.random.default_rng(seed)
    dtype = bool if monoid == "lor" else np.int64
    a_ids, a_vals = random_entries(rng, n, dtype=dtype)
    b_ids, b_vals = random_entries(rng, n, dtype=dtype)
    a = dict(zip(a_ids.tolist(), a_vals.tolist()))
    b = dict(zip(b_ids.tolist(), b_vals.tolist()))
    for enc_u, enc_v in ENCODING_PAIRS:
        u = make_vector(a_ids, a_vals, n, backend, enc_u)
        v = make_vector(b_ids, b_vals, n, backend, enc_v)
        check_union(ld.ewise_add(u, v, getattr(ld.monoids, monoid)), a, b, monoid)
        assert entries_of(u) == a and entries_of(v) == b          # operands unchanged
        check_union(ld.ewise_add(u, v, monoid), a, b, monoid)     # the monoid by name


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 100))
def test_ewise_mult_apply_reduce(backend, seed, n):
    rng = np.random.default_rng(seed)
    a_ids, a_vals = random_entries(rng, n)
    b_ids, b_vals = random_entries(rng, n)
    a = dict(zip(a_ids.tolist(), a_vals.tolist()))
    b = dict(zip(b_ids.tolist(), b_vals.tolist()))
    common = set(a) & set(b)
    for enc_u, enc_v in ENCODING_PAIRS:
        u = make_vector(a_ids, a_vals, n, backend, enc_u)
        v = make_vector(b_ids, b_vals, n, backend, enc_v)
        first = ld.ewise_mult(u, v, ld.binary.first)
        second = ld.ewise_mult(u, v, ld.binary.second)
        assert entries_of(first) == {k: a[k] for k in common}, (enc_u, enc_v)
        assert entries_of(second) == {k: b[k] for k in common}, (enc_u, enc_v)
        assert first.nvals == second.nvals == len(common)
    u = make_vector(a_ids, a_vals, n, backend, str(rng.choice(["list", "bitmap"])))
    # apply
    seven = ld.apply(u, ld.binary.second, right=np.int64(7))
    assert entries_of(seven) == {k: 7 for k in a}
    copy = ld.apply(u, ld.binary.first)
    assert entries_of(copy) == a
    assert entries_of(u) == a            # the operand is unchanged
    # reduce
    assert ld.reduce(u, ld.monoids.plus) == sum(a.values())
    assert ld.reduce(u, ld.monoids.min) == (min(a.values()) if a else ld.monoids.min.identity)
    assert ld.reduce(u, ld.monoids.lor) == any(a.values())
    anything = ld.reduce(u, ld.monoids.any)
    assert (anything in a.values()) if a else anything is None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("w_encoding", ["list", "bitmap"])
@pytest.mark.parametrize("u_encoding", ["list", "bitmap"])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 100))
def test_assign(backend, w_encoding, u_encoding, seed, n):
    """ld.assign(w, u[, value=]) writes u's entries (or ``value``) into w in place."""
    rng = np.random.default_rng(seed)
    a_ids, a_vals = random_entries(rng, n)
    b_ids, b_vals = random_entries(rng, n)
    a = dict(zip(a_ids.tolist(), a_vals.tolist()))
    b = dict(zip(b_ids.tolist(), b_vals.tolist()))
    w = make_vector(a_ids, a_vals, n, backend, w_encoding)
    u = make_vector(b_ids, b_vals, n, backend, u_encoding)
    out = ld.assign(w, u)
    assert entries_of(w) == {**a, **b}
    assert w.nvals == len({**a, **b})
    assert entries_of(u) == b
    assert out is None or out is w
    w2 = make_vector(a_ids, a_vals, n, backend, w_encoding)
    ld.assign(w2, u, value=-7)
    assert entries_of(w2) == {**a, **{k: -7 for k in b}}
    assert w2.nvals == len(set(a) | set(b))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("encoding", ["list", "bitmap"])
@pytest.mark.parametrize("op", ["first", "second"])
def test_apply_result_is_independent_of_its_operand(backend, encoding, op):
    """apply returns "a new vector": writing into it (ld.assign) must not change the operand."""
    n = 64
    u = make_vector(np.array([1, 40]), np.array([10, 400]), n, backend, encoding)
    c = ld.apply(u, getattr(ld.binary, op), right=np.int64(7) if op == "second" else None)
    ld.assign(c, ld.Vector.from_indices([5], n, values=np.array([50]), backend=backend))
    assert set(entries_of(c)) == {1, 5, 40}
    assert entries_of(u) == {1: 10, 40: 400}
    assert u.nvals == 2 and u.indices().tolist() == [1, 40]


# -- Vector basics ------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_from_indices_with_duplicates(backend):
    n = 50
    ids = [7, 3, 7, 49, 0, 3, 3]
    vals = np.array([1, 2, 3, 4, 5, 6, 7], dtype=np.int64)
    v = ld.Vector.from_indices(ids, n, values=vals, backend=backend)
    assert v.n == n and v.nvals == 4
    idx = v.indices()
    assert idx.dtype == np.int64 and idx.tolist() == [0, 3, 7, 49]
    dense = v.to_numpy()
    assert dense.shape == (n,) and dense.dtype == np.int64
    assert dense[0] == 5 and dense[49] == 4
    assert dense[3] in (2, 6, 7) and dense[7] in (1, 3)
    assert (np.delete(dense, [0, 3, 7, 49]) == -1).all()
    assert (np.delete(v.to_numpy(fill=-9), [0, 3, 7, 49]) == -9).all()
    assert v.to_bitmap().to_numpy().tolist() == dense.tolist()
    assert v.to_bitmap().nvals == 4 and v.to_bitmap().indices().tolist() == [0, 3, 7, 49]


@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_boolean_and_empty(backend):
    n = 33
    v = ld.Vector.from_indices(np.array([32, 1, 1], dtype=np.int32), n, backend=backend)
    assert v.dtype == np.dtype(bool) and v.nvals == 2
    assert v.indices().tolist() == [1, 32]
    dense = v.to_numpy(fill=-1)
    assert dense[1] == 1 and dense[32] == 1 and (np.delete(dense, [1, 32]) == -1).all()
    flags = v.to_numpy(fill=False)
    assert flags.dtype == bool and flags.sum() == 2 and flags[1] and flags[32]
    e = ld.Vector.from_indices([], n, backend=backend)
    assert e.nvals == 0 and e.indices().tolist() == [] and (e.to_numpy() == -1).all()
    e2 = ld.Vector.empty(n, dtype=np.int64, backend="cpu" if backend == "cpu" else backend)
    assert e2.nvals == 0 and e2.to_numpy(fill=0).tolist() == [0] * n


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 31, 32, 33, 64, 65, 1000])
def test_vector_sizes_around_words(backend, n):
    ids = np.unique(np.array([0, n - 1, n // 2, n // 3]))
    v = ld.Vector.from_indices(ids, n, values=ids * 10, backend=backend)
    for w in (v, v.to_bitmap(), v.to_bitmap().to_list()):
        assert w.indices().tolist() == ids.tolist()
        want = np.full(n, -1, np.int64)
        want[ids] = ids * 10
        np.testing.assert_array_equal(w.to_numpy(), want)


# -- Matrix basics ------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "coo_array", "lil"])
def test_from_scipy_round_trip(backend, fmt):
    rng = np.random.default_rng(5)
    n = 77
    rows, cols = rng.integers(0, n, 300), rng.integers(0, n, 300)
    data = rng.integers(0, 3, 300).astype(float)            # explicit zeros are edges
    coo = sp.coo_matrix((data, (rows, cols)), shape=(n, n))  # duplicates kept in COO
    S = {"coo": coo, "csr": coo.tocsr(), "csc": coo.tocsc(), "coo_array": sp.coo_array(coo),
         "lil": coo.tolil()}[fmt]
    want = set(zip(rows.tolist(), cols.tolist()))
    if fmt == "lil":             # lil drops explicit zeros on conversion
        want = pattern(S)
    A = ld.Matrix.from_scipy(S, backend=backend)
    assert A.n == n and A.shape == (n, n) and A.nvals == len(want)
    T = A.to_scipy()
    assert sp.issparse(T) and T.shape == (n, n)
    assert pattern(T) == want
    again = ld.Matrix.from_scipy(T, backend=backend)
    assert pattern(again.to_scipy()) == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_degree(backend):
    rng = np.random.default_rng(9)
    n = 120
    src, dst = rng.integers(0, n // 2, 500), rng.integers(0, n, 500)
    src = np.concatenate([src, src[:50]])                    # duplicate edges count once
    dst = np.concatenate([dst, dst[:50]])
    S = edges_to_scipy(src, dst, n)
    A = ld.Matrix.from_edges(src, dst, n, backend=backend)
    out = np.diff(S.indptr)
    deg = A.out_degree()
    assert deg.indices().tolist() == np.flatnonzero(out).tolist()
    np.testing.assert_array_equal(deg.to_numpy(fill=0), out)
    indeg = np.diff(sp.csc_matrix(S).indptr)
    np.testing.assert_array_equal(A.T.out_degree().to_numpy(fill=0), indeg)
    B = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend=backend)
    SB = edges_to_scipy(src, dst, n, symmetrize=True)
    np.testing.assert_array_equal(B.out_degree().to_numpy(fill=0), np.diff(SB.indptr))
    assert B.T.out_degree().to_numpy(fill=0).tolist() == np.diff(SB.indptr).tolist()


def test_a_vectors_facts_follow_its_life_cycle():
    """Vector.facts: filled by the product that made the vector, moved on by an assignment of
    new entries only, forgotten by any other change; the counts it gives equal a recount."""
    import scipy.sparse as sp
    S = sp.random(60, 60, density=0.08, format="csr", random_state=4)
    A = ld.Matrix.from_scipy(S, backend="cpu")
    q = ld.Vector.from_indices([0, 1], 60, values=[0, 1], dtype=np.int64, backend="cpu")
    visited = q.to_bitmap()
    w = ld.vxm(q, A, ld.semirings.any_secondi, mask=visited, complement=True)
    reached = set(S[[0, 1]].indices.tolist()) - {0, 1}
    assert w.facts.nvals == len(reached) and w.facts.disjoint_from is visited
    assert w.facts.push_edges(A.out_degree()) == int(np.diff(S.indptr)[sorted(reached)].sum())
    before = visited.nvals
    ld.assign(visited, w)                       # new entries only: the count moves on
    assert visited.facts.nvals == before + len(reached) == int((visited.to_numpy(fill=-1) >= 0).sum())
    ld.assign(visited, q)                       # entries already there: the count is forgotten
    assert visited.facts.nvals is None
    assert visited.nvals == before + len(reached)     # and recounted on demand


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, value", [(np.int64, 37), (bool, True)])
def test_single_entry_vector(backend, dtype, value):
    """Vector.single holds exactly one entry, as a bitmap and (with_list) as a separate list
    vector whose arrays the bitmap does not share."""
    n = 100
    bitmap, listed = ld.Vector.single(37, value, n, dtype=dtype, backend=backend, with_list=True)
    assert bitmap.part.encoding == "bitmap" and listed.part.encoding == "list"
    for vector in (bitmap, listed):
        assert vector.nvals == 1
        dense = vector.to_numpy()
        assert int(dense[37]) == int(value) and (np.delete(dense, 37) == -1).all()
    bitmap.part.values[37] = 0              # in place, as a search grows its visited set
    assert int(listed.to_numpy()[37]) == int(value)
    alone = ld.Vector.single(0, 5, n, dtype=np.int64, backend=backend)
    assert alone.part.encoding == "bitmap" and alone.to_coo()[0].tolist() == [0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("first", [(np.int64, 70), (bool, True), (np.int32, -3)])
@pytest.mark.parametrize("n", [64, 100, 1000])
def test_single_entries_vectors(backend, first, n):
    """Vector.singles makes a search's start at once: each vector holds only the one entry
    with its own value and dtype (bitmaps zeroed elsewhere, on every word), the list is the
    first one's entry in arrays of its own, and an entry past the middle word lands in the
    second bitmap's own words, not the first's."""
    dtype, value = first
    index = n - 1
    (visited, depths), listed = ld.Vector.singles(index, [(value, dtype), (0, np.int64)], n, backend=backend,
                                                  with_list=True)
    assert visited.part.values.dtype == np.dtype(dtype) and depths.part.values.dtype == np.int64
    for vector, expected in ((visited, value), (depths, 0), (listed, value)):
        ids, values = vector.to_coo()
        assert ids.tolist() == [index] and values.tolist() == [expected]
    words = [np.asarray(_on_host(v.part.words)) for v in (visited, depths)]
    for w in words:
        assert int(np.count_nonzero(w)) == 1
    (alone,) = ld.Vector.singles(0, [(9, np.int64)], n, backend=backend)
    assert alone.to_coo()[0].tolist() == [0] and alone.to_coo()[1].tolist() == [9]
    with pytest.raises(ValueError, match="one or two"):
        ld.Vector.singles(0, [(1, bool)] * 3, n, backend=backend)


def _on_host(array):
    """A part's array on the host (a CuPy array is copied back)."""
    return array.get() if hasattr(array, "get") else array


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("encoding", ["list", "bitmap"])
@pytest.mark.parametrize("values, fill", [(np.array([4, -3, 9, 1]), -1), (np.array([2.5, 0, 1, 7]), 0),
                                          (np.array([True, False, True, True]), -1),
                                          (np.array([True, False, True, True]), False)])
def test_vector_to_array_is_to_numpy_where_the_vector_lives(backend, encoding, values, fill):
    """to_array gives the array to_numpy gives (values, fill, dtype), in the backend's memory,
    from either encoding, with a size that is not a multiple of the words' 32 ids."""
    v = ld.Vector.from_indices([70, 3, 0, 33], 71, values=values, backend=backend)
    v = v.to_bitmap() if encoding == "bitmap" else v.to_list()
    got = v.to_array(fill)
    assert type(got).__module__.split(".")[0] == ("cupy" if v.backend.name == "gpu" else "numpy")
    host = v.backend.to_host(got)
    expected = np.full(71, fill, dtype=host.dtype)
    expected[[70, 3, 0, 33]] = values
    assert host.dtype == v.to_numpy(fill).dtype
    np.testing.assert_array_equal(host, expected)
    np.testing.assert_array_equal(host, v.to_numpy(fill))


@pytest.mark.parametrize("backend", BACKENDS)
def test_host_csr_is_made_a_slice_at_a_time(monkeypatch, backend):
    """The pattern on the host in any index type, its entries copied slice by slice where the
    block lives (on the GPU, device reads into the host arrays): the rows scipy gathers."""
    from lagraph_dist.algebra import matrix
    monkeypatch.setattr(matrix, "EDGES_PER_HOST_SLICE", 7)
    A = ld.kronecker(8, backend=backend)
    S = A.to_scipy()
    for index_dtype in (np.int32, np.int64, np.uint64):
        indptr, indices = A.host_csr(index_dtype)
        assert indices.dtype == index_dtype and indptr.dtype in (index_dtype, np.int64)
        np.testing.assert_array_equal(indptr, S.indptr)
        np.testing.assert_array_equal(indices, S.indices)


@pytest.mark.parametrize("backend", [GPU])
@pytest.mark.parametrize("size, dtype", [(1, np.int8), (3 * 1024 + 5, np.uint64), (200_003, np.int32)])
def test_a_staged_read_gives_the_device_bytes(backend, size, dtype):
    """A big read into a host array goes through two page-locked stages the host's threads copy
    out of: every byte lands where cupy's own copy puts it, whether the array fills the stages
    exactly, over several rounds or in a partial last one."""
    kernels = ld.get_backend(backend).kernels
    cp = kernels.cp
    array = cp.asarray(np.random.default_rng(size).integers(-100, 100, size).astype(dtype))
    for stage_bytes in (4096, 1 << 16, array.nbytes, array.nbytes + 1):
        out = np.full(size, 7, dtype=dtype)
        assert kernels._read_staged(array, out, stage_bytes=stage_bytes) is out
        np.testing.assert_array_equal(out, cp.asnumpy(array))
    with pytest.raises(ValueError, match="bytes"):
        kernels._read_staged(array, np.empty(size + 1, dtype))
    if size > 1:  # numpy calls every one-element view contiguous, strided or not
        with pytest.raises(ValueError, match="C-contiguous"):
            kernels._read_staged(array, np.empty(2 * size, dtype)[::2])
