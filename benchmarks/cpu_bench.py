"""The CPU benchmark (issue 21): our BFS in one process beside what a user without a GPU would
pick instead (scipy csgraph, python-graphblas push and push/pull through ``tools.reference``),
on the same graphs, roots and process, and the graphs' construction beside scipy's.

    python benchmarks/cpu_bench.py             # full sizes: see FULL (about 10 minutes on 2 cores)
    python benchmarks/cpu_bench.py --small     # tiny sizes (the smoke test's)
    python benchmarks/cpu_bench.py --graphs kron:18 mesh:1000x1000 --peers scipy --json /tmp/x.json

Graphs: harness specs built from their edges; roots: seeded ones of degree > 0 for Kronecker,
vertex 0 otherwise. Ours runs auto, push and (where each pull level does not read every unvisited
row) pull. A run: one warm-up call, then ``--repeats`` timed calls a root (a peer's stop past
``--peer-seconds``), the median reported; the peers' graphs converted before any clock; every
timed result checked outside it (levels equal to scipy's BFS tree's depths, parents through
``ld.validate``). Construction: ``Matrix.from_edges(symmetrize=True)`` against scipy's CSR of both
directions + ``sum_duplicates``; with ``--io`` also ``from_scipy`` and ``from_mtx`` against theirs.
The record: results/cpu-<host>-<commit>.json (``--json``), tabled by results_report.py.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import lagraph_dist as ld
from lagraph_dist.tools.bench import pick_roots

sys.path.insert(0, str(Path(__file__).resolve().parent))      # benchmarks/, for harness
from harness import (RESULTS, SpecError, at_least, contender_run, count, each_graph, edges, graph_info,  # noqa: E402
                     graph_name, log, md_table, our_bfs, parse_spec, peers_option, preset, ratios, record_file,
                     run_peers, scipy_csr, sig, time_summary, times, timed_calls, write_record)

FULL = {"graphs": ["kron:16", "kron:18", "kron:20", "mesh:300x300", "mesh:1000x1000", "path:100000",
                   "road:1000000"], "roots": 4, "repeats": 5, "peer_repeats": 3}
SMALL = {"graphs": ["kron:8", "mesh:12x10", "path:300", "road:500"], "roots": 2, "repeats": 2, "peer_repeats": 1}
DIRECTIONS = ("auto", "push", "pull")
#: a mesh of at most this many vertices has its pull timed
PULL_MESH = 100_000


# -- the graphs ------------------------------------------------------------------------------
def parse_graph(text):
    """The Spec of a graph this benchmark builds from its edges: kron, mesh, path or road."""
    spec = parse_spec(text)
    if spec.kind == "mtx":
        raise SpecError(f"{text!r}: a graph is kron:SCALE, mesh:ROWSxCOLS, path:N or road:N (built from its edges)")
    return spec


def pull_timed(spec):
    """Whether a pull level is cheap enough to time: each reads every unvisited row's in-edges up
    to a frontier one, and a path, a road or a big mesh has thousands of levels."""
    return spec.kind == "kron" or (spec.kind == "mesh" and spec.n <= PULL_MESH)


# -- construction --------------------------------------------------------------------------------
def construction(spec, src, dst, args):
    """(our Matrix, the construction record): ours and scipy's builds of the same edges."""
    ours, _, A = timed_calls(lambda: ld.Matrix.from_edges(src, dst, spec.n, symmetrize=True, backend="cpu"),
                             args.build_repeats)
    theirs, _, S = timed_calls(lambda: scipy_csr(src, dst, spec.n), args.build_repeats)
    if (S.astype(bool) != A.to_scipy().astype(bool)).nnz:
        raise ld.ValidationError(f"{graph_name(spec, True)}: our graph differs from scipy's CSR of the same edges")
    record = {"edges": int(src.shape[0]), "from_edges": time_summary(ours), "scipy_csr": time_summary(theirs)}
    if args.io:
        coo = sp.coo_matrix((np.ones(2 * src.shape[0], np.int8), (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                            shape=(spec.n, spec.n))

        def scipy_from_coo():
            S = coo.tocsr()
            S.sum_duplicates()
            return S
        record["from_scipy"] = time_summary(timed_calls(lambda: ld.Matrix.from_scipy(coo, backend="cpu"),
                                                   args.build_repeats).seconds)
        record["scipy_tocsr"] = time_summary(timed_calls(scipy_from_coo, args.build_repeats).seconds)
        record.update(matrix_market(A, args))
    ratio = record["scipy_csr"]["median_ms"] / record["from_edges"]["median_ms"]
    log(f"  build: ours {record['from_edges']['median_ms']:.1f} ms, scipy CSR {record['scipy_csr']['median_ms']:.1f} ms "
        f"(scipy / ours {ratio:.2f})")
    return A, record


def matrix_market(A, args):
    """from_mtx against scipy.io.mmread + tocsr on a file of the graph (written once, untimed)."""
    import scipy.io
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.mtx"
        A.to_mtx(path)

        def scipy_read():
            S = scipy.io.mmread(path).tocsr()
            S.sum_duplicates()
            return S
        ours = timed_calls(lambda: ld.Matrix.from_mtx(path, backend="cpu"), args.build_repeats).seconds
        theirs = timed_calls(scipy_read, args.build_repeats).seconds
    return {"from_mtx": time_summary(ours), "scipy_mmread": time_summary(theirs)}


# -- the searches ---------------------------------------------------------------------------------
def run_graph(spec, args):
    name = graph_name(spec, grouped=True)
    log(f"{name}: generating and building")
    src, dst, _ = edges(spec)
    A, built = construction(spec, src, dst, args)
    del src, dst
    S = A.to_scipy()
    roots = pick_roots(A, args.roots, 2) if spec.drawn_roots else [0]
    from lagraph_dist.tools import reference
    expected = {root: reference.bfs_levels_scipy(S, root) for root in roots}
    depth = int(max(levels.max() for levels in expected.values())) + 1
    log(f"{name}: n = {A.n:,}, {A.nvals:,} stored edges, roots {roots}, {depth:,} levels")
    directions = [d for d in args.directions if d != "pull" or pull_timed(spec)]
    ours = {d: contender_run(A, our_bfs(A, d, f"ours {d}"), roots, expected, args.repeats, ours=True) for d in directions}
    theirs = run_peers(S, args.peers, lambda peer: contender_run(A, peer, roots, expected, args.peer_repeats,
                                                                 budget=args.peer_seconds / len(roots)))
    record = graph_info(spec) | {"name": name, "n": A.n, "nvals": A.nvals, "roots": roots, "levels": depth,
                                 "reached": [int((expected[r] >= 0).sum()) for r in roots], "construction": built,
                                 "lagraph_dist": ours, "peers": theirs, "ratios": ratios(ours, theirs)}
    if "pull" in args.directions and not pull_timed(spec):
        record["not_run"] = {"pull": "each pull level reads every unvisited row's in-edges up to a frontier one, "
                                     "and this graph has thousands of levels"}
    return A, record


# -- the record and the table ------------------------------------------------------------------
def record_name(env):
    return record_file("cpu", env.get("host"), env.get("commit"))


PEERS_SHOWN = ("scipy", "graphblas-push", "graphblas-pushpull")
HEADER = ["graph", "levels", "roots", "ours auto", "ours push", "ours pull", "scipy csgraph", "graphblas push",
          "graphblas push/pull", "scipy / ours auto", "graphblas push/pull / ours auto",
          "build ms: ours / scipy (scipy / ours)"]


def rows(record):
    """The record's table (here and in results/README.md): median ms a search, a row a graph."""
    made = []
    for graph in record["graphs"]:
        ours, peers, build = graph["lagraph_dist"], graph["peers"], graph["construction"]
        cells = [sig(ours[d]["median_ms"], 4) if d in ours else "-" for d in DIRECTIONS]
        cells += [sig(peers[p]["median_ms"], 4) if "median_ms" in peers.get(p, {}) else "-" for p in PEERS_SHOWN]
        versus = [times(graph["ratios"].get(p, {}).get("auto")) for p in ("scipy", "graphblas-pushpull")]
        build_ratio = build["scipy_csr"]["median_ms"] / build["from_edges"]["median_ms"]
        made.append([graph["name"], count(graph["levels"]), len(graph["roots"]), *cells, *versus,
                     f"{sig(build['from_edges']['median_ms'], 4)} / {sig(build['scipy_csr']['median_ms'], 4)} "
                     f"({times(build_ratio)})"])
    return made


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true", help=f"tiny sizes: {' '.join(SMALL['graphs'])}")
    parser.add_argument("--graphs", type=parse_graph, nargs="+", metavar="KIND:SIZE",
                        help=f"kron:SCALE, mesh:ROWSxCOLS, path:N, road:N (default {' '.join(FULL['graphs'])})")
    parser.add_argument("--roots", type=at_least(1), help=f"Kronecker roots (default {FULL['roots']})")
    parser.add_argument("--repeats", type=at_least(1), help=f"our timed calls a root (default {FULL['repeats']})")
    parser.add_argument("--peer-repeats", type=at_least(1),
                        help=f"a peer's timed calls a root (default {FULL['peer_repeats']})")
    parser.add_argument("--peer-seconds", type=float, default=60.0,
                        help="a peer's timed calls on one graph stop past this many seconds (default 60)")
    parser.add_argument("--build-repeats", type=at_least(1), default=3, help="timed builds of each kind (default 3)")
    parser.add_argument("--io", action="store_true", help="also from_scipy and from_mtx against scipy's")
    parser.add_argument("--json", type=Path, help="where the record goes (default benchmarks/results/"
                                                  "cpu-<host>-<commit>.json)")
    parser.add_argument("--directions", nargs="+", choices=DIRECTIONS, default=list(DIRECTIONS))
    peers_option(parser)
    args = parser.parse_args(argv)
    sizes = SMALL if args.small else FULL
    args.graphs = args.graphs or [parse_graph(g) for g in sizes["graphs"]]
    return preset(args, sizes, ("roots", "repeats", "peer_repeats"))


def main(argv=None):
    args = parse_args(argv)
    backend = ld.get_backend("cpu")          # compiles (or loads) the kernels: never inside a clock
    graphs, env = each_graph(args.graphs, lambda spec: run_graph(spec, args))
    import numba
    record = {
        "benchmark": "cpu", "backend": backend.name, "environment": env, "threads": numba.get_num_threads(),
        "numba": numba.__version__, "directions": list(args.directions), "peers": list(args.peers),
        "protocol": "one process; graph built once (symmetric) and the peers' graphs converted before any timing; "
                    "each run: one warm-up call, then timed calls a root from the call to its result (a peer's "
                    "stop past --peer-seconds), median of all; every timed result checked outside the clock "
                    "(levels equal to scipy's BFS tree's depths, parents by ld.validate); ratios[peer][direction] "
                    "= the peer's median / ours in that direction; construction: median of --build-repeats "
                    "timed builds after one warm-up, ours from_edges(symmetrize=True) against scipy's "
                    "csr_matrix((int8 ones, (i, j))) + sum_duplicates on both directions of the same edges",
        "graphs": graphs,
    }
    print(f"{env['device']} ({env['cpu_count']} cores, {record['threads']} threads); median ms\n", flush=True)
    print(md_table(HEADER, rows(record)), flush=True)
    out = write_record(record, args.json or RESULTS / record_name(env))
    log(f"record written to {out}")
    return record


if __name__ == "__main__":
    main()
