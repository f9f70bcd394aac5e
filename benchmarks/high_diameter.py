"""High-diameter BFS: meshes and a long path, where the cost of a level, not of an edge, sets the
time (docs/benchmarking.md; issue 8).

    python3 benchmarks/high_diameter.py                          # meshes 1000x1000, 2000x2000; path of 1M
    python3 benchmarks/high_diameter.py --quick --backend cpu    # 100x100 mesh, 2000-vertex path, 1 repeat
    python3 benchmarks/high_diameter.py --meshes 4000x250 --path 0 --json /tmp/tall.json
    python3 benchmarks/high_diameter.py --meshes --path 0 --road 1000000 --real   # road-like and real meshes

Each graph is made symmetric and searched from vertex 0 (a mesh's corner, a path's end) by ours
(push and auto, on ``--backend``) and the peers (scipy csgraph, python-graphblas push and
push/pull, on the host's cores, their graphs converted outside the clock): one warm-up call, then
timed calls, the median reported. Levels = max level + 1 (rows + cols - 1 for a mesh, n for a
path); us a level divides by it. The expected levels are exact (mesh: row + col; path: index),
checked against csgraph.shortest_path; every timed result must have them, and its parents pass
``ld.validate``. python-graphblas takes 55-280 us a level on 2 cores, so minutes a search on the
million-level path (so does our CPU backend): run the path alone with ``--peer-repeats 1`` or
``--peers scipy``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import scipy.sparse.csgraph as csgraph

import lagraph_dist as ld

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import (RESULTS, SpecError, at_least, backend_option, build_timed, commit_of, contender_run,  # noqa: E402
                     count, device_of, each_graph, edges, graph_info, graph_name, log, md_table, our_bfs,
                     parse_spec, peers_option, preset, ratios, require_levels, run_peers, scipy_levels, sig, slug,
                     times, write_record)

SOURCE = 0
DIRECTIONS = ("push", "auto")

FULL = {"meshes": ["1000x1000", "2000x2000"], "path": 1_000_000, "repeats": 5, "peer_repeats": 3}
QUICK = {"meshes": ["100x100"], "path": 2000, "repeats": 1, "peer_repeats": 1}

LEVELS_DEFINITION = ("max level + 1: the number of frontiers, the source's included (the number of "
                     "products our BFS runs); rows + cols - 1 for a mesh from a corner, n for a path")


# -- the graphs ------------------------------------------------------------------------------
def exact_levels(spec):
    """The levels from SOURCE in closed form (numpy), None where there is none: vertex (r, c) of
    a mesh is r + c steps from the corner (0, 0), vertex i of a path i steps from its end."""
    if spec.kind == "mesh":
        row, col = np.divmod(np.arange(spec.n, dtype=np.int64), spec.cols)
        return row + col
    if spec.kind == "path":
        return np.arange(spec.n, dtype=np.int64)
    return None


def title(spec):
    """The graph's name in the record and the table."""
    return graph_name(spec) + (" (Matrix Market)" if spec.kind == "mtx" else "")


