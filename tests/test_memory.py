"""The memory estimate against what the CPU backend really allocates (tracemalloc sees numpy's
buffers), and the checks that stop a graph before it is allocated."""
import os
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lagraph_dist as ld
from lagraph_dist.core.settings import settings as package_settings
from lagraph_dist.local import fit, recycle
from lagraph_dist.algebra import memory
from lagraph_dist.algebra.matrix import LocalBlock, transpose_csr
from lagraph_dist.local.parts import LocalCSR
from lagraph_dist.local.backend import Backend
from lagraph_dist.core.errors import DomainMismatch, InvalidValue


def traced(func):
    """(result, peak bytes allocated above the start) of ``func()``."""
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        result = func()
        return result, tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


@pytest.fixture(autouse=True, scope="module")
def compiled_cpu_kernels():
    """The CPU backend compiles (or loads) its numba kernels when it is first made, and the
    generator and some searches their own on first use: that is no graph's or search's memory, so it happens
    before any measurement here (alone, this module's first peak counted the compiler's)."""
    ld.get_backend("cpu")
    search_everything(ld.kronecker(4, backend="cpu"), 1)


def search_everything(A, source):
    """Every direction, with the dense gathers the command line and the benchmark make."""
    for direction in ("push", "pull", "auto"):
        res = ld.bfs(A, source, direction=direction)
        res.levels.to_numpy(), res.parents.to_numpy()


def directed_graph(n, m, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m)


@pytest.mark.parametrize("scale", [12, 15])
def test_kronecker_peaks_stay_under_the_estimate(scale):
    keys = 2 * 16 << scale
    estimate = ld.estimate_memory(1 << scale, keys, backend="cpu", symmetric=True)
    A, build_peak = traced(lambda: ld.kronecker(scale, backend="cpu"))
    assert build_peak <= estimate.construction
    assert build_peak >= estimate.construction / 4, "the construction estimate is far too high"
    graph = A.block.nbytes
    assert graph <= estimate.graph
    _, search_peak = traced(lambda: search_everything(A, 1))
    assert graph + search_peak <= estimate.graph + estimate.search
    assert graph + search_peak >= (estimate.graph + estimate.search) / 4


def test_directed_graph_counts_its_by_row_copy():
    """A directed graph builds a by-row block at its first pull: inside the estimate too."""
    n, m = 3000, 60000
    src, dst = directed_graph(n, m, 5)
    estimate = ld.estimate_memory(n, m, backend="cpu", symmetric=False, chunk_keys=m)

    def build_and_search():
        A = ld.Matrix.from_edges(src, dst, n, backend="cpu")
        search_everything(A, int(src[0]))
        return A

    A, peak = traced(build_and_search)
    assert A.block._by_row is not None and A.block._by_row is not A.block.by_col
    assert A.block.nbytes <= estimate.graph
    assert peak <= estimate.total
    assert peak >= estimate.total / 4


def test_a_grid_splits_the_edges():
    one = ld.estimate_memory(1 << 20, 1 << 25, backend="gpu", symmetric=True)
    four = ld.estimate_memory(1 << 20, 1 << 25, grid_shape=(2, 2), backend="gpu", symmetric=True)
    # each of 4 ranks stores a quarter of the edges, but its own by-row copy too
    assert four.graph < one.graph / 2 + one.graph / 4
    assert ld.estimate_memory(1 << 20, 1 << 25, backend="cpu").search > one.search   # numpy kernels


@pytest.mark.parametrize("bad, exc", [(dict(n=0), InvalidValue), (dict(nvals=-1), InvalidValue),
                                      (dict(n=2.5), DomainMismatch), (dict(nvals=True), DomainMismatch),
                                      (dict(backend="tpu"), InvalidValue),
                                      (dict(grid_shape=(0, 2)), InvalidValue),
                                      (dict(passes=0), InvalidValue),
                                      (dict(transpose_passes=0), InvalidValue)])
