"""ld.betweenness_centrality against networkx.betweenness_centrality (to 1e-9 relative): every
scaling (normalized or not, endpoints or not, all sources, k sampled with a seed, given
sources), on small hand graphs, directed and undirected graphs with self-loops, duplicate edges
and several components, deep ones (a path, a mesh), a Kronecker graph and hypothesis's random
graphs; bad input; the batched sweeps (one CPU process) against the products a source and the
graphblas reference; and on 2 x 2 and 2 x 3 grids under mpiexec (tests/mpi/check_centrality.py),
where the sweeps run as products a source."""
import random
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagraph_dist as ld
from lagraph_dist.algebra.multi import path_dependencies
from lagraph_dist.algorithms import centrality
from lagraph_dist.comm.transport import TRANSPORT_ENV
from helpers import BACKENDS, edge_graphs, needs_mpi, run_mpi

HERE = Path(__file__).resolve().parent
SCALINGS = [{}, {"normalized": False}, {"endpoints": True}, {"normalized": False, "endpoints": True}]


def networkx_graph(src, dst, n, directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(np.asarray(src).tolist(), np.asarray(dst).tolist()))
    return G


def check(src, dst, n, directed, backend="cpu", **kwargs):
    """Ours equals networkx's for every vertex (NaN where networkx gives NaN)."""
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=not directed, backend=backend)
    G = networkx_graph(src, dst, n, directed)
    nx_kwargs = {key: value for key, value in kwargs.items() if key != "sources"}
    if "sources" in kwargs:      # networkx has no such argument: its sample is what we pass
        want = _networkx_from_sources(G, kwargs["sources"], **nx_kwargs)
    else:
        want = nx.betweenness_centrality(G, **nx_kwargs)
    got = ld.betweenness_centrality(A, **kwargs)
    assert got.dtype == np.float64 and got.nvals == n
    expected = np.array([want[v] for v in range(n)])
    np.testing.assert_allclose(got.to_numpy(fill=np.inf), expected, rtol=1e-9, atol=1e-12, equal_nan=True)


def _networkx_from_sources(G, sources, **kwargs):
    """networkx with its sample replaced by ``sources`` (its sampler returns them)."""
    class Given(random.Random):
        def sample(self, population, k, *, counts=None):
            assert k == len(sources)
            return list(sources)
    return nx.betweenness_centrality(G, k=len(sources), seed=Given(), **kwargs)


HAND = {
    "path": ([0, 1, 2, 3], [1, 2, 3, 4], 5),
    "star": ([0, 0, 0, 0], [1, 2, 3, 4], 5),
    "diamond": ([0, 0, 1, 2], [1, 2, 3, 3], 4),
    "two components and an isolated vertex": ([0, 1, 3, 4], [1, 2, 4, 5], 7),
    "self-loops and duplicates": ([0, 0, 1, 1, 2, 2, 2], [0, 1, 1, 2, 3, 3, 0], 4),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(HAND))
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("scaling", SCALINGS, ids=str)
def test_hand_graphs(backend, name, directed, scaling):
    src, dst, n = HAND[name]
    check(src, dst, n, directed, backend, **scaling)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("scaling", SCALINGS, ids=str)
@pytest.mark.parametrize("k, seed", [(1, 0), (7, 3), (40, 1)])
def test_sampled_sources(backend, directed, scaling, k, seed):
    rng = np.random.default_rng(k)
    src, dst = rng.integers(0, 40, 90), rng.integers(0, 40, 90)
    check(src, dst, 40, directed, backend, k=k, seed=seed, **scaling)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("scaling", SCALINGS, ids=str)
def test_given_sources(directed, scaling):
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 30, 70), rng.integers(0, 30, 70)
    check(src, dst, 30, directed, sources=[3, 17, 0, 29], **scaling)


@pytest.mark.parametrize("backend", BACKENDS)
def test_deep_graphs(backend):
    """A long path and a mesh: many levels, path counts in the thousands."""
    n = 120
    check(np.arange(n - 1), np.arange(1, n), n, False, backend, k=5, seed=2)
    side = 15
    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    check(src, dst, side * side, False, backend, k=8, seed=4)


def test_kronecker():
    """A skewed graph: hubs, isolated vertices, a Graph500 generator's duplicates merged."""
    src, dst = ld.kronecker(9, seed=3, backend="cpu").local_edges()
    check(src, dst, 1 << 9, False, k=16, seed=1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), scaling=st.sampled_from(SCALINGS), sample=st.booleans())
