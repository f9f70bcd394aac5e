"""The valued semirings' CUDA kernel instances against their CPU twins (lagraph_dist.local.
cpu_kernels) on random inputs: each (multiply, add, value type) a product can ask for (every
semiring the package names, typed by every vector dtype it takes, in both orientations) in the
push and the pull, masked or not, each monoid's fold merge on each type, each type's fold pack
and assignment; and the atomic combines under contention, with infinities and signed zeros.
The searches' four instances: tests/test_kernels_gpu.py."""
import time
import zlib

import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.comm.grid import IdMap
from lagraph_dist.core.errors import DomainMismatch
from lagraph_dist.local import cpu_kernels as K
from lagraph_dist.local import wire
from lagraph_dist.local.parts import LocalCSR, LocalPart
from lagraph_dist.semirings import VALUE_DTYPES, semirings
from kernel_twins import assign_twins_agree, entries, mask_of, random_csr

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")]


def _instances():
    """{(multiply, add, dtype): a typed, oriented semiring running it} over every semiring and
    dtype the package takes, the searches' four instances left out."""
    found = {}
    for semiring in semirings.every():
        for dtype in VALUE_DTYPES:
            for vector_left in (True, False):
                try:
                    typed = semiring.for_product(dtype, vector_left=vector_left)
                except DomainMismatch:
                    continue
                if semiring in list(semirings):
                    continue
                found.setdefault((typed.multiply.name, typed.add.kind, np.dtype(typed.out_dtype).name), typed)
    return found


INSTANCES = _instances()


def _seed(*parts):
    return zlib.crc32(repr(parts).encode())
IDS = sorted(INSTANCES)
MASKS = ["none", "keep", "complement"]


@pytest.fixture(scope="module")
def gpu():
    backend = ld.get_backend("gpu")
    started = time.perf_counter()
    built = backend.kernels.build_semirings()
    print(f"\nbuilt {built} modules on demand in {time.perf_counter() - started:.1f} s")
    return backend


def random_values(rng, dtype, count, special=None):
    """Values of ``dtype``: floats normal, or with ``special`` "whole" small integers (sums exact
    in any order) or "extremes" (infinities, signed zeros, ties)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(count) < 0.6
    if dtype.kind == "f" and special == "extremes":
        return rng.choice(np.array([-np.inf, np.inf, -0.0, 0.0, 1.5, -2.5, 1e30], dtype), count)
    if dtype.kind == "f" and special != "whole":
        return rng.normal(0, 4, count).astype(dtype)
    return rng.integers(-6, 7, count).astype(dtype)


def assert_same(cpu_result, gpu_result, gpu, semiring):
    """The same entries and values (floats: to float32's rounding of sums taken in another
    order), the GPU output in the semiring's dtype."""
    expected, cpu_counters = entries(*cpu_result, ld.get_backend("cpu"))
    got, gpu_counters = entries(*gpu_result, gpu)
    assert gpu_result[0].values.dtype == np.dtype(semiring.out_dtype)
    assert set(got) == set(expected)
    keys = sorted(got)
    want, have = np.array([expected[k] for k in keys]), np.array([got[k] for k in keys])
    if np.dtype(semiring.out_dtype).kind == "f":
        np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(have, want)
    return cpu_counters, gpu_counters


def run_twins(kernel, gpu, csr, frontier, values, semiring, mask, complement, in_map, **kwargs):
    cp = gpu.xp
    on_gpu = (lambda a: None if a is None else cp.asarray(a))
    twin = getattr(K, kernel)(csr, frontier, values, semiring, mask, complement, in_map, **kwargs)
    gcsr = LocalCSR(cp.asarray(csr.indptr), cp.asarray(csr.indices), csr.nminor)
    cuda = getattr(gpu.kernels, kernel)(gcsr, on_gpu(frontier), on_gpu(values), semiring, on_gpu(mask), complement,
                                        in_map, **{k: on_gpu(v) for k, v in kwargs.items()})
    return twin, cuda