def test_estimate_rejects_bad_arguments(bad, exc):
    args = dict(n=100, nvals=1000) | bad
    n, nvals = args.pop("n"), args.pop("nvals")
    with pytest.raises(exc):
        ld.estimate_memory(n, nvals, **args)


def test_host_memory_reads_this_host():
    available, total = memory.host_memory()
    assert 0 < available <= total
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert abs(total - physical) <= 0.05 * physical


def test_scale_40_on_the_cpu_fails_before_allocating():
    """The refusal comes from the estimate, before any of the graph exists: the error gives the
    estimate's own total, and tracemalloc (which sees numpy's buffers) saw no more than a few MiB
    allocated while kronecker ran (one generator chunk's source ids alone are 64 MiB)."""
    estimate = ld.estimate_memory(1 << 40, 2 * 16 << 40, backend="cpu", symmetric=True)
    tracemalloc.start()
    try:
        with pytest.raises(ld.OutOfHostMemory) as caught:
            ld.kronecker(40, backend="cpu")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 24
    message = str(caught.value)
    assert f"needs about {memory.format_bytes(estimate.total)} of host memory" in message
    assert "scale-40 Kronecker graph" in message and "host memory" in message
    assert "TiB of host memory" in message and "free" in message
    free_text = memory.format_bytes(memory.host_memory()[0]).split()[1]
    assert free_text in message.split("only")[1]


def test_from_edges_checks_too():
    tracemalloc.start()
    try:
        with pytest.raises(ld.OutOfHostMemory, match="host memory"):
            ld.Matrix.from_edges([0, 1], [1, 2], 1 << 42, backend="cpu")
        assert tracemalloc.get_traced_memory()[1] < 1 << 24
    finally:
        tracemalloc.stop()


def test_the_check_reads_the_host_memory(monkeypatch):
    """With the host reporting 1 MiB free, even a small graph is refused; with plenty, built.
    (The arrays kept by recycle count as free too: none are kept here.)"""
    recycle.release()
    monkeypatch.setattr(fit, "host_memory", lambda: (1 << 20, 1 << 30))
    with pytest.raises(ld.OutOfHostMemory, match=r"only 1\.0 MiB of 1\.0 GiB are free"):
        ld.kronecker(10, backend="cpu")
    with pytest.raises(MemoryError):               # also a plain MemoryError
        ld.Matrix.from_edges(*directed_graph(5000, 50000, 1), 5000, backend="cpu")
    monkeypatch.setattr(fit, "host_memory", lambda: (1 << 40, 1 << 40))
    assert ld.kronecker(10, backend="cpu").nvals > 0


def _built_or_refused(scale, grid_shape=(1, 1)):
    """Whether ld.kronecker's memory check lets a graph of ``scale`` through (its build stubbed)
    on a grid of ``grid_shape`` with each rank's memory as ``fit.available_bytes`` says."""
    from lagraph_dist.algebra import matrix as matrix_module
    grid = ld.Grid(1, 1)
    shaped = type("Shaped", (), {"shape": grid_shape, "size": grid_shape[0] * grid_shape[1], "comm": grid.comm,
                                 "agree": grid.agree, "allreduce": grid.allreduce})()
    try:
        matrix_module.Matrix._from_edge_maker(lambda: [], 1 << scale, shaped, ld.get_backend("cpu"),
                                              keys=2 * (16 << scale), symmetrize=True, symmetric=True,
                                              what="a Kronecker graph")
    except ld.OutOfHostMemory:
        return False
    except _Built:
        return True
    raise AssertionError("the build was not reached")


class _Built(Exception):
    pass


