"""The CUDA kernels against their numpy twins (lagraph_dist.cpu_kernels) on random inputs."""
import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist import cpu_kernels
from lagraph_dist.grid import IdMap
from lagraph_dist.local import LocalCSR
from lagraph_dist.semirings import semirings

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")]

SEMIRINGS = ["any_pair", "lor_land", "any_secondi", "min_secondi"]
MASKS = ["none", "keep", "complement"]


@pytest.fixture(scope="module")
def gpu():
    return ld.get_backend("gpu")


def random_csr(rng, nmajor, nminor, density, hub=True):
    dense = rng.random((nmajor, nminor)) < density
    if hub:                                   # one long row/column so the warp paths run
        dense[nmajor // 2, :] = rng.random(nminor) < 0.9
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(nmajor + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=nmajor), out=indptr[1:])
    return LocalCSR(indptr, cols.astype(np.int32), nminor)


def to_gpu(csr, cp):
    return LocalCSR(cp.asarray(csr.indptr), cp.asarray(csr.indices), csr.nminor)


def mask_of(rng, length, kind):
    if kind == "none":
        return None, False
    return cpu_kernels.bitmap_from_list(np.flatnonzero(rng.random(length) < 0.5).astype(np.int32), length), \
        kind == "complement"


def as_dict(part, backend):
    part = part.to_list(backend)
    return dict(zip(backend.to_host(part.ids).tolist(), backend.to_host(part.values).tolist()))


def assert_same(cpu_part, gpu_part, gpu, semiring, valid_value):
    expected = as_dict(cpu_part, ld.get_backend("cpu"))
    got = as_dict(gpu_part, gpu)
    assert set(got) == set(expected)
    assert gpu_part.nvals == len(expected)
    for k, value in got.items():
        if semiring.add.kind == "any" and semiring.multiply.positional:
            assert valid_value(k, value), f"entry {k}: {value} is not a valid source"
        else:
            assert value == expected[k], f"entry {k}"


def run_twins(kernel, gpu, csr, frontier, values, semiring, mask, complement, in_map):
    """The numpy twin and the CUDA kernel of the same name on the same inputs."""
    cp = gpu.xp
    on_gpu = (lambda a: None if a is None else cp.asarray(a))
    twin = getattr(cpu_kernels, kernel)(csr, frontier, values, semiring, mask, complement, in_map)
    cuda = getattr(gpu.kernels, kernel)(to_gpu(csr, cp), on_gpu(frontier), on_gpu(values), semiring,
                                        on_gpu(mask), complement, in_map)
    return twin, cuda


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_push_matches_twin(gpu, name, mask_kind, seed):
    rng = np.random.default_rng(seed)
    semiring = getattr(semirings, name)
    csr = random_csr(rng, 320, 352, 0.03)            # majors: input space, minors: output space
    frontier = np.sort(rng.choice(320, 60, replace=False)).astype(np.int32)
    values = rng.random(60) < 0.7 if semiring.reads_left_values else None
    mask, complement = mask_of(rng, 352, mask_kind)
    in_map = IdMap(32, 64, 7)
    (cpu_part, cpu_examined), (gpu_part, gpu_examined) = run_twins(
        "push_spmspv", gpu, csr, frontier, values, semiring, mask, complement, in_map)
    assert gpu_examined == cpu_examined

    def valid(v, parent):
        sources = in_map.to_global(frontier.astype(np.int64))
        return any(parent == g and v in csr.indices[csr.indptr[u]:csr.indptr[u + 1]]
                   for u, g in zip(frontier, sources))
    assert_same(cpu_part, gpu_part, gpu, semiring, valid)


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pull_matches_twin(gpu, name, mask_kind, seed):
    rng = np.random.default_rng(seed)
    semiring = getattr(semirings, name)
    csr = random_csr(rng, 352, 320, 0.05)            # majors: output rows, minors: input space
    frontier = cpu_kernels.bitmap_from_list(np.flatnonzero(rng.random(320) < 0.2).astype(np.int32), 320)
    values = rng.random(320) < 0.5 if semiring.reads_left_values else None
    mask, complement = mask_of(rng, 352, mask_kind)
    in_map = IdMap(32, 96, 32)
    (cpu_part, _), (gpu_part, _) = run_twins(
        "pull_spmv", gpu, csr, frontier, values, semiring, mask, complement, in_map)

    def valid(row, parent):
        cols = csr.indices[csr.indptr[row]:csr.indptr[row + 1]]
        hits = cols[cpu_kernels.bitmap_test(frontier, cols)]
        return parent in in_map.to_global(hits.astype(np.int64)).tolist()
    assert_same(cpu_part, gpu_part, gpu, semiring, valid)


@pytest.mark.parametrize("length,density", [(32, 0.5), (4096, 0.01), (4096, 0.9), (1 << 16, 0.001), (1 << 16, 0.0)])
def test_bitmap_kernels_match_twins(gpu, length, density):
    cp = gpu.xp
    rng = np.random.default_rng(length)
    ids = np.flatnonzero(rng.random(length) < density).astype(np.int32)
    words = cpu_kernels.bitmap_from_list(ids, length)
    gpu_words = gpu.kernels.bitmap_from_list(cp.asarray(ids), length)
    np.testing.assert_array_equal(cp.asnumpy(gpu_words), words)
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.list_from_bitmap(gpu_words, len(ids))), ids)
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.list_from_bitmap(gpu_words)), ids)
    assert gpu.kernels.popcount(gpu_words) == cpu_kernels.popcount(words) == len(ids)
    probe = rng.integers(0, length, 500).astype(np.int32)
    np.testing.assert_array_equal(cp.asnumpy(gpu.kernels.bitmap_test(gpu_words, cp.asarray(probe))),
                                  cpu_kernels.bitmap_test(words, probe))


def test_gpu_kronecker_equals_cpu():
    A_gpu = ld.kronecker(10, seed=5, backend="gpu")
    A_cpu = ld.kronecker(10, seed=5, backend="cpu")
    assert (A_gpu.to_scipy() != A_cpu.to_scipy()).nnz == 0


def test_graph_too_big_fails_before_allocating():
    with pytest.raises(ld.OutOfDeviceMemory, match="GiB"):
        ld.kronecker(36, backend="gpu")
