"""List and bitmap encodings of vector parts, the encoding rule, and the numpy kernels
(lagraph_dist.local.cpu_kernels) against brute force."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from helpers import BACKENDS
from lagraph_dist.local import cpu_kernels as K
from lagraph_dist.local.backend import get_backend
from lagraph_dist.comm.grid import IdMap, Layout
from lagraph_dist.local.parts import LocalCSR, LocalPart
from lagraph_dist.local.wire import prefers_bitmap
from lagraph_dist.semirings import any_pair, any_secondi, lor_land, min_secondi

LENGTHS = st.sampled_from([32, 64, 96, 128, 320])


@st.composite
def id_sets(draw, length=None):
    length = draw(LENGTHS) if length is None else length
    ids = draw(st.sets(st.integers(0, length - 1), max_size=length))
    return np.array(sorted(ids), dtype=np.int32), length


def brute_words(ids, length):
    words = np.zeros(length // 32, dtype=np.uint32)
    for i in np.asarray(ids).tolist():
        words[i // 32] |= np.uint32(1 << (i % 32))
    return words


def brute_ids(words):
    return [32 * w + b for w in range(len(words)) for b in range(32) if (int(words[w]) >> b) & 1]


# -- LocalPart round trips ------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=60, deadline=None)
@given(data=id_sets(), dtype=st.sampled_from([np.int64, np.int32, np.bool_, np.float64]))
def test_local_part_round_trip(backend, data, dtype):
    ids, length = data
    be = get_backend(backend)
    xp = be.xp
    values = (np.arange(ids.shape[0]) % 7).astype(dtype)
    part = LocalPart.from_list(xp.asarray(ids), xp.asarray(values), length)
    assert part.encoding == "list" and part.nvals == ids.shape[0] and part.length == length
    bitmap = part.to_bitmap(be)
    assert bitmap.encoding == "bitmap" and bitmap.nvals == part.nvals and bitmap.length == length
    words = be.to_host(bitmap.words)
    assert words.dtype == np.uint32 and words.shape == (length // 32,)
    np.testing.assert_array_equal(words, brute_words(ids, length))
    dense = be.to_host(bitmap.values)
    assert dense.shape == (length,) and dense.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(dense[ids], values)
    back = bitmap.to_list(be)
    assert back.encoding == "list" and back.nvals == part.nvals
    np.testing.assert_array_equal(be.to_host(back.ids), ids)
    np.testing.assert_array_equal(be.to_host(back.values), values)
    assert bitmap.to_bitmap(be) is bitmap and part.to_list(be) is part
    assert part.to_encoding("bitmap", be).encoding == "bitmap"
    assert bitmap.to_encoding("list", be).encoding == "list"


@pytest.mark.parametrize("backend", BACKENDS)
def test_vector_encodings_round_trip(backend):
    n = 200
    ids = np.array([0, 5, 31, 32, 63, 64, 150, 199])
    v = ld.Vector.from_indices(ids, n, values=ids + 1, backend=backend)
    b = v.to_bitmap()
    assert b.encoding == "bitmap" and v.encoding == "list"
    assert b.to_list().encoding == "list"
    for w in (v, b, b.to_list(), b.to_list().to_bitmap()):
        assert w.nvals == ids.shape[0]
        assert w.indices().tolist() == ids.tolist()
        assert w.to_numpy()[ids].tolist() == (ids + 1).tolist()


@settings(max_examples=100, deadline=None)
@given(data=id_sets())
def test_encoding_rule_picks_the_smaller_message(data):
    """The rule's choice is the encoding whose real arrays are smaller (a tie stays a list)."""
    ids, length = data
    cpu = get_backend("cpu")
    part = LocalPart.from_list(ids, np.ones(ids.shape[0], bool), length)
    list_bytes = part.to_list(cpu).ids.nbytes
    bitmap_bytes = part.to_bitmap(cpu).words.nbytes
    assert prefers_bitmap(ids.shape[0], length) == (bitmap_bytes < list_bytes)


