"""networkx code, lagraph_dist underneath: the three ways to send networkx's calls to the
backend, each answer checked against networkx's own.

    python examples/networkx_backend.py [scale]

The graph is a Kronecker graph of 2**scale vertices as a plain ``networkx.Graph`` (default
scale 12). Needs networkx 3.4 or later (``pip install -e ".[networkx]"``). One process: the
networkx graph lives in it.
"""
import os
import random
import time

import networkx as nx

import lagraph_dist as ld
from arguments import BadArgument, integer, run

BACKEND = "lagraph_dist"


def timed(call):
    started = time.perf_counter()
    answer = call()
    return answer, time.perf_counter() - started


def main(scale=12):
    if not 1 <= scale <= 20:
        raise BadArgument(f"scale must be from 1 to 20, got {scale}")
    if BACKEND not in nx.utils.backends.backends:
        raise BadArgument("the lagraph_dist backend is not registered with networkx: pip install -e '.[networkx]'")
    nx.config.warnings_to_ignore.add("cache")      # the note that a cached conversion is reused
    G = ld.kronecker(scale, edgefactor=16, seed=0, backend="cpu").to_networkx()
    source = max(G, key=G.degree)
    print(f"{G}; searches from node {source}, the one of the highest degree")

    # 1. backend= on one call: G is converted (and the conversion cached on G), then searched
    ours, first = timed(lambda: nx.single_source_shortest_path_length(G, source, backend=BACKEND))
    theirs, plain = timed(lambda: nx.single_source_shortest_path_length(G, source))
    assert ours == theirs
    again, cached = timed(lambda: nx.single_source_shortest_path_length(G, source, backend=BACKEND))
    print(f"1. backend=: shortest path lengths {first:.3f} s (conversion included), "
          f"{cached:.3f} s again (cached), networkx {plain:.3f} s; same answer")

    # 2. nx.config.backend_priority: every call of the program tries the backend first; what it
    #    declines (here: weights) runs in networkx as before
    with nx.config.backend_priority(algos=[BACKEND]):
        edges = list(nx.bfs_edges(G, source, depth_limit=3))
        parts = list(nx.connected_components(G))
        bc, seconds = timed(lambda: nx.betweenness_centrality(G, k=16, seed=0))
        weighted = nx.shortest_path_length(G, source, weight="weight")      # declined: networkx runs it
    assert edges == list(nx.bfs_edges(G, source, depth_limit=3))              # networkx's own order
    assert parts == list(nx.connected_components(G))
    reference = nx.betweenness_centrality(G, k=16, seed=0)
    assert max(abs(bc[v] - reference[v]) for v in G) < 1e-12
    assert weighted == ours
    print(f"2. backend_priority: {len(edges)} tree edges within 3 hops, {len(parts)} components, "
          f"betweenness from 16 sampled sources in {seconds:.3f} s; all as networkx answers them")

    # 3. the environment: NETWORKX_BACKEND_PRIORITY=lagraph_dist python script.py does what 2.
    #    does for a whole program, without touching it (read when networkx is imported)
    print(f"3. NETWORKX_BACKEND_PRIORITY={os.environ.get('NETWORKX_BACKEND_PRIORITY', '')!r} here; "
          f"set it to {BACKEND!r} to dispatch a whole program")
    giant = G.subgraph(max(parts, key=len))          # a view of G: converted like a graph
    sample = random.Random(1).sample(list(giant), 3)
    ecc = nx.eccentricity(giant, v=sample, backend=BACKEND)
    assert ecc == nx.eccentricity(giant, v=sample)
    print(f"   eccentricity in the largest component ({giant.number_of_nodes()} nodes) of 3 of its nodes: {ecc}")

if __name__ == "__main__":
    run(main, scale=integer)
