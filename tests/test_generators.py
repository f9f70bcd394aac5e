"""Tests of lagraph_dist.io.generators: determinism across partitions, distributions, validation."""

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kronecker_reference
from lagraph_dist.io import generators
from lagraph_dist.local import cpu_kernels
from lagraph_dist.core.errors import DomainMismatch, InvalidValue

A, B, C = generators.GRAPH500_A, generators.GRAPH500_B, generators.GRAPH500_C
D = 1.0 - A - B - C


def _concat_parts(make, nparts):
    parts = [make(part=p, nparts=nparts) for p in range(nparts)]
    return np.concatenate([s for s, _ in parts]), np.concatenate([d for _, d in parts])


GENERATORS = {
    "kronecker": lambda **kw: generators.kronecker_edges(9, 5, seed=3, **kw),
    "uniform": lambda **kw: generators.uniform_edges(1000, 9973, seed=3, **kw),
    "grid": lambda **kw: generators.grid2d_edges(7, 11, **kw),
}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_parts_concatenate_to_the_same_graph(name):
    make = GENERATORS[name]
    whole_src, whole_dst = make()
    assert whole_src.dtype == np.int64 and whole_dst.dtype == np.int64
    for nparts in (2, 3, 5):
        src, dst = _concat_parts(make, nparts)
        np.testing.assert_array_equal(src, whole_src)
        np.testing.assert_array_equal(dst, whole_dst)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_part_sizes_follow_the_split_rule(name):
    make = GENERATORS[name]
    total = make()[0].shape[0]
    for part in range(5):
        expected = (part + 1) * total // 5 - part * total // 5
        assert make(part=part, nparts=5)[0].shape[0] == expected


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_repeat_calls_are_identical(name):
    first, second = GENERATORS[name](), GENERATORS[name]()
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])


@settings(max_examples=25, deadline=None)
@given(
    scale=st.integers(1, 8),
    edgefactor=st.integers(1, 5),
    seed=st.integers(0, 2**64 - 1),
    nparts=st.integers(1, 9),
)
def test_any_partition_matches_the_whole(scale, edgefactor, seed, nparts):
    def make(**kw):
        return generators.kronecker_edges(scale, edgefactor, seed=seed, **kw)

    whole, parts = make(), _concat_parts(make, nparts)
    np.testing.assert_array_equal(parts[0], whole[0])
    np.testing.assert_array_equal(parts[1], whole[1])


def test_chunk_boundaries_do_not_change_the_result(monkeypatch):
    expected = generators.kronecker_edges(8, 7, seed=11)
    expected_uniform = generators.uniform_edges(77, 1500, seed=11)
    monkeypatch.setattr(generators, "_CHUNK_HOST", 97)
    for got, want in zip(generators.kronecker_edges(8, 7, seed=11), expected):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(generators.uniform_edges(77, 1500, seed=11), expected_uniform):
        np.testing.assert_array_equal(got, want)


def test_seeds_give_different_graphs():
    s0, d0 = generators.kronecker_edges(10, seed=0)
    s1, d1 = generators.kronecker_edges(10, seed=1)
    assert np.mean(s0 == s1) < 0.05 and np.mean(d0 == d1) < 0.05
    u0, _ = generators.uniform_edges(10**6, 1000, seed=0)
    u1, _ = generators.uniform_edges(10**6, 1000, seed=1)
    assert np.mean(u0 == u1) < 0.01


def test_known_values_do_not_drift():
    # Pinned so that a change to the hash (which would change every stored benchmark) is noticed.
    src, dst = generators.kronecker_edges(12, 1, seed=0)
    assert src[:8].tolist() == [369, 3525, 275, 1552, 1346, 2329, 20, 3833]
    assert dst[:8].tolist() == [2097, 2786, 1147, 1387, 2813, 392, 3071, 2097]
    src, dst = generators.uniform_edges(1000, 8, seed=0)
    assert src.tolist() == [882, 144, 205, 472, 830, 882, 627, 931]
    assert dst.tolist() == [49, 674, 299, 645, 469, 479, 686, 503]


# --------------------------------------------------------------------------------------------
# Kronecker
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**64 - 1])
def test_vertex_permutation_is_a_bijection(seed):
    for scale in range(1, 17):
        keys = generators._permutation_keys(seed, scale)
        ids = np.arange(2**scale, dtype=np.uint64)
        image = kronecker_reference.permute_vertices(ids, scale, keys)
        np.testing.assert_array_equal(np.sort(image), ids)


