"""Block construction: several passes over regenerated chunks build the same matrix as one."""
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.local.backend import Backend
from lagraph_dist.io.generators import _kronecker_chunks
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.local.parts import csr_by_counting, csr_from_edges


@pytest.mark.parametrize("passes", [2, 3, 8])
def test_passes_build_the_same_matrix(passes):
    """The grid's build in passes over column ranges (one rank's build counts and fills its
    rows instead, whatever the passes: asked for passes, a CPU rank takes the grid's way)."""
    backend = "cpu"
    grid = ld.Grid()
    back = ld.get_backend(backend)
    one = ld.kronecker(9, seed=11, backend=backend)
    many = Matrix._from_edge_chunks(lambda: _kronecker_chunks(9, 16, 11, grid, back), 512, grid, back,
                                    symmetrize=True, symmetric=True, capacity=2 * 16 * 512,
                                    passes=passes)
    assert many.nvals == one.nvals
    assert (many.to_scipy() != one.to_scipy()).nnz == 0
    levels = ld.bfs(many, 3).levels.to_numpy()
    np.testing.assert_array_equal(levels, ld.bfs(one, 3).levels.to_numpy())


# -- the memory estimate against what a build really takes --------------------------------------
def checked_estimates(monkeypatch):
    """The byte counts the constructor hands to backend.check_fits, in call order."""
    checked = []
    original = Backend.check_fits

    def spy(self, nbytes, what):
        checked.append(nbytes)
        return original(self, nbytes, what)

    monkeypatch.setattr(Backend, "check_fits", spy)
    return checked


def host_peak_of(build):
    """(result, peak bytes numpy allocated on the host while ``build()`` ran)."""
    tracemalloc.start()
    try:
        result = build()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_estimate_bounds_the_host_peak_and_grows_with_the_graph(monkeypatch):
    """On the CPU the same build code runs on numpy: the estimate checked before building
    covers the host memory it really takes, and both grow with the graph. (At these scales the
    estimate's fixed allowance for a generator chunk dominates it, so only the device test
    below can also say that the estimate is not far above the truth.)"""
    checked = checked_estimates(monkeypatch)
    peaks = []
    for scale in (8, 10, 12, 14):
        A, peak = host_peak_of(lambda: ld.kronecker(scale, seed=2, backend="cpu"))
        assert A.n == 1 << scale
        assert len(checked) == len(peaks) + 1, "kronecker checked no estimate before building"
        assert peak <= checked[-1], f"scale {scale}: took {peak} bytes, estimated {checked[-1]}"
        peaks.append(peak)
    assert all(a < b for a, b in zip(peaks, peaks[1:])), peaks
    assert all(a < b for a, b in zip(checked, checked[1:])), checked


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_device_peak_within_the_checked_estimate(monkeypatch):
    """Built on one GPU (rows counted, then filled: parts.csr_by_counting), a Kronecker graph
    takes at most the pool memory the constructor checked against the free memory, and not far
    less (the estimate is a bound, not a blanket allowance): the CuPy pool's high-water mark,
    measured from a reset."""
    checked = checked_estimates(monkeypatch)
    backend = ld.get_backend("gpu")
    backend.reset_memory_peak()
    held_before = backend.memory_pool_peak()
    A = ld.kronecker(22, seed=5, backend="gpu")
    backend.sync()
    used = backend.memory_pool_peak() - held_before
    assert len(checked) == 1
    estimate = checked[0]
    report = f"the build took {used / 2**30:.2f} GiB, estimated {estimate / 2**30:.2f} GiB"
    assert estimate / 4 <= used <= estimate, report
    assert A.nvals > 0


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
def test_impossible_device_graph_fails_before_allocating():
    backend = ld.get_backend("gpu")
    backend.reset_memory_peak()
    held_before = backend.memory_pool_peak()
    with pytest.raises(ld.OutOfDeviceMemory, match="scale-36"):
        ld.kronecker(36, backend="gpu")
    assert issubclass(ld.OutOfDeviceMemory, MemoryError)
    assert backend.memory_pool_peak() - held_before < 2**20


def test_from_edges_duplicates_and_capacity():
    A = ld.Matrix.from_edges([0, 0, 1, 1], [1, 1, 2, 2], 3, symmetrize=True, backend="cpu")
    assert A.nvals == 4
    assert A.to_scipy().nnz == 4


