"""High-diameter BFS: 2D meshes and a long path, where the cost of a level, not of an edge, sets
the time (docs/benchmarking.md; issue 8).

    python3 benchmarks/high_diameter.py                          # meshes 1000x1000, 2000x2000; path of 1M
    python3 benchmarks/high_diameter.py --quick --backend cpu    # 100x100 mesh, 2000-vertex path, 1 repeat
    python3 benchmarks/high_diameter.py --meshes 4000x250 --path 0 --json /tmp/tall.json
    python3 benchmarks/high_diameter.py --meshes --path 0 --road 1000000 --real   # road-like and real meshes

Each graph is built on the backend asked for, made symmetric, and searched from vertex 0 (a
corner of the mesh, an end of the path). Side by side in one run, on that graph: lagraph_dist
``bfs`` push and auto (one warm-up call, then ``--repeats`` timed calls, each from the call to
``A.backend.sync()``), scipy.sparse.csgraph.breadth_first_order with predecessors, and
python-graphblas push and push/pull through ``lagraph_dist.tools.reference`` (each peer's graph
converted once, outside the timing: scipy's to the float64 CSR csgraph works on, else it would
convert it in every call; one warm-up call, then ``--peer-repeats`` timed calls). A run's time
is the median of its timed calls. The peers run on the host's CPU cores.

Levels: a search has max level + 1 levels, the source's level 0 included. That is the number of
frontiers, and the number of products our BFS runs (the last one finds nothing). A rows x cols
mesh searched from a corner has rows + cols - 1 levels; a path of n vertices has n. Every run's
time per level divides by this same count.

Validation (never timed): the expected levels are exact (mesh: row + col; path: the index) and
are checked against csgraph.shortest_path on the same graph (a fraction of a second).
Every timed call's result is checked. Ours and python-graphblas's levels must equal the
expected ones. scipy's predecessor tree must pass ``ld.validate`` with the expected levels:
every tree edge is an edge of the graph and goes one level up, so the tree's depths are those
levels. Every parent array must pass ``ld.validate`` (Graph500 rules).

Cost of the defaults: python-graphblas took 55 (push) to 280 (push/pull) us a level on the
2-core development machine, so on the million-level path each of its searches takes minutes,
and so does each of ours on the CPU backend. To fit a time limit, run the path on its own
(``--meshes --path 1000000``) with ``--peer-repeats 1``, or without python-graphblas
(``--peers scipy``).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld
from lagraph_dist.tools.bench import environment, write_json
from lagraph_dist.io.generators import grid2d_edges, knn_edges
from lagraph_dist.io.mtx import read_mtx

SOURCE = 0
DIRECTIONS = ("push", "auto")
PEERS = ("scipy", "graphblas-push", "graphblas-pushpull")
RESULTS = Path(__file__).resolve().parent / "results"

FULL = {"meshes": ["1000x1000", "2000x2000"], "path": 1_000_000, "repeats": 5, "peer_repeats": 3}
QUICK = {"meshes": ["100x100"], "path": 2000, "repeats": 1, "peer_repeats": 1}

LEVELS_DEFINITION = ("max level + 1: the number of frontiers, the source's included (the number of "
                     "products our BFS runs); rows + cols - 1 for a mesh from a corner, n for a path")


# -- the graphs ------------------------------------------------------------------------------
@dataclass
class GraphSpec:
    """A graph to search: its name and record, its edges in one direction (``edges(xp)``), and
    its exact levels from ``SOURCE`` (``expected_levels()``, numpy; None: no closed form, the
    levels are scipy's shortest paths on the built graph, -1 where unreached)."""

    name: str
    info: dict
    n: int
    edges: object
    expected_levels: object = None


def mesh(rows, cols):
    n = rows * cols

    def expected_levels():
        # vertex (r, c) is r * cols + c, and from the corner (0, 0) it is r + c steps away
        row, col = np.divmod(np.arange(n, dtype=np.int64), cols)
        return row + col

    return GraphSpec(f"mesh {rows}x{cols}", {"kind": "mesh", "rows": rows, "cols": cols}, n,
                     lambda xp: grid2d_edges(rows, cols, xp=xp), expected_levels)


def path(n):
    def edges(xp):
        src = xp.arange(n - 1, dtype=xp.int64)
        return src, src + 1

    return GraphSpec(f"path {n}", {"kind": "path"}, n, edges,
                     lambda: np.arange(n, dtype=np.int64))    # vertex i is i steps from 0


def road(n, k=3):
    """A road-like graph: n points in the unit square, each joined to its k nearest
    (lagraph_dist.io.generators.knn_edges); degrees k to about 2k, depth about sqrt(n)."""
    def edges(xp):
        src, dst = knn_edges(n, k)
        return xp.asarray(src), xp.asarray(dst)

    return GraphSpec(f"road {n} (k={k})", {"kind": "road", "k": k}, n, edges)


def real_mesh(path):
    """A Matrix Market graph (a finite-element mesh of the shared data: jagmesh7, 4elt, wing)."""
    graph = read_mtx(path)

    def edges(xp):
        return xp.asarray(graph.src), xp.asarray(graph.dst)

    return GraphSpec(f"{Path(path).stem} (Matrix Market)", {"kind": "real", "file": Path(path).name},
                     graph.nrows, edges)


def shared_meshes():
    """The real meshes of the shared data folder ($LAGRAPH_DIST_DATA, else ../shared/data beside
    the checkout) that are present."""
    root = Path(os.environ.get("LAGRAPH_DIST_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
    names = ("lagraph/jagmesh7.mtx", "networkit/4elt.mtx", "networkit/wing.mtx")
    return [real_mesh(root / name) for name in names if (root / name).is_file()]


def parse_mesh(text):
    match = re.fullmatch(r"(\d+)x(\d+)", text)
    if not match or min(int(match[1]), int(match[2])) < 1:
        raise argparse.ArgumentTypeError(f"a mesh is ROWSxCOLS with both >= 1, got {text!r}")
    return mesh(int(match[1]), int(match[2]))


def build(spec, backend):
    """(A on ``backend``, the graph's record), the edges made symmetric."""
    started = time.perf_counter()
    src, dst = spec.edges(backend.xp)
    A = ld.Matrix.from_edges(src, dst, spec.n, symmetrize=True, backend=backend)
    backend.sync()
    return A, spec.info | {"name": spec.name, "n": A.n, "nvals": A.nvals,
                           "build_seconds": time.perf_counter() - started}


# -- validation (never timed) ----------------------------------------------------------------
def require_levels(who, levels, expected):
    """Raise ValidationError naming the first vertex where ``levels`` differ from ``expected``."""
    if levels.shape != expected.shape:
        raise ld.ValidationError(f"{who}: {levels.shape[0]} levels for {expected.shape[0]} vertices")
    wrong = np.flatnonzero(levels != expected)
    if wrong.size:
        v = int(wrong[0])
        raise ld.ValidationError(f"{who}: vertex {v} is at level {int(levels[v])}, expected "
                                 f"{int(expected[v])} ({wrong.size} vertices differ)")


def expected_levels(spec, S):
    """(the levels every run must give, how they were established): a mesh's or a path's exact
    levels, checked against scipy's own shortest paths over the gathered graph (an independent
    computation), or those shortest paths themselves where there is no closed form."""
    hops = csgraph.shortest_path(S, unweighted=True, directed=True, indices=SOURCE)
    hops = np.where(np.isinf(hops), -1, hops).astype(np.int64)
    if spec.expected_levels is None:
        return hops, "csgraph.shortest_path's (no closed form); -1 where unreached"
    expected = spec.expected_levels()
    require_levels("csgraph.shortest_path", hops, expected)
    return expected, "exact (mesh: row + col, path: index), equal to csgraph.shortest_path's"


def scipy_parents(predecessors):
    """csgraph's predecessors in our convention: -1 unreached, the source its own parent."""
    parents = np.where(predecessors < 0, -1, predecessors).astype(np.int64)
    parents[SOURCE] = SOURCE
    return parents


# -- the runs ----------------------------------------------------------------------------------
@dataclass
class Runner:
    """One contender: ``search()`` is the timed BFS from SOURCE, run to completion;
    ``check(result)`` validates its result (untimed) and returns what to keep of it."""

    name: str
    search: object
    check: object
    repeats: int


def our_runner(A, direction, expected, repeats):
    def search():
        result = ld.bfs(A, SOURCE, direction=direction)
        A.backend.sync()
        return result

    def check(result):
        levels = result.levels.to_numpy()
        require_levels(f"lagraph_dist {direction}", levels, expected)
        ld.validate(A, SOURCE, levels, result.parents.to_numpy())
        return level_stats(result.stats)

    return Runner(f"lagraph_dist {direction}", search, check, repeats)


def level_stats(records):
    """What ``res.stats`` says about one search: how many levels ran fused, host reads, seconds."""
    host_reads = float(sum(r["host_reads"] for r in records))
    return {
        "levels": len(records),
        "fused_levels": sum(1 for r in records if r["fused"]),
        "push_levels": sum(1 for r in records if r["direction"] == "push"),
        "pull_levels": sum(1 for r in records if r["direction"] == "pull"),
        "host_reads": host_reads,
        "host_reads_per_level": host_reads / max(len(records), 1),
        "seconds": float(sum(r["seconds"] for r in records)),
    }


def peer_runners(A, S, expected, peers, repeats):
    """([Runner], {peer: why it was skipped}); each peer's graph is built here, untimed."""
    runners, skipped = [], {}
    if "scipy" in peers:
        weighted = sp.csr_matrix(S, dtype=np.float64)     # what csgraph would convert S to per call

        def check_scipy(result):
            ld.validate(A, SOURCE, expected, scipy_parents(result[1]))
        runners.append(Runner("scipy", lambda: csgraph.breadth_first_order(
            weighted, SOURCE, directed=True, return_predecessors=True), check_scipy, repeats))
    wanted = [p for p in peers if p.startswith("graphblas")]
    if wanted:
        from lagraph_dist.tools import reference
        try:
            prepared = reference.prepare(S)
        except ImportError as exc:
            return runners, {peer: str(exc) for peer in wanted}
        for peer in wanted:
            direction = "push" if peer == "graphblas-push" else "pushpull"

            def check_graphblas(result, peer=peer):
                require_levels(peer, result[0], expected)
                ld.validate(A, SOURCE, result[0], result[1])
            runners.append(Runner(peer, lambda d=direction: reference.bfs(prepared, SOURCE, direction=d),
                                  check_graphblas, repeats))
    return runners, skipped


def time_runner(runner, levels, log):
    """One warm-up call, then ``runner.repeats`` timed calls, each result validated."""
    runner.search()
    seconds, kept = [], []
    for _ in range(runner.repeats):
        started = time.perf_counter()
        result = runner.search()
        seconds.append(time.perf_counter() - started)
        kept.append(runner.check(result))
        del result
    median = float(np.median(seconds))
    log(f"  {runner.name}: {1e3 * median:.2f} ms ({1e6 * median / levels:.2f} us a level), "
        f"{len(seconds)} timed, all validated")
    # reaching this line means every timed result passed its checks (a failure raises)
    record = {"repeats": len(seconds), "seconds": seconds, "median_ms": 1e3 * median,
              "us_per_level": 1e6 * median / levels, "validated": len(seconds), "levels_equal": True}
    if kept[0] is not None:
        # the per-level figures of the call nearest the median
        record["stats"] = kept[int(np.argsort(seconds)[len(seconds) // 2])]
    return record


def ratios(ours, peers):
    """Each peer's median time over each of our directions' (above 1: we are faster)."""
    return {peer: {d: run["median_ms"] / mine["median_ms"] for d, mine in ours.items()}
            for peer, run in peers.items() if "median_ms" in run}


def run_graph(spec, backend, args, log):
    log(f"{spec.name}: building on {backend.name}")
    A, record = build(spec, backend)
    S = A.to_scipy()
    expected, how = expected_levels(spec, S)
    levels = int(expected.max()) + 1
    record.update(levels=levels, reached=int((expected >= 0).sum()), expected_levels=how)
    log(f"{spec.name}: n = {A.n:,}, {A.nvals:,} stored edges, {levels:,} levels")
    ours = {d: time_runner(our_runner(A, d, expected, args.repeats), levels, log)
            for d in args.directions}
    runners, skipped = peer_runners(A, S, expected, args.peers, args.peer_repeats)
    peers = {peer: {"skipped": why} for peer, why in skipped.items()}
    for runner in runners:
        peers[runner.name] = time_runner(runner, levels, log)
    record.update(lagraph_dist=ours, peers=peers, ratios=ratios(ours, peers))
    return A, record


# -- the record and the table ------------------------------------------------------------------
def device_tag(env):
    """The JSON name's device part: the GPU's name in lower case with dashes, or "cpu"."""
    if env["backend"] != "gpu":
        return "cpu"
    return re.sub(r"[^a-z0-9]+", "-", env["device"].lower()).strip("-")


def format_table(record):
    """The record as a heading and a markdown table: one row per graph and run."""
    lines = [f"device: {record['environment'].get('device', '?')}; backend: {record['backend']}; "
             f"source {record['source']}; levels = {record['levels_definition']}", "",
             "| graph | levels | run | ms / BFS | us / level | time / ours "
             f"({', '.join(record['directions'])}) | fused levels | host reads / level | stats s "
             "| validated |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for graph in record["graphs"]:
        ours = graph["lagraph_dist"]
        runs = [(f"lagraph_dist {d}", run) for d, run in ours.items()] + list(graph["peers"].items())
        for name, run in runs:
            lines.append(f"| {graph['name']} | {graph['levels']:,} | {name} | "
                         + _row_figures(run, [mine["median_ms"] for mine in ours.values()]) + " |")
    return "\n".join(lines)


def _row_figures(run, ours_ms):
    if "skipped" in run:
        return f"- | - | - | - | - | - | skipped: {run['skipped']}"
    versus = ", ".join(f"{run['median_ms'] / ms:.3g}" for ms in ours_ms)
    stats = run.get("stats")
    per_level = (f"{stats['fused_levels']:,} | {stats['host_reads_per_level']:.2f} | {stats['seconds']:.3f}"
                 if stats else "- | - | -")
    return (f"{run['median_ms']:.4g} | {run['us_per_level']:.4g} | {versus} | {per_level} | "
            f"{run['validated']}/{run['repeats']}")


# -- command line ------------------------------------------------------------------------------
def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto",
                        help="where our graphs live and our BFS runs (default auto: the GPU if "
                             "CuPy sees one)")
    parser.add_argument("--quick", action="store_true",
                        help=f"small sizes: mesh {' '.join(QUICK['meshes'])}, path {QUICK['path']}, "
                             f"{QUICK['repeats']} repeat each (explicit options still win)")
    parser.add_argument("--meshes", type=parse_mesh, nargs="*", metavar="ROWSxCOLS",
                        help=f"meshes to search (default {' '.join(FULL['meshes'])}; none: no meshes)")
    parser.add_argument("--path", type=int, metavar="N",
                        help=f"vertices of the path (default {FULL['path']:,}; 0: no path)")
    parser.add_argument("--road", type=int, default=0, metavar="N",
                        help="also a road-like graph of N points (k-nearest neighbours; 0: none)")
    parser.add_argument("--real", action="store_true",
                        help="also the real meshes of the shared data folder that are present "
                             "(jagmesh7, 4elt, wing; $LAGRAPH_DIST_DATA or ../shared/data)")
    parser.add_argument("--repeats", type=int, help=f"our timed calls (default {FULL['repeats']})")
    parser.add_argument("--peer-repeats", type=int,
                        help=f"each peer's timed calls (default {FULL['peer_repeats']})")
    parser.add_argument("--directions", nargs="+", choices=DIRECTIONS, default=list(DIRECTIONS),
                        help="our BFS directions (default: both)")
    parser.add_argument("--peers", nargs="*", choices=PEERS, default=list(PEERS),
                        help="peers run on the same graphs (default: all; none: no peers)")
    parser.add_argument("--json", type=Path, help="where the record goes (default "
                        "benchmarks/results/high-diameter-<device>.json, <device> the GPU's name or cpu)")
    args = parser.parse_args(argv)
    defaults = QUICK if args.quick else FULL
    if args.meshes is None:
        args.meshes = [parse_mesh(m) for m in defaults["meshes"]]
    for name in ("path", "repeats", "peer_repeats"):
        if getattr(args, name) is None:
            setattr(args, name, defaults[name])
    if args.path < 0 or args.path == 1:
        parser.error(f"--path takes 0 (no path) or at least 2 vertices, got {args.path}")
    if args.repeats < 1 or args.peer_repeats < 1:
        parser.error("--repeats and --peer-repeats must be at least 1")
    if args.road < 0 or 0 < args.road < 4:
        parser.error(f"--road takes 0 (none) or at least 4 points, got {args.road}")
    args.graphs = (args.meshes + ([path(args.path)] if args.path else []) + ([road(args.road)] if args.road else [])
                   + (shared_meshes() if args.real else []))
    if not args.graphs:
        parser.error("nothing to search: give --meshes, --path, --road or --real")
    return args


def main(argv=None):
    args = parse_args(argv)
    backend = ld.get_backend(args.backend)

    def log(text):
        print(text, file=sys.stderr, flush=True)

    graphs, env = [], None
    for spec in args.graphs:
        A, record = run_graph(spec, backend, args, log)
        env = env or environment(A)
        graphs.append(record)
        del A
    record = {
        "benchmark": "high-diameter", "backend": backend.name, "backend_requested": args.backend,
        "environment": env, "source": SOURCE, "levels_definition": LEVELS_DEFINITION,
        "directions": list(args.directions), "peers": list(args.peers),
        "protocol": "graph built once and made symmetric; each run: one warm-up call, then timed calls "
                    "from the call to completion (A.backend.sync() for ours), median reported; peers' "
                    "graphs converted before timing; every timed result validated (levels equal the "
                    "exact ones, parents pass ld.validate); us per level = median time / levels; "
                    "ratios[peer][direction] = the peer's median time / ours in that direction",
        "graphs": graphs,
    }
    out = args.json or RESULTS / f"high-diameter-{device_tag(env)}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_json(record, out)
    log(f"record written to {out}")
    print(format_table(record), flush=True)


if __name__ == "__main__":
    main()