def test_a_refused_kronecker_graph_says_what_would_fit(monkeypatch):
    """With 8 GiB a rank, scale 26 is refused, saying which smaller scale fits here and how many
    ranks of this memory hold scale 26; the constructor's own check agrees with both: the scale
    named passes it and the next one up does not, the grid named passes it and the grid of half
    as many ranks does not."""
    import re
    from lagraph_dist.algebra import matrix as matrix_module
    from lagraph_dist.comm.grid import most_square
    monkeypatch.setattr(fit, "available_bytes", lambda backend: (8 << 30, 24 << 30))
    with pytest.raises(ld.OutOfHostMemory) as caught:
        ld.kronecker(26, backend="cpu")
    said = str(caught.value)
    fits = re.search(r"; scale (\d+) fits here; scale 26 needs (\d+) ranks with this much memory each "
                     r"\(a (\d+) x (\d+) grid\)$", said)
    assert fits, said
    smaller, ranks, rows, cols = (int(x) for x in fits.groups())

    def stub(*args, **kwargs):
        raise _Built
    monkeypatch.setattr(matrix_module.Matrix, "_from_edge_chunks", classmethod(stub))
    assert _built_or_refused(smaller) and not _built_or_refused(smaller + 1)
    assert rows * cols == ranks and _built_or_refused(26, (rows, cols))
    assert not _built_or_refused(26, most_square(ranks // 2))


def test_a_graph_no_grid_holds_says_what_a_rank_needs(monkeypatch):
    """With 1 GiB a rank, scale 26 fits no grid (every rank keeps some bytes of each vertex):
    the refusal says how much a rank would need."""
    monkeypatch.setattr(fit, "available_bytes", lambda backend: (1 << 30, 24 << 30))
    with pytest.raises(ld.OutOfHostMemory, match=r"; scale \d+ fits here; scale 26 needs at least [\d.]+ GiB a rank "
                                                   r"on any grid of up to 4096 ranks$"):
        ld.kronecker(26, backend="cpu")


def test_every_fit_check_is_memorys(monkeypatch):
    """Building a graph, the by-row copy a pull reads and the batches of a multi-source search
    all ask memory for the free memory and whether they fit: one answer refuses them all alike."""
    A = ld.Matrix.from_edges(*directed_graph(500, 4000, 2), 500, backend="cpu")
    monkeypatch.setattr(fit, "available_bytes", lambda backend: (1000, 10 ** 6))
    refusal = r"needs about .* of host memory, but only 1000 B of 976\.6 KiB are free"
    with pytest.raises(ld.OutOfHostMemory, match=refusal):
        ld.kronecker(8, backend="cpu")
    with pytest.raises(ld.OutOfHostMemory, match="by-row copy.*" + refusal):
        ld.bfs(A, 0, direction="pull")
    with pytest.raises(ld.OutOfHostMemory, match="bfs_multi of 2 sources.*" + refusal):
        ld.bfs_multi(A, [0, 1])


class FakeDevice:
    """A GPU backend as memory sees it: a name and the device's free bytes."""

    name = "gpu"

    def __init__(self, free):
        self.free = free

    def free_device_bytes(self):
        return self.free, 4 * self.free


def test_a_fit_is_shared_by_the_ranks_on_one_device():
    device = FakeDevice(1000)
    assert memory.free_share(device, 3) == 333
    memory.require_fit(500, device, "a search", sharing=2)         # two ranks of 500 bytes: they fit
    with pytest.raises(ld.OutOfDeviceMemory, match=r"a search needs about 1\.5 KiB of device memory, "
                                                   r"but only 1000 B of 3\.9 KiB are free"):
        memory.require_fit(500, device, "a search", sharing=3)


def test_passes_are_doubled_until_one_fits_beside_headroom(monkeypatch):
    """Construction passes (1, 2, 4, ...) until a pass's peak fits in 90% of the free device
    memory; the backend's method gives memory's answer; the CPU builds in one pass."""
    device = FakeDevice(1000)
    peak = {1: 3000, 2: 1500, 4: 901, 8: 900}.__getitem__
    assert memory.passes_to_fit(device, peak) == 8
    assert memory.passes_to_fit(device, peak, most=4) == 4
    assert memory.passes_to_fit(ld.get_backend("cpu"), peak) == 1
    backend = Backend("gpu", None, None)
    monkeypatch.setattr(backend, "free_device_bytes", device.free_device_bytes)
    assert backend.passes_to_fit(peak) == 8
    monkeypatch.setattr(fit, "passes_to_fit", lambda backend, bytes_for_passes: 16)
    assert backend.passes_to_fit(peak) == 16


def test_format_bytes():
    assert memory.format_bytes(512) == "512 B"
    assert memory.format_bytes(3 << 30) == "3.0 GiB"
    assert memory.format_bytes(5 << 50) == "5.0 PiB"


# -- the by-row copy a pull reads, built in passes over ranges of rows -------------------------
class PassesDevice(FakeDevice):
    """A device of ``free`` bytes whose arrays are numpy's: the by-row build's passes on a CPU."""

    xp = np

    def passes_to_fit(self, bytes_for_passes):
        return fit.passes_to_fit(self, bytes_for_passes)


def scipy_block(seed, majors=300, minors=200, density=0.05):
    import scipy.sparse as sp
    S = sp.random(majors, minors, density=density, format="csr", random_state=seed)
    S.sort_indices()
    return S, LocalCSR(S.indptr.astype(np.int64), S.indices.astype(np.int32), minors)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 31), majors=st.integers(1, 120), minors=st.integers(1, 120),
       density=st.floats(0, 0.5), passes=st.sampled_from([1, 2, 3, 5, 64, 200]))