def _left(rng, semiring, count, special=None):
    """The input's values as a product hands them to the kernels (the semiring's out dtype)."""
    if not semiring.reads_left_values:
        return None
    return random_values(rng, semiring.out_dtype, count, special).astype(semiring.out_dtype)


@pytest.mark.parametrize("instance", IDS, ids="-".join)
@pytest.mark.parametrize("mask_kind", MASKS)
def test_push_matches_twin(gpu, instance, mask_kind):
    semiring = INSTANCES[instance]
    rng = np.random.default_rng(_seed(instance, mask_kind))
    csr = random_csr(rng, 320, 352, 0.05)            # majors: input space, minors: output space
    frontier = rng.choice(320, 120, replace=False).astype(np.int32)
    mask, complement = mask_of(rng, 352, mask_kind)
    degrees = rng.integers(0, 50, 352).astype(np.int64)
    cpu_result, gpu_result = run_twins("push_spmspv", gpu, csr, frontier, _left(rng, semiring, 120), semiring,
                                       mask, complement, IdMap(32, 64, 7), out_degree=degrees)
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semiring)
    for counter in (K.FOUND, K.EXAMINED, K.PUSH_EDGES):
        assert gpu_counters[counter] == cpu_counters[counter], f"counter {counter}"


@pytest.mark.parametrize("instance", IDS, ids="-".join)
@pytest.mark.parametrize("mask_kind", MASKS)
def test_pull_matches_twin(gpu, instance, mask_kind):
    semiring = INSTANCES[instance]
    rng = np.random.default_rng(_seed(instance, mask_kind, "pull"))
    csr = random_csr(rng, 352, 320, 0.08)            # majors: output rows (one long), minors: inputs
    frontier = K.bitmap_from_list(np.flatnonzero(rng.random(320) < 0.4).astype(np.int32), 320)
    mask, complement = mask_of(rng, 352, mask_kind)
    degrees = rng.integers(0, 50, 352).astype(np.int64)
    cpu_result, gpu_result = run_twins("pull_spmv", gpu, csr, frontier, _left(rng, semiring, 320), semiring, mask,
                                       complement, IdMap(32, 96, 32), out_degree=degrees)
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semiring)
    # no valued semiring stops at a row's first hit: both read every input of every candidate row
    assert not semiring.first_hit_is_final
    for counter in (K.FOUND, K.EXAMINED, K.PUSH_EDGES):
        assert gpu_counters[counter] == cpu_counters[counter], f"counter {counter}"


@pytest.mark.parametrize("instance", [i for i in IDS if INSTANCES[i].add.kind in ("min", "max", "plus")
                                      and INSTANCES[i].out_dtype.kind in "fi"], ids="-".join)
@pytest.mark.parametrize("special", ["whole", "extremes"])
def test_contended_claims_match_twin(gpu, instance, special):
    """Every frontier entry reaches the same few outputs (each claim's atomic contended by the
    whole frontier): the push's atomics and compare-and-swap loops and the pull's warp combine
    (rows of 1,500 inputs) against the twin, exactly: whole values (sums exact in any order), or
    for float min and max infinities and signed zeros (plus of opposite infinities is NaN)."""
    semiring = INSTANCES[instance]
    if special == "extremes" and (semiring.add.kind == "plus" or semiring.out_dtype.kind != "f"):
        pytest.skip("infinities and signed zeros: float min and max")
    rng = np.random.default_rng(_seed(instance, special))
    n_in, n_out = 3000, 64
    dense = rng.random((n_in, n_out)) < 0.5
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(n_in + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_in), out=indptr[1:])
    push_csr = LocalCSR(indptr, cols.astype(np.int32), n_out)
    frontier = np.arange(n_in, dtype=np.int32)
    in_map = IdMap(n_in, n_in, 0)
    cpu_result, gpu_result = run_twins("push_spmspv", gpu, push_csr, frontier, _left(rng, semiring, n_in, special),
                                       semiring, None, False, in_map)
    assert_same(cpu_result, gpu_result, gpu, semiring)
    rows_t, cols_t = np.nonzero(dense.T)
    indptr_t = np.zeros(n_out + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows_t, minlength=n_out), out=indptr_t[1:])
    pull_csr = LocalCSR(indptr_t, cols_t.astype(np.int32), n_in)
    everything = K.bitmap_from_list(frontier, n_in)
    cpu_result, gpu_result = run_twins("pull_spmv", gpu, pull_csr, everything, _left(rng, semiring, n_in, special),
                                       semiring, None, False, in_map)
    assert_same(cpu_result, gpu_result, gpu, semiring)