# -- kernels: encodings ---------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(data=id_sets())
def test_bitmap_from_list_and_back(data):
    ids, length = data
    words = K.bitmap_from_list(ids, length)
    assert words.dtype == np.uint32 and words.shape == (length // 32,)
    np.testing.assert_array_equal(words, brute_words(ids, length))
    back = K.list_from_bitmap(words, ids.shape[0])
    assert back.dtype == np.int32
    assert back.tolist() == ids.tolist() == brute_ids(words)
    assert K.popcount(words) == ids.shape[0]
    probe = np.arange(length, dtype=np.int32)
    np.testing.assert_array_equal(K.bitmap_test(words, probe), np.isin(probe, ids))


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=12))
def test_list_from_arbitrary_words(words):
    w = np.array(words, dtype=np.uint32)
    ids = K.list_from_bitmap(w)
    assert ids.tolist() == brute_ids(w)
    assert K.popcount(w) == len(ids) == sum(bin(x).count("1") for x in words)
    np.testing.assert_array_equal(K.bitmap_from_list(ids, 32 * len(words)), w)


def test_popcount_extremes():
    assert K.popcount(np.zeros(3, np.uint32)) == 0
    assert K.popcount(np.full(5, 0xFFFFFFFF, np.uint32)) == 160
    assert K.popcount(np.array([1, 2**31], np.uint32)) == 2


# -- kernels: products ----------------------------------------------------------------------------
def csr_of(adjacency):
    """LocalCSR of a dense boolean (nmajor x nminor) array."""
    nmajor, nminor = adjacency.shape
    indptr = np.zeros(nmajor + 1, np.int64)
    indptr[1:] = np.cumsum(adjacency.sum(axis=1))
    indices = np.nonzero(adjacency)[1].astype(np.int32)
    return LocalCSR(indptr, indices, nminor)


