"""The GPU's fused sweeps of betweenness (kernels/dependencies.cu) against their CPU twin
(cpu_kernels.path_dependencies) on the same graphs and levels: dependencies to 1e-12
relative, each search's reached count and the edges read exactly; a warp a row and a block a
long row; several words a group and one word a group; endpoints; repeated sources; a path
deeper than 255 levels; too little memory refused before anything runs. Betweenness itself on
the GPU against networkx is in test_centrality.py (its backend parameter)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.algebra.trace import product_trace
from lagraph_dist.local import cpu_kernels
from lagraph_dist.local.parts import LocalCSR

from helpers import edge_graphs, edges_to_scipy

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not ld.gpu_available(), reason="no CUDA device")]


def csrs(S):
    """(out-edges, in-edges) LocalCSRs of a scipy pattern (int32 ids, as the engine's blocks)."""
    made = []
    for M in (S.tocsr(), S.T.tocsr()):
        M.sort_indices()
        made.append(LocalCSR(M.indptr.astype(np.int64), M.indices.astype(np.int32), M.shape[1]))
    return made


def on_device(csr):
    import cupy as cp
    return LocalCSR(cp.asarray(csr.indptr), cp.asarray(csr.indices), csr.nminor)


def twins_agree(S, sources, endpoints=False):
    """Both kernel sets' sweeps of the searches from ``sources`` over the pattern S."""
    A = ld.Matrix.from_scipy(S, backend="cpu")
    levels_agree(S, ld.bfs_multi(A, sources, parents=False, batch_size=512).levels.blocks[0], endpoints)


def levels_agree(S, levels, endpoints):
    """Both kernel sets' sweeps of the searches whose (rows, k) int32 ``levels`` are given."""
    import cupy as cp
    n = S.shape[0]
    out_csr, in_csr = csrs(S)
    want = cpu_kernels.path_dependencies(out_csr, in_csr, levels, endpoints=endpoints)
    gpu = ld.get_backend("gpu").kernels
    found, reached, examined = gpu.path_dependencies(on_device(out_csr), on_device(in_csr), cp.asarray(levels),
                                                     endpoints=endpoints)
    np.testing.assert_allclose(cp.asnumpy(found)[:n], want[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(reached, want[1])
    assert examined == want[2]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), endpoints=st.booleans(), data=st.data())
def test_random_graphs(graph, endpoints, data):
    src, dst, n, symmetrize, _ = graph
    S = edges_to_scipy(src, dst, n, symmetrize=symmetrize)
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=130))     # repeats allowed
    twins_agree(S, sources, endpoints)


def mixed_graph(directed):
    """A 300-vertex path (depths past 255), a hub with 3,000 leaves (a long row) and random edges."""
    rng = np.random.default_rng(5)
    src = np.concatenate([np.arange(299), np.full(3000, 300), rng.integers(300, 3400, 2000)])
    dst = np.concatenate([np.arange(1, 300), np.arange(301, 3301), rng.integers(300, 3400, 2000)])
    return edges_to_scipy(src, dst, 3400, symmetrize=not directed)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("endpoints", [False, True])
def test_long_rows_and_deep_paths_in_several_words(directed, endpoints):
    sources = np.concatenate([[0, 150, 299, 300], np.random.default_rng(1).choice(np.arange(301, 3400), 146)])
    twins_agree(mixed_graph(directed), sources, endpoints)


def test_every_row_a_block(monkeypatch):
    """With the long-row threshold at 2 edges, nearly every row is summed by a block."""
    from lagraph_dist.local.gpu_kernels import dependencies
    monkeypatch.setattr(dependencies, "SWEEP_HEAVY_EDGES", 2)
    twins_agree(mixed_graph(False), np.arange(0, 3400, 23), endpoints=True)


@pytest.mark.parametrize("thread_work", [0, 10 ** 9], ids=["a warp a slot", "a thread a slot"])
def test_every_slot_by_one_path(monkeypatch, thread_work):
    """Every slot summed by a warp, or (the long rows apart) by its own thread."""
    from lagraph_dist.local.gpu_kernels import dependencies
    monkeypatch.setattr(dependencies, "SWEEP_THREAD_WORK", thread_work)
    twins_agree(mixed_graph(True), np.arange(0, 3400, 17), endpoints=True)


def test_more_searches_than_a_group_holds():
    """A block of 2,100 searches (five batches' levels side by side) runs as groups of at most
    SWEEP_GROUP_WORDS words."""
    S = mixed_graph(False)
    sources = np.random.default_rng(2).choice(3400, 2100, replace=False)
    blocks = ld.bfs_multi(ld.Matrix.from_scipy(S, backend="cpu"), sources, parents=False, batch_size=512).levels.blocks
    levels_agree(S, np.hstack(blocks), endpoints=True)


def test_a_word_a_group(monkeypatch):
    """Memory for one word at a time: three groups of 64, 64 and 22 searches."""
    from lagraph_dist.local.gpu_kernels import dependencies
    S = mixed_graph(True)
    gpu = ld.get_backend("gpu").kernels
    free = gpu.free_device_bytes()[0]
    one_word = dependencies.sweep_bytes_per_word(S.shape[0], 320)
    monkeypatch.setattr(dependencies, "SWEEP_MEMORY_SHARE", 1.5 * one_word / free)
    twins_agree(S, np.arange(0, 3000, 20))


def test_too_little_memory_is_refused_before_anything_runs(monkeypatch):
    import cupy as cp
    from lagraph_dist.local.gpu_kernels import dependencies
    monkeypatch.setattr(dependencies, "SWEEP_MEMORY_SHARE", 1e-15)
    S = mixed_graph(False)
    A = ld.Matrix.from_scipy(S, backend="cpu")
    levels = ld.bfs_multi(A, [0, 1], parents=False).levels.blocks[0]
    out_csr, in_csr = csrs(S)
    gpu = ld.get_backend("gpu").kernels
    launched = gpu.launches
    with pytest.raises(ld.OutOfDeviceMemory, match="fused sweeps need about .* a word of 64 searches"):
        gpu.path_dependencies(on_device(out_csr), on_device(in_csr), cp.asarray(levels), endpoints=False)
    assert gpu.launches == launched


def test_betweenness_on_the_gpu_batches_2048_searches():
    """The GPU's betweenness gives the sweeps 2,048 searches at a time (the levels of four fused
    multi-source runs of 512 side by side), and equals the CPU's."""
    S = mixed_graph(False)
    cpu = ld.betweenness_centrality(ld.Matrix.from_scipy(S, backend="cpu"), k=2100, seed=3).to_numpy()
    with product_trace() as records:
        gpu = ld.betweenness_centrality(ld.Matrix.from_scipy(S, backend="gpu"), k=2100, seed=3).to_numpy()
    np.testing.assert_allclose(gpu, cpu, rtol=1e-9, atol=1e-15)
    sweeps = [record for record in records if record["op"] == "sweeps"]
    assert [record["frontier"] for record in sweeps] == [2048, 52]
    assert all(record["launches"] > 0 and record["host_reads"] >= 3 for record in sweeps)