# -- the fold and the assignment --------------------------------------------------------------
MERGES = sorted({(s.add.kind, np.dtype(s.out_dtype).name): s for s in INSTANCES.values()}.items())


@pytest.mark.parametrize("merge", MERGES, ids=lambda m: "-".join(m[0]))
@pytest.mark.parametrize("layout", ["fixed", "counted"])
@pytest.mark.parametrize("mask_kind", MASKS)
def test_fold_merge_matches_twin(gpu, merge, layout, mask_kind):
    """Three members' outputs over one owner's block, packed by the twin, merged by both: each
    entry's values combined by the monoid, at every value type it takes."""
    cp = gpu.xp
    semiring = merge[1]
    dtype = np.dtype(semiring.out_dtype)
    block_len, nowners, me = 1024, 3, 1
    vw = wire.value_words(semiring)
    threshold = wire.bitmap_threshold(block_len)
    rng = np.random.default_rng(_seed(merge[0], layout, mask_kind))
    cap = 400 if layout == "fixed" else 0
    recv_parts, recv_counts = [], []
    for _ in range(nowners):
        length = block_len * nowners
        ids = rng.choice(length, 300, replace=False).astype(np.int32)
        part = LocalPart("bitmap", length, None, random_values(rng, dtype, length).astype(dtype),
                         words=K.bitmap_from_list(ids, length), ids=ids, ids_sorted=False)
        counters = K.new_counters()
        counters[K.FOUND] = ids.shape[0]
        counts = K.fold_count(part, counters, block_len, nowners)
        buffer = K.fold_pack(part, counters, vw, block_len, nowners, cap, threshold,
                             None if cap else wire.PieceCounts(counts, counts))
        sizes = ([wire.fixed_piece_words(cap, vw)] * nowners if cap else
                 [wire.counted_piece_words(int(c), block_len, vw) for c in counts])
        recv_parts.append(buffer[sum(sizes[:me]):sum(sizes[:me + 1])])
        recv_counts.append(int(counts[me]))
    recv, rc = np.concatenate(recv_parts), np.array(recv_counts, dtype=np.int64)
    mask, complement = mask_of(rng, block_len, mask_kind)
    degrees = rng.integers(0, 30, block_len).astype(np.int64)
    cpu_result = K.fold_merge(recv, nowners, block_len, vw, cap, threshold, None if cap else wire.PieceCounts(rc, rc),
                              semiring, mask, complement, out_degree=degrees)
    gpu_result = gpu.kernels.fold_merge(cp.asarray(recv), nowners, block_len, vw, cap, threshold,
                                        None if cap else wire.PieceCounts(cp.asarray(rc), rc), semiring,
                                        None if mask is None else cp.asarray(mask), complement,
                                        out_degree=cp.asarray(degrees))
    cpu_counters, gpu_counters = assert_same(cpu_result, gpu_result, gpu, semiring)
    for counter in (K.FOUND, K.PUSH_EDGES, K.OVERFLOW):
        assert gpu_counters[counter] == cpu_counters[counter], f"counter {counter}"


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["fixed", "counted"])
def test_fold_pack_matches_twin(gpu, dtype, layout):
    """Each new value type's pack: the same pieces (ids and values) as the twin's."""
    cp = gpu.xp
    dtype = np.dtype(dtype)
    semiring = semirings.plus_first.typed(dtype)
    block_len, nowners, count = 1024, 3, 500
    vw = wire.value_words(semiring)
    threshold = wire.bitmap_threshold(block_len)
    rng = np.random.default_rng(3)
    length = block_len * nowners
    ids = rng.choice(length, count, replace=False).astype(np.int32)
    values, words = random_values(rng, dtype, length).astype(dtype), K.bitmap_from_list(ids, length)
    part = LocalPart("bitmap", length, None, values, words=words, ids=ids, ids_sorted=False)
    gpart = LocalPart("bitmap", length, None, cp.asarray(values), words=cp.asarray(words), ids=cp.asarray(ids),
                      ids_sorted=False)
    counters = K.new_counters()
    counters[K.FOUND] = count
    cap = count if layout == "fixed" else 0
    counts = None if cap else K.fold_count(part, counters, block_len, nowners)
    want = K.fold_pack(part, counters, vw, block_len, nowners, cap, threshold,
                       None if cap else wire.PieceCounts(counts, counts))
    got = cp.asnumpy(gpu.kernels.fold_pack(gpart, cp.asarray(counters), vw, block_len, nowners, cap, threshold,
                                           None if cap else wire.PieceCounts(cp.asarray(counts), counts)))
    assert got.shape == want.shape

    def pieces(buffer):
        out, at = [], 0
        for k in range(nowners):
            if cap:
                size = wire.fixed_piece_words(cap, vw)
                piece = buffer[at:at + size]
                n, first, base = int(piece[0]), 2, 2 + wire.even(cap)
            else:
                n = int(counts[k])
                size = wire.counted_piece_words(n, block_len, vw)
                piece, first, base = buffer[at:at + size], 0, wire.even(n)
            out.append(dict(zip(piece[first:first + n].tolist(), piece[base:].view(dtype)[:n].tolist())))
            at += size
        return out
    assert pieces(got) == pieces(want)


