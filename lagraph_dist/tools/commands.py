"""The command line's commands: ``bfs``, ``bench``, ``generate``, ``plot``, ``check`` and
``estimate``, each a function of the parsed arguments (:mod:`lagraph_dist.tools.cli` parses them
and imports this module only then, so that ``--help`` and ``--version`` never load the engine).

Every rank runs a command; rank 0 prints and writes files (:func:`on_rank0`).
"""
from __future__ import annotations

import time

import numpy as np
from mpi4py import MPI

from lagraph_dist.algorithms import bfs
from lagraph_dist.tools.bench import BenchConfig, Progress, device_name, format_table, pick_roots, run_bench, write_json
from lagraph_dist.tools.check import run_check
from lagraph_dist.tools.family_bench import format_family_table, run_family_bench
from lagraph_dist.tools.peers import DEFAULT_PEERS, FAMILY_PEERS, PEERS
from lagraph_dist.io.generators import kronecker
from lagraph_dist.io.interop import from_mtx
from lagraph_dist.comm.grid import Grid, default_grid
from lagraph_dist.algebra.memory import estimate_memory, multi_search_bytes
from lagraph_dist.io.mtx import write_mtx
from lagraph_dist.tools.plot import plot_record, pyplot
from lagraph_dist.tools.validate import validate
from lagraph_dist.core.stats import level_ms_text
from lagraph_dist.core.errors import InvalidValue, open_file
from lagraph_dist.core.settings import settings
from lagraph_dist.core.text import plural

__all__ = ["RUNNERS"]


def _world_rank():
    return MPI.COMM_WORLD.Get_rank()


# -- graphs and reports ----------------------------------------------------------------------
def _load_graph(args):
    grid = Grid(*args.grid) if args.grid else Grid()
    started = time.perf_counter()
    if args.mtx:
        A = from_mtx(args.mtx, merge_duplicates=args.merge_duplicates, grid=grid, backend=args.backend)
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
            f"{level_ms_text(s, say_run=False):>10s} {s['host_reads']:6d} {s['launches']:9d}  {s['clock']}"
            + (f" (the run of {s['run_levels']} levels ending here)" if "run_levels" in s else "") for s in stats]


def _roots_for(args, A):
    if not args.root:
        return pick_roots(A, args.roots, seed=args.root_seed)
    if len(set(args.root)) < len(args.root):
        raise InvalidValue(f"a root is given twice in {args.root} (the saved arrays are keyed by root)")
    return list(args.root)


def _run_bfs(args):
    settings.sync_stage_timers = args.stage_timing
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
    if args.algorithm != "bfs":
        return _run_family_bench(args)
    if args.peers is None:
        args.peers = DEFAULT_PEERS
    unknown = [p for p in args.peers if p not in PEERS]
    if unknown:
        raise InvalidValue(f"--peers {','.join(unknown)}: not a peer of the search; its peers are {', '.join(PEERS)}")
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


def _run_family_bench(args):
    """bench --algorithm msbfs|bc|cc: ours beside the algorithm's own peers (family_bench)."""
    if args.plot:
        pyplot()                             # no matplotlib: say so before the long run
    own = FAMILY_PEERS[args.algorithm]
    unknown = [p for p in args.peers or () if p not in own]
    if unknown:
        raise InvalidValue(f"--peers {','.join(unknown)}: not a peer of --algorithm {args.algorithm} "
                           f"(its peers: {', '.join(own)})")
    A, info = _load_graph(args)
    record = run_family_bench(A, info, args.algorithm, sources=args.roots, root_seed=args.root_seed,
                              repeats=args.repeats, peers=args.peers, peer_seconds=args.peer_seconds,
                              peer_roots=args.peer_roots)

    def report():
        print(format_family_table(record), flush=True)
        if args.json:
            write_json(record, args.json)
            print(f"wrote {args.json}", flush=True)
        if args.plot:
            plot_record(record, args.plot)
            print(f"wrote {args.plot}", flush=True)
    _on_rank0(A.grid, report)


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


RUNNERS = {"bfs": _run_bfs, "bench": _run_bench, "generate": _run_generate, "plot": _run_plot,
           "check": _run_check, "estimate": _run_estimate}
