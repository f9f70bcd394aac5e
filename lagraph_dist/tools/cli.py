"""``lagraph-dist``: one BFS with a report, a Graph500-style benchmark, a generated graph, the
plot of a benchmark record, a check against python-graphblas, or a memory estimate.

Works the same in a plain process (1 x 1 grid) and under ``mpiexec`` (every rank runs it;
rank 0 prints, writes files and reports errors; every rank exits with the same status).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from lagraph_dist.core.version import __version__
from lagraph_dist.algebra import ops
from lagraph_dist.algorithms import bfs
from lagraph_dist.tools.bench import PEERS, BenchConfig, Progress, device_name, format_table, pick_roots, run_bench, write_json
from lagraph_dist.tools.check import run_check
from lagraph_dist.io.generators import kronecker
from lagraph_dist.comm.grid import Grid, default_grid
from lagraph_dist.algebra.matrix import Matrix
from lagraph_dist.algebra.memory import estimate_memory, multi_search_bytes
from lagraph_dist.io.mtx import write_mtx
from lagraph_dist.tools.plot import plot_record, pyplot
from lagraph_dist.tools.validate import validate
from lagraph_dist.core.errors import InvalidValue, LagraphDistError, open_file
from lagraph_dist.core.text import plural

__all__ = ["main", "build_parser"]

DIRECTIONS = ("push", "pull", "auto")


def _world_rank():
    from mpi4py import MPI
    return MPI.COMM_WORLD.Get_rank()


class _Parser(argparse.ArgumentParser):
    """An argument parser that prints (help, usage, errors) on rank 0 only; every rank still
    exits with the same status, since they all parse the same arguments."""

    def _print_message(self, message, file=None):
        if _world_rank() == 0:
            super()._print_message(message, file)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' line breaks and shows every option's default."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (not action.option_strings or action.default is argparse.SUPPRESS
                or "(default" in text):
            return text
        if action.nargs == 0 and action.default is False:      # a flag
            return f"{text} (default: off)"
        return f"{text} (default: %(default)s)"


# -- argument types ------------------------------------------------------------------------
def _argument_type(convert, accept, wanted):
    """An argparse type: ``convert`` the text, and refuse it unless ``accept``-ed."""
    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not accept(value):
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
        return value
    return parse


_positive_int = _argument_type(int, lambda v: v >= 1, "a positive integer")
_nonnegative_int = _argument_type(int, lambda v: v >= 0, "an integer >= 0")
_positive_float = _argument_type(float, lambda v: 0 < v < float("inf"), "a positive number")


def _grid_shape(text):
    try:
        rows, cols = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"grid must look like RxC (e.g. 2x3), got {text!r}") from None
    if rows < 1 or cols < 1:
        raise argparse.ArgumentTypeError(f"grid sides must be >= 1, got {text!r}")
    return rows, cols


def _comma_list(allowed, what):
    def parse(text):
        items = tuple(item for item in text.split(",") if item)
        if items == ("none",):
            return ()
        for item in items:
            if item not in allowed:
                raise argparse.ArgumentTypeError(f"unknown {what} {item!r}; choose from "
                                                 f"{', '.join(allowed)} (comma-separated) or 'none'")
        return items
    return parse


# -- the parser ----------------------------------------------------------------------------
def _graph_arguments(parser):
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--scale", "-g", type=_positive_int,
                        help="Graph500 Kronecker graph with 2**SCALE vertices "
                             "(default: none; give --scale or --mtx)")
    source.add_argument("--mtx", "-f", metavar="PATH",
                        help="Matrix Market coordinate file (default: none; give --scale or --mtx)")
    parser.add_argument("--merge-duplicates", action="store_true",
                        help="merge entries the --mtx file stores twice instead of rejecting it")
    parser.add_argument("--edgefactor", "-e", type=_positive_int, default=16,
                        help="Kronecker edges per vertex")
    parser.add_argument("--seed", type=_nonnegative_int, default=0, help="Kronecker generator seed")
    parser.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto",
                        help="where the blocks live and the kernels run; auto: the GPU when CuPy "
                             "sees one, else the CPU")
    parser.add_argument("--grid", type=_grid_shape, default=None, metavar="RxC",
                        help="process grid (default: the most square grid over all MPI ranks)")


def _subcommand(commands, name, summary, description, examples):
    return commands.add_parser(name, help=summary, description=f"{description}\n\nexamples:\n{examples}",
                               formatter_class=_HelpFormatter)


def build_parser():
    parser = _Parser(prog="lagraph-dist", formatter_class=_HelpFormatter,
                     description="BFS the GraphBLAS way: one search with a report, a Graph500-style\n"
                                 "benchmark, a generated graph, or the plot of a benchmark record.",
                     epilog="Run `lagraph-dist COMMAND --help` for a command's options and examples.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    one = _subcommand(
        commands, "bfs", "BFS from some roots, with a per-level report",
        "Build a graph, run BFS from the given (or seeded) roots, check each result with the\n"
        "Graph500 rules and print a report: the graph, the backend and device, and per root the\n"
        "vertices reached, the levels, the time and the per-level table.",
        "  lagraph-dist bfs --scale 16 --roots 4\n"
        "  lagraph-dist bfs --mtx graph.mtx --root 0 --out result.npz\n"
        "  mpiexec -n 4 lagraph-dist bfs --scale 18 --grid 2x2 --direction push")
    _graph_arguments(one)
    one.add_argument("--root", "-r", type=_nonnegative_int, action="append", metavar="VERTEX",
                     help="root vertex, repeatable (default: none; --roots seeded roots instead)")
    one.add_argument("--roots", type=_positive_int, default=1,
                     help="number of seeded roots of nonzero degree, when no --root is given")
    one.add_argument("--root-seed", type=_nonnegative_int, default=2, help="seed picking those roots")
    one.add_argument("--direction", choices=DIRECTIONS, default="auto",
                     help="push (top-down), pull (bottom-up) or auto (direction-optimizing)")
    one.add_argument("--no-validate", action="store_true", help="skip the Graph500 checks")
    one.add_argument("--stage-timing", action="store_true",
                     help="wait for the device at every product stage, so stage seconds are exact")
    one.add_argument("--out", "-o", metavar="PATH.npz",
                     help="save levels_ROOT and parents_ROOT arrays (int64, -1 unreached) and "
                          "roots (default: none, nothing saved)")

    bench = _subcommand(
        commands, "bench", "Graph500-style benchmark with peers side by side, JSON out",
        "Graph500 protocol: seeded roots of nonzero degree, a warm-up, every timed search\n"
        "validated, TEPS = undirected edges in the searched component / seconds (harmonic mean).\n"
        "The peers run on rank 0 over the same graph and the same roots.",
        "  lagraph-dist bench --scale 16 --roots 16 --json bench.json --plot bench.png\n"
        "  lagraph-dist bench --scale 20 --peers graphblas-pushpull,cupyx-naive --no-check-levels\n"
        "  mpiexec -n 4 lagraph-dist bench --scale 18 --peers none")
    _graph_arguments(bench)
    bench.add_argument("--roots", type=_positive_int, default=64, help="number of seeded roots")
    bench.add_argument("--root-seed", type=_nonnegative_int, default=2, help="seed picking the roots")
    bench.add_argument("--directions", type=_comma_list(DIRECTIONS, "direction"), default="push,auto",
                       help=f"comma list of {', '.join(DIRECTIONS)}")
    bench.add_argument("--peers", type=_comma_list(PEERS, "peer"),
                       default="graphblas-push,graphblas-pushpull,scipy",
                       help=f"comma list of {', '.join(PEERS)}, or 'none'")
    bench.add_argument("--peer-roots", type=_positive_int, default=None,
                       help="the peers run only the first PEER_ROOTS of our roots "
                            "(default: all of them, within --peer-seconds)")
    bench.add_argument("--peer-seconds", type=_positive_float, default=BenchConfig.peer_seconds,
                       help="each peer (and the level check) stops taking new roots once it has "
                            "spent this long; it always runs one")
    bench.add_argument("--no-check-levels", action="store_true",
                       help="skip comparing levels with python-graphblas on the peers' roots "
                            "(it gathers the graph to rank 0)")
    bench.add_argument("--json", metavar="PATH", help="write the JSON record here (default: none)")
    bench.add_argument("--plot", metavar="PATH.png",
                       help="draw the record here, as `lagraph-dist plot` does (default: none)")
    bench.add_argument("--no-progress", action="store_true",
                       help="nothing on stderr while it runs (by default: bars on a terminal, "
                            "one line a phase elsewhere)")

    gen = _subcommand(
        commands, "generate", "write a Graph500 Kronecker graph as Matrix Market",
        "Generate the symmetric Kronecker graph the other commands build with --scale, and\n"
        "write it as a Matrix Market coordinate file (symmetric, pattern).",
        "  lagraph-dist generate --scale 12 --out kron12.mtx")
    gen.add_argument("--scale", "-g", type=_positive_int, required=True,
                     help="2**SCALE vertices (default: none, required)")
    gen.add_argument("--edgefactor", "-e", type=_positive_int, default=16, help="edges per vertex")
    gen.add_argument("--seed", type=_nonnegative_int, default=0, help="generator seed")
    gen.add_argument("--out", "-o", required=True, metavar="PATH", help="file to write (default: none, required)")

    plot = _subcommand(
        commands, "plot", "draw a benchmark record (needs the plot extra)",
        "Draw the GTEPS of our runs and the peers side by side, and the per-level time of the\n"
        "first root split by stage and direction, from a record of `lagraph-dist bench --json`.",
        "  lagraph-dist plot bench.json -o bench.png")
    plot.add_argument("record", metavar="RECORD.json", help="a JSON record of lagraph-dist bench")
    plot.add_argument("--out", "-o", required=True, metavar="PATH.png",
                      help="PNG file to write (default: none, required)")

    check = _subcommand(
        commands, "check", "our BFS against python-graphblas on one graph",
        "Run our BFS and python-graphblas's on the same graph from some roots and report the\n"
        "differences: levels must be equal, parents must pass the Graph500 rules. Exits 1 when\n"
        "anything differs (for checking a GPU run against SuiteSparse).",
        "  lagraph-dist check graph.mtx.gz --roots 8\n  lagraph-dist check --scale 14 --backend gpu")
    graph = check.add_mutually_exclusive_group(required=True)
    graph.add_argument("graph", nargs="?", help="Matrix Market file, .mtx or .mtx.gz (default: none)")
    graph.add_argument("--scale", "-g", type=_positive_int,
                       help="Graph500 Kronecker graph with 2**SCALE vertices (default: none)")
    check.add_argument("--edgefactor", "-e", type=_positive_int, default=16, help="edges per vertex")
    check.add_argument("--seed", type=_nonnegative_int, default=0, help="generator seed")
    check.add_argument("--root", "-r", type=_nonnegative_int, action="append",
                       help="root vertex, repeatable (default: seeded roots)")
    check.add_argument("--roots", type=_positive_int, default=4, help="number of seeded roots when no --root")
    check.add_argument("--direction", choices=("push", "pull", "auto"), default="auto", help="BFS direction")
    check.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto", help="our backend")
    check.add_argument("--grid", type=_grid_shape, default=None,
                       help="process grid RxC (default: most square over all ranks)")
    check.add_argument("--merge-duplicates", action="store_true",
                       help="merge entries a .mtx file stores twice instead of rejecting it")

    estimate = _subcommand(
        commands, "estimate", "memory a Kronecker graph and a search take on each rank",
        "Print the bytes each rank of an RxC grid holds for the Graph500 Kronecker graph of\n"
        "2**SCALE vertices (at most 2 * EDGEFACTOR * 2**SCALE stored edges, symmetric): its blocks,\n"
        "a search beside them and the peak of its construction (one pass over the edges), the\n"
        "estimate the constructors check against the free memory before they allocate. Nothing\n"
        "is built, so any grid can be asked about from one process.",
        "  lagraph-dist estimate --scale 30 --grid 8x8\n"
        "  lagraph-dist estimate --scale 26 --backend cpu --edgefactor 8\n"
        "  lagraph-dist estimate --scale 22 --sources 64")
    estimate.add_argument("--scale", "-g", type=_positive_int, required=True,
                          help="2**SCALE vertices (default: none, required)")
    estimate.add_argument("--edgefactor", "-e", type=_positive_int, default=16, help="Kronecker edges per vertex")
    estimate.add_argument("--grid", type=_grid_shape, default="1x1", metavar="RxC", help="process grid")
    estimate.add_argument("--backend", choices=("cpu", "gpu"), default="gpu",
                          help="whose kernels and copies are counted")
    estimate.add_argument("--sources", type=_positive_int, default=None,
                          help="also what ld.bfs_multi from this many sources holds beside the graph "
                               "(default: none)")
    return parser


# -- graphs and reports ----------------------------------------------------------------------
def _load_graph(args):
    grid = Grid(*args.grid) if args.grid else Grid()
    started = time.perf_counter()
    if args.mtx:
        A = Matrix.from_mtx(args.mtx, merge_duplicates=args.merge_duplicates, grid=grid, backend=args.backend)
        info = {"kind": "mtx", "path": args.mtx, "merge_duplicates": args.merge_duplicates}
    else:
        if args.merge_duplicates:       # a generated graph has no file entries to merge: say so
            raise InvalidValue("--merge-duplicates applies to a --mtx file, not to a --scale graph")
        A = kronecker(args.scale, args.edgefactor, seed=args.seed, grid=grid, backend=args.backend)
        info = {"kind": "kronecker", "scale": args.scale, "edgefactor": args.edgefactor, "seed": args.seed}
    A.backend.sync()
    info["build_seconds"] = time.perf_counter() - started
    return A, info


def _on_rank0(grid, func, *args):
    """Run ``func`` (printing, writing files) on rank 0 only; its failure fails every rank."""
    grid.bcast_from(0, func, *args)


def _say(lines):
    print(*lines, sep="\n", flush=True)


def _graph_report(A, info, requested):
    if info["kind"] == "kronecker":
        graph = f"Kronecker scale {info['scale']}, edge factor {info['edgefactor']}, seed {info['seed']}"
    else:
        graph = f"Matrix Market file {info['path']}"
    asked = f" (asked for {requested})" if requested != A.backend.name else ""
    rows = [("graph", graph), ("n", f"{A.n:,} vertices"),
            ("edges", f"{A.nvals:,} stored (directed) edges{', symmetric' if A.symmetric else ''}"),
            ("grid", f"{A.grid.rows}x{A.grid.cols} ({A.grid.size} rank{'s' if A.grid.size > 1 else ''})"),
            ("backend", A.backend.name + asked), ("device", device_name(A.backend)),
            ("built in", f"{info['build_seconds']:.2f} s")]
    return [f"{key:<9} {value}" for key, value in rows]


LEVEL_HEADER = ("  level  dir    frontier  discovered  edges examined  expand bytes  fold bytes"
                "         ms  reads  launches  clock")


def _level_rows(stats):
    return [f"  {s['level']:5d}  {s['direction']:4s} {s['frontier']:10d} {s['discovered']:11d} "
            f"{s['edges_examined']:15d} {s['bytes'].get('expand', 0):13d} {s['bytes'].get('fold', 0):11d} "
            f"{1e3 * s['seconds']:10.3f} {s['host_reads']:6d} {s['launches']:9d}  {s['clock']}" for s in stats]


def _roots_for(args, A):
    if not args.root:
        return pick_roots(A, args.roots, seed=args.root_seed)
    if len(set(args.root)) < len(args.root):
        raise InvalidValue(f"a root is given twice in {args.root} (the saved arrays are keyed by root)")
    return list(args.root)


def _run_bfs(args):
    ops.SYNC_STAGE_TIMERS = args.stage_timing
    A, info = _load_graph(args)
    roots = _roots_for(args, A)
    _on_rank0(A.grid, _say, _graph_report(A, info, args.backend))
    saved = {"roots": np.asarray(roots, dtype=np.int64)}
    for root in roots:
        started = time.perf_counter()
        result = bfs(A, root, direction=args.direction)
        A.backend.sync()
        elapsed = time.perf_counter() - started
        levels, parents = result.levels.to_numpy(), result.parents.to_numpy()
        if not args.no_validate:
            validate(A, root, levels, parents)
        if args.out:
            saved[f"levels_{root}"], saved[f"parents_{root}"] = levels, parents
        reached = int((levels >= 0).sum())
        verdict = "not validated (--no-validate)" if args.no_validate else "validated (Graph500 rules)"
        heading = (f"root {root}: reached {plural(reached, 'vertex', spec=',')} in "
                   f"{plural(int(levels.max()), 'level')}, "
                   f"{1e3 * elapsed:.2f} ms, {verdict}")
        _on_rank0(A.grid, _say, ["", heading, LEVEL_HEADER, *_level_rows(result.stats)])
    if args.out:
        _on_rank0(A.grid, _save_npz, args.out, saved)


def _save_npz(path, arrays):
    with open_file(path, "wb", doing=f"write {path}") as handle:   # savez would append .npz to a bare name
        np.savez(handle, **arrays)
    print(f"\nwrote {path}: {', '.join(arrays)}", flush=True)


def _run_bench(args):
    if args.plot:
        pyplot()                             # no matplotlib: say so before the long run
    if not args.directions:
        raise InvalidValue("--directions names no direction; give at least one of push, pull, auto")
    config = BenchConfig(roots=args.roots, root_seed=args.root_seed, directions=args.directions,
                         peers=args.peers, peer_roots=args.peer_roots, peer_seconds=args.peer_seconds,
                         check_levels=not args.no_check_levels, progress=not args.no_progress,
                         requested_backend=args.backend)
    progress = Progress(config.progress and _world_rank() == 0, 3 + len(config.directions))
    # the JSON is written as each part finishes: a later part's failure keeps what was measured
    on_part = (lambda record: write_json(record, args.json)) if args.json else None
    try:
        with progress.phase("building the graph"):
            A, info = _load_graph(args)
        record = run_bench(A, info, config, progress, on_part=on_part)
    finally:
        progress.close()
    _on_rank0(A.grid, _bench_outputs, record, args)


def _bench_outputs(record, args):
    print(format_table(record), flush=True)
    if args.json:
        print(f"wrote {args.json}", flush=True)
    if args.plot:
        plot_record(record, args.plot)
        print(f"wrote {args.plot}", flush=True)


def _run_generate(args):
    A = kronecker(args.scale, args.edgefactor, seed=args.seed, grid=Grid(), backend="cpu")
    S = A.to_scipy(root=0)

    def write():
        coo = S.tocoo()
        write_mtx(args.out, coo.row, coo.col, A.n, symmetric=True)
        print(f"wrote {args.out}: n={A.n}, {S.nnz} stored edges (generated on the cpu backend)", flush=True)
    _on_rank0(A.grid, write)


def _run_plot(args):

    def draw():
        plot_record(args.record, args.out)
        print(f"wrote {args.out}", flush=True)
    _on_rank0(default_grid(), draw)


def _run_check(args):
    return run_check(args.graph, scale=args.scale, edgefactor=args.edgefactor, seed=args.seed,
                     roots=args.root, nroots=args.roots, direction=args.direction,
                     backend=args.backend, grid_shape=args.grid,
                     merge_duplicates=args.merge_duplicates)


def _estimate_lines(args):
    n, nvals = 1 << args.scale, 2 * args.edgefactor << args.scale
    rows, cols = args.grid
    estimate = estimate_memory(n, nvals, grid_shape=args.grid, backend=args.backend, symmetric=True)
    figures = [("graph", estimate.graph, "the blocks by column (and by row when pull needs a copy)"),
               ("search", estimate.search, "a BFS beside the graph, with its dense results"),
               ("construction", estimate.construction, "the peak while the blocks are built"),
               ("peak", estimate.total, "the most held at once: max(construction, graph + search)")]
    if args.sources:
        multi = multi_search_bytes(n, nvals, grid_shape=args.grid, backend=args.backend, sources=args.sources,
                                   width=min(args.sources, 64), symmetric=True)
        figures.append(("bfs_multi", multi, f"{args.sources} sources beside the graph, batches of "
                                            f"{min(args.sources, 64)}"))
    lines = [f"Kronecker scale {args.scale}, edge factor {args.edgefactor}: n = {n:,} vertices, "
             f"at most {nvals:,} stored edges",
             f"{rows}x{cols} grid ({rows * cols} rank{'s' if rows * cols > 1 else ''}), {args.backend} "
             f"backend; bytes on each rank:"]
    lines += [f"  {name:<13}{nbytes:>20,} B {nbytes / 2**30:>12,.2f} GiB   {what}" for name, nbytes, what in figures]
    return lines


def _run_estimate(args):
    lines = _estimate_lines(args)
    if _world_rank() == 0:           # arithmetic only: every rank has the same lines
        _say(lines)


def main(argv=None):
    args = build_parser().parse_args(argv)
    runners = {"bfs": _run_bfs, "bench": _run_bench, "generate": _run_generate, "plot": _run_plot,
               "check": _run_check, "estimate": _run_estimate}
    try:
        status = runners[args.command](args)
    except (LagraphDistError, ValueError, TypeError, IndexError, OSError, MemoryError) as exc:
        # the package raises on every rank alike (grid.agree): one rank says it
        if _world_rank() == 0:
            print(f"lagraph-dist: error: {exc}", file=sys.stderr, flush=True)
        return 2
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