@pytest.mark.parametrize("mode", ["dense", "compact", "scalar"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_assign_from_list_matches_twin(gpu, mode, dtype):
    rng = np.random.default_rng(5)
    length = 4096
    ids = rng.choice(length, 700, replace=False).astype(np.int32)
    words = K.bitmap_from_list(rng.choice(length, 300, replace=False).astype(np.int32), length)
    values = random_values(rng, dtype, length).astype(dtype)
    dense = random_values(rng, dtype, length).astype(dtype)
    compact = random_values(rng, dtype, ids.shape[0]).astype(dtype)
    kwargs = {"dense": {"src_dense": dense}, "compact": {"src_compact": compact},
              "scalar": {"scalar": np.dtype(dtype).type(-2.5)}}[mode]
    assign_twins_agree(gpu, ids, words, values, kwargs)


def test_every_instance_is_built_on_demand_not_ahead(gpu):
    """The searches' modules hold only their four instances; each valued one is a module of its
    own, built once per device and then found again."""
    from lagraph_dist.local.gpu_kernels import base
    assert len(base._INSTANCES) == 4
    semiring = INSTANCES[("first", "plus", "float64")]
    device = gpu.xp.cuda.Device().id
    held = base._module_holding(device, "push", "ld_push_spmspv", gpu.kernels._codes(semiring))
    assert all(held is not module for module in base.modules_ahead(device, "push"))
    assert held is base._module_holding(device, "push", "ld_push_spmspv", gpu.kernels._codes(semiring))
    pull = base._module_holding(device, "pull", "ld_pull_long_rows", gpu.kernels._codes(semiring))
    assert pull is base._module_holding(device, "pull", "ld_pull_rows", gpu.kernels._codes(semiring))