def test_vertex_permutation_scrambles():
    scale = 12
    ids = np.arange(2**scale, dtype=np.uint64)
    image = kronecker_reference.permute_vertices(ids, scale, generators._permutation_keys(5, scale))
    assert np.mean(image == ids) < 0.01
    # Neighbouring ids land far apart: no long runs kept in order.
    assert np.mean(np.diff(image.astype(np.int64)) == 1) < 0.01


def test_kronecker_edge_count_and_range():
    for scale, edgefactor in [(1, 1), (5, 3), (10, 16)]:
        src, dst = generators.kronecker_edges(scale, edgefactor, seed=2)
        assert src.shape == dst.shape == (edgefactor * 2**scale,)
        assert src.min() >= 0 and dst.min() >= 0
        assert src.max() < 2**scale and dst.max() < 2**scale


def test_kronecker_uses_the_high_vertex_ids():
    src, dst = generators.kronecker_edges(16, 1, seed=9)
    assert max(src.max(), dst.max()) >= 2**16 - 2**10


def test_kronecker_degrees_are_skewed():
    scale = 12
    src, dst = generators.kronecker_edges(scale, seed=4)
    degree = np.bincount(np.concatenate([src, dst]), minlength=2**scale)
    assert degree.max() > 20 * degree.mean()
    assert np.mean(degree == 0) > 0.05  # R-MAT leaves many vertices isolated
    usrc, udst = generators.uniform_edges(2**scale, src.shape[0], seed=4)
    udegree = np.bincount(np.concatenate([usrc, udst]), minlength=2**scale)
    assert udegree.max() < 3 * udegree.mean()


def test_quadrant_frequencies_match_the_initiator():
    counter = np.arange(200_000, dtype=np.uint64)
    scale = 6
    src, dst = kronecker_reference.rmat_bits(scale, 21, counter)
    expected = np.array([A, B, C, D])
    for level in range(scale):  # every level, from both halves of each hash
        row = (src >> np.uint64(level)) & np.uint64(1)
        col = (dst >> np.uint64(level)) & np.uint64(1)
        freq = np.bincount((2 * row + col).astype(np.int64), minlength=4) / counter.shape[0]
        np.testing.assert_allclose(freq, expected, atol=0.005)


def test_quadrant_frequencies_through_the_public_api():
    # At scale 1 the permutation either keeps or swaps the two labels.
    src, dst = generators.kronecker_edges(1, 100_000, seed=8)
    freq = np.bincount(2 * src + dst, minlength=4) / src.shape[0]
    diagonal = sorted([freq[0], freq[3]])
    off = sorted([freq[1], freq[2]])
    np.testing.assert_allclose(diagonal, [D, A], atol=0.005)
    np.testing.assert_allclose(off, [B, C], atol=0.005)


def test_levels_are_independent():
    counter = np.arange(100_000, dtype=np.uint64)
    src, _ = kronecker_reference.rmat_bits(4, 0, counter)
    low = (src & np.uint64(1)).astype(bool)
    high = ((src >> np.uint64(1)) & np.uint64(1)).astype(bool)
    other = ((src >> np.uint64(2)) & np.uint64(1)).astype(bool)
    p = C + D
    for bit in (high, other):
        assert abs(np.mean(low & bit) - p * p) < 0.005


# --------------------------------------------------------------------------------------------
# uniform and grid
# --------------------------------------------------------------------------------------------


def test_uniform_range_and_spread():
    n = 50
    src, dst = generators.uniform_edges(n, 100_000, seed=6)
    assert src.shape == dst.shape == (100_000,)
    for ends in (src, dst):
        assert ends.min() == 0 and ends.max() == n - 1
        counts = np.bincount(ends, minlength=n)
        assert np.all(np.abs(counts - 2000) < 250)  # about 5.6 standard deviations
    assert abs(np.corrcoef(src, dst)[0, 1]) < 0.02


def test_uniform_empty_and_single_vertex():
    src, dst = generators.uniform_edges(5, 0)
    assert src.shape == dst.shape == (0,) and src.dtype == np.int64
    src, dst = generators.uniform_edges(1, 10)
    assert src.tolist() == [0] * 10 and dst.tolist() == [0] * 10


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 6), (6, 1), (4, 7), (30, 30)])
def test_grid_structure(rows, cols):
    src, dst = generators.grid2d_edges(rows, cols)
    assert src.shape[0] == rows * (cols - 1) + (rows - 1) * cols
    step = dst - src
    right = step == 1
    assert np.all(right | (step == cols))
    if cols > 1:
        assert np.all(src[right] % cols != cols - 1)  # right edges never wrap to the next row
    assert src.min(initial=0) >= 0 and dst.max(initial=0) < rows * cols
    keys = src * rows * cols + dst
    assert np.unique(keys).shape[0] == keys.shape[0]


