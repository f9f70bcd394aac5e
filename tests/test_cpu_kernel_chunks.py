"""The CPU product kernels cut into chunks give the one-core result (entries, values, counters),
for every semiring and mask, on frontiers wide enough to cut: the push's chunked claims (its one
core path takes every frontier below PARALLEL_WORK edges, so the brute-force tests in
test_kernels_cpu.py reach its chunks only here) and the pull's word chunks; a long output array
is reused by the next product only when nothing holds it."""
import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.comm.grid import IdMap
from lagraph_dist.local.cpu_kernels import pull, push
from lagraph_dist.local.cpu_kernels.common import left_values
from lagraph_dist.local.parts import LocalCSR
from lagraph_dist.semirings import semirings

ld.get_backend("cpu")


def random_csr(rng, nmajor, nminor, density):
    dense = rng.random((nmajor, nminor)) < density
    dense[rng.integers(0, nmajor)] = rng.random(nminor) < 0.5            # a hub row
    rows, cols = np.nonzero(dense)
    indptr = np.zeros(nmajor + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=nmajor), out=indptr[1:])
    return LocalCSR(indptr, cols.astype(np.int32), nminor)


def mask_of(rng, length, kind):
    if kind == "none":
        return None, False
    return np.packbits(rng.random(length) < 0.5, bitorder="little").view(np.uint32), kind == "complement"


def entries(words, out, ids):
    return {int(v): out[v].item() for v in ids}, words


@pytest.mark.parametrize("semiring", list(semirings), ids=lambda s: s.name)
@pytest.mark.parametrize("mask_kind", ["none", "keep", "complement"])
@pytest.mark.parametrize("seed", [0, 1])
def test_push_chunks_are_the_one_core_push(semiring, mask_kind, seed):
    rng = np.random.default_rng(seed)
    csr = random_csr(rng, 600, 1024, 0.05)
    frontier = rng.permutation(600)[:400].astype(np.int32)
    left = left_values(rng.random(400) < 0.6, semiring)
    mask, complement = mask_of(rng, 1024, mask_kind)
    degrees = rng.integers(0, 50, 1024).astype(np.int64)
    in_map = IdMap(64, 96, 5)
    results = [push._push(csr, frontier, left, semiring, mask, complement, in_map, nchunks, degrees)
               for nchunks in (1, 2, 3, 7)]
    assert_chunkings_agree([(words, out, ids, examined, edges) for words, out, examined, ids, edges in results])


@pytest.mark.parametrize("semiring", list(semirings), ids=lambda s: s.name)
@pytest.mark.parametrize("mask_kind", ["none", "keep", "complement"])
def test_pull_chunks_are_the_one_core_pull(semiring, mask_kind):
    rng = np.random.default_rng(4)
    csr = random_csr(rng, 1000, 600, 0.01)                  # rows: outputs, some without inputs
    frontier = np.packbits(rng.random(608) < 0.3, bitorder="little").view(np.uint32)
    left = left_values(rng.random(600) < 0.5, semiring)
    mask, complement = mask_of(rng, 1024, mask_kind)
    degrees = rng.integers(0, 50, 1024).astype(np.int64)
    in_map = IdMap(64, 64, 0)
    results = [pull._pull(csr, frontier, left, semiring, mask, complement, in_map, degrees, nchunks)
               for nchunks in (1, 2, 5, 40)]
    assert_chunkings_agree(results)


def test_a_long_output_array_is_reused_only_when_nobody_holds_it():
    from lagraph_dist.local.cpu_kernels.common import REUSED_SLOTS, reused_empty
    kept = {}
    first = reused_empty(kept, "out", REUSED_SLOTS, np.int64)
    held = first[:10]                                   # a view holds it too
    second = reused_empty(kept, "out", REUSED_SLOTS, np.int64)
    assert second is not first and held.base is first
    assert reused_empty(kept, "out", REUSED_SLOTS, np.int64) is not second      # held here
    address = kept["out"].ctypes.data
    del first, held, second
    assert reused_empty(kept, "out", REUSED_SLOTS, np.int64).ctypes.data == address
    assert reused_empty(kept, "out", REUSED_SLOTS, np.bool_).dtype == np.bool_
    short = {}
    assert reused_empty(short, "out", 10, np.int64).shape == (10,) and not short


def assert_chunkings_agree(results):
    """Every chunking's (words, values, ids, examined, edges) is the one-chunk run's: the same
    bits, the same increasing nonempty list, counts and values at the found entries."""
    words, out, ids, examined, edges = results[0]
    assert np.all(np.diff(ids) > 0) and ids.shape[0] > 0
    for other in results[1:]:
        np.testing.assert_array_equal(other[0], words)
        np.testing.assert_array_equal(other[2], ids)
        assert other[3] == examined and other[4] == edges
        assert out[ids].tolist() == other[1][ids].tolist()
