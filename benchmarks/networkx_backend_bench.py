"""networkx's calls on a Kronecker graph: networkx itself, graphblas-algorithms (python-graphblas's
networkx backend, when installed) and lagraph_dist's backend, each call through networkx.

    python benchmarks/networkx_backend_bench.py [--scale 16] [--k 64] [--repeat 3] [--json out.json]
        [--skip-networkx-bc]

The graph is ``ld.kronecker(scale)`` as a plain ``networkx.Graph`` (built before any clock).
For each backend the first call converts the graph (networkx caches the conversion on it) and
the later ones reuse it: ``first`` is the first call, ``warm`` the median of the later ones,
and the conversion is timed apart as well (after a warm-up on a small graph, so that what
a process pays once is not in any of them) (the backend's own ``convert_from_nx``; for
lagraph_dist the engine's Matrix too). A backend that does not run a function says so
(graphblas-algorithms 2023.10 dispatches neither betweenness nor connected components).
Every answer is checked against networkx's. Prints a table; ``--json`` writes the record
(benchmarks/results_report.py tables it).
``--skip-networkx-bc`` leaves out networkx's own betweenness (minutes at scale 16).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import warnings
from pathlib import Path

import networkx as nx

import lagraph_dist as ld
from lagraph_dist.tools.bench import environment, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import table, timed  # noqa: E402


def calls(G, source, k):
    """name -> (call with backend=..., how its answers are compared)."""
    return {
        f"betweenness_centrality(k={k}, seed=0)": (
            lambda **b: nx.betweenness_centrality(G, k=k, seed=0, **b), "close"),
        "single_source_shortest_path_length": (
            lambda **b: dict(nx.single_source_shortest_path_length(G, source, **b)), "equal"),
        "connected_components": (lambda **b: [set(c) for c in nx.connected_components(G, **b)], "equal"),
    }


def same(ours, theirs, how):
    if how == "equal":
        return ours == theirs
    return ours.keys() == theirs.keys() and max(abs(ours[v] - theirs[v]) for v in theirs) < 1e-9


def conversion_seconds(G, backend):
    """Seconds to convert G for ``backend`` (its own convert_from_nx; lagraph_dist's Matrix too)."""
    interface = nx.utils.backends._load_backend(backend)
    converted, seconds = timed(None, lambda: interface.convert_from_nx(G))
    if backend == "lagraph_dist":
        _, more = timed(None, lambda: converted.matrix)
        seconds += more
    return seconds


def run_backend(G, name, call, repeat):
    """(first call's seconds, median of the later ones, answer), the graph's cache emptied first;
    None when the backend does not run the function."""
    G.__networkx_cache__.clear()
    try:
        answer, first = timed(None, lambda: call(backend=name))
    except NotImplementedError:
        return None
    warm = [timed(None, lambda: call(backend=name))[1] for _ in range(repeat)]
    return first, statistics.median(warm), answer


def warm_up(backends, k):
    """Each backend's calls once on a small graph: what a process pays once (loading compiled
    kernels, first imports) is not counted against a graph's first call."""
    small = ld.kronecker(7, seed=1, backend="cpu").to_networkx()
    for call, _ in calls(small, max(small, key=small.degree), min(k, 8)).values():
        for b in backends:
            try:
                call(backend=b)
            except NotImplementedError:
                pass


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--k", type=int, default=64, help="betweenness's sampled sources")
    parser.add_argument("--repeat", type=int, default=3, help="warm calls timed per backend (median)")
    parser.add_argument("--json", help="write the records here")
    parser.add_argument("--skip-networkx-bc", action="store_true", help="do not time networkx's betweenness")
    options = parser.parse_args(argv)
    if not 1 <= options.scale <= 22 or options.k < 1 or options.repeat < 1:
        parser.error("--scale must be 1..22, --k and --repeat at least 1")
    warnings.simplefilter("ignore")
    nx.config.warnings_to_ignore.add("cache")
    backends = [b for b in ("graphblas", "lagraph_dist") if b in nx.utils.backends.backends]
    A = ld.kronecker(options.scale, seed=0, backend="cpu")
    G, build = timed(None, A.to_networkx)
    source = max(G, key=G.degree)
    engine = ld.get_backend(nx.config.backends.lagraph_dist.backend).name
    print(f"Kronecker {options.scale} as networkx: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
          f"(built in {build:.1f} s); lagraph_dist's engine backend: {engine}")
    warm_up(backends, options.k)
    conversions = {b: conversion_seconds(G, b) for b in backends}
    print("conversion: " + ", ".join(f"{b} {s:.3f} s" for b, s in conversions.items()))
    records = []
    for label, (call, how) in calls(G, source, options.k).items():
        record = {"function": label}
        if label.startswith("betweenness") and options.skip_networkx_bc:
            theirs = None
        else:
            theirs, record["networkx_s"] = timed(None, lambda: call(backend="networkx"))
        for b in backends:
            ran = run_backend(G, b, call, options.repeat)
            if ran is None:
                record[b] = "not dispatched"
                continue
            first, warm, ours = ran
            record[b] = {"first_s": first, "warm_s": warm,
                         "agrees": None if theirs is None else same(ours, theirs, how)}
        records.append(record)
    report(records, backends)
    if options.json:
        write_json({"benchmark": "networkx_backend", "graph": {"kind": "kronecker", "scale": options.scale, "seed": 0},
                    "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), "k": options.k,
                    "engine_backend": engine, "conversion_s": conversions, "networkx": nx.__version__,
                    "calls": records, "environment": environment(A)}, options.json)
    wrong = [r["function"] for r in records for b in backends
             if isinstance(r.get(b), dict) and r[b]["agrees"] is False]
    if wrong:
        print("answers differ from networkx's:", wrong)
        return 1
    return 0


def report(records, backends):
    rows = []
    for r in records:
        cells = [r["function"], f"{r['networkx_s']:.3f} s" if "networkx_s" in r else "not run"]
        for b in backends:
            v = r[b]
            cells.append(v if isinstance(v, str) else f"{v['warm_s']:.3f} s ({v['first_s']:.3f} s)")
        ours = r.get("lagraph_dist")
        if "networkx_s" in r and isinstance(ours, dict):
            cells.append(f"{r['networkx_s'] / ours['warm_s']:.1f}x / {r['networkx_s'] / ours['first_s']:.1f}x")
        else:
            cells.append("")
        rows.append(cells)
    header = ["function", "networkx", *(f"{b} warm (first call)" for b in backends),
              "lagraph_dist vs networkx, warm / first"]
    print("\n" + "\n".join(table(header, rows)))


if __name__ == "__main__":
    sys.exit(main())
