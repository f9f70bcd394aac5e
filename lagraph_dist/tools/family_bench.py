"""``lagraph-dist bench --algorithm msbfs|bc|cc``: the BFS family timed beside its peers, on the
same graph and sources, in one run (``bfs``, the default, is :func:`lagraph_dist.tools.bench.run_bench`).

Every algorithm is one :class:`Algorithm`: what ours runs, its peers (each a function timed on
rank 0 over the graph gathered there, stopped once it has spent ``peer_seconds``, rates compared
per unit of work: searches or sources a second for the searches, whole calls, up to
PEER_CALLS of them, for components),
and the check that our answer equals a peer's. Ours: a warm-up call, then the median of
``repeats`` calls, the device synchronised. The record keeps every timing, the ratios, what was
checked and per-level records: the multi-source search's own of our last call; for the others,
one more call of ours traced (:mod:`lagraph_dist.algebra.trace`: a record for each product and
each search level it ran, each measured around or inside it).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from lagraph_dist.algorithms.bfs_multi import bfs_multi
from lagraph_dist.algorithms.centrality import betweenness_centrality
from lagraph_dist.algorithms.components import connected_components
from lagraph_dist.algebra.trace import product_trace
from lagraph_dist.core.errors import InvalidValue, ValidationError
from lagraph_dist.tools.bench import environment, pick_roots
from lagraph_dist.tools.peers import ALGORITHMS, FAMILY_PEERS
from lagraph_dist.tools.reference import betweenness_dependencies, prepare

__all__ = ["FAMILY", "run_family_bench", "format_family_table"]


@dataclass(frozen=True)
class Algorithm:
    """One member of the family: ``ours(A, sources)`` (collective) returns (result, level
    records or None); ``peers`` maps a name to ``peer(S, sources, directed, budget)`` returning
    (answer, units of work done, seconds); ``unit`` names the work; ``check(A, S, result, answer,
    done)`` (collective; S the graph on rank 0) raises ValidationError when ours differs from
    a peer's answer on the work it did."""

    name: str
    summary: str
    ours: Callable
    peers: dict
    unit: str
    check: Callable


# -- multi-source BFS ------------------------------------------------------------------------------
def _msbfs(A, sources):
    result = bfs_multi(A, sources, parents=False)
    keys = ("batch", "level", "direction", "frontier", "discovered", "vertices", "edges_examined", "seconds",
            "clock", "launches", "host_reads")
    return result, [{k: record.get(k) for k in keys} for record in result.stats]


def _separate_searches(S, sources, directed, budget):
    """scipy's compiled BFS a source (csgraph.shortest_path, unweighted), until the budget."""
    from scipy.sparse.csgraph import shortest_path
    rows, started = [], time.perf_counter()
    for s in sources:
        rows.append(shortest_path(S, unweighted=True, directed=True, indices=[s])[0])
        if time.perf_counter() - started > budget:
            break
    hops = np.where(np.isinf(rows), -1, rows).astype(np.int64)
    return hops, len(rows), time.perf_counter() - started


def _check_msbfs(A, S, result, hops, done):
    if not np.array_equal(result.levels.to_numpy()[:done], hops):
        raise ValidationError("bfs_multi's levels differ from scipy's hop counts")


# -- betweenness -------------------------------------------------------------------------------------
def _bc(A, sources):
    return betweenness_centrality(A, sources=sources, normalized=False), None


class _Given(random.Random):
    """A random source for networkx whose sample is the sources given (its k sampled sources)."""

    def __init__(self, sources):
        super().__init__(0)
        self.sources = list(sources)

    def sample(self, population, k, *, counts=None):
        return self.sources[:k]


def _networkx_graph(S, directed):
    import networkx as nx
    return nx.from_scipy_sparse_array(S, create_using=nx.DiGraph if directed else nx.Graph)


def _networkx_betweenness(S, sources, directed, budget):
    """networkx's Brandes from one source a call (``betweenness_centrality_subset`` with every
    vertex a target: its work adds up by source), until the budget; the answer: the sources it
    ran (and no values: the check runs networkx's own betweenness from them)."""
    import networkx as nx
    G = _networkx_graph(S, directed)
    targets, done, started = list(G), 0, time.perf_counter()
    for s in sources:
        nx.betweenness_centrality_subset(G, [s], targets, normalized=False)
        done += 1
        if time.perf_counter() - started > budget:
            break
    return (list(sources[:done]), None), done, time.perf_counter() - started