def shared_meshes():
    """The real meshes (jagmesh7, 4elt, wing) of the shared data folder ($LAGRAPH_DIST_DATA, else
    ../shared/data beside the checkout) that are present."""
    root = Path(os.environ.get("LAGRAPH_DIST_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
    names = ("lagraph/jagmesh7.mtx", "networkit/4elt.mtx", "networkit/wing.mtx")
    return [parse_spec(f"mtx:{root / name}") for name in names if (root / name).is_file()]


def parse_mesh(text):
    try:
        return parse_spec(f"mesh:{text}")
    except SpecError:
        raise argparse.ArgumentTypeError(f"a mesh is ROWSxCOLS with both >= 1, got {text!r}") from None


def build(spec, backend):
    """(A on ``backend``, the graph's record), the edges made symmetric."""
    A, seconds = build_timed(lambda: ld.Matrix.from_edges(*edges(spec, backend.xp), symmetrize=True, backend=backend))
    return A, graph_info(spec) | {"name": title(spec), "n": A.n, "nvals": A.nvals, "build_seconds": seconds}


def expected_levels(spec, S):
    """(the levels every run must give, how they were established): a mesh's or a path's exact
    levels, checked against scipy's own shortest paths over the gathered graph (an independent
    computation), or those shortest paths themselves where there is no closed form."""
    hops = scipy_levels(csgraph.shortest_path(S, unweighted=True, directed=True, indices=SOURCE))
    expected = exact_levels(spec)
    if expected is None:
        return hops, "csgraph.shortest_path's (no closed form); -1 where unreached"
    require_levels("csgraph.shortest_path", hops, expected)
    return expected, "exact (mesh: row + col, path: index), equal to csgraph.shortest_path's"


# -- the runs ----------------------------------------------------------------------------------
def time_run(contender, A, expected, repeats, levels, ours=False):
    """``contender`` (a harness Peer) from SOURCE (harness.contender_run), and its time a level."""
    run = contender_run(A, contender, [SOURCE], {SOURCE: expected}, repeats, ours=ours)
    return run | {"repeats": run["validated"], "us_per_level": 1e3 * run["median_ms"] / levels}


def run_graph(spec, backend, args):
    log(f"{title(spec)}: building on {backend.name}")
    A, record = build(spec, backend)
    S = A.to_scipy()
    expected, how = expected_levels(spec, S)
    levels = int(expected.max()) + 1
    record.update(levels=levels, reached=int((expected >= 0).sum()), expected_levels=how)
    log(f"{title(spec)}: n = {A.n:,}, {A.nvals:,} stored edges, {levels:,} levels")
    ours = {d: time_run(our_bfs(A, d, f"lagraph_dist {d}"), A, expected, args.repeats, levels, ours=True)
            for d in args.directions}
    theirs = run_peers(S, args.peers, lambda peer: time_run(peer, A, expected, args.peer_repeats, levels))
    record.update(lagraph_dist=ours, peers=theirs, ratios=ratios(ours, theirs))
    return A, record


# -- the record and the table ------------------------------------------------------------------
def device_tag(env):
    """The JSON name's device part: the GPU's name in lower case with dashes, or "cpu"."""
    return "cpu" if env["backend"] != "gpu" else slug(env["device"])


HEADER = ["graph", "levels", "run", "ms / BFS (median)", "us / level", "peer's time / ours", "fused levels",
          "host reads / level", "validated"]


def rows(record):
    """The record's table (here and in results/README.md): a row a graph and run."""
    made = []
    for graph in record["graphs"]:
        runs = [(f"lagraph_dist {d}", result, None) for d, result in graph["lagraph_dist"].items()]
        runs += [(peer, result, graph["ratios"].get(peer)) for peer, result in graph["peers"].items()]
        for label, result, ratios in runs:
            made.append([graph["name"], count(graph["levels"]), label, *_figures(result, ratios)])
    return made


def _figures(result, ratios):
    if "skipped" in result:
        return ["-"] * 5 + [f"skipped: {result['skipped']}"]
    stats = result.get("stats") or {}
    over_ours = ", ".join(f"{d} {times(r)}" for d, r in ratios.items()) if ratios else "-"
    return [sig(result["median_ms"], 4), sig(result["us_per_level"], 4), over_ours,
            count(stats["fused_levels"]) if "fused_levels" in stats else "-",
            sig(stats["host_reads_per_level"]) if "host_reads_per_level" in stats else "-",
            f"{result['validated']}/{result['repeats']}"]


def summary(record, name):
    """The record under a heading naming its file, commit and device."""
    env = record["environment"]
    return "\n".join([f"## `{name}`: commit `{commit_of(env)}`, {device_of(env)}", "",
                      f"Backend {record['backend']}, source {record['source']}; levels = {record['levels_definition']}.",
                      "", md_table(HEADER, rows(record))])


# -- command line ------------------------------------------------------------------------------
def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    backend_option(parser, "where our graphs live and our BFS runs (default auto: the GPU if CuPy sees one)")
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
    parser.add_argument("--repeats", type=at_least(1), help=f"our timed calls (default {FULL['repeats']})")
    parser.add_argument("--peer-repeats", type=at_least(1), help=f"each peer's timed calls (default {FULL['peer_repeats']})")
    parser.add_argument("--directions", nargs="+", choices=DIRECTIONS, default=list(DIRECTIONS),
                        help="our BFS directions (default: both)")
    peers_option(parser)
    parser.add_argument("--json", type=Path, help="where the record goes (default "
                        "benchmarks/results/high-diameter-<device>.json, <device> the GPU's name or cpu)")
    args = parser.parse_args(argv)
    defaults = QUICK if args.quick else FULL
    if args.meshes is None:
        args.meshes = [parse_mesh(m) for m in defaults["meshes"]]
    preset(args, defaults, ("path", "repeats", "peer_repeats"))
    if args.path < 0 or args.path == 1:
        parser.error(f"--path takes 0 (no path) or at least 2 vertices, got {args.path}")
    if args.road < 0 or 0 < args.road < 4:
        parser.error(f"--road takes 0 (none) or at least 4 points, got {args.road}")
    args.graphs = (args.meshes + [parse_spec(f"{kind}:{n}") for kind, n in (("path", args.path), ("road", args.road)) if n]
                   + (shared_meshes() if args.real else []))
    if not args.graphs:
        parser.error("nothing to search: give --meshes, --path, --road or --real")
    return args


def main(argv=None):
    args = parse_args(argv)
    backend = ld.get_backend(args.backend)
    graphs, env = each_graph(args.graphs, lambda spec: run_graph(spec, backend, args))
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
    out = write_record(record, args.json or RESULTS / f"high-diameter-{device_tag(env)}.json")
    log(f"record written to {out}")
    print(summary(record, out.name), flush=True)


if __name__ == "__main__":
    main()