@st.composite
def product_cases(draw):
    """A random block (input space x output space), frontier, values, mask and id map."""
    n_in = draw(st.sampled_from([32, 64, 96]))
    n_out = draw(st.sampled_from([32, 64, 96]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    block = rng.random((n_in, n_out)) < draw(st.sampled_from([0.0, 0.02, 0.1, 0.4]))
    frontier = np.flatnonzero(rng.random(n_in) < draw(st.floats(0, 1))).astype(np.int32)
    values = rng.random(frontier.shape[0]) < 0.5
    mask = None
    if draw(st.booleans()):
        mask = np.flatnonzero(rng.random(n_out) < 0.5).astype(np.int32)
    complement = draw(st.booleans())
    block_len = 32
    in_map = IdMap(block_len, draw(st.sampled_from([block_len, 3 * block_len])),
                   draw(st.sampled_from([0, 32, 640])))
    semiring = draw(st.sampled_from([any_pair, lor_land, any_secondi, min_secondi]))
    return block, frontier, values, mask, complement, in_map, semiring


def brute_product(block, frontier, values, mask, complement, in_map, semiring):
    n_out = block.shape[1]
    allowed = np.ones(n_out, bool)
    if mask is not None:
        allowed[:] = False
        allowed[mask] = True
        if complement:
            allowed = ~allowed
    out = {}
    for j in range(n_out):
        sources = [k for k in range(frontier.shape[0]) if block[frontier[k], j]]
        if not sources or not allowed[j]:
            continue
        glob = [int(in_map.to_global(np.array([frontier[k]]))[0]) for k in sources]
        if semiring is any_pair:
            out[j] = {True}
        elif semiring is lor_land:
            out[j] = {bool(any(values[k] for k in sources))}
        elif semiring is min_secondi:
            out[j] = {min(glob)}
        else:
            out[j] = set(glob)
    return out


_CPU = get_backend("cpu")


def kernel_output(result):
    """(sorted int32 ids, values, edges examined) of a product kernel's result, which is
    (output part, counters)."""
    part, counters = result
    assert isinstance(part, LocalPart)
    part.set_found(int(counters[K.FOUND]))
    listed = part.sorted_list(_CPU)
    assert listed.nvals == listed.ids.shape[0] == int(counters[K.FOUND])
    # the bitmap and the list forms hold the same entries
    np.testing.assert_array_equal(K.list_from_bitmap(part.to_bitmap(_CPU).words), listed.ids)
    return listed.ids, listed.values, int(counters[K.EXAMINED])


def check_product_output(ids, vals, want, semiring):
    assert ids.dtype == np.int32
    assert ids.tolist() == sorted(want), "output ids must be the sorted allowed reached rows"
    assert vals.shape == ids.shape
    assert vals.dtype == semiring.out_dtype
    for j, v in zip(ids.tolist(), vals.tolist()):
        assert v in want[j], f"{semiring}: row {j} got {v}, allowed {sorted(want[j])}"


@settings(max_examples=150, deadline=None)
@given(case=product_cases())
def test_push_spmspv_brute_force(case):
    block, frontier, values, mask, complement, in_map, semiring = case
    csr = csr_of(block)
    mask_words = None if mask is None else K.bitmap_from_list(mask, block.shape[1])
    left = values if semiring.reads_left_values else None
    ids, vals, examined = kernel_output(
        K.push_spmspv(csr, frontier, left, semiring, mask_words, complement, in_map))
    check_product_output(ids, vals, brute_product(*case), semiring)
    assert examined == int(block[frontier].sum())


@settings(max_examples=150, deadline=None)
@given(case=product_cases())
def test_pull_spmv_brute_force(case):
    block, frontier, values, mask, complement, in_map, semiring = case
    n_in = block.shape[0]
    by_out = csr_of(block.T)                      # indexed by output row
    words = K.bitmap_from_list(frontier, n_in)
    dense_values = np.zeros(n_in, bool)
    dense_values[frontier] = values
    mask_words = None if mask is None else K.bitmap_from_list(mask, block.shape[1])
    left = dense_values if semiring.reads_left_values else None
    ids, vals, examined = kernel_output(
        K.pull_spmv(by_out, words, left, semiring, mask_words, complement, in_map))
    want = brute_product(*case)
    check_product_output(ids, vals, want, semiring)
    # edges examined: every candidate row's inputs, or up to its first hit when that is final
    allowed = np.ones(block.shape[1], bool)
    if mask is not None:
        allowed[:] = False
        allowed[mask] = True
        allowed = ~allowed if complement else allowed
    in_frontier = np.zeros(n_in, bool)
    in_frontier[frontier] = True
    total = 0
    for j in np.flatnonzero(allowed):
        column = np.flatnonzero(block[:, j])
        if semiring.first_hit_is_final:
            hits = np.flatnonzero(in_frontier[column])
            total += hits[0] + 1 if hits.size else column.size
        else:
            total += column.size
    assert examined == total
    # any_secondi in pull takes the first hit in increasing id: the smallest source
    if semiring is any_secondi:
        for j, v in zip(ids.tolist(), vals.tolist()):
            assert v == min(want[j])


@settings(max_examples=60, deadline=None)
@given(case=product_cases())
def test_push_and_pull_agree(case):
    block, frontier, values, mask, complement, in_map, semiring = case
    mask_words = None if mask is None else K.bitmap_from_list(mask, block.shape[1])
    dense_values = np.zeros(block.shape[0], bool)
    dense_values[frontier] = values
    reads = semiring.reads_left_values
    p_ids, p_vals, _ = kernel_output(K.push_spmspv(
        csr_of(block), frontier, values if reads else None, semiring, mask_words, complement, in_map))
    q_ids, q_vals, _ = kernel_output(K.pull_spmv(
        csr_of(block.T), K.bitmap_from_list(frontier, block.shape[0]),
        dense_values if reads else None, semiring, mask_words, complement, in_map))
    assert p_ids.tolist() == q_ids.tolist()
    if semiring is not any_secondi:
        assert p_vals.tolist() == q_vals.tolist()


def test_id_maps_of_a_layout():
    """The column space is contiguous, the row space takes every R-th block; both increase."""
    layout = Layout(1000, 3, 2)
    assert layout.block_len % 32 == 0 and layout.block_len * 6 >= 1000
    for col in range(2):
        m = layout.col_space(col)
        local = np.arange(layout.col_space_len)
        glob = m.to_global(local)
        assert (np.diff(glob) > 0).all()
        np.testing.assert_array_equal(m.to_local(glob), local)
    for row in range(3):
        m = layout.row_space(row)
        local = np.arange(layout.row_space_len)
        glob = m.to_global(local)
        assert (np.diff(glob) > 0).all()
        np.testing.assert_array_equal(m.to_local(glob), local)
        assert set(layout.owner_rank(glob[glob < 1000]) // layout.cols) == {row}


def test_conversion_is_the_same_vector_or_an_independent_one():
    import lagraph_dist as ld
    v = ld.Vector.from_indices([1, 40], 64, values=np.array([10, 400]), backend="cpu")
    assert v.to_list() is v
    b = v.to_bitmap()
    assert b is not v and b.to_bitmap() is b
    ld.assign(b, ld.Vector.from_indices([5], 64, values=np.array([50]), backend="cpu"))
    assert v.indices().tolist() == [1, 40]          # the list original is untouched
    assert b.indices().tolist() == [1, 5, 40]
    assert b.to_list().to_numpy()[5] == 50          # the list form follows the in-place change


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.floats(0.0, 0.6), st.integers(0, 2**31 - 1), st.data())
def test_majors_of_any_slice_are_the_rows_of_its_entries(n, density, seed, data):
    """LocalCSR.majors over any slice start:stop equals numpy's repeat of the row ids by
    their lengths (empty rows, a slice inside one row and an empty slice included)."""
    import scipy.sparse as sp
    S = sp.random(n, n, density=density, format="csr", random_state=seed)
    csr = LocalCSR(S.indptr.astype(np.int64), S.indices.astype(np.int32), n)
    expected = np.repeat(np.arange(n), np.diff(S.indptr))
    start = data.draw(st.integers(0, S.nnz))
    stop = data.draw(st.integers(start, S.nnz))
    np.testing.assert_array_equal(csr.majors(np, start, stop), expected[start:stop])
    np.testing.assert_array_equal(csr.majors(np), expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 50), max_size=60))