def _graphblas_betweenness(S, sources, directed, budget):
    """python-graphblas running LAGraph's batched Brandes (all sources as the rows of k x n
    matrices: ``reference.betweenness_dependencies``) once, on the pattern converted before the
    clock starts (a symmetric one is its own transpose: none made); the answer: the sources it
    ran and the dependencies it summed over them."""
    pattern = prepare(S, symmetric=not directed).A
    started = time.perf_counter()
    dependencies = betweenness_dependencies(pattern, sources)
    return (list(sources), dependencies), len(sources), time.perf_counter() - started


def _sampled_scale(n, sources, directed):
    """networkx's factors for unnormalised betweenness from a sample of sources (its
    ``_rescale``, 3.x, written out here as the check's own): n - 1 pairs over the k sources, a
    sampled source over the k - 1 others, halved on an undirected graph."""
    pairs, k, halves = n - 1, len(sources), 1 if directed else 2
    scale = np.full(n, pairs / (k * halves) if pairs >= 2 else 1.0)
    if pairs >= 2:
        scale[np.asarray(sources, dtype=np.int64)] = pairs / ((k - 1) * halves) if k > 1 else np.nan
    return scale


def _check_bc(A, S, result, answer, done):
    """Ours from the sources the peer ran, unnormalised, to 1e-9: against the dependencies the
    peer summed, scaled as networkx scales a sample (python-graphblas), or else against
    networkx's betweenness_centrality from the same sources (its sampler handed them)."""
    ran, dependencies = answer
    ours = betweenness_centrality(A, sources=ran, normalized=False).to_numpy(fill=np.nan)

    def theirs():
        if dependencies is not None:
            return np.asarray(dependencies) * _sampled_scale(S.shape[0], ran, not A.symmetric)
        import networkx as nx
        values = nx.betweenness_centrality(_networkx_graph(S, not A.symmetric), k=len(ran), seed=_Given(ran),
                                           normalized=False)
        return np.array([values[v] for v in range(S.shape[0])])
    if not np.allclose(ours, A.grid.bcast_from(0, theirs), rtol=1e-9, atol=1e-9, equal_nan=True):
        raise ValidationError("betweenness differs from the peer's from the sources it ran")


# -- connected components ----------------------------------------------------------------------------
def _cc(A, sources):
    return connected_components(A), None


#: a whole-graph peer's calls at most (it stops earlier once it has spent its budget)
PEER_CALLS = 5


def _repeated(call, budget):
    """(the last answer, calls made, seconds) of ``call()`` made until PEER_CALLS calls or the
    budget, at least once."""
    calls, started = 0, time.perf_counter()
    while True:
        answer = call()
        calls += 1
        if calls >= PEER_CALLS or time.perf_counter() - started > budget:
            return answer, calls, time.perf_counter() - started


def _scipy_components(S, sources, directed, budget):
    from scipy.sparse.csgraph import connected_components
    return _repeated(lambda: connected_components(S, directed=directed, connection="weak")[1], budget)


def _networkx_components(S, sources, directed, budget):
    import networkx as nx
    G = _networkx_graph(S, directed)

    def labelled():
        parts = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
        labels = np.empty(S.shape[0], dtype=np.int64)
        for part in parts:
            members = np.fromiter(part, dtype=np.int64)
            labels[members] = members.min()
        return labels
    return _repeated(labelled, budget)


def _check_cc(A, S, result, labels, done):
    """The same partition: each of our labels maps to one peer label and back."""
    ours = result.to_numpy()
    pairs = np.unique(np.stack([ours, labels]), axis=1)
    if np.unique(pairs[0]).shape[0] != pairs.shape[1] or np.unique(pairs[1]).shape[0] != pairs.shape[1]:
        raise ValidationError("connected components differ from the peer's partition")


