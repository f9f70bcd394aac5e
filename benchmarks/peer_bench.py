"""Our BFS beside what a user would pick instead (scipy csgraph, python-graphblas push and
push/pull through ``tools.reference``), on the same graphs, roots and process: the CPU benchmark
(issue 21) and, with ``--preset deep``, the high-diameter one (issue 8: meshes and a long path,
where the cost of a level, not of an edge, sets the time; docs/benchmarking.md).

    python benchmarks/peer_bench.py                        # CPU, full sizes: see PRESETS (about 10 minutes on 2 cores)
    python benchmarks/peer_bench.py --preset small         # tiny sizes (the smoke test's)
    python benchmarks/peer_bench.py --graphs kron:18 mesh:1000x1000 --peers scipy --json /tmp/x.json
    python benchmarks/peer_bench.py --preset deep --backend gpu     # meshes 1000x1000, 2000x2000; path of 1M
    python benchmarks/peer_bench.py --preset deep --graphs road:1000000 --real --backend gpu   # road, real meshes
    python benchmarks/peer_bench.py --preset small-gpu --real --backend gpu --peers scipy   # issue 54's small graphs

Graphs: harness specs (harness.py names each one's roots), with ``--real`` also the real meshes of
the shared data folder. The record's ``protocol`` says how each run and each construction is timed
and checked (every timed result outside the clock, its levels against scipy's BFS).

The preset names the record: cpu and small write results/cpu-<host>-<commit>.json, a row a graph
in its table; deep and deep-small results/high-diameter-<host>-<commit>.json, a row a run;
small-gpu results/small-graphs-<host>-<commit>.json, a row a run, each of ours run by the package's
choice of engine and forced onto the device and onto the host's kernels (``--engines``). Each of
ours may also run with the host's searches from a source marked by the package's policy, always
or never (``--marked``: ``ld.settings.marked_searches``), a run each, side by side.
python-graphblas takes 55-280 us a level on 2 cores, so minutes a search on the million-level path
(so does our CPU backend): run the path alone with ``--peer-repeats 1`` or ``--peers scipy``.
"""
import argparse
import itertools
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.core.text import plural
from lagraph_dist.local.cpu_kernels.fused import MARKED_SEARCHES
from lagraph_dist.tools.bench import environment, pick_roots

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import (PEERS, RESULTS, SPECS, at_least, backend_option, commit_of, contender_run,  # noqa: E402
                     count, device_of, edges, graph_info, graph_name, log, md_table, our_bfs, paragraphs,
                     parse_spec, ratios, record_file, require_levels, run_peers, scipy_csr, sig, summed,
                     time_summary, times, timed_calls, write_record)

DIRECTIONS = ("auto", "push", "pull")
CPU_GRAPHS = ["kron:16", "kron:18", "kron:20", "mesh:300x300", "mesh:1000x1000", "path:100000", "road:1000000"]
#: graphs under 100,000 edges (issue 54: on the GPU backend no slower than scipy), with --real the
#: shared meshes jagmesh7 and 4elt (wing is bigger)
SMALL_GRAPHS = ["kron:10", "kron:12", "mesh:30x30", "mesh:100x100", "path:2000", "path:10000"]
#: where our searches run (``--engines``): the package's policy (``ld.settings.host_search_edges``),
#: forced onto the device, forced onto the host's compiled kernels
ENGINES = {"policy": None, "device": 0, "host": 1 << 62}
PRESETS = {     # the record's kind, then the defaults its options take
    "cpu": {"kind": "cpu", "graphs": CPU_GRAPHS, "roots": 4, "repeats": 5, "peer_repeats": 3,
            "directions": list(DIRECTIONS)},
    "small": {"kind": "cpu", "graphs": ["kron:8", "mesh:12x10", "path:300", "road:500"], "roots": 2, "repeats": 2,
              "peer_repeats": 1, "directions": list(DIRECTIONS)},
    "deep": {"kind": "high-diameter", "graphs": ["mesh:1000x1000", "mesh:2000x2000", "path:1000000"], "roots": 1,
             "repeats": 5, "peer_repeats": 3, "directions": ["push", "auto"]},
    "small-gpu": {"kind": "small-graphs", "graphs": SMALL_GRAPHS, "roots": 4, "repeats": 50, "peer_repeats": 50,
                  "directions": ["auto"], "engines": list(ENGINES)},
    "deep-small": {"kind": "high-diameter", "graphs": ["mesh:100x100", "path:2000"], "roots": 1, "repeats": 1,
                   "peer_repeats": 1, "directions": ["push", "auto"]},
}
PULL_MESH = 100_000     # a mesh of at most this many vertices has its pull timed
LEVELS_DEFINITION = ("max level + 1: the number of frontiers, the source's included (the number of "
                     "products our BFS runs); rows + cols - 1 for a mesh from a corner, n for a path")


