"""``lagraph-dist``: one BFS with a report, a Graph500-style benchmark, or a generated graph.

Works the same in a plain process (1 x 1 grid) and under ``mpiexec`` (every rank runs it;
rank 0 prints and writes files).
"""
from __future__ import annotations

import argparse
import sys
import time

from lagraph_dist.errors import InvalidValue, LagraphDistError

__all__ = ["main", "build_parser"]


def _grid_shape(text):
    try:
        rows, cols = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"grid must look like RxC (e.g. 2x3), got {text!r}") from None
    return rows, cols


def _graph_arguments(parser):
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--scale", "-g", type=int, help="Graph500 Kronecker graph with 2**SCALE vertices")
    source.add_argument("--mtx", "-f", help="Matrix Market coordinate file")
    parser.add_argument("--edgefactor", "-e", type=int, default=16, help="edges per vertex (default 16)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto")
    parser.add_argument("--grid", type=_grid_shape, default=None,
                        help="process grid RxC (default: most square over all ranks)")


def build_parser():
    parser = argparse.ArgumentParser(prog="lagraph-dist", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    one = commands.add_parser("bfs", help="BFS from some roots, with a per-level report")
    _graph_arguments(one)
    one.add_argument("--root", "-r", type=int, action="append", help="root vertex (repeatable)")
    one.add_argument("--roots", type=int, default=1, help="number of seeded roots when no --root")
    one.add_argument("--direction", choices=("push", "pull", "auto"), default="auto")
    one.add_argument("--no-validate", action="store_true", help="skip the Graph500 checks")
    one.add_argument("--stage-timing", action="store_true",
                     help="wait for the device at every product stage, so stage seconds are exact")

    bench = commands.add_parser("bench", help="Graph500-style benchmark with peers, JSON out")
    _graph_arguments(bench)
    bench.add_argument("--roots", type=int, default=64)
    bench.add_argument("--root-seed", type=int, default=2)
    bench.add_argument("--directions", default="push,auto", help="comma list of push, pull, auto")
    bench.add_argument("--peers", default="graphblas-push,graphblas-pushpull,scipy",
                       help="comma list of graphblas-push, graphblas-pushpull, scipy, cupyx-naive, "
                            "lagraph-cpu, or 'none'")
    bench.add_argument("--peer-roots", type=int, default=8, help="roots the peers run (default 8)")
    bench.add_argument("--no-check-levels", action="store_true",
                       help="skip comparing levels with python-graphblas")
    bench.add_argument("--json", help="write the JSON record here (rank 0)")
    bench.add_argument("--no-progress", action="store_true")

    check = commands.add_parser("check", help="our BFS against python-graphblas: levels exactly, "
                                              "parents by the Graph500 rules; exit 1 on differences")
    graph = check.add_mutually_exclusive_group(required=True)
    graph.add_argument("graph", nargs="?", help="Matrix Market file (.mtx or .mtx.gz)")
    graph.add_argument("--scale", "-g", type=int, help="Graph500 Kronecker graph with 2**SCALE vertices")
    check.add_argument("--edgefactor", "-e", type=int, default=16)
    check.add_argument("--seed", type=int, default=0)
    check.add_argument("--root", "-r", type=int, action="append", help="root vertex (repeatable)")
    check.add_argument("--roots", type=int, default=4, help="number of seeded roots when no --root")
    check.add_argument("--direction", choices=("push", "pull", "auto"), default="auto")
    check.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto")
    check.add_argument("--grid", type=_grid_shape, default=None)
    check.add_argument("--merge-duplicates", action="store_true",
                       help="merge entries a .mtx file stores twice instead of rejecting it")

    gen = commands.add_parser("generate", help="write a Kronecker graph as Matrix Market")
    gen.add_argument("--scale", "-g", type=int, required=True)
    gen.add_argument("--edgefactor", "-e", type=int, default=16)
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--out", "-o", required=True)
    return parser


def _load_graph(args):
    from lagraph_dist import Grid, Matrix, kronecker
    grid = Grid(*args.grid) if args.grid else Grid()
    started = time.perf_counter()
    if args.mtx:
        A = Matrix.from_mtx(args.mtx, grid=grid, backend=args.backend)
        info = {"kind": "mtx", "path": args.mtx}
    else:
        A = kronecker(args.scale, args.edgefactor, seed=args.seed, grid=grid, backend=args.backend)
        info = {"kind": "kronecker", "scale": args.scale, "edgefactor": args.edgefactor, "seed": args.seed}
    A.backend.sync()
    info["build_seconds"] = time.perf_counter() - started
    return A, info


def _say(A, *lines):
    if A.grid.rank == 0:
        print(*lines, sep="\n", flush=True)


def _run_bfs(args):
    from lagraph_dist import bfs, ops
    ops.SYNC_STAGE_TIMERS = args.stage_timing
    from lagraph_dist.bench import pick_roots
    from lagraph_dist.validation import validate
    A, info = _load_graph(args)
    roots = args.root or pick_roots(A, args.roots, seed=2)
    _say(A, f"graph: {info} n={A.n} stored edges={A.nvals} grid={A.grid.rows}x{A.grid.cols} "
            f"backend={A.backend.name} (built in {info['build_seconds']:.2f} s)")
    for root in roots:
        started = time.perf_counter()
        result = bfs(A, root, direction=args.direction)
        A.backend.sync()
        elapsed = time.perf_counter() - started
        levels = result.levels.to_numpy()
        if not args.no_validate:
            validate(A, root, levels, result.parents.to_numpy())
        reached = int((levels >= 0).sum())
        _say(A, f"root {root}: reached {reached} vertices in {int(levels.max())} levels, "
                f"{1e3 * elapsed:.2f} ms{'' if args.no_validate else ', valid'}",
             "  level dir   frontier  discovered  edges_examined  expand_B   fold_B  ms")
        for s in result.stats:
            _say(A, f"  {s['level']:5d} {s['direction']:4s} {s['frontier']:10d} {s['discovered']:11d} "
                    f"{s['edges_examined']:15d} {s['bytes']['expand']:9d} {s['bytes']['fold']:8d} "
                    f"{1e3 * s['seconds']:.3f}")


def _run_bench(args):
    from lagraph_dist.bench import BenchConfig, format_table, run_bench, write_json
    directions = tuple(d for d in args.directions.split(",") if d)
    for d in directions:
        if d not in ("push", "pull", "auto"):
            raise InvalidValue(f"unknown direction {d!r} in --directions")
    peers = () if args.peers == "none" else tuple(p for p in args.peers.split(",") if p)
    from lagraph_dist.bench import PEERS
    for p in peers:
        if p not in PEERS:
            raise InvalidValue(f"unknown peer {p!r} in --peers; choose from {', '.join(PEERS)}")
    A, info = _load_graph(args)
    config = BenchConfig(roots=args.roots, root_seed=args.root_seed, directions=directions,
                         peers=peers, peer_roots=args.peer_roots,
                         check_levels=not args.no_check_levels, progress=not args.no_progress)
    record = run_bench(A, info, config)
    if A.grid.rank == 0:
        print(format_table(record), flush=True)
        if args.json:
            write_json(record, args.json)
            print(f"wrote {args.json}", flush=True)


def _run_generate(args):
    from lagraph_dist import Grid, kronecker
    from lagraph_dist.mtx import write_mtx
    A = kronecker(args.scale, args.edgefactor, seed=args.seed, grid=Grid(), backend="cpu")
    S = A.to_scipy(root=0)
    if A.grid.rank == 0:
        coo = S.tocoo()
        write_mtx(args.out, coo.row, coo.col, A.n, symmetric=True)
        print(f"wrote {args.out}: n={A.n}, {S.nnz} stored edges", flush=True)


def _run_check(args):
    from lagraph_dist.check import run_check
    return run_check(args.graph, scale=args.scale, edgefactor=args.edgefactor, seed=args.seed,
                     roots=args.root, nroots=args.roots, direction=args.direction,
                     backend=args.backend, grid_shape=args.grid,
                     merge_duplicates=args.merge_duplicates)


def main(argv=None):
    args = build_parser().parse_args(argv)
    runners = {"bfs": _run_bfs, "bench": _run_bench, "generate": _run_generate, "check": _run_check}
    try:
        status = runners[args.command](args)
    except (LagraphDistError, ValueError, TypeError, IndexError, OSError) as exc:
        print(f"lagraph-dist: error: {exc}", file=sys.stderr, flush=True)
        return 2
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