FAMILY = {
    "msbfs": Algorithm("msbfs", "multi-source BFS, levels only (ld.bfs_multi)", _msbfs,
                       {"scipy": _separate_searches}, "searches", _check_msbfs),
    "bc": Algorithm("bc", "betweenness centrality from the sources, unnormalised (ld.betweenness_centrality)",
                    _bc, {"networkx": _networkx_betweenness, "graphblas": _graphblas_betweenness}, "sources",
                    _check_bc),
    "cc": Algorithm("cc", "connected components (ld.connected_components)", _cc,
                    {"scipy": _scipy_components, "networkx": _networkx_components}, "calls", _check_cc),
}
assert {name: tuple(m.peers) for name, m in FAMILY.items()} == FAMILY_PEERS, "peers.FAMILY_PEERS is stale"


# -- the run -----------------------------------------------------------------------------------------
def _timed(A, func, *args):
    started = time.perf_counter()
    out = func(*args)
    A.backend.sync()
    return out, time.perf_counter() - started


def run_family_bench(A, graph_info, algorithm, *, sources, root_seed, repeats, peers, peer_seconds,
                     peer_roots=None):
    """Collective. The record of one algorithm of the family on A: ours from ``sources`` seeded
    roots (msbfs, bc; cc takes none), timed ``repeats`` times after a warm-up, beside ``peers``
    (names of its peers, or None for all of them) on rank 0, which run from the first
    ``peer_roots`` of those roots (None: all), checked against the first peer."""
    member = FAMILY.get(algorithm)
    if member is None:
        raise InvalidValue(f"--algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if peer_roots is not None and (algorithm == "cc" or peer_roots < 1):
        raise InvalidValue("--peer-roots takes a count >= 1, for msbfs and bc (cc takes no roots), "
                           f"got {peer_roots} for {algorithm}")
    names = list(member.peers) if peers is None else list(peers)
    unknown = [p for p in names if p not in member.peers]
    if unknown:
        raise InvalidValue(f"{', '.join(unknown)}: not a peer of {algorithm} (its peers: {', '.join(member.peers)})")
    roots = pick_roots(A, sources, root_seed) if algorithm != "cc" else []
    member.ours(A, roots)                                            # warm-up: compiled, pools sized
    seconds, result, levels = [], None, None
    for _ in range(repeats):
        (result, levels), elapsed = _timed(A, member.ours, A, roots)
        seconds.append(elapsed)
    if levels is None:
        levels = _traced_levels(A, member, roots)
    work = max(len(roots), 1)
    ours_rate = work / float(np.median(seconds))
    S = A.to_scipy(root=0) if names else None
    record = {"benchmark": "family", "algorithm": algorithm, "summary": member.summary, "graph": graph_info,
              "n": A.n, "nvals": A.nvals, "sources": roots, "unit": member.unit, "seconds": seconds,
              "rate": ours_rate, "levels": levels, "peers": {}, "peer_roots": peer_roots, "checked_against": None}
    peer_sources = roots[:peer_roots] if peer_roots is not None else roots
    for name in names:
        outcome = A.grid.bcast_from(0, member.peers[name], S, peer_sources, not A.symmetric, peer_seconds)
        answer, done, elapsed = outcome
        rate = done / elapsed
        record["peers"][name] = {"done": done, "seconds": elapsed, "rate": rate, "ratio": ours_rate / rate}
        if record["checked_against"] is None:
            member.check(A, S, result, answer, done)
            record["checked_against"] = name
    record["environment"] = environment(A)
    return record


def _traced_levels(A, member, roots):
    """The per-product records of one more call of ours (after the timed ones, which no trace
    slows)."""
    with product_trace() as records:
        member.ours(A, roots)
        A.backend.sync()
    keys = ("call", "op", "level", "direction", "fused", "frontier", "discovered", "edges_examined", "bytes",
            "seconds", "clock", "launches", "host_reads")
    return [{k: record[k] for k in keys} for record in records]


def format_family_table(record):
    """The record as a few lines of text: ours, then each peer with its ratio."""
    unit = record["unit"]
    median = float(np.median(record["seconds"]))
    lines = [f"{record['summary']}: n={record['n']:,}, {record['nvals']:,} stored edges",
             f"  ours: {1e3 * median:.2f} ms median of {len(record['seconds'])}"
             + (f", {record['rate']:,.1f} {unit}/s" if unit != "calls" else "")]
    for name, peer in record["peers"].items():
        lines.append(f"  {name}: {peer['seconds']:.3f} s for {peer['done']} {unit}, ours {peer['ratio']:.1f}x")
    if record["checked_against"]:
        lines.append(f"  our answer equals {record['checked_against']}'s")
    return "\n".join(lines)