def test_the_by_row_copy_is_the_transpose_in_any_number_of_passes(seed, majors, minors, density, passes):
    S, csr = scipy_block(seed, majors, minors, density)
    expected = S.T.tocsr()
    expected.sort_indices()
    got = transpose_csr(csr, np, passes)
    assert np.array_equal(got.indptr, expected.indptr)
    assert np.array_equal(got.indices, expected.indices)
    assert got.nminor == majors


def test_the_by_row_copy_takes_the_fewest_passes_that_fit():
    """A block whose one-pass build does not fit takes more passes (the fewest whose peak fits
    in 90% of the free memory), and the copy is still the transpose."""
    S, csr = scipy_block(7)
    one_pass = memory.by_row_copy_bytes(csr.nnz, csr.nminor, 1)
    device = PassesDevice(int(0.6 * one_pass))
    block = LocalBlock(csr, device)
    passes = block.by_row_passes()
    assert passes > 1
    assert block.by_row_bytes(passes) <= 0.9 * device.free < block.by_row_bytes(passes // 2)
    expected = S.T.tocsr()
    expected.sort_indices()
    assert np.array_equal(block.by_row.indptr, expected.indptr)
    assert np.array_equal(block.by_row.indices, expected.indices)


def test_a_grid_fits_what_one_pass_would_not():
    """Scale 28 on a 1x4 grid of H200s (139.8 GiB free each): one by-row pass (48 bytes an
    edge of the block) refused it on the device; the passes the pull will take fit it."""
    keys, free = 2 * (16 << 28), 150_109_880_320
    device = PassesDevice(free)
    one_pass = ld.estimate_memory(1 << 28, keys, grid_shape=(1, 4), symmetric=True)
    fitted = memory.estimate_to_fit(1 << 28, keys, device, grid_shape=(1, 4), symmetric=True)
    assert one_pass.total > free >= fitted.total
    assert fitted.graph == one_pass.graph and fitted.construction == one_pass.construction
    # on the CPU the copy is built in one pass: the estimate is the plain one
    cpu = memory.estimate_to_fit(1 << 20, 1 << 24, ld.get_backend("cpu"), grid_shape=(2, 2), symmetric=True)
    assert cpu == ld.estimate_memory(1 << 20, 1 << 24, grid_shape=(2, 2), backend="cpu", symmetric=True)


@pytest.mark.parametrize("passes", [1, 4])
def test_the_by_row_build_stays_within_its_bytes_on_the_host(passes):
    """What tracemalloc sees the by-row build allocate on the host lies within the bytes its
    fit check asks for, and not far below them."""
    S, csr = scipy_block(11, majors=4000, minors=3000, density=0.02)
    copy, peak = traced(lambda: transpose_csr(csr, np, passes))
    estimate = memory.by_row_copy_bytes(csr.nnz, csr.nminor, passes)
    assert estimate / 4 <= peak <= estimate, f"took {peak} bytes, estimated {estimate}"
    assert np.array_equal(copy.indices, S.T.tocsr().indices)


@pytest.mark.parametrize("scale, held", [(20, True), (27, False)])
def test_one_gpu_counts_the_outputs_made_ahead_all_or_none(scale, held):
    """One GPU holds the next search's outputs (parents, depths and their bits: over 16 bytes a
    vertex) only when they fit ``settings.results_ahead_bytes``, and its search estimate counts exactly
    that: all of them at scale 20, none at scale 27 (a graph whose memory is tight)."""
    n = 1 << scale
    outputs = 8 * n + 8 * n + 2 * (n // 8)
    gpu, cpu = (memory.estimate_memory(n, 32 * n, backend=b, symmetric=True) for b in ("gpu", "cpu"))
    # every one-GPU search also counts a thin graph's row words (test_thin_rows_... below)
    extra = gpu.search - cpu.search - memory.THIN_ROWS_BYTES_PER_VERTEX * n
    assert (extra >= outputs) == held and (extra == 0) == (not held)
    assert extra <= package_settings.results_ahead_bytes


@given(st.lists(st.integers(0, 8), min_size=1, max_size=50))
@settings(max_examples=40, deadline=None)
def test_thin_rows_hold_each_rows_start_and_degree_in_the_bytes_counted(degrees):
    """The one-GPU search's thin rows (fused.py's _thin_rows, made with numpy here as CuPy would
    make them): a word a vertex, THIN_ROW_DEGREE_BITS of degree under the row's start, in the
    bytes a vertex the estimate counts."""
    from types import SimpleNamespace
    from lagraph_dist.local.gpu_kernels.fused import FusedKernels
    from lagraph_dist.local.layout import THIN_ROW_DEGREE_BITS
    indptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
    csr = LocalCSR(indptr, np.zeros(int(indptr[-1]), np.int32), len(degrees))
    words = FusedKernels._thin_rows(SimpleNamespace(cp=np, _per_matrix=FusedKernels._per_matrix), {}, csr)
    assert words.nbytes == memory.THIN_ROWS_BYTES_PER_VERTEX * len(degrees)
    assert np.array_equal(words >> np.uint64(THIN_ROW_DEGREE_BITS), indptr[:-1])
    assert np.array_equal(words & np.uint64((1 << THIN_ROW_DEGREE_BITS) - 1), degrees)


def test_host_memory_reads_the_fields_a_text_parse_reads():
    """The one-read parse of /proc/meminfo's first lines gives the total a line-by-line text
    parse gives, and an available figure within what moves between two reads."""
    if not os.path.exists("/proc/meminfo"):
        pytest.skip("no /proc/meminfo on this system")
    with open("/proc/meminfo") as handle:
        text = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in handle}
    fields = fit._meminfo_head()
    assert fields["MemTotal"] == text["MemTotal"]
    assert abs(fields["MemAvailable"] - text["MemAvailable"]) <= 0.05 * text["MemTotal"]


@pytest.mark.parametrize("files, room, remembered", [
    ({"memory.max": b"max\n", "memory.current": b"123\n"}, None, False),
    ({"memory.max": b"1000\n", "memory.current": b"300\n"}, 700, False),
    ({"memory.max": b"1000\n", "memory.current": b"4000\n"}, 0, False),
    ({}, None, True),
], ids=["no limit", "limit", "over the limit", "no cgroup v2"])
def test_cgroup_room(monkeypatch, files, room, remembered):
    monkeypatch.setattr(fit, "_NO_CGROUP_LIMIT", [])
    monkeypatch.setattr(fit, "_read_head", lambda path, size=512: files.get(path.rsplit("/", 1)[-1]))
    assert fit._cgroup_room() == room
    assert fit._NO_CGROUP_LIMIT == ([True] if remembered else [])
    assert fit._cgroup_room() == room                     # (a remembered absence: no read)