# -- the one-GPU build in array operations (run here with numpy) ------------------------------------
@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 90), data=st.data(), both=st.booleans(), range_entries=st.integers(1, 60))
def test_counting_build_is_the_compiled_one(n, data, both, range_entries):
    """``parts.csr_by_counting`` (the one-GPU build) on random chunks, duplicates, self-loops and
    empty chunks among them, rows merged a few entries a range: exactly the compiled CPU build's
    CSR, which the test below checks against scipy's."""
    sizes = data.draw(st.lists(st.integers(0, 200), max_size=4))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    chunks = [(rng.integers(0, n, k), rng.integers(0, n, k).astype(np.int32)) for k in sizes]
    made = []

    def make_chunks():
        made.append(1)
        return iter(chunks)
    expected = csr_from_edges(chunks, n, n, both=both)
    got = csr_by_counting(make_chunks, n, n, np, both=both, range_entries=range_entries)
    np.testing.assert_array_equal(got.indptr, expected.indptr)
    np.testing.assert_array_equal(got.indices, expected.indices)
    assert got.indices.dtype == np.int32 and got.nminor == n
    assert len(made) == 2                       # the chunks made twice, never held


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("symmetrize", [False, True])
def test_one_gpu_build_is_scipys_csr(symmetrize):
    """On the device (CuPy's sorts, scatters and scans), with rows merged a few thousand entries
    a range: a Kronecker graph's block equals the compiled CPU build's, and edges with
    duplicates, self-loops, empty rows and a hub give scipy's CSR."""
    gpu, cpu = ld.kronecker(12, seed=4, backend="gpu"), ld.kronecker(12, seed=4, backend="cpu")
    np.testing.assert_array_equal(gpu.block.by_col.indptr.get(), cpu.block.by_col.indptr)
    np.testing.assert_array_equal(gpu.block.by_col.indices.get(), cpu.block.by_col.indices)
    rng = np.random.default_rng(9)
    n = 700
    src = np.concatenate([rng.integers(0, n // 2, 9000), np.full(300, 5), np.arange(40)])
    dst = np.concatenate([rng.integers(0, n // 2, 9000), rng.integers(0, n, 300), np.arange(40)])
    import cupy
    block = csr_by_counting(lambda: iter([(cupy.asarray(src), cupy.asarray(dst))]), 704, 704, cupy,
                            both=symmetrize, range_entries=3000)
    S = scipy_pattern(src, dst, n, symmetrize)
    np.testing.assert_array_equal(block.indptr.get()[:n + 1], S.indptr)
    np.testing.assert_array_equal(block.indices.get(), S.indices)


# -- the one-rank CPU build: compiled counting sorts ---------------------------------------------
def scipy_pattern(src, dst, n, symmetrize):
    import scipy.sparse as sp
    i, j = (np.concatenate([src, dst]), np.concatenate([dst, src])) if symmetrize else (src, dst)
    S = sp.csr_matrix((np.ones(len(i)), (np.asarray(i, np.int64), np.asarray(j, np.int64))), shape=(n, n))
    S.sum_duplicates()
    S.sort_indices()
    return S


@pytest.mark.parametrize("degree", [3, 40])          # rows sorted one by one / two counting passes
@pytest.mark.parametrize("symmetrize", [False, True])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint32])
def test_one_rank_build_is_scipys_csr(degree, symmetrize, dtype):
    """Duplicates, self-loops, empty rows and hubs: the block's offsets and sorted minors are
    exactly those of scipy's CSR of the same edges, whatever the ids' integer type."""
    rng = np.random.default_rng(degree)
    n = 700
    m = degree * n
    src = np.concatenate([rng.integers(0, n // 2, m), np.full(300, 5), np.arange(40)])
    dst = np.concatenate([rng.integers(0, n // 2, m), rng.integers(0, n, 300), np.arange(40)])
    src, dst = src.astype(dtype), dst.astype(dtype)
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend="cpu")
    S = scipy_pattern(src, dst, n, symmetrize)
    block = A.block.by_col
    np.testing.assert_array_equal(block.indptr[:n + 1], S.indptr)
    assert (block.indptr[n:] == S.nnz).all()             # the rows past n (to a multiple of 32) are empty
    np.testing.assert_array_equal(block.indices, S.indices)
    assert A.nvals == S.nnz


def test_symmetric_matrix_market_file_is_built_both_ways(tmp_path):
    """A symmetric file's stored entries (a diagonal too) become both directions in the build,
    as the mirrored edge list read_mtx gives would."""
    from lagraph_dist.io.mtx import read_mtx, write_mtx
    rng = np.random.default_rng(4)
    n = 500
    keys = np.unique(rng.integers(0, n * n, 4000))
    src, dst = keys // n, keys % n
    low = src >= dst
    path = tmp_path / "sym.mtx"
    write_mtx(path, src[low], dst[low], n, symmetric=True)
    graph = read_mtx(path)
    A = ld.Matrix.from_mtx(path, backend="cpu")
    S = scipy_pattern(graph.src, graph.dst, n, symmetrize=False)
    np.testing.assert_array_equal(A.block.by_col.indices, S.indices)
    assert A.symmetric and A.nvals == S.nnz


def test_a_canonical_scipy_matrix_is_taken_as_it_is():
    """A scipy CSR (or COO) with sorted, duplicate-free rows becomes the block without a
    rebuild; a non-canonical one (unsorted rows, duplicates) is rebuilt: both give scipy's
    pattern, explicit zeros as edges."""
    import scipy.sparse as sp
    rng = np.random.default_rng(9)
    n = 300
    src, dst = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    canonical = scipy_pattern(src, dst, n, symmetrize=False)
    canonical.data[:7] = 0                                  # stored zeros: edges all the same
    messy = sp.csr_matrix((np.ones(src.shape[0]), (src, dst)), shape=(n, n))   # duplicates kept
    messy.indices[messy.indptr[4]:messy.indptr[5]] = messy.indices[messy.indptr[4]:messy.indptr[5]][::-1].copy()
    messy.has_sorted_indices = False
    for S in (canonical, canonical.tocoo(), messy, messy.tocoo()):
        A = ld.Matrix.from_scipy(S, backend="cpu")
        np.testing.assert_array_equal(A.block.by_col.indptr[:n + 1], canonical.indptr)
        np.testing.assert_array_equal(A.block.by_col.indices, canonical.indices)
        assert A.nvals == canonical.nnz
    assert canonical.has_canonical_format and canonical.tocoo().has_canonical_format
    assert not messy.has_canonical_format


def _live_bytes_peak_hook():
    """A CuPy memory hook that follows the bytes the pool hands out and takes back, and keeps
    their peak above the level when it was entered. The pool's own total cannot serve: it also
    keeps freed blocks that a later request of another size could not reuse."""
    import cupy

    class LivePeak(cupy.cuda.MemoryHook):
        name = "live-peak"

        def __init__(self):
            self.live = self.peak = 0

        def malloc_postprocess(self, device_id, size, mem_size, mem_ptr, pmem_id):
            self.live += mem_size
            self.peak = max(self.peak, self.live)

        def free_postprocess(self, device_id, mem_size, mem_ptr, pmem_id):
            self.live -= mem_size

    return LivePeak()


@pytest.mark.gpu
@pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")
@pytest.mark.parametrize("passes", [1, 4])
def test_device_by_row_copy_in_passes(monkeypatch, passes):
    """The by-row copy a pull reads, built on the GPU in one pass or four over ranges of rows:
    scipy's transpose, within the bytes its fit check asked for and not far below them."""
    import cupy
    import scipy.sparse as sp
    from lagraph_dist.algebra.matrix import LocalBlock
    from lagraph_dist.local.parts import LocalCSR
    # two million random entries (sp.random draws its positions without replacement among all
    # 2**31 cells, which takes minutes)
    rng = np.random.default_rng(3)
    rows, cols = rng.integers(0, 1 << 16, 1 << 21), rng.integers(0, 1 << 15, 1 << 21)
    S = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(1 << 16, 1 << 15))
    S.sum_duplicates()
    S.sort_indices()
    csr = LocalCSR(cupy.asarray(S.indptr.astype(np.int64)), cupy.asarray(S.indices.astype(np.int32)), S.shape[1])
    backend = ld.get_backend("gpu")
    monkeypatch.setattr(Backend, "passes_to_fit", lambda self, bytes_for_passes, most=64: passes)
    block = LocalBlock(csr, backend)
    backend.sync()
    hook = _live_bytes_peak_hook()
    with hook:
        by_row = block.by_row
        backend.sync()
    used = hook.peak
    estimate = block.by_row_bytes(passes)
    assert estimate / 4 <= used <= estimate, f"took {used / 2**20:.1f} MiB, estimated {estimate / 2**20:.1f} MiB"
    expected = S.T.tocsr()
    expected.sort_indices()
    assert np.array_equal(cupy.asnumpy(by_row.indptr), expected.indptr)
    assert np.array_equal(cupy.asnumpy(by_row.indices), expected.indices)
