"""``lagraph-dist``: one BFS with a report, a Graph500-style benchmark, a generated graph, the
plot of a benchmark record, a check against python-graphblas, or a memory estimate.

Works the same in a plain process (1 x 1 grid) and under ``mpiexec`` (every rank runs it;
rank 0 prints, writes files and reports errors; every rank exits with the same status). The
ranks first agree on their command line (one differing argument would have them build
different graphs or wait on each other). This module only parses: the commands live in
:mod:`lagraph_dist.tools.commands`, imported once the arguments ask for one, so that
``--help`` and ``--version`` answer without loading the engine (numba, scipy, mpi4py).
"""
from __future__ import annotations

import argparse
import os
import sys

from lagraph_dist.core.direction import DIRECTIONS
from lagraph_dist.core.errors import LagraphDistError
from lagraph_dist.core.version import version_line
from lagraph_dist.tools.peers import ALGORITHMS, DEFAULT_PEERS, FAMILY_PEERS, PEER_SECONDS, PEERS

__all__ = ["main", "build_parser"]


def _launched_rank() -> int:
    """This process's rank as the MPI launcher set it (MPICH's PMI_RANK, Open MPI's
    OMPI_COMM_WORLD_RANK), read without starting MPI; 0 in a plain process."""
    for name in ("PMI_RANK", "OMPI_COMM_WORLD_RANK"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return 0


class _Parser(argparse.ArgumentParser):
    """An argument parser that prints (help, usage, errors) on rank 0 only; every rank still
    exits with the same status, since they all parse the same arguments."""

    def _print_message(self, message, file=None):
        if _launched_rank() == 0:
            super()._print_message(message, file)


class _VersionAction(argparse.Action):
    """``--version``: the version and the code's commit (read only when asked: it runs git)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser._print_message(f"{parser.prog} {version_line()}\n", sys.stdout)
        parser.exit()


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
    parser.add_argument("--version", action=_VersionAction, help="print the version and the commit it runs, and exit")
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
    family_peers = tuple(sorted({p for names in FAMILY_PEERS.values() for p in names} - set(PEERS)))
    bench.add_argument("--peers", type=_comma_list(PEERS + family_peers, "peer"), default=None,
                       help=f"comma list of {', '.join(PEERS)}, or 'none' (default: {','.join(DEFAULT_PEERS)}); "
                            "with --algorithm msbfs, bc or cc: its own ("
                            + "; ".join(f"{a}: {','.join(p)}" for a, p in FAMILY_PEERS.items()) + "), all by default")
    bench.add_argument("--algorithm", choices=ALGORITHMS, default="bfs",
                       help="what to time: bfs (the Graph500 search, the default), msbfs (bfs_multi from --roots "
                            "sources, levels only), bc (betweenness_centrality from --roots sources) or cc "
                            "(connected_components)")
    bench.add_argument("--repeats", type=_positive_int, default=5,
                       help="--algorithm msbfs, bc, cc: timed calls after the warm-up (the median is reported)")
    bench.add_argument("--peer-roots", type=_positive_int, default=None,
                       help="the peers run only the first PEER_ROOTS of our roots "
                            "(default: all of them, within --peer-seconds)")
    bench.add_argument("--peer-seconds", type=_positive_float, default=PEER_SECONDS,
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


def _agree_on_command_line(argv):
    """Collective over all MPI ranks: the same command line everywhere, or InvalidValue on
    every rank naming what each passed."""
    from mpi4py import MPI               # only for a command: --help and --version stay light
    from lagraph_dist.comm.agreement import agree_on
    agree_on(MPI.COMM_WORLD, "lagraph-dist", {"command line": " ".join(argv)})


def main(argv=None):
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    args = build_parser().parse_args(argv)
    try:
        _agree_on_command_line(argv)
        from lagraph_dist.tools.commands import RUNNERS       # the engine, once a command is asked for
        status = RUNNERS[args.command](args)
    except (LagraphDistError, ValueError, TypeError, IndexError, OSError, MemoryError) as exc:
        # the package raises on every rank alike (grid.agree): one rank says it
        if _launched_rank() == 0:
            print(f"lagraph-dist: error: {exc}", file=sys.stderr, flush=True)
        return 2
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