def test_grid_is_connected():
    rows, cols = 9, 13
    src, dst = generators.grid2d_edges(rows, cols)
    parent = np.arange(rows * cols)

    def find(v):
        while parent[v] != v:
            v = parent[v]
        return v

    for s, d in zip(src.tolist(), dst.tolist()):
        parent[find(s)] = find(d)
    assert len({find(v) for v in range(rows * cols)}) == 1


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: generators.kronecker_edges(0), InvalidValue, "scale"),
        (lambda: generators.kronecker_edges(41), InvalidValue, "41"),
        (lambda: generators.kronecker_edges(2.0), DomainMismatch, "scale"),
        (lambda: generators.kronecker_edges(True), DomainMismatch, "scale"),
        (lambda: generators.kronecker_edges("3"), DomainMismatch, "scale"),
        (lambda: generators.kronecker_edges(4, 0), InvalidValue, "edgefactor"),
        (lambda: generators.kronecker_edges(4, 1.5), DomainMismatch, "edgefactor"),
        (lambda: generators.kronecker_edges(40, 2**23), InvalidValue, "int64"),
        (lambda: generators.kronecker_edges(4, seed=-1), InvalidValue, "seed"),
        (lambda: generators.kronecker_edges(4, seed=2**64), InvalidValue, "seed"),
        (lambda: generators.kronecker_edges(4, part=2, nparts=2), InvalidValue, "part"),
        (lambda: generators.kronecker_edges(4, part=-1, nparts=2), InvalidValue, "part"),
        (lambda: generators.kronecker_edges(4, nparts=0), InvalidValue, "nparts"),
        (lambda: generators.kronecker_edges(4, part=0.0), DomainMismatch, "part"),
        (lambda: generators.uniform_edges(0, 5), InvalidValue, "n "),
        (lambda: generators.uniform_edges(5, -1), InvalidValue, "nedges"),
        (lambda: generators.uniform_edges(5.0, 1), DomainMismatch, "n "),
        (lambda: generators.grid2d_edges(0, 3), InvalidValue, "rows"),
        (lambda: generators.grid2d_edges(3, -2), InvalidValue, "cols"),
        (lambda: generators.grid2d_edges(2**32, 2**32), InvalidValue, "int64"),
        (lambda: generators.grid2d_edges(3, 3, part=3, nparts=3), InvalidValue, "part"),
    ],
)
def test_bad_arguments(call, error, words):
    with pytest.raises(error, match=None) as info:
        call()
    assert words in str(info.value)


def test_numpy_integer_arguments_are_accepted():
    src, _ = generators.kronecker_edges(np.int32(5), np.int64(2), seed=np.uint64(3), part=np.int8(0))
    assert src.shape == (64,)


def test_knn_edges_join_each_point_to_its_nearest():
    """Each point's k out-edges go to its k nearest other points (checked by brute force over
    the same coordinates), no self-loop, and the graph is the same on every call."""
    n, k = 300, 3
    src, dst = generators.knn_edges(n, k, seed=4)
    assert src.dtype == dst.dtype == np.int64 and src.shape == dst.shape == (n * k,)
    np.testing.assert_array_equal(src, np.repeat(np.arange(n), k))
    assert (src != dst).all()
    again = generators.knn_edges(n, k, seed=4)
    np.testing.assert_array_equal(dst, again[1])
    assert not np.array_equal(dst, generators.knn_edges(n, k, seed=5)[1])
    counter = np.arange(n, dtype=np.uint64)
    points = np.stack([(generators._hash64(np, 4, stream, counter) >> np.uint64(11)) / float(1 << 53)
                       for stream in (generators._STREAM_POINT_X, generators._STREAM_POINT_Y)], axis=1)
    distance = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    np.fill_diagonal(distance, np.inf)
    nearest = np.sort(distance, axis=1)[:, :k]
    chosen = np.sort(distance[src, dst].reshape(n, k), axis=1)
    np.testing.assert_allclose(chosen, nearest)


@pytest.mark.parametrize("n, k, error", [(3, 3, InvalidValue), (10, 0, InvalidValue), (10.0, 3, DomainMismatch),
                                         (10, True, DomainMismatch), (10, 3, None)])