def test_sorted_runs_count_each_distinct_value(values):
    """sorted_runs of a sorted array: numpy's unique with its counts (empty, one value, repeats)."""
    from lagraph_dist.local.parts import sorted_runs
    array = np.sort(np.asarray(values, dtype=np.int64))
    distinct, counts = sorted_runs(array, np)
    expected, expected_counts = np.unique(array, return_counts=True)
    np.testing.assert_array_equal(distinct, expected)
    np.testing.assert_array_equal(counts, expected_counts)


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_device_majors_and_runs_match_the_host(seed):
    """CuPy's majors (through sorted_runs) over slices of a block with empty rows: the host's
    row ids of the same entries."""
    import cupy
    import scipy.sparse as sp
    from lagraph_dist.local.parts import sorted_runs
    S = sp.random(300, 200, density=0.02, format="csr", random_state=seed)
    host = LocalCSR(S.indptr.astype(np.int64), S.indices.astype(np.int32), 200)
    device = LocalCSR(cupy.asarray(host.indptr), cupy.asarray(host.indices), 200)
    for start, stop in [(0, S.nnz), (0, 1), (S.nnz // 3, S.nnz // 2), (S.nnz, S.nnz)]:
        np.testing.assert_array_equal(cupy.asnumpy(device.majors(cupy, start, stop)), host.majors(np, start, stop))
    values = np.sort(np.random.default_rng(seed).integers(0, 40, 500))
    for got, expected in zip(sorted_runs(cupy.asarray(values), cupy), np.unique(values, return_counts=True)):
        np.testing.assert_array_equal(cupy.asnumpy(got), expected)