def test_random_graphs(graph, scaling, sample):
    src, dst, n, symmetrize, _ = graph
    kwargs = dict(scaling, **({"k": max(1, n // 2), "seed": n} if sample else {}))
    check(src, dst, n, not symmetrize, **kwargs)


@pytest.mark.parametrize("directed", [False, True])
def test_against_the_graphblas_reference(directed):
    """Every source's dependencies summed, against LAGraph's batched Brandes in python-graphblas
    (ld.reference.betweenness_dependencies): unnormalised over all sources, ours is that sum,
    halved on an undirected graph (networkx's scaling)."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        src, dst = rng.integers(0, 50, 120), rng.integers(0, 50, 120)
        A = ld.Matrix.from_edges(src, dst, 55, symmetrize=not directed, backend="cpu")
        raw = ld.reference.betweenness_dependencies(A.to_scipy(), range(55))
        got = ld.betweenness_centrality(A, normalized=False).to_numpy(fill=np.inf)
        np.testing.assert_allclose(got * (1 if directed else 2), raw, rtol=1e-9, atol=1e-12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=edge_graphs(), endpoints=st.booleans())
def test_both_ways_of_the_sweeps_agree(graph, endpoints):
    """The batched sweeps (one process on the CPU) and the products a source (grids, the GPU)
    give the same dependencies from every vertex, to rounding."""
    src, dst, n, symmetrize, _ = graph
    A = ld.Matrix.from_edges(src, dst, n, symmetrize=symmetrize, backend="cpu")
    every = list(range(n))
    batched = centrality._batched_sweeps(A, every, endpoints).to_numpy(fill=np.inf)
    a_source = centrality._sweeps_a_source(A, every, endpoints).to_numpy(fill=np.inf)
    np.testing.assert_allclose(batched, a_source, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_fused_sweeps_of_several_words(directed):
    """One call of the fused sweeps for 150 searches (three words of searches a vertex), a deep
    part (a 300-vertex path: depths past 255) and a random part, against the graphblas
    reference's dependencies; each search's reached count against its levels."""
    rng = np.random.default_rng(7)
    src = np.concatenate([np.arange(299), rng.integers(300, 400, 300)])
    dst = np.concatenate([np.arange(1, 300), rng.integers(300, 400, 300)])
    A = ld.Matrix.from_edges(src, dst, 400, symmetrize=not directed, backend="cpu")
    others = rng.choice(np.setdiff1d(np.arange(400), [0, 150, 299]), 147, replace=False)
    sources = np.concatenate([[0, 150, 299], others])
    levels = ld.bfs_multi(A, sources, parents=False).levels
    assert len(levels.blocks) == 1 and levels.blocks[0].shape[1] == 150
    found, reached = path_dependencies(A, levels)
    raw = ld.reference.betweenness_dependencies(A.to_scipy(), sources)
    np.testing.assert_allclose(found.to_numpy(fill=np.inf), raw, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(reached, (levels.to_numpy() > 0).sum(axis=1))


def test_fused_sweeps_that_do_not_fit_say_so(monkeypatch):
    """The sweeps' workspace is checked against the free memory before they run."""
    from lagraph_dist.local import fit
    A = ld.kronecker(8, backend="cpu")
    levels = ld.bfs_multi(A, [0, 1], parents=False).levels
    monkeypatch.setattr(fit, "available_bytes", lambda backend: (1000, 10 ** 6))
    with pytest.raises(ld.OutOfHostMemory, match="fused sweeps"):
        path_dependencies(A, levels)


def test_bad_input():
    A = ld.Matrix.from_edges([0, 1], [1, 2], 3, backend="cpu")
    with pytest.raises(ld.DomainMismatch, match="ld.Matrix"):
        ld.betweenness_centrality(np.eye(3))
    with pytest.raises(ld.InvalidValue, match="not both"):
        ld.betweenness_centrality(A, k=2, sources=[0])
    for k in (0, 4, -1, 1.5, True):
        with pytest.raises(ld.InvalidValue, match="k must be"):
            ld.betweenness_centrality(A, k=k)
    with pytest.raises(ld.InvalidValue, match="repeats"):
        ld.betweenness_centrality(A, sources=[1, 1])
    with pytest.raises(ld.InvalidValue, match="empty"):
        ld.betweenness_centrality(A, sources=[])
    with pytest.raises(ld.IndexOutOfBound):
        ld.betweenness_centrality(A, sources=[3])


@pytest.mark.mpi
@needs_mpi
@pytest.mark.timeout(300)
@pytest.mark.parametrize("backend", BACKENDS)
def test_grids_agree_with_networkx(backend, monkeypatch):
    """The 2 x 3 and 2 x 2 grids in one start of 6 ranks (each start costs seconds on 2 cores);
    on the GPU the ranks share one device, over host MPI (NCCL refuses two ranks a device)."""
    monkeypatch.setenv(TRANSPORT_ENV, "mpi-host")
    done = run_mpi(6, HERE / "mpi" / "check_centrality.py", backend, "2x3", "2x2", timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("ok") == 6, done.stdout


class _Device(np.ndarray):
    """Stands for the device's arrays (the blocks _sweep_groups may join)."""


def test_sweep_groups_join_device_blocks_up_to_the_batch():
    from types import SimpleNamespace
    from lagraph_dist.algebra.multi import _sweep_groups
    xp = SimpleNamespace(ndarray=_Device, concatenate=np.concatenate)

    def block(first, width, device=True):
        made = np.arange(first, first + 3 * width, dtype=np.int32).reshape(3, width)
        return made.view(_Device) if device else made
    blocks = [block(0, 512), block(2000, 512), block(5000, 512), block(9000, 512), block(20000, 100)]
    room = 3 * 2048 * 4                                            # (3 rows of int32: room for 2,048 columns)
    groups = list(_sweep_groups(blocks, 2048, xp, room))
    assert [g.shape[1] for g in groups] == [2048, 100]
    np.testing.assert_array_equal(np.asarray(groups[0]), np.hstack([np.asarray(b) for b in blocks[:4]]))
    assert groups[1] is blocks[4]                                  # (a lone block: not copied)
    assert [g.shape[1] for g in _sweep_groups(blocks, 2048, xp, room // 2)] == [1024, 1024, 100]   # (the memory)
    assert [g.shape[1] for g in _sweep_groups(blocks, 2048, xp, 0)] == [512, 512, 512, 512, 100]
    offloaded = [block(0, 64), block(100, 64, device=False), block(200, 64)]     # (host blocks stay apart)
    assert [g.shape[1] for g in _sweep_groups(offloaded, 2048, xp, room)] == [64, 64, 64]
