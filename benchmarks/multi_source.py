"""Many searches at once: ``ld.bfs_multi`` against the same searches one ``ld.bfs`` call each, and
scipy's many-source search, in one run on one process.

For each graph and each number of sources k: the batch levels only (``parents=False``) and with
parents, the k separate calls in the same two forms, and ``scipy.sparse.csgraph.shortest_path(
unweighted=True, indices=...)`` on the host from the first ``--scipy-sources`` of them (a compiled
BFS a source; its rate is searches per second, as ours). Every timed
batch is checked: its levels equal the separate calls' row for row, and its parents pass
``ld.validate`` on the first ``--validate`` rows. Timing follows BENCHMARKING.md: warm-up calls
first (every kernel compiled), then the median of ``--repeats``, the device synchronised. The
record keeps every call's seconds and the last batch's level records (each level's own seconds,
launches, reads and edges, measured inside the run).

    python3 benchmarks/multi_source.py --graph kron:22 --sources 64 512 --json $OUT/multi.json
    python3 benchmarks/multi_source.py --backend cpu --graph kron:18 --graph mtx:4elt.mtx:16 --sources 64
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import lagraph_dist as ld
from lagraph_dist.tools.bench import environment, pick_roots, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import backend_option, check_batch, graph_name, matrix, parse_spec, scipy_levels, timed  # noqa: E402


def separate(A, sources, parents):
    """The searches one ld.bfs call each: (their results, seconds in all)."""
    return timed(A, lambda: [ld.bfs(A, s, parents=parents) for s in sources])


def scipy_searches(S, sources):
    """scipy's many-source unweighted shortest paths on the host: (hop counts, seconds)."""
    from scipy.sparse.csgraph import shortest_path
    return timed(None, shortest_path, S, unweighted=True, directed=True, indices=sources)


def level_digest(stats):
    """The level records a table reads: direction, entries, seconds, launches, reads, edges."""
    keys = ("batch", "level", "direction", "fused", "frontier", "discovered", "vertices", "edges_examined",
            "seconds", "clock", "launches", "host_reads")
    return [{k: record.get(k) for k in keys} for record in stats]


def run_graph(graph, args, on_run):
    A, name, asked = matrix(graph, args.backend), graph_name(graph), graph.sources
    S = A.to_scipy()
    print(f"{name}: {A}", flush=True)
    for k in ([asked] if asked else args.sources):
        sources = pick_roots(A, k, seed=args.root_seed)
        if len(sources) < k:           # more sources than roots: repeat them (each its own search)
            sources = [sources[i % len(sources)] for i in range(k)]
        peer = sources[:args.scipy_sources]
        hops, scipy_seconds = scipy_searches(S, peer) if args.scipy_sources else (None, None)
        scipy_rate = None if scipy_seconds is None else len(peer) / scipy_seconds
        for parents in (False, True):
            ld.bfs_multi(A, sources, parents=parents)                      # warm-up: compiled, pools sized
            separate(A, sources[:2], parents)
            batch_seconds, single_seconds = [], []
            for _ in range(args.repeats):
                batch, seconds = timed(A, ld.bfs_multi, A, sources, parents=parents)
                batch_seconds.append(seconds)
                singles, seconds = separate(A, sources, parents)
                single_seconds.append(seconds)
            validated = check_batch(A, sources, batch, [s.levels.to_numpy() for s in singles], args.validate)
            if hops is not None and not np.array_equal(scipy_levels(hops), batch.levels.to_numpy()[:len(peer)]):
                raise AssertionError(f"{name}: scipy's hop counts differ from bfs_multi's levels")
            batch_median, single_median = float(np.median(batch_seconds)), float(np.median(single_seconds))
            run = {"graph": name, "spec": graph.text, "n": A.n, "nvals": A.nvals, "sources": k, "parents": parents,
                   "widths": batch.widths, "batch_seconds": batch_seconds, "separate_seconds": single_seconds,
                   "batch_searches_per_second": k / batch_median,
                   "separate_searches_per_second": k / single_median,
                   "ratio_to_separate": single_median / batch_median,
                   "scipy_sources": len(peer) if scipy_seconds is not None else 0, "scipy_seconds": scipy_seconds,
                   "scipy_searches_per_second": scipy_rate,
                   "ratio_to_scipy": None if scipy_rate is None else (k / batch_median) / scipy_rate,
                   "levels_equal_separate": True, "parents_validated_rows": validated,
                   "levels": level_digest(batch.stats)}
            on_run(A, run)                 # written as measured: a later failure or timeout keeps it
            print(f"  k={k} {'with parents' if parents else 'levels only'}: batch {1e3 * batch_median:.2f} ms "
                  f"({run['batch_searches_per_second']:,.0f}/s), separate {1e3 * single_median:.2f} ms "
                  f"({run['ratio_to_separate']:.1f}x)"
                  + ("" if scipy_rate is None else f", scipy {scipy_rate:,.1f}/s"), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", action="append", required=True, type=parse_spec,
                        help="kron:SCALE, mesh:RxC, path:N, road:N or mtx:PATH[:K]")
    parser.add_argument("--sources", type=int, nargs="+", default=[64])
    backend_option(parser)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--validate", type=int, default=8, help="rows whose parents ld.validate checks")
    parser.add_argument("--root-seed", type=int, default=3)
    parser.add_argument("--scipy-sources", type=int, default=64,
                        help="scipy searches from the first this many sources (its rate is per search; 0: none)")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    runs = []

    def record(A, run):
        runs.append(run)
        if args.json:
            write_json({"benchmark": "multi_source", "environment": environment(A), "runs": runs}, args.json)
    for graph in args.graph:
        run_graph(graph, args, record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