# -- the graphs ------------------------------------------------------------------------------
def shared_meshes(small=False):
    """The real meshes of the shared data folder (beside the checkout, unless $LAGRAPH_DIST_DATA) that are
    present; ``small``: those under 100,000 edges."""
    root = Path(os.environ.get("LAGRAPH_DIST_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
    names = ("lagraph/jagmesh7.mtx", "networkit/4elt.mtx") + (() if small else ("networkit/wing.mtx",))
    return [parse_spec(f"mtx:{root / name}") for name in names if (root / name).is_file()]


def exact_levels(spec):
    """The levels from vertex 0 in closed form (numpy), None where there is none: vertex (r, c) of
    a mesh is r + c steps from the corner (0, 0), vertex i of a path i steps from its end."""
    if spec.kind == "mesh":
        row, col = np.divmod(np.arange(spec.n, dtype=np.int64), spec.cols)
        return row + col
    if spec.kind == "path":
        return np.arange(spec.n, dtype=np.int64)
    return None


def pull_timed(spec):
    """Whether a pull level is cheap enough to time (the record's ``not_run`` says why not)."""
    return spec.kind == "kron" or (spec.kind == "mesh" and spec.n <= PULL_MESH)


# -- construction --------------------------------------------------------------------------------
def construction(src, dst, n, backend, args):
    """(our Matrix on ``backend``, the construction record): ours and scipy's builds of the same edges."""
    def ours():
        A = ld.Matrix.from_edges(src, dst, n, symmetrize=True, backend=backend)
        A.backend.sync()           # timed to the end of its device work
        return A
    mine, _, A = timed_calls(ours, args.build_repeats)
    theirs, _, S = timed_calls(lambda: scipy_csr(src, dst, n), args.build_repeats)
    if (S.astype(bool) != A.to_scipy().astype(bool)).nnz:
        raise ld.ValidationError("our graph differs from scipy's CSR of the same edges")
    record = {"edges": int(src.shape[0]), "from_edges": time_summary(mine), "scipy_csr": time_summary(theirs)}
    if args.io:
        record.update(io_builds(A, src, dst, n, backend, args.build_repeats))
    ratio = record["scipy_csr"]["median_ms"] / record["from_edges"]["median_ms"]
    log(f"  build: ours {record['from_edges']['median_ms']:.1f} ms, scipy CSR "
        f"{record['scipy_csr']['median_ms']:.1f} ms (scipy / ours {ratio:.2f})")
    return A, record


def io_builds(A, src, dst, n, backend, repeats):
    """from_scipy and from_mtx against scipy's COO.tocsr and mmread + tocsr of the same graph
    (duplicates summed), its file written once, untimed."""
    import scipy.io
    i, j = np.concatenate([src, dst]), np.concatenate([dst, src])
    coo = sp.coo_matrix((np.ones(i.shape[0], np.int8), (i, j)), shape=(n, n))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.mtx"
        A.to_mtx(path)
        calls = {"from_scipy": lambda: ld.Matrix.from_scipy(coo, backend=backend),
                 "scipy_tocsr": lambda: summed(coo.tocsr()),
                 "from_mtx": lambda: ld.Matrix.from_mtx(path, backend=backend),
                 "scipy_mmread": lambda: summed(scipy.io.mmread(path).tocsr())}
        return {name: time_summary(timed_calls(call, repeats).seconds) for name, call in calls.items()}


# -- the searches ---------------------------------------------------------------------------------
def expected_levels(spec, S, roots):
    """({root: the levels every run must give}, how they were established): scipy's BFS levels,
    checked against the exact ones of a mesh or a path from vertex 0 (an independent computation)."""
    from lagraph_dist.tools import reference
    expected = {root: reference.bfs_levels_scipy(S, root) for root in roots}
    exact = exact_levels(spec)
    if exact is None or 0 not in expected:
        return expected, "scipy's breadth_first_order (no closed form); -1 where unreached"
    require_levels("scipy's breadth_first_order", expected[0], exact)
    return expected, "exact (mesh: row + col, path: index), equal to scipy's breadth_first_order's"


def run_graph(spec, backend, args):
    name = graph_name(spec, grouped=True) + (" (Matrix Market)" if spec.kind == "mtx" else "")
    log(f"{name}: generating and building on {backend.name}")
    src, dst, n = edges(spec)
    A, built = construction(src, dst, n, backend, args)
    del src, dst
    S = A.to_scipy()
    roots = pick_roots(A, args.roots, 2) if spec.drawn_roots else [0]
    expected, how = expected_levels(spec, S, roots)
    depth = int(max(levels.max() for levels in expected.values())) + 1
    log(f"{name}: n = {A.n:,}, {A.nvals:,} stored edges, roots {roots}, {depth:,} levels")

    def run(contender, repeats, **kwargs):
        result = contender_run(A, contender, roots, expected, repeats, warmups=args.warmups, **kwargs)
        return result | {"repeats": result["validated"], "us_per_level": 1e3 * result["median_ms"] / depth}
    directions = [d for d in args.directions if d != "pull" or pull_timed(spec)]
    ours = {}
    for engine, marked in itertools.product(args.engines, args.marked):
        threshold = ld.settings.host_search_edges if ENGINES[engine] is None else ENGINES[engine]
        with ld.settings.changed(host_search_edges=threshold, marked_searches=marked):
            for d in directions:
                key = ", ".join([d] + [engine] * (engine != "policy") + [f"marked {marked}"] * (marked != "auto"))
                ours[key] = run(our_bfs(A, d, f"ours {key}"), args.repeats, ours=True)
    theirs = run_peers(S, args.peers, lambda peer: run(peer, args.peer_repeats, budget=args.peer_seconds / len(roots)))
    record = graph_info(spec) | {"name": name, "n": A.n, "nvals": A.nvals, "roots": roots, "levels": depth,
                                 "reached": [int((expected[r] >= 0).sum()) for r in roots], "expected_levels": how,
                                 "construction": built, "lagraph_dist": ours, "peers": theirs,
                                 "ratios": ratios(ours, theirs)}
    if len(directions) < len(args.directions):
        record["not_run"] = {"pull": "each pull level reads every unvisited row's in-edges up to a frontier one, "
                                     "and this graph has thousands of levels"}
    return A, record


# -- the tables (here and in results/README.md) --------------------------------------------------
CPU_HEADER = ["graph", "levels", "roots", "ours auto", "ours push", "ours pull", "scipy csgraph", "graphblas push",
              "graphblas push/pull", "scipy / ours auto", "graphblas push/pull / ours auto",
              "build ms: ours / scipy (scipy / ours)"]
DEEP_HEADER = ["graph", "levels", "run", "ms / BFS (median)", "us / level", "peer's time / ours", "fused levels",
               "host reads / level", "validated", "engine"]


def cpu_rows(record):
    """A cpu record's table: median ms a search, a row a graph."""
    made = []
    for graph in record["graphs"]:
        ours, peers, build = graph["lagraph_dist"], graph["peers"], graph["construction"]
        cells = [sig(ours[d]["median_ms"], 4) if d in ours else "-" for d in DIRECTIONS]
        cells += [sig(peers[p]["median_ms"], 4) if "median_ms" in peers.get(p, {}) else "-" for p in PEERS]
        versus = [times(graph["ratios"].get(p, {}).get("auto")) for p in ("scipy", "graphblas-pushpull")]
        build_ratio = build["scipy_csr"]["median_ms"] / build["from_edges"]["median_ms"]
        made.append([graph["name"], count(graph["levels"]), len(graph["roots"]), *cells, *versus,
                     f"{sig(build['from_edges']['median_ms'], 4)} / {sig(build['scipy_csr']['median_ms'], 4)} "
                     f"({times(build_ratio)})"])
    return made


def _runs(graph):
    """(label, result, the peer's ratios or None) of each run on a graph: ours, then the peers'."""
    yield from ((f"lagraph_dist {d}", result, None) for d, result in graph["lagraph_dist"].items())
    yield from ((peer, result, graph["ratios"].get(peer)) for peer, result in graph["peers"].items())


def deep_rows(record):
    """A high-diameter record's table: a row a graph and run."""
    return [[graph["name"], count(graph["levels"]), label, *_figures(result, versus)]
            for graph in record["graphs"] for label, result, versus in _runs(graph)]


def small_rows(record):
    """A small-graphs record's table: a row a graph and run, with the stored edges and the engine
    that ran (ours: the backend whose kernels ran the levels)."""
    return [[graph["name"], count(graph["nvals"]), count(graph["levels"]), label, *_figures(result, versus)]
            for graph in record["graphs"] for label, result, versus in _runs(graph)]


def _figures(result, ratios):
    """A run's cells: times, ratios, level figures, validation and (ours) the engine that ran
    its levels (the records before there was a choice of engine name none: "-")."""
    if "skipped" in result:
        return ["-"] * 5 + [f"skipped: {result['skipped']}", "-"]
    stats = result.get("stats") or {}
    over_ours = ", ".join(f"{d} {times(r)}" for d, r in ratios.items()) if ratios else "-"
    return [sig(result["median_ms"], 4), sig(result["us_per_level"], 4), over_ours,
            count(stats["fused_levels"]) if "fused_levels" in stats else "-",
            sig(stats["host_reads_per_level"]) if "host_reads_per_level" in stats else "-",
            f"{result['validated']}/{result['repeats']}", ", ".join(stats.get("engines") or ["-"])]


SMALL_HEADER = ["graph", "stored edges", *DEEP_HEADER[1:]]
TABLES = {"cpu": (CPU_HEADER, cpu_rows), "high-diameter": (DEEP_HEADER, deep_rows),       # by the record's kind
          "small-graphs": (SMALL_HEADER, small_rows)}


def summary(record, name):
    """A record under a heading naming its file, commit and device, then its kind's table."""
    env, (header, rows) = record["environment"], TABLES[record["benchmark"]]
    return paragraphs(f"## `{name}`: commit `{commit_of(env)}`, {device_of(env)}",
                      f"Backend {record['backend']}, source {record.get('source', 'drawn')}; "
                      f"levels = {record['levels_definition']}.", md_table(header, rows(record)))


# -- command line ------------------------------------------------------------------------------
def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", choices=PRESETS, default="cpu",
                        help="the record's kind and the defaults of the options below (default cpu)")
    parser.add_argument("--graphs", type=parse_spec, nargs="+", metavar="KIND:SIZE",
                        help=f"{SPECS} (default: the preset's)")
    parser.add_argument("--real", action="store_true",
                        help="also the real meshes of the shared data folder that are present "
                             "(jagmesh7, 4elt, wing; $LAGRAPH_DIST_DATA or ../shared/data)")
    backend_option(parser, "cpu", "where our graphs live and our BFS runs (default cpu)")
    parser.add_argument("--roots", type=at_least(1), help="Kronecker roots (default: the preset's)")
    parser.add_argument("--repeats", type=at_least(1), help="our timed calls a root (default: the preset's)")
    parser.add_argument("--peer-repeats", type=at_least(1), help="a peer's timed calls a root (default: the preset's)")
    parser.add_argument("--peer-seconds", type=float, default=60.0,
                        help="a peer's timed calls on one graph stop past this many seconds (default 60)")
    parser.add_argument("--warmups", type=at_least(1), default=1,
                        help="untimed calls a root before each run's timed ones, ours and the peers' alike "
                             "(default 1; on a device host's Xeon the first run's calls kept getting faster "
                             "over five calls after one: docs/notes/cpu-kernels.md)")
    parser.add_argument("--build-repeats", type=at_least(1), default=3, help="timed builds of each kind (default 3)")
    parser.add_argument("--io", action="store_true", help="also from_scipy and from_mtx against scipy's")
    parser.add_argument("--directions", nargs="+", choices=DIRECTIONS, help="our directions (default: the preset's)")
    parser.add_argument("--engines", nargs="+", choices=ENGINES,
                        help="where our searches run, each a run: policy (the package's choice), device, host; "
                             "device and host matter on the GPU backend (default: the preset's, else policy)")
    parser.add_argument("--marked", nargs="+", choices=MARKED_SEARCHES, default=["auto"],
                        help="the host's searches from a source marked (ld.settings.marked_searches) by the "
                             "package's policy (auto), always or never, each a run (default: auto)")
    parser.add_argument("--peers", nargs="*", choices=PEERS, default=list(PEERS),
                        help="peers run on the same graphs (default: all; none: no peers)")
    parser.add_argument("--json", type=Path, help="where the record goes (default benchmarks/results/"
                                                  "<kind>-<host>-<commit>.json)")
    args = parser.parse_args(argv)
    for name, value in PRESETS[args.preset].items():
        if getattr(args, name, None) is None:
            setattr(args, name, [parse_spec(g) for g in value] if name == "graphs" else value)
    args.engines = args.engines or ["policy"]
    args.graphs += shared_meshes(small=args.kind == "small-graphs") if args.real else []
    return args


def main(argv=None):
    args = parse_args(argv)
    backend = ld.get_backend(args.backend)      # compiles (or loads) the kernels: never inside a clock
    graphs, env = [], None
    for spec in args.graphs:            # each graph let go before the next is built
        A, record = run_graph(spec, backend, args)
        env = env or environment(A)
        graphs.append(record)
        del A
    import numba
    from lagraph_dist.local.cpu_kernels import spin
    record = {
        "benchmark": args.kind, "backend": backend.name, "backend_requested": args.backend, "environment": env,
        "threads": numba.get_num_threads(), "numba": numba.__version__, "levels_definition": LEVELS_DEFINITION,
        # (whether a marked search's wide thin levels could run on two threads here, and numba's layer)
        "two_thread_levels": spin.two_threads_at_once(), "threading_layer": spin.threading_layer(),
        "directions": list(args.directions), "peers": list(args.peers), "engines": list(args.engines),
        "marked": list(args.marked),
        "host_search_edges": ld.settings.host_search_edges,
        "protocol": "one process; graph built once (symmetric) and the peers' graphs converted before any timing; "
                    f"each run: {plural(args.warmups, 'warm-up call')} a root, then timed calls a root from the "
                    "call to its result (ours to "
                    "A.backend.sync(); a peer's stop past --peer-seconds), median of all; every timed result "
                    "checked outside the clock (levels equal to scipy's BFS, themselves equal to the exact ones "
                    "of a mesh or a path; parents by ld.validate); us per level = median / levels; "
                    "ratios[peer][direction] = the peer's median / ours in that direction; construction: median "
                    "of --build-repeats timed builds after one warm-up, ours from_edges(symmetrize=True) against "
                    "scipy's csr_matrix((int8 ones, (i, j))) + sum_duplicates on both directions of the same edges",
        "graphs": graphs,
    }
    if all(graph["roots"] == [0] for graph in graphs):
        record["source"] = 0
    out = write_record(record, args.json or RESULTS / record_file(args.kind, env.get("host"), env.get("commit")))
    log(f"record written to {out}")
    print(summary(record, out.name), flush=True)
    return record


if __name__ == "__main__":
    main()
