"""benchmarks/level_floor.py: its kernels compile with nvcc (CI, no GPU); its meshes and
distances agree with networkx's; its bands group measured levels as named; on a GPU every
variant's search of small meshes and a path passes the script's own check, and the check
rejects a search with a wrong parent or a wrong level size."""
import shutil
import subprocess
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import lagraph_dist as ld
from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
floor = load_script(ROOT / "benchmarks" / "level_floor.py")
NVCC = shutil.which("nvcc")
needs_gpu = pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")


@pytest.mark.skipif(NVCC is None, reason="nvcc not on PATH")
def test_floor_kernels_compile(tmp_path):
    source = tmp_path / "floor.cu"
    signature = "(const int*, const int*, unsigned*, int*, int*, unsigned*, long long*, int, int, u64*, unsigned*)"
    source.write_text(floor.SOURCE + "".join(f"\ntemplate __global__ void {kernel}<{rule}>{signature};"
                                             for rule in ("false", "true")
                                             for kernel in ("queue_levels", "block_levels", "cluster_levels")))
    for size in floor.CLUSTER_SIZES:
        # to PTX: the compiler's checks of the probe's code, without the assembler's time
        done = subprocess.run([NVCC, "-std=c++17", "-arch=compute_90", f"-DLF_CLUSTER={size}", "-ptx", str(source),
                               "-o", str(tmp_path / "floor.ptx")], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("rows, cols", [(1, 7), (3, 4), (6, 5)])
def test_mesh_and_distances_match_networkx(rows, cols):
    A, src, dst, distance = floor.mesh(rows, cols)
    G = nx.grid_2d_graph(rows, cols)
    expected = nx.single_source_shortest_path_length(G, (0, 0))
    assert A.nnz == 2 * G.number_of_edges() and len(src) == G.number_of_edges()
    assert all(distance[r * cols + c] == d for (r, c), d in expected.items())


def test_bands_group_levels_by_frontier_size():
    sizes = [1, 64, 65, 256, 257, 512, 513, 4000]
    seconds = [1e-6, 3e-6, 2e-6, 2e-6, 5e-6, 7e-6, 1e-6, 3e-6]
    assert floor.banded(sizes, seconds) == {
        "1-64": {"levels": 2, "mean_us": pytest.approx(2.0)}, "65-256": {"levels": 2, "mean_us": pytest.approx(2.0)},
        "257-512": {"levels": 2, "mean_us": pytest.approx(6.0)}, "513+": {"levels": 2, "mean_us": pytest.approx(2.0)}}
    assert floor.banded([3], [1e-6]) == {"1-64": {"levels": 1, "mean_us": pytest.approx(1.0)}}


@pytest.fixture(scope="module")
def device():
    import cupy as cp
    module = cp.RawModule(code=floor.SOURCE, options=("-std=c++17",),
                          name_expressions=list(floor.KERNELS.values()) + [floor.SMALL_KERNEL["block"]],
                          enable_cooperative_groups=True)
    return cp, module


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("rows, cols", [(1, 300), (40, 40), (17, 90)])
@pytest.mark.parametrize("spread", [0, 1])
def test_block_and_cluster_levels_search_like_scipy(device, spread, rows, cols):
    cp, module = device
    A, _, _, distance = floor.mesh(rows, cols)
    search = floor.FloorSearch(cp, module, A, distance)
    launches = list(floor.small_launches(cp, module))
    assert [(name, variant) for name, variant, *_ in launches] == [("block", "rule")] + [
        (f"cluster of {c}", variant) for c in floor.CLUSTER_SIZES for variant in ("rule", "inbox")]
    for name, variant, function, blocks, shared in launches:
        for threads in floor.SMALL_THREADS:
            search.launch(variant, blocks, threads, spread, function, shared)
            search.check(variant)
            sizes, seconds = search.rounds()
            assert np.array_equal(sizes, np.bincount(distance)), name
            assert (seconds > 0).all(), name


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("rows, cols", [(1, 300), (40, 40), (17, 90)])
@pytest.mark.parametrize("variant", list(floor.KERNELS))
@pytest.mark.parametrize("spread", [0, 1])
@pytest.mark.parametrize("threads", [128, 512])
def test_every_variant_searches_like_scipy(device, variant, spread, threads, rows, cols):
    cp, module = device
    A, _, _, distance = floor.mesh(rows, cols)
    search = floor.FloorSearch(cp, module, A, distance)
    search.launch(variant, 4, threads, spread)
    search.check(variant)
    sizes, seconds = search.rounds()
    expected = np.bincount(distance)
    if variant == "two-hop":          # a round's entries: depth L's vertices and any since lowered
        assert len(sizes) in (len(expected[::2]), len(expected[::2]) + 1)
        assert (sizes[: len(expected[::2])] >= expected[::2]).all()
    else:
        assert np.array_equal(sizes, expected)
    assert (seconds > 0).all()


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("size", [2, 16])
def test_check_rejects_an_overflowed_inbox(device, size):
    cp, module = device
    A, _, _, distance = floor.mesh(30, 30)
    search = floor.FloorSearch(cp, module, A, distance)
    name, variant, function, blocks, shared = next(launch for launch in floor.small_launches(cp, module)
                                                   if launch[:2] == (f"cluster of {size}", "inbox"))
    search.launch(variant, blocks, 256, 0, function, shared)
    search.check(variant)
    search.overflow[0] = 1
    with pytest.raises(AssertionError, match="overflowed"):
        search.check(variant)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("variant", ["bare", "two-hop"])
def test_check_rejects_a_wrong_search(device, variant):
    cp, module = device
    A, _, _, distance = floor.mesh(20, 20)
    search = floor.FloorSearch(cp, module, A, distance)
    search.launch(variant, 4, 128, 0)
    if variant == "two-hop":
        search.word[399] = cp.uint64((int(distance[399]) << 32) | 0)       # vertex 0 is no neighbour of 399
    else:
        search.parent[399] = 0
    with pytest.raises(AssertionError, match="parent"):
        search.check(variant)
    if variant == "bare":
        search.parent[399] = 398
        search.sizes[5] += 1
        with pytest.raises(AssertionError, match="sizes"):
            search.check(variant)