def test_knn_edges_checks_its_arguments(n, k, error):
    if error is None:
        assert generators.knn_edges(n, k)[0].shape == (n * k,)
    else:
        with pytest.raises(error):
            generators.knn_edges(n, k)


# kernels/kronecker.cuh (the GPU's generator) built for the host with nvcc, against the numpy one.
HOST_HARNESS = r"""
#include <cstdio>
#include "kronecker.cuh"
int main() {
    int scale, rounds;
    long long first, count;
    while (scanf("%d %lld %lld", &scale, &first, &count) == 3) {
        ld_gen_u64 level_keys[32], thresholds[3], keys[32];
        for (int m = 0; m < (scale + 1) / 2; ++m) scanf("%llu", &level_keys[m]);
        for (int t = 0; t < 3; ++t) scanf("%llu", &thresholds[t]);
        scanf("%d", &rounds);
        for (int k = 0; k < 2 * rounds; ++k) scanf("%llu", &keys[k]);
        for (long long i = 0; i < count; ++i) {
            long long src, dst;
            ld_kronecker_edge((ld_gen_u64)(first + i), scale, level_keys, thresholds, keys, rounds, &src, &dst);
            printf("%lld %lld\n", src, dst);
        }
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_the_device_generator_built_for_the_host_makes_the_reference_edges(tmp_path):
    """The device generator's arithmetic (one edge a call), compiled for the host, gives the
    numpy reference's edges for odd and even scales, the extreme seeds, and counters past 2^32."""
    from importlib import resources
    cases = [(1, 0, 0, 64), (9, 3, 0, 700), (20, 2**64 - 1, 10**6, 500), (27, 12345, 2**33 + 7, 300),
             (40, 7, 2**40, 200)]
    lines = []
    for scale, seed, first, count in cases:
        level_keys, thresholds, permute_keys = generators.kronecker_plan(scale, seed)
        lines += [f"{scale} {first} {count}", " ".join(map(str, level_keys.tolist())),
                  " ".join(map(str, thresholds.tolist())),
                  f"{permute_keys.shape[0] // 2} " + " ".join(map(str, permute_keys.tolist()))]
    source = tmp_path / "harness.cu"
    source.write_text(HOST_HARNESS)
    with resources.as_file(resources.files("lagraph_dist.kernels")) as folder:
        built = subprocess.run(["nvcc", "-std=c++17", f"-I{folder}", str(source), "-o", str(tmp_path / "harness")],
                               capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(tmp_path / "harness")], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    got = np.array(ran.stdout.split(), dtype=np.int64).reshape(-1, 2)
    at = 0
    for scale, seed, first, count in cases:
        expected_src, expected_dst = kronecker_reference.kronecker_edges(scale, seed, first, count)
        np.testing.assert_array_equal(got[at:at + count, 0], expected_src, err_msg=f"scale {scale} seed {seed}")
        np.testing.assert_array_equal(got[at:at + count, 1], expected_dst, err_msg=f"scale {scale} seed {seed}")
        at += count
    assert at == got.shape[0]


@pytest.mark.parametrize("scale, seed, first, count", [(1, 0, 0, 64), (9, 3, 0, 70_000), (20, 2**64 - 1, 10**6, 5000),
                                                       (27, 12345, 2**33 + 7, 300), (40, 7, 2**40, 200)])
def test_the_cpu_generator_makes_the_reference_edges(scale, seed, first, count):
    """The CPU's compiled generator (split among its threads past a few thousand edges) gives the
    numpy reference's edges: odd and even scales, the extreme seeds, counters past 2^32."""
    got = cpu_kernels.kronecker_edges(first, count, scale, *generators.kronecker_plan(scale, seed))
    for g, e in zip(got, kronecker_reference.kronecker_edges(scale, seed, first, count)):
        np.testing.assert_array_equal(g, e)


def test_kronecker_edges_are_the_reference_edges_part_by_part():
    """The public generator's parts are the reference's edge ranges."""
    scale, edgefactor, seed = 10, 5, 77
    total = edgefactor << scale
    for part in range(3):
        lo, hi = part * total // 3, (part + 1) * total // 3
        got = generators.kronecker_edges(scale, edgefactor, seed=seed, part=part, nparts=3)
        for g, e in zip(got, kronecker_reference.kronecker_edges(scale, seed, lo, hi - lo)):
            np.testing.assert_array_equal(g, e)
